/* Convective (Roe) flux of direction d in the seed paper's four kernels,
 * one thread per cell or face:
 *   flux_kernel1  du(c) = qp(c) - qp(c-1)            cells 0..n+2 along d
 *   flux_kernel2  MUSCL left/right states            faces 1..n+1
 *   flux_kernel3  Roe flux                           faces 1..n+1
 *   flux_kernel4  flux difference into the residual  cells 1..n
 * (viscous_kernel runs between 3 and 4). Interior 1..n across d. The
 * residual reset before them is a memset (launch_res_zero,
 * cuda/common/kernels.cuh).
 * Mirror: fortran/convective_flux.f90. */
#include "split.cuh"

__global__ void flux_kernel1(adi_view v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  flux_stage1_point(&v, d, i, j, k);
}

__global__ void flux_kernel2(adi_view v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  flux_stage2_point(&v, d, i, j, k);
}

__global__ void flux_kernel3(adi_view v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  flux_stage3_point(&v, d, i, j, k);
}

__global__ void flux_kernel4(adi_view v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  flux_stage4_point(&v, d, i, j, k);
}

int launch_flux_kernel1(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_FLUX1, d);
  flux_kernel1<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("flux_kernel1");
  return ADI_OK;
}

int launch_flux_kernel2(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_FLUX2, d);
  flux_kernel2<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("flux_kernel2");
  return ADI_OK;
}

int launch_flux_kernel3(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_FLUX3, d);
  flux_kernel3<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("flux_kernel3");
  return ADI_OK;
}

int launch_flux_kernel4(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_FLUX4, d);
  flux_kernel4<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("flux_kernel4");
  return ADI_OK;
}
