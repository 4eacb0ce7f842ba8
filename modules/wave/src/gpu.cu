/* gpu.cu - GPU back ends of wave2d (written in the C subset of CUDA; HIP
 * through cuda/common/adiflow_gpu_vendor.h, as the solver's kernels).
 *
 *  - single process, several GPUs: domain split along y, 4-row halos, per GPU
 *    a halo stream and an interior stream; the boundary rows are computed and
 *    exchanged (peer copies, or host staging without peer access) on the halo
 *    stream while the interior is computed on the interior stream; streams
 *    of neighbouring GPUs are ordered with events only (no host sync per step).
 *  - several processes (MPI for start-up only): one GPU per rank chosen by the
 *    node-local rank, halos exchanged with NCCL send/recv on the halo stream.
 *    Only with WAVE_HAVE_CCL (NCCL, or RCCL on HIP): make wave-cuda sets it,
 *    make hip builds the single-process path alone (Debian ships no RCCL).
 * Every kernel computes cells with wave_update() from stencil.h, so results
 * are bit-identical to the CPU reference when built with --fmad=false. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adiflow_gpu_vendor.h"
#if WAVE_HAVE_CCL
#if ADI_GPU_HIP
#include <rccl/rccl.h>
#else
#include <nccl.h>
#endif
#endif
#include "wave.h"
#include "cuda_check.h"   /* modules/common: CUDA_CHECK, exits RC_DEVICE through mod_fail */
#if WAVE_HAVE_CCL
#define NCCL_CHECK(call, what) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) \
    mod_fail(RC_DEVICE, "%s:%d: " ADI_GPU_CCL_NAME " error while %s: %s", __FILE__, __LINE__, what, ncclGetErrorString(r_)); } while (0)
typedef ncclComm_t ccl_comm_t;
#else
typedef void *ccl_comm_t;    /* never made: wave_gpu_backend refuses several ranks */
#endif

/* ---------------------------------------------------------------- kernels */
/* Tile kernel: BX threads along x (coalesced), each thread walks `chunk` rows
 * in groups of R rows. Values along y live in a register queue q[R+8];
 * the R centre rows go to shared memory (double-buffered, one barrier per
 * group) for the x neighbours. Bytes per cell ~16 (u^n once, u^{n-1}, k,
 * write u^{n+1}) plus 8 halo rows per chunk. */
#define TILE_KERNEL(NAME, BX, R)                                                  \
__global__ void __launch_bounds__(BX) NAME(real *__restrict__ un,                 \
        const real *__restrict__ uc, const real *__restrict__ kk,                 \
        const real *__restrict__ gx, const real *__restrict__ gy,                 \
        int nx, int ra, int rb, int chunk)                                        \
{                                                                                 \
    __shared__ real s[2][R][BX + 8];                                              \
    const int tx = threadIdx.x;                                                   \
    const int ix = blockIdx.x * BX + tx;                                          \
    const int y0 = ra + blockIdx.y * chunk;                                       \
    if (y0 >= rb) return;                                                         \
    const int y1 = min(y0 + chunk, rb);                                           \
    const bool xin = ix < nx, upd = ix >= 4 && ix < nx - 4;                       \
    const real gxv = xin ? gx[ix] : (real)0;                                      \
    const size_t snx = (size_t)nx;                                                \
    real q[R + 8];                                                                \
    _Pragma("unroll")                                                             \
    for (int j = 0; j < 8; j++) q[j] = xin ? uc[(size_t)(y0 - 4 + j) * snx + ix] : (real)0; \
    int buf = 0;                                                                  \
    for (int y = y0; y < y1; y += R) {                                            \
        real pv[R], kv[R];                                                        \
        _Pragma("unroll")                                                         \
        for (int r = 0; r < R; r++) {                                             \
            const bool ok = xin && y + r < y1;                                    \
            const size_t o = (size_t)(y + r) * snx + ix;                          \
            q[8 + r] = ok ? uc[o + 4 * snx] : (real)0;                            \
            pv[r] = ok ? un[o] : (real)0;                                         \
            kv[r] = ok ? kk[o] : (real)0;                                         \
        }                                                                         \
        _Pragma("unroll")                                                         \
        for (int r = 0; r < R; r++) {                                             \
            const size_t o = (size_t)(y + r) * snx + ix;                          \
            const bool rowok = y + r < y1;                                        \
            s[buf][r][tx + 4] = q[4 + r];                                         \
            if (tx < 4) s[buf][r][tx] = (rowok && ix >= 4) ? uc[o - 4] : (real)0; \
            if (tx >= BX - 4) s[buf][r][tx + 8] = (rowok && ix + 4 < nx) ? uc[o + 4] : (real)0; \
        }                                                                         \
        __syncthreads();                                                          \
        _Pragma("unroll")                                                         \
        for (int r = 0; r < R; r++) {                                             \
            if (upd && y + r < y1) {                                              \
                const real *l = &s[buf][r][tx];                                   \
                un[(size_t)(y + r) * snx + ix] = wave_update(q[4 + r], pv[r], kv[r], gxv, gy[y + r], \
                    l[0], l[1], l[2], l[3], l[5], l[6], l[7], l[8],               \
                    q[r], q[r + 1], q[r + 2], q[r + 3], q[r + 5], q[r + 6], q[r + 7], q[r + 8]); \
            }                                                                     \
        }                                                                         \
        _Pragma("unroll")                                                         \
        for (int j = 0; j < 8; j++) q[j] = q[j + R];                              \
        buf ^= 1;                                                                 \
    }                                                                             \
}

