/* Diagonalised LU-ADI of one direction, one cell (or, for the sweeps, one
 * grid line) each: the loop bodies of fortran/lu_adi.f90
 * (adi_stage1_eigenvalues .. adi_stage5_update), its work fields and its
 * implicit_precision = 'single' operations (flow_math_sp.f90's, the _sp
 * functions of adiflow_math.h). */
#ifndef ADIFLOW_LU_ADI_H
#define ADIFLOW_LU_ADI_H

#include "flow_fields.h"
#include "low_mach_precond.h"

/* work fields of the ADI stages, lu_adi.f90 */
enum { WK_LAMP = 0, WK_LAMN = 3, WK_LAMV = 6, WK_FLMP = 9, WK_FLMN = 12, WK_RDIAG = 15, WK_WCH = 18 };
/* the ADI stages' work fields, components 1..23 (lam+-, |lam|_v, flmp, flmn,
 * rdiag, wch): what the view's float copy wkf holds */
enum { ADI_NWORK_ADI = WK_WCH + 5 };

/* ADI work field m (1-based, 1..ADI_NWORK_ADI: the Fortran's wk(i,j,k,m) of
 * lu_adi.f90) at point p, in wkf when the grid stores those fields as
 * floats, in wk otherwise. Single mode only ever stores floats (promoted),
 * so the float store is exact and the load gives back the same double.
 * These test wkf at run time (the host emulation); the GPU kernels decide
 * it at compile time (adi_view_wk below). */
ADI_HD static inline double adi_wk_get(const adi_view *v, int m, int p)
{
  return v->wkf != NULL ? (double)ADI_F(v, wkf, m, p) : ADI_F(v, wk, m, p);
}

ADI_HD static inline void adi_wk_put(const adi_view *v, int m, int p, double x)
{
  if (v->wkf != NULL) ADI_F(v, wkf, m, p) = (float)x;
  else ADI_F(v, wk, m, p) = x;
}


/* ---- implicit_precision (fortran/lu_adi.f90's header): in single mode the
 * ADI stages compute in float and store their results as floats, in wkf
 * (adi_wk_put), or promoted to double in wk where the grid has no wkf
 * (exact either way), so a value read back and rounded to float is the
 * float stored. The flag is uniform over a grid: on the GPU every thread
 * takes the same branch. ---- */
ADI_HD static inline int adi_single(const adi_view *v)
{
  return v->sp.implicit_single == ADI_IMPLICIT_SINGLE;
}

/* low-Mach preconditioning (low_mach_precond.h), tested at run time on a
 * plain view (the host emulation); the kernels' views decide it at compile
 * time (adi_view_wk below) */
ADI_HD static inline int adi_precond(const adi_view *v)
{
  return precond_on(&v->sp);
}

/* ---- The ADI bodies below (the ones that touch the ADI work fields or
 * test the precision) are written once for C and C++. In C (the host
 * emulation) adi_view_t is adi_view: wkf and the precision are tested at
 * run time, by adi_wk_get/put and adi_single above. In C++ they are
 * templates on the view's type, adi_view_t: the ADI kernels of both
 * families pass an adi_view_wk<T> (T picked at launch from wkf,
 * cuda/common/kernels.cuh) and get the overloads below, decided at compile
 * time: T = double reads and writes wk with no test (the code of the
 * double-only storage, either precision; the precision stays a run-time
 * test), T = float reads and writes wkf in single mode (the float
 * operations only, a float promoted and rounded back being the same
 * float). ---- */
#ifdef __cplusplus
#define ADI_VIEW_TEMPLATE template <typename adi_view_t>

/* a view whose ADI work fields are stored as T (double: wk, float: wkf)
 * and whose low-Mach preconditioning PC (0 or 1: the grid's
 * sp.precondition) are known to the compiler; nothing else is added. PC is
 * a compile-time choice because the preconditioned branch, compiled into
 * the one kernel with the plain one, raised its registers (ADI_line along
 * i 64 -> 90) and slowed the default path */
template <typename T, int PC = 0>
struct adi_view_wk : adi_view {
};

