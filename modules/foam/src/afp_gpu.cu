/* afp_gpu.cu - the GPU path of adiflowPCG (CUDA C; no C++ beyond what CUB's
 * sort needs). One GPU per MPI rank, chosen by the node-local rank.
 *
 *  - The matrix stays on the device between calls, per field: when the LDU
 *    addressing (and the interfaces' cells and neighbours) hash to the same
 *    key as last time, only the values (diagonal, face and interface
 *    coefficients) are uploaded and converted.
 *  - LDU -> CSR on the device: every face gives two entries (row u[f]: the
 *    lower coefficient at column l[f]; row l[f]: the upper coefficient at
 *    column u[f]); a stable radix sort by row keeps the face order within a
 *    row, which is the order in which OpenFOAM's Amul adds them, so the local
 *    product equals OpenFOAM's to the last bit (no FMA contraction here).
 *  - Processor interfaces: the interface cells' values are packed on the
 *    device and exchanged device to device by CUDA-aware MPI when the MPI
 *    library says so at run time (MPIX_Query_cuda_support), else by NCCL
 *    (opened at run time), else through host buffers; the received values are
 *    applied row by row in OpenFOAM's (interface, face) order.
 *  - Global sums (reduction TREE, the default): each rank sums on the device
 *    in a fixed tree (the grid depends on the size only), the ranks' partial
 *    sums are gathered (MPI_Allgather) and added in rank order: the same on
 *    every rank, and the same from run to run; the CPU path reproduces this
 *    order bit for bit. Reduction SEQUENTIAL adds in OpenFOAM's order (one
 *    thread per rank, then MPI_Allreduce per scalar as OpenFOAM's reduce):
 *    OpenFOAM's PCG to the last bit, for checks on small cases.
 *  - The PCG loop is OpenFOAM's (see afp_cpu.c) with fused kernels: the
 *    solution/residual update also forms |r| and, with the diagonal
 *    preconditioner, w = r/D and w.r for the next iteration (2 global sums
 *    per iteration instead of 3).
 * Every CUDA, MPI and NCCL call is checked; a failure returns -1 with
 * "afp_gpu.cu:LINE: ..." in afp_error(). */
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <mpi.h>
#include <dlfcn.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afp.h"

