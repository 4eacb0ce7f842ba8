/* The boundary patches of a grid as the GPU backend takes them from the
 * Fortran driver (fortran/boundary_patches.f90 is the reference: what a
 * patch is, how the face maps are built and checked, how a coarse
 * multigrid level's patches are made).
 *
 * adi_bc_patch is the bind(c) type bc_patch_t, byte for byte
 * (tests/c_vs_fortran/test_params_layout.f90 checks every member). The
 * face maps travel as one array: the maps id(b, c) of the faces imin,
 * imax, jmin, jmax, kmin, kmax one after another, each nb x nc patch
 * numbers (1-based, as in the Fortran) in Fortran order, b fastest, with
 * nb x nc the face's cells in cell_index order (face_sizes of
 * cuda/common/boundary_patches.h). */
#ifndef ADIFLOW_PATCHES_H
#define ADIFLOW_PATCHES_H

#include "adiflow_params.h"

typedef struct adi_bc_patch {
  int kind;                      /* ADI_BC_* */
  int face;                      /* 1..6: imin, imax, jmin, jmax, kmin, kmax */
  int lo[2], hi[2];              /* first and last cell in the face's two directions */
  double v[ADI_NPATCH_VALUES];   /* the kind's values (boundary_patches.f90 says which) */
} adi_bc_patch;

#endif
