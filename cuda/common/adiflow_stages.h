/* The body of every stage of one iteration at one point (or, for the ADI
 * sweeps, one grid line), shared by the CUDA kernels (cuda/common/,
 * cuda/split/, cuda/merged/, cuda/api/, cuda/multi/) and the host
 * emulations of the GPU launch sequences (tests/c_vs_fortran/stages_host_emul.c,
 * tests/c_vs_fortran/merged_host_emul.c). This header gathers them; each lives in the
 * header named after the Fortran module whose loop body it mirrors one to
 * one:
 *   flow_fields.h          flow_fields.f90, grid_layout.f90   adi_view, adi_pt, cell_index, index boxes
 *   boundary_conditions.h  boundary_conditions.f90            bc_fill_ghost/line, wall_temperature_ghost/line
 *   boundary_patches.h     boundary_conditions.f90 (patches)  fill_patch_ghost/line, patch_wall_temperature_ghost/line
 *   ghost_fill.h           ghost_fill.f90                     fill_ghosts_line, fill_wall_temperatures_line
 *   primitives.h           primitives.f90                     primitives_point
 *   time_step.h            time_step.f90                      time_step_point
 *   convective_flux.h      convective_flux.f90                stage_bounds, flux_stage1_point..4
 *   viscous_flux.h         viscous_flux.f90                   viscous_flux_point
 *   lu_adi.h               lu_adi.f90                         adi_stage1_point..5, adi_stage4_line
 *   mpi_decomp.h           mpi_decomp.f90                     adi_stage4_fwd_var/bwd_var (a block's sweep)
 *   residual_norms.h       residual_norms.f90                 residual_plane_sum, residual_norm_final
 *   mass_constraint.h      mass_constraint.f90                mass_row_sum, mass_plane_sum_from, scale_state_point
 * with the same index ranges (stage_bounds), the same ghost semantics and the
 * same arithmetic (adiflow_math.h: flow_math.f90, flow_math_sp.f90), so a
 * GPU iteration reproduces the CPU one bit for bit when FMA contraction is
 * off. tests/c_vs_fortran/test_stages_c_vs_fortran.f90 runs the emulation against
 * solver_cpu on the CPU.
 *
 * The families' own lists: the split family's stages and schedule in
 * cuda/split/split_stages.h, the merged family's kernels and bodies in
 * adiflow_merged.h; the multigrid transfers in adiflow_multigrid.h. */
#ifndef ADIFLOW_STAGES_H
#define ADIFLOW_STAGES_H

#include "flow_fields.h"
#include "boundary_conditions.h"
#include "boundary_patches.h"
#include "ghost_fill.h"
#include "primitives.h"
#include "time_step.h"
#include "convective_flux.h"
#include "viscous_flux.h"
#include "lu_adi.h"
#include "mpi_decomp.h"
#include "residual_norms.h"
#include "mass_constraint.h"

#endif