TILE_KERNEL(k_tile128, 128, 8)
TILE_KERNEL(k_tile256, 256, 4)
TILE_KERNEL(k_tile64, 64, 16)

/* straightforward one-thread-per-cell kernel (reference / fallback) */
__global__ void k_simple(real *__restrict__ un, const real *__restrict__ uc,
                         const real *__restrict__ kk, const real *__restrict__ gx,
                         const real *__restrict__ gy, int nx, int ra, int rb, int chunk)
{
    (void)chunk;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    if (ix < 4 || ix >= nx - 4) return;
    const size_t snx = (size_t)nx;
    for (int y = ra + blockIdx.y; y < rb; y += gridDim.y) {
        const size_t o = (size_t)y * snx + ix;
        un[o] = wave_update(uc[o], un[o], kk[o], gx[ix], gy[y],
                            uc[o - 4], uc[o - 3], uc[o - 2], uc[o - 1],
                            uc[o + 1], uc[o + 2], uc[o + 3], uc[o + 4],
                            uc[o - 4 * snx], uc[o - 3 * snx], uc[o - 2 * snx], uc[o - snx],
                            uc[o + snx], uc[o + 2 * snx], uc[o + 3 * snx], uc[o + 4 * snx]);
    }
}

__global__ void k_inject(real *u, size_t off, real val) { u[off] = u[off] + val; }

__global__ void k_record(const real *__restrict__ u, const size_t *__restrict__ off,
                         const int *__restrict__ idx, int n, real *__restrict__ tr,
                         long nsamp, long sample)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tr[(size_t)idx[i] * nsamp + sample] = u[off[i]];
}

/* ---------------------------------------------------------------- state */
typedef struct {
    int dev, p, r0, r1, nloc;
    real *a, *b, *k, *gx, *gy;          /* device; gy already offset to local row 0 */
    cudaStream_t sh, si;                /* halo stream, interior stream */
    cudaEvent_t ev_hc, ev_he, ev_ie;    /* halo computed, halo stream end, interior end */
    cudaEvent_t tm[5];                  /* timing: halo start, halo kernels done, halo end, int start, int end */
    real *stage_lo, *stage_hi;          /* pinned host staging of outgoing rows */
    int peer_lo, peer_hi;               /* link to neighbour is direct (peer/same device) */
    int nrec; size_t *d_off; int *d_idx; real *d_tr;
    int h_lo, h_hi, i_lo, i_hi, h2_lo, h2_hi;  /* local row ranges: halo parts and interior */
} Part;

typedef struct {
    const WaveCase *c; const WaveComm *comm;
    int np, P, nccl;
    Part *p;
    ccl_comm_t nc;
    void (*kern)(real *, const real *, const real *, const real *, const real *, int, int, int, int);
    int bx, chunk;
    /* profiling sums (ms) */
    int prof_n, prof_pending; double t_halo, t_xchg, t_int, t_step;
} Gpu;

static void launch(Gpu *G, Part *q, cudaStream_t st, int ra, int rb)
{
    if (ra >= rb) return;
    const WaveCase *c = G->c;
    int rows = rb - ra;
    dim3 grid, block;
    if (G->kern == k_simple) {
        block = dim3(128); grid = dim3((c->nx + 127) / 128, rows < 65535 ? rows : 65535);
    } else {
        int ch = G->chunk;
        while ((rows + ch - 1) / ch > 65535) ch *= 2;
        block = dim3(G->bx); grid = dim3((c->nx + G->bx - 1) / G->bx, (rows + ch - 1) / ch);
        G->kern<<<grid, block, 0, st>>>(q->b, q->a, q->k, q->gx, q->gy, c->nx, ra, rb, ch);
        CUDA_CHECK(cudaGetLastError(), "launching the stencil kernel");
        return;
    }
    G->kern<<<grid, block, 0, st>>>(q->b, q->a, q->k, q->gx, q->gy, c->nx, ra, rb, 0);
    CUDA_CHECK(cudaGetLastError(), "launching the stencil kernel");
}

static void inject(Gpu *G, Part *q, cudaStream_t st, real val, int lo, int hi)
{
    const WaveCase *c = G->c;
    if (val == 0 || c->src_iy < q->r0 || c->src_iy >= q->r1) return;
    int l = c->src_iy - q->r0 + 4;
    if (l < lo || l >= hi) return;
    k_inject<<<1, 1, 0, st>>>(q->b, (size_t)l * c->nx + c->src_ix, val);
    CUDA_CHECK(cudaGetLastError(), "launching the source kernel");
}

