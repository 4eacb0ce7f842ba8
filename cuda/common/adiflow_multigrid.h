/* Transfers between two multigrid levels, one coarse (or fine) cell each:
 * the bodies of fortran/multigrid_transfer.f90 with the same loops and the
 * same order of operations, so the strict GPU build gives the CPU's bits.
 * fv: the fine level's view, cv: the coarse one's; r[3]: the coarsening
 * ratio (1 or 2) per direction. The kernels are in cuda/api/multigrid.cu. */
#ifndef ADIFLOW_MULTIGRID_H
#define ADIFLOW_MULTIGRID_H

#include "adiflow_stages.h"

/* fine index of child (di) of coarse cell ic along a direction of ratio r */
ADI_HD static inline int mg_child(int r, int ic, int di) { return r*(ic - 1) + 1 + di; }

/* restrict_level: coarse q = sum(vol q)/sum(vol) and coarse P = sum of the
 * children's residuals, over the children k, j, then i innermost; a fine
 * level that is itself coarse adds its own forcing to its residual first
 * (add_forcing) */
ADI_HD static inline void mg_restrict_point(const adi_view *fv, const adi_view *cv, double *pc_field, const int r[3],
                                            int ic, int jc, int kc)
{
  double num[5] = {0.0, 0.0, 0.0, 0.0, 0.0}, s[5] = {0.0, 0.0, 0.0, 0.0, 0.0}, den = 0.0, rf;
  int di, dj, dk, m, p, pc = adi_pt(cv, ic, jc, kc);
  for (dk = 0; dk < r[2]; ++dk)
    for (dj = 0; dj < r[1]; ++dj)
      for (di = 0; di < r[0]; ++di) {
        p = adi_pt(fv, mg_child(r[0], ic, di), mg_child(r[1], jc, dj), mg_child(r[2], kc, dk));
        den = den + fv->vol[p];
        for (m = 1; m <= 5; ++m) {
          num[m - 1] = num[m - 1] + fv->vol[p]*ADI_F(fv, q, m, p);
          rf = ADI_F(fv, res, m, p);
          if (fv->forcing != NULL) rf = rf + ADI_F(fv, forcing, m, p);
          s[m - 1] = s[m - 1] + rf;
        }
      }
  for (m = 1; m <= 5; ++m) {
    ADI_F(cv, q, m, pc) = num[m - 1]/den;
    pc_field[(ptrdiff_t)(m - 1)*cv->npts + pc] = s[m - 1];
  }
}

/* subtract_residual: P = P - res */
ADI_HD static inline void mg_subtract_residual_point(const adi_view *cv, double *pc_field, int i, int j, int k)
{
  int m, p = adi_pt(cv, i, j, k);
  for (m = 1; m <= 5; ++m)
    pc_field[(ptrdiff_t)(m - 1)*cv->npts + p] = pc_field[(ptrdiff_t)(m - 1)*cv->npts + p] - ADI_F(cv, res, m, p);
}

/* coarse_correction: dq = q - q0, cells 0..n+1 */
ADI_HD static inline void mg_correction_point(const adi_view *cv, const double *q0, int i, int j, int k)
{
  int m, p = adi_pt(cv, i, j, k);
  for (m = 1; m <= 5; ++m) ADI_F(cv, dq, m, p) = ADI_F(cv, q, m, p) - q0[(ptrdiff_t)(m - 1)*cv->npts + p];
}

/* the Fortran's neighbours: coarse cell c0 of fine index a, the second
 * trilinear neighbour c1, weights (3/4, 1/4), or (1, 0) along a direction
 * that does not coarsen */
ADI_HD static inline void mg_neighbours(int r, int a, int *c0, int *c1, double *w0, double *w1)
{
  if (r == 2) {
    *c0 = (a - 1)/2 + 1;
    *c1 = (a % 2 == 1) ? *c0 - 1 : *c0 + 1;
    *w0 = 0.75;
    *w1 = 0.25;
  } else {
    *c0 = a;
    *c1 = a;
    *w0 = 1.0;
    *w1 = 0.0;
  }
}

/* prolong_correction: fine q += trilinear interpolation of the coarse dq */
ADI_HD static inline void mg_prolong_point(const adi_view *fv, const adi_view *cv, const int r[3], int i, int j,
                                           int k)
{
  int i0, i1, j0, j1, k0, k1, m, p = adi_pt(fv, i, j, k);
  double wi0, wi1, wj0, wj1, wk0, wk1;
  mg_neighbours(r[0], i, &i0, &i1, &wi0, &wi1);
  mg_neighbours(r[1], j, &j0, &j1, &wj0, &wj1);
  mg_neighbours(r[2], k, &k0, &k1, &wk0, &wk1);
#define MG_C(a, b, c) ADI_F(cv, dq, m, adi_pt(cv, a, b, c))
  for (m = 1; m <= 5; ++m)
    ADI_F(fv, q, m, p) = ADI_F(fv, q, m, p)
      + (wk0*(wj0*(wi0*MG_C(i0, j0, k0) + wi1*MG_C(i1, j0, k0)) + wj1*(wi0*MG_C(i0, j1, k0) + wi1*MG_C(i1, j1, k0)))
         + wk1*(wj0*(wi0*MG_C(i0, j0, k1) + wi1*MG_C(i1, j0, k1)) + wj1*(wi0*MG_C(i0, j1, k1) + wi1*MG_C(i1, j1, k1))));
#undef MG_C
}

#endif
