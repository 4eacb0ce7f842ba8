/* Per-point formulas shared by the host C code and the CUDA kernels:
 * primitive and conservative variables, viscosity, limiter, Roe flux, characteristic
 * transforms, wall ghost state, eigenvalue parts, viscous face flux.
 *
 * Mirror of fortran/flow_math.f90: the same names, the same arguments in the
 * same order, and every expression written with the same shape (Fortran and
 * C both evaluate a + b + c as (a + b) + c and a*b/c as (a*b)/c), so with
 * FMA contraction off (gcc -ffp-contract=off, nvcc --fmad=false) every
 * function returns the very same bits as its Fortran twin.
 * tests/c_vs_fortran/test_math_c_vs_fortran.f90 checks that on random inputs.
 * Change one, change the other.
 *
 * The _sp functions are the single-precision twins of fortran/flow_math_sp.f90
 * (implicit_precision = 'single'), under the same rules.
 *
 * Plain C11 (gcc) and CUDA or HIP (nvcc, hipcc: __host__ __device__) from one source.
 * Arrays keep the Fortran layout: r(1:5) is r[0..4]; dphi(3,4) and mv(3,3)
 * are column-major, element (a,b) at [(a-1) + 3*(b-1)].
 */
#ifndef ADIFLOW_MATH_H
#define ADIFLOW_MATH_H

#include <math.h>

#include "adiflow_params.h"

#if defined(__CUDACC__) || defined(__HIPCC__)   /* nvcc, or hipcc (make hip) */
#include "adiflow_gpu_vendor.h"   /* the runtime's __host__, __forceinline__, whatever the include order */
#define ADI_HD __host__ __device__
#define ADI_FORCEINLINE __forceinline__
#else
#define ADI_HD
#define ADI_FORCEINLINE inline
#endif

/* dphi(d, v) and mv(c, d) of the Fortran, 1-based */
#define ADI_M34(a, r, c) ((a)[((r) - 1) + 3 * ((c) - 1)])

ADI_HD static inline void cons_to_prim(const adi_solver_params *sp, double q1, double q2,
                                       double q3, double q4, double q5, double *rho_out,
                                       double *u_out, double *v_out, double *w_out,
                                       double *p_out, double *t_out)
{
  double rho, u, v, w, p, t;
  rho = q1;
  u = q2/rho;
  v = q3/rho;
  w = q4/rho;
  p = sp->gm1*(q5 - 0.5*(q2*u + q3*v + q4*w));
  t = sp->gm2*p/rho;
  *rho_out = rho; *u_out = u; *v_out = v; *w_out = w; *p_out = p; *t_out = t;
}

/* Conservative state of (rho, u, v, w, p). */
ADI_HD static inline void prim_to_cons(const adi_solver_params *sp, double rho, double u, double v,
                                       double w, double p, double q[5])
{
  q[0] = rho;
  q[1] = rho*u;
  q[2] = rho*v;
  q[3] = rho*w;
  q[4] = p/sp->gm1 + 0.5*rho*(u*u + v*v + w*w);
}

/* Nondimensional molecular viscosity mu(T) (mu = 1 at T = 1). */
ADI_HD static inline double viscosity(const adi_solver_params *sp, double t)
{
  double mu;
  if (sp->visc_law == ADI_VISC_SUTHERLAND) {
    mu = t*sqrt(t)*(1.0 + sp->sutherland_s)/(t + sp->sutherland_s);
  } else {
    mu = 1.0;
  }
  return mu;
}

/* Venkatakrishnan's limiter (J. Comput. Phys. 118, 1995) along one grid
 * line: the central slope (a+b)/2, scaled by the smaller of the smooth
 * factors phi = num/den of its two face increments (+-h, h = |a+b|/4)
 * against the room to the neighbours' extreme values (bp, bm), and by at
 * most 1. The threshold eps2 lets increments well below it through
 * unscaled, smooth extrema included; well above it an extremum is clipped
 * to a zero slope. The two factors are compared by cross products (the
 * denominators are positive), so that only the smaller one is divided out. */