/* Read the timing events of the last sampled step. Called at the next sampled
 * step (10 steps later, before the events are recorded again) and from
 * gpu_report: by then the events have normally completed, and if not, the
 * host waits with the following steps still queued, so the GPUs never drain. */
static void prof_harvest(Gpu *G)
{
    if (!G->prof_pending) return;
    G->prof_pending = 0;
    double span = 0;
    for (int i = 0; i < G->np; i++) {
        Part *q = &G->p[i]; float h = 0, x = 0, in = 0, s1 = 0, s2 = 0;
        CUDA_CHECK(cudaSetDevice(q->dev), "selecting a GPU");
        CUDA_CHECK(cudaEventSynchronize(q->tm[4]), "waiting for timing events");
        CUDA_CHECK(cudaEventElapsedTime(&in, q->tm[3], q->tm[4]), "reading timing events");
        if (G->P > 1) {
            CUDA_CHECK(cudaEventSynchronize(q->tm[2]), "waiting for timing events");
            CUDA_CHECK(cudaEventElapsedTime(&h, q->tm[0], q->tm[1]), "reading timing events");
            CUDA_CHECK(cudaEventElapsedTime(&x, q->tm[1], q->tm[2]), "reading timing events");
            CUDA_CHECK(cudaEventElapsedTime(&s1, q->tm[0], q->tm[4]), "reading timing events");
            CUDA_CHECK(cudaEventElapsedTime(&s2, q->tm[0], q->tm[2]), "reading timing events");
            float sp = s1 > s2 ? s1 : s2;
            float d = 0; CUDA_CHECK(cudaEventElapsedTime(&d, q->tm[0], q->tm[3]), "reading timing events");
            if (d < 0) sp -= d;
            if (sp > span) span = sp;
        } else if (in > span) span = in;
        G->t_halo += h / G->np; G->t_xchg += x / G->np; G->t_int += in / G->np;
    }
    G->t_step += span; G->prof_n++;
}

/* NCCL halo exchange of part q (4 rows each way) on the halo stream. */
static void nccl_exchange(Gpu *G, Part *q, real *buf)
{
#if WAVE_HAVE_CCL
    const size_t nx = G->c->nx;
    ncclDataType_t T = sizeof(real) == 8 ? ncclDouble : ncclFloat;
    NCCL_CHECK(ncclGroupStart(), "starting the halo exchange");
    if (q->p > 0) {
        NCCL_CHECK(ncclSend(buf + 4 * nx, 4 * nx, T, q->p - 1, G->nc, q->sh), "sending halo rows to the rank below");
        NCCL_CHECK(ncclRecv(buf, 4 * nx, T, q->p - 1, G->nc, q->sh), "receiving halo rows from the rank below");
    }
    if (q->p + 1 < G->P) {
        NCCL_CHECK(ncclSend(buf + (size_t)q->nloc * nx, 4 * nx, T, q->p + 1, G->nc, q->sh), "sending halo rows to the rank above");
        NCCL_CHECK(ncclRecv(buf + (size_t)(q->nloc + 4) * nx, 4 * nx, T, q->p + 1, G->nc, q->sh), "receiving halo rows from the rank above");
    }
    NCCL_CHECK(ncclGroupEnd(), "finishing the halo exchange");
#else
    (void)G; (void)q; (void)buf;
    mod_fail(RC_DEVICE, "internal error: an NCCL exchange in a build without " ADI_GPU_CCL_NAME);
#endif
}

/* The ranks' communicator, and one exchange so that NCCL's lazy connection
 * set-up is not inside the timed time-stepping loop. */
static void nccl_setup(Gpu *G)
{
#if WAVE_HAVE_CCL
    const WaveComm *comm = G->comm;
    ncclUniqueId id;
    if (comm->rank == 0) NCCL_CHECK(ncclGetUniqueId(&id), "creating the NCCL communicator id");
    comm->bcast(&id, sizeof id);
    CUDA_CHECK(cudaSetDevice(G->p[0].dev), "selecting a GPU");
    NCCL_CHECK(ncclCommInitRank(&G->nc, comm->size, id, comm->rank), "setting up NCCL between the ranks (one GPU per rank)");
    /* NCCL connects send/recv peers lazily, inside the first ncclGroupEnd
     * that uses them (buffers, IPC handles, proxy; and the NCCL kernels
     * load on first use). Do one exchange of the same shape now so that
     * this one-off set-up is not inside the timed time-stepping loop.
     * It exchanges the halo rows of b, which are never read before the
     * first real exchange overwrites them, so results are unchanged. */
    if (G->P > 1) {
        nccl_exchange(G, &G->p[0], G->p[0].b);
        CUDA_CHECK(cudaStreamSynchronize(G->p[0].sh), "warming up the NCCL halo exchange");
    }
#else
    (void)G;
#endif
}

