/* Multi-GPU block mode (include/adiflow_block.h): one MPI rank per GPU, one
 * block of fortran/mpi_decomp.f90's j/k decomposition per rank. This file
 * is the transport-independent driver: the packing kernels, the hooks the
 * schedules call, the pipelined sweeps and the set-up. The messages
 * themselves go through a transport (cuda/multi/block_transport.cuh): NCCL
 * (RCCL on HIP) GPU to GPU, or MPI through host memory. Linked into
 * build/adiflow_mpi only (the serial build/adiflow needs neither).
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
 * Streams and channels. Halo exchanges run on the halo stream with the
 * transport's halo channel (they sit between kernels that need their rows).
 * The pipelined sweeps post their sends and receives on a second stream
 * with the pipe channel, joined to the compute stream by events, so a rank
 * sweeps chunk c+1 while chunk c's row is on its way. Each channel is used
 * from one stream only (NCCL serialises a communicator's work; two streams
 * on one communicator can deadlock).
 *
 * Message order. The transports pair a rank's sends to a peer with the
 * peer's receives from it in issue order, without tags; an exchange
 * whose lo and hi are one rank (two ranks, periodic) therefore runs in two
 * groups, "up" (send the top rows to hi, receive the low ghosts from lo)
 * and "down", so that rank cannot pair the wrong messages.
 *
 * Graphs. With a transport that only queues on the stream (NCCL) every
 * hook here is stream work joined back to the caller's stream, so the
 * merged schedule captures a block's iteration, exchanges and pipelined
 * sweeps included, in a graph (hooks.capturable).
 *
 * Which transport: rank 0 picks it (ADIFLOW_BLOCK_TRANSPORT, else the
 * build's default: NCCL where it was linked, MPI otherwise) and names it in
 * the ids every rank receives, so all ranks use the same one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "adiflow_gpu_vendor.h"
#include "adiflow_block.h"
#include "kernels.cuh"
#include "block_hooks.cuh"
#include "block_transport.cuh"
#include "block_sweep.cuh"
#include "block_chunks.h"
#include "../api/block_grid.cuh"

/* a transport call: the transport has recorded its failure (file:line) */
#define TX_CHECK(call)                    \
  do {                                    \
    int tx_rc_ = (call);                  \
    if (tx_rc_ != ADI_OK) return tx_rc_;  \
  } while (0)

/* the transports this build has, its default first */
enum { NTRANSPORTS = 1 + ADIFLOW_BLOCK_CCL };
static const adi_block_transport_ops *transport(int k)
{
  const adi_block_transport_ops *const list[NTRANSPORTS] = {
#if ADIFLOW_BLOCK_CCL
    adi_block_transport_nccl(),
#endif
    adi_block_transport_mpi(),
  };
  return list[k];
}

enum { K_HALO_Q, K_HALO_LAM, K_SWEEP, K_OV_WORK, K_OV_WAIT, K_COUNT };

/* The block state of one grid: the hooks' ctx (hooks.ctx points back here),
 * owned by the grid from adi_gpu_block_init on, freed by block_destroy when
 * adi_gpu_finalize frees the grid. */
