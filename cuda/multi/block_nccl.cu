/* Multi-GPU block mode (include/adiflow_block.h): one MPI rank per GPU, one
 * block of fortran/mpi_decomp.f90's j/k decomposition per rank, GPU-to-GPU
 * traffic through NCCL. Linked into build/adiflow_mpi only (the serial
 * build/adiflow has no NCCL dependency).
 *
 * The CPU mirror of everything here is fortran/mpi_decomp.f90:
 *   halo_q / halo_lam   halo_exchange: nl rows of the whole cross-section
 *                       (ghosts and padding included) to each neighbour;
 *                       received rows land in the ghost rows
 *   sweep_pipelined     adi_stage4_pipelined: the lines across the sweep
 *                       direction are cut into chunks; for each chunk a rank
 *                       takes the last forward value of the rank below, sweeps
 *                       and passes its own last row up; the backward sweep
 *                       runs downwards the same way. The recurrences are
 *                       adi_stage4_line's, operation for operation, so the
 *                       exact mode stays bit-identical to one domain.
 *
 * Streams and communicators. Halo exchanges run on the compute stream with
 * their own communicator (they sit between kernels that need their rows).
 * The pipelined sweeps post their sends and receives on a second stream
 * with a second communicator, joined to the compute stream by events, so a
 * rank sweeps chunk c+1 while chunk c's row is on its way. Each communicator
 * is used from one stream only (NCCL serialises a communicator's work; two
 * streams on one communicator can deadlock).
 *
 * Message order. NCCL pairs a rank's sends to a peer with the peer's receives
 * from it in issue order, without tags; an exchange therefore runs in two
 * groups, "up" (send the top rows to hi, receive the low ghosts from lo) and
 * "down", so a peer that is both lo and hi (two ranks, periodic) cannot pair
 * the wrong messages. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adiflow_gpu_vendor.h"
#if ADI_GPU_HIP
#include <rccl/rccl.h>
#else
#include <nccl.h>
#endif

#include "adiflow_block.h"
#include "kernels.cuh"
#include "block_hooks.cuh"
#include "../api/block_grid.cuh"

static const char *const nccl_advice =
  ADI_GPU_CCL_NAME " carries the halos between the GPUs: check that every rank has its own GPU (one rank per "
  "GPU), NCCL_DEBUG=WARN shows " ADI_GPU_CCL_NAME "'s own diagnosis";

#define NCCL_CHECK(call)                                                                      \
  do {                                                                                        \
    ncclResult_t r_ = (call);                                                                 \
    if (r_ != ncclSuccess)                                                                    \
      return adi_gpu_fail_msg(ADI_ERR_CUDA, "%s:%d: %s failed: " ADI_GPU_CCL_NAME " error %d (%s); %s", \
                              __FILE__, __LINE__, #call, (int)r_, ncclGetErrorString(r_), nccl_advice); \
  } while (0)

enum { K_HALO_Q, K_HALO_LAM, K_SWEEP, K_OV_WORK, K_OV_WAIT, K_COUNT };

/* The block state of one grid: the hooks' ctx (hooks.ctx points back here),
 * owned by the grid from adi_gpu_block_init on, freed by block_destroy when
 * adi_gpu_finalize frees the grid. */
struct block_state {
  int ready;
  adi_block_hooks hooks;
  int rank, nranks, exact, chunks;
  int nbr[4], swp[4];                  /* j lo, j hi, k lo, k hi; -1 none */
  ncclComm_t comm_halo, comm_pipe;
  int shared_comms;                    /* a coarse multigrid level's: the fine block's communicators */
  cudaStream_t pipe;                   /* the pipelined sweeps' NCCL stream */
  cudaStream_t halo;                   /* the halo exchanges' NCCL stream */
  cudaEvent_t ev_packed, ev_unpacked[2][4];
  int pending_exchange[2][4];          /* [q or lam][d]: begun, not yet ended */
  double *sl, *sh, *rl, *rh;           /* halo buffers, halo_cap doubles each */
  size_t halo_cap;
  double *psend, *precv;               /* 2*nch_max chunk rows each */
  size_t chunk_cap;                    /* doubles per chunk row */
  int nch_max;
  cudaEvent_t *ev_recv, *ev_sent;      /* 2*nch_max each */
  cudaEvent_t ev_start, ev_done;
  /* ADIFLOW_GPU_TIMING: elapsed time of each operation, by kind and d */
  int timing;
  cudaEvent_t t0[K_COUNT][4], t1[K_COUNT][4];
  int pending[K_COUNT][4];
  double ms[K_COUNT][4];
  long long calls[K_COUNT][4];
};

/* ---------------------------------------------------------------- kernels */

enum { PACK_BLOCK = 256 };

/* Copy nl rows (a0 .. a0+nl-1, local numbering) across direction d of
 * ncomp consecutive fields starting at a into buf, or back (unpack). The
 * whole cross-section: i raw 0..ldi-1, the other direction raw 0..ncross-1. */
