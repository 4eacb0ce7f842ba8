/* The merged kernel family's internals: what cuda/merged/flux_kernels.cu,
 * adi_kernels.cu and adi_line.cu offer cuda/merged/schedule.cu (what the
 * schedule offers the bridge: cuda/merged/schedule.cuh; the launches it
 * shares with the split family: cuda/common/kernels.cuh). Bodies:
 * cuda/common/adiflow_merged.h (its own) and cuda/common/adiflow_stages.h
 * (the stage bodies of both families).
 * Portability (HIP): no warp-size constants, shared-memory tiles <= 64 KB
 * (the line kernel along j and k: the device's opt-in limit, 64 KB on HIP),
 * CUDA graphs only in schedule.cu behind ADIFLOW_NO_GRAPHS. */
#ifndef ADIFLOW_MERGED_CUH
#define ADIFLOW_MERGED_CUH

#include "adiflow_merged.h"
#include "kernels.cuh"
#include "block_hooks.cuh"
#include "schedule.cuh"

/* a block shape; for point kernels x runs along i, y along j (z = 1) */
typedef struct m_shape {
  int x, y, z;
} m_shape;

static inline int m_div(int a, int b) { return (a + b - 1)/b; }

/* first i of the blocks of a point kernel over box b: the box's own first
 * cell, or (MS_ALIGN) the last i <= it with i = 1 modulo 16. The fields are
 * allocated so that cell i = 1 of every row sits on a 128-byte boundary
 * (row_shift, cuda/api/grid.cu; ldi is a multiple of 16), and so does every
 * 16th cell after it: over the whole box (i from -1) the blocks start at
 * i = -15 */
static inline int m_x0(const adi_box *b, int align)
{
  return align ? ((b->lo[0] - 1) & ~15) + 1 : b->lo[0];
}

/* the point kernels (one thread per cell): the kinds whose launch column in
 * ADI_MERGED_KERNELS is FLUXPT (d_cfl: the CFL number on the device, for
 * the time step), and ADIPT */
int mlaunch_flux_point(const adi_view *v, int kernel, int d, m_shape sh, int align, const double *d_cfl, int dep,
                       cudaStream_t s);
int mlaunch_adi_point(const adi_view *v, int kernel, int d, m_shape sh, int align, cudaStream_t s);
/* the same over the cells of its box with i in ilo..ihi */
int mlaunch_adi_point_irange(const adi_view *v, int kernel, int d, m_shape sh, int align, int ilo, int ihi,
                             cudaStream_t s);
/* with preconditioning: pce in the two cell layers across the faces of
 * direction d, formed from their fields (a block swept across them) */
int mlaunch_pce_faces(const adi_view *v, int d, cudaStream_t s);
/* fused flux of direction d (sh.{x,y,z}: block, the extent along d >= 2) */
int mlaunch_flux_fused(const adi_view *v, int d, m_shape sh, int first, int dep, cudaStream_t s);
/* fused flux of direction d, marching along d (MS_FMARCH): sh = the
 * block (extent along d: the chunk), at most 256 threads */
int mlaunch_flux_march(const adi_view *v, int d, m_shape sh, int first, int dep, cudaStream_t s);
/* sweeps: sh = lines per block (x, y across d); flags: MS_SWEEP, MS_COMP */
int mlaunch_adi4(const adi_view *v, int d, m_shape sh, int flags, cudaStream_t s);
/* shared memory the i-sweep kernel needs for sh with the ADI work fields in
 * double (in float: half); 0 if sh is not allowed (for either storage) */
size_t madi4_smem_bytes(m_shape sh);
/* raise the kernels' dynamic shared-memory limits (once): 64 KB, the line
 * kernels' per direction into adil_cap[d] (madil_setup) */
int mkernels_setup(size_t adil_cap[4]);
/* every ADI stage of direction d (MS_ADIL, cuda/merged/adi_line.cu): lines
 * per block (from madil_lines with the same cap), threads per block (<= 512) */
int mlaunch_adi_line(const adi_view *v, int d, int lines, int threads, const size_t cap[4], int dep, cudaStream_t s);
/* the same for the lines blo..bhi only (their first index across d: j for
 * d = 1, i for d = 2 and 3) */
int mlaunch_adi_line_range(const adi_view *v, int d, int lines, int threads, const size_t cap[4], int blo, int bhi,
                           int dep, cudaStream_t s);
/* the lines per block (<= want) whose shared arrays fit in cap[d] bytes; 0:
 * not even one line fits (the three-kernel path runs instead) */
int madil_lines(const adi_view *v, int d, int want, const size_t cap[4]);
/* the line kernels' dynamic shared-memory limits, set and returned in cap[d]
 * (d = 1..3): 64 KB along i, the device's opt-in limit along j and k */
int madil_setup(size_t cap[4]);

#endif
