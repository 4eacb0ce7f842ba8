/* Residual norms: sqrt(sum over the interior of (res/vol)^2 / (ni nj nk))
 * per variable. No floating-point atomics and no warp-level code: one
 * thread sums one (variable, k-plane) in the CPU's order (j, then i), a
 * second kernel adds the planes in k order, so the result is deterministic
 * and, with FMA contraction off, the very bits of compute_residual_norms
 * (tests/test_stages_c_vs_fortran checks the same code on the CPU).
 * Mirror: fortran/residual_norms.f90. */
#include "kernels.cuh"

enum { NORM_BLOCK = 128 };

/* plane(m, k) = the sum over this block's (j, i), started from 0, or with
 * from_below from the running sum of the blocks below in j, which plane
 * holds (fortran/mpi_decomp.f90 chains them); residual_plane_sum is the
 * start from 0, so both give the CPU's bits */
__global__ void norm_kernel_planes(adi_view v, double *plane, int from_below)
{
  int t = (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int m, k, q;
  if (t >= 5*v.nk) return;
  m = t%5 + 1;
  k = t/5 + 1;
  q = (m - 1) + 5*(k - 1);
  plane[q] = residual_plane_sum_from(&v, m, k, from_below ? plane[q] : 0.0);
}

__global__ void norm_kernel_final(adi_view v, const double *plane, double *norms)
{
  int m = (int)threadIdx.x + 1;
  if (m > 5) return;
  norms[m - 1] = residual_norm_final(&v, plane, m);
}

int launch_norm_plane_add(const adi_view *v, double *plane, cudaStream_t s)
{
  unsigned nblocks = (unsigned)((5*v->nk + NORM_BLOCK - 1)/NORM_BLOCK);
  norm_kernel_planes<<<nblocks, NORM_BLOCK, 0, s>>>(*v, plane, 1);
  ADI_LAUNCH_CHECK("norm_kernel_planes (continuing the blocks below)");
  return ADI_OK;
}

int launch_norm_kernels(const adi_view *v, double *plane, double *norms, cudaStream_t s)
{
  unsigned nblocks = (unsigned)((5*v->nk + NORM_BLOCK - 1)/NORM_BLOCK);
  norm_kernel_planes<<<nblocks, NORM_BLOCK, 0, s>>>(*v, plane, 0);
  ADI_LAUNCH_CHECK("norm_kernel_planes");
  norm_kernel_final<<<1, 5, 0, s>>>(*v, plane, norms);
  ADI_LAUNCH_CHECK("norm_kernel_final");
  return ADI_OK;
}