__global__ void block_slab_copy(double *a, ptrdiff_t npts, int ldi, int ldj, int ncross, int d, int a0, int nl,
                                int ncomp, double *buf, int unpack)
{
  long long t = (long long)blockIdx.x*blockDim.x + threadIdx.x;
  long long plane = (long long)ldi*ncross, per = plane*nl, r;
  int c, l, x, ii, row;
  ptrdiff_t p;
  if (t >= per*ncomp) return;
  c = (int)(t/per); r = t%per;
  l = (int)(r/plane); r = r%plane;
  x = (int)(r/ldi); ii = (int)(r%ldi);
  row = a0 + l + 1;                     /* raw index of local row a0 + l */
  p = d == 2 ? ii + (ptrdiff_t)ldi*(row + (ptrdiff_t)ldj*x) : ii + (ptrdiff_t)ldi*(x + (ptrdiff_t)ldj*row);
  p += (ptrdiff_t)c*npts;
  if (unpack) a[p] = buf[t];
  else buf[t] = a[p];
}

/* Row a (local, along d) of the characteristic variables of the lines
 * i = 1..ni, c = clo..chi into buf (or back), in adi_stage4_pipelined's
 * pack_row order: i fastest, then m, then c. */
__global__ void block_row_copy(adi_view v, int d, int a, int clo, int chi, double *buf, int unpack)
{
  int i = 1 + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int c = clo + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  int m = 1 + (int)blockIdx.z, pc[3], p;
  size_t idx;
  if (i > v.ni || c > chi) return;
  cell_index(d, a, i, c, pc);
  p = adi_pt(&v, pc[0], pc[1], pc[2]);
  idx = ((size_t)(c - clo)*5 + (size_t)(m - 1))*(size_t)v.ni + (size_t)(i - 1);
  if (unpack) ADI_F(&v, wk, WK_WCH + m, p) = buf[idx];
  else buf[idx] = ADI_F(&v, wk, WK_WCH + m, p);
}

/* The recurrences of one chunk of lines, one thread per (line,
 * characteristic variable): adi_stage4_fwd_var / adi_stage4_bwd_var of
 * cuda/common/mpi_decomp.h (tests/unit/test_block_sweep.c checks them against
 * adi_stage4_line on the CPU). */
__global__ void block_sweep_fwd(adi_view v, int d, int clo, int chi, int has_lo)
{
  int i = 1 + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int c = clo + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  if (i > v.ni || c > chi) return;
  adi_stage4_fwd_var(&v, d, i, c, 1 + (int)blockIdx.z, has_lo);
}

__global__ void block_sweep_bwd(adi_view v, int d, int clo, int chi, int has_hi)
{
  int i = 1 + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int c = clo + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  if (i > v.ni || c > chi) return;
  adi_stage4_bwd_var(&v, d, i, c, 1 + (int)blockIdx.z, has_hi);
}

/* ---------------------------------------------------------------- timing */

static int timing_begin(struct block_state *b, int kind, int d, cudaStream_t s)
{
  float t;
  if (!b->timing) return ADI_OK;
  if (b->pending[kind][d]) {           /* the previous one of this kind is long done */
    ADI_GPU_CHECK(cudaEventSynchronize(b->t1[kind][d]));
    ADI_GPU_CHECK(cudaEventElapsedTime(&t, b->t0[kind][d], b->t1[kind][d]));
    b->ms[kind][d] += (double)t;
    b->calls[kind][d]++;
    b->pending[kind][d] = 0;
  }
  ADI_GPU_CHECK(cudaEventRecord(b->t0[kind][d], s));
  return ADI_OK;
}

static int timing_end(struct block_state *b, int kind, int d, cudaStream_t s)
{
  if (!b->timing) return ADI_OK;
  ADI_GPU_CHECK(cudaEventRecord(b->t1[kind][d], s));
  b->pending[kind][d] = 1;
  return ADI_OK;
}

/* ---------------------------------------------------------------- halos */

static int slab_copy(const adi_view *v, double *a, int d, int a0, int nl, int ncomp, double *buf, int unpack,
                     cudaStream_t s)
{
  int ncross = d == 2 ? v->ldk : v->ldj;
  long long total = (long long)v->ldi*ncross*nl*ncomp;
  block_slab_copy<<<(unsigned)((total + PACK_BLOCK - 1)/PACK_BLOCK), PACK_BLOCK, 0, s>>>(
    a, v->npts, v->ldi, v->ldj, ncross, d, a0, nl, ncomp, buf, unpack);
  ADI_LAUNCH_CHECK("block_slab_copy");
  return ADI_OK;
}

/* fortran/mpi_decomp.f90's halo_exchange on the GPU, in two halves so that
 * work that does not touch the ghost rows can run in between:
 *   exchange_begin  packs the nl rows next to each face on the compute
 *                   stream s, then the halo stream sends, receives and
 *                   unpacks them into the ghost rows
 *   exchange_end    makes s wait for the unpack
 * All halo NCCL calls go through the halo stream (one stream per
 * communicator). what: 0 = q (2 layers, halo neighbours, periodic wrap
 * included), 1 = lam+- (1 layer of the six fields from WK_LAMP, sweep
 * neighbours). */
