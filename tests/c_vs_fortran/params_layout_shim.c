/* The C side of tests/c_vs_fortran/test_params_layout.f90: the size of adi_solver_params
 * and of adi_gpu_settings and the offset of each member, in declaration
 * order. */
#include <stddef.h>
#include <stdint.h>

#include "adiflow_gpu_settings.h"
#include "adiflow_params.h"

#define MEMBERS(X)                                                                                        \
  X(gamma) X(gm1) X(ggm1) X(gm2) X(re_inv) X(cond_coef) X(sutherland_s) X(efix) X(vis_fac) X(t_wall)     \
  X(lid_u) X(lid_v) X(lid_w) X(visc_law) X(order) X(limiter) X(wall_thermal) X(bc) X(ni) X(nj) X(nk)     \
  X(ldi) X(ldj) X(ldk) X(roe_low_mach) X(implicit_single) X(lim_eps2)

/* out[0] = size, out[1..] = offsets; returns the number of members */
int adi_params_layout(int64_t *out, int nmax)
{
  int n = 0;
  out[n++] = (int64_t)sizeof(adi_solver_params);
#define OFFSET(m) if (n < nmax) out[n++] = (int64_t)offsetof(adi_solver_params, m);
  MEMBERS(OFFSET)
#undef OFFSET
  return n - 1;
}

#define GPU_MEMBERS(X) X(device) X(timing) X(overlap) X(merged_steps) X(tuning_table)

/* the same for adi_gpu_settings (the &gpu group) */
int adi_gpu_settings_layout(int64_t *out, int nmax)
{
  int n = 0;
  out[n++] = (int64_t)sizeof(adi_gpu_settings);
#define OFFSET(m) if (n < nmax) out[n++] = (int64_t)offsetof(adi_gpu_settings, m);
  GPU_MEMBERS(OFFSET)
#undef OFFSET
  return n - 1;
}
