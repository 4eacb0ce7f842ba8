/*---------------------------------------------------------------------------*\
  adiflowTimed.C - a benchmark aid: an lduMatrix::solver that builds the
  OpenFOAM solver named by 'innerSolver' (PCG, GAMG, ...) from the same
  controls and prints the wall time of each solve:
      p { solver adiflowTimed; innerSolver GAMG; smoother GaussSeidel; ... }
  prints  "adiflowTimed: field p solver GAMG ranks N cells M iterations I solve_s T"
  (the timed span includes the inner solver's construction, as in fvMatrix::solve).
\*---------------------------------------------------------------------------*/

#include "lduMatrix.H"
#include "addToRunTimeSelectionTable.H"
#include "PstreamReduceOps.H"
#include "afp.h"

namespace Foam
{

class adiflowTimed
:
    public lduMatrix::solver
{
    word inner_;

public:

    TypeName("adiflowTimed");

    adiflowTimed
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
            fieldName, matrix, interfaceBouCoeffs, interfaceIntCoeffs,
            interfaces, solverControls
        ),
        inner_(controlDict_.get<word>("innerSolver"))
    {
        if (inner_ == typeName)
        {
            FatalIOErrorInFunction(controlDict_)
                << "adiflowTimed: innerSolver cannot be adiflowTimed"
                << exit(FatalIOError);
        }
    }

    virtual solverPerformance solve
    (
        scalarField& psi,
        const scalarField& source,
        const direction cmpt = 0
    ) const
    {
        dictionary d(controlDict_);
        d.set("solver", inner_);
        d.remove("innerSolver");
        const label comm = matrix_.mesh().comm();
        const double t0 = afp_wtime();
        solverPerformance perf = lduMatrix::solver::New
        (
            fieldName_, matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
            interfaces_, d
        )->solve(psi, source, cmpt);
        double t = afp_wtime() - t0;
        reduce(t, maxOp<scalar>(), Pstream::msgType(), comm);
        Info<< "adiflowTimed: field " << fieldName_ << " solver " << inner_
            << " ranks " << (Pstream::parRun() ? Pstream::nProcs(comm) : 1)
            << " cells "
            << returnReduce(psi.size(), sumOp<label>(), Pstream::msgType(), comm)
            << " iterations " << perf.nIterations()
            << " solve_s " << t
            << " iter_s " << (perf.nIterations() > 0 ? t/perf.nIterations() : 0)
            << endl;
        return perf;
    }
};

defineTypeNameAndDebug(adiflowTimed, 0);
lduMatrix::solver::addsymMatrixConstructorToTable<adiflowTimed>
    addadiflowTimedSymMatrixConstructorToTable_;

} // End namespace Foam