template <int PC>
ADI_HD static inline double adi_wk_get(const adi_view_wk<double, PC> *v, int m, int p)
{
  return ADI_F(v, wk, m, p);
}

template <int PC>
ADI_HD static inline void adi_wk_put(const adi_view_wk<double, PC> *v, int m, int p, double x)
{
  ADI_F(v, wk, m, p) = x;
}

template <int PC>
ADI_HD static inline double adi_wk_get(const adi_view_wk<float, PC> *v, int m, int p)
{
  return (double)ADI_F(v, wkf, m, p);
}

template <int PC>
ADI_HD static inline void adi_wk_put(const adi_view_wk<float, PC> *v, int m, int p, double x)
{
  ADI_F(v, wkf, m, p) = (float)x;
}

/* only a grid in single mode has wkf (cuda/api/grid.cu) */
template <int PC>
ADI_HD static inline int adi_single(const adi_view_wk<float, PC> *v)
{
  (void)v;
  return 1;
}

/* preconditioned: decided at compile time for the kernels' views */
template <typename T>
ADI_HD static inline int adi_precond(const adi_view_wk<T, 0> *v)
{
  (void)v;
  return 0;
}

template <typename T>
ADI_HD static inline int adi_precond(const adi_view_wk<T, 1> *v)
{
  (void)v;
  return 1;
}
#else
#define ADI_VIEW_TEMPLATE
typedef adi_view adi_view_t;
#endif

/* ADI stage 2's coefficients from dtv and the lam values, in the view's
 * precision (single: dtv rounded once, the lam values and rdg are floats
 * promoted): the reciprocal of the diagonal rdiag = 1/(1 + dtv*|lam|_v),
 * flmp = -(dtv*lam+(c-1)), flmn = dtv*lam-(c+1)*rdiag. The reciprocal is
 * stored instead of the diagonal so that the forward sweep's recurrence
 * multiplies: a division on that dependent chain cost every step. */
ADI_HD static inline double adi2_rdiag(int single, double dt, double lamv)
{
  return single ? (double)(1.0f/(1.0f + (float)dt*(float)lamv)) : 1.0/(1.0 + dt*lamv);
}

ADI_HD static inline double adi2_flmp(int single, double dt, double lamp)
{
  return single ? (double)(-((float)dt*(float)lamp)) : -(dt*lamp);
}

/* flmn's two products in their order: dtv*lam- (adi2_flmn_part), then
 * times rdiag (adi2_flmn_of); the line kernel forms them in different
 * phases */
ADI_HD static inline double adi2_flmn_part(int single, double dt, double lamn)
{
  return single ? (double)((float)dt*(float)lamn) : dt*lamn;
}

ADI_HD static inline double adi2_flmn_of(int single, double part, double rdg)
{
  return single ? (double)((float)part*(float)rdg) : part*rdg;
}

ADI_HD static inline double adi2_flmn(int single, double dt, double lamn, double rdg)
{
  return adi2_flmn_of(single, adi2_flmn_part(single, dt, lamn), rdg);
}

/* ---- ADI_kernel4's recurrences, one element each (adi_stage4_line) ---- */
ADI_HD static inline double adi4_fwd_first(double w, double rdg) { return w*rdg; }
ADI_HD static inline double adi4_fwd(double w, double flmp, double rdg, double x) { return (w - flmp*x)*rdg; }
ADI_HD static inline double adi4_bwd(double w, double flmn, double x) { return w - flmn*x; }

/* the same in the view's precision: in single mode every operand is a float
 * stored promoted, so rounding it to float is exact (adi4_*_sp of
 * adiflow_math.h) */
ADI_HD static inline double adi4x_fwd_first(int single, double w, double rdg)
{
  return single ? (double)adi4_fwd_first_sp((float)w, (float)rdg) : adi4_fwd_first(w, rdg);
}

ADI_HD static inline double adi4x_fwd(int single, double w, double flmp, double rdg, double x)
{
  return single ? (double)adi4_fwd_sp((float)w, (float)flmp, (float)rdg, (float)x) : adi4_fwd(w, flmp, rdg, x);
}

ADI_HD static inline double adi4x_bwd(int single, double w, double flmn, double x)
{
  return single ? (double)adi4_bwd_sp((float)w, (float)flmn, (float)x) : adi4_bwd(w, flmn, x);
}