static void nccl_destroy(Gpu *G)
{
#if WAVE_HAVE_CCL
    ncclCommDestroy(G->nc);
#else
    (void)G;
#endif
}

/* One time step. Per part (GPU), with no host synchronisation:
 *   halo stream:     [wait own interior of step n-1 (its input rows are
 *                    overwritten now) and, single-process, the neighbours'
 *                    pulls of step n-1] -> boundary-row kernels -> ev_hc
 *   interior stream: [wait ev_hc of step n-1] -> interior kernel -> ev_ie
 *   halo stream:     NCCL send/recv (MPI mode) or, after every part's ev_hc,
 *                    peer / host-staged pulls (single process) -> ev_he
 * The interior kernel of step n reads rows [4, nloc+4) of u^n, never the
 * received halo rows [0,4) and [nloc+4, nloc+8), so it waits only for the
 * boundary-row kernels of step n-1, not for any exchange. The interior is
 * enqueued before the NCCL calls, so a host-blocking ncclGroupEnd cannot
 * delay it. */
static void gpu_step(void *st, long n, real srcval)
{
    Gpu *G = (Gpu *)st; const WaveCase *c = G->c;
    const int prof = c->profile && n % 10 == 5;
    const size_t nx = c->nx, hb = 4 * nx * sizeof(real);
    if (prof) prof_harvest(G);
    for (int i = 0; i < G->np; i++) {
        Part *q = &G->p[i];
        CUDA_CHECK(cudaSetDevice(q->dev), "selecting a GPU");
        if (G->P > 1) {
            if (n > 0) {
                CUDA_CHECK(cudaStreamWaitEvent(q->sh, q->ev_ie, 0), "ordering the halo stream");
                if (!G->nccl && i > 0) CUDA_CHECK(cudaStreamWaitEvent(q->sh, G->p[i - 1].ev_he, 0), "ordering the halo stream after the lower neighbour");
                if (!G->nccl && i + 1 < G->np) CUDA_CHECK(cudaStreamWaitEvent(q->sh, G->p[i + 1].ev_he, 0), "ordering the halo stream after the upper neighbour");
                /* ev_hc still holds step n-1 here */
                CUDA_CHECK(cudaStreamWaitEvent(q->si, q->ev_hc, 0), "ordering the interior stream");
            }
            if (prof) CUDA_CHECK(cudaEventRecord(q->tm[0], q->sh), "recording a timing event");
            launch(G, q, q->sh, q->h_lo, q->h_hi);
            launch(G, q, q->sh, q->h2_lo, q->h2_hi);
            inject(G, q, q->sh, srcval, q->h_lo, q->h_hi);
            inject(G, q, q->sh, srcval, q->h2_lo, q->h2_hi);
            if (!G->nccl) {
                if (i > 0 && !q->peer_lo)
                    CUDA_CHECK(cudaMemcpyAsync(q->stage_lo, q->b + 4 * nx, hb, cudaMemcpyDeviceToHost, q->sh), "staging halo rows through host memory");
                if (i + 1 < G->np && !q->peer_hi)
                    CUDA_CHECK(cudaMemcpyAsync(q->stage_hi, q->b + (size_t)q->nloc * nx, hb, cudaMemcpyDeviceToHost, q->sh), "staging halo rows through host memory");
            }
            CUDA_CHECK(cudaEventRecord(q->ev_hc, q->sh), "recording the halo event");
            if (prof) CUDA_CHECK(cudaEventRecord(q->tm[1], q->sh), "recording a timing event");
        }
        if (prof) CUDA_CHECK(cudaEventRecord(q->tm[3], q->si), "recording a timing event");
        launch(G, q, q->si, q->i_lo, q->i_hi);
        inject(G, q, q->si, srcval, q->i_lo, q->i_hi);
        CUDA_CHECK(cudaEventRecord(q->ev_ie, q->si), "recording the interior event");
        if (prof) CUDA_CHECK(cudaEventRecord(q->tm[4], q->si), "recording a timing event");
        if (G->P > 1 && G->nccl) {   /* after the interior launch: the group may block the host */
            nccl_exchange(G, q, q->b);
            CUDA_CHECK(cudaEventRecord(q->ev_he, q->sh), "recording the halo event");
            if (prof) CUDA_CHECK(cudaEventRecord(q->tm[2], q->sh), "recording a timing event");
        }
    }
    if (G->P > 1 && !G->nccl) {
        for (int i = 0; i < G->np; i++) {
            Part *q = &G->p[i];
            CUDA_CHECK(cudaSetDevice(q->dev), "selecting a GPU");
            if (i > 0) {      /* lower halo <- last owned rows of part i-1 */
                Part *o = &G->p[i - 1];
                CUDA_CHECK(cudaStreamWaitEvent(q->sh, o->ev_hc, 0), "waiting for the neighbour's halo rows");
                if (q->peer_lo) CUDA_CHECK(cudaMemcpyPeerAsync(q->b, q->dev, o->b + (size_t)o->nloc * nx, o->dev, hb, q->sh), "copying halo rows between GPUs");
                else CUDA_CHECK(cudaMemcpyAsync(q->b, o->stage_hi, hb, cudaMemcpyHostToDevice, q->sh), "copying staged halo rows to the GPU");
            }
            if (i + 1 < G->np) { /* upper halo <- first owned rows of part i+1 */
                Part *o = &G->p[i + 1];
                CUDA_CHECK(cudaStreamWaitEvent(q->sh, o->ev_hc, 0), "waiting for the neighbour's halo rows");
                if (q->peer_hi) CUDA_CHECK(cudaMemcpyPeerAsync(q->b + (size_t)(q->nloc + 4) * nx, q->dev, o->b + 4 * nx, o->dev, hb, q->sh), "copying halo rows between GPUs");
                else CUDA_CHECK(cudaMemcpyAsync(q->b + (size_t)(q->nloc + 4) * nx, o->stage_lo, hb, cudaMemcpyHostToDevice, q->sh), "copying staged halo rows to the GPU");
            }
            CUDA_CHECK(cudaEventRecord(q->ev_he, q->sh), "recording the halo event");
            if (prof) CUDA_CHECK(cudaEventRecord(q->tm[2], q->sh), "recording a timing event");
        }
    }
    for (int i = 0; i < G->np; i++) { real *t = G->p[i].a; G->p[i].a = G->p[i].b; G->p[i].b = t; }
    if (prof) G->prof_pending = 1;
}

