/* The bridge's own internals (include/adiflow_bridge.h is its public face),
 * shared by the files of cuda/api/, one job each:
 *   errors.cu    the text of the last failure (recorded, with advice per
 *                runtime error, by cuda/common/runtime.cu)
 *   device.cu    which GPU, whether it can run this build, its description
 *   grid.cu      the grid handle: fields allocated and uploaded, the kernel
 *                family's schedule made, iterations dispatched, all freed
 *   transfer.cu  the state q down to the host and back up
 *   norms.cu     residual norms (kernels and calls)
 *   mass.cu      mass_fix: mass sums and the rescale (kernels and calls)
 *   multigrid.cu the multigrid level operations: residual only, restriction,
 *                forcing, prolongation (kernels and calls)
 *   timing.cu    per-kernel timing on/off and its report
 *
 * Every grid is a handle (struct adi_gpu_grid, heap-allocated by
 * adi_gpu_init): its fields, stream, timing, the kernel family's schedule
 * (cuda/split/schedule.cuh, cuda/merged/schedule.cuh) and, in block mode,
 * the block driver's hooks (cuda/common/block_hooks.cuh) hang off it, so
 * one process can hold several grids of different sizes. The only
 * process-wide mutable state is the per-thread text of the last failure
 * (cuda/common/runtime.cu).
 *
 * Fields live on the device in the host's layout (fortran/grid_layout.f90):
 * one cudaMalloc per field group, npts = ldi*ldj*ldk doubles per component,
 * so uploads and downloads are plain copies. */
#ifndef ADIFLOW_API_GRID_CUH
#define ADIFLOW_API_GRID_CUH

#include "adiflow_gpu_vendor.h"   /* the runtime: CUDA, or HIP (make hip) */

#include "adiflow_bridge.h"
#include "kernels.cuh"
#include "block_hooks.cuh"
#include "block_grid.cuh"
#include "../split/schedule.cuh"
#include "../merged/schedule.cuh"

#define GIB (1024.0*1024.0*1024.0)

/* tag of a live grid; adi_gpu_finalize overwrites it before the memory goes */
enum : unsigned { ADI_GRID_LIVE = 0x61646967u, ADI_GRID_DEAD = 0x64656164u };

/* One grid (include/adiflow_bridge.h): heap-allocated by adi_gpu_init, freed
 * by adi_gpu_finalize. In cuda/api/ g is always the grid at hand. */
struct adi_gpu_grid {
  unsigned magic;                     /* ADI_GRID_LIVE while the handle is valid */
  const adi_block_hooks *block;       /* block mode's hooks (cuda/common/block_hooks.cuh); NULL for one domain */
  int kernels;                        /* ADI_KERNELS_SPLIT or ADI_KERNELS_MERGED: which of the two is set */
  split_state *split;                 /* the split family's schedule (cuda/split/schedule.cu) */
  merged_state *merged;               /* the merged family's schedule (cuda/merged/schedule.cu) */
  int device;
  cudaStream_t stream;
  adi_view v;                         /* device pointers, layout, parameters */
  double *d_plane, *d_norms;          /* residual-norm scratch: 5*nk, 5 */
  double *d_mrows, *d_mplane;         /* mass_fix scratch: row sums nj*nk, plane sums nk */
  double *h_norms;                    /* pinned, 5 */
  /* a coarse multigrid level (adi_gpu_init_level; cuda/api/multigrid.cu):
   * its forcing P (v.forcing points to it) and the restricted state q0,
   * 5 fields each; NULL on other grids */
  double *d_forcing, *d_q0;
  /* a grid with boundary patches (adi_gpu_init's npatch > 0): the patches
   * and the six face maps on the device, v.patch and v.patch_map point to
   * them; NULL for the box */
  adi_bc_patch *d_patch;
  int *d_patch_map;
  /* a block of a set over several processes (cuda/api/block_set.cu): the
   * scratch of its halo packs and unpacks, halo_cap doubles; NULL until used */
  double *d_halo;
  size_t halo_cap;
  cudaEvent_t mg_event;               /* orders the transfers between two levels' streams */
  int mg_event_ready;
  size_t bytes;                       /* device memory held */
  long long iterations;
  /* timing (the kernels' own times are the schedule's) */
  int timing, timing_env;
  int events_ready;
  cudaEvent_t ev_norm[2];             /* around the residual-norm kernels */
  double norm_ms;
  long long timed_iterations, norm_calls;
};

/* ADI_OK for a live grid; ADI_ERR_USAGE with a message naming fn for NULL,
 * or for a handle adi_gpu_finalize has freed (grid.cu) */
int adi_gpu_check_grid(const adi_gpu_grid *g, const char *fn);
/* the stream of `waiter` goes on only after the work queued so far on
 * `first` (cuda/api/multigrid.cu) */
int adi_gpu_order_after(adi_gpu_grid *waiter, adi_gpu_grid *first);
/* the same between a grid and another stream s (a copy that runs beside the
 * grid's own stream, cuda/api/block_set.cu, whole_level.cu): s after g's
 * queued work; g's later work after s's (ev: the caller's event, recorded
 * on s) */
int adi_gpu_stream_after_grid(cudaStream_t s, adi_gpu_grid *g);
int adi_gpu_grid_after_stream(adi_gpu_grid *g, cudaStream_t s, cudaEvent_t ev);

#define REQUIRE_INIT(fn)                                                        \
  do {                                                                          \
    int rq_ = adi_gpu_check_grid(g, fn);                                        \
    if (rq_ != ADI_OK) return rq_;                                              \
  } while (0)

#define SYNC_WHAT "waiting for the GPU to finish the iterations' kernels (an earlier, asynchronous " \
                  "kernel failed if this fails; " ADI_GPU_SERIALIZE_ENV " names it)"

/* device.cu: GPU dev made current for a grid of sp, checked (there, usable,
 * can run this binary, launch limits of the split family's blocks); *prop
 * its properties. ADI_ERR_NO_DEVICE / ADI_ERR_CONFIG / ADI_ERR_CUDA with
 * the reason. */
int adi_gpu_select_device(int dev, const adi_solver_params *sp, struct cudaDeviceProp *prop);

/* timing.cu: the norm events (once) */
int adi_gpu_timing_events(adi_gpu_grid *g);

#endif
