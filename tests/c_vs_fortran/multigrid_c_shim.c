/* Wrappers that run the per-cell bodies of cuda/common/adiflow_multigrid.h
 * (the GPU's multigrid transfers) over a whole level on the host, so that
 * tests/c_vs_fortran/test_multigrid_c_vs_fortran.f90 can compare them with
 * fortran/multigrid_transfer.f90 bit for bit. Fields in the shared layout. */
#include <stddef.h>

#include "adiflow_multigrid.h"

static adi_view view_of(const adi_solver_params *sp, double *q, double *res, double *dq, const double *vol)
{
  return adi_make_view(sp, q, NULL, res, dq, NULL, NULL, NULL, NULL, vol);
}

/* coarse q and P from the fine level; forcing_f NULL for the finest level */
void c_mg_restrict(const adi_solver_params *spf, const adi_solver_params *spc, const int r[3], double *q_f,
                   double *res_f, const double *forcing_f, const double *vol_f, double *q_c, double *p_c)
{
  adi_view fv = view_of(spf, q_f, res_f, NULL, vol_f), cv = view_of(spc, q_c, NULL, NULL, NULL);
  int i, j, k;
  fv.forcing = forcing_f;
  for (k = 1; k <= cv.nk; ++k)
    for (j = 1; j <= cv.nj; ++j)
      for (i = 1; i <= cv.ni; ++i) {
        mg_restrict_point(&fv, &cv, p_c, r, i, j, k);
      }
}

void c_mg_subtract(const adi_solver_params *spc, double *res_c, double *p_c)
{
  adi_view cv = view_of(spc, NULL, res_c, NULL, NULL);
  int i, j, k;
  for (k = 1; k <= cv.nk; ++k)
    for (j = 1; j <= cv.nj; ++j)
      for (i = 1; i <= cv.ni; ++i) mg_subtract_residual_point(&cv, p_c, i, j, k);
}

void c_mg_correction(const adi_solver_params *spc, double *q_c, const double *q0, double *dq_c)
{
  adi_view cv = view_of(spc, q_c, NULL, dq_c, NULL);
  int i, j, k;
  for (k = 0; k <= cv.nk + 1; ++k)
    for (j = 0; j <= cv.nj + 1; ++j)
      for (i = 0; i <= cv.ni + 1; ++i) mg_correction_point(&cv, q0, i, j, k);
}

void c_mg_prolong(const adi_solver_params *spf, const adi_solver_params *spc, const int r[3], double *dq_c,
                  double *q_f)
{
  adi_view fv = view_of(spf, q_f, NULL, NULL, NULL), cv = view_of(spc, NULL, NULL, dq_c, NULL);
  int i, j, k;
  for (k = 1; k <= fv.nk; ++k)
    for (j = 1; j <= fv.nj; ++j)
      for (i = 1; i <= fv.ni; ++i) mg_prolong_point(&fv, &cv, r, i, j, k);
}