ADI_HD static inline double venkat_slope(double eps2, double a, double b)
{
  double s, sigma, h, bp, bm, nump, denp, numm, denm;
  sigma = 0.5*(a + b);
  if (sigma == 0.0) {
    s = 0.0;
  } else {
    h = 0.5*fabs(sigma);
    bp = fmax(fmax(0.0, -a), b);
    bm = fmax(fmax(0.0, a), -b);
    nump = bp*bp + eps2 + 2.0*h*bp;
    denp = bp*bp + 2.0*h*h + h*bp + eps2;
    numm = bm*bm + eps2 + 2.0*h*bm;
    denm = bm*bm + 2.0*h*h + h*bm + eps2;
    if (numm*denp < nump*denm) {
      nump = numm;
      denp = denm;
    }
    if (nump >= denp) {
      s = sigma;
    } else {
      s = (nump/denp)*sigma;
    }
  }
  return s;
}

/* Slope limiter of two one-sided differences a = q(i) - q(i-1) and
 * b = q(i+1) - q(i): van Albada, minmod, van Leer's harmonic mean
 * 2ab/(a+b) (these three zero at extrema), or Venkatakrishnan's
 * (ADI_LIM_VENKAT, venkat_slope). */
ADI_HD static inline double limiter(const adi_solver_params *sp, double a, double b)
{
  double s;
  if (sp->limiter == ADI_LIM_VENKAT) {
    s = venkat_slope(sp->lim_eps2, a, b);
  } else if (a*b <= 0.0) {
    s = 0.0;
  } else if (sp->limiter == ADI_LIM_MINMOD) {
    if (fabs(a) < fabs(b)) {
      s = a;
    } else {
      s = b;
    }
  } else if (sp->limiter == ADI_LIM_VANLEER) {
    s = 2.0*a*b/(a + b);
  } else {
    s = a*b*(a + b)/(a*a + b*b);
  }
  return s;
}

/* Roe flux-difference splitting with Harten's entropy fix on the acoustic
 * waves, through a face of area vector (sx, sy, sz). Returns flux * area.
 * With sp->roe_low_mach == ADI_ROE_LM_RIEPER, Rieper's low-Mach fix (J. Comput.
 * Phys. 230, 2011): the normal-velocity jump in the acoustic wave
 * strengths is scaled by z = min(1, M), M the larger local Mach number of
 * the two sides. */
