/* afp.h - the C interface between the OpenFOAM plugin class (adiflowPCG.C,
 * C++) and the solver cores: the CPU path (afp_cpu.c, C11) and the GPU path
 * (afp_gpu_*.cu, CUDA C; afp_gpu_stub.c when built without nvcc).
 *
 * The matrix arrives in OpenFOAM's LDU form: diagonal, upper (and lower)
 * coefficients per internal face, the face's owner (lower address, the lower
 * cell index) and neighbour (upper address); coupled interfaces (processor
 * boundaries) carry, per interface face, the local cell (faceCells) and the
 * boundary coefficient: the row of that cell gets  -coeff * x_remote.
 *
 * Both paths run OpenFOAM's PCG algorithm (PCG.C of v1912) with its
 * convergence test and residual normalisation (lduMatrix::solver::normFactor),
 * so that with the diagonal preconditioner the iteration counts agree with
 * OpenFOAM's PCG + DIAGONAL. Errors are returned (non-zero) with a message
 * "file:line: ..." in afp_error(); the plugin turns it into a FatalError. */
#ifndef AFP_H
#define AFP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { AFP_PRECOND_DIAGONAL = 0, AFP_PRECOND_CHEBYSHEV = 1 };
enum { AFP_EXCHANGE_AUTO = 0, AFP_EXCHANGE_MPI = 1, AFP_EXCHANGE_NCCL = 2, AFP_EXCHANGE_HOST = 3 };
/* the order of the global sums (dot products, |r|, the normalisation factor):
 *  SEQUENTIAL: OpenFOAM's (each rank left to right, then its reduce, i.e.
 *              MPI_Allreduce per scalar): the residuals equal OpenFOAM's PCG to
 *              the last bit. The CPU path's default; on the GPU one thread
 *              adds (slow: a check, not a production setting).
 *  TREE:       the GPU's fixed tree (AFP_TREE_BLOCK threads per block, grid
 *              stride over min(ceil(n/AFP_TREE_BLOCK), AFP_TREE_MAXBLOCKS)
 *              blocks, then one block over the block sums, then the ranks
 *              added in rank order). The GPU path's default; the CPU path
 *              reproduces it (to check the GPU path bit for bit).
 * The two orders round differently; CG amplifies that over many solves of a
 * near-steady run (the cavity's p from about the 55th solve on), so only the
 * same order gives the same iteration counts in every solve. */
enum { AFP_REDUCE_SEQUENTIAL = 0, AFP_REDUCE_TREE = 1 };
#define AFP_TREE_BLOCK 256
#define AFP_TREE_MAXBLOCKS 1024

/* one coupled interface of the local matrix */
typedef struct afp_iface {
    int nfaces;
    const int *face_cells;     /* local row of each interface face */
    const double *coeffs;      /* interfaceBouCoeffs: row gets -coeffs[f] * x_neighbour[f] */
    int neighbour;             /* neighbour rank (MPI_COMM_WORLD); -1: not a processor interface */
    int tag;                   /* message tag of the pair (processorLduInterface::tag) */
} afp_iface;

/* the local part of the matrix (one MPI rank) */
typedef struct afp_system {
    int n;                     /* cells (rows) */
    int nfaces;                /* internal faces (upper coefficients) */
    const int *lower, *upper;  /* lowerAddr (owner), upperAddr (neighbour), per face */
    const double *diag;        /* n */
    const double *upper_coef;  /* nfaces */
    const double *lower_coef;  /* nfaces; == upper_coef for a symmetric matrix */
    int niface;
    const afp_iface *ifaces;
    int rank, nranks;          /* in MPI_COMM_WORLD (0, 1 when serial) */
} afp_system;

typedef struct afp_controls {
    int max_iter, min_iter;
    double tolerance, rel_tol;
    int precond;               /* AFP_PRECOND_* */
    int cheb_degree;           /* Chebyshev polynomial degree (>= 1) */
    double cheb_ratio;         /* eigenvalue interval [lmax/ratio, lmax] */
    int exchange;              /* AFP_EXCHANGE_* (GPU path, several ranks) */
    int timing;                /* 1: measure per-phase times (GPU: events) */
    int reduction;             /* AFP_REDUCE_* */
} afp_controls;

