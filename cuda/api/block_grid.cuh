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

#endif
