/* afp_gpu_sums.cu - the global sums of the GPU path (see afp_gpu.h).
 *  - Reduction TREE (the default): each rank sums on the device in a fixed
 *    tree (afp_gpu_tree.cuh: the grid depends on the size only), the ranks'
 *    partial sums are gathered (MPI_Allgather) and added in rank order: the
 *    same on every rank, and the same from run to run; the CPU path
 *    reproduces this order bit for bit.
 *  - Reduction SEQUENTIAL adds in OpenFOAM's order (one thread per rank,
 *    then MPI_Allreduce per scalar as OpenFOAM's reduce): OpenFOAM's PCG to
 *    the last bit, for checks on small cases. */
#include <math.h>
#include <stdlib.h>
#include "afp_gpu.h"
#include "afp_gpu_tree.cuh"

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
/* reduction SEQUENTIAL: the terms of OpenFOAM's sums, added left to right as
 * its sum()/sumProd()/sumMag() do (one block: the threads form a tile of
 * terms, thread 0 adds them in order). out[0] (and out[1] for the 2-sum
 * modes SEQ_INIT, SEQ_MAGDOT); the modes are listed in afp_gpu.h. */
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

/* ---- across the ranks ------------------------------------------------------ */
/* v[0..k-1] of every rank into buf, then added in rank order */
static int gather_and_add(afp_gpu *g, double *v, int k, double *buf)
{
    AFP_MPI_CHECK(MPI_Allgather(v, k, MPI_DOUBLE, buf, k, MPI_DOUBLE, g->comm), "gathering the ranks' sums");
    for (int j = 0; j < k; j++) {
        double s = 0.0;
        for (int r = 0; r < g->nranks; r++) s += buf[r * k + j];
        v[j] = s;
    }
    return 0;
}
int afp_gpu_allsum_host(afp_gpu *g, double *v, int k)
{
    if (!g->mpi || g->nranks == 1) return 0;
    double all[64 * NRED];
    double *buf = all;
    if (g->nranks * k > (int)(sizeof all / sizeof all[0])) {
        buf = (double *)malloc(sizeof(double) * (size_t)(g->nranks * k));
        if (!buf) return AFP_FAIL("out of host memory");
    }
    int rc = gather_and_add(g, v, k, buf);
    if (buf != all) free(buf);
    return rc;
}
/* reduction SEQUENTIAL across the ranks: OpenFOAM's reduce(scalar, sumOp)
 * is an MPI_Allreduce of one scalar (nProcsSimpleSum 0), one per sum */
static int allreduce_each(afp_gpu *g, double *v, int k)
{
    if (!g->mpi || g->nranks == 1) return 0;
    for (int j = 0; j < k; j++) {
        double x = v[j], y = 0.0;
        AFP_MPI_CHECK(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, g->comm), "summing over the ranks");
        v[j] = y;
    }
    return 0;
}

/* ---- device results -> v --------------------------------------------------- */
/* the k local sums in g->red_d -> v[0..k-1], summed over the ranks */
static int fetch_sums(afp_gpu *g, int k, double *v)
{
    AFP_CUDA_CHECK(cudaMemcpyAsync(g->red_h, g->red_d, sizeof(double) * (size_t)k, cudaMemcpyDeviceToHost, g->s),
                   "fetching the sums");
    AFP_CUDA_CHECK(cudaStreamSynchronize(g->s), "forming the sums");
    for (int j = 0; j < k; j++) v[j] = g->red_h[j];
    return g->seq ? allreduce_each(g, v, k) : afp_gpu_allsum_host(g, v, k);
}

int afp_gpu_finish_sums(afp_gpu *g, int nb, int k, double *v)
{
    k_final<<<1, BLOCK, 0, g->s>>>(g->part, nb, k, g->red_d);
    AFP_LAUNCH_CHECK("k_final");
    return fetch_sums(g, k, v);
}

int afp_gpu_seq_sums(afp_gpu *g, int mode, int n, const double *a, const double *b, const double *c, double avg,
                     double *v)
{
    switch (mode) {
    case SEQ_SUM: k_seq<SEQ_SUM><<<1, BLOCK, 0, g->s>>>(n, a, b, c, avg, g->red_d); break;
    case SEQ_DOT: k_seq<SEQ_DOT><<<1, BLOCK, 0, g->s>>>(n, a, b, c, avg, g->red_d); break;
    case SEQ_INIT: k_seq<SEQ_INIT><<<1, BLOCK, 0, g->s>>>(n, a, b, c, avg, g->red_d); break;
    case SEQ_MAG: k_seq<SEQ_MAG><<<1, BLOCK, 0, g->s>>>(n, a, b, c, avg, g->red_d); break;
    default: k_seq<SEQ_MAGDOT><<<1, BLOCK, 0, g->s>>>(n, a, b, c, avg, g->red_d); break;
    }
    AFP_LAUNCH_CHECK("k_seq");
    return fetch_sums(g, mode == SEQ_INIT || mode == SEQ_MAGDOT ? 2 : 1, v);
}

int afp_gpu_sum(afp_gpu *g, int n, const double *a, double *v)
{
    if (g->seq) return afp_gpu_seq_sums(g, SEQ_SUM, n, a, NULL, NULL, 0.0, v);
    const int nb = nblocks(n);
    k_sum<<<nb, BLOCK, 0, g->s>>>(n, a, g->part);
    AFP_LAUNCH_CHECK("k_sum");
    return afp_gpu_finish_sums(g, nb, 1, v);
}

int afp_gpu_dot(afp_gpu *g, int n, const double *a, const double *b, double *v)
{
    if (g->seq) return afp_gpu_seq_sums(g, SEQ_DOT, n, a, b, NULL, 0.0, v);
    const int nb = nblocks(n);
    k_dot<<<nb, BLOCK, 0, g->s>>>(n, a, b, g->part);
    AFP_LAUNCH_CHECK("k_dot");
    return afp_gpu_finish_sums(g, nb, 1, v);
}