static void gpu_sync(void *st)
{
    Gpu *G = (Gpu *)st;
    for (int i = 0; i < G->np; i++) {
        CUDA_CHECK(cudaSetDevice(G->p[i].dev), "selecting a GPU");
        CUDA_CHECK(cudaDeviceSynchronize(), "running the time steps (a kernel or copy failed)");
    }
}

static void gpu_record(void *st, long sample)
{
    Gpu *G = (Gpu *)st;
    for (int i = 0; i < G->np; i++) {
        Part *q = &G->p[i];
        if (!q->nrec) continue;
        CUDA_CHECK(cudaSetDevice(q->dev), "selecting a GPU");
        if (G->P > 1) CUDA_CHECK(cudaStreamWaitEvent(q->si, q->ev_hc, 0), "ordering the receiver kernel");
        k_record<<<(q->nrec + 127) / 128, 128, 0, q->si>>>(q->a, q->d_off, q->d_idx, q->nrec, q->d_tr, G->c->nsamp, sample);
        CUDA_CHECK(cudaGetLastError(), "launching the receiver kernel");
    }
}

static void gpu_gather(void *st, real *full)
{
    Gpu *G = (Gpu *)st; const WaveCase *c = G->c;
    gpu_sync(st);
    if (G->nccl) {
        Part *q = &G->p[0];
        real *h = (real *)malloc(sizeof(real) * (size_t)q->nloc * c->nx);
        if (!h) mod_fail(RC_MEMORY, "out of host memory while collecting the field");
        CUDA_CHECK(cudaMemcpy(h, q->a + 4 * (size_t)c->nx, sizeof(real) * (size_t)q->nloc * c->nx, cudaMemcpyDeviceToHost), "copying the field to the host");
        G->comm->gather_rows(full, h, c->nx, q->r0, q->r1);
        free(h);
        return;
    }
    memset(full, 0, sizeof(real) * (size_t)c->nx * c->ny);
    for (int i = 0; i < G->np; i++) {
        Part *q = &G->p[i];
        CUDA_CHECK(cudaSetDevice(q->dev), "selecting a GPU");
        CUDA_CHECK(cudaMemcpy(full + (size_t)q->r0 * c->nx, q->a + 4 * (size_t)c->nx, sizeof(real) * (size_t)q->nloc * c->nx, cudaMemcpyDeviceToHost), "copying the field to the host");
    }
}

static void gpu_traces(void *st, real *tr)
{
    Gpu *G = (Gpu *)st; const WaveCase *c = G->c;
    long n = (long)c->rec_n * c->nsamp;
    if (!n) return;
    gpu_sync(st);
    real *loc = (real *)calloc((size_t)n, sizeof(real));
    real *tmp = (real *)malloc(sizeof(real) * (size_t)n);
    if (!loc || !tmp) mod_fail(RC_MEMORY, "out of host memory for receiver traces");
    for (int i = 0; i < G->np; i++) {
        Part *q = &G->p[i];
        if (!q->nrec) continue;
        CUDA_CHECK(cudaSetDevice(q->dev), "selecting a GPU");
        CUDA_CHECK(cudaMemcpy(tmp, q->d_tr, sizeof(real) * (size_t)n, cudaMemcpyDeviceToHost), "copying receiver traces to the host");
        for (int r = 0; r < c->rec_n; r++)
            if (c->rec_iy[r] >= q->r0 && c->rec_iy[r] < q->r1)
                memcpy(loc + (size_t)r * c->nsamp, tmp + (size_t)r * c->nsamp, sizeof(real) * c->nsamp);
    }
    if (G->nccl) {
        double *d = (double *)malloc(sizeof(double) * (size_t)n);
        for (long i = 0; i < n; i++) d[i] = loc[i];
        G->comm->reduce_sum(d, n);
        if (G->comm->rank == 0) for (long i = 0; i < n; i++) tr[i] = (real)d[i];
        free(d);
    } else memcpy(tr, loc, sizeof(real) * (size_t)n);
    free(loc); free(tmp);
}

