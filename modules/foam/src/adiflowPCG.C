/*---------------------------------------------------------------------------*\
  adiflowPCG.C - the OpenFOAM side of the solver (see adiflowPCG.H). C++ only
  because OpenFOAM's solver selection needs a class: the controls are checked
  here, the arrays are handed to the C cores (afp.h), every failure they
  report becomes an OpenFOAM FatalError naming the problem.
\*---------------------------------------------------------------------------*/

#include "adiflowPCG.H"
#include "processorLduInterface.H"
#include "addToRunTimeSelectionTable.H"
#include "PstreamReduceOps.H"
#include "Switch.H"
#include "afp.h"

#include <string>
#include <vector>

namespace Foam
{
    defineTypeNameAndDebug(adiflowPCG, 0);

    lduMatrix::solver::addsymMatrixConstructorToTable<adiflowPCG>
        addadiflowPCGSymMatrixConstructorToTable_;

    // registered for asymmetric matrices too, so that selecting it for one
    // gives this solver's own message instead of a list of other solvers
    lduMatrix::solver::addasymMatrixConstructorToTable<adiflowPCG>
        addadiflowPCGAsymMatrixConstructorToTable_;
}


namespace
{
    const char* const allowedKeys[] =
    {
        "solver", "preconditioner", "tolerance", "relTol", "maxIter",
        "minIter", "backend", "chebyshevDegree", "chebyshevRatio",
        "exchange", "timing", "reduction", nullptr
    };

    struct hookCtx
    {
        const Foam::lduMatrix* matrix;
        const Foam::FieldField<Foam::Field, Foam::scalar>* bouCoeffs;
        const Foam::lduInterfaceFieldPtrsList* interfaces;
        Foam::scalarField* f[AFP_NSLOTS];
        Foam::direction cmpt;
        Foam::label comm;
    };

    bool reportedBackend = false;
    bool reportedGpu = false;

    // The GPU path's state (afp.h): made at the first GPU solve and kept for
    // the life of the process, so that each field's matrix stays on the
    // device between solves. Not destroyed at exit: that would run after
    // OpenFOAM has finalised MPI, perhaps after the CUDA runtime's own
    // teardown; the end of the process frees the device.
    afp_gpu* gpuState = nullptr;
}


// * * * * * * * * * * * * * * * * Constructor * * * * * * * * * * * * * * * //

Foam::adiflowPCG::adiflowPCG
(
    const word& fieldName,
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const lduInterfaceFieldPtrsList& interfaces,
    const dictionary& solverControls
)
:
    lduMatrix::solver
    (
        fieldName,
        matrix,
        interfaceBouCoeffs,
        interfaceIntCoeffs,
        interfaces,
        solverControls
    ),
    backend_(controlDict_.lookupOrDefault<word>("backend", "auto")),
    precondName_(controlDict_.lookupOrDefault<word>("preconditioner", "diagonal")),
    chebDegree_(controlDict_.lookupOrDefault<label>("chebyshevDegree", 4)),
    chebRatio_(controlDict_.lookupOrDefault<scalar>("chebyshevRatio", 30)),
    exchange_(controlDict_.lookupOrDefault<word>("exchange", "auto")),
    timing_(controlDict_.lookupOrDefault<Switch>("timing", false)),
    reduction_(controlDict_.lookupOrDefault<word>("reduction", "auto"))
{
    checkControls();
}


