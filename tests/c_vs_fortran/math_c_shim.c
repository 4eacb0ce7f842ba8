/* Wrappers that make the static inline functions of cuda/common/adiflow_math.h
 * callable from Fortran (tests/c_vs_fortran/test_math_c_vs_fortran.f90), compiled by gcc
 * with -ffp-contract=off like the rest of the C code. Arguments are packed
 * into small arrays so the Fortran interfaces stay short. */
#include "adiflow_math.h"

void c_cons_to_prim(const adi_solver_params *sp, const double q[5], double out[6])
{
  cons_to_prim(sp, q[0], q[1], q[2], q[3], q[4], &out[0], &out[1], &out[2], &out[3], &out[4], &out[5]);
}

double c_viscosity(const adi_solver_params *sp, double t)
{
  return viscosity(sp, t);
}

double c_limiter(const adi_solver_params *sp, double a, double b)
{
  return limiter(sp, a, b);
}

/* in = rl, ul, vl, wl, pl, rr, ur, vr, wr, pr, sx, sy, sz */
void c_roe_flux(const adi_solver_params *sp, const double in[13], double f[5])
{
  roe_flux(sp, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11],
           in[12], f);
}

/* st = rho, u, v, w, p; n = nx, ny, nz */
void c_char_from_cons(const adi_solver_params *sp, const double st[5], const double n[3],
                      const double r[5], double ch[5])
{
  char_from_cons(sp, st[0], st[1], st[2], st[3], st[4], n[0], n[1], n[2], r, ch);
}

void c_cons_from_char(const adi_solver_params *sp, const double st[5], const double n[3],
                      const double ch[5], double r[5])
{
  cons_from_char(sp, st[0], st[1], st[2], st[3], st[4], n[0], n[1], n[2], ch, r);
}

/* wv = uw, vw, ww */
void c_wall_ghost_state(const adi_solver_params *sp, const double wv[3], const double qm[5], double qg[5])
{
  wall_ghost_state(sp, wv[0], wv[1], wv[2], qm, qg);
}

/* in = rho, u, v, w, c, mu, vol, kx, ky, kz; out = ucon, ck, lv */
void c_eigen_parts(const adi_solver_params *sp, const double in[10], double out[3])
{
  eigen_parts(sp, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], &out[0], &out[1],
              &out[2]);
}

/* s = volf, uf, vf, wf, tl, tr */
void c_viscous_face_flux(const adi_solver_params *sp, int dn, const double dphi[12], const double mv[9],
                         const double s[6], double fv[5])
{
  viscous_face_flux(sp, dn, dphi, mv, s[0], s[1], s[2], s[3], s[4], s[5], fv);
}

/* the single-precision twins (implicit_precision = 'single') */
/* in = ucon, ck, lv; out = lamp(3), lamn(3), lamv(3) */
void c_eigen_split_sp(const float in[3], float out[9])
{
  eigen_split_sp(in[0], in[1], in[2], &out[0], &out[3], &out[6]);
}

void c_char_from_cons_sp(const adi_solver_params *sp, const float st[5], const float n[3], const float r[5],
                         float ch[5])
{
  char_from_cons_sp(sp, st[0], st[1], st[2], st[3], st[4], n[0], n[1], n[2], r, ch);
}

void c_cons_from_char_sp(const adi_solver_params *sp, const float st[5], const float n[3], const float ch[5],
                         float r[5])
{
  cons_from_char_sp(sp, st[0], st[1], st[2], st[3], st[4], n[0], n[1], n[2], ch, r);
}

/* in = w, flmp (or flmn), rdg, x; out = fwd_first(w, rdg), fwd(w, flmp, rdg, x), bwd(w, flmn, x) */
void c_adi4_sp(const float in[4], float out[3])
{
  out[0] = adi4_fwd_first_sp(in[0], in[2]);
  out[1] = adi4_fwd_sp(in[0], in[1], in[2], in[3]);
  out[2] = adi4_bwd_sp(in[0], in[1], in[3]);
}