static int exchange_begin(void *ctx, const adi_view *v, int what, int d, cudaStream_t s)
{
  struct block_state *b = (struct block_state *)ctx;
  double *a = what == 0 ? v->q : v->wk + (ptrdiff_t)WK_LAMP*v->npts;
  int ncomp = what == 0 ? ADI_NVAR : 6, nl = what == 0 ? 2 : 1;
  int lo = what == 0 ? b->nbr[2*(d - 2)] : b->swp[2*(d - 2)];
  int hi = what == 0 ? b->nbr[2*(d - 2) + 1] : b->swp[2*(d - 2) + 1];
  int kind = what == 0 ? K_HALO_Q : K_HALO_LAM;
  int n = d == 2 ? v->nj : v->nk, ncross = d == 2 ? v->ldk : v->ldj, rc;
  size_t cnt = (size_t)v->ldi*ncross*nl*ncomp;
  if (cnt > b->halo_cap)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "internal error: halo of %zu doubles exceeds the buffers (%zu)", cnt,
                            b->halo_cap);
  b->pending_exchange[what][d] = lo >= 0 || hi >= 0;
  if (!b->pending_exchange[what][d]) return ADI_OK;
  if (lo >= 0 && (rc = slab_copy(v, a, d, 1, nl, ncomp, b->sl, 0, s)) != ADI_OK) return rc;
  if (hi >= 0 && (rc = slab_copy(v, a, d, n - nl + 1, nl, ncomp, b->sh, 0, s)) != ADI_OK) return rc;
  ADI_GPU_CHECK(cudaEventRecord(b->ev_packed, s));
  ADI_GPU_CHECK(cudaStreamWaitEvent(b->halo, b->ev_packed, 0));
  if ((rc = timing_begin(b, kind, d, b->halo)) != ADI_OK) return rc;
  if ((rc = timing_begin(b, K_OV_WORK, d, s)) != ADI_OK) return rc;
  /* up: top rows to hi, low ghosts from lo */
  NCCL_CHECK(ncclGroupStart());
  if (hi >= 0) NCCL_CHECK(ncclSend(b->sh, cnt, ncclDouble, hi, b->comm_halo, b->halo));
  if (lo >= 0) NCCL_CHECK(ncclRecv(b->rl, cnt, ncclDouble, lo, b->comm_halo, b->halo));
  NCCL_CHECK(ncclGroupEnd());
  /* down: bottom rows to lo, high ghosts from hi */
  NCCL_CHECK(ncclGroupStart());
  if (lo >= 0) NCCL_CHECK(ncclSend(b->sl, cnt, ncclDouble, lo, b->comm_halo, b->halo));
  if (hi >= 0) NCCL_CHECK(ncclRecv(b->rh, cnt, ncclDouble, hi, b->comm_halo, b->halo));
  NCCL_CHECK(ncclGroupEnd());
  if (lo >= 0 && (rc = slab_copy(v, a, d, 1 - nl, nl, ncomp, b->rl, 1, b->halo)) != ADI_OK) return rc;
  if (hi >= 0 && (rc = slab_copy(v, a, d, n + 1, nl, ncomp, b->rh, 1, b->halo)) != ADI_OK) return rc;
  if ((rc = timing_end(b, kind, d, b->halo)) != ADI_OK) return rc;
  ADI_GPU_CHECK(cudaEventRecord(b->ev_unpacked[what][d], b->halo));
  return ADI_OK;
}

static int exchange_end(void *ctx, const adi_view *v, int what, int d, cudaStream_t s)
{
  struct block_state *b = (struct block_state *)ctx;
  int rc;
  (void)v;
  if (!b->pending_exchange[what][d]) return ADI_OK;
  b->pending_exchange[what][d] = 0;
  /* K_OV_WORK: what s ran while the halo was in flight; K_OV_WAIT: what it
   * then still had to wait (the part of the exchange not hidden) */
  if ((rc = timing_end(b, K_OV_WORK, d, s)) != ADI_OK) return rc;
  if ((rc = timing_begin(b, K_OV_WAIT, d, s)) != ADI_OK) return rc;
  ADI_GPU_CHECK(cudaStreamWaitEvent(s, b->ev_unpacked[what][d], 0));
  return timing_end(b, K_OV_WAIT, d, s);
}

/* the whole exchange at once (the merged family, and the directions with
 * nothing to overlap) */
static int halo_q(void *ctx, const adi_view *v, int d, cudaStream_t s)
{
  int rc = exchange_begin(ctx, v, 0, d, s);
  return rc != ADI_OK ? rc : exchange_end(ctx, v, 0, d, s);
}

static int halo_lam(void *ctx, const adi_view *v, int d, cudaStream_t s)
{
  int rc = exchange_begin(ctx, v, 1, d, s);
  return rc != ADI_OK ? rc : exchange_end(ctx, v, 1, d, s);
}

/* ---------------------------------------------------------------- sweeps */