#define VSMALL 1.0e-300
#define SMALL_ 1.0e-20
#define GREAT_ 1.0e20
#define BLOCK AFP_TREE_BLOCK          /* the tree of reduction TREE (afp.h) */
#define MAXBLOCKS AFP_TREE_MAXBLOCKS
#define NRED 4

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    if (e_ == cudaErrorMemoryAllocation) return AFP_FAIL("out of device memory in %s (%s)", #call, cudaGetErrorString(e_)); \
    return AFP_FAIL("CUDA error in %s: %s", #call, cudaGetErrorString(e_)); } } while (0)
#define MK(call) do { int e_ = (call); if (e_ != MPI_SUCCESS) { char s_[MPI_MAX_ERROR_STRING]; int l_ = 0; \
    MPI_Error_string(e_, s_, &l_); return AFP_FAIL("MPI error in %s: %s", #call, s_); } } while (0)
#define TRY(call) do { if ((call) != 0) return -1; } while (0)

/* ---- NCCL, opened at run time (a machine without it still loads the plugin) */
typedef struct { char internal[128]; } nccl_id_t;
typedef void *nccl_comm_t;
typedef int (*nccl_getid_fn)(nccl_id_t *);
typedef int (*nccl_init_fn)(nccl_comm_t *, int, nccl_id_t, int);
typedef int (*nccl_sendrecv_fn)(const void *, size_t, int, int, nccl_comm_t, cudaStream_t);
typedef int (*nccl_recv_fn)(void *, size_t, int, int, nccl_comm_t, cudaStream_t);
typedef int (*nccl_group_fn)(void);
typedef const char *(*nccl_errstr_fn)(int);
#define NCCL_DOUBLE 8
static struct {
    void *lib;
    nccl_getid_fn get_id; nccl_init_fn init; nccl_sendrecv_fn send; nccl_recv_fn recv;
    nccl_group_fn gstart, gend; nccl_errstr_fn err;
    nccl_comm_t comm;
} nccl;
/* OpenFOAM traps floating-point exceptions (FOAM_SIGFPE: division by zero,
 * invalid, overflow raise SIGFPE); NCCL's host code does not expect that (its
 * topology search in ncclCommInitRank divides by zero: SIGFPE on 2 H200s).
 * Every NCCL call runs with the traps held off (feholdexcept) and OpenFOAM's
 * environment put back afterwards; the threads NCCL starts inside a call
 * inherit the non-trapping environment. */
#define NK(call) do { fenv_t fe_; feholdexcept(&fe_); int e_ = (call); fesetenv(&fe_); \
    if (e_ != 0) return AFP_FAIL("NCCL error in %s: %s", #call, nccl.err ? nccl.err(e_) : "?"); } while (0)

static int nccl_open(char *why, size_t nwhy)
{
    if (nccl.lib) return 0;
    fenv_t fe;
    feholdexcept(&fe);   /* its static constructors too (see NK) */
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (!h) h = dlopen("libnccl.so", RTLD_NOW | RTLD_GLOBAL);
    fesetenv(&fe);
    if (!h) { snprintf(why, nwhy, "libnccl.so.2 not found (%s)", dlerror()); return -1; }
    nccl.get_id = (nccl_getid_fn)dlsym(h, "ncclGetUniqueId");
    nccl.init = (nccl_init_fn)dlsym(h, "ncclCommInitRank");
    nccl.send = (nccl_sendrecv_fn)dlsym(h, "ncclSend");
    nccl.recv = (nccl_recv_fn)dlsym(h, "ncclRecv");
    nccl.gstart = (nccl_group_fn)dlsym(h, "ncclGroupStart");
    nccl.gend = (nccl_group_fn)dlsym(h, "ncclGroupEnd");
    nccl.err = (nccl_errstr_fn)dlsym(h, "ncclGetErrorString");
    if (!nccl.get_id || !nccl.init || !nccl.send || !nccl.recv || !nccl.gstart || !nccl.gend) {
        snprintf(why, nwhy, "libnccl.so.2 lacks ncclSend/ncclRecv (NCCL < 2.7)");
        dlclose(h); return -1;
    }
    nccl.lib = h;
    return 0;
}

/* ---- process-wide state --------------------------------------------------- */
static int g_ready;            /* device chosen */
static int g_device = -1;
static int g_mpi;              /* MPI initialised: ranks > 1 possible */
static MPI_Comm g_comm = MPI_COMM_NULL;   /* a duplicate of MPI_COMM_WORLD: our messages only */
static int g_rank, g_nranks = 1;
static cudaStream_t g_s, g_sc; /* compute stream, communication stream */
static double *g_part;         /* block partial sums, NRED x MAXBLOCKS */
static double *g_red_d, *g_red_h;  /* final local sums (device, pinned host) */
static double g_copy_gbs;      /* measured copy bandwidth */
static int g_exchange_kind = -1;   /* AFP_EXCHANGE_* actually in use */
static int g_cuda_aware = -1;
static int g_node_ranks = 1, g_ndev = 0;   /* ranks on this node, its devices: NCCL needs one GPU per rank */
static int g_seq;              /* this solve: reduction SEQUENTIAL */

typedef struct gmat {
    char field[64];
    uint64_t key;
    int n, nfaces, nnz, sym;
    size_t bytes;
    int *rowptr, *col, *src;           /* CSR; src: entry e = 2f (lower coef of f) or 2f+1 (upper) */
    double *val, *diag, *rD, *sumA, *up, *lo;
    /* interfaces */
    int niface, nif;                   /* interfaces, packed interface faces */
    int *h_nb, *h_tag, *h_off, *h_cnt; /* per interface: neighbour, tag, offset, faces */
    int *ifc;                          /* packed: cell of each interface face (device) */
    int nirow, *irows, *iptr, *islot;  /* rows with interface faces, their entries: slot in recv */
    int *h_perm;                       /* host: packed face of each (row-grouped) entry */
    double *icoef, *h_icoef;           /* row-grouped interface coefficients */
    double *sendb, *recvb, *h_send, *h_recv;
    /* vectors */
    double *psi, *b, *wA, *pA, *rA, *t0, *t1;
    double lmax;
    double bytes_acc;                  /* modelled bytes of the kernels launched since the last reset */
} gmat;

#define MAXMAT 8
static gmat g_mats[MAXMAT];

/* ---- kernels --------------------------------------------------------------- */
static int nblocks(int n) { int b = (n + BLOCK - 1) / BLOCK; return b < 1 ? 1 : (b > MAXBLOCKS ? MAXBLOCKS : b); }

/* fixed-shape block sum of NR values per thread; partials[r*MAXBLOCKS + block] */
template <int NR>
__device__ void block_sums(double (&v)[NR], double *partials)
{
    __shared__ double sh[NR][BLOCK];
    for (int r = 0; r < NR; r++) sh[r][threadIdx.x] = v[r];
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            for (int r = 0; r < NR; r++) sh[r][threadIdx.x] += sh[r][threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        for (int r = 0; r < NR; r++) partials[r * MAXBLOCKS + blockIdx.x] = sh[r][0];
}

/* sums the first nb partials of each of nr rows, in a fixed order */
__global__ void k_final(const double *partials, int nb, int nr, double *out)
{
    __shared__ double sh[BLOCK];
    for (int r = 0; r < nr; r++) {
        double a = 0.0;
        for (int i = threadIdx.x; i < nb; i += BLOCK) a += partials[r * MAXBLOCKS + i];
        sh[threadIdx.x] = a;
        __syncthreads();
        for (int s = BLOCK / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
            __syncthreads();
        }
        if (threadIdx.x == 0) out[r] = sh[0];
        __syncthreads();
    }
}

__global__ void k_count(int nf, const int *l, const int *u, int *cnt)
{
    for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < nf; f += gridDim.x * blockDim.x) {
        atomicAdd(&cnt[u[f]], 1);
        atomicAdd(&cnt[l[f]], 1);
    }
}
__global__ void k_keys(int nf, const int *l, const int *u, int *key, int *ent)
{
    for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < nf; f += gridDim.x * blockDim.x) {
        key[2 * f] = u[f];     ent[2 * f] = 2 * f;          /* row u[f]: lower coef, column l[f] */
        key[2 * f + 1] = l[f]; ent[2 * f + 1] = 2 * f + 1;  /* row l[f]: upper coef, column u[f] */
    }
}
__global__ void k_cols(int nnz, const int *ent, const int *l, const int *u, int *col)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) {
        int e = ent[k], f = e >> 1;
        col[k] = (e & 1) ? u[f] : l[f];
    }
}
/* values of this call: CSR values from the face coefficients; row sums (lduMatrix::sumA); 1/D */
__global__ void k_values(int n, const int *rowptr, const int *src, const double *lo, const double *up,
                         const double *diag, double *val, double *sumA, double *rD)
{
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        double s = diag[r];
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++) {
            int e = src[k];
            double v = (e & 1) ? up[e >> 1] : lo[e >> 1];
            val[k] = v;
            s += v;
        }
        sumA[r] = s;
        rD[r] = 1.0 / diag[r];
    }
}
__global__ void k_iface_sumA(int nirow, const int *irows, const int *iptr, const double *icoef, double *sumA)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < nirow; j += gridDim.x * blockDim.x) {
        double s = sumA[irows[j]];
        for (int k = iptr[j]; k < iptr[j + 1]; k++) s -= icoef[k];
        sumA[irows[j]] = s;
    }
}
/* Gershgorin bound of D^-1 A: max over rows of 1 + sum|a_ij| / |a_ii| (interfaces added later) */
__global__ void k_gersh(int n, const int *rowptr, const double *val, const double *diag, double *g)
{
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++) s += fabs(val[k]);
        g[r] = s;
    }
}
__global__ void k_gersh_iface(int nirow, const int *irows, const int *iptr, const double *icoef, double *g)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < nirow; j += gridDim.x * blockDim.x) {
        double s = g[irows[j]];
        for (int k = iptr[j]; k < iptr[j + 1]; k++) s += fabs(icoef[k]);
        g[irows[j]] = s;
    }
}
__global__ void k_gersh_max(int n, const double *g, const double *diag, double *partials)
{
    double m = 0.0;
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        double v = 1.0 + g[r] / fabs(diag[r]);
        m = v > m ? v : m;
    }
    __shared__ double sh[BLOCK];
    sh[threadIdx.x] = m;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && sh[threadIdx.x + s] > sh[threadIdx.x]) sh[threadIdx.x] = sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = sh[0];
}
__global__ void k_max_final(const double *partials, int nb, double *out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        double m = 0.0;
        for (int i = 0; i < nb; i++) m = partials[i] > m ? partials[i] : m;
        out[0] = m;
    }
}

