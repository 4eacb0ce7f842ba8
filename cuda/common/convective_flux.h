/* Convective (Roe) flux of one direction, one cell or face each: the loop
 * bodies of fortran/convective_flux.f90 (flux_stage1_differences ..
 * flux_stage4_accumulate) with its loop ranges (stage_bounds) and work
 * fields. The viscous flux between stages 3 and 4: viscous_flux.h. */
#ifndef ADIFLOW_CONVECTIVE_FLUX_H
#define ADIFLOW_CONVECTIVE_FLUX_H

#include "flow_fields.h"

/* work fields (1-based component = offset + m), convective_flux.f90 */
enum { WK_DU = 0, WK_QL = 5, WK_QR = 10, WK_FC = 15, WK_FV = 20 };

/* Loop bounds: [alo, ahi] along d (ahi relative to n), interior 1..n across. */
ADI_HD static inline adi_box stage_bounds(const adi_view *v, int d, int alo, int ahi)
{
  adi_box b;
  b.lo[0] = 1; b.lo[1] = 1; b.lo[2] = 1;
  b.hi[0] = v->ni; b.hi[1] = v->nj; b.hi[2] = v->nk;
  b.lo[d - 1] = alo;
  b.hi[d - 1] = adi_ncells(v, d) + ahi;
  return b;
}

/* ---- convective flux, stage 1: du(c) = qp(c) - qp(c-1), cells 0..n+2 along d ---- */
ADI_HD static inline void flux_stage1_point(const adi_view *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), s = adi_stride(v, d), m;
  for (m = 1; m <= 5; ++m)
    ADI_F(v, wk, WK_DU + m, p) = ADI_F(v, qp, m, p) - ADI_F(v, qp, m, p - s);
}

/* ---- stage 2: MUSCL left/right states at face p (between p-1 and p), faces 1..n+1 ---- */
ADI_HD static inline void flux_stage2_point(const adi_view *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), s = adi_stride(v, d), m, il, ir;
  for (m = 1; m <= 5; ++m) {
    il = p - s;
    if (v->sp.order == 2) {
      ir = p + s;
      ADI_F(v, wk, WK_QL + m, p) = ADI_F(v, qp, m, il)
        + 0.5*limiter(&v->sp, ADI_F(v, wk, WK_DU + m, il), ADI_F(v, wk, WK_DU + m, p));
      ADI_F(v, wk, WK_QR + m, p) = ADI_F(v, qp, m, p)
        - 0.5*limiter(&v->sp, ADI_F(v, wk, WK_DU + m, p), ADI_F(v, wk, WK_DU + m, ir));
    } else {
      ADI_F(v, wk, WK_QL + m, p) = ADI_F(v, qp, m, il);
      ADI_F(v, wk, WK_QR + m, p) = ADI_F(v, qp, m, p);
    }
  }
}

/* ---- stage 3: Roe flux at faces 1..n+1 ---- */
ADI_HD static inline void flux_stage3_point(const adi_view *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), s0 = 3*(d - 1), m;
  double f[5];
  roe_flux(&v->sp, ADI_F(v, wk, WK_QL + 1, p), ADI_F(v, wk, WK_QL + 2, p), ADI_F(v, wk, WK_QL + 3, p),
           ADI_F(v, wk, WK_QL + 4, p), ADI_F(v, wk, WK_QL + 5, p), ADI_F(v, wk, WK_QR + 1, p),
           ADI_F(v, wk, WK_QR + 2, p), ADI_F(v, wk, WK_QR + 3, p), ADI_F(v, wk, WK_QR + 4, p),
           ADI_F(v, wk, WK_QR + 5, p), ADI_F(v, sf, s0 + 1, p), ADI_F(v, sf, s0 + 2, p),
           ADI_F(v, sf, s0 + 3, p), f);
  for (m = 1; m <= 5; ++m) ADI_F(v, wk, WK_FC + m, p) = f[m - 1];
}

/* ---- stage 4: res(c) += (fc - fv)(c+1) - (fc - fv)(c), cells 1..n ---- */
ADI_HD static inline void flux_stage4_point(const adi_view *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), ih = p + adi_stride(v, d), m;
  for (m = 1; m <= 5; ++m)
    ADI_F(v, res, m, p) = ADI_F(v, res, m, p) + ((ADI_F(v, wk, WK_FC + m, ih) - ADI_F(v, wk, WK_FV + m, ih))
                                                - (ADI_F(v, wk, WK_FC + m, p) - ADI_F(v, wk, WK_FV + m, p)));
}

#endif