ADI_HD static inline void roe_flux(const adi_solver_params *sp, double rl, double ul, double vl,
                                   double wl, double pl, double rr, double ur, double vr,
                                   double wr, double pr, double sx, double sy, double sz,
                                   double f[5])
{
  double area, nx, ny, nz, unl, unr, hl, hr, sl, sr, ssum, rt;
  double ut, vt, wt, ht, q2t, ct, unt, dr, dp, du, dv, dw, dun;
  double m2l, m2r, z, dunz;
  double a1, a2, a5, l1, l2, l5, delta, fl1, fr1;
  double d1, d2, d3, d4, d5;
  /* reciprocals taken once and multiplied: each division is a long
   * dependent chain on a GPU, and a face of the fused flux had about 30 */
  double rarea, rsum, rc2;

  area = sqrt(sx*sx + sy*sy + sz*sz);
  rarea = 1.0/area;
  nx = sx*rarea;
  ny = sy*rarea;
  nz = sz*rarea;
  unl = ul*nx + vl*ny + wl*nz;
  unr = ur*nx + vr*ny + wr*nz;
  hl = sp->ggm1*pl/rl + 0.5*(ul*ul + vl*vl + wl*wl);
  hr = sp->ggm1*pr/rr + 0.5*(ur*ur + vr*vr + wr*wr);

  /* Roe averages */
  sl = sqrt(rl);
  sr = sqrt(rr);
  ssum = sl + sr;
  rt = sl*sr;
  rsum = 1.0/ssum;
  ut = (sl*ul + sr*ur)*rsum;
  vt = (sl*vl + sr*vr)*rsum;
  wt = (sl*wl + sr*wr)*rsum;
  ht = (sl*hl + sr*hr)*rsum;
  q2t = 0.5*(ut*ut + vt*vt + wt*wt);
  ct = sqrt(sp->gm1*(ht - q2t));
  unt = ut*nx + vt*ny + wt*nz;

  /* jumps and wave strengths */
  dr = rr - rl;
  dp = pr - pl;
  du = ur - ul;
  dv = vr - vl;
  dw = wr - wl;
  dun = unr - unl;
  /* Low-Mach fix: Roe's acoustic waves dissipate momentum by about
   * rho*c*dun, 1/M times what the flow speed calls for, so at low Mach the
   * velocity field carries an error that grows as 1/M. Scaling dun by z
   * there makes that term rho*|V|*dun; z = 1 (the plain Roe flux, bit for
   * bit) from M = 1 up. The shear (l2) terms keep dun: they are not the defect. */
  dunz = dun;
  if (sp->roe_low_mach == ADI_ROE_LM_RIEPER) {
    m2l = (ul*ul + vl*vl + wl*wl)*rl/(sp->gamma*pl);
    m2r = (ur*ur + vr*vr + wr*wr)*rr/(sp->gamma*pr);
    z = m2l;
    if (m2r > z) z = m2r;
    z = sqrt(z);
    if (z > 1.0) z = 1.0;
    dunz = z*dun;
  }
  rc2 = 1.0/(ct*ct);
  a1 = (dp - rt*ct*dunz)*(0.5*rc2);
  a5 = (dp + rt*ct*dunz)*(0.5*rc2);
  a2 = dr - dp*rc2;

  /* wave speeds, entropy fix on the acoustic ones */
  l1 = fabs(unt - ct);
  l2 = fabs(unt);
  l5 = fabs(unt + ct);
  delta = sp->efix*ct;
  if (l1 < delta) l1 = (l1*l1 + delta*delta)/(2.0*delta);
  if (l5 < delta) l5 = (l5*l5 + delta*delta)/(2.0*delta);

  /* |A| dq */
  d1 = l1*a1 + l2*a2 + l5*a5;
  d2 = l1*a1*(ut - ct*nx) + l2*(a2*ut + rt*(du - nx*dun)) + l5*a5*(ut + ct*nx);
  d3 = l1*a1*(vt - ct*ny) + l2*(a2*vt + rt*(dv - ny*dun)) + l5*a5*(vt + ct*ny);
  d4 = l1*a1*(wt - ct*nz) + l2*(a2*wt + rt*(dw - nz*dun)) + l5*a5*(wt + ct*nz);
  d5 = l1*a1*(ht - unt*ct) + l2*(a2*q2t + rt*(ut*du + vt*dv + wt*dw - unt*dun))
     + l5*a5*(ht + unt*ct);

  fl1 = rl*unl;
  fr1 = rr*unr;
  f[0] = 0.5*(fl1 + fr1 - d1)*area;
  f[1] = 0.5*(fl1*ul + pl*nx + (fr1*ur + pr*nx) - d2)*area;
  f[2] = 0.5*(fl1*vl + pl*ny + (fr1*vr + pr*ny) - d3)*area;
  f[3] = 0.5*(fl1*wl + pl*nz + (fr1*wr + pr*nz) - d4)*area;
  f[4] = 0.5*(fl1*hl + fr1*hr - d5)*area;
}

/* The unit normal (nx, ny, nz) of a cell's metric vector (kx, ky, kz):
 * ADI stages 3 and 5 transform along it. 1/|k| is taken once and
 * multiplied (a division is a long dependent chain on a GPU). */
ADI_HD static inline void unit_normal(double kx, double ky, double kz, double *nx, double *ny, double *nz)
{
  double kmag = sqrt(kx*kx + ky*ky + kz*kz);
  double rkmag = 1.0/kmag;
  *nx = kx*rkmag;
  *ny = ky*rkmag;
  *nz = kz*rkmag;
}

/* The part of ADI stage 3 that every form shares: the entropy and vorticity
 * characteristics ch[0..2] of the conservative increments r along the unit
 * normal n, the pressure part pc = dp/(rho c) and the normal velocity
 * increment dun, which char_from_cons (and, preconditioned,
 * char_from_cons_pc) turn into the acoustic pair. */
ADI_HD static inline void char_entropy_parts(const adi_solver_params *sp, double rho, double u, double v,
                                             double w, double p, double nx, double ny, double nz,
                                             const double r[5], double ch[5], double *pc, double *dun)
{
  double c, q2h, dpr, du, dv, dw, ent, rrho, rc;
  c = sqrt(sp->gamma*p/rho);
  rrho = 1.0/rho;
  rc = 1.0/c;
  q2h = 0.5*(u*u + v*v + w*w);
  dpr = sp->gm1*(r[4] - (u*r[1] + v*r[2] + w*r[3]) + q2h*r[0]);
  du = (r[1] - u*r[0])*rrho;
  dv = (r[2] - v*r[0])*rrho;
  dw = (r[3] - w*r[0])*rrho;
  *dun = nx*du + ny*dv + nz*dw;
  ent = r[0] - dpr*(rc*rc);
  ch[0] = nx*ent - (ny*dw - nz*dv);
  ch[1] = ny*ent - (nz*du - nx*dw);
  ch[2] = nz*ent - (nx*dv - ny*du);
  *pc = dpr*(rrho*rc);
}