static void gpu_report(void *st, double sec, long steps)
{
    Gpu *G = (Gpu *)st; (void)sec; (void)steps;
    prof_harvest(G);
    if (!G->c->profile || !G->prof_n || G->comm->rank != 0) return;
    double k = 1000.0 / G->prof_n;   /* ms -> us per step */
    printf("profile (GPU events, mean over %d sampled steps, per GPU%s):\n", G->prof_n, G->nccl ? " of rank 0" : "");
    printf("  halo rows compute %8.1f us | halo exchange %8.1f us | interior %8.1f us | step span %8.1f us\n",
           G->t_halo * k, G->t_xchg * k, G->t_int * k, G->t_step * k);
    double serial = (G->t_halo + G->t_xchg + G->t_int) * k;
    if (G->P > 1)
        printf("  overlap: serial sum %.1f us vs span %.1f us -> %.0f%% of the halo work hidden behind the interior\n",
               serial, G->t_step * k,
               (G->t_halo + G->t_xchg) > 0 ? 100.0 * (serial - G->t_step * k) / ((G->t_halo + G->t_xchg) * k) : 0.0);
    fflush(stdout);
}

static void gpu_destroy(void *st)
{
    Gpu *G = (Gpu *)st;
    for (int i = 0; i < G->np; i++) {
        Part *q = &G->p[i];
        cudaSetDevice(q->dev);
        cudaFree(q->a); cudaFree(q->b); cudaFree(q->k); cudaFree(q->gx); cudaFree(q->gy - (q->r0 - 4));
        cudaFree(q->d_off); cudaFree(q->d_idx); cudaFree(q->d_tr);
        if (q->stage_lo) cudaFreeHost(q->stage_lo);
        if (q->stage_hi) cudaFreeHost(q->stage_hi);
        cudaStreamDestroy(q->sh); cudaStreamDestroy(q->si);
        cudaEventDestroy(q->ev_hc); cudaEventDestroy(q->ev_he); cudaEventDestroy(q->ev_ie);
        for (int j = 0; j < 5; j++) cudaEventDestroy(q->tm[j]);
    }
    if (G->nccl) nccl_destroy(G);
    free(G->p); free(G);
}

extern "C" int wave_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) { cudaGetLastError(); return 0; }
    return n;
}

static void *dalloc(size_t bytes, int dev)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess)
        mod_fail(RC_DEVICE, "cannot allocate %.1f MiB on GPU %d: %s (the grid needs about 3 x nx x ny x %d bytes in total; use more GPUs or a smaller grid)",
                 bytes / 1048576.0, dev, cudaGetErrorString(e), (int)sizeof(real));
    return p;
}