struct block_state {
  int ready;
  adi_block_hooks hooks;
  int rank, nranks, exact, chunks;
  int nbr[4], swp[4];                  /* j lo, j hi, k lo, k hi; -1 none */
  const adi_block_transport_ops *tx;   /* the transport, and its state: */
  adi_block_transport *tp;
  int shared_transport;                /* a coarse multigrid level's: the fine block's */
  cudaStream_t pipe;                   /* the pipelined sweeps' stream (pipe channel) */
  cudaStream_t halo;                   /* the halo exchanges' stream (halo channel) */
  cudaEvent_t ev_packed, ev_unpacked[2][4];
  int pending_exchange[2][4];          /* [q or lam][d]: begun, not yet ended */
  double *sl, *sh, *rl, *rh;           /* halo buffers, halo_cap doubles each */
  size_t halo_cap;
  double *psend, *precv;               /* 2*nch_max chunk rows each */
  size_t chunk_cap;                    /* doubles per chunk row */
  int nch_max;
  cudaEvent_t *ev_recv, *ev_sent;      /* 2*nch_max each */
  cudaEvent_t ev_start, ev_done;
  /* the staged sweep (sweep_staged): its forward and backward chunks'
   * streams (highest priority) and the update's (lowest), a chunk's local
   * work done (nch_max), the streams' ends */
  cudaStream_t fwd_s, bwd_s, upd_s;
  cudaEvent_t *ev_local, ev_join[5];
  /* ADIFLOW_GPU_TIMING: elapsed time of each operation, by kind and d */
  int timing;
  cudaEvent_t t0[K_COUNT][4], t1[K_COUNT][4];
  int pending[K_COUNT][4];
  double ms[K_COUNT][4];
  long long calls[K_COUNT][4];
  /* the fine block's: a coarse level that runs whole on every rank
   * (adi_gpu_block_share_level): this rank's part packed, every rank's
   * received, at wat[r] doubles (r = 0..nranks) */
  double *wsend, *wrecv;
  size_t *wat;
  cudaEvent_t ev_whole;
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
 * All halo transfers go through the halo stream (one stream per
 * channel). what: 0 = q (2 layers, halo neighbours, periodic wrap
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
  /* up: top rows to hi, low ghosts from lo; then down: bottom rows to lo,
   * high ghosts from hi. One group (one NCCL kernel) where lo and hi are
   * different ranks, each peer then having one message each way; two where
   * one rank is both, and with a host-staged transport, whose staging
   * memory holds one direction's pair (reserve_staging) */
  TX_CHECK(b->tx->group_start(b->tp, ADI_CH_HALO));
  if (hi >= 0) TX_CHECK(b->tx->send(b->tp, ADI_CH_HALO, b->sh, cnt, hi, b->halo));
  if (lo >= 0) TX_CHECK(b->tx->recv(b->tp, ADI_CH_HALO, b->rl, cnt, lo, b->halo));
  if (lo == hi || !b->tx->stream_ordered) {
    TX_CHECK(b->tx->group_end(b->tp, ADI_CH_HALO));
    TX_CHECK(b->tx->group_start(b->tp, ADI_CH_HALO));
  }
  if (lo >= 0) TX_CHECK(b->tx->send(b->tp, ADI_CH_HALO, b->sl, cnt, lo, b->halo));
  if (hi >= 0) TX_CHECK(b->tx->recv(b->tp, ADI_CH_HALO, b->rh, cnt, hi, b->halo));
  TX_CHECK(b->tx->group_end(b->tp, ADI_CH_HALO));
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

/* A chunk's forward (dir 0) or backward sweep over the lines ilo..ihi x
 * clo..chi on stream st (block_sweep.cuh: rb, sb the rows from and for the
 * neighbours, NULL at the line's ends) */
static int sweep_chunk(const adi_view *v, int d, int dir, int ilo, int ihi, int clo, int chi, const double *rb,
                       double *sb, cudaStream_t st)
{
  block_sweep<<<block_sweep_grid(ilo, ihi, clo, chi), block_sweep_threads(), 0, st>>>(*v, d, dir, ilo, ihi, clo, chi,
                                                                                      rb, sb);
  ADI_LAUNCH_CHECK("block_sweep");
  return ADI_OK;
}

/* A pipeline step's hand-over on channel ch, whose stream is cs: once cs
 * reaches `done` (the step's sweep), its row sb of n doubles to rank `to`,
 * in one group with the next step's receive of nn doubles from rank `from`
 * into rb, whose arrival `arrived` then marks on cs (to, from: -1 none). A
 * receive alone (to -1) is posted at once. */
static int hand_over(struct block_state *b, int ch, cudaStream_t cs, cudaEvent_t done, const double *sb, size_t n,
                     int to, double *rb, size_t nn, int from, cudaEvent_t arrived)
{
  if (to >= 0) ADI_GPU_CHECK(cudaStreamWaitEvent(cs, done, 0));
  if (to < 0 && from < 0) return ADI_OK;
  TX_CHECK(b->tx->group_start(b->tp, ch));
  if (to >= 0) TX_CHECK(b->tx->send(b->tp, ch, sb, n, to, cs));
  if (from >= 0) TX_CHECK(b->tx->recv(b->tp, ch, rb, nn, from, cs));
  TX_CHECK(b->tx->group_end(b->tp, ch));
  if (from >= 0) ADI_GPU_CHECK(cudaEventRecord(arrived, cs));
  return ADI_OK;
}

/* Step x of a pipelined sweep along d: the forward chunks 0..nch-1 are
 * steps 0..nch-1, the backward ones nch..2*nch-1; from/to: the ranks the
 * step's row comes from and goes to (-1: the line's end), its chunk's
 * lines and the doubles of its row. */
struct pipe_step { int dir, clo, chi, from, to; size_t cnt; };

static struct pipe_step pipe_step_of(const struct block_state *b, const adi_view *v, int d, int nch, int x)
{
  struct pipe_step p;
  int ncr = d == 2 ? v->nk : v->nj, lo = b->swp[2*(d - 2)], hi = b->swp[2*(d - 2) + 1];
  p.dir = x/nch;
  chunk_range(ncr, nch, x%nch, &p.clo, &p.chi);
  p.from = p.dir == 0 ? lo : hi;
  p.to = p.dir == 0 ? hi : lo;
  p.cnt = (size_t)v->ni*5*(size_t)(p.chi - p.clo + 1);
  return p;
}

/* The pipelined sweep: the forward chunks upwards, then the backward ones
 * downwards. Each step's send is in one group with the next step's
 * receive, so that a rank in the middle of the pipe pays one hand-over a
 * step, not a send and then a receive; a receive that follows no send of
 * the rank's own is posted at once, ahead of the sweeps (its own slot of
 * precv). The pipe stream starts when the compute stream reaches the
 * sweep: the previous sweep's kernels have read its receive buffers by
 * then. */
static int sweep_pipelined(void *ctx, const adi_view *v, int d, cudaStream_t s)
{
  struct block_state *b = (struct block_state *)ctx;
  int ncr = d == 2 ? v->nk : v->nj;
  int nch = pipe_chunks(b->chunks, v->ni, ncr), nst = 2*nch, x, rc;
  struct pipe_step p = pipe_step_of(b, v, d, nch, 0), q;
  rc = timing_begin(b, K_SWEEP, d, s);
  if (rc != ADI_OK) return rc;
  ADI_GPU_CHECK(cudaEventRecord(b->ev_start, s));
  ADI_GPU_CHECK(cudaStreamWaitEvent(b->pipe, b->ev_start, 0));
  if ((rc = hand_over(b, ADI_CH_PIPE, b->pipe, NULL, NULL, 0, -1, b->precv, p.cnt, p.from, b->ev_recv[0])) != ADI_OK)
    return rc;
  for (x = 0; x < nst; ++x, p = q) {
    double *rb = b->precv + (size_t)x*b->chunk_cap, *sb = b->psend + (size_t)x*b->chunk_cap;
    int next = x + 1 < nst;
    q = next ? pipe_step_of(b, v, d, nch, x + 1) : p;
    next = next && q.from >= 0;
    if (p.from >= 0) ADI_GPU_CHECK(cudaStreamWaitEvent(s, b->ev_recv[x], 0));
    rc = sweep_chunk(v, d, p.dir, 1, v->ni, p.clo, p.chi, p.from >= 0 ? rb : NULL, p.to >= 0 ? sb : NULL, s);
    if (rc != ADI_OK) return rc;
    if (p.to >= 0) ADI_GPU_CHECK(cudaEventRecord(b->ev_sent[x], s));
    rc = hand_over(b, ADI_CH_PIPE, b->pipe, b->ev_sent[x], sb, p.cnt, p.to, rb + b->chunk_cap, q.cnt,
                   next ? q.from : -1, next ? b->ev_recv[x + 1] : NULL);
    if (rc != ADI_OK) return rc;
  }
  /* join: stage 5 and the next sweep's packs wait for the sends and receives */
  ADI_GPU_CHECK(cudaEventRecord(b->ev_done, b->pipe));
  ADI_GPU_CHECK(cudaStreamWaitEvent(s, b->ev_done, 0));
  return timing_end(b, K_SWEEP, d, s);
}

/* hooks.sweep_staged (d = 3; block_hooks.cuh): chunk c is the lines with i
 * in its range, all j. The local work of every chunk is queued on s in
 * order; the forward chunks on fwd_s, each after its local work and the
 * row from below; the backward chunks on bwd_s, each after the rank's own
 * forward chunk and the row from above; each chunk's update on upd_s
 * after its backward chunk. The forward rows travel on the pipe channel
 * (pipe stream), the backward rows on the halo channel (halo stream: no
 * exchange is in flight between the boundary fill's exchanges and the
 * ADI's end), each channel's sends and receives in chunk order, grouped as
 * in sweep_pipelined. All of it starts when s reaches the sweep and joins
 * s at its end. */
static int sweep_staged(void *ctx, const adi_view *v, int d, cudaStream_t s, const adi_stage_work *w)
{
  struct block_state *b = (struct block_state *)ctx;
  int units = stage_units(b->chunks, v->ni, v->nj), nch = stage_chunks(b->chunks, v->ni, v->nj);
  int lo = b->swp[2], hi = b->swp[3], c, rc, ilo[ADI_STAGE_MAX], ihi[ADI_STAGE_MAX];
  cudaStream_t st[5] = {b->pipe, b->halo, b->fwd_s, b->bwd_s, b->upd_s};
  size_t cnt[ADI_STAGE_MAX];
  if (d != 3 || nch > b->nch_max || nch > ADI_STAGE_MAX)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "internal error: a staged sweep along d = %d in %d chunks", d, nch);
  for (c = 0; c < nch; ++c) {
    stage_range(v->ni, units, c, &ilo[c], &ihi[c]);
    cnt[c] = stage_rows(ilo[c], ihi[c], v->nj);
  }
  rc = timing_begin(b, K_SWEEP, d, s);
  if (rc != ADI_OK) return rc;
  ADI_GPU_CHECK(cudaEventRecord(b->ev_start, s));
  for (c = 0; c < 5; ++c) ADI_GPU_CHECK(cudaStreamWaitEvent(st[c], b->ev_start, 0));
  /* every chunk's local work, in order */
  for (c = 0; c < nch; ++c) {
    if ((rc = w->local(w->ctx, ilo[c], ihi[c], s)) != ADI_OK) return rc;
    ADI_GPU_CHECK(cudaEventRecord(b->ev_local[c], s));
  }
  /* forward: slots 0..nch-1 of precv and psend */
  if ((rc = hand_over(b, ADI_CH_PIPE, b->pipe, NULL, NULL, 0, -1, b->precv, cnt[0], lo, b->ev_recv[0])) != ADI_OK)
    return rc;
  for (c = 0; c < nch; ++c) {
    double *rb = b->precv + (size_t)c*b->chunk_cap, *sb = b->psend + (size_t)c*b->chunk_cap;
    int next = c + 1 < nch && lo >= 0;
    ADI_GPU_CHECK(cudaStreamWaitEvent(b->fwd_s, b->ev_local[c], 0));
    if (lo >= 0) ADI_GPU_CHECK(cudaStreamWaitEvent(b->fwd_s, b->ev_recv[c], 0));
    rc = sweep_chunk(v, d, 0, ilo[c], ihi[c], 1, v->nj, lo >= 0 ? rb : NULL, hi >= 0 ? sb : NULL, b->fwd_s);
    if (rc != ADI_OK) return rc;
    ADI_GPU_CHECK(cudaEventRecord(b->ev_sent[c], b->fwd_s));
    rc = hand_over(b, ADI_CH_PIPE, b->pipe, b->ev_sent[c], sb, cnt[c], hi, rb + b->chunk_cap, next ? cnt[c + 1] : 0,
                   next ? lo : -1, next ? b->ev_recv[c + 1] : NULL);
    if (rc != ADI_OK) return rc;
  }
  /* backward: slots nch..2*nch-1 */
  rc = hand_over(b, ADI_CH_HALO, b->halo, NULL, NULL, 0, -1, b->precv + (size_t)nch*b->chunk_cap, cnt[0], hi,
                 b->ev_recv[nch]);
  if (rc != ADI_OK) return rc;
  for (c = 0; c < nch; ++c) {
    int x = nch + c, next = c + 1 < nch && hi >= 0;
    double *rb = b->precv + (size_t)x*b->chunk_cap, *sb = b->psend + (size_t)x*b->chunk_cap;
    ADI_GPU_CHECK(cudaStreamWaitEvent(b->bwd_s, b->ev_sent[c], 0));
    if (hi >= 0) ADI_GPU_CHECK(cudaStreamWaitEvent(b->bwd_s, b->ev_recv[x], 0));
    rc = sweep_chunk(v, d, 1, ilo[c], ihi[c], 1, v->nj, hi >= 0 ? rb : NULL, lo >= 0 ? sb : NULL, b->bwd_s);
    if (rc != ADI_OK) return rc;
    ADI_GPU_CHECK(cudaEventRecord(b->ev_sent[x], b->bwd_s));
    ADI_GPU_CHECK(cudaStreamWaitEvent(b->upd_s, b->ev_sent[x], 0));
    if ((rc = w->update(w->ctx, ilo[c], ihi[c], b->upd_s)) != ADI_OK) return rc;
    rc = hand_over(b, ADI_CH_HALO, b->halo, b->ev_sent[x], sb, cnt[c], lo, rb + b->chunk_cap, next ? cnt[c + 1] : 0,
                   next ? hi : -1, next ? b->ev_recv[x + 1] : NULL);
    if (rc != ADI_OK) return rc;
  }
  /* join: the iteration's next steps wait for every stream of the sweep */
  for (c = 0; c < 5; ++c) {
    ADI_GPU_CHECK(cudaEventRecord(b->ev_join[c], st[c]));
    ADI_GPU_CHECK(cudaStreamWaitEvent(s, b->ev_join[c], 0));
  }
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

/* ADIFLOW_BLOCK_TRANSPORT's choice among this build's transports (unset
 * or empty: the default) */
static int pick_transport(const adi_block_transport_ops **tx)
{
  const char *want = getenv("ADIFLOW_BLOCK_TRANSPORT");
  char have[64];
  int k, pos = 0;
  *tx = transport(0);
  /* ranks sharing GPUs (check_device): NCCL refuses two ranks on one GPU,
   * host memory carries their halos */
  if ((want == NULL || want[0] == '\0') && adi_settings_flag("ADIFLOW_BLOCK_SHARE_GPU", -1, 0)) want = "mpi";
  if (want == NULL || want[0] == '\0') return ADI_OK;
  /* RCCL is NCCL's API: either word names the collective library */
  if (strcasecmp(want, "rccl") == 0) want = "nccl";
  for (k = 0; k < NTRANSPORTS; ++k)
    if (strcasecmp(want, transport(k)->word) == 0) {
      *tx = transport(k);
      return ADI_OK;
    }
  have[0] = '\0';
  for (k = 0; k < NTRANSPORTS; ++k)
    pos += snprintf(have + pos, sizeof have - (size_t)pos, "%s%s", k ? ", " : "", transport(k)->word);
  return adi_gpu_fail_msg(ADI_ERR_USAGE, "ADIFLOW_BLOCK_TRANSPORT=%s: this build carries the GPU blocks' halos "
                          "with %s (unset: %s)%s", want, have, transport(0)->word,
#if ADIFLOW_BLOCK_CCL
                          ""
#else
                          "; this build has no " ADI_GPU_CCL_NAME " (hip/README.md says which builds have it)"
#endif
                          );
}

int adi_gpu_block_transport_name(char *buf, int buflen)
{
  const adi_block_transport_ops *tx;
  int rc = pick_transport(&tx);
  if (buf == NULL || buflen < 1)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_transport_name: no buffer");
  snprintf(buf, (size_t)buflen, "%s", rc == ADI_OK ? tx->name : "?");
  return rc;
}

int adi_gpu_block_make_ids(char ids[ADI_BLOCK_ID_BYTES])
{
  const adi_block_transport_ops *tx;
  memset(ids, 0, ADI_BLOCK_ID_BYTES);
  TX_CHECK(pick_transport(&tx));
  ids[0] = tx->key;
  return tx->make_ids(ids + ADI_BLOCK_ID_OFFSET);
}

int adi_block_transport_open(const char ids[ADI_BLOCK_ID_BYTES], int rank, int nranks, int device, double timeout_s,
                             const adi_block_transport_ops **tx, adi_block_transport **tp)
{
  int k;
  for (k = 0; k < NTRANSPORTS; ++k)
    if (ids[0] == transport(k)->key) {
      *tx = transport(k);
      return (*tx)->open(tp, ids + ADI_BLOCK_ID_OFFSET, rank, nranks, device, timeout_s);
    }
  return adi_gpu_fail_msg(ADI_ERR_USAGE, "rank %d: rank 0 chose a block transport (id '%c') this build of "
                          "adiflow_mpi does not have: run the same executable on every rank", rank,
                          ids[0] ? ids[0] : '?');
}

/* rank 0's transport (byte 0 of the ids), opened on this rank */
static int open_transport(struct block_state *b, const char ids[ADI_BLOCK_ID_BYTES], int rank, int nranks,
                          int device, double timeout_s)
{
  return adi_block_transport_open(ids, rank, nranks, device, timeout_s, &b->tx, &b->tp);
}

/* The most one group of each channel carries: an exchange's send and
 * receive, two chunk rows (a step's send and the next step's receive), the
 * warm-up's double each way per neighbour.
 * A coarse level asks the fine block's transport for its own (smaller). */
static int reserve_staging(struct block_state *b)
{
  size_t warm = 2*8;
  TX_CHECK(b->tx->reserve(b->tp, ADI_CH_HALO, 2*b->halo_cap > warm ? 2*b->halo_cap : warm));
  TX_CHECK(b->tx->reserve(b->tp, ADI_CH_PIPE, 2*b->chunk_cap > warm ? 2*b->chunk_cap : warm));
  return ADI_OK;
}

/* A transport connects to a peer at the first send or receive (NCCL: about
 * 0.2 s measured on two H200s; MPI's connections are made lazily too);
 * without this, the first iteration carries the connection set-up. One
 * double each way with every neighbour, on both channels. */
static int warm_up(struct block_state *b)
{
  int peers[8], np = 0, f, k, c, dup;
  cudaStream_t streams[ADI_CH_COUNT];
  streams[ADI_CH_HALO] = b->halo;
  streams[ADI_CH_PIPE] = b->pipe;
  for (f = 0; f < 8; ++f) {
    int r = f < 4 ? b->nbr[f] : b->swp[f - 4];
    if (r < 0) continue;
    for (dup = 0, k = 0; k < np; ++k) dup |= peers[k] == r;
    if (!dup) peers[np++] = r;
  }
  if (np == 0) return ADI_OK;
  for (c = 0; c < ADI_CH_COUNT; ++c) {
    TX_CHECK(b->tx->group_start(b->tp, c));
    for (k = 0; k < np; ++k) {
      TX_CHECK(b->tx->send(b->tp, c, b->sl + k, 1, peers[k], streams[c]));
      TX_CHECK(b->tx->recv(b->tp, c, b->rl + k, 1, peers[k], streams[c]));
    }
    TX_CHECK(b->tx->group_end(b->tp, c));
  }
  ADI_GPU_CHECK(cudaStreamSynchronize(b->halo));
  ADI_GPU_CHECK(cudaStreamSynchronize(b->pipe));
  return ADI_OK;
}

static int alloc_buffers(struct block_state *b, const adi_solver_params *sp)
{
  int ldi = sp->ldi, ldj = sp->ldj, ldk = sp->ldk, s, kk, d;
  int ncr, nch, lines_max = 1;
  size_t cross = (size_t)(ldj > ldk ? ldj : ldk);
  b->halo_cap = (size_t)ldi*cross*(size_t)(2*ADI_NVAR > 6 ? 2*ADI_NVAR : 6);
  ADI_GPU_CHECK(cudaMalloc((void **)&b->sl, b->halo_cap*sizeof(double)));
  ADI_GPU_CHECK(cudaMalloc((void **)&b->sh, b->halo_cap*sizeof(double)));
  ADI_GPU_CHECK(cudaMalloc((void **)&b->rl, b->halo_cap*sizeof(double)));
  ADI_GPU_CHECK(cudaMalloc((void **)&b->rh, b->halo_cap*sizeof(double)));
  /* the pipelined sweeps along j (across nk lines) and k (across nj):
   * the most chunks and the most lines in one chunk of either */
  b->nch_max = 1;
  for (d = 2; d <= 3; ++d) {
    ncr = d == 2 ? sp->nk : sp->nj;
    nch = pipe_chunks(b->chunks, sp->ni, ncr);
    if (nch > b->nch_max) b->nch_max = nch;
    if ((ncr + nch - 1)/nch > lines_max) lines_max = (ncr + nch - 1)/nch;
  }
  b->chunk_cap = (size_t)sp->ni*5*(size_t)lines_max;
  /* the staged sweep's chunks along k: i ranges, all j; the first is the widest */
  nch = stage_chunks(b->chunks, sp->ni, sp->nj);
  if (nch > b->nch_max) b->nch_max = nch;
  {
    int ilo, ihi;
    stage_range(sp->ni, stage_units(b->chunks, sp->ni, sp->nj), 0, &ilo, &ihi);
    if (stage_rows(ilo, ihi, sp->nj) > b->chunk_cap) b->chunk_cap = stage_rows(ilo, ihi, sp->nj);
  }
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
  {
    /* the pipe's messages and chunks first wherever they are ready: the
     * device's highest priority (numerically least); the staged sweep's
     * updates its lowest */
    int least = 0, greatest = 0;
    ADI_GPU_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    ADI_GPU_CHECK(cudaStreamCreateWithPriority(&b->pipe, cudaStreamNonBlocking, greatest));
    ADI_GPU_CHECK(cudaStreamCreateWithPriority(&b->halo, cudaStreamNonBlocking, greatest));
    ADI_GPU_CHECK(cudaStreamCreateWithPriority(&b->fwd_s, cudaStreamNonBlocking, greatest));
    ADI_GPU_CHECK(cudaStreamCreateWithPriority(&b->bwd_s, cudaStreamNonBlocking, greatest));
    ADI_GPU_CHECK(cudaStreamCreateWithPriority(&b->upd_s, cudaStreamNonBlocking, least));
  }
  b->ev_local = (cudaEvent_t *)calloc((size_t)b->nch_max, sizeof(cudaEvent_t));
  if (b->ev_local == NULL) return adi_gpu_fail_msg(ADI_ERR_MEMORY, "out of host memory");
  for (s = 0; s < b->nch_max; ++s) ADI_GPU_CHECK(cudaEventCreateWithFlags(&b->ev_local[s], cudaEventDisableTiming));
  for (s = 0; s < 5; ++s) ADI_GPU_CHECK(cudaEventCreateWithFlags(&b->ev_join[s], cudaEventDisableTiming));
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
  if (b->tp && !b->shared_transport) b->tx->close(b->tp);
  if (b->sl) cudaFree(b->sl);
  if (b->sh) cudaFree(b->sh);
  if (b->rl) cudaFree(b->rl);
  if (b->rh) cudaFree(b->rh);
  if (b->psend) cudaFree(b->psend);
  if (b->precv) cudaFree(b->precv);
  if (b->wsend) cudaFree(b->wsend);
  if (b->wrecv) cudaFree(b->wrecv);
  free(b->wat);
  if (b->ev_whole) cudaEventDestroy(b->ev_whole);
  for (s = 0; s < 2*b->nch_max; ++s) {
    if (b->ev_recv && b->ev_recv[s]) cudaEventDestroy(b->ev_recv[s]);
    if (b->ev_sent && b->ev_sent[s]) cudaEventDestroy(b->ev_sent[s]);
  }
  free(b->ev_recv); free(b->ev_sent);
  for (s = 0; s < b->nch_max; ++s)
    if (b->ev_local && b->ev_local[s]) cudaEventDestroy(b->ev_local[s]);
  free(b->ev_local);
  for (s = 0; s < 5; ++s)
    if (b->ev_join[s]) cudaEventDestroy(b->ev_join[s]);
  if (b->fwd_s) cudaStreamDestroy(b->fwd_s);
  if (b->bwd_s) cudaStreamDestroy(b->bwd_s);
  if (b->upd_s) cudaStreamDestroy(b->upd_s);
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
  b->hooks.sweep_staged = sweep_staged;
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

/* Whether the schedules may replay this block's iteration as a graph with
 * its exchanges inside (hooks.capturable): the transport queues on the
 * stream and no timing events are read between calls. A W-cycle runs
 * hundreds of short iterations on its coarse levels, where one graph
 * launch replaces some thirty kernel launches and transport calls.
 * ADIFLOW_BLOCK_GRAPH=0 launches them one by one. */
static void set_capturable(struct block_state *b)
{
  b->hooks.capturable = b->tx->stream_ordered && !b->timing && adi_settings_flag("ADIFLOW_BLOCK_GRAPH", -1, 1);
  /* the staged sweep (sweep_staged) where k alone is swept across the
   * blocks: its streams run the forward and backward chunks apart, which a
   * transport that blocks the host in every transfer (MPI's) would serialise */
  b->hooks.staged = b->tx->stream_ordered && b->exact && b->hooks.across[3] && !b->hooks.across[2] &&
                    adi_settings_flag("ADIFLOW_BLOCK_STAGED", -1, 1);
}

int adi_gpu_block_ranks_fit(int ranks_on_node, int may_share)
{
  int ndev = adi_gpu_device_count();
  return ndev > 0 && (ranks_on_node <= ndev || (may_share && adi_settings_flag("ADIFLOW_BLOCK_SHARE_GPU", -1, 0)));
}

/* The GPU of a rank: its node-local rank's. ADIFLOW_BLOCK_SHARE_GPU=1
 * lets more ranks than GPUs share them in turn (node-local rank modulo the
 * GPUs), their halos through host memory: for checking a decomposition's
 * results on a machine with fewer GPUs (the ranks then take turns on a GPU,
 * so their timings mean nothing). */
static int check_device(int rank, int *device)
{
  int ndev = adi_gpu_device_count();
  if (ndev > 0 && *device >= ndev && adi_settings_flag("ADIFLOW_BLOCK_SHARE_GPU", -1, 0)) *device %= ndev;
  if (*device < 0 || *device >= ndev)
    return adi_gpu_fail_msg(ADI_ERR_NO_DEVICE, "rank %d wants GPU %d of its node (one rank per GPU, by node-local "
                            "rank) but the node has %d usable GPU(s): start at most %d ranks per node (or, to "
                            "check results only, let ranks share GPUs: ADIFLOW_BLOCK_SHARE_GPU=1)",
                            rank, *device, ndev, ndev);
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
  struct block_state *b = NULL;
  adi_gpu_grid *g = NULL;
  if (grid == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_init: no place for the grid handle (a null first argument)");
  *grid = NULL;
  if (sp == NULL || phys == NULL || off == NULL || nglob == NULL || nbr == NULL || swp == NULL || ids == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_init: a null argument");
  if ((rc = check_device(rank, &device)) != ADI_OK) return rc;
  if ((rc = block_state_new(&b, sp, settings, phys, off, nglob, nbr, swp, exact, chunks, rank, nranks, device))
      != ADI_OK)
    return rc;
  /* from here on the grid owns b: adi_gpu_finalize frees both */
  if ((rc = block_grid(&g, b, sp, kernels, settings, sf, sc, vol, q, 0)) != ADI_OK) return rc;
  rc = open_transport(b, ids, rank, nranks, device, timeout_s);
  if (rc == ADI_OK) rc = reserve_staging(b);
  if (rc == ADI_OK) rc = warm_up(b);
  /* the driver stops every rank (MPI_Abort). The grid is left as it is, not
   * freed: ncclCommDestroy is an intra-node collective, and freeing buffers
   * that transfers may still use could hang this rank before it stops */
  if (rc != ADI_OK) return rc;
  set_capturable(b);
  b->ready = 1;
  *grid = g;
  return ADI_OK;
}

/* A coarse level's block uses the fine block's transport: the cycle
 * (fortran/multigrid_cycle.f90) works on one level at a time, each level's
 * streams wait for the other level's work at every transfer
 * (cuda/api/multigrid.cu), and every rank issues the levels' exchanges in
 * the same order, so no two levels' transfers are ever in flight together
 * (the MPI transport's staging memory, sized for the largest level, is
 * shared as well). */
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
  b->tx = fb->tx;
  b->tp = fb->tp;
  b->shared_transport = 1;
  /* the driver stops every rank on a failure, as for the fine block */
  if ((rc = reserve_staging(b)) != ADI_OK) return rc;
  set_capturable(b);
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
  struct block_state *b = NULL;
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
 * grid first, the transport and the buffers after */
int adi_gpu_block_finalize(adi_gpu_grid *grid)
{
  return adi_gpu_finalize(grid);
}

/* ---------------------------------------------------- whole coarse levels */

/* The fine block's state, for the calls below (fn names them) */
static int fine_state(adi_gpu_grid *fine, const char *fn, struct block_state **out)
{
  const adi_block_hooks *h = NULL;
  int rc;
  if ((rc = adi_gpu_grid_block(fine, fn, &h)) != ADI_OK) return rc;
  if (h == NULL || !((struct block_state *)h->ctx)->ready || ((struct block_state *)h->ctx)->shared_transport)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: the grid is no live fine block (made by adi_gpu_block_init)", fn);
  *out = (struct block_state *)h->ctx;
  return ADI_OK;
}

int adi_gpu_block_init_whole(adi_gpu_grid **grid, adi_gpu_grid *fine, const adi_solver_params *sp, int kernels,
                             const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                             const double *q)
{
  struct block_state *fb = NULL;
  int rc;
  if (grid == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_init_whole: no place for the grid handle (a null first "
                            "argument)");
  *grid = NULL;
  if ((rc = fine_state(fine, "adi_gpu_block_init_whole", &fb)) != ADI_OK) return rc;
  return adi_gpu_init_whole_level(grid, fb->hooks.device, sp, kernels, settings, sf, sc, vol, q);
}

/* ext[4*r .. 4*r+3]: rank r's j and k offsets and cell counts in the level */
int adi_gpu_block_share_reserve(adi_gpu_grid *fine, int ni, const int *ext, int nranks)
{
  struct block_state *b = NULL;
  size_t most = 0, step;
  int rc, r;
  if ((rc = fine_state(fine, "adi_gpu_block_share_reserve", &b)) != ADI_OK) return rc;
  if (ext == NULL || nranks != b->nranks || ni < 1)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_share_reserve: %d ranks' blocks of %d cells in i for a grid "
                            "of %d ranks", nranks, ni, b->nranks);
  if (b->wat != NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_block_share_reserve: called twice");
  b->wat = (size_t *)calloc((size_t)nranks + 1, sizeof *b->wat);
  if (b->wat == NULL) return adi_gpu_fail_msg(ADI_ERR_MEMORY, "%s", "adi_gpu_block_share_reserve: out of host memory");
  for (r = 0; r < nranks; ++r) {
    if (ext[4*r + 2] < 0 || ext[4*r + 3] < 0)
      return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_block_share_reserve: rank %d's block has %d x %d cells", r,
                              ext[4*r + 2], ext[4*r + 3]);
    step = (size_t)ni*(size_t)ext[4*r + 2]*(size_t)ext[4*r + 3]*2*ADI_NVAR;
    b->wat[r + 1] = b->wat[r] + step;
    if (step > most) most = step;
  }
  ADI_GPU_CHECK(cudaMalloc((void **)&b->wsend, (b->wat[b->rank + 1] - b->wat[b->rank] + 1)*sizeof(double)));
  ADI_GPU_CHECK(cudaMalloc((void **)&b->wrecv, (b->wat[nranks] + 1)*sizeof(double)));
  ADI_GPU_CHECK(cudaEventCreateWithFlags(&b->ev_whole, cudaEventDisableTiming));
  /* one group: this rank's part out to one rank, another's in */
  TX_CHECK(b->tx->reserve(b->tp, ADI_CH_HALO, b->wat[b->rank + 1] - b->wat[b->rank] + most));
  return ADI_OK;
}

/* Every rank's block of the level (blk, restricted, its forcing made) into
 * whole, the same level whole on this rank's GPU: this rank's part packed,
 * exchanged with every other rank (rank + s gets it while rank - s's comes
 * in, s = 1 .. nranks-1: one send and one receive a group, whatever the
 * transport), every part unpacked at its place. The halo channel on the
 * halo stream: the cycle is on one level at a time, so the channel is idle. */
int adi_gpu_block_share_level(adi_gpu_grid *fine, adi_gpu_grid *blk, adi_gpu_grid *whole, const int *ext, int nranks)
{
  struct block_state *b = NULL;
  size_t mine;
  int rc, r, s, to, from;
  if ((rc = fine_state(fine, "adi_gpu_block_share_level", &b)) != ADI_OK) return rc;
  if (b->wat == NULL || ext == NULL || nranks != b->nranks)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_block_share_level: no adi_gpu_block_share_reserve for these "
                            "ranks");
  mine = b->wat[b->rank + 1] - b->wat[b->rank];
  if ((rc = adi_gpu_pack_level_on(blk, b->wsend, b->halo, b->ev_whole)) != ADI_OK) return rc;
  for (s = 1; s < nranks; ++s) {
    to = (b->rank + s) % nranks;
    from = (b->rank - s + nranks) % nranks;
    TX_CHECK(b->tx->group_start(b->tp, ADI_CH_HALO));
    TX_CHECK(b->tx->send(b->tp, ADI_CH_HALO, b->wsend, mine, to, b->halo));
    TX_CHECK(b->tx->recv(b->tp, ADI_CH_HALO, b->wrecv + b->wat[from], b->wat[from + 1] - b->wat[from], from,
                         b->halo));
    TX_CHECK(b->tx->group_end(b->tp, ADI_CH_HALO));
  }
  for (r = 0; r < nranks; ++r)
    if ((rc = adi_gpu_unpack_level_on(whole, r == b->rank ? b->wsend : b->wrecv + b->wat[r], ext[4*r], ext[4*r + 1],
                                      ext[4*r + 2], ext[4*r + 3], b->halo, b->ev_whole)) != ADI_OK)
      return rc;
  return ADI_OK;
}

int adi_gpu_block_take_level(adi_gpu_grid *blk, adi_gpu_grid *whole, int joff, int koff)
{
  return adi_gpu_take_level_part(blk, whole, joff, koff);
}
