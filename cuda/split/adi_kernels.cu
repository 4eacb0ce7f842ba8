/* Diagonalised LU-ADI of direction d in the seed paper's five kernels:
 *   ADI_kernel1  eigenvalues and their split lam+-     one thread per cell
 *   ADI_kernel2  sweep coefficients flmp, flmn, diag   one thread per cell
 *   ADI_kernel3  rhs into characteristic variables     one thread per cell
 *   ADI_kernel4  forward then backward sweep           ONE THREAD PER GRID LINE
 *   ADI_kernel5  back to conservative increments       one thread per cell
 *                (dq, or q += dq after d = 3)
 * ADI_kernel4's lines run across the other two directions: for d = 1 the
 * threads span (j, k), for d = 2 (i, k), for d = 3 (i, j), so for j and k
 * neighbouring threads read neighbouring i (coalesced); the i-sweeps are
 * strided, the baseline that the merged family improves on.
 * Mirror: fortran/lu_adi.f90. */
#include "kernels.cuh"

__global__ void ADI_kernel1(adi_view v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_stage1_point(&v, d, i, j, k);
}

__global__ void ADI_kernel2(adi_view v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_stage2_point(&v, d, i, j, k);
}

__global__ void ADI_kernel3(adi_view v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_stage3_point(&v, d, i, j, k);
}

__global__ void ADI_kernel4(adi_view v, int d, adi_box b)
{
  int bb, cc, unused;
  if (!adi_box_cell(&b, &bb, &cc, &unused)) return;
  adi_stage4_line(&v, d, bb, cc);
}

__global__ void ADI_kernel5(adi_view v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_stage5_point(&v, d, i, j, k);
}

int launch_ADI_kernel1(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_ADI1, d);
  ADI_kernel1<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("ADI_kernel1");
  return ADI_OK;
}

int launch_ADI_kernel2(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_ADI2, d);
  ADI_kernel2<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("ADI_kernel2");
  return ADI_OK;
}

int launch_ADI_kernel3(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_ADI3, d);
  ADI_kernel3<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("ADI_kernel3");
  return ADI_OK;
}

int launch_ADI_kernel4(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_ADI4, d);
  ADI_kernel4<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("ADI_kernel4");
  return ADI_OK;
}

int launch_ADI_kernel5(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_ADI5, d);
  ADI_kernel5<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("ADI_kernel5");
  return ADI_OK;
}