void Foam::adiflowPCG::checkControls() const
{
    for (const word& key : controlDict_.toc())
    {
        bool known = false;
        for (const char* const* k = allowedKeys; *k; ++k)
        {
            if (key == *k) known = true;
        }
        if (!known)
        {
            FatalIOErrorInFunction(controlDict_)
                << "adiflowPCG: unknown option '" << key << "' in the solver"
                << " controls of field " << fieldName_ << nl
                << "    allowed: solver, preconditioner (diagonal|Chebyshev),"
                << " tolerance, relTol, maxIter, minIter, backend"
                << " (auto|gpu|cpu), chebyshevDegree, chebyshevRatio,"
                << " exchange (auto|mpi|nccl|host), timing,"
                << " reduction (auto|sequential|tree)"
                << exit(FatalIOError);
        }
    }
    if (matrix_.asymmetric())
    {
        FatalIOErrorInFunction(controlDict_)
            << "adiflowPCG: the matrix of field " << fieldName_
            << " is asymmetric; adiflowPCG (conjugate gradients) solves"
            << " symmetric matrices only (e.g. p). Select an asymmetric"
            << " solver (PBiCGStab, smoothSolver) for " << fieldName_
            << exit(FatalIOError);
    }
    if (backend_ != "auto" && backend_ != "gpu" && backend_ != "cpu")
    {
        FatalIOErrorInFunction(controlDict_)
            << "adiflowPCG: backend '" << backend_ << "' for field "
            << fieldName_ << " is not one of auto, gpu, cpu"
            << exit(FatalIOError);
    }
    if
    (
        precondName_ != "DIAGONAL" && precondName_ != "diagonal"
     && precondName_ != "Chebyshev" && precondName_ != "chebyshev"
    )
    {
        FatalIOErrorInFunction(controlDict_)
            << "adiflowPCG: preconditioner '" << precondName_
            << "' for field " << fieldName_
            << " is not one of diagonal, Chebyshev"
            << exit(FatalIOError);
    }
    if (chebDegree_ < 1 || chebDegree_ > 32)
    {
        FatalIOErrorInFunction(controlDict_)
            << "adiflowPCG: chebyshevDegree " << chebDegree_
            << " for field " << fieldName_ << " is outside 1..32"
            << exit(FatalIOError);
    }
    if (!(chebRatio_ > 1 && chebRatio_ < 1e6))
    {
        FatalIOErrorInFunction(controlDict_)
            << "adiflowPCG: chebyshevRatio " << chebRatio_
            << " for field " << fieldName_ << " is outside (1, 1e6)"
            << exit(FatalIOError);
    }
    if
    (
        exchange_ != "auto" && exchange_ != "mpi"
     && exchange_ != "nccl" && exchange_ != "host"
    )
    {
        FatalIOErrorInFunction(controlDict_)
            << "adiflowPCG: exchange '" << exchange_ << "' for field "
            << fieldName_ << " is not one of auto, mpi, nccl, host"
            << exit(FatalIOError);
    }
    if
    (
        reduction_ != "auto" && reduction_ != "sequential"
     && reduction_ != "tree"
    )
    {
        FatalIOErrorInFunction(controlDict_)
            << "adiflowPCG: reduction '" << reduction_ << "' for field "
            << fieldName_ << " is not one of auto, sequential, tree"
            << exit(FatalIOError);
    }
    if (maxIter_ < 0 || minIter_ < 0 || tolerance_ < 0 || relTol_ < 0)
    {
        FatalIOErrorInFunction(controlDict_)
            << "adiflowPCG: negative maxIter, minIter, tolerance or relTol"
            << " for field " << fieldName_
            << exit(FatalIOError);
    }
}


// * * * * * * * * * * * * * * * C core hooks  * * * * * * * * * * * * * * * //

void Foam::adiflowPCG::ifaceInit(void* ctx, int xs, int ys)
{
    hookCtx& h = *static_cast<hookCtx*>(ctx);
    h.matrix->initMatrixInterfaces
    (
        true, *h.bouCoeffs, *h.interfaces, *h.f[xs], *h.f[ys], h.cmpt
    );
}


void Foam::adiflowPCG::ifaceUpdate(void* ctx, int xs, int ys)
{
    hookCtx& h = *static_cast<hookCtx*>(ctx);
    h.matrix->updateMatrixInterfaces
    (
        true, *h.bouCoeffs, *h.interfaces, *h.f[xs], *h.f[ys], h.cmpt
    );
}


void Foam::adiflowPCG::allSum(void* ctx, double* v, int n)
{
    hookCtx& h = *static_cast<hookCtx*>(ctx);
    if (!Pstream::parRun()) return;
    for (int i = 0; i < n; ++i)
    {
        scalar s = v[i];
        reduce(s, sumOp<scalar>(), Pstream::msgType(), h.comm);
        v[i] = s;
    }
}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

