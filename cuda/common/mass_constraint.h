/* mass_fix: the sums and the rescale of fortran/mass_constraint.f90
 * (mass_row_sum, add_mass_plane_sums, scale_state) in its fixed order. */
#ifndef ADIFLOW_MASS_CONSTRAINT_H
#define ADIFLOW_MASS_CONSTRAINT_H

#include "flow_fields.h"

/* ---- mass_fix (fortran/mass_constraint.f90): the total mass M = sum of
 * vol*rho in the Fortran's fixed order, rows first, then planes ---- */

/* sum of vol*rho over row (j, k), i in order from 0: mass_row_sum */
ADI_HD static inline double mass_row_sum(const adi_view *v, int j, int k)
{
  int i, p;
  double r = 0.0;
  for (i = 1; i <= v->ni; ++i) {
    p = adi_pt(v, i, j, k);
    r = r + v->vol[p]*ADI_F(v, q, 1, p);
  }
  return r;
}

/* plane k's running sum plus its rows in j order, rows[(j-1) + nj*(k-1)]
 * from mass_row_sum: the j loop of add_mass_plane_sums (the sum passed in
 * is the one of the j blocks below, 0 on a single domain) */
ADI_HD static inline double mass_plane_sum_from(const adi_view *v, const double *rows, int k, double sum)
{
  int j;
  for (j = 1; j <= v->nj; ++j) sum = sum + rows[(j - 1) + v->nj*(k - 1)];
  return sum;
}

/* the five conservative variables of interior cell (i,j,k) times s:
 * scale_state's loop body */
ADI_HD static inline void scale_state_point(const adi_view *v, double s, int i, int j, int k)
{
  int m, p = adi_pt(v, i, j, k);
  for (m = 1; m <= 5; ++m) ADI_F(v, q, m, p) = s*ADI_F(v, q, m, p);
}

#endif