/* y = D x + (L + U) x, in OpenFOAM's order; optionally the dot y.x (no interfaces) */
template <bool DOT>
__global__ void k_spmv(int n, const int *__restrict__ rowptr, const int *__restrict__ col, const double *__restrict__ val,
                       const double *__restrict__ diag, const double *__restrict__ x, double *__restrict__ y, double *partials)
{
    double v[1] = { 0.0 };
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        double xr = x[r];
        double s = diag[r] * xr;
        const int k1 = rowptr[r + 1];
        for (int k = rowptr[r]; k < k1; k++) s += val[k] * x[col[k]];
        y[r] = s;
        if (DOT) v[0] += s * xr;
    }
    if (DOT) block_sums<1>(v, partials);
}
__global__ void k_gather(int m, const int *ifc, const double *x, double *sendb)
{
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < m; t += gridDim.x * blockDim.x) sendb[t] = x[ifc[t]];
}
/* y[row] -= coef * x_neighbour, per row in (interface, face) order */
__global__ void k_iface(int nirow, const int *irows, const int *iptr, const int *islot, const double *icoef,
                        const double *recvb, double *y)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < nirow; j += gridDim.x * blockDim.x) {
        const int r = irows[j];
        double s = y[r];
        for (int k = iptr[j]; k < iptr[j + 1]; k++) s -= icoef[k] * recvb[islot[k]];
        y[r] = s;
    }
}
template <int NR>
__global__ void k_dot(int n, const double *a, const double *b, double *partials)
{
    double v[1] = { 0.0 };
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v[0] += a[i] * b[i];
    block_sums<1>(v, partials);
}
__global__ void k_sum(int n, const double *a, double *partials)
{
    double v[1] = { 0.0 };
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v[0] += a[i];
    block_sums<1>(v, partials);
}
/* rA = b - wA; normFactor terms with tmp = sumA*avg; |rA| */
__global__ void k_init(int n, const double *b, const double *wA, const double *sumA, double avg, double *rA, double *partials)
{
    double v[2] = { 0.0, 0.0 };
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double r = b[i] - wA[i];
        rA[i] = r;
        double t = sumA[i] * avg;
        v[0] += fabs(wA[i] - t) + fabs(b[i] - t);
        v[1] += fabs(r);
    }
    block_sums<2>(v, partials);
}
/* w = rD r; w.r */
__global__ void k_precond_diag(int n, const double *rD, const double *r, double *w, double *partials)
{
    double v[1] = { 0.0 };
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double x = rD[i] * r[i];
        w[i] = x;
        v[0] += x * r[i];
    }
    block_sums<1>(v, partials);
}
__global__ void k_pcopy(int n, const double *w, double *p)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = w[i];
}
__global__ void k_pupdate(int n, const double *w, double beta, double *p)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = w[i] + beta * p[i];
}
/* psi += alpha p; r -= alpha w; |r|; with DIAG also w = rD r and w.r for the next iteration */
template <bool DIAG>
__global__ void k_update(int n, double alpha, const double *__restrict__ p, double *__restrict__ w, double *__restrict__ psi,
                         double *__restrict__ r, const double *__restrict__ rD, double *partials)
{
    double v[2] = { 0.0, 0.0 };
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        psi[i] += alpha * p[i];
        double ri = r[i] - alpha * w[i];
        r[i] = ri;
        v[0] += fabs(ri);
        if (DIAG) { double x = rD[i] * ri; w[i] = x; v[1] += x * ri; }
    }
    block_sums<2>(v, partials);
}
/* Chebyshev: d = rD r / theta; w = d */
__global__ void k_cheb0(int n, const double *rD, const double *r, double theta, double *d, double *w)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double x = rD[i] * r[i] / theta;
        d[i] = x; w[i] = x;
    }
}
/* d = a d + b rD (r - Az); w += d */
__global__ void k_cheb1(int n, double a, double b, const double *rD, const double *r, const double *az, double *d, double *w)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double x = a * d[i] + b * (rD[i] * (r[i] - az[i]));
        d[i] = x; w[i] += x;
    }
}
__global__ void k_copy(size_t n, const double *a, double *b)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}
/* reduction SEQUENTIAL: the terms of OpenFOAM's sums, added left to right as
 * its sum()/sumProd()/sumMag() do (one block: the threads form a tile of
 * terms, thread 0 adds them in order). out[0] (and out[1] for the 2-sum modes):
 *  SEQ_SUM  sum a             SEQ_DOT  sum a*b
 *  SEQ_INIT normFactor terms |a - c avg| + |b - c avg| (a = A psi, b = source,
 *           c = sumA) and |b - a| (= |rA|)
 *  SEQ_MAG  sum |a|           SEQ_MAGDOT  sum |a| and sum b*a (a = r, b = w) */
enum { SEQ_SUM, SEQ_DOT, SEQ_INIT, SEQ_MAG, SEQ_MAGDOT };
template <int MODE>
__global__ void k_seq(int n, const double *a, const double *b, const double *c, double avg, double *out)
{
    __shared__ double t0[BLOCK], t1[BLOCK];
    const bool two = MODE == SEQ_INIT || MODE == SEQ_MAGDOT;
    double s0 = 0.0, s1 = 0.0;
    for (int base = 0; base < n; base += BLOCK) {
        const int i = base + threadIdx.x;
        if (i < n) {
            if (MODE == SEQ_SUM) t0[threadIdx.x] = a[i];
            if (MODE == SEQ_DOT) t0[threadIdx.x] = a[i] * b[i];
            if (MODE == SEQ_INIT) {
                const double t = c[i] * avg;
                t0[threadIdx.x] = fabs(a[i] - t) + fabs(b[i] - t);
                t1[threadIdx.x] = fabs(b[i] - a[i]);
            }
            if (MODE == SEQ_MAG || MODE == SEQ_MAGDOT) t0[threadIdx.x] = fabs(a[i]);
            if (MODE == SEQ_MAGDOT) t1[threadIdx.x] = b[i] * a[i];
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            const int m = n - base < BLOCK ? n - base : BLOCK;
            for (int j = 0; j < m; j++) {
                s0 += t0[j];
                if (two) s1 += t1[j];
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) { out[0] = s0; if (two) out[1] = s1; }
}

/* ---- set-up -------------------------------------------------------------- */
int afp_gpu_built(void) { return 1; }

int afp_gpu_count(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) { AFP_FAIL("no CUDA device: cudaGetDeviceCount says %s", cudaGetErrorString(e)); return 0; }
    if (n == 0) AFP_FAIL("no CUDA device (cudaGetDeviceCount = 0)");
    return n;
}

static int gpu_init(void)
{
    if (g_ready) return 0;
    int flag = 0;
    MK(MPI_Initialized(&flag));
    int fin = 0;
    if (flag) MK(MPI_Finalized(&fin));
    g_mpi = flag && !fin;
    int local = 0;
    if (g_mpi) {
        MK(MPI_Comm_dup(MPI_COMM_WORLD, &g_comm));
        MK(MPI_Comm_set_errhandler(g_comm, MPI_ERRORS_RETURN));
        MK(MPI_Comm_rank(g_comm, &g_rank));
        MK(MPI_Comm_size(g_comm, &g_nranks));
        MPI_Comm node;
        MK(MPI_Comm_split_type(g_comm, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node));
        MK(MPI_Comm_rank(node, &local));
        MK(MPI_Comm_size(node, &g_node_ranks));
        MK(MPI_Comm_free(&node));
    }
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0)
        return AFP_FAIL("no CUDA device on rank %d (%s)", g_rank, e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    g_ndev = ndev;
    g_device = local % ndev;
    CK(cudaSetDevice(g_device));
    CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&g_sc, cudaStreamNonBlocking));
    CK(cudaMalloc(&g_part, sizeof(double) * NRED * MAXBLOCKS));
    CK(cudaMalloc(&g_red_d, sizeof(double) * NRED));
    CK(cudaMallocHost(&g_red_h, sizeof(double) * NRED));
    g_ready = 1;
    return 0;
}