Foam::solverPerformance Foam::adiflowPCG::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    const bool cheb = (precondName_ == "Chebyshev" || precondName_ == "chebyshev");
    const label comm = matrix_.mesh().comm();

    // --- which backend: every rank the same (their exchanges must match)
    bool useGpu = false;
    if (backend_ != "cpu")
    {
        const bool built = afp_gpu_built();
        const int ndev = built ? afp_gpu_count() : 0;
        const std::string why(built ? afp_error() : "built without CUDA");
        bool ok = (ndev > 0);
        bool allOk = returnReduce(ok, andOp<bool>(), Pstream::msgType(), comm);
        if (backend_ == "gpu" && !allOk)
        {
            FatalErrorInFunction
                << "adiflowPCG: backend gpu requested for field " << fieldName_
                << " but no usable GPU on "
                << (ok ? "another rank" : "this rank")
                << (ok ? "" : ": ") << (ok ? "" : why.c_str())
                << nl << "    (select backend cpu or auto)"
                << exit(FatalError);
        }
        useGpu = allOk;
        if (backend_ == "auto" && !reportedBackend)
        {
            Info<< "adiflowPCG: backend auto -> "
                << (useGpu ? "gpu" : "cpu")
                << (useGpu ? "" : " (no usable GPU on every rank)") << endl;
        }
    }
    reportedBackend = true;

    // --- the matrix in the C cores' terms
    const lduAddressing& addr = matrix_.lduAddr();
    const label nCells = psi.size();
    afp_system sys;
    sys.n = nCells;
    sys.nfaces = addr.upperAddr().size();
    sys.lower = addr.lowerAddr().cdata();
    sys.upper = addr.upperAddr().cdata();
    sys.diag = matrix_.diag().cdata();
    sys.upper_coef = matrix_.upper().cdata();
    sys.lower_coef = matrix_.lower().cdata();   // == upper when symmetric
    sys.rank = Pstream::parRun() ? Pstream::myProcNo(comm) : 0;
    sys.nranks = Pstream::parRun() ? Pstream::nProcs(comm) : 1;
    std::vector<afp_iface> ifaces;
    forAll(interfaces_, i)
    {
        if (!interfaces_.set(i)) continue;
        const lduInterface& li = interfaces_[i].interface();
        afp_iface q;
        q.nfaces = li.faceCells().size();
        q.face_cells = li.faceCells().cdata();
        q.coeffs = interfaceBouCoeffs_[i].cdata();
        q.neighbour = -1;
        q.tag = 0;
        const processorLduInterface* p = isA<processorLduInterface>(li);
        if (p)
        {
            q.neighbour = p->neighbProcNo();
            q.tag = p->tag();
        }
        else if (useGpu)
        {
            FatalErrorInFunction
                << "adiflowPCG: field " << fieldName_ << " has a coupled"
                << " interface of type " << interfaces_[i].interfaceFieldType()
                << "; the GPU path couples processor interfaces only"
                << " (select backend cpu for this case)"
                << exit(FatalError);
        }
        ifaces.push_back(q);
    }
    sys.niface = label(ifaces.size());
    sys.ifaces = ifaces.data();
    if (useGpu && Pstream::parRun() && comm != UPstream::worldComm)
    {
        FatalErrorInFunction
            << "adiflowPCG: the GPU path needs the world communicator; the"
            << " matrix of " << fieldName_ << " lives on communicator " << comm
            << exit(FatalError);
    }

    afp_controls ctl;
    ctl.max_iter = maxIter_;
    ctl.min_iter = minIter_;
    ctl.tolerance = tolerance_;
    ctl.rel_tol = relTol_;
    ctl.precond = cheb ? AFP_PRECOND_CHEBYSHEV : AFP_PRECOND_DIAGONAL;
    ctl.cheb_degree = chebDegree_;
    ctl.cheb_ratio = chebRatio_;
    ctl.exchange =
        exchange_ == "mpi" ? AFP_EXCHANGE_MPI
      : exchange_ == "nccl" ? AFP_EXCHANGE_NCCL
      : exchange_ == "host" ? AFP_EXCHANGE_HOST
      : AFP_EXCHANGE_AUTO;
    ctl.timing = timing_;
    // the order of the global sums: OpenFOAM's (sequential) on the CPU, the
    // device tree on the GPU unless asked otherwise (see afp.h)
    const bool treeSums =
        reduction_ == "tree" || (reduction_ == "auto" && useGpu);
    ctl.reduction = treeSums ? AFP_REDUCE_TREE : AFP_REDUCE_SEQUENTIAL;

    const word pName(cheb ? "Chebyshev" : "diagonal");
    solverPerformance solverPerf
    (
        pName + typeName + (useGpu ? "_gpu" : "_cpu"),
        fieldName_
    );

    afp_result res;
    int rc = 0;
    if (useGpu)
    {
        if (!gpuState) gpuState = afp_gpu_create();
        rc = afp_gpu_solve
        (
            gpuState, &sys, &ctl, fieldName_.c_str(), psi.data(), source.cdata(), &res
        );
    }
    else
    {
        scalarField wA(nCells), pA(nCells), rA(nCells);
        scalarField t0(cheb ? nCells : 0), t1(cheb ? nCells : 0);
        hookCtx h;
        h.matrix = &matrix_;
        h.bouCoeffs = &interfaceBouCoeffs_;
        h.interfaces = &interfaces_;
        h.f[AFP_SLOT_PSI] = &psi;
        h.f[AFP_SLOT_WA] = &wA;
        h.f[AFP_SLOT_PA] = &pA;
        h.f[AFP_SLOT_RA] = &rA;
        h.f[AFP_SLOT_T0] = &t0;
        h.f[AFP_SLOT_T1] = &t1;
        h.f[AFP_SLOT_T2] = &t1;
        h.cmpt = cmpt;
        h.comm = comm;
        double* v[AFP_NSLOTS];
        for (int s = 0; s < AFP_NSLOTS; ++s) v[s] = h.f[s]->data();
        afp_cpu_hooks hooks;
        hooks.ctx = &h;
        hooks.iface_init = &adiflowPCG::ifaceInit;
        hooks.iface_update = &adiflowPCG::ifaceUpdate;
        hooks.allsum = &adiflowPCG::allSum;
        rc = afp_cpu_solve(&sys, &ctl, &hooks, v, source.cdata(), &res);
        if (rc == 0)
        {
            matrix().setResidualField(rA, fieldName_, false);
        }
    }
    if (rc != 0)
    {
        FatalErrorInFunction
            << "adiflowPCG (" << (useGpu ? "gpu" : "cpu") << " path, field "
            << fieldName_ << ", rank " << sys.rank << "): " << afp_error()
            << exit(FatalError);
    }

    if (useGpu && !reportedGpu)
    {
        Info<< "adiflowPCG: gpu path, device " << res.device << " on rank "
            << sys.rank << ", exchange '" << res.exchange << "', reduction "
            << (treeSums ? "tree" : "sequential") << endl;
        reportedGpu = true;
    }

    solverPerf.initialResidual() = res.initial;
    solverPerf.finalResidual() = res.final;
    solverPerf.nIterations() = res.iterations;
    if (res.singular) solverPerf.checkSingularity(0);
    solverPerf.checkConvergence(tolerance_, relTol_);

    if (timing_)
    {
        Info<< "adiflowPCG timing: field " << fieldName_
            << " backend " << (useGpu ? "gpu" : "cpu")
            << " preconditioner " << pName
            << " ranks " << sys.nranks
            << " cells " << returnReduce(nCells, sumOp<label>(), Pstream::msgType(), comm)
            << " iterations " << res.iterations
            << " solve_s " << res.t_solve
            << " iter_s " << res.t_iter
            << " reduction " << (treeSums ? "tree" : "sequential");
        if (useGpu)
        {
            Info<< " model_GBs " << (res.t_iter > 0 ? res.bytes_iter/res.t_iter/1e9 : 0)
                << " copy_GBs " << res.copy_gbs
                << " exchange '" << res.exchange << "'"
                << " structure_upload " << res.uploaded_structure;
        }
        Info<< endl;
    }
    return solverPerf;
}
