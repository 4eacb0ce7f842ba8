/* Residual norms, one k-plane of one variable each: the sums of
 * fortran/residual_norms.f90 in its order. */
#ifndef ADIFLOW_RESIDUAL_NORMS_H
#define ADIFLOW_RESIDUAL_NORMS_H

#include "flow_fields.h"

/* ---- residual norms: sum of (res/vol)^2 over k-plane k of variable m,
 * j then i in increasing order, as residual_norms.f90 sums plane(m, k) ---- */
ADI_HD static inline double residual_plane_sum_from(const adi_view *v, int m, int k, double sum)
{
  int i, j, p;
  double r;
  for (j = 1; j <= v->nj; ++j) {
    for (i = 1; i <= v->ni; ++i) {
      p = adi_pt(v, i, j, k);
      r = ADI_F(v, res, m, p)/v->vol[p];
      sum = sum + r*r;
    }
  }
  return sum;
}

ADI_HD static inline double residual_plane_sum(const adi_view *v, int m, int k)
{
  return residual_plane_sum_from(v, m, k, 0.0);
}

/* norms(m) = sqrt(sum over k in order of plane(m, k) / (ni*nj*nk));
 * plane(m, k) at plane[(m-1) + 5*(k-1)] */
ADI_HD static inline double residual_norm_final(const adi_view *v, const double *plane, int m)
{
  int k;
  double norm = 0.0;
  for (k = 1; k <= v->nk; ++k) norm = norm + plane[(m - 1) + 5*(k - 1)];
  return sqrt(norm/((double)v->ni*(double)v->nj*(double)v->nk));
}

#endif
