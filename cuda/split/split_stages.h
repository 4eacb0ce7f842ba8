/* The split kernel family (kernels = 'split'): fortran/solver_cpu.f90's
 * cpu_iteration, one kernel per stage and direction. A C header, so that the
 * host emulation of its launch sequence (tests/c_vs_fortran/stages_host_emul.c) is made
 * from the same list as the GPU schedule (cuda/split/schedule.cu). The
 * bodies it names: cuda/common/adiflow_stages.h; the launchers:
 * cuda/split/split.cuh, and cuda/common/kernels.cuh for the boundary fill,
 * wall temperature and residual reset that both families share. */
#ifndef ADIFLOW_SPLIT_STAGES_H
#define ADIFLOW_SPLIT_STAGES_H

#include "adiflow_stages.h"

/* The one list a stage is registered in: the enum, the names, the index
 * boxes, the GPU dispatch, the host emulation and the timing table's
 * families are made from it. A new stage: a row here, its body in the
 * cuda/common header of its Fortran module, and its kernel and launcher in
 * cuda/split/ (thin: the cell, then the body).
 *   X(id, name, family, box, launch, body)
 *   id      ST_<id>; the order is the timing table's, and the schedule below
 *           takes FLUX1..FLUX4 and ADI1..ADI5 as runs
 *   name    the kernel's name (the seed paper's flux_kernel1-4, ADI_kernel1-5)
 *   family  its line among the timing table's kernel families (SF_*)
 *   box     the index box it runs over, with v and d in scope
 *   launch  its launch on the GPU, with v, d, cfl and the stream s in scope
 *   body    one point (i, j, k), or one line (b, c) = (i, j), on the host,
 *           with v, d, cfl, i, j, k in scope; the kernel runs the same body.
 *           RES_ZERO is a memset of the whole field: no body per point. */
#define ADI_SPLIT_STAGES(X)                                                                                       \
  X(BC,       "bc_kernel",             SF_BC,    adi_box_lines(v, d, 1),   launch_bc_kernel(v, d, s),             \
    fill_ghosts_line(v, d, i, j))                                                                                 \
  X(PRIM,     "primitives_kernel",     SF_PRIM,  adi_box_all(v),           launch_primitives_kernel(v, s),        \
    primitives_point(v, i, j, k))                                                                                 \
  X(TSTEP,    "time_step_kernel",      SF_TSTEP, adi_box_interior(v),      launch_time_step_kernel(v, cfl, s),    \
    time_step_point(v, cfl, i, j, k))                                                                             \
  X(RES_ZERO, "res_zero(memset)",      SF_RESET, adi_box_interior(v),      launch_res_zero(v, s),                 \
    (void)0)                                                                                                      \
  X(FLUX1,    "flux_kernel1",          SF_FLUX,  stage_bounds(v, d, 0, 2), launch_flux_kernel1(v, d, s),          \
    flux_stage1_point(v, d, i, j, k))                                                                             \
  X(FLUX2,    "flux_kernel2",          SF_FLUX,  stage_bounds(v, d, 1, 1), launch_flux_kernel2(v, d, s),          \
    flux_stage2_point(v, d, i, j, k))                                                                             \
  X(FLUX3,    "flux_kernel3",          SF_FLUX,  stage_bounds(v, d, 1, 1), launch_flux_kernel3(v, d, s),          \
    flux_stage3_point(v, d, i, j, k))                                                                             \
  X(VISC,     "viscous_kernel",        SF_VISC,  stage_bounds(v, d, 1, 1), launch_viscous_kernel(v, d, s),        \
    viscous_flux_point(v, d, i, j, k))                                                                            \
  X(FLUX4,    "flux_kernel4",          SF_FLUX,  stage_bounds(v, d, 1, 0), launch_flux_kernel4(v, d, s),          \
    flux_stage4_point(v, d, i, j, k))                                                                             \
  X(ADI1,     "ADI_kernel1",           SF_ADI,   adi_box_interior(v),      launch_ADI_kernel1(v, d, s),           \
    adi_stage1_point(v, d, i, j, k))                                                                              \
  X(ADI2,     "ADI_kernel2",           SF_ADI,   adi_box_interior(v),      launch_ADI_kernel2(v, d, s),           \
    adi_stage2_point(v, d, i, j, k))                                                                              \
  X(ADI3,     "ADI_kernel3",           SF_ADI,   adi_box_interior(v),      launch_ADI_kernel3(v, d, s),           \
    adi_stage3_point(v, d, i, j, k))                                                                              \
  X(ADI4,     "ADI_kernel4",           SF_ADI,   adi_box_lines(v, d, 0),   launch_ADI_kernel4(v, d, s),           \
    adi_stage4_line(v, d, i, j))                                                                                  \
  X(ADI5,     "ADI_kernel5",           SF_ADI,   adi_box_interior(v),      launch_ADI_kernel5(v, d, s),           \
    adi_stage5_point(v, d, i, j, k))                                                                              \
  X(WALLT,    "bc_temperature_kernel", SF_BC,    adi_box_lines(v, d, 1),   launch_bc_temperature_kernel(v, d, s), \
    fill_wall_temperatures_line(v, d, i, j))