/* chunk cc (0-based) of ncr lines over nch chunks, mpi_decomp's split_range */
static void chunk_range(int ncr, int nch, int cc, int *clo, int *chi)
{
  int cnt = ncr/nch + (cc < ncr%nch ? 1 : 0);
  int off = cc*(ncr/nch) + (cc < ncr%nch ? cc : ncr%nch);
  *clo = off + 1;
  *chi = off + cnt;
}

static dim3 line_grid(const adi_view *v, int clo, int chi)
{
  return dim3((unsigned)((v->ni + 31)/32), (unsigned)((chi - clo + 1 + 3)/4), 5);
}

static int sweep_pipelined(void *ctx, const adi_view *v, int d, cudaStream_t s)
{
  struct block_state *b = (struct block_state *)ctx;
  int n = d == 2 ? v->nj : v->nk, ncr = d == 2 ? v->nk : v->nj;
  int nch = b->chunks < ncr ? b->chunks : ncr, lo = b->swp[2*(d - 2)], hi = b->swp[2*(d - 2) + 1];
  int c, clo, chi, rc, dir;
  size_t cnt;
  dim3 blk(32, 4, 1);
  if (nch < 1) nch = 1;
  rc = timing_begin(b, K_SWEEP, d, s);
  if (rc != ADI_OK) return rc;
  /* the NCCL stream starts when the compute stream reaches the sweep: the
   * previous sweep's unpacks have read their buffers by then */
  ADI_GPU_CHECK(cudaEventRecord(b->ev_start, s));
  ADI_GPU_CHECK(cudaStreamWaitEvent(b->pipe, b->ev_start, 0));
  for (dir = 0; dir < 2; ++dir) {            /* 0: forward (upwards), 1: backward (downwards) */
    int from = dir == 0 ? lo : hi, to = dir == 0 ? hi : lo;
    for (c = 0; c < nch; ++c) {
      int slot = dir*nch + c;
      double *rb = b->precv + (size_t)slot*b->chunk_cap, *sb = b->psend + (size_t)slot*b->chunk_cap;
      chunk_range(ncr, nch, c, &clo, &chi);
      cnt = (size_t)v->ni*5*(size_t)(chi - clo + 1);
      if (from >= 0) {
        NCCL_CHECK(ncclRecv(rb, cnt, ncclDouble, from, b->comm_pipe, b->pipe));
        ADI_GPU_CHECK(cudaEventRecord(b->ev_recv[slot], b->pipe));
        ADI_GPU_CHECK(cudaStreamWaitEvent(s, b->ev_recv[slot], 0));
        block_row_copy<<<line_grid(v, clo, chi), blk, 0, s>>>(*v, d, dir == 0 ? 0 : n + 1, clo, chi, rb, 1);
        ADI_LAUNCH_CHECK("block_row_copy (unpack)");
      }
      if (dir == 0) {
        block_sweep_fwd<<<line_grid(v, clo, chi), blk, 0, s>>>(*v, d, clo, chi, from >= 0);
        ADI_LAUNCH_CHECK("block_sweep_fwd");
      } else {
        block_sweep_bwd<<<line_grid(v, clo, chi), blk, 0, s>>>(*v, d, clo, chi, from >= 0);
        ADI_LAUNCH_CHECK("block_sweep_bwd");
      }
      if (to >= 0) {
        block_row_copy<<<line_grid(v, clo, chi), blk, 0, s>>>(*v, d, dir == 0 ? n : 1, clo, chi, sb, 0);
        ADI_LAUNCH_CHECK("block_row_copy (pack)");
        ADI_GPU_CHECK(cudaEventRecord(b->ev_sent[slot], s));
        ADI_GPU_CHECK(cudaStreamWaitEvent(b->pipe, b->ev_sent[slot], 0));
        NCCL_CHECK(ncclSend(sb, cnt, ncclDouble, to, b->comm_pipe, b->pipe));
      }
    }
  }
  /* join: stage 5 and the next sweep's packs wait for the sends and receives */
  ADI_GPU_CHECK(cudaEventRecord(b->ev_done, b->pipe));
  ADI_GPU_CHECK(cudaStreamWaitEvent(s, b->ev_done, 0));
  return timing_end(b, K_SWEEP, d, s);
}

/* ---------------------------------------------------------------- set-up */