/* the preconditioner's eps at point p (low_mach_precond.h's precond_eps),
 * formed as lu_adi.f90's eps_at forms it: the host emulation's path */
ADI_VIEW_TEMPLATE
ADI_HD static inline double adi_precond_eps(const adi_view_t *v, int p)
{
  double s[9], c;
  int m;
  for (m = 0; m < 9; ++m) s[m] = ADI_FR(v, sc, m + 1, p);
  c = sqrt(v->sp.gamma*ADI_FR(v, qp, 5, p)/ADI_FR(v, qp, 1, p));
  return precond_eps(&v->sp, ADI_FR(v, qp, 1, p), ADI_FR(v, qp, 2, p), ADI_FR(v, qp, 3, p), ADI_FR(v, qp, 4, p), c,
                     viscosity(&v->sp, ADI_FR(v, qp, 6, p)), ADI_RO(v->vol[p]), precond_ckmax(c, s));
}

#ifdef __cplusplus
/* the kernels' preconditioned views: the value the time step of the same
 * iteration formed with the same operations (time_step.h; its largest ck is
 * precond_ckmax's), stored in pce: the same bits, one load instead of
 * sixteen and four square roots. Every GPU grid with preconditioning has
 * pce (cuda/api/grid.cu). */
template <typename T>
ADI_HD static inline double adi_precond_eps(const adi_view_wk<T, 1> *v, int p)
{
  return ADI_RO(v->pce[p]);
}
#endif

/* ---- eigenvalues of direction d at point p and their split lam+-, |lam|_v:
 * ADI stage 1 (fortran/lu_adi.f90 adi_stage1_eigenvalues); the merged
 * kernels keep them in registers ---- */
ADI_VIEW_TEMPLATE
ADI_HD static inline void adi_eig_split(const adi_view_t *v, int d, int p, double lamp[3], double lamn[3],
                                        double lamv[3])
{
  int s0 = 3*(d - 1), s;
  double rho, c, mu, ucon, ck, lv, lam[3], av, flo, a2, a3;
  rho = ADI_FR(v, qp, 1, p);
  c = sqrt(v->sp.gamma*ADI_FR(v, qp, 5, p)/rho);
  mu = viscosity(&v->sp, ADI_FR(v, qp, 6, p));
  eigen_parts(&v->sp, rho, ADI_FR(v, qp, 2, p), ADI_FR(v, qp, 3, p), ADI_FR(v, qp, 4, p), c, mu, ADI_RO(v->vol[p]),
              ADI_FR(v, sc, s0 + 1, p), ADI_FR(v, sc, s0 + 2, p), ADI_FR(v, sc, s0 + 3, p), &ucon, &ck, &lv);
  if (adi_single(v)) {
    float lpf[3], lnf[3], lvf[3];
    eigen_split_sp((float)ucon, (float)ck, (float)lv, lpf, lnf, lvf);
    for (s = 0; s < 3; ++s) {
      lamp[s] = (double)lpf[s];
      lamn[s] = (double)lnf[s];
      lamv[s] = (double)lvf[s];
    }
    return;
  }
  lam[0] = ucon;
  if (adi_precond(v)) {
    double ap, am;
    precond_acoustic(adi_precond_eps(v, p), ucon, ck, &ap, &am);
    lam[1] = ucon + ap;
    lam[2] = ucon + am;
    /* the implicit operator's floor on |lam| (precondition_floor) */
    a2 = fabs(lam[1]);
    a3 = fabs(lam[2]);
    flo = v->sp.pc_lam_floor*(a2 > a3 ? a2 : a3);
  } else {
    lam[1] = ucon + ck;
    lam[2] = ucon - ck;
    flo = 0.0;
  }
  for (s = 1; s <= 3; ++s) {
    av = (fabs(lam[s - 1]) > flo ? fabs(lam[s - 1]) : flo) + lv;
    lamp[s - 1] = 0.5*(lam[s - 1] + av);
    lamn[s - 1] = 0.5*(lam[s - 1] - av);
    lamv[s - 1] = av;
  }
}

