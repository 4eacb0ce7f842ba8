/* mass_fix on the GPU (fortran/mass_constraint.f90): the total mass in the
 * Fortran's fixed order and the rescale of the state.
 *   mass_kernel_rows    one thread per (j,k) row: rows = mass_row_sum
 *   mass_kernel_planes  one thread per k-plane: plane(k) continues from the
 *                       value uploaded by the host (0, or the running sum of
 *                       the j ranks below) over the rows in j order
 *   mass_kernel_scale   one thread per interior cell: q(1:5) *= s
 * The host adds the planes in k order (mass_from_plane_sums) and computes
 * s = M0/M, so the MPI chain and the total stay in the Fortran, as for the
 * residual norms. No atomics, no warp reductions: every sum has one owner
 * and the CPU's order, so a strict build (no FMA) gives the CPU's bits. */
#include "grid.cuh"

enum { MASS_BLOCK = 128 };

__global__ void mass_kernel_rows(adi_view v, double *rows)
{
  int t = (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int j, k;
  if (t >= v.nj*v.nk) return;
  j = t%v.nj + 1;      /* neighbouring threads: neighbouring rows of one plane */
  k = t/v.nj + 1;
  rows[t] = mass_row_sum(&v, j, k);
}

__global__ void mass_kernel_planes(adi_view v, const double *rows, double *plane)
{
  int k = (int)(blockIdx.x*blockDim.x + threadIdx.x) + 1;
  if (k > v.nk) return;
  plane[k - 1] = mass_plane_sum_from(&v, rows, k, plane[k - 1]);
}

__global__ void mass_kernel_scale(adi_view v, adi_box b, double s)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  scale_state_point(&v, s, i, j, k);
}

static int launch_mass_plane_sums(const adi_view *v, double *rows, double *plane, cudaStream_t s)
{
  unsigned nrb = (unsigned)((v->nj*v->nk + MASS_BLOCK - 1)/MASS_BLOCK);
  unsigned npb = (unsigned)((v->nk + MASS_BLOCK - 1)/MASS_BLOCK);
  mass_kernel_rows<<<nrb, MASS_BLOCK, 0, s>>>(*v, rows);
  ADI_LAUNCH_CHECK("mass_kernel_rows");
  mass_kernel_planes<<<npb, MASS_BLOCK, 0, s>>>(*v, rows, plane);
  ADI_LAUNCH_CHECK("mass_kernel_planes");
  return ADI_OK;
}

static int launch_mass_scale(const adi_view *v, double s_factor, cudaStream_t s)
{
  adi_box b;
  b.lo[0] = 1; b.lo[1] = 1; b.lo[2] = 1;
  b.hi[0] = v->ni; b.hi[1] = v->nj; b.hi[2] = v->nk;
  mass_kernel_scale<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, b, s_factor);
  ADI_LAUNCH_CHECK("mass_kernel_scale");
  return ADI_OK;
}

/* mass_fix: the host's plane sums (zeros, or the j ranks' running sums) go
 * up, the row kernel and the plane kernel add this grid's mass in the
 * Fortran's order, the plane sums come back. Runs after the iteration's
 * kernels in stream order; the synchronisation at the end also reports a
 * fault of those. */
int adi_gpu_mass_plane_sums(adi_gpu_grid *g, double *plane)
{
  cudaError_t err;
  int rc;
  REQUIRE_INIT("adi_gpu_mass_plane_sums");
  if (plane == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_mass_plane_sums: null argument");
  ADI_GPU_CHECK(cudaMemcpyAsync(g->d_mplane, plane, (size_t)g->v.nk*sizeof(double), cudaMemcpyHostToDevice,
                                 g->stream));
  rc = launch_mass_plane_sums(&g->v, g->d_mrows, g->d_mplane, g->stream);
  if (rc != ADI_OK) return rc;
  ADI_GPU_CHECK(cudaMemcpyAsync(plane, g->d_mplane, (size_t)g->v.nk*sizeof(double), cudaMemcpyDeviceToHost,
                                 g->stream));
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) return adi_gpu_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  return ADI_OK;
}

/* mass_fix: q(1:5) *= s over the interior, in stream order before the next
 * iteration (s a kernel argument: nothing to copy, nothing to wait for).
 * s is not checked: a NaN from a diverged state goes on into q as on the
 * CPU, and the driver's divergence check reports it the same way. */
int adi_gpu_scale_state(adi_gpu_grid *g, double s)
{
  REQUIRE_INIT("adi_gpu_scale_state");
  return launch_mass_scale(&g->v, s, g->stream);
}