int adi_gpu_device_count(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

int adi_gpu_block_make_ids(char ids[ADI_BLOCK_ID_BYTES])
{
  ncclUniqueId a, b;
  NCCL_CHECK(ncclGetUniqueId(&a));
  NCCL_CHECK(ncclGetUniqueId(&b));
  memcpy(ids, &a, sizeof a);
  memcpy(ids + ADI_BLOCK_ID_BYTES/2, &b, sizeof b);
  return ADI_OK;
}

/* The start-up thread's arguments and results. Heap-allocated: a thread
 * that misses its deadline keeps running and still writes here, so the
 * struct is left to it then (the driver stops the run); otherwise
 * init_comms frees it. */
struct comm_init {
  ncclUniqueId id[2];
  int nranks, rank, device;
  ncclComm_t comm[2];
  ncclResult_t res;
  cudaError_t cerr;
};

static void *comm_init_thread(void *p)
{
  struct comm_init *a = (struct comm_init *)p;
  a->cerr = cudaSetDevice(a->device);
  if (a->cerr != cudaSuccess) return NULL;
  a->res = ncclCommInitRank(&a->comm[0], a->nranks, a->id[0], a->rank);
  if (a->res == ncclSuccess) a->res = ncclCommInitRank(&a->comm[1], a->nranks, a->id[1], a->rank);
  return NULL;
}

/* ncclCommInitRank waits for every rank; a thread with a deadline turns a
 * missing rank into an error message instead of a hang */
static int init_comms(struct block_state *b, const char ids[ADI_BLOCK_ID_BYTES], int rank, int nranks, int device,
                      double timeout_s)
{
  struct comm_init *a = (struct comm_init *)calloc(1, sizeof *a);
  pthread_t th;
  struct timespec dl;
  int err;
  if (a == NULL)
    return adi_gpu_fail_msg(ADI_ERR_MEMORY, "%s:%d: out of host memory for the " ADI_GPU_CCL_NAME " start-up",
                            __FILE__, __LINE__);
  memcpy(&a->id[0], ids, sizeof a->id[0]);
  memcpy(&a->id[1], ids + ADI_BLOCK_ID_BYTES/2, sizeof a->id[1]);
  a->rank = rank; a->nranks = nranks; a->device = device;
  a->res = ncclSuccess; a->cerr = cudaSuccess;
  if (pthread_create(&th, NULL, comm_init_thread, a) != 0) {
    free(a);
    return adi_gpu_fail_msg(ADI_ERR_CUDA, "%s:%d: cannot start the " ADI_GPU_CCL_NAME " start-up thread", __FILE__,
                            __LINE__);
  }
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += (time_t)(timeout_s > 1.0 ? timeout_s : 1.0);
  err = pthread_timedjoin_np(th, NULL, &dl);
  if (err == ETIMEDOUT) {
    /* the thread still runs and writes into a: left to it (the driver stops every rank) */
    pthread_detach(th);
    return adi_gpu_fail_msg(ADI_ERR_CUDA, "%s:%d: the " ADI_GPU_CCL_NAME " start-up of rank %d did not finish "
                            "within %.0f s (a rank that never arrived, or GPUs that cannot reach each other); "
                            "ADIFLOW_MPI_STARTUP_TIMEOUT sets the limit", __FILE__, __LINE__, rank, timeout_s);
  }
  b->comm_halo = a->comm[0];
  b->comm_pipe = a->comm[1];
  {
    struct comm_init r = *a;
    free(a);
    if (r.cerr != cudaSuccess)
      return adi_gpu_fail(r.cerr, ADI_GPU_API_PREFIX "SetDevice in the " ADI_GPU_CCL_NAME " start-up", __FILE__,
                          __LINE__);
    NCCL_CHECK(r.res);
  }
  return ADI_OK;
}

/* NCCL connects to a peer at the first send or receive; without this, the
 * first iteration carries the connection set-up (about 0.2 s measured on
 * two H200s). One double each way with every neighbour, both communicators. */
static int warm_up(struct block_state *b)
{
  int peers[8], np = 0, f, k, c, dup;
  ncclComm_t comms[2] = {b->comm_halo, b->comm_pipe};
  cudaStream_t streams[2] = {b->halo, b->pipe};
  for (f = 0; f < 8; ++f) {
    int r = f < 4 ? b->nbr[f] : b->swp[f - 4];
    if (r < 0) continue;
    for (dup = 0, k = 0; k < np; ++k) dup |= peers[k] == r;
    if (!dup) peers[np++] = r;
  }
  if (np == 0) return ADI_OK;
  for (c = 0; c < 2; ++c) {
    NCCL_CHECK(ncclGroupStart());
    for (k = 0; k < np; ++k) {
      NCCL_CHECK(ncclSend(b->sl + k, 1, ncclDouble, peers[k], comms[c], streams[c]));
      NCCL_CHECK(ncclRecv(b->rl + k, 1, ncclDouble, peers[k], comms[c], streams[c]));
    }
    NCCL_CHECK(ncclGroupEnd());
  }
  ADI_GPU_CHECK(cudaStreamSynchronize(b->halo));
  ADI_GPU_CHECK(cudaStreamSynchronize(b->pipe));
  return ADI_OK;
}

static int alloc_buffers(struct block_state *b, const adi_solver_params *sp)
{
  int ldi = sp->ldi, ldj = sp->ldj, ldk = sp->ldk, s, kk, d;
  int ncr = sp->nj > sp->nk ? sp->nj : sp->nk;
  size_t cross = (size_t)(ldj > ldk ? ldj : ldk);
  b->halo_cap = (size_t)ldi*cross*(size_t)(2*ADI_NVAR > 6 ? 2*ADI_NVAR : 6);
  ADI_GPU_CHECK(cudaMalloc((void **)&b->sl, b->halo_cap*sizeof(double)));
  ADI_GPU_CHECK(cudaMalloc((void **)&b->sh, b->halo_cap*sizeof(double)));
  ADI_GPU_CHECK(cudaMalloc((void **)&b->rl, b->halo_cap*sizeof(double)));
  ADI_GPU_CHECK(cudaMalloc((void **)&b->rh, b->halo_cap*sizeof(double)));
  b->nch_max = b->chunks < ncr ? b->chunks : ncr;
  if (b->nch_max < 1) b->nch_max = 1;
  b->chunk_cap = (size_t)sp->ni*5*(size_t)(ncr/b->nch_max + 1);
  ADI_GPU_CHECK(cudaMalloc((void **)&b->psend, 2*(size_t)b->nch_max*b->chunk_cap*sizeof(double)));
  ADI_GPU_CHECK(cudaMalloc((void **)&b->precv, 2*(size_t)b->nch_max*b->chunk_cap*sizeof(double)));
  b->ev_recv = (cudaEvent_t *)calloc((size_t)(2*b->nch_max), sizeof(cudaEvent_t));
  b->ev_sent = (cudaEvent_t *)calloc((size_t)(2*b->nch_max), sizeof(cudaEvent_t));
  if (b->ev_recv == NULL || b->ev_sent == NULL) return adi_gpu_fail_msg(ADI_ERR_MEMORY, "out of host memory");
  for (s = 0; s < 2*b->nch_max; ++s) {
    ADI_GPU_CHECK(cudaEventCreateWithFlags(&b->ev_recv[s], cudaEventDisableTiming));
    ADI_GPU_CHECK(cudaEventCreateWithFlags(&b->ev_sent[s], cudaEventDisableTiming));
  }
  ADI_GPU_CHECK(cudaEventCreateWithFlags(&b->ev_start, cudaEventDisableTiming));
  ADI_GPU_CHECK(cudaEventCreateWithFlags(&b->ev_done, cudaEventDisableTiming));
  ADI_GPU_CHECK(cudaStreamCreateWithFlags(&b->pipe, cudaStreamNonBlocking));
  ADI_GPU_CHECK(cudaStreamCreateWithFlags(&b->halo, cudaStreamNonBlocking));
  ADI_GPU_CHECK(cudaEventCreateWithFlags(&b->ev_packed, cudaEventDisableTiming));
  for (s = 0; s < 2; ++s)
    for (d = 0; d < 4; ++d) ADI_GPU_CHECK(cudaEventCreateWithFlags(&b->ev_unpacked[s][d], cudaEventDisableTiming));
  if (b->timing)
    for (kk = 0; kk < K_COUNT; ++kk)
      for (d = 0; d < 4; ++d) {
        ADI_GPU_CHECK(cudaEventCreate(&b->t0[kk][d]));
        ADI_GPU_CHECK(cudaEventCreate(&b->t1[kk][d]));
      }
  return ADI_OK;
}

/* hooks.destroy: everything of the block state, whatever part of it
 * exists; called by adi_gpu_finalize after the grid's own clean-up */
static void block_destroy(void *ctx)
{
  struct block_state *b = (struct block_state *)ctx;
  int s, kk, d;
  if (b == NULL) return;
  if (b->comm_halo && !b->shared_comms) ncclCommDestroy(b->comm_halo);
  if (b->comm_pipe && !b->shared_comms) ncclCommDestroy(b->comm_pipe);
  if (b->sl) cudaFree(b->sl);
  if (b->sh) cudaFree(b->sh);
  if (b->rl) cudaFree(b->rl);
  if (b->rh) cudaFree(b->rh);
  if (b->psend) cudaFree(b->psend);
  if (b->precv) cudaFree(b->precv);
  for (s = 0; s < 2*b->nch_max; ++s) {
    if (b->ev_recv && b->ev_recv[s]) cudaEventDestroy(b->ev_recv[s]);
    if (b->ev_sent && b->ev_sent[s]) cudaEventDestroy(b->ev_sent[s]);
  }
  free(b->ev_recv); free(b->ev_sent);
  if (b->ev_start) cudaEventDestroy(b->ev_start);
  if (b->ev_done) cudaEventDestroy(b->ev_done);
  for (kk = 0; kk < K_COUNT; ++kk)
    for (d = 0; d < 4; ++d) {
      if (b->t0[kk][d]) cudaEventDestroy(b->t0[kk][d]);
      if (b->t1[kk][d]) cudaEventDestroy(b->t1[kk][d]);
    }
  if (b->pipe) cudaStreamDestroy(b->pipe);
  if (b->halo) cudaStreamDestroy(b->halo);
  if (b->ev_packed) cudaEventDestroy(b->ev_packed);
  for (s = 0; s < 2; ++s)
    for (d = 0; d < 4; ++d)
      if (b->ev_unpacked[s][d]) cudaEventDestroy(b->ev_unpacked[s][d]);
  memset(b, 0, sizeof *b);
  free(b);
}

/* The block state of a grid (fine or coarse level) with its hooks; the
 * grid, its buffers and its communicators come after (block_grid). */
static int block_state_new(struct block_state **out, const adi_solver_params *sp, const adi_gpu_settings *settings,
                           const int phys[6], const int off[3], const int nglob[3], const int nbr[4],
                           const int swp[4], int exact, int chunks, int rank, int nranks, int device)
{
  int f, d;
  struct block_state *b = (struct block_state *)calloc(1, sizeof *b);
  *out = NULL;
  if (b == NULL)
    return adi_gpu_fail_msg(ADI_ERR_MEMORY, "out of host memory for the block state (%zu bytes)", sizeof *b);
  b->rank = rank; b->nranks = nranks; b->exact = exact; b->chunks = chunks > 0 ? chunks : 1;
  for (f = 0; f < 4; ++f) { b->nbr[f] = nbr[f]; b->swp[f] = swp[f]; }
  b->hooks.ctx = b;
  b->hooks.exchange_q = halo_q;
  b->hooks.exchange_lam = halo_lam;
  b->hooks.exchange_begin = exchange_begin;
  b->hooks.exchange_end = exchange_end;
  b->hooks.overlap = adi_settings_flag("ADIFLOW_BLOCK_OVERLAP", settings ? settings->overlap : -1, 1);
  b->hooks.sweep = sweep_pipelined;
  b->hooks.destroy = block_destroy;
  for (f = 0; f < 6; ++f) b->hooks.phys[f] = phys[f] ? 1 : 0;
  for (f = 0; f < 3; ++f) { b->hooks.off[f] = off[f]; b->hooks.nglob[f] = nglob[f]; }
  if (!exact) {
    /* decoupled: every block is a domain of its own for the ADI (end
     * conditions at the block faces) */
    for (f = 0; f < 3; ++f) { b->hooks.off[f] = 0; }
    b->hooks.nglob[0] = sp->ni; b->hooks.nglob[1] = sp->nj; b->hooks.nglob[2] = sp->nk;
  }
  for (d = 0; d < 4; ++d) b->hooks.across[d] = b->hooks.has_halo[d] = 0;
  for (d = 2; d <= 3; ++d) b->hooks.has_halo[d] = nbr[2*(d - 2)] >= 0 || nbr[2*(d - 2) + 1] >= 0;
  for (d = 2; d <= 3; ++d)
    b->hooks.across[d] = exact && (swp[2*(d - 2)] >= 0 || swp[2*(d - 2) + 1] >= 0);
  b->hooks.device = device;
  /* ADIFLOW_GPU_TIMING (per-kernel times, synchronised every iteration) or
   * ADIFLOW_BLOCK_TIMING alone: events around the exchanges and sweeps only,
   * read one call later, so the run keeps its pace */
  b->timing = adi_settings_flag("ADIFLOW_GPU_TIMING", settings ? settings->timing : -1, 0) ||
              adi_settings_flag("ADIFLOW_BLOCK_TIMING", -1, 0);
  *out = b;
  return ADI_OK;
}

/* The grid of block state b (which it owns from here on) and b's buffers. */
static int block_grid(adi_gpu_grid **g, struct block_state *b, const adi_solver_params *sp, int kernels,
                      const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                      const double *q, int coarse_level)
{
  int rc = adi_gpu_init_block(g, &b->hooks, sp, kernels, settings, sf, sc, vol, q, coarse_level);
  if (rc != ADI_OK) {
    block_destroy(b);                    /* nothing of it was used yet */
    return rc;
  }
  rc = alloc_buffers(b, sp);
  if (rc != ADI_OK) {
    char msg[2048];
    adi_gpu_error_message(msg, (int)sizeof msg);
    adi_gpu_finalize(*g);
    *g = NULL;
    return adi_gpu_fail_msg(rc, "%s", msg);
  }
  return ADI_OK;
}

static int check_device(int rank, int device)
{
  int ndev = adi_gpu_device_count();
  if (device < 0 || device >= ndev)
    return adi_gpu_fail_msg(ADI_ERR_NO_DEVICE, "rank %d wants GPU %d of its node (one rank per GPU, by node-local "
                            "rank) but the node has %d usable GPU(s): start at most %d ranks per node",
                            rank, device, ndev, ndev);
  return ADI_OK;
}

int adi_gpu_block_init(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                       const adi_gpu_settings *settings, const double *sf,
                       const double *sc, const double *vol, const double *q, const int phys[6], const int off[3],
                       const int nglob[3], const int nbr[4], const int swp[4], int exact, int chunks,
                       int rank, int nranks, const char ids[ADI_BLOCK_ID_BYTES], int device,
                       double timeout_s)
{
  int rc;
  struct block_state *b;
  adi_gpu_grid *g = NULL;
  if (grid == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_init: no place for the grid handle (a null first argument)");
  *grid = NULL;
  if (sp == NULL || phys == NULL || off == NULL || nglob == NULL || nbr == NULL || swp == NULL || ids == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_init: a null argument");
  if ((rc = check_device(rank, device)) != ADI_OK) return rc;
  if ((rc = block_state_new(&b, sp, settings, phys, off, nglob, nbr, swp, exact, chunks, rank, nranks, device))
      != ADI_OK)
    return rc;
  /* from here on the grid owns b: adi_gpu_finalize frees both */
  if ((rc = block_grid(&g, b, sp, kernels, settings, sf, sc, vol, q, 0)) != ADI_OK) return rc;
  rc = init_comms(b, ids, rank, nranks, device, timeout_s);
  if (rc == ADI_OK) rc = warm_up(b);
  /* the driver stops every rank (MPI_Abort). The grid is left as it is, not
   * freed: ncclCommDestroy is an intra-node collective, and freeing buffers
   * that NCCL transfers may still use could hang this rank before it stops */
  if (rc != ADI_OK) return rc;
  b->ready = 1;
  *grid = g;
  return ADI_OK;
}

/* A coarse level's block uses the fine block's communicators: the cycle
 * (fortran/multigrid_cycle.f90) works on one level at a time, each level's
 * streams wait for the other level's work at every transfer
 * (cuda/api/multigrid.cu), and every rank issues the levels' exchanges in
 * the same order, so no two levels' NCCL operations are ever in flight
 * together. */
int adi_gpu_block_init_level(adi_gpu_grid **grid, adi_gpu_grid *fine, const adi_solver_params *sp, int kernels,
                             const adi_gpu_settings *settings, const double *sf, const double *sc,
                             const double *vol, const double *q, const int phys[6], const int off[3],
                             const int nglob[3], const int nbr[4], const int swp[4])
{
  const adi_block_hooks *h = NULL;
  struct block_state *b, *fb;
  adi_gpu_grid *g = NULL;
  int rc;
  if (grid == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_init_level: no place for the grid handle (a null first "
                            "argument)");
  *grid = NULL;
  if (sp == NULL || phys == NULL || off == NULL || nglob == NULL || nbr == NULL || swp == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_init_level: a null argument");
  if ((rc = adi_gpu_grid_block(fine, "adi_gpu_block_init_level", &h)) != ADI_OK) return rc;
  if (h == NULL || !((struct block_state *)h->ctx)->ready)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_init_level: the fine grid is no live block (made by "
                            "adi_gpu_block_init)");
  fb = (struct block_state *)h->ctx;
  if ((rc = block_state_new(&b, sp, settings, phys, off, nglob, nbr, swp, fb->exact, fb->chunks, fb->rank,
                            fb->nranks, fb->hooks.device)) != ADI_OK)
    return rc;
  if ((rc = block_grid(&g, b, sp, kernels, settings, sf, sc, vol, q, 1)) != ADI_OK) return rc;
  b->comm_halo = fb->comm_halo;
  b->comm_pipe = fb->comm_pipe;
  b->shared_comms = 1;
  b->ready = 1;
  *grid = g;
  return ADI_OK;
}

int adi_gpu_block_timing_report(adi_gpu_grid *grid, char *buf, int buflen)
{
  static const char *const what[K_COUNT] = {"halo q (2 layers, 5 fields)", "halo lam+- (1 layer, 6 fields)",
                                      "LU-ADI sweep, pipelined", "compute while a halo is in flight",
                                      "wait for a halo after that (exposed)"};
  const adi_block_hooks *h = NULL;
  struct block_state *b;
  int kk, d, pos = 0, rc;
  float t;
  if (buf == NULL || buflen < 1) return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_timing_report: no buffer");
  buf[0] = '\0';
  rc = adi_gpu_grid_block(grid, "adi_gpu_block_timing_report", &h);
  if (rc != ADI_OK) return rc;
  if (h == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_timing_report: the grid is no block (made by "
                            "adi_gpu_init, not adi_gpu_block_init)");
  b = (struct block_state *)h->ctx;
  if (!b->ready || !b->timing) return ADI_OK;
  for (kk = 0; kk < K_COUNT; ++kk)
    for (d = 2; d <= 3; ++d) {
      if (b->pending[kk][d]) {
        ADI_GPU_CHECK(cudaEventSynchronize(b->t1[kk][d]));
        ADI_GPU_CHECK(cudaEventElapsedTime(&t, b->t0[kk][d], b->t1[kk][d]));
        b->ms[kk][d] += (double)t;
        b->calls[kk][d]++;
        b->pending[kk][d] = 0;
      }
      if (b->calls[kk][d] == 0 || pos >= buflen - 1) continue;
      pos += snprintf(buf + pos, (size_t)(buflen - pos), "  rank %d  %-32s d=%d %10.4f ms per call, %lld calls\n",
                      b->rank, what[kk], d, b->ms[kk][d]/(double)b->calls[kk][d], b->calls[kk][d]);
      if (pos > buflen - 1) pos = buflen - 1;
    }
  return ADI_OK;
}

/* adi_gpu_finalize frees the grid, then the block state (hooks.destroy):
 * the order of before, grid first, communicators and buffers after */
int adi_gpu_block_finalize(adi_gpu_grid *grid)
{
  return adi_gpu_finalize(grid);
}
