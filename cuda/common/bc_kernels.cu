/* Boundary conditions: ghost-cell fill of direction d over the full
 * cross-section of lines (b, c) across d, ghosts included. The four ghosts
 * of a line are independent (bc_fill_ghost): one thread fills one ghost,
 * blockIdx.z = 2*(side - 1) + layer - 1; one thread per line ran the four
 * one after the other, a chain of dependent loads. Along i that chain was
 * kept while a side's ghosts and mirror cells shared one 32-byte sector;
 * with cell i = 1 on a 128-byte boundary (cuda/api/grid.cu) they no longer
 * do, and one thread per ghost is the faster there too. The
 * schedules launch d = 1, 2, 3 one after another, as
 * apply_boundary_conditions loops, so edge and corner ghosts get the values
 * of the CPU. Both kernel families and the multigrid transfers
 * (cuda/api/multigrid.cu) launch these.
 * bc_temperature_kernel sets the ghost temperatures of isothermal walls
 * after the primitives, in the same direction order and the same layout.
 * A grid with boundary patches (the view's patch and patch_map) takes
 * patch_kernel and patch_temperature_kernel instead, over the same ghosts
 * in the same order: the launchers choose as fortran/ghost_fill.f90 does,
 * so every launch of the fill (both families, the multigrid transfers,
 * every level with its own patches) follows the grid's rules.
 * Mirror: fortran/boundary_conditions.f90. */
#include "kernels.cuh"

/* the lines across d, ghosts included (the box of the fill and of the
 * walls' temperatures), with its third extent over the four ghosts of a
 * line */
static adi_box ghost_box(const adi_view *v, int d)
{
  adi_box b = adi_box_lines(v, d, 1);
  b.lo[2] = 0;
  b.hi[2] = 3;
  return b;
}

__global__ void bc_kernel(adi_view v, int d, adi_box b)
{
  int bb, cc, g;
  adi_dep_wait();
  if (!adi_box_cell(&b, &bb, &cc, &g)) return;
  bc_fill_ghost(&v, d, bb, cc, 1 + g/2, 1 + g%2);
}

/* fill_patch_direction's ghost: one thread per ghost, as bc_kernel */
__global__ void patch_kernel(adi_view v, int d, adi_box b)
{
  int bb, cc, g;
  adi_dep_wait();
  if (!adi_box_cell(&b, &bb, &cc, &g)) return;
  fill_patch_ghost(&v, d, bb, cc, 1 + g/2, 1 + g%2);
}

/* dep: the launch may overlap the kernel before it (adi_launch_dep). A
 * grid whose ghosts its caller fills (adi_view's ghosts_by_caller) gets no
 * launch: the caller filled them before, in the whole set's order. */
int launch_bc_kernel_dep(const adi_view *v, int d, int dep, cudaStream_t s)
{
  adi_box b = ghost_box(v, d);
  if (v->ghosts_by_caller) return ADI_OK;
  if (v->patch != NULL) {
    ADI_GPU_CHECK(adi_launch_dep(dep, patch_kernel, adi_grid_dim(&b), adi_block_dim(), 0, s, *v, d, b));
    ADI_LAUNCH_CHECK("patch_kernel");
    return ADI_OK;
  }
  ADI_GPU_CHECK(adi_launch_dep(dep, bc_kernel, adi_grid_dim(&b), adi_block_dim(), 0, s, *v, d, b));
  ADI_LAUNCH_CHECK("bc_kernel");
  return ADI_OK;
}

int launch_bc_kernel(const adi_view *v, int d, cudaStream_t s) { return launch_bc_kernel_dep(v, d, 0, s); }

__global__ void bc_temperature_kernel(adi_view v, int d, adi_box b)
{
  int bb, cc, g;
  adi_dep_wait();
  if (!adi_box_cell(&b, &bb, &cc, &g)) return;
  wall_temperature_ghost(&v, d, bb, cc, 1 + g/2, 1 + g%2);
}

__global__ void patch_temperature_kernel(adi_view v, int d, adi_box b)
{
  int bb, cc, g;
  adi_dep_wait();
  if (!adi_box_cell(&b, &bb, &cc, &g)) return;
  patch_wall_temperature_ghost(&v, d, bb, cc, 1 + g/2, 1 + g%2);
}

int launch_bc_temperature_kernel_dep(const adi_view *v, int d, int dep, cudaStream_t s)
{
  adi_box b = ghost_box(v, d);
  if (v->patch != NULL) {
    ADI_GPU_CHECK(adi_launch_dep(dep, patch_temperature_kernel, adi_grid_dim(&b), adi_block_dim(), 0, s, *v, d, b));
    ADI_LAUNCH_CHECK("patch_temperature_kernel");
    return ADI_OK;
  }
  ADI_GPU_CHECK(adi_launch_dep(dep, bc_temperature_kernel, adi_grid_dim(&b), adi_block_dim(), 0, s, *v, d, b));
  ADI_LAUNCH_CHECK("bc_temperature_kernel");
  return ADI_OK;
}

int launch_bc_temperature_kernel(const adi_view *v, int d, cudaStream_t s)
{
  return launch_bc_temperature_kernel_dep(v, d, 0, s);
}