/* which exchange: CUDA-aware MPI (asked of the library at run time), NCCL, host staging */
static int pick_exchange(int want)
{
    if (g_exchange_kind >= 0) return 0;
    if (g_cuda_aware < 0) {
        typedef int (*q_fn)(void);
        q_fn q = (q_fn)dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support");
        g_cuda_aware = q ? q() : 0;
    }
    char why[256] = "";
    if (want == AFP_EXCHANGE_MPI && !g_cuda_aware)
        return AFP_FAIL("exchange mpi requested, but the MPI library is not CUDA-aware (MPIX_Query_cuda_support %s)",
                        dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support") ? "returned 0" : "is missing");
    int kind = AFP_EXCHANGE_HOST;
    if (want == AFP_EXCHANGE_MPI || (want == AFP_EXCHANGE_AUTO && g_cuda_aware)) kind = AFP_EXCHANGE_MPI;
    else if (want == AFP_EXCHANGE_NCCL || want == AFP_EXCHANGE_AUTO) {
        if (g_node_ranks > g_ndev) snprintf(why, sizeof why, "%d ranks share %d GPUs on this node (NCCL needs one GPU per rank)", g_node_ranks, g_ndev);
        else if (nccl_open(why, sizeof why) == 0) kind = AFP_EXCHANGE_NCCL;
        else if (want == AFP_EXCHANGE_NCCL) return AFP_FAIL("exchange nccl requested, but %s", why);
    }
    /* every rank must agree: take the weakest choice of all (host < nccl < mpi) */
    int rankv = kind == AFP_EXCHANGE_MPI ? 2 : kind == AFP_EXCHANGE_NCCL ? 1 : 0, minv = rankv;
    MK(MPI_Allreduce(&rankv, &minv, 1, MPI_INT, MPI_MIN, g_comm));
    if (minv != rankv && want != AFP_EXCHANGE_AUTO)
        return AFP_FAIL("exchange %s is not available on every rank", want == AFP_EXCHANGE_MPI ? "mpi" : "nccl");
    kind = minv == 2 ? AFP_EXCHANGE_MPI : minv == 1 ? AFP_EXCHANGE_NCCL : AFP_EXCHANGE_HOST;
    if (kind == AFP_EXCHANGE_NCCL) {
        nccl_id_t id;
        if (g_rank == 0) NK(nccl.get_id(&id));
        MK(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, g_comm));
        NK(nccl.init(&nccl.comm, g_nranks, id, g_rank));
    }
    g_exchange_kind = kind;
    return 0;
}

static const char *exchange_name(void)
{
    switch (g_exchange_kind) {
    case AFP_EXCHANGE_MPI: return "cuda-aware MPI";
    case AFP_EXCHANGE_NCCL: return "NCCL";
    case AFP_EXCHANGE_HOST: return "host staging";
    default: return "none";
    }
}

static void mat_free(gmat *m)
{
    void *d[] = { m->rowptr, m->col, m->src, m->val, m->diag, m->rD, m->sumA, m->up, m->lo, m->ifc, m->irows, m->iptr,
                  m->islot, m->icoef, m->sendb, m->recvb, m->psi, m->b, m->wA, m->pA, m->rA, m->t0, m->t1 };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) if (d[i]) cudaFree(d[i]);
    if (m->h_send) cudaFreeHost(m->h_send);
    if (m->h_recv) cudaFreeHost(m->h_recv);
    free(m->h_nb); free(m->h_tag); free(m->h_off); free(m->h_cnt); free(m->h_perm); free(m->h_icoef);
    memset(m, 0, sizeof *m);
}

void afp_gpu_release(void)
{
    for (int i = 0; i < MAXMAT; i++) if (g_mats[i].n) mat_free(&g_mats[i]);
}

static uint64_t sys_key(const afp_system *s)
{
    uint64_t h = AFP_HASH0;
    int hdr[4] = { s->n, s->nfaces, s->niface, s->lower_coef == s->upper_coef };
    h = afp_hash(h, hdr, sizeof hdr);
    h = afp_hash(h, s->lower, sizeof(int) * (size_t)s->nfaces);
    h = afp_hash(h, s->upper, sizeof(int) * (size_t)s->nfaces);
    for (int i = 0; i < s->niface; i++) {
        int q[3] = { s->ifaces[i].nfaces, s->ifaces[i].neighbour, s->ifaces[i].tag };
        h = afp_hash(h, q, sizeof q);
        h = afp_hash(h, s->ifaces[i].face_cells, sizeof(int) * (size_t)s->ifaces[i].nfaces);
    }
    return h;
}

#define DMALLOC(p, cnt) CK(cudaMalloc((void **)&(p), sizeof(*(p)) * (size_t)((cnt) > 0 ? (cnt) : 1)))

