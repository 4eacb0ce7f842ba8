/* Primitive variables on every cell (ghosts included) and the local time
 * step dtv = dt / volume on the interior.
 * Mirror: fortran/primitives.f90, fortran/time_step.f90. */
#include "split.cuh"

__global__ void primitives_kernel(adi_view v, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  primitives_point(&v, i, j, k);
}

/* the cells of box b outside box x (the ghost shell around the interior) */
__global__ void primitives_shell_kernel(adi_view v, adi_box b, adi_box x)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  if (i >= x.lo[0] && i <= x.hi[0] && j >= x.lo[1] && j <= x.hi[1] && k >= x.lo[2] && k <= x.hi[2]) return;
  primitives_point(&v, i, j, k);
}

__global__ void time_step_kernel(adi_view v, double cfl, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  time_step_point(&v, cfl, i, j, k);
}

int launch_primitives_kernel(const adi_view *v, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_PRIM, 0);
  primitives_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, b);
  ADI_LAUNCH_CHECK("primitives_kernel");
  return ADI_OK;
}

/* part 1: the interior cells only; part 2: every other cell of ST_PRIM's box
 * (the two together are launch_primitives_kernel, point for point) */
int launch_primitives_part(const adi_view *v, int part, cudaStream_t s)
{
  adi_box all = adi_stage_box(v, ST_PRIM, 0), in = adi_stage_box(v, ST_TSTEP, 0);
  if (part == 1) {
    primitives_kernel<<<adi_grid_dim(&in), adi_block_dim(), 0, s>>>(*v, in);
    ADI_LAUNCH_CHECK("primitives_kernel (interior)");
  } else {
    primitives_shell_kernel<<<adi_grid_dim(&all), adi_block_dim(), 0, s>>>(*v, all, in);
    ADI_LAUNCH_CHECK("primitives_shell_kernel");
  }
  return ADI_OK;
}

int launch_time_step_kernel(const adi_view *v, double cfl, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_TSTEP, 0);
  time_step_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(*v, cfl, b);
  ADI_LAUNCH_CHECK("time_step_kernel");
  return ADI_OK;
}
