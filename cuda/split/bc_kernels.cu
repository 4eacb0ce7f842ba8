/* Boundary conditions: ghost-cell fill of direction d, one thread per line
 * (b, c) across d over the full cross-section, ghosts included (both sides,
 * both layers). The bridge launches d = 1, 2, 3 one after another, as
 * apply_boundary_conditions loops, so edge and corner ghosts get the values
 * of the CPU. bc_temperature_kernel sets the ghost temperatures of isothermal
 * walls after the primitives, in the same direction order.
 * Mirror: fortran/boundary_conditions.f90. */
#include "kernels.cuh"

__global__ void bc_kernel(adi_view v, int d, adi_box b)
{
  int bb, cc, unused;
  if (!adi_box_cell(&b, &bb, &cc, &unused)) return;
  bc_fill_line(&v, d, bb, cc);
}

int launch_bc_kernel(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_BC, d);
  bc_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("bc_kernel");
  return ADI_OK;
}

__global__ void bc_temperature_kernel(adi_view v, int d, adi_box b)
{
  int bb, cc, unused;
  if (!adi_box_cell(&b, &bb, &cc, &unused)) return;
  wall_temperature_line(&v, d, bb, cc);
}

int launch_bc_temperature_kernel(const adi_view *v, int d, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_WALLT, d);
  bc_temperature_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, d, b);
  ADI_LAUNCH_CHECK("bc_temperature_kernel");
  return ADI_OK;
}