/* ---- ADI stage 1: eigenvalues and their split, interior ---- */
ADI_VIEW_TEMPLATE
ADI_HD static inline void adi_stage1_point(const adi_view_t *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), s;
  double lamp[3], lamn[3], lamv[3];
  adi_eig_split(v, d, p, lamp, lamn, lamv);
  for (s = 1; s <= 3; ++s) {
    adi_wk_put(v, WK_LAMP + s, p, lamp[s - 1]);
    adi_wk_put(v, WK_LAMN + s, p, lamn[s - 1]);
    adi_wk_put(v, WK_LAMV + s, p, lamv[s - 1]);
  }
}

/* ---- ADI stage 2: sweep coefficients; flmp = 0 at the first cell of a
 * line, flmn = 0 at the last ---- */
ADI_VIEW_TEMPLATE
ADI_HD static inline void adi_stage2_point(const adi_view_t *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), e = adi_stride(v, d), n = v->nglob[d - 1], s, pd, single = adi_single(v);
  double rdg;
  pd = (d == 1 ? i : (d == 2 ? j : k)) + v->off[d - 1];   /* global position along d */
  for (s = 1; s <= 3; ++s) {
    rdg = adi2_rdiag(single, v->dtv[p], adi_wk_get(v, WK_LAMV + s, p));
    adi_wk_put(v, WK_RDIAG + s, p, rdg);
    if (pd > 1) {
      adi_wk_put(v, WK_FLMP + s, p, adi2_flmp(single, v->dtv[p], adi_wk_get(v, WK_LAMP + s, p - e)));
    } else {
      adi_wk_put(v, WK_FLMP + s, p, 0.0);
    }
    if (pd < n) {
      adi_wk_put(v, WK_FLMN + s, p, adi2_flmn(single, v->dtv[p], adi_wk_get(v, WK_LAMN + s, p + e), rdg));
    } else {
      adi_wk_put(v, WK_FLMN + s, p, 0.0);
    }
  }
}

/* ---- ADI stage 3: right-hand side into characteristic variables; first
 * direction: rhs = -dtv*res, later ones: the previous direction's dq.
 * adi_stage3_char: the part after the rhs r (the merged family's
 * ADI_kernel5_123 hands it the r of stage 5 in registers, not via dq) ---- */
/* the characteristic increments ch of r at p (promoted floats in single
 * mode); adi_stage3_char stores them in the ADI work fields, the merged
 * family's line kernel in shared memory */
ADI_VIEW_TEMPLATE
ADI_HD static ADI_FORCEINLINE void adi_stage3_ch(const adi_view_t *v, int d, int p, const double r[5], double ch[5])
{
  int s0 = 3*(d - 1), m;
  double nx, ny, nz;
  unit_normal(ADI_FR(v, sc, s0 + 1, p), ADI_FR(v, sc, s0 + 2, p), ADI_FR(v, sc, s0 + 3, p), &nx, &ny, &nz);
  if (adi_single(v)) {
    float rf[5], chf[5];
    for (m = 0; m < 5; ++m) rf[m] = (float)r[m];
    char_from_cons_sp(&v->sp, (float)ADI_FR(v, qp, 1, p), (float)ADI_FR(v, qp, 2, p), (float)ADI_FR(v, qp, 3, p),
                      (float)ADI_FR(v, qp, 4, p), (float)ADI_FR(v, qp, 5, p), (float)nx, (float)ny, (float)nz,
                      rf, chf);
    for (m = 0; m < 5; ++m) ch[m] = (double)chf[m];
    return;
  }
  if (adi_precond(v)) {
    /* the first direction's r is -dtv*res: times Gamma^-1 (pressure part by eps) */
    double eps = adi_precond_eps(v, p);
    char_from_cons_pc(&v->sp, eps, d == 1 ? eps : 1.0, ADI_FR(v, qp, 1, p), ADI_FR(v, qp, 2, p), ADI_FR(v, qp, 3, p),
                      ADI_FR(v, qp, 4, p), ADI_FR(v, qp, 5, p), nx, ny, nz, r, ch);
    return;
  }
  char_from_cons(&v->sp, ADI_FR(v, qp, 1, p), ADI_FR(v, qp, 2, p), ADI_FR(v, qp, 3, p), ADI_FR(v, qp, 4, p),
                 ADI_FR(v, qp, 5, p), nx, ny, nz, r, ch);
}