/* ADI stage 3 at one point: conservative increments r(1:5) to the
 * characteristic variables of direction n (unit normal). w(1:3) travel
 * with U, w(4) with U + c|k|, w(5) with U - c|k|. */
ADI_HD static inline void char_from_cons(const adi_solver_params *sp, double rho, double u,
                                         double v, double w, double p, double nx, double ny,
                                         double nz, const double r[5], double ch[5])
{
  double pc, dun;
  char_entropy_parts(sp, rho, u, v, w, p, nx, ny, nz, r, ch, &pc, &dun);
  ch[3] = 0.5*(pc + dun);
  ch[4] = 0.5*(pc - dun);
}

/* The part of ADI stage 5 that every form shares: the conservative
 * increments r from the entropy and vorticity characteristics ch[0..2],
 * the normal velocity increment dun and the pressure increment dpr (sound
 * speed c). */
ADI_HD static inline void cons_from_parts(const adi_solver_params *sp, double rho, double u, double v,
                                          double w, double c, double nx, double ny, double nz,
                                          const double ch[5], double dun, double dpr, double r[5])
{
  double q2h, ent, du, dv, dw, rc;
  rc = 1.0/c;
  q2h = 0.5*(u*u + v*v + w*w);
  ent = nx*ch[0] + ny*ch[1] + nz*ch[2];
  du = (ny*ch[2] - nz*ch[1]) + nx*dun;
  dv = (nz*ch[0] - nx*ch[2]) + ny*dun;
  dw = (nx*ch[1] - ny*ch[0]) + nz*dun;
  r[0] = ent + dpr*(rc*rc);
  r[1] = rho*du + u*r[0];
  r[2] = rho*dv + v*r[0];
  r[3] = rho*dw + w*r[0];
  r[4] = dpr/sp->gm1 + q2h*r[0] + rho*(u*du + v*dv + w*dw);
}

/* ADI stage 5 at one point: the inverse of char_from_cons. */
ADI_HD static inline void cons_from_char(const adi_solver_params *sp, double rho, double u,
                                         double v, double w, double p, double nx, double ny,
                                         double nz, const double ch[5], double r[5])
{
  double c;
  c = sqrt(sp->gamma*p/rho);
  cons_from_parts(sp, rho, u, v, w, c, nx, ny, nz, ch, ch[3] - ch[4], rho*c*(ch[3] + ch[4]), r);
}

/* ---- single-precision twins for implicit_precision = 'single' (mirror of
 * fortran/flow_math_sp.f90; fortran/lu_adi.f90's header says which
 * operations of the implicit operator run in single precision). Every
 * argument, local and literal is a float and every expression that of the
 * double twin in the same order, so each operation is that one rounded to
 * single precision; sqrtf and float division are IEEE-rounded (no fast-math
 * flags: nvcc's defaults -prec-div=true -prec-sqrt=true, hipcc's correctly
 * rounded fp32 divide and sqrt). ---- */

/* ADI stage 1 at one point: the eigenvalues ucon (three times), ucon + ck,
 * ucon - ck, split into lam+ = (lam + |lam|_v)/2, lam- = (lam - |lam|_v)/2
 * with |lam|_v = |lam| + lv, for the three distinct ones. */
ADI_HD static inline void eigen_split_sp(float ucon, float ck, float lv, float lamp[3], float lamn[3],
                                         float lamv[3])
{
  float lam[3], av;
  int s;
  lam[0] = ucon;
  lam[1] = ucon + ck;
  lam[2] = ucon - ck;
  for (s = 0; s < 3; ++s) {
    av = fabsf(lam[s]) + lv;
    lamp[s] = 0.5f*(lam[s] + av);
    lamn[s] = 0.5f*(lam[s] - av);
    lamv[s] = av;
  }
}

