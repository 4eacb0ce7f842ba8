/* Local time step at one cell: the loop body of fortran/time_step.f90
 * (compute_time_step), with its eigenvalue parts in the same order. */
#ifndef ADIFLOW_TIME_STEP_H
#define ADIFLOW_TIME_STEP_H

#include "flow_fields.h"
#include "low_mach_precond.h"

/* ---- local time step dtv = dt / volume, interior ---- */
ADI_HD static inline void time_step_point(const adi_view *v, double cfl, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k);
  double rho, u, vv, w, c, mu, u1, c1, l1, u2, c2, l2, u3, c3, l3;
  rho = ADI_F(v, qp, 1, p);
  u = ADI_F(v, qp, 2, p);
  vv = ADI_F(v, qp, 3, p);
  w = ADI_F(v, qp, 4, p);
  c = sqrt(v->sp.gamma*ADI_F(v, qp, 5, p)/rho);
  mu = viscosity(&v->sp, ADI_F(v, qp, 6, p));
  eigen_parts(&v->sp, rho, u, vv, w, c, mu, v->vol[p], ADI_F(v, sc, 1, p), ADI_F(v, sc, 2, p),
              ADI_F(v, sc, 3, p), &u1, &c1, &l1);
  eigen_parts(&v->sp, rho, u, vv, w, c, mu, v->vol[p], ADI_F(v, sc, 4, p), ADI_F(v, sc, 5, p),
              ADI_F(v, sc, 6, p), &u2, &c2, &l2);
  eigen_parts(&v->sp, rho, u, vv, w, c, mu, v->vol[p], ADI_F(v, sc, 7, p), ADI_F(v, sc, 8, p),
              ADI_F(v, sc, 9, p), &u3, &c3, &l3);
  if (precond_on(&v->sp)) {
    /* the preconditioned spectral radii (low_mach_precond.h) */
    double ckm = c2 > c3 ? c2 : c3, eps;
    ckm = c1 > ckm ? c1 : ckm;
    eps = precond_eps(&v->sp, rho, u, vv, w, c, mu, v->vol[p], ckm);
    if (v->pce != NULL) v->pce[p] = eps;
    v->dtv[p] = cfl/((precond_radius(eps, u1, c1) + l1) + (precond_radius(eps, u2, c2) + l2) +
                     (precond_radius(eps, u3, c3) + l3));
  } else {
    v->dtv[p] = cfl/((fabs(u1) + c1 + l1) + (fabs(u2) + c2 + l2) + (fabs(u3) + c3 + l3));
  }
}

#endif
