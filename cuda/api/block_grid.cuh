/* What the bridge offers the multi-GPU block driver (cuda/multi/block_driver.cu,
 * include/adiflow_block.h): a grid made with its hooks
 * (cuda/common/block_hooks.cuh), and the hooks of a live grid. Defined in
 * cuda/api/grid.cu. */
#ifndef ADIFLOW_API_BLOCK_GRID_CUH
#define ADIFLOW_API_BLOCK_GRID_CUH

#include "adiflow_bridge.h"
#include "block_hooks.cuh"

/* adi_gpu_init of a grid with hooks (adi_gpu_init_level's with
 * coarse_level 1). On success the grid owns them
 * (adi_gpu_finalize calls hooks->destroy); on failure the caller still
 * does, and *grid is NULL. */
int adi_gpu_init_block(adi_gpu_grid **grid, const adi_block_hooks *hooks, const adi_solver_params *sp,
                       int kernels, const adi_gpu_settings *settings, const double *sf, const double *sc,
                       const double *vol, const double *q, int coarse_level);

/* *hooks = the hooks of a live grid (NULL for a single-domain grid); a
 * NULL or finalised grid gives ADI_ERR_USAGE with a message naming fn. */
int adi_gpu_grid_block(adi_gpu_grid *grid, const char *fn, const adi_block_hooks **hooks);

/* The coarse multigrid levels that run whole on every rank of a decomposed
 * grid (fortran/multigrid_whole.f90): a level's grid on the rank's GPU
 * (adi_gpu_init_level's, device given), and the copies between it and the
 * rank's block of the same level (cuda/api/whole_level.cu). Plain copies:
 * no bit changes. The _on calls run on stream s, ordered against the
 * grid's own stream by events (s waits for the grid's queued work, the
 * grid's later work waits for s: ev, the caller's, recorded on s). */
int adi_gpu_init_whole_level(adi_gpu_grid **grid, int device, const adi_solver_params *sp, int kernels,
                             const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                             const double *q);
/* the interior cells of blk's state, then of its forcing, into dbuf
 * (10 fields of ni*nj*nk, i fastest) */
int adi_gpu_pack_level_on(adi_gpu_grid *blk, double *dbuf, cudaStream_t s, cudaEvent_t ev);
/* a block's dbuf (as packed: nj x nk cells at j, k offsets joff, koff) into
 * the whole level's state and forcing */
int adi_gpu_unpack_level_on(adi_gpu_grid *whole, const double *dbuf, int joff, int koff, int nj, int nk,
                            cudaStream_t s, cudaEvent_t ev);
/* blk's interior state = the whole level's at offsets joff, koff (on blk's
 * stream, after whole's work) */
int adi_gpu_take_level_part(adi_gpu_grid *blk, adi_gpu_grid *whole, int joff, int koff);

#endif
