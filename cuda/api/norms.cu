/* Residual norms: sqrt(sum over the interior of (res/vol)^2 / (ni nj nk))
 * per variable, and the plane sums a decomposed grid chains between ranks.
 * No floating-point atomics and no warp-level code: one thread sums one (variable, k-plane) in the CPU's order (j, then i), a
 * second kernel adds the planes in k order, so the result is deterministic
 * and, with FMA contraction off, the very bits of compute_residual_norms
 * (tests/c_vs_fortran/test_stages_c_vs_fortran checks the same code on the CPU).
 * Mirror: fortran/residual_norms.f90. */
#include "grid.cuh"

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

static int launch_norm_plane_add(const adi_view *v, double *plane, cudaStream_t s)
{
  unsigned nblocks = (unsigned)((5*v->nk + NORM_BLOCK - 1)/NORM_BLOCK);
  norm_kernel_planes<<<nblocks, NORM_BLOCK, 0, s>>>(*v, plane, 1);
  ADI_LAUNCH_CHECK("norm_kernel_planes (continuing the blocks below)");
  return ADI_OK;
}

static int launch_norm_kernels(const adi_view *v, double *plane, double *norms, cudaStream_t s)
{
  unsigned nblocks = (unsigned)((5*v->nk + NORM_BLOCK - 1)/NORM_BLOCK);
  norm_kernel_planes<<<nblocks, NORM_BLOCK, 0, s>>>(*v, plane, 0);
  ADI_LAUNCH_CHECK("norm_kernel_planes");
  norm_kernel_final<<<1, 5, 0, s>>>(*v, plane, norms);
  ADI_LAUNCH_CHECK("norm_kernel_final");
  return ADI_OK;
}

int adi_gpu_residual_norms(adi_gpu_grid *g, double norms[5])
{
  int rc, m;
  REQUIRE_INIT("adi_gpu_residual_norms");
  if (norms == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_residual_norms: null argument");
  if (g->timing) ADI_GPU_CHECK(cudaEventRecord(g->ev_norm[0], g->stream));
  rc = launch_norm_kernels(&g->v, g->d_plane, g->d_norms, g->stream);
  if (rc != ADI_OK) return rc;
  if (g->timing) ADI_GPU_CHECK(cudaEventRecord(g->ev_norm[1], g->stream));
  ADI_GPU_CHECK(cudaMemcpyAsync(g->h_norms, g->d_norms, 5*sizeof(double), cudaMemcpyDeviceToHost, g->stream));
  {
    cudaError_t err = cudaStreamSynchronize(g->stream);
    if (err != cudaSuccess) return adi_gpu_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  }
  if (g->timing) {
    float t;
    ADI_GPU_CHECK(cudaEventElapsedTime(&t, g->ev_norm[0], g->ev_norm[1]));
    g->norm_ms += (double)t;
    g->norm_calls++;
  }
  for (m = 0; m < 5; ++m) norms[m] = g->h_norms[m];
  return ADI_OK;
}

int adi_gpu_residual_plane_sums(adi_gpu_grid *g, double *plane)
{
  cudaError_t err;
  int rc;
  REQUIRE_INIT("adi_gpu_residual_plane_sums");
  if (plane == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_residual_plane_sums: null argument");
  ADI_GPU_CHECK(cudaMemcpyAsync(g->d_plane, plane, (size_t)(5*g->v.nk)*sizeof(double), cudaMemcpyHostToDevice,
                                 g->stream));
  rc = launch_norm_plane_add(&g->v, g->d_plane, g->stream);
  if (rc != ADI_OK) return rc;
  ADI_GPU_CHECK(cudaMemcpyAsync(plane, g->d_plane, (size_t)(5*g->v.nk)*sizeof(double), cudaMemcpyDeviceToHost,
                                 g->stream));
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) return adi_gpu_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  return ADI_OK;
}
