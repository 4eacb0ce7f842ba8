/* The ghosts of one line by the grid's boundary rules: the box's one type
 * per face (boundary_conditions.h), or the boundary patches the view
 * carries (boundary_patches.h). fortran/ghost_fill.f90's choice, line by
 * line, for the bodies of the stage lists (cuda/split/split_stages.h,
 * adiflow_merged.h) that the host emulations run; the GPU's launchers
 * choose the same way (cuda/common/bc_kernels.cu). */
#ifndef ADIFLOW_GHOST_FILL_H
#define ADIFLOW_GHOST_FILL_H

#include "boundary_conditions.h"
#include "boundary_patches.h"

/* ghost states of the line (b, c) across d */
ADI_HD static inline void fill_ghosts_line(const adi_view *v, int d, int b, int c)
{
  if (v->patch != NULL) fill_patch_line(v, d, b, c);
  else bc_fill_line(v, d, b, c);
}

/* isothermal walls' ghost temperatures of the line (b, c) across d */
ADI_HD static inline void fill_wall_temperatures_line(const adi_view *v, int d, int b, int c)
{
  if (v->patch != NULL) patch_wall_temperature_line(v, d, b, c);
  else wall_temperature_line(v, d, b, c);
}
#endif
