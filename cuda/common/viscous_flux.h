/* Viscous flux at one face: the loop body of fortran/viscous_flux.f90
 * (viscous_flux_faces), into the work fields of convective_flux.h, as the
 * Fortran module uses convective_flux's. */
#ifndef ADIFLOW_VISCOUS_FLUX_H
#define ADIFLOW_VISCOUS_FLUX_H

#include "convective_flux.h"

/* ---- viscous flux at faces 1..n+1 (between stages 3 and 4) ---- */
/* Viscous flux through the low face of cell p in direction d: the
 * differences and metric vectors of fortran/viscous_flux.f90 gathered for
 * viscous_face_flux. Used by the split viscous kernel and by the merged
 * fused flux (cuda/common/adiflow_merged.h). */
ADI_HD static ADI_FORCEINLINE void flux_face_visc_dir(const adi_view *v, int d, int p, double fv[5])
{
  const int prim_of_grad[4] = {2, 3, 4, 6};
  int s = adi_stride(v, d), il = p - s, m, dd, vr, c, ep;
  double dphi[12], mv[9], volf;
  for (dd = 1; dd <= 3; ++dd) {
    if (dd == d) {
      for (vr = 1; vr <= 4; ++vr) {
        m = prim_of_grad[vr - 1];
        ADI_M34(dphi, dd, vr) = ADI_F(v, qp, m, p) - ADI_F(v, qp, m, il);
      }
      for (c = 1; c <= 3; ++c) ADI_M34(mv, c, dd) = ADI_F(v, sf, 3*dd - 3 + c, p);
    } else {
      ep = adi_stride(v, dd);
      for (vr = 1; vr <= 4; ++vr) {
        m = prim_of_grad[vr - 1];
        ADI_M34(dphi, dd, vr) = 0.25*((ADI_F(v, qp, m, p + ep) + ADI_F(v, qp, m, il + ep))
                                      - (ADI_F(v, qp, m, p - ep) + ADI_F(v, qp, m, il - ep)));
      }
      for (c = 1; c <= 3; ++c)
        ADI_M34(mv, c, dd) = 0.5*(ADI_F(v, sc, 3*dd - 3 + c, il) + ADI_F(v, sc, 3*dd - 3 + c, p));
    }
  }
  volf = 0.5*(v->vol[il] + v->vol[p]);
  viscous_face_flux(&v->sp, d, dphi, mv, volf,
                    0.5*(ADI_F(v, qp, 2, il) + ADI_F(v, qp, 2, p)), 0.5*(ADI_F(v, qp, 3, il) + ADI_F(v, qp, 3, p)),
                    0.5*(ADI_F(v, qp, 4, il) + ADI_F(v, qp, 4, p)), ADI_F(v, qp, 6, il), ADI_F(v, qp, 6, p), fv);
}

ADI_HD static ADI_FORCEINLINE void viscous_flux_point_dir(const adi_view *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), m;
  double fv[5];
  flux_face_visc_dir(v, d, p, fv);
  for (m = 1; m <= 5; ++m) ADI_F(v, wk, WK_FV + m, p) = fv[m - 1];
}

/* d as a constant in each branch, so that the device keeps dphi and mv in
 * registers (with d unknown it indexes them at run time, in local memory) */
ADI_HD static inline void viscous_flux_point(const adi_view *v, int d, int i, int j, int k)
{
  switch (d) {
  case 1: viscous_flux_point_dir(v, 1, i, j, k); break;
  case 2: viscous_flux_point_dir(v, 2, i, j, k); break;
  default: viscous_flux_point_dir(v, 3, i, j, k); break;
  }
}

#endif