extern "C" int wave_gpu_backend(const WaveCase *c, const WaveComm *comm, WaveBackend *be, char *err, size_t n)
{
    int ndev = wave_gpu_count();
    if (ndev < 1) { snprintf(err, n, "mode = gpu but no " ADI_GPU_API_NAME " GPU is visible (check " ADI_GPU_SMI " / " ADI_GPU_VISIBLE_ENV ", or use mode = cpu)"); return -1; }
    if (comm->size > 1 && c->parts != 1) { snprintf(err, n, "parts is a CPU-mode option; with MPI every rank drives one GPU"); return -1; }
#if !WAVE_HAVE_CCL
    if (comm->size > 1) { snprintf(err, n, "mode = gpu over %d MPI ranks needs " ADI_GPU_CCL_NAME ", which this build lacks: run one process, which drives every GPU (--gpus N)", comm->size); return -1; }
#endif
    Gpu *G = (Gpu *)calloc(1, sizeof(Gpu));
    G->c = c; G->comm = comm;
    G->nccl = comm->size > 1;
    G->np = G->nccl ? 1 : (c->gpus > 0 ? c->gpus : ndev);
    G->P = G->nccl ? comm->size : G->np;
    if (G->P > (c->ny - 8) / 4) { snprintf(err, n, "%d GPUs are too many for ny = %d: every GPU needs at least 4 rows", G->P, c->ny); free(G); return -1; }
    if (G->nccl && comm->local_size > ndev) {
        snprintf(err, n, "%d ranks run on this node but only %d GPU(s) are visible; start at most one rank per GPU (or use mode = cpu)", comm->local_size, ndev);
        free(G); return -1;
    }
    if (!strcmp(c->kernel, "simple")) { G->kern = k_simple; G->bx = 128; }
    else if (!strcmp(c->kernel, "tile256")) { G->kern = k_tile256; G->bx = 256; }
    else if (!strcmp(c->kernel, "tile64")) { G->kern = k_tile64; G->bx = 64; }
    else { G->kern = k_tile128; G->bx = 128; }
    G->chunk = c->chunk;
    G->p = (Part *)calloc(G->np, sizeof(Part));
    real *gx = (real *)malloc(sizeof(real) * c->nx), *gy = (real *)malloc(sizeof(real) * c->ny);
    wave_sponge(c, gx, gy);
    for (int i = 0; i < G->np; i++) {
        Part *q = &G->p[i];
        q->p = G->nccl ? comm->rank : i;
        q->dev = G->nccl ? comm->local_rank % ndev : i % ndev;
        wave_split(c->ny, G->P, q->p, &q->r0, &q->r1);
        q->nloc = q->r1 - q->r0;
        int nl = q->nloc;
        if (G->P == 1) { q->h_lo = q->h_hi = q->h2_lo = q->h2_hi = 0; q->i_lo = 4; q->i_hi = 4 + nl; }
        else if (nl < 8) { q->h_lo = 4; q->h_hi = 4 + nl; q->h2_lo = q->h2_hi = 0; q->i_lo = q->i_hi = 0; }
        else { q->h_lo = 4; q->h_hi = 8; q->h2_lo = nl; q->h2_hi = nl + 4; q->i_lo = 8; q->i_hi = nl; }
        CUDA_CHECK(cudaSetDevice(q->dev), "selecting a GPU");
        size_t cells = (size_t)(nl + 8) * c->nx, bytes = cells * sizeof(real);
        q->a = (real *)dalloc(bytes, q->dev); q->b = (real *)dalloc(bytes, q->dev); q->k = (real *)dalloc(bytes, q->dev);
        q->gx = (real *)dalloc(sizeof(real) * c->nx, q->dev);
        real *dgy = (real *)dalloc(sizeof(real) * c->ny, q->dev);
        q->gy = dgy + (q->r0 - 4);
        CUDA_CHECK(cudaMemcpy(q->gx, gx, sizeof(real) * c->nx, cudaMemcpyHostToDevice), "uploading the sponge profile");
        CUDA_CHECK(cudaMemcpy(dgy, gy, sizeof(real) * c->ny, cudaMemcpyHostToDevice), "uploading the sponge profile");
        real *h = (real *)malloc(bytes);
        if (!h) mod_fail(RC_MEMORY, "out of host memory while preparing GPU %d", q->dev);
        if (wave_fill_k(c, h, q->r0 - 4, q->r1 + 4, err, n)) { free(h); free(gx); free(gy); return -1; }
        CUDA_CHECK(cudaMemcpy(q->k, h, bytes, cudaMemcpyHostToDevice), "uploading the velocity model");
        wave_fill_init(c, h, q->r0 - 4, q->r1 + 4);
        CUDA_CHECK(cudaMemcpy(q->a, h, bytes, cudaMemcpyHostToDevice), "uploading the initial field");
        CUDA_CHECK(cudaMemcpy(q->b, h, bytes, cudaMemcpyHostToDevice), "uploading the initial field");
        free(h);
        /* halo stream at the highest priority: its small boundary-row kernels
         * and the NCCL kernel get SMs as soon as interior blocks retire,
         * instead of queueing behind the whole interior grid */
        int prio_lo = 0, prio_hi = 0;
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&prio_lo, &prio_hi), "querying stream priorities");
        CUDA_CHECK(cudaStreamCreateWithPriority(&q->sh, cudaStreamNonBlocking, prio_hi), "creating the halo stream");
        CUDA_CHECK(cudaStreamCreateWithFlags(&q->si, cudaStreamNonBlocking), "creating the interior stream");
        CUDA_CHECK(cudaEventCreateWithFlags(&q->ev_hc, cudaEventDisableTiming), "creating an event");
        CUDA_CHECK(cudaEventCreateWithFlags(&q->ev_he, cudaEventDisableTiming), "creating an event");
        CUDA_CHECK(cudaEventCreateWithFlags(&q->ev_ie, cudaEventDisableTiming), "creating an event");
        for (int j = 0; j < 5; j++) CUDA_CHECK(cudaEventCreate(&q->tm[j]), "creating a timing event");
        /* receivers owned by this part */
        int nr = 0;
        for (int r = 0; r < c->rec_n; r++) if (c->rec_iy[r] >= q->r0 && c->rec_iy[r] < q->r1) nr++;
        q->nrec = nr;
        if (nr) {
            size_t *off = (size_t *)malloc(sizeof(size_t) * nr); int *idx = (int *)malloc(sizeof(int) * nr), j = 0;
            for (int r = 0; r < c->rec_n; r++)
                if (c->rec_iy[r] >= q->r0 && c->rec_iy[r] < q->r1) { off[j] = (size_t)(c->rec_iy[r] - q->r0 + 4) * c->nx + c->rec_ix[r]; idx[j++] = r; }
            q->d_off = (size_t *)dalloc(sizeof(size_t) * nr, q->dev); q->d_idx = (int *)dalloc(sizeof(int) * nr, q->dev);
            q->d_tr = (real *)dalloc(sizeof(real) * (size_t)c->rec_n * c->nsamp, q->dev);
            CUDA_CHECK(cudaMemset(q->d_tr, 0, sizeof(real) * (size_t)c->rec_n * c->nsamp), "clearing the trace buffer");
            CUDA_CHECK(cudaMemcpy(q->d_off, off, sizeof(size_t) * nr, cudaMemcpyHostToDevice), "uploading receiver positions");
            CUDA_CHECK(cudaMemcpy(q->d_idx, idx, sizeof(int) * nr, cudaMemcpyHostToDevice), "uploading receiver positions");
            free(off); free(idx);
        }
    }
    free(gx); free(gy);
    /* links between neighbouring GPUs: same device or peer access = direct, else host staging */
    int npeer = 0, nstage = 0;
    if (!G->nccl)
        for (int i = 0; i + 1 < G->np; i++) {
            Part *lo = &G->p[i], *hi = &G->p[i + 1];
            int direct = lo->dev == hi->dev;
            if (!direct && !c->no_peer) {
                int a = 0, b = 0;
                CUDA_CHECK(cudaDeviceCanAccessPeer(&a, lo->dev, hi->dev), "querying peer access");
                CUDA_CHECK(cudaDeviceCanAccessPeer(&b, hi->dev, lo->dev), "querying peer access");
                if (a && b) {
                    cudaError_t e;
                    CUDA_CHECK(cudaSetDevice(lo->dev), "selecting a GPU");
                    e = cudaDeviceEnablePeerAccess(hi->dev, 0);
                    if (e == cudaErrorPeerAccessAlreadyEnabled) { cudaGetLastError(); e = cudaSuccess; }
                    if (e == cudaSuccess) {
                        CUDA_CHECK(cudaSetDevice(hi->dev), "selecting a GPU");
                        e = cudaDeviceEnablePeerAccess(lo->dev, 0);
                        if (e == cudaErrorPeerAccessAlreadyEnabled) { cudaGetLastError(); e = cudaSuccess; }
                    }
                    if (e == cudaSuccess) direct = 2;
                    else { cudaGetLastError(); fprintf(stderr, "wave2d: warning: peer access %d<->%d failed (%s); staging halos through host memory\n", lo->dev, hi->dev, cudaGetErrorString(e)); }
                }
            }
            lo->peer_hi = hi->peer_lo = direct ? 1 : 0;
            if (direct == 2) npeer++;
            if (!direct) {
                nstage++;
                CUDA_CHECK(cudaSetDevice(lo->dev), "selecting a GPU");
                CUDA_CHECK(cudaMallocHost((void **)&lo->stage_hi, 4 * sizeof(real) * c->nx), "allocating pinned host staging buffers");
                CUDA_CHECK(cudaSetDevice(hi->dev), "selecting a GPU");
                CUDA_CHECK(cudaMallocHost((void **)&hi->stage_lo, 4 * sizeof(real) * c->nx), "allocating pinned host staging buffers");
            }
        }
    if (G->nccl) nccl_setup(G);
    /* load the stencil kernel on every GPU now (lazy module loading) with an
     * empty launch: rows [4, 4) -> every block returns at once */
    for (int i = 0; i < G->np; i++) {
        Part *q = &G->p[i];
        CUDA_CHECK(cudaSetDevice(q->dev), "selecting a GPU");
        G->kern<<<1, G->bx, 0, q->si>>>(q->b, q->a, q->k, q->gx, q->gy, c->nx, 4, 4, G->chunk);
        CUDA_CHECK(cudaGetLastError(), "launching the stencil kernel");
    }
    gpu_sync(G);
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, G->p[0].dev), "querying the GPU");
    if (G->nccl)
        snprintf(be->name, sizeof be->name, "gpu, %d MPI ranks x 1 GPU, NCCL halos, %s kernel", comm->size, c->kernel);
    else if (G->np == 1)
        snprintf(be->name, sizeof be->name, "gpu, 1 x %.40s, %s kernel", prop.name, c->kernel);
    else
        snprintf(be->name, sizeof be->name, "gpu, %d GPUs in one process (%d devices, %d peer / %d staged links), %s kernel",
                 G->np, ndev < G->np ? ndev : G->np, npeer, nstage, c->kernel);
    be->st = G; be->step = gpu_step; be->record = gpu_record; be->sync = gpu_sync;
    be->gather = gpu_gather; be->traces = gpu_traces; be->report = gpu_report; be->destroy = gpu_destroy;
    return 0;
}