/* ADI stage 3 at one point: char_from_cons in single precision. */
ADI_HD static inline void char_from_cons_sp(const adi_solver_params *sp, float rho, float u, float v,
                                            float w, float p, float nx, float ny, float nz,
                                            const float r[5], float ch[5])
{
  float c, q2h, dpr, du, dv, dw, dun, ent, pc, rrho, rc;
  c = sqrtf((float)sp->gamma*p/rho);
  rrho = 1.0f/rho;
  rc = 1.0f/c;
  q2h = 0.5f*(u*u + v*v + w*w);
  dpr = (float)sp->gm1*(r[4] - (u*r[1] + v*r[2] + w*r[3]) + q2h*r[0]);
  du = (r[1] - u*r[0])*rrho;
  dv = (r[2] - v*r[0])*rrho;
  dw = (r[3] - w*r[0])*rrho;
  dun = nx*du + ny*dv + nz*dw;
  ent = r[0] - dpr*(rc*rc);
  ch[0] = nx*ent - (ny*dw - nz*dv);
  ch[1] = ny*ent - (nz*du - nx*dw);
  ch[2] = nz*ent - (nx*dv - ny*du);
  pc = dpr*(rrho*rc);
  ch[3] = 0.5f*(pc + dun);
  ch[4] = 0.5f*(pc - dun);
}

/* ADI stage 5 at one point: cons_from_char in single precision. */
ADI_HD static inline void cons_from_char_sp(const adi_solver_params *sp, float rho, float u, float v,
                                            float w, float p, float nx, float ny, float nz,
                                            const float ch[5], float r[5])
{
  float c, q2h, ent, dun, dpr, du, dv, dw, rc;
  c = sqrtf((float)sp->gamma*p/rho);
  rc = 1.0f/c;
  q2h = 0.5f*(u*u + v*v + w*w);
  ent = nx*ch[0] + ny*ch[1] + nz*ch[2];
  dun = ch[3] - ch[4];
  dpr = rho*c*(ch[3] + ch[4]);
  du = (ny*ch[2] - nz*ch[1]) + nx*dun;
  dv = (nz*ch[0] - nx*ch[2]) + ny*dun;
  dw = (nx*ch[1] - ny*ch[0]) + nz*dun;
  r[0] = ent + dpr*(rc*rc);
  r[1] = rho*du + u*r[0];
  r[2] = rho*dv + v*r[0];
  r[3] = rho*dw + w*r[0];
  r[4] = dpr/(float)sp->gm1 + q2h*r[0] + rho*(u*du + v*dv + w*dw);
}

/* ADI stage 4's recurrences, one element each: the first cell of the
 * forward sweep, the forward step, the backward step. rdg is the
 * reciprocal of the diagonal (stage 2 stores 1/diag, so the forward step
 * multiplies). */
ADI_HD static inline float adi4_fwd_first_sp(float w, float rdg) { return w*rdg; }
ADI_HD static inline float adi4_fwd_sp(float w, float flmp, float rdg, float xp) { return (w - flmp*xp)*rdg; }
ADI_HD static inline float adi4_bwd_sp(float w, float flmn, float xn) { return w - flmn*xn; }

/* Ghost state mirroring an interior state across a no-slip wall moving
 * with velocity (uw, vw, ww): density and pressure mirrored (no mass
 * crosses the wall), velocity reflected about the wall velocity. An
 * isothermal wall sets the ghost temperature separately
 * (wall_ghost_temperature, applied to the primitives). */
ADI_HD static inline void wall_ghost_state(const adi_solver_params *sp, double uw, double vw,
                                           double ww, const double qm[5], double qg[5])
{
  double rho, u, v, w, p, t, ug, vg, wg;
  cons_to_prim(sp, qm[0], qm[1], qm[2], qm[3], qm[4], &rho, &u, &v, &w, &p, &t);
  ug = 2.0*uw - u;
  vg = 2.0*vw - v;
  wg = 2.0*ww - w;
  prim_to_cons(sp, rho, ug, vg, wg, p, qg);
}

/* Ghost temperature of an isothermal wall: linear through t_wall on the face. */
ADI_HD static inline double wall_ghost_temperature(const adi_solver_params *sp, double tm)
{
  return 2.0*sp->t_wall - tm;
}

/* Pieces of the eigenvalues of direction k = (kx, ky, kz) (the cell's
 * area-weighted metric vector): contravariant velocity ucon = u.k, the
 * acoustic part ck = c|k| and the viscous spectral term lv.
 * Eigenvalues are ucon (three times), ucon + ck, ucon - ck. */
