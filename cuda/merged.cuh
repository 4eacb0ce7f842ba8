/* The merged kernel family (issue 4): what cuda/merged_flux_kernels.cu and
 * cuda/merged_adi_kernels.cu offer cuda/merged_schedule.cu, and what the
 * schedule offers cuda/bridge.cu. Bodies: include/adiflow_merged.h (new)
 * and include/adiflow_stages.h (the split family's, unchanged).
 * Portability (HIP): no warp-size constants, shared-memory tiles <= 64 KB,
 * CUDA graphs only in merged_schedule.cu behind ADIFLOW_NO_GRAPHS. */
#ifndef ADIFLOW_MERGED_CUH
#define ADIFLOW_MERGED_CUH

#include "adiflow_merged.h"
#include "kernels.cuh"
#include "block_hooks.cuh"

/* a block shape; for point kernels x runs along i, y along j (z = 1) */
typedef struct m_shape {
  int x, y, z;
} m_shape;

static inline int m_div(int a, int b) { return (a + b - 1)/b; }

/* first i of the blocks of a point kernel over box b: the box's own first
 * cell, or (MS_ALIGN) the first point of the row (i = -1: ldi is a multiple
 * of 16, so rows start on 128-byte boundaries) */
static inline int m_x0(const adi_box *b, int align)
{
  return align ? ((b->lo[0] + 1) & ~15) - 1 : b->lo[0];
}

/* point kernels (one thread per cell) of any merged kind but MK_BC,
 * MK_RES_ZERO, MK_FLUXF, MK_FLUX1S, MK_ADI4; d_cfl: the CFL number on the
 * device (MK_TSTEP, MK_PT) */
int mlaunch_flux_point(const adi_view *v, int kernel, int d, m_shape sh, int align, const double *d_cfl,
                       cudaStream_t s);   /* MK_PRIM, MK_TSTEP, MK_PT, MK_FLUX1..4, MK_VISC */
int mlaunch_adi_point(const adi_view *v, int kernel, int d, m_shape sh, int align, cudaStream_t s);
/* fused flux of direction d (sh.{x,y,z}: block, the extent along d >= 2) */
int mlaunch_flux_fused(const adi_view *v, int d, m_shape sh, int first, cudaStream_t s);
/* fused flux of direction d, marching along d (MS_FMARCH): sh = the
 * block (extent along d: the chunk), at most 256 threads */
int mlaunch_flux_march(const adi_view *v, int d, m_shape sh, int first, cudaStream_t s);
/* flux_kernel1 through a shared-memory tile (extent along d >= 1) */
int mlaunch_flux1_smem(const adi_view *v, int d, m_shape sh, cudaStream_t s);
/* sweeps: sh = lines per block (x, y across d); flags: MS_SWEEP, MS_COMP */
int mlaunch_adi4(const adi_view *v, int d, m_shape sh, int flags, cudaStream_t s);
/* shared memory the i-sweep kernel needs for sh; 0 if sh is not allowed */
size_t madi4_smem_bytes(m_shape sh);
/* raise the kernels' dynamic shared-memory limits to 64 KB (once) */
int mkernels_setup(void);

/* ---- merged_schedule.cu, called by bridge.cu ---- */
/* The merged family's state of one grid (flags, block shapes, steps, CUDA
 * graph, events, timing); one per grid, hung off it by bridge.cu. */
typedef struct merged_state merged_state;
/* after the fields are allocated and q uploaded (q: the host state, for the
 * tune mode, which restores it); reads ADIFLOW_MERGED_STEPS, the tuning
 * table, ADIFLOW_TUNE. block: the grid's block hooks, NULL for one domain.
 * On success *ms is the new state; on failure NULL (nothing left to free). */
int merged_init(merged_state **ms, const adi_view *v, cudaStream_t s, const double *q_host,
                const adi_block_hooks *block);
int merged_iterate(merged_state *ms, double cfl, int timing);
int merged_timing_report(const merged_state *ms, char *buf, int buflen, long long timed_iterations,
                         double norm_ms, long long norm_calls);
/* frees ms and everything it holds; nothing for NULL */
void merged_finalize(merged_state *ms);
#endif