/* the kernel families of the timing table, in its order: F(id, name) */
#define ADI_SPLIT_FAMILIES(F)                                                   \
  F(SF_BC, "boundary conditions") F(SF_PRIM, "primitives")                      \
  F(SF_TSTEP, "local time step") F(SF_RESET, "residual reset")                  \
  F(SF_FLUX, "flux (flux_kernel1-4)") F(SF_VISC, "viscous")                     \
  F(SF_ADI, "lu_adi (ADI_kernel1-5)")

enum adi_stage_id {
#define ADI_X(id, name, family, box, launch, body) ST_##id,
  ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  ST_COUNT
};

enum adi_split_family {
#define ADI_FAM(id, name) id,
  ADI_SPLIT_FAMILIES(ADI_FAM)
#undef ADI_FAM
  SF_COUNT
};

typedef struct adi_step {
  int stage, d;
} adi_step;

enum { ADI_MAX_STEPS = 3 + 3 + 3 + 3*5 + 3*5 };

/* Steps of one iteration in order; returns their number. The isothermal
 * wall temperature (ST_WALLT) follows the time step, which reads interior
 * temperatures only, as in solver_cpu.f90. */
static inline int adi_iteration_schedule(const adi_solver_params *sp, adi_step steps[ADI_MAX_STEPS])
{
  int n = 0, d, st, order = sp->order;
  for (d = 1; d <= 3; ++d) { steps[n].stage = ST_BC; steps[n].d = d; ++n; }
  steps[n].stage = ST_PRIM; steps[n].d = 0; ++n;
  steps[n].stage = ST_TSTEP; steps[n].d = 0; ++n;
  if (sp->wall_thermal == ADI_WALL_ISOTHERMAL) {
    for (d = 1; d <= 3; ++d) { steps[n].stage = ST_WALLT; steps[n].d = d; ++n; }
  }
  steps[n].stage = ST_RES_ZERO; steps[n].d = 0; ++n;
  for (d = 1; d <= 3; ++d) {
    for (st = ST_FLUX1; st <= ST_FLUX4; ++st) {
      if (st == ST_FLUX1 && order != 2) continue;
      steps[n].stage = st; steps[n].d = d; ++n;
    }
  }
  for (d = 1; d <= 3; ++d) {
    for (st = ST_ADI1; st <= ST_ADI5; ++st) { steps[n].stage = st; steps[n].d = d; ++n; }
  }
  return n;
}

static inline const char *adi_stage_name(int stage)
{
  static const char *names[ST_COUNT] = {
#define ADI_X(id, name, family, box, launch, body) name,
    ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  };
  return stage >= 0 && stage < ST_COUNT ? names[stage] : "?";
}

/* the timing table's family of a stage (SF_*), and a family's name */
static inline int adi_stage_family(int stage)
{
  static const int fam[ST_COUNT] = {
#define ADI_X(id, name, family, box, launch, body) family,
    ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  };
  return stage >= 0 && stage < ST_COUNT ? fam[stage] : -1;
}

static inline const char *adi_split_family_name(int f)
{
  static const char *names[SF_COUNT] = {
#define ADI_FAM(id, name) name,
    ADI_SPLIT_FAMILIES(ADI_FAM)
#undef ADI_FAM
  };
  return f >= 0 && f < SF_COUNT ? names[f] : "?";
}

/* Index box a stage runs over (the box column of ADI_SPLIT_STAGES). */
ADI_HD static inline adi_box adi_stage_box(const adi_view *v, int stage, int d)
{
  switch (stage) {
#define ADI_X(id, name, family, box, launch, body) case ST_##id: return box;
    ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  default: return adi_box_interior(v);
  }
}

#endif
