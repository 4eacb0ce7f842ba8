/* Low-Mach preconditioning of the pseudo-time term (precondition = 'turkel'):
 * the mirror of fortran/low_mach_precond.f90, whose header gives the
 * preconditioner (Turkel 1987, Weiss and Smith's cut-off) and why. Same
 * names, same arguments, the same operations in the same order, so the
 * host C code and the kernels return the Fortran's bits with FMA
 * contraction off (tests/c_vs_fortran/test_math_c_vs_fortran.f90). */
#ifndef ADIFLOW_LOW_MACH_PRECOND_H
#define ADIFLOW_LOW_MACH_PRECOND_H

#include "adiflow_math.h"

ADI_HD static inline int precond_on(const adi_solver_params *sp)
{
  return sp->precondition == ADI_PRECOND_TURKEL;
}

/* eps of a cell: the largest of eps_min, its Mach number squared and its
 * viscous Mach number squared (nu/dx, dx = vol/|k| of its largest face
 * metric), at most 1; (rho, u, v, w, p, t) its primitives, s[0..8] its
 * metric vectors */
ADI_HD static inline double precond_eps(const adi_solver_params *sp, double rho, double u, double v, double w,
                                        double p, double t, double vol, const double s[9])
{
  double c, mu, kk1, kk2, kk3, kk, vs, m2, v2, e;
  c = sqrt(sp->gamma*p/rho);
  mu = viscosity(sp, t);
  kk1 = s[0]*s[0] + s[1]*s[1] + s[2]*s[2];
  kk2 = s[3]*s[3] + s[4]*s[4] + s[5]*s[5];
  kk3 = s[6]*s[6] + s[7]*s[7] + s[8]*s[8];
  kk = kk2 > kk3 ? kk2 : kk3;
  kk = kk1 > kk ? kk1 : kk;
  vs = mu*sp->re_inv*sqrt(kk)/(rho*vol);
  m2 = (u*u + v*v + w*w)/(c*c);
  v2 = (vs*vs)/(c*c);
  e = m2 > v2 ? m2 : v2;
  e = sp->pc_eps_min > e ? sp->pc_eps_min : e;
  return e < 1.0 ? e : 1.0;
}

/* a+- of the acoustic pair for normal velocity un and sound speed cn; the
 * root that would cancel is formed from the other (a+ a- = -eps cn^2) */
ADI_HD static inline void precond_acoustic(double eps, double un, double cn, double *ap, double *am)
{
  double b, s, ec2;
  b = (1.0 - eps)*un;
  ec2 = eps*(cn*cn);
  s = sqrt(b*b + 4.0*ec2);
  if (b >= 0.0) {
    *am = -(0.5*(s + b));
    *ap = (2.0*ec2)/(s + b);
  } else {
    *ap = 0.5*(s - b);
    *am = -((2.0*ec2)/(s - b));
  }
}

/* the largest |eigenvalue| of direction k: the time step's spectral radius */
ADI_HD static inline double precond_radius(double eps, double ucon, double ck)
{
  double ap, am, a, b;
  precond_acoustic(eps, ucon, ck, &ap, &am);
  a = fabs(ucon + ap);
  b = fabs(ucon + am);
  return a > b ? a : b;
}

/* ADI stage 3 at one point with preconditioning: r(1:5) to the
 * characteristic variables of Gamma^-1 A along n; pscale multiplies the
 * pressure part (eps for the first direction, 1 for the later ones) */
ADI_HD static inline void char_from_cons_pc(const adi_solver_params *sp, double eps, double pscale, double rho,
                                            double u, double v, double w, double p, double nx, double ny,
                                            double nz, const double r[5], double ch[5])
{
  double c, q2h, dpr, du, dv, dw, dun, ent, pc, rrho, rc, un, ap, am, ecd, rd;
  c = sqrt(sp->gamma*p/rho);
  rrho = 1.0/rho;
  rc = 1.0/c;
  q2h = 0.5*(u*u + v*v + w*w);
  dpr = sp->gm1*(r[4] - (u*r[1] + v*r[2] + w*r[3]) + q2h*r[0]);
  du = (r[1] - u*r[0])*rrho;
  dv = (r[2] - v*r[0])*rrho;
  dw = (r[3] - w*r[0])*rrho;
  dun = nx*du + ny*dv + nz*dw;
  ent = r[0] - dpr*(rc*rc);
  ch[0] = nx*ent - (ny*dw - nz*dv);
  ch[1] = ny*ent - (nz*du - nx*dw);
  ch[2] = nz*ent - (nx*dv - ny*du);
  pc = pscale*(dpr*(rrho*rc));
  un = nx*u + ny*v + nz*w;
  precond_acoustic(eps, un, c, &ap, &am);
  rd = 1.0/(ap - am);
  ecd = eps*c*dun;
  ch[3] = (ap*pc + ecd)*rd;
  ch[4] = -((am*pc + ecd)*rd);
}

/* ADI stage 5 at one point with preconditioning: the inverse of
 * char_from_cons_pc with pscale = 1 */
ADI_HD static inline void cons_from_char_pc(const adi_solver_params *sp, double eps, double rho, double u,
                                            double v, double w, double p, double nx, double ny, double nz,
                                            const double ch[5], double r[5])
{
  double c, q2h, ent, dun, dpr, du, dv, dw, rc, un, ap, am;
  c = sqrt(sp->gamma*p/rho);
  rc = 1.0/c;
  q2h = 0.5*(u*u + v*v + w*w);
  un = nx*u + ny*v + nz*w;
  precond_acoustic(eps, un, c, &ap, &am);
  ent = nx*ch[0] + ny*ch[1] + nz*ch[2];
  dun = -((am*ch[3] + ap*ch[4])/(eps*c));
  dpr = rho*c*(ch[3] + ch[4]);
  du = (ny*ch[2] - nz*ch[1]) + nx*dun;
  dv = (nz*ch[0] - nx*ch[2]) + ny*dun;
  dw = (nx*ch[1] - ny*ch[0]) + nz*dun;
  r[0] = ent + dpr*(rc*rc);
  r[1] = rho*du + u*r[0];
  r[2] = rho*dv + v*r[0];
  r[3] = rho*dw + w*r[0];
  r[4] = dpr/sp->gm1 + q2h*r[0] + rho*(u*du + v*dv + w*dw);
}

#endif