ADI_HD static inline void eigen_parts(const adi_solver_params *sp, double rho, double u,
                                      double v, double w, double c, double mu, double vol,
                                      double kx, double ky, double kz, double *ucon,
                                      double *ck, double *lv)
{
  double kk;
  kk = kx*kx + ky*ky + kz*kz;
  *ucon = u*kx + v*ky + w*kz;
  *ck = c*sqrt(kk);
  *lv = sp->vis_fac*mu*sp->re_inv*kk/(rho*vol);
}

/* Viscous flux through a face of area vector mv(:,dn) (dn: the face's
 * direction). dphi(d, v) is the computational-space difference of
 * variable v (u, v, w, T) along direction d, mv(:, d) the metric vector of
 * direction d at the face, volf the face's control volume. Green-Gauss in
 * computational space: grad = (mv(:,1) d1 + mv(:,2) d2 + mv(:,3) d3) / volf
 * (times 1/volf, taken once). */
ADI_HD static inline void viscous_face_flux(const adi_solver_params *sp, int dn,
                                            const double dphi[12], const double mv[9],
                                            double volf, double uf, double vf, double wf,
                                            double tl, double tr, double fv[5])
{
  double g[12], muf, mue, kq, div, txx, tyy, tzz, txy, txz, tyz;
  double sx, sy, sz, rvol;
  const double two_thirds = 2.0/3.0;
  int v;
  rvol = 1.0/volf;
  for (v = 1; v <= 4; ++v) {
    ADI_M34(g, 1, v) = (ADI_M34(mv, 1, 1)*ADI_M34(dphi, 1, v) + ADI_M34(mv, 1, 2)*ADI_M34(dphi, 2, v)
                        + ADI_M34(mv, 1, 3)*ADI_M34(dphi, 3, v))*rvol;
    ADI_M34(g, 2, v) = (ADI_M34(mv, 2, 1)*ADI_M34(dphi, 1, v) + ADI_M34(mv, 2, 2)*ADI_M34(dphi, 2, v)
                        + ADI_M34(mv, 2, 3)*ADI_M34(dphi, 3, v))*rvol;
    ADI_M34(g, 3, v) = (ADI_M34(mv, 3, 1)*ADI_M34(dphi, 1, v) + ADI_M34(mv, 3, 2)*ADI_M34(dphi, 2, v)
                        + ADI_M34(mv, 3, 3)*ADI_M34(dphi, 3, v))*rvol;
  }
  muf = 0.5*(viscosity(sp, tl) + viscosity(sp, tr));
  mue = muf*sp->re_inv;
  kq = muf*sp->cond_coef;
  div = ADI_M34(g, 1, 1) + ADI_M34(g, 2, 2) + ADI_M34(g, 3, 3);
  txx = mue*(2.0*ADI_M34(g, 1, 1) - two_thirds*div);
  tyy = mue*(2.0*ADI_M34(g, 2, 2) - two_thirds*div);
  tzz = mue*(2.0*ADI_M34(g, 3, 3) - two_thirds*div);
  txy = mue*(ADI_M34(g, 2, 1) + ADI_M34(g, 1, 2));
  txz = mue*(ADI_M34(g, 3, 1) + ADI_M34(g, 1, 3));
  tyz = mue*(ADI_M34(g, 3, 2) + ADI_M34(g, 2, 3));
  /* mv(:, dn), written as a selection so the device keeps mv in registers */
  sx = dn == 1 ? ADI_M34(mv, 1, 1) : (dn == 2 ? ADI_M34(mv, 1, 2) : ADI_M34(mv, 1, 3));
  sy = dn == 1 ? ADI_M34(mv, 2, 1) : (dn == 2 ? ADI_M34(mv, 2, 2) : ADI_M34(mv, 2, 3));
  sz = dn == 1 ? ADI_M34(mv, 3, 1) : (dn == 2 ? ADI_M34(mv, 3, 2) : ADI_M34(mv, 3, 3));
  fv[0] = 0.0;
  fv[1] = txx*sx + txy*sy + txz*sz;
  fv[2] = txy*sx + tyy*sy + tyz*sz;
  fv[3] = txz*sx + tyz*sy + tzz*sz;
  fv[4] = uf*fv[1] + vf*fv[2] + wf*fv[3] + kq*(ADI_M34(g, 1, 4)*sx + ADI_M34(g, 2, 4)*sy + ADI_M34(g, 3, 4)*sz);
}

#endif