ADI_VIEW_TEMPLATE
ADI_HD static ADI_FORCEINLINE void adi_stage3_char(const adi_view_t *v, int d, int p, const double r[5])
{
  int m;
  double ch[5];
  adi_stage3_ch(v, d, p, r, ch);
  for (m = 1; m <= 5; ++m) adi_wk_put(v, WK_WCH + m, p, ch[m - 1]);
}

/* the right-hand side r of stage 3 at p */
ADI_VIEW_TEMPLATE
ADI_HD static ADI_FORCEINLINE void adi_stage3_rhs(const adi_view_t *v, int d, int p, double r[5])
{
  int m;
  if (d == 1 && v->forcing != NULL) {
    /* the CPU stores res + P first (add_forcing), then forms -(dtv*res) */
    for (m = 1; m <= 5; ++m) r[m - 1] = -(v->dtv[p]*(ADI_F(v, res, m, p) + ADI_F(v, forcing, m, p)));
  } else if (d == 1) {
    for (m = 1; m <= 5; ++m) r[m - 1] = -(v->dtv[p]*ADI_F(v, res, m, p));
  } else {
    for (m = 1; m <= 5; ++m) r[m - 1] = ADI_F(v, dq, m, p);
  }
}

ADI_VIEW_TEMPLATE
ADI_HD static inline void adi_stage3_point(const adi_view_t *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k);
  double r[5];
  adi_stage3_rhs(v, d, p, r);
  adi_stage3_char(v, d, p, r);
}

/* eigenvalue set of characteristic component m (1-based): lu_adi.f90's
 * eig_of_char */
ADI_HD static inline int adi_eig_of_char(int m) { return m <= 3 ? 1 : m - 2; }

/* ---- ADI stage 4: forward then backward sweep of the line through (b, c)
 * across direction d (cell_index order), characteristic components m0..m1
 * one after the other (they are independent: any split of them over threads
 * gives the same bits; the merged family's MS_COMP). The value just written
 * at a-1 (a+1) is carried in a register: the same number the Fortran reads
 * back from wk. adi_stage4_line: all five, lu_adi.f90's adi_stage4_sweeps
 * for one line. ---- */
ADI_VIEW_TEMPLATE
ADI_HD static inline void adi4_line_comps(const adi_view_t *v, int d, int b, int c, int m0, int m1)
{
  int n = adi_ncells(v, d), e = adi_stride(v, d), p1, pa, m, a, r, s, single = adi_single(v);
  int pc[3];
  double x;
  cell_index(d, 1, b, c, pc);
  p1 = adi_pt(v, pc[0], pc[1], pc[2]);
  for (m = m0; m <= m1; ++m) {
    r = WK_WCH + m; s = adi_eig_of_char(m);
    x = adi4x_fwd_first(single, adi_wk_get(v, r, p1), adi_wk_get(v, WK_RDIAG + s, p1));
    adi_wk_put(v, r, p1, x);
    pa = p1;
    for (a = 2; a <= n; ++a) {
      pa += e;
      x = adi4x_fwd(single, adi_wk_get(v, r, pa), adi_wk_get(v, WK_FLMP + s, pa), adi_wk_get(v, WK_RDIAG + s, pa),
                    x);
      adi_wk_put(v, r, pa, x);
    }
    /* pa is cell n; x its value */
    for (a = n - 1; a >= 1; --a) {
      pa -= e;
      x = adi4x_bwd(single, adi_wk_get(v, r, pa), adi_wk_get(v, WK_FLMN + s, pa), x);
      adi_wk_put(v, r, pa, x);
    }
  }
}

ADI_VIEW_TEMPLATE
ADI_HD static inline void adi_stage4_line(const adi_view_t *v, int d, int b, int c)
{
  adi4_line_comps(v, d, b, c, 1, 5);
}

/* ---- ADI stage 5: back to conservative increments: dq for the next
 * direction or, after the last (d = 3), q = q + dq. adi_stage5_incr: the
 * increments r at p, before they are stored ---- */
