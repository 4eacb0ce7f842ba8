/* Ghost states of the open and slip boundary types, one point at a time:
 * slip wall and symmetry plane, characteristic farfield, subsonic inflow
 * (total pressure, total temperature, direction), subsonic outflow (static
 * pressure). The physics, the units and the sign of the normal (out of the
 * domain) are described in the Fortran twin.
 *
 * Mirror of fortran/boundary_states.f90: the same names, the same arguments in
 * the same order, the same order of operations (see adiflow_math.h for the
 * rules). tests/c_vs_fortran/test_boundary_states.f90 checks the bits on random states.
 * Change one, change the other. Arrays keep the Fortran layout: q(1:5) is
 * q[0..4].
 */
#ifndef ADIFLOW_BOUNDARY_STATES_H
#define ADIFLOW_BOUNDARY_STATES_H

#include "adiflow_math.h"
#include "portable_math.h"

/* Slip wall and symmetry plane: density and pressure mirrored, the momentum
 * reflected about the face. */
ADI_HD static inline void slip_ghost_state(double nx, double ny, double nz, const double qm[5],
                                           double qg[5])
{
  double mn = qm[1]*nx + qm[2]*ny + qm[3]*nz;
  qg[0] = qm[0];
  qg[1] = qm[1] - 2.0*mn*nx;
  qg[2] = qm[2] - 2.0*mn*ny;
  qg[3] = qm[3] - 2.0*mn*nz;
  qg[4] = qm[4];
}

/* Characteristic farfield from the Riemann invariants of the face-normal
 * direction, free stream (rinf, uinf, vinf, winf, pinf). */
ADI_HD static inline void farfield_ghost_state(const adi_solver_params *sp, double rinf, double uinf,
                                               double vinf, double winf, double pinf, double nx,
                                               double ny, double nz, const double qm[5], double qg[5])
{
  double rho, u, v, w, p, t, ci, cf, vni, vnf, rplus, rminus, vnb, cb;
  double rr, ur, vr, wr, cr, vnr, rb;
  cons_to_prim(sp, qm[0], qm[1], qm[2], qm[3], qm[4], &rho, &u, &v, &w, &p, &t);
  ci = sqrt(sp->gamma*p/rho);
  cf = sqrt(sp->gamma*pinf/rinf);
  vni = u*nx + v*ny + w*nz;
  vnf = uinf*nx + vinf*ny + winf*nz;
  if (vni >= ci) {
    for (int n = 0; n < 5; n++) qg[n] = qm[n];
  } else if (vni <= -ci) {
    prim_to_cons(sp, rinf, uinf, vinf, winf, pinf, qg);
  } else {
    rplus = vni + 2.0*ci/sp->gm1;
    rminus = vnf - 2.0*cf/sp->gm1;
    vnb = 0.5*(rplus + rminus);
    cb = 0.25*sp->gm1*(rplus - rminus);
    if (vnb > 0.0) {
      rr = rho; ur = u; vr = v; wr = w; cr = ci; vnr = vni;
    } else {
      rr = rinf; ur = uinf; vr = vinf; wr = winf; cr = cf; vnr = vnf;
    }
    rb = rr*portable_pow((cb*cb)/(cr*cr), 1.0/sp->gm1);
    ur = ur + (vnb - vnr)*nx;
    vr = vr + (vnb - vnr)*ny;
    wr = wr + (vnb - vnr)*nz;
    prim_to_cons(sp, rb, ur, vr, wr, rb*cb*cb/sp->gamma, qg);
  }
}

/* Subsonic inflow with total pressure p0, total temperature t0 and unit flow
 * direction (dx, dy, dz), (nx, ny, nz) the unit normal out of the domain: the
 * invariant R+ from the interior fixes the face's speed of sound (the larger
 * root of the quadratic in the Fortran twin; the stagnation state cb = c0
 * once R+ reaches 2 c0/(gamma-1)), then T, p and |V| follow from the totals. */
ADI_HD static inline void subsonic_inflow_ghost_state(const adi_solver_params *sp, double p0, double t0,
                                                      double dx, double dy, double dz, double nx,
                                                      double ny, double nz, const double qm[5],
                                                      double qg[5])
{
  double rho, u, v, w, p, t, ci, c02, c0, rplus, cost, a, disc, cb, tb, pb, rb, vb;
  cons_to_prim(sp, qm[0], qm[1], qm[2], qm[3], qm[4], &rho, &u, &v, &w, &p, &t);
  ci = sqrt(sp->gamma*p/rho);
  c02 = sp->gamma*t0/sp->gm2;
  c0 = sqrt(c02);
  rplus = (u*nx + v*ny + w*nz) + 2.0*ci/sp->gm1;
  if (rplus >= 2.0*c0/sp->gm1) {
    cb = c0;
  } else {
    cost = dx*nx + dy*ny + dz*nz;
    a = cost*cost + 2.0/sp->gm1;
    disc = a*c02 - 0.5*sp->gm1*rplus*rplus;
    cb = fmin((rplus + fabs(cost)*sqrt(disc))/a, c0);
  }
  tb = t0*((cb*cb)/c02);
  pb = p0*portable_pow(tb/t0, sp->ggm1);
  rb = sp->gm2*pb/tb;
  vb = sqrt(2.0*fmax(c02 - cb*cb, 0.0)/sp->gm1);
  prim_to_cons(sp, rb, vb*dx, vb*dy, vb*dz, pb, qg);
}

/* Subsonic outflow at static pressure p_out: density and velocity from the
 * interior, the pressure imposed. */
ADI_HD static inline void subsonic_outflow_ghost_state(const adi_solver_params *sp, double p_out,
                                                       const double qm[5], double qg[5])
{
  double rho, u, v, w, p, t;
  cons_to_prim(sp, qm[0], qm[1], qm[2], qm[3], qm[4], &rho, &u, &v, &w, &p, &t);
  prim_to_cons(sp, rho, u, v, w, p_out, qg);
}

#endif
