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
#include "kernels.cuh"

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

int launch_mass_plane_sums(const adi_view *v, double *rows, double *plane, cudaStream_t s)
{
  unsigned nrb = (unsigned)((v->nj*v->nk + MASS_BLOCK - 1)/MASS_BLOCK);
  unsigned npb = (unsigned)((v->nk + MASS_BLOCK - 1)/MASS_BLOCK);
  mass_kernel_rows<<<nrb, MASS_BLOCK, 0, s>>>(*v, rows);
  ADI_LAUNCH_CHECK("mass_kernel_rows");
  mass_kernel_planes<<<npb, MASS_BLOCK, 0, s>>>(*v, rows, plane);
  ADI_LAUNCH_CHECK("mass_kernel_planes");
  return ADI_OK;
}

int launch_mass_scale(const adi_view *v, double s_factor, cudaStream_t s)
{
  adi_box b;
  b.lo[0] = 1; b.lo[1] = 1; b.lo[2] = 1;
  b.hi[0] = v->ni; b.hi[1] = v->nj; b.hi[2] = v->nk;
  mass_kernel_scale<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, b, s_factor);
  ADI_LAUNCH_CHECK("mass_kernel_scale");
  return ADI_OK;
}
