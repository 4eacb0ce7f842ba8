/* The GPU's boundary-patch fill emulated on the CPU, at the kernels'
 * granularity: patch_kernel and patch_temperature_kernel
 * (cuda/common/bc_kernels.cu) launched for d = 1, 2, 3, each "thread" one
 * ghost of the box of lines across d (adi_box_lines with ghosts) times the
 * four ghosts of a line, the very body the kernel calls
 * (cuda/common/boundary_patches.h). Visited forwards or (reverse = 1)
 * backwards: a ghost that depended on another of the same launch (a race
 * on the GPU) would then differ from the Fortran loop.
 * tests/c_vs_fortran/test_patch_fill_c_vs_fortran.f90 compares it with
 * fortran/boundary_conditions.f90's fill_patch_direction and
 * apply_patch_wall_temperature. Fields in the Fortran layout; the patches
 * and the face maps as the bridge takes them (include/adiflow_patches.h). */
#include "adiflow_stages.h"

/* one launch: every ghost (b, c, g) of direction d, g = 2*(side - 1) + layer - 1 */
static void launch(const adi_view *v, int d, int temperature, int reverse)
{
  adi_box b = adi_box_lines(v, d, 1);
  int nb = b.hi[0] - b.lo[0] + 1, nc = b.hi[1] - b.lo[1] + 1, n = nb*nc*4, t, r, bb, cc, g;
  for (t = 0; t < n; ++t) {
    r = reverse ? n - 1 - t : t;
    bb = b.lo[0] + r%nb;
    cc = b.lo[1] + (r/nb)%nc;
    g = r/(nb*nc);
    if (temperature) patch_wall_temperature_ghost(v, d, bb, cc, 1 + g/2, 1 + g%2);
    else fill_patch_ghost(v, d, bb, cc, 1 + g/2, 1 + g%2);
  }
}

static adi_view patched_view(const adi_solver_params *sp, double *q, double *qp, const double *sf,
                             const adi_bc_patch *patches, const int *face_maps)
{
  adi_view v = adi_make_view(sp, q, qp, NULL, NULL, NULL, NULL, sf, NULL, NULL);
  v.patch = patches;
  v.patch_map = face_maps;
  return v;
}

/* the state fill of every direction, d = 1, 2, 3 (the schedules' order) */
void emul_patch_fill(const adi_solver_params *sp, int reverse, double *q, const double *sf,
                     const adi_bc_patch *patches, const int *face_maps)
{
  adi_view v = patched_view(sp, q, NULL, sf, patches, face_maps);
  int d;
  for (d = 1; d <= 3; ++d) launch(&v, d, 0, reverse);
}

/* the isothermal walls' ghost temperatures, qp(6), d = 1, 2, 3 */
void emul_patch_wall_temperature(const adi_solver_params *sp, int reverse, double *qp,
                                 const adi_bc_patch *patches, const int *face_maps)
{
  adi_view v = patched_view(sp, NULL, qp, NULL, patches, face_maps);
  int d;
  for (d = 1; d <= 3; ++d) launch(&v, d, 1, reverse);
}