/* the device copy of the addressing: CSR built on the device, interfaces */
static int mat_build(gmat *m, const afp_system *s, const afp_controls *c, const char *field)
{
    const int n = s->n, nf = s->nfaces, nnz = 2 * nf;
    int nif = 0;
    for (int i = 0; i < s->niface; i++) nif += s->ifaces[i].nfaces;
    const int sym = s->lower_coef == s->upper_coef;
    /* memory check first: a clear message instead of a failed allocation midway */
    size_t need = sizeof(int) * ((size_t)n + 1 + 2 * (size_t)nnz) + sizeof(double) * ((size_t)nnz + 3 * (size_t)n
                  + (sym ? 1 : 2) * (size_t)nf + 7 * (size_t)n) + (sizeof(int) * 3 + sizeof(double) * 3) * (size_t)nif;
    size_t sort_tmp = sizeof(int) * 4 * (size_t)nnz + 64u * 1024 * 1024;
    size_t fr = 0, tot = 0;
    CK(cudaMemGetInfo(&fr, &tot));
    if (need + sort_tmp > fr)
        return AFP_FAIL("out of device memory: the matrix of %s (%d cells, %d faces) needs %.1f MiB on device %d, %.1f MiB free of %.1f MiB",
                        field, n, nf, (double)(need + sort_tmp) / 1048576.0, g_device, (double)fr / 1048576.0, (double)tot / 1048576.0);
    snprintf(m->field, sizeof m->field, "%s", field);
    m->n = n; m->nfaces = nf; m->nnz = nnz; m->sym = sym; m->bytes = need;
    DMALLOC(m->rowptr, n + 1); DMALLOC(m->col, nnz); DMALLOC(m->src, nnz); DMALLOC(m->val, nnz);
    DMALLOC(m->diag, n); DMALLOC(m->rD, n); DMALLOC(m->sumA, n); DMALLOC(m->up, nf);
    if (!sym) DMALLOC(m->lo, nf);
    DMALLOC(m->psi, n); DMALLOC(m->b, n); DMALLOC(m->wA, n); DMALLOC(m->pA, n); DMALLOC(m->rA, n);
    if (c->precond == AFP_PRECOND_CHEBYSHEV) { DMALLOC(m->t0, n); DMALLOC(m->t1, n); }

    /* LDU -> CSR: counts, scan, a stable sort of the 2 nf entries by row */
    int *d_l, *d_u, *keys, *keys2, *ent2, *cnt;
    DMALLOC(d_l, nf); DMALLOC(d_u, nf); DMALLOC(keys, nnz); DMALLOC(keys2, nnz); DMALLOC(ent2, nnz); DMALLOC(cnt, n + 1);
    CK(cudaMemcpyAsync(d_l, s->lower, sizeof(int) * (size_t)nf, cudaMemcpyHostToDevice, g_s));
    CK(cudaMemcpyAsync(d_u, s->upper, sizeof(int) * (size_t)nf, cudaMemcpyHostToDevice, g_s));
    CK(cudaMemsetAsync(cnt, 0, sizeof(int) * (size_t)(n + 1), g_s));
    const int gb = 1024;
    if (nf > 0) {
        k_count<<<gb, BLOCK, 0, g_s>>>(nf, d_l, d_u, cnt);
        k_keys<<<gb, BLOCK, 0, g_s>>>(nf, d_l, d_u, keys, m->col /* entries, temporarily */);
    }
    CK(cudaGetLastError());
    size_t tb1 = 0, tb2 = 0;
    CK(cub::DeviceScan::ExclusiveSum(NULL, tb1, cnt, m->rowptr, n + 1, g_s));
    int bits = 1;
    while ((1LL << bits) < (long long)n + 1 && bits < 31) bits++;
    if (nnz > 0) CK(cub::DeviceRadixSort::SortPairs(NULL, tb2, keys, keys2, m->col, ent2, nnz, 0, bits, g_s));
    void *tmp = NULL;
    size_t tb = tb1 > tb2 ? tb1 : tb2;
    CK(cudaMalloc(&tmp, tb > 0 ? tb : 1));
    CK(cub::DeviceScan::ExclusiveSum(tmp, tb, cnt, m->rowptr, n + 1, g_s));
    if (nnz > 0) {
        tb = tb2 > 0 ? tb2 : 1;
        CK(cub::DeviceRadixSort::SortPairs(tmp, tb, keys, keys2, m->col, ent2, nnz, 0, bits, g_s));
        k_cols<<<gb, BLOCK, 0, g_s>>>(nnz, ent2, d_l, d_u, m->col);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(m->src, ent2, sizeof(int) * (size_t)nnz, cudaMemcpyDeviceToDevice, g_s));
    }
    CK(cudaStreamSynchronize(g_s));
    cudaFree(tmp); cudaFree(d_l); cudaFree(d_u); cudaFree(keys); cudaFree(keys2); cudaFree(ent2); cudaFree(cnt);

    /* interfaces: packed faces (interface order), and per row the entries in (interface, face) order */
    m->niface = s->niface; m->nif = nif;
    int ni = s->niface > 0 ? s->niface : 1;
    m->h_nb = (int *)calloc(ni, sizeof(int)); m->h_tag = (int *)calloc(ni, sizeof(int));
    m->h_off = (int *)calloc(ni, sizeof(int)); m->h_cnt = (int *)calloc(ni, sizeof(int));
    m->h_perm = (int *)calloc(nif > 0 ? nif : 1, sizeof(int));
    m->h_icoef = (double *)calloc(nif > 0 ? nif : 1, sizeof(double));
    if (!m->h_nb || !m->h_tag || !m->h_off || !m->h_cnt || !m->h_perm || !m->h_icoef) return AFP_FAIL("out of host memory");
    if (nif > 0) {
        int *cells = (int *)malloc(sizeof(int) * (size_t)nif);
        int *rowcnt = (int *)calloc((size_t)n + 1, sizeof(int));
        if (!cells || !rowcnt) return AFP_FAIL("out of host memory");
        int t = 0;
        for (int i = 0; i < s->niface; i++) {
            m->h_nb[i] = s->ifaces[i].neighbour; m->h_tag[i] = s->ifaces[i].tag;
            m->h_off[i] = t; m->h_cnt[i] = s->ifaces[i].nfaces;
            for (int f = 0; f < s->ifaces[i].nfaces; f++) { cells[t] = s->ifaces[i].face_cells[f]; rowcnt[cells[t]]++; t++; }
        }
        /* rows in increasing order; within a row, packed order = (interface, face) order */
        int nirow = 0;
        for (int r = 0; r < n; r++) if (rowcnt[r]) nirow++;
        int *irows = (int *)malloc(sizeof(int) * (size_t)(nirow > 0 ? nirow : 1));
        int *iptr = (int *)malloc(sizeof(int) * (size_t)(nirow + 1));
        int *start = (int *)malloc(sizeof(int) * ((size_t)n + 1));
        if (!irows || !iptr || !start) return AFP_FAIL("out of host memory");
        int j = 0, k = 0;
        for (int r = 0; r < n; r++) if (rowcnt[r]) { irows[j] = r; iptr[j] = k; start[r] = k; k += rowcnt[r]; j++; }
        iptr[nirow] = k;
        for (int q = 0; q < nif; q++) { int r = cells[q]; m->h_perm[start[r]++] = q; }
        m->nirow = nirow;
        DMALLOC(m->ifc, nif); DMALLOC(m->irows, nirow); DMALLOC(m->iptr, nirow + 1); DMALLOC(m->islot, nif);
        DMALLOC(m->icoef, nif); DMALLOC(m->sendb, nif); DMALLOC(m->recvb, nif);
        CK(cudaMallocHost((void **)&m->h_send, sizeof(double) * (size_t)nif));
        CK(cudaMallocHost((void **)&m->h_recv, sizeof(double) * (size_t)nif));
        CK(cudaMemcpy(m->ifc, cells, sizeof(int) * (size_t)nif, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(m->irows, irows, sizeof(int) * (size_t)nirow, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(m->iptr, iptr, sizeof(int) * (size_t)(nirow + 1), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(m->islot, m->h_perm, sizeof(int) * (size_t)nif, cudaMemcpyHostToDevice));
        free(cells); free(rowcnt); free(irows); free(iptr); free(start);
    } else {
        for (int i = 0; i < s->niface; i++) { m->h_nb[i] = s->ifaces[i].neighbour; m->h_tag[i] = s->ifaces[i].tag; }
    }
    return 0;
}

/* ---- global sums: device tree per rank, then the ranks in rank order ------- */
static int allsum_host(double *v, int k)
{
    if (!g_mpi || g_nranks == 1) return 0;
    double all[64 * NRED];
    double *buf = all;
    if (g_nranks * k > (int)(sizeof all / sizeof all[0])) {
        buf = (double *)malloc(sizeof(double) * (size_t)(g_nranks * k));
        if (!buf) return AFP_FAIL("out of host memory");
    }
    MK(MPI_Allgather(v, k, MPI_DOUBLE, buf, k, MPI_DOUBLE, g_comm));
    for (int j = 0; j < k; j++) {
        double s = 0.0;
        for (int r = 0; r < g_nranks; r++) s += buf[r * k + j];
        v[j] = s;
    }
    if (buf != all) free(buf);
    return 0;
}
/* reduction SEQUENTIAL across the ranks: OpenFOAM's reduce(scalar, sumOp)
 * is an MPI_Allreduce of one scalar (nProcsSimpleSum 0), one per sum */
static int allreduce_each(double *v, int k)
{
    if (!g_mpi || g_nranks == 1) return 0;
    for (int j = 0; j < k; j++) {
        double x = v[j], y = 0.0;
        MK(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, g_comm));
        v[j] = y;
    }
    return 0;
}
/* the k local sums in g_red_d -> v[0..k-1], summed over the ranks */
static int fetch_sums(int k, double *v)
{
    CK(cudaMemcpyAsync(g_red_h, g_red_d, sizeof(double) * (size_t)k, cudaMemcpyDeviceToHost, g_s));
    CK(cudaStreamSynchronize(g_s));
    for (int j = 0; j < k; j++) v[j] = g_red_h[j];
    return g_seq ? allreduce_each(v, k) : allsum_host(v, k);
}
/* the k block-partial rows now in g_part -> v[0..k-1], summed over the ranks */
static int finish_sums(int nb, int k, double *v)
{
    k_final<<<1, BLOCK, 0, g_s>>>(g_part, nb, k, g_red_d);
    CK(cudaGetLastError());
    return fetch_sums(k, v);
}
/* reduction SEQUENTIAL: the sums of MODE (k_seq) in OpenFOAM's order -> v */
static int seq_sums(int mode, int n, const double *a, const double *b, const double *c, double avg, double *v)
{
    switch (mode) {
    case SEQ_SUM: k_seq<SEQ_SUM><<<1, BLOCK, 0, g_s>>>(n, a, b, c, avg, g_red_d); break;
    case SEQ_DOT: k_seq<SEQ_DOT><<<1, BLOCK, 0, g_s>>>(n, a, b, c, avg, g_red_d); break;
    case SEQ_INIT: k_seq<SEQ_INIT><<<1, BLOCK, 0, g_s>>>(n, a, b, c, avg, g_red_d); break;
    case SEQ_MAG: k_seq<SEQ_MAG><<<1, BLOCK, 0, g_s>>>(n, a, b, c, avg, g_red_d); break;
    default: k_seq<SEQ_MAGDOT><<<1, BLOCK, 0, g_s>>>(n, a, b, c, avg, g_red_d); break;
    }
    CK(cudaGetLastError());
    return fetch_sums(mode == SEQ_INIT || mode == SEQ_MAGDOT ? 2 : 1, v);
}

/* ---- y = A x with the interfaces (x, y device vectors) --------------------- */
static int exchange_start(gmat *m, const double *x, MPI_Request *req)
{
    if (m->nif == 0) return 0;
    k_gather<<<nblocks(m->nif), BLOCK, 0, g_s>>>(m->nif, m->ifc, x, m->sendb);
    CK(cudaGetLastError());
    m->bytes_acc += 20.0 * m->nif;
    if (g_exchange_kind == AFP_EXCHANGE_NCCL) {
        cudaEvent_t ev;
        CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        CK(cudaEventRecord(ev, g_s));
        CK(cudaStreamWaitEvent(g_sc, ev, 0));
        CK(cudaEventDestroy(ev));
        NK(nccl.gstart());
        for (int i = 0; i < m->niface; i++) {
            if (m->h_cnt[i] == 0) continue;
            NK(nccl.send(m->sendb + m->h_off[i], (size_t)m->h_cnt[i], NCCL_DOUBLE, m->h_nb[i], nccl.comm, g_sc));
            NK(nccl.recv(m->recvb + m->h_off[i], (size_t)m->h_cnt[i], NCCL_DOUBLE, m->h_nb[i], nccl.comm, g_sc));
        }
        NK(nccl.gend());
        return 0;
    }
    double *sb = m->sendb, *rb = m->recvb;
    if (g_exchange_kind == AFP_EXCHANGE_HOST) {
        CK(cudaMemcpyAsync(m->h_send, m->sendb, sizeof(double) * (size_t)m->nif, cudaMemcpyDeviceToHost, g_s));
        sb = m->h_send; rb = m->h_recv;
    }
    CK(cudaStreamSynchronize(g_s));
    for (int i = 0; i < m->niface; i++) {
        MK(MPI_Irecv(rb + m->h_off[i], m->h_cnt[i], MPI_DOUBLE, m->h_nb[i], 100 + m->h_tag[i], g_comm, &req[2 * i]));
        MK(MPI_Isend(sb + m->h_off[i], m->h_cnt[i], MPI_DOUBLE, m->h_nb[i], 100 + m->h_tag[i], g_comm, &req[2 * i + 1]));
    }
    return 0;
}
static int exchange_finish(gmat *m, double *y, MPI_Request *req)
{
    if (m->nif == 0) return 0;
    if (g_exchange_kind == AFP_EXCHANGE_NCCL) {
        cudaEvent_t ev;
        CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        CK(cudaEventRecord(ev, g_sc));
        CK(cudaStreamWaitEvent(g_s, ev, 0));
        CK(cudaEventDestroy(ev));
    } else {
        MK(MPI_Waitall(2 * m->niface, req, MPI_STATUSES_IGNORE));
        if (g_exchange_kind == AFP_EXCHANGE_HOST)
            CK(cudaMemcpyAsync(m->recvb, m->h_recv, sizeof(double) * (size_t)m->nif, cudaMemcpyHostToDevice, g_s));
    }
    k_iface<<<nblocks(m->nirow), BLOCK, 0, g_s>>>(m->nirow, m->irows, m->iptr, m->islot, m->icoef, m->recvb, y);
    CK(cudaGetLastError());
    m->bytes_acc += 8.0 * m->nirow * 2 + 24.0 * m->nif;
    return 0;
}
static double spmv_bytes(const gmat *m) { return 4.0 * (m->n + 1) + 12.0 * m->nnz + 24.0 * m->n; }

/* y = A x; with dot != NULL also y.x (summed over the ranks) */
static int amul(gmat *m, const double *x, double *y, double *dot)
{
    MPI_Request stackreq[32], *req = stackreq;
    if (2 * m->niface > 32) {
        req = (MPI_Request *)malloc(sizeof(MPI_Request) * 2 * (size_t)m->niface);
        if (!req) return AFP_FAIL("out of host memory");
    }
    const int nb = nblocks(m->n);
    int rc = exchange_start(m, x, req);
    if (rc == 0) {
        if (dot && m->nif == 0 && !g_seq) k_spmv<true><<<nb, BLOCK, 0, g_s>>>(m->n, m->rowptr, m->col, m->val, m->diag, x, y, g_part);
        else k_spmv<false><<<nb, BLOCK, 0, g_s>>>(m->n, m->rowptr, m->col, m->val, m->diag, x, y, g_part);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) rc = AFP_FAIL("CUDA error in k_spmv launch: %s", cudaGetErrorString(e));
        m->bytes_acc += spmv_bytes(m);
    }
    if (rc == 0) rc = exchange_finish(m, y, req);
    if (req != stackreq) free(req);
    if (rc) return rc;
    if (dot && g_seq) return seq_sums(SEQ_DOT, m->n, y, x, NULL, 0.0, dot);   /* gSumProd(wA, pA) */
    if (dot) {
        if (m->nif > 0) {
            k_dot<1><<<nb, BLOCK, 0, g_s>>>(m->n, y, x, g_part);
            CK(cudaGetLastError());
            m->bytes_acc += 16.0 * m->n;
        }
        TRY(finish_sums(nb, 1, dot));
    }
    return 0;
}

