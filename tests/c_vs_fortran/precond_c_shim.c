/* Wrappers that make cuda/common/low_mach_precond.h's static inline
 * functions callable from Fortran (tests/c_vs_fortran/test_precond_c_vs_fortran.f90),
 * compiled by gcc with -ffp-contract=off like the rest of the C code. */
#include "low_mach_precond.h"

/* cell = rho, u, v, w, c, mu, vol, ckmax */
double c_precond_eps(const adi_solver_params *sp, const double cell[8])
{
  return precond_eps(sp, cell[0], cell[1], cell[2], cell[3], cell[4], cell[5], cell[6], cell[7]);
}

double c_precond_ckmax(double c, const double s[9])
{
  return precond_ckmax(c, s);
}

/* in = eps, un, cn; out = ap, am, radius */
void c_precond_acoustic(const double in[3], double out[3])
{
  precond_acoustic(in[0], in[1], in[2], &out[0], &out[1]);
  out[2] = precond_radius(in[0], in[1], in[2]);
}

/* es = eps, pscale; st = rho, u, v, w, p; n = nx, ny, nz */
void c_char_from_cons_pc(const adi_solver_params *sp, const double es[2], const double st[5], const double n[3],
                         const double r[5], double ch[5])
{
  char_from_cons_pc(sp, es[0], es[1], st[0], st[1], st[2], st[3], st[4], n[0], n[1], n[2], r, ch);
}

void c_cons_from_char_pc(const adi_solver_params *sp, double eps, const double st[5], const double n[3],
                         const double ch[5], double r[5])
{
  cons_from_char_pc(sp, eps, st[0], st[1], st[2], st[3], st[4], n[0], n[1], n[2], ch, r);
}
