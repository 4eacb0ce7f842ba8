/* Block mode of the GPU backend: the hooks through which a multi-GPU
 * driver (cuda/multi/block_driver.cu, linked into build/adiflow_mpi only)
 * inserts its halo exchanges and its cross-block sweeps into the iteration
 * schedules of cuda/split/schedule.cu and cuda/merged/schedule.cu
 * (merged family). The hooks hang off the grid (adi_gpu_init_block,
 * cuda/api/block_grid.cuh): each one gets the block driver's state of that
 * grid as ctx. A single-domain grid has no hooks (NULL) and the schedules
 * do exactly what they did before.
 *
 * Where the hooks run, and why there (fortran/mpi_decomp.f90 is the CPU
 * mirror, block_boundary_conditions and mpi_iteration):
 *   exchange_q(d)    before the boundary fill of d = 2, 3: the fill runs in
 *                    the serial order i, j, k, so the rows a block receives
 *                    already hold the neighbour's fill of the earlier
 *                    directions (edge and corner ghosts equal the serial ones)
 *   exchange_lam(d)  before ADI stage 2 of a direction swept across blocks
 *                    (exact mode): stage 2 reads lam+- of the cell across
 *                    the face
 *   sweep(d)         replaces ADI stage 4 of such a direction: the forward
 *                    and backward recurrences pipelined across the ranks
 * With overlap set, the split schedule runs the first q halo while it
 * computes the primitives and time step of the interior, and the lam halo
 * while it computes ADI stage 3 (cuda/split/schedule.cu, iterate_block_overlapped). */
#ifndef ADIFLOW_BLOCK_HOOKS_CUH
#define ADIFLOW_BLOCK_HOOKS_CUH

#include "adiflow_gpu_vendor.h"
#include "flow_fields.h"

/* What a schedule runs around the staged sweep's chunks (sweep_staged):
 * local before a chunk's forward sweep (the work of the directions before
 * d on the chunk's lines: the block sweeps them alone), update after its
 * backward sweep (stage 5 of d); both on the stream given, for the cells
 * with i in ilo..ihi, queued only. */
typedef struct adi_stage_work {
  void *ctx;
  int (*local)(void *ctx, int ilo, int ihi, cudaStream_t s);
  int (*update)(void *ctx, int ilo, int ihi, cudaStream_t s);
} adi_stage_work;

typedef struct adi_block_hooks {
  void *ctx;                 /* the block driver's state of this grid: first argument of every hook */
  int (*exchange_q)(void *ctx, const adi_view *v, int d, cudaStream_t s);
  int (*exchange_lam)(void *ctx, const adi_view *v, int d, cudaStream_t s);
  /* the same exchanges in two halves (what: 0 = q, 1 = lam+-): begin packs on
   * s and leaves the transfer and the unpack to the halo stream; end makes s
   * wait for them. Between the two, s may run work that neither reads nor
   * writes the ghost rows (the split schedule's overlap, see cuda/split/schedule.cu). */
  int (*exchange_begin)(void *ctx, const adi_view *v, int what, int d, cudaStream_t s);
  int (*exchange_end)(void *ctx, const adi_view *v, int what, int d, cudaStream_t s);
  int overlap;               /* 1: the split schedule overlaps (ADIFLOW_BLOCK_OVERLAP=0: off) */
  int (*sweep)(void *ctx, const adi_view *v, int d, cudaStream_t s);
  /* The staged sweep of d = 3 where j is the block's own and k is swept
   * across the blocks (staged = 1: exact mode, a transport that queues on
   * streams): the lines cut by i, so that a chunk's stages before the sweep
   * (w->local: ADI_line along j and stages 1-3 along k of those i) come
   * chunk by chunk, and the GPU runs them while the pipeline waits for its
   * neighbours: the forward and backward chunks on streams of their own,
   * of the device's highest priority, the local and update work at the
   * lowest. Replaces the schedule's steps from ADI_line along j through
   * stage 5 along k; the same operations on every line, so the same bits. */
  int (*sweep_staged)(void *ctx, const adi_view *v, int d, cudaStream_t s, const adi_stage_work *w);
  int staged;
  /* frees ctx (buffers, streams, communicators, the hooks themselves):
   * adi_gpu_finalize calls it last, after the grid's own clean-up */
  void (*destroy)(void *ctx);
  int across[4];             /* [d]: d is swept across the blocks (exact mode, d split) */
  int has_halo[4];           /* [d]: d has a halo neighbour (another block, or a periodic wrap) */
  int phys[6], off[3], nglob[3];   /* copied into the view, see adi_view */
  int device;                /* the GPU of this rank */
  /* 1: every hook only queues work on streams, joined back to s before it
   * returns (a transport that queues on the stream, no timing events), so
   * a schedule may capture an iteration, exchanges and sweeps included, in
   * a graph; set by the driver once the block's transport is open */
  int capturable;
} adi_block_hooks;

#endif