/* ---- values of this call ------------------------------------------------- */
static int upload_values(gmat *m, const afp_system *s, const afp_controls *c, const double *psi, const double *b)
{
    const int n = s->n, nf = s->nfaces;
    CK(cudaMemcpyAsync(m->diag, s->diag, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice, g_s));
    CK(cudaMemcpyAsync(m->up, s->upper_coef, sizeof(double) * (size_t)nf, cudaMemcpyHostToDevice, g_s));
    if (!m->sym) CK(cudaMemcpyAsync(m->lo, s->lower_coef, sizeof(double) * (size_t)nf, cudaMemcpyHostToDevice, g_s));
    CK(cudaMemcpyAsync(m->psi, psi, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice, g_s));
    CK(cudaMemcpyAsync(m->b, b, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice, g_s));
    if (m->nif > 0) {
        /* interface coefficients in the row-grouped order */
        int t = 0;
        double *packed = m->h_send;   /* free until the first exchange */
        for (int i = 0; i < s->niface; i++)
            for (int f = 0; f < s->ifaces[i].nfaces; f++) packed[t++] = s->ifaces[i].coeffs[f];
        for (int k = 0; k < m->nif; k++) m->h_icoef[k] = packed[m->h_perm[k]];
        CK(cudaMemcpyAsync(m->icoef, m->h_icoef, sizeof(double) * (size_t)m->nif, cudaMemcpyHostToDevice, g_s));
    }
    const int nb = nblocks(n);
    k_values<<<nb, BLOCK, 0, g_s>>>(n, m->rowptr, m->src, m->sym ? m->up : m->lo, m->up, m->diag, m->val, m->sumA, m->rD);
    CK(cudaGetLastError());
    if (m->nirow > 0) {
        k_iface_sumA<<<nblocks(m->nirow), BLOCK, 0, g_s>>>(m->nirow, m->irows, m->iptr, m->icoef, m->sumA);
        CK(cudaGetLastError());
    }
    if (c->precond == AFP_PRECOND_CHEBYSHEV) {
        k_gersh<<<nb, BLOCK, 0, g_s>>>(n, m->rowptr, m->val, m->diag, m->t0);
        if (m->nirow > 0) k_gersh_iface<<<nblocks(m->nirow), BLOCK, 0, g_s>>>(m->nirow, m->irows, m->iptr, m->icoef, m->t0);
        k_gersh_max<<<nb, BLOCK, 0, g_s>>>(n, m->t0, m->diag, g_part);
        k_max_final<<<1, 32, 0, g_s>>>(g_part, nb, g_red_d);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(g_red_h, g_red_d, sizeof(double), cudaMemcpyDeviceToHost, g_s));
        CK(cudaStreamSynchronize(g_s));
        double lm = g_red_h[0];
        if (g_mpi && g_nranks > 1) MK(MPI_Allreduce(MPI_IN_PLACE, &lm, 1, MPI_DOUBLE, MPI_MAX, g_comm));
        m->lmax = lm;
    }
    return 0;
}

