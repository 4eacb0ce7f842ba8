/* Viscous flux of direction d at faces 1..n+1 (interior across), one thread
 * per face, written into the work fields that flux_kernel4 subtracts.
 * Mirror: fortran/viscous_flux.f90. */
#include "split.cuh"

__global__ void viscous_kernel(adi_view v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  viscous_flux_point(&v, d, i, j, k);
}

int launch_viscous_kernel(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_VISC, d);
  viscous_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("viscous_kernel");
  return ADI_OK;
}