/* the increments r at p from the characteristic values ch (promoted floats
 * in single mode): adi_stage5_incr reads them from the ADI work fields, the
 * merged family's line kernel from shared memory */
ADI_VIEW_TEMPLATE
ADI_HD static ADI_FORCEINLINE void adi_stage5_from_ch(const adi_view_t *v, int d, int p, const double ch[5],
                                                      double r[5])
{
  int s0 = 3*(d - 1), m;
  double nx, ny, nz;
  unit_normal(ADI_FR(v, sc, s0 + 1, p), ADI_FR(v, sc, s0 + 2, p), ADI_FR(v, sc, s0 + 3, p), &nx, &ny, &nz);
  if (adi_single(v)) {
    float chf[5], rf[5];
    for (m = 0; m < 5; ++m) chf[m] = (float)ch[m];
    cons_from_char_sp(&v->sp, (float)ADI_FR(v, qp, 1, p), (float)ADI_FR(v, qp, 2, p), (float)ADI_FR(v, qp, 3, p),
                      (float)ADI_FR(v, qp, 4, p), (float)ADI_FR(v, qp, 5, p), (float)nx, (float)ny, (float)nz,
                      chf, rf);
    for (m = 0; m < 5; ++m) r[m] = (double)rf[m];
    return;
  }
  if (adi_precond(v)) {
    double eps = adi_precond_eps(v, p);
    cons_from_char_pc(&v->sp, eps, ADI_FR(v, qp, 1, p), ADI_FR(v, qp, 2, p), ADI_FR(v, qp, 3, p),
                      ADI_FR(v, qp, 4, p), ADI_FR(v, qp, 5, p), nx, ny, nz, ch, r);
    return;
  }
  cons_from_char(&v->sp, ADI_FR(v, qp, 1, p), ADI_FR(v, qp, 2, p), ADI_FR(v, qp, 3, p), ADI_FR(v, qp, 4, p),
                 ADI_FR(v, qp, 5, p), nx, ny, nz, ch, r);
}

ADI_VIEW_TEMPLATE
ADI_HD static ADI_FORCEINLINE void adi_stage5_incr(const adi_view_t *v, int d, int p, double r[5])
{
  int m;
  double ch[5];
  for (m = 1; m <= 5; ++m) ch[m - 1] = adi_wk_get(v, WK_WCH + m, p);
  adi_stage5_from_ch(v, d, p, ch, r);
}

/* stage 5's store of the increments r at p: dq for the next direction or,
 * after the last (d = 3), q = q + dq. In two parts for a kernel that loads
 * first: adi_stage5_old reads the q that the last direction adds to (into
 * q0; nothing before d = 3), adi_stage5_store_to stores */
ADI_VIEW_TEMPLATE
ADI_HD static ADI_FORCEINLINE void adi_stage5_old(const adi_view_t *v, int d, int p, double q0[5])
{
  int m;
  if (d == 3)
    for (m = 1; m <= 5; ++m) q0[m - 1] = ADI_F(v, q, m, p);
}

ADI_VIEW_TEMPLATE
ADI_HD static ADI_FORCEINLINE void adi_stage5_store_to(const adi_view_t *v, int d, int p, const double q0[5],
                                                       const double r[5])
{
  int m;
  if (d < 3) {
    for (m = 1; m <= 5; ++m) ADI_F(v, dq, m, p) = r[m - 1];
  } else {
    for (m = 1; m <= 5; ++m) ADI_F(v, q, m, p) = q0[m - 1] + r[m - 1];
  }
}

ADI_VIEW_TEMPLATE
ADI_HD static ADI_FORCEINLINE void adi_stage5_store(const adi_view_t *v, int d, int p, const double r[5])
{
  double q0[5];
  adi_stage5_old(v, d, p, q0);
  adi_stage5_store_to(v, d, p, q0, r);
}

ADI_VIEW_TEMPLATE
ADI_HD static inline void adi_stage5_point(const adi_view_t *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k);
  double r[5];
  adi_stage5_incr(v, d, p, r);
  adi_stage5_store(v, d, p, r);
}

#endif