/* w = M^-1 r and w.r (Chebyshev; the diagonal one is fused elsewhere) */
static int precond_cheb(gmat *m, const afp_controls *c, double *wr)
{
    const int n = m->n, nb = nblocks(n);
    const double lmax = m->lmax, lmin = lmax / c->cheb_ratio;
    const double theta = 0.5 * (lmax + lmin), delta = 0.5 * (lmax - lmin), sigma = theta / delta;
    double rho = 1.0 / sigma;
    k_cheb0<<<nb, BLOCK, 0, g_s>>>(n, m->rD, m->rA, theta, m->t0, m->wA);
    CK(cudaGetLastError());
    m->bytes_acc += 32.0 * n;
    for (int j = 1; j < c->cheb_degree; j++) {
        const double rho1 = 1.0 / (2.0 * sigma - rho);
        TRY(amul(m, m->wA, m->t1, NULL));
        k_cheb1<<<nb, BLOCK, 0, g_s>>>(n, rho1 * rho, 2.0 * rho1 / delta, m->rD, m->rA, m->t1, m->t0, m->wA);
        CK(cudaGetLastError());
        m->bytes_acc += 56.0 * n;
        rho = rho1;
    }
    if (g_seq) return seq_sums(SEQ_DOT, n, m->wA, m->rA, NULL, 0.0, wr);
    k_dot<1><<<nb, BLOCK, 0, g_s>>>(n, m->wA, m->rA, g_part);
    CK(cudaGetLastError());
    m->bytes_acc += 16.0 * n;
    return finish_sums(nb, 1, wr);
}

static int conv(double fin, double init, const afp_controls *c)
{
    return fin < c->tolerance || (c->rel_tol > SMALL_ && fin < c->rel_tol * init);
}

static int measure_copy_bw(void)
{
    if (g_copy_gbs > 0) return 0;
    size_t fr = 0, tot = 0;
    CK(cudaMemGetInfo(&fr, &tot));
    size_t n = (size_t)64 << 20;   /* 2 x 512 MiB, less when memory is short */
    while (n > ((size_t)1 << 20) && 2 * n * sizeof(double) > fr / 4) n >>= 1;
    double *a, *b;
    CK(cudaMalloc(&a, n * sizeof(double)));
    CK(cudaMalloc(&b, n * sizeof(double)));
    CK(cudaMemsetAsync(a, 0, n * sizeof(double), g_s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    float best = 1e30f;
    for (int rep = 0; rep < 6; rep++) {
        CK(cudaEventRecord(e0, g_s));
        k_copy<<<4 * 132 * 4, BLOCK, 0, g_s>>>(n, a, b);
        CK(cudaEventRecord(e1, g_s));
        CK(cudaEventSynchronize(e1));
        float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1));
        if (rep > 0 && ms < best) best = ms;
    }
    g_copy_gbs = 2.0 * n * sizeof(double) / (best * 1e-3) / 1e9;
    cudaEventDestroy(e0); cudaEventDestroy(e1); cudaFree(a); cudaFree(b);
    return 0;
}