typedef struct afp_result {
    int iterations;
    double initial, final;     /* normalised residuals (OpenFOAM's definition) */
    int singular;              /* the |wApA|/normFactor < VSMALL break was taken */
    double t_solve;            /* seconds, the whole solve (upload included) */
    double t_iter;             /* seconds per iteration (GPU path: iterations only) */
    double bytes_iter;         /* modelled device bytes moved per iteration */
    double copy_gbs;           /* device copy bandwidth measured in this process, GB/s (GPU path) */
    int uploaded_structure;    /* 1: the addressing was (re)built on the device in this call */
    const char *exchange;      /* "none", "cuda-aware MPI", "NCCL", "host staging" */
    int device;                /* CUDA device used (GPU path) */
} afp_result;

/* ---- CPU path (afp_cpu.c) ---------------------------------------------
 * The vectors are owned by the caller (OpenFOAM scalarFields); the core refers
 * to them by slot, so that the coupled-interface hooks can hand OpenFOAM its
 * own fields: slot 0 psi, 1 wA, 2 pA, 3 rA, 4..6 preconditioner work. */
enum { AFP_SLOT_PSI = 0, AFP_SLOT_WA, AFP_SLOT_PA, AFP_SLOT_RA, AFP_SLOT_T0, AFP_SLOT_T1, AFP_SLOT_T2, AFP_NSLOTS };

typedef struct afp_cpu_hooks {
    void *ctx;
    /* OpenFOAM's initMatrixInterfaces / updateMatrixInterfaces for y = A x */
    void (*iface_init)(void *ctx, int xslot, int yslot);
    void (*iface_update)(void *ctx, int xslot, int yslot);
    /* in-place global sums of v[0..n-1] over the ranks */
    void (*allsum)(void *ctx, double *v, int n);
} afp_cpu_hooks;

int afp_cpu_solve(const afp_system *sys, const afp_controls *ctl, const afp_cpu_hooks *hooks,
                  double *const vec[AFP_NSLOTS], const double *source, afp_result *res);

/* the local LDU product y = D x + L x + U x (OpenFOAM's Amul, no interfaces) */
void afp_ldu_amul(const afp_system *sys, const double *x, double *y);

/* ---- GPU path (afp_gpu_*.cu, or afp_gpu_stub.c) ------------------------ */
int afp_gpu_built(void);                         /* 1 when compiled with CUDA */
/* number of usable CUDA devices (0: none; the reason in afp_error()) */
int afp_gpu_count(void);
/* The GPU path's state: the device, its streams and scratch, the MPI
 * communicator, the interface exchange in use, and the device matrices kept
 * between solves (one per field). The plugin creates one and passes it to
 * every solve; nothing touches a device or MPI before the first solve.
 * NULL when out of host memory (afp_gpu_solve then says so). */
typedef struct afp_gpu afp_gpu;
afp_gpu *afp_gpu_create(void);
/* frees the device matrices, streams and scratch, and the communicator
 * while MPI is still running; NULL is allowed */
void afp_gpu_destroy(afp_gpu *g);
int afp_gpu_solve(afp_gpu *g, const afp_system *sys, const afp_controls *ctl, const char *field,
                  double *psi, const double *source, afp_result *res);

/* ---- shared ------------------------------------------------------------ */
const char *afp_error(void);                     /* message of the last failure */
int afp_set_error(const char *file, int line, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#define AFP_FAIL(...) afp_set_error(__FILE__, __LINE__, __VA_ARGS__)
double afp_wtime(void);
/* FNV-1a over bytes, continued from h (start with AFP_HASH0) */
#define AFP_HASH0 1469598103934665603ULL
uint64_t afp_hash(uint64_t h, const void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
