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
 * viscous Mach number squared (nu/dx, |k|max = ckmax/c), at most 1; c its
 * sound speed, mu its viscosity, ckmax the largest c|k| of its directions */
ADI_HD static inline double precond_eps(const adi_solver_params *sp, double rho, double u, double v, double w,
                                        double c, double mu, double vol, double ckmax)
{
  double vs, m2, v2, e;
  vs = mu*sp->re_inv*(ckmax/c)/(rho*vol);
  m2 = (u*u + v*v + w*w)/(c*c);
  v2 = (vs*vs)/(c*c);
  e = m2 > v2 ? m2 : v2;
  e = sp->pc_eps_min > e ? sp->pc_eps_min : e;
  return e < 1.0 ? e : 1.0;
}

/* the largest c|k| of a cell's three metric vectors s[0..8], each formed as
 * eigen_parts forms its ck */
ADI_HD static inline double precond_ckmax(double c, const double s[9])
{
  double ck1, ck2, ck3, m;
  ck1 = c*sqrt(s[0]*s[0] + s[1]*s[1] + s[2]*s[2]);
  ck2 = c*sqrt(s[3]*s[3] + s[4]*s[4] + s[5]*s[5]);
  ck3 = c*sqrt(s[6]*s[6] + s[7]*s[7] + s[8]*s[8]);
  m = ck2 > ck3 ? ck2 : ck3;
  return ck1 > m ? ck1 : m;
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
  double c, pc, dun, un, ap, am, ecd, rd;
  char_entropy_parts(sp, rho, u, v, w, p, nx, ny, nz, r, ch, &pc, &dun);
  pc = pscale*pc;
  c = sqrt(sp->gamma*p/rho);
  un = nx*u + ny*v + nz*w;
  precond_acoustic(eps, un, c, &ap, &am);
  rd = 1.0/(ap - am);
  ecd = eps*c*dun;
  ch[3] = (ap*pc + ecd)*rd;
  ch[4] = -((am*pc + ecd)*rd);
}

/* ADI stage 5 at one point with preconditioning: the inverse of
 * char_from_cons_pc with pscale = 1 (pc = ch4 + ch5,
 * eps c dun = -(a- ch4 + a+ ch5)) */
ADI_HD static inline void cons_from_char_pc(const adi_solver_params *sp, double eps, double rho, double u,
                                            double v, double w, double p, double nx, double ny, double nz,
                                            const double ch[5], double r[5])
{
  double c, un, ap, am;
  c = sqrt(sp->gamma*p/rho);
  un = nx*u + ny*v + nz*w;
  precond_acoustic(eps, un, c, &ap, &am);
  cons_from_parts(sp, rho, u, v, w, c, nx, ny, nz, ch, -((am*ch[3] + ap*ch[4])/(eps*c)), rho*c*(ch[3] + ch[4]), r);
}

#endif