/* ---- the solve --------------------------------------------------------------- */
int afp_gpu_solve(const afp_system *s, const afp_controls *c, const char *field,
                  double *psi_h, const double *source, afp_result *res)
{
    const double t0 = afp_wtime();
    TRY(gpu_init());
    if (g_mpi && (s->nranks != g_nranks || s->rank != g_rank))
        return AFP_FAIL("rank %d of %d in OpenFOAM's communicator is rank %d of %d in MPI_COMM_WORLD", s->rank, s->nranks, g_rank, g_nranks);
    for (int i = 0; i < s->niface; i++)
        if (s->ifaces[i].neighbour < 0 || s->ifaces[i].neighbour >= g_nranks)
            return AFP_FAIL("interface %d: neighbour rank %d is not a processor of this run", i, s->ifaces[i].neighbour);
    if (g_mpi && g_nranks > 1) TRY(pick_exchange(c->exchange));
    if (c->timing) TRY(measure_copy_bw());
    g_seq = c->reduction == AFP_REDUCE_SEQUENTIAL;

    /* the device matrix of this field: reuse when the addressing is the same */
    const uint64_t key = sys_key(s);
    gmat *m = NULL;
    for (int i = 0; i < MAXMAT && !m; i++) if (g_mats[i].n && strncmp(g_mats[i].field, field, sizeof g_mats[i].field - 1) == 0) m = &g_mats[i];
    res->uploaded_structure = 0;
    if (m && (m->key != key || (c->precond == AFP_PRECOND_CHEBYSHEV && !m->t0))) mat_free(m);
    if (!m || !m->n) {
        if (!m) for (int i = 0; i < MAXMAT && !m; i++) if (!g_mats[i].n) m = &g_mats[i];
        if (!m) { mat_free(&g_mats[0]); m = &g_mats[0]; }
        int rc = mat_build(m, s, c, field);
        if (rc) { mat_free(m); return rc; }
        m->key = key;
        res->uploaded_structure = 1;
    }
    TRY(upload_values(m, s, c, psi_h, source));

    const int n = m->n, nb = nblocks(n);
    const int diagp = c->precond == AFP_PRECOND_DIAGONAL;
    double v[2];
    /* wA = A psi; rA = b - wA; normFactor; |rA| */
    TRY(amul(m, m->psi, m->wA, NULL));
    if (g_seq) TRY(seq_sums(SEQ_SUM, n, m->psi, NULL, NULL, 0.0, v));
    else {
        k_sum<<<nb, BLOCK, 0, g_s>>>(n, m->psi, g_part);
        CK(cudaGetLastError());
        TRY(finish_sums(nb, 1, v));
    }
    double sn[2] = { v[0], (double)n };
    if (g_mpi && g_nranks > 1) { double nn = (double)n; TRY(allsum_host(&nn, 1)); sn[1] = nn; }
    const double avg = sn[1] > 0 ? sn[0] / sn[1] : 0.0;
    k_init<<<nb, BLOCK, 0, g_s>>>(n, m->b, m->wA, m->sumA, avg, m->rA, g_part);
    CK(cudaGetLastError());
    if (g_seq) TRY(seq_sums(SEQ_INIT, n, m->wA, m->b, m->sumA, avg, v));
    else TRY(finish_sums(nb, 2, v));
    const double nf = v[0] + SMALL_;
    res->initial = res->final = v[1] / nf;
    res->iterations = 0; res->singular = 0;
    int it = 0;
    double t_loop0 = afp_wtime();
    m->bytes_acc = 0;
    if (c->min_iter > 0 || !conv(res->final, res->initial, c)) {
        double wArA = GREAT_, wArAold, next_wr = 0.0;
        if (diagp) {
            k_precond_diag<<<nb, BLOCK, 0, g_s>>>(n, m->rD, m->rA, m->wA, g_part);
            CK(cudaGetLastError());
            if (g_seq) TRY(seq_sums(SEQ_DOT, n, m->wA, m->rA, NULL, 0.0, &next_wr));
            else TRY(finish_sums(nb, 1, &next_wr));
        }
        m->bytes_acc = 0;
        t_loop0 = afp_wtime();
        do {
            wArAold = wArA;
            if (diagp) wArA = next_wr;              /* w = rA/D and w.r formed by the last update */
            else TRY(precond_cheb(m, c, &wArA));
            if (it == 0) k_pcopy<<<nb, BLOCK, 0, g_s>>>(n, m->wA, m->pA);
            else k_pupdate<<<nb, BLOCK, 0, g_s>>>(n, m->wA, wArA / wArAold, m->pA);
            CK(cudaGetLastError());
            m->bytes_acc += 24.0 * n;
            double wApA;
            TRY(amul(m, m->pA, m->wA, &wApA));
            if (fabs(wApA) / nf < VSMALL) { res->singular = 1; break; }
            const double alpha = wArA / wApA;
            if (diagp) k_update<true><<<nb, BLOCK, 0, g_s>>>(n, alpha, m->pA, m->wA, m->psi, m->rA, m->rD, g_part);
            else k_update<false><<<nb, BLOCK, 0, g_s>>>(n, alpha, m->pA, m->wA, m->psi, m->rA, m->rD, g_part);
            CK(cudaGetLastError());
            m->bytes_acc += diagp ? 64.0 * n : 48.0 * n;
            if (g_seq) TRY(seq_sums(diagp ? SEQ_MAGDOT : SEQ_MAG, n, m->rA, m->wA, NULL, 0.0, v));
            else TRY(finish_sums(nb, 2, v));
            res->final = v[0] / nf;
            next_wr = v[1];
        } while ((++it < c->max_iter && !conv(res->final, res->initial, c)) || it < c->min_iter);
    }
    const double t_loop = afp_wtime() - t_loop0;
    res->iterations = it;
    CK(cudaMemcpyAsync(psi_h, m->psi, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost, g_s));
    CK(cudaStreamSynchronize(g_s));
    res->t_solve = afp_wtime() - t0;
    res->t_iter = it > 0 ? t_loop / it : 0.0;
    res->bytes_iter = it > 0 ? m->bytes_acc / it : 0.0;
    res->copy_gbs = g_copy_gbs;
    res->exchange = (g_mpi && g_nranks > 1) ? exchange_name() : "none";
    res->device = g_device;
    return 0;
}
