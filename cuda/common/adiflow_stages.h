/* The body of every stage of one iteration at one point (or, for the ADI
 * sweeps, one grid line), shared by the CUDA kernels (cuda/split/, cuda/merged/, cuda/api/) and
 * the host emulation of the GPU launch sequence (tests/c_vs_fortran/stages_host_emul.c).
 *
 * Each function mirrors the loop body of its Fortran stage one to one:
 *   bc_fill_line           boundary_conditions.f90  apply_boundary_conditions
 *   primitives_point       primitives.f90           compute_primitives
 *   time_step_point        time_step.f90            compute_time_step
 *   flux_stage1_point..4   convective_flux.f90      flux_stage1_differences ..
 *   viscous_flux_point     viscous_flux.f90         viscous_flux_faces
 *   adi_stage1_point..5    lu_adi.f90               adi_stage1_eigenvalues ..
 *   adi_stage4_line        lu_adi.f90               adi_stage4_sweeps (one line)
 *   residual_plane_sum     residual_norms.f90       (one k-plane, one variable)
 *   mass_row_sum, mass_plane_sum_from, scale_state_point
 *                          mass_constraint.f90      mass_row_sum, add_mass_plane_sums, scale_state
 * with the same index ranges (stage_bounds), the same ghost semantics and the
 * same arithmetic, so a GPU iteration reproduces the CPU one bit for bit when
 * FMA contraction is off. tests/c_vs_fortran/test_stages_c_vs_fortran.f90 runs the
 * emulation against solver_cpu on the CPU.
 *
 * Layout (fortran/grid_layout.f90): cell (i,j,k), i in -1..ldi-2, j in
 * -1..nj+2, k in -1..nk+2, is point (i+1) + ldi*((j+1) + ldj*(k+1)) of a
 * field; component m (1-based, as in the Fortran) of a multi-field array
 * starts at (m-1)*npts.
 */
#ifndef ADIFLOW_STAGES_H
#define ADIFLOW_STAGES_H

#include <stddef.h>

#include "adiflow_math.h"

/* work fields (1-based component = offset + m), convective_flux.f90 */
enum { WK_DU = 0, WK_QL = 5, WK_QR = 10, WK_FC = 15, WK_FV = 20 };
/* work fields of the ADI stages, lu_adi.f90 */
enum { WK_LAMP = 0, WK_LAMN = 3, WK_LAMV = 6, WK_FLMP = 9, WK_FLMN = 12, WK_RDIAG = 15, WK_WCH = 18 };
enum { ADI_NVAR = 5, ADI_NPRIM = 6, ADI_NWORK = 25, ADI_NMETRIC = 9 };
/* the ADI stages' work fields, components 1..23 (lam+-, |lam|_v, flmp, flmn,
 * rdiag, wch): what the view's float copy wkf holds */
enum { ADI_NWORK_ADI = WK_WCH + 5 };
/* fields of one run: q 5, qp 6, res 5, dq 5, dtv 1, wk 25, sf 9, sc 9, vol 1 */
enum { ADI_NFIELDS = 5 + 6 + 5 + 5 + 1 + 25 + 9 + 9 + 1 };

/* Everything a stage reads: the parameters, the layout and the fields
 * (device pointers in a kernel, host pointers in the emulation). */
typedef struct adi_view {
  adi_solver_params sp;
  int ni, nj, nk;
  int ldi, ldj, ldk;
  ptrdiff_t npts;              /* ldi*ldj*ldk points per field (< 2^31) */
  double *q, *qp, *res, *dq, *dtv, *wk;
  const double *sf, *sc, *vol;
  /* implicit_precision = 'single': the ADI work fields (ADI_NWORK_ADI
   * components, wk's offsets) stored as floats, half the bytes the ADI
   * stages move; every value there is a float anyway (adi_single). NULL:
   * they live in wk, as in double mode and on the grids that keep double
   * storage (the host emulation by default, the blocks of a decomposed
   * grid, cuda/api/grid.cu). Read and written only through adi_wk_get and
   * adi_wk_put (and the merged family's sweeps, cuda/merged/adi_kernels.cu). */
  float *wkf;
  /* a coarse multigrid level's FAS forcing P (5 fields), NULL otherwise:
   * ADI stage 3 then drives res + P (solver_cpu.f90's add_forcing) */
  const double *forcing;
  /* A block of a decomposed grid (build/adiflow_mpi, fortran/mpi_decomp.f90);
   * a single domain has phys all 1, off 0 and nglob = (ni, nj, nk).
   * phys[f]: face f (imin, imax, jmin, jmax, kmin, kmax) gets the physical
   * boundary fill (0: the neighbour's rows arrive by halo exchange).
   * off, nglob: global index = local + off, global sizes; ADI stage 2 puts
   * its end conditions at the global faces (the exact cross-block mode). */
  int phys[6];
  int off[3], nglob[3];
} adi_view;

/* A view of the fields of one grid (host or device pointers). */
static inline adi_view adi_make_view(const adi_solver_params *sp, double *q, double *qp, double *res,
                                     double *dq, double *dtv, double *wk, const double *sf,
                                     const double *sc, const double *vol)
{
  adi_view v;
  v.sp = *sp;
  v.ni = sp->ni; v.nj = sp->nj; v.nk = sp->nk;
  v.ldi = sp->ldi; v.ldj = sp->ldj; v.ldk = sp->ldk;
  v.npts = (ptrdiff_t)sp->ldi*sp->ldj*sp->ldk;
  v.q = q; v.qp = qp; v.res = res; v.dq = dq; v.dtv = dtv; v.wk = wk;
  v.sf = sf; v.sc = sc; v.vol = vol;
  v.wkf = NULL;
  v.forcing = NULL;
  for (int f = 0; f < 6; ++f) v.phys[f] = 1;
  v.off[0] = 0; v.off[1] = 0; v.off[2] = 0;
  v.nglob[0] = sp->ni; v.nglob[1] = sp->nj; v.nglob[2] = sp->nk;
  return v;
}

/* a(i,j,k,m) of the Fortran for a field array a of the view, point p */
#define ADI_F(v, a, m, p) ((v)->a[(ptrdiff_t)((m) - 1)*(v)->npts + (p)])
/* The same element, read where no kernel that reads it this way writes the
 * field (the implicit operator's reads of qp, sc and vol: only the
 * primitives and the grid set them, in other launches): on the device
 * through the read-only data cache (__ldg); the same value. */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define ADI_RO(x) __ldg(&(x))
#else
#define ADI_RO(x) (x)
#endif
#define ADI_FR(v, a, m, p) ADI_RO(ADI_F(v, a, m, p))

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

/* [lo, hi] box of a stage, the Fortran's stage_bounds */
typedef struct adi_box {
  int lo[3], hi[3];
} adi_box;

ADI_HD static inline int adi_pt(const adi_view *v, int i, int j, int k)
{
  return (i + 1) + v->ldi*((j + 1) + v->ldj*(k + 1));
}

/* distance between neighbours along direction d */
ADI_HD static inline int adi_stride(const adi_view *v, int d)
{
  return d == 1 ? 1 : (d == 2 ? v->ldi : v->ldi*v->ldj);
}

ADI_HD static inline int adi_ncells(const adi_view *v, int d)
{
  return d == 1 ? v->ni : (d == 2 ? v->nj : v->nk);
}

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

/* Cell (i,j,k) from a position a along direction d and b, c across it
 * (the two other directions in increasing order). */
ADI_HD static inline void cell_index(int d, int a, int b, int c, int p[3])
{
  if (d == 1) {
    p[0] = a; p[1] = b; p[2] = c;
  } else if (d == 2) {
    p[0] = b; p[1] = a; p[2] = c;
  } else {
    p[0] = b; p[1] = c; p[2] = a;
  }
}

/* Fortran's modulo(a, n) for n > 0: the result lies in 0..n-1. */
ADI_HD static inline int adi_modulo(int a, int n)
{
  int r = a % n;
  return r < 0 ? r + n : r;
}

/* ---- boundary conditions: ghost layer `layer` (1, 2) on side `side`
 * (1: below cell 1, 2: above cell n) of the line (b, c) across direction d;
 * b in -1..nb+2, c in -1..nc+2. A ghost reads only cells 1..n along d (its
 * mirror, or its periodic image; walls need n >= 2) and writes only itself,
 * so the four ghosts of a line are independent: the GPU fills them in
 * parallel (cuda/split/bc_kernels.cu) ---- */
/* the ghost g and its mirror cell m along a line of n cells: ghost layer
 * `layer` (1, 2) on side `side` (1: below cell 1, 2: above cell n) */
ADI_HD static inline void ghost_and_mirror(int n, int side, int layer, int *g, int *m)
{
  if (side == 1) {
    *g = 1 - layer;           /* ghosts 0, -1 */
    *m = layer;               /* mirror cells 1, 2 */
  } else {
    *g = n + layer;           /* ghosts n+1, n+2 */
    *m = n + 1 - layer;       /* mirror cells n, n-1 */
  }
}

ADI_HD static inline void bc_fill_ghost(const adi_view *v, int d, int b, int c, int side, int layer)
{
  int n, g, m, bc, pg[3], pm[3], ig, im, comp;
  double uw, vw, ww, qm[5], qg[5];
  if (!v->phys[2*d - 2 + side - 1]) return;   /* filled by the halo exchange */
  n = adi_ncells(v, d);
  bc = v->sp.bc[2*d - 2 + side - 1];
  uw = 0.0; vw = 0.0; ww = 0.0;
  if (bc == ADI_BC_LID) {
    uw = v->sp.lid_u; vw = v->sp.lid_v; ww = v->sp.lid_w;
  }
  ghost_and_mirror(n, side, layer, &g, &m);
  if (bc == ADI_BC_PERIODIC) m = 1 + adi_modulo(g - 1, n);
  cell_index(d, g, b, c, pg);
  cell_index(d, m, b, c, pm);
  ig = adi_pt(v, pg[0], pg[1], pg[2]);
  im = adi_pt(v, pm[0], pm[1], pm[2]);
  for (comp = 1; comp <= 5; ++comp) qm[comp - 1] = ADI_F(v, q, comp, im);
  if (bc == ADI_BC_PERIODIC) {
    for (comp = 0; comp < 5; ++comp) qg[comp] = qm[comp];
  } else {
    wall_ghost_state(&v->sp, uw, vw, ww, qm, qg);
  }
  for (comp = 1; comp <= 5; ++comp) ADI_F(v, q, comp, ig) = qg[comp - 1];
}

/* the line's four ghosts in the CPU's order: both layers of side 1, then of side 2 */
ADI_HD static inline void bc_fill_line(const adi_view *v, int d, int b, int c)
{
  int side, layer;
  for (side = 1; side <= 2; ++side)
    for (layer = 1; layer <= 2; ++layer) bc_fill_ghost(v, d, b, c, side, layer);
}

/* ---- isothermal walls: the ghost temperature qp(6) of ghost layer
 * `layer` on side `side` of the line (b, c) across direction d, reflected
 * about t_wall (after the primitives; only the viscous flux reads ghost
 * temperatures). Independent between the four ghosts, as bc_fill_ghost ---- */
ADI_HD static inline void wall_temperature_ghost(const adi_view *v, int d, int b, int c, int side, int layer)
{
  int n, g, m, bc, pg[3], pm[3];
  bc = v->sp.bc[2*d - 2 + side - 1];
  if (!v->phys[2*d - 2 + side - 1] || bc == ADI_BC_PERIODIC) return;
  n = adi_ncells(v, d);
  ghost_and_mirror(n, side, layer, &g, &m);
  cell_index(d, g, b, c, pg);
  cell_index(d, m, b, c, pm);
  ADI_F(v, qp, 6, adi_pt(v, pg[0], pg[1], pg[2])) =
    wall_ghost_temperature(&v->sp, ADI_F(v, qp, 6, adi_pt(v, pm[0], pm[1], pm[2])));
}

ADI_HD static inline void wall_temperature_line(const adi_view *v, int d, int b, int c)
{
  int side, layer;
  for (side = 1; side <= 2; ++side)
    for (layer = 1; layer <= 2; ++layer) wall_temperature_ghost(v, d, b, c, side, layer);
}

/* ---- primitives on every cell, ghosts included ---- */
ADI_HD static inline void primitives_point(const adi_view *v, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k);
  cons_to_prim(&v->sp, ADI_F(v, q, 1, p), ADI_F(v, q, 2, p), ADI_F(v, q, 3, p), ADI_F(v, q, 4, p),
               ADI_F(v, q, 5, p), &ADI_F(v, qp, 1, p), &ADI_F(v, qp, 2, p), &ADI_F(v, qp, 3, p),
               &ADI_F(v, qp, 4, p), &ADI_F(v, qp, 5, p), &ADI_F(v, qp, 6, p));
}

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
  v->dtv[p] = cfl/((fabs(u1) + c1 + l1) + (fabs(u2) + c2 + l2) + (fabs(u3) + c3 + l3));
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

/* ---- stage 4: res(c) += (fc - fv)(c+1) - (fc - fv)(c), cells 1..n ---- */
ADI_HD static inline void flux_stage4_point(const adi_view *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), ih = p + adi_stride(v, d), m;
  for (m = 1; m <= 5; ++m)
    ADI_F(v, res, m, p) = ADI_F(v, res, m, p) + ((ADI_F(v, wk, WK_FC + m, ih) - ADI_F(v, wk, WK_FV + m, ih))
                                                - (ADI_F(v, wk, WK_FC + m, p) - ADI_F(v, wk, WK_FV + m, p)));
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

/* a view whose ADI work fields are stored as T (double: wk, float: wkf),
 * known to the compiler; nothing else is added */
template <typename T>
struct adi_view_wk : adi_view {
};

ADI_HD static inline double adi_wk_get(const adi_view_wk<double> *v, int m, int p)
{
  return ADI_F(v, wk, m, p);
}

ADI_HD static inline void adi_wk_put(const adi_view_wk<double> *v, int m, int p, double x)
{
  ADI_F(v, wk, m, p) = x;
}

ADI_HD static inline double adi_wk_get(const adi_view_wk<float> *v, int m, int p)
{
  return (double)ADI_F(v, wkf, m, p);
}

ADI_HD static inline void adi_wk_put(const adi_view_wk<float> *v, int m, int p, double x)
{
  ADI_F(v, wkf, m, p) = (float)x;
}

/* only a grid in single mode has wkf (cuda/api/grid.cu) */
ADI_HD static inline int adi_single(const adi_view_wk<float> *v)
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

/* ---- eigenvalues of direction d at point p and their split lam+-, |lam|_v:
 * ADI stage 1 (fortran/lu_adi.f90 adi_stage1_eigenvalues); the merged
 * kernels keep them in registers ---- */
ADI_VIEW_TEMPLATE
ADI_HD static inline void adi_eig_split(const adi_view_t *v, int d, int p, double lamp[3], double lamn[3],
                                        double lamv[3])
{
  int s0 = 3*(d - 1), s;
  double rho, c, mu, ucon, ck, lv, lam[3], av;
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
  lam[1] = ucon + ck;
  lam[2] = ucon - ck;
  for (s = 1; s <= 3; ++s) {
    av = fabs(lam[s - 1]) + lv;
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

/* ---- ADI stage 4 split for a block of a decomposed line (the multi-GPU
 * exact mode, cuda/multi/block_nccl.cu): the forward, then the backward
 * recurrence of one characteristic variable m of the line (b, c), with the
 * operations of adi_stage4_line in the same order. has_lo: the value of cell
 * 0 (the block below's last forward value, received into the ghost row)
 * starts the recurrence at cell 1, as the single line's own cell 0 would;
 * has_hi: cell n+1 holds the block above's first backward value. Without
 * them, the line's own end conditions (adi_stage4_line exactly). wk, not
 * adi_wk_get/put: a block keeps the ADI fields in wk (wkf NULL,
 * cuda/api/grid.cu), where block_nccl.cu's row copies and halos find
 * them. ---- */
ADI_HD static inline void adi_stage4_fwd_var(const adi_view *v, int d, int b, int c, int m, int has_lo)
{
  int n = adi_ncells(v, d), e = adi_stride(v, d), r = WK_WCH + m, s = adi_eig_of_char(m), a, pa, pc[3];
  int single = adi_single(v);
  double x;
  cell_index(d, 1, b, c, pc);
  pa = adi_pt(v, pc[0], pc[1], pc[2]);
  if (has_lo) {
    x = ADI_F(v, wk, r, pa - e);
    a = 1;
  } else {
    x = adi4x_fwd_first(single, ADI_F(v, wk, r, pa), ADI_F(v, wk, WK_RDIAG + s, pa));
    ADI_F(v, wk, r, pa) = x;
    pa += e;
    a = 2;
  }
  for (; a <= n; ++a) {
    x = adi4x_fwd(single, ADI_F(v, wk, r, pa), ADI_F(v, wk, WK_FLMP + s, pa), ADI_F(v, wk, WK_RDIAG + s, pa), x);
    ADI_F(v, wk, r, pa) = x;
    pa += e;
  }
}

ADI_HD static inline void adi_stage4_bwd_var(const adi_view *v, int d, int b, int c, int m, int has_hi)
{
  int n = adi_ncells(v, d), e = adi_stride(v, d), r = WK_WCH + m, s = adi_eig_of_char(m), a, pa, pc[3];
  int single = adi_single(v);
  double x;
  cell_index(d, n, b, c, pc);
  pa = adi_pt(v, pc[0], pc[1], pc[2]);
  if (has_hi) {
    x = ADI_F(v, wk, r, pa + e);
    a = n;
  } else {
    x = ADI_F(v, wk, r, pa);
    pa -= e;
    a = n - 1;
  }
  for (; a >= 1; --a) {
    x = adi4x_bwd(single, ADI_F(v, wk, r, pa), ADI_F(v, wk, WK_FLMN + s, pa), x);
    ADI_F(v, wk, r, pa) = x;
    pa -= e;
  }
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

/* ---- residual norms: sum of (res/vol)^2 over k-plane k of variable m,
 * j then i in increasing order, as residual_norms.f90 sums plane(m, k) ---- */
ADI_HD static inline double residual_plane_sum_from(const adi_view *v, int m, int k, double sum)
{
  int i, j, p;
  double r;
  for (j = 1; j <= v->nj; ++j) {
    for (i = 1; i <= v->ni; ++i) {
      p = adi_pt(v, i, j, k);
      r = ADI_F(v, res, m, p)/v->vol[p];
      sum = sum + r*r;
    }
  }
  return sum;
}

ADI_HD static inline double residual_plane_sum(const adi_view *v, int m, int k)
{
  return residual_plane_sum_from(v, m, k, 0.0);
}

/* norms(m) = sqrt(sum over k in order of plane(m, k) / (ni*nj*nk));
 * plane(m, k) at plane[(m-1) + 5*(k-1)] */
ADI_HD static inline double residual_norm_final(const adi_view *v, const double *plane, int m)
{
  int k;
  double norm = 0.0;
  for (k = 1; k <= v->nk; ++k) norm = norm + plane[(m - 1) + 5*(k - 1)];
  return sqrt(norm/((double)v->ni*(double)v->nj*(double)v->nk));
}

/* ---- mass_fix (fortran/mass_constraint.f90): the total mass M = sum of
 * vol*rho in the Fortran's fixed order, rows first, then planes ---- */

/* sum of vol*rho over row (j, k), i in order from 0: mass_row_sum */
ADI_HD static inline double mass_row_sum(const adi_view *v, int j, int k)
{
  int i, p;
  double r = 0.0;
  for (i = 1; i <= v->ni; ++i) {
    p = adi_pt(v, i, j, k);
    r = r + v->vol[p]*ADI_F(v, q, 1, p);
  }
  return r;
}

/* plane k's running sum plus its rows in j order, rows[(j-1) + nj*(k-1)]
 * from mass_row_sum: the j loop of add_mass_plane_sums (the sum passed in
 * is the one of the j blocks below, 0 on a single domain) */
ADI_HD static inline double mass_plane_sum_from(const adi_view *v, const double *rows, int k, double sum)
{
  int j;
  for (j = 1; j <= v->nj; ++j) sum = sum + rows[(j - 1) + v->nj*(k - 1)];
  return sum;
}

/* the five conservative variables of interior cell (i,j,k) times s:
 * scale_state's loop body */
ADI_HD static inline void scale_state_point(const adi_view *v, double s, int i, int j, int k)
{
  int m, p = adi_pt(v, i, j, k);
  for (m = 1; m <= 5; ++m) ADI_F(v, q, m, p) = s*ADI_F(v, q, m, p);
}

/* ---- index boxes of the stages (the Fortran's loop ranges). Line stages:
 * lo/hi[0..1] are the (b, c) of cell_index across d, lo/hi[2] = 0. ---- */

/* the lines across d: the full cross-section, ghosts included (ghosts = 1),
 * or the interior ones (ghosts = 0) */
ADI_HD static inline adi_box adi_box_lines(const adi_view *v, int d, int ghosts)
{
  adi_box b;
  int nb = d == 1 ? v->nj : v->ni, nc = d == 3 ? v->nj : v->nk;
  if (ghosts) {
    b.lo[0] = -1; b.hi[0] = nb + 2; b.lo[1] = -1; b.hi[1] = nc + 2;
  } else {
    b.lo[0] = 1; b.hi[0] = nb; b.lo[1] = 1; b.hi[1] = nc;
  }
  b.lo[2] = 0; b.hi[2] = 0;
  return b;
}

/* every cell, ghosts included */
ADI_HD static inline adi_box adi_box_all(const adi_view *v)
{
  adi_box b;
  b.lo[0] = -1; b.lo[1] = -1; b.lo[2] = -1;
  b.hi[0] = v->ni + 2; b.hi[1] = v->nj + 2; b.hi[2] = v->nk + 2;
  return b;
}

ADI_HD static inline adi_box adi_box_interior(const adi_view *v)
{
  adi_box b;
  b.lo[0] = 1; b.lo[1] = 1; b.lo[2] = 1;
  b.hi[0] = v->ni; b.hi[1] = v->nj; b.hi[2] = v->nk;
  return b;
}

/* ---- the split family's stages, solver_cpu.f90's cpu_iteration one kernel
 * per stage and direction: the one list a stage is registered in. The enum,
 * the names, the index boxes, the GPU dispatch (cuda/split/schedule.cu), the
 * host emulation (tests/c_vs_fortran/stages_host_emul.c) and the timing table's families
 * are made from it. A new stage: a row here, its body above, and its kernel
 * and launcher in cuda/split/ (thin: the cell, then the body).
 *   X(id, name, family, box, launch, body)
 *   id      ST_<id>; the order is the timing table's, and the schedule below
 *           takes FLUX1..FLUX4 and ADI1..ADI5 as runs
 *   name    the kernel's name (the seed paper's flux_kernel1-4, ADI_kernel1-5)
 *   family  its line among the timing table's kernel families (SF_*)
 *   box     the index box it runs over, with v and d in scope
 *   launch  its launch on the GPU, with v, d, cfl and the stream s in scope
 *   body    one point (i, j, k), or one line (b, c) = (i, j), on the host,
 *           with v, d, cfl, i, j, k in scope; the kernel runs the same body.
 *           RES_ZERO is a memset of the whole field: no body per point. */
#define ADI_SPLIT_STAGES(X)                                                                                       \
  X(BC,       "bc_kernel",             SF_BC,    adi_box_lines(v, d, 1),   launch_bc_kernel(v, d, s),             \
    bc_fill_line(v, d, i, j))                                                                                     \
  X(PRIM,     "primitives_kernel",     SF_PRIM,  adi_box_all(v),           launch_primitives_kernel(v, s),        \
    primitives_point(v, i, j, k))                                                                                 \
  X(TSTEP,    "time_step_kernel",      SF_TSTEP, adi_box_interior(v),      launch_time_step_kernel(v, cfl, s),    \
    time_step_point(v, cfl, i, j, k))                                                                             \
  X(RES_ZERO, "res_zero(memset)",      SF_RESET, adi_box_interior(v),      launch_res_zero(v, s),                 \
    (void)0)                                                                                                      \
  X(FLUX1,    "flux_kernel1",          SF_FLUX,  stage_bounds(v, d, 0, 2), launch_flux_kernel1(v, d, s),          \
    flux_stage1_point(v, d, i, j, k))                                                                             \
  X(FLUX2,    "flux_kernel2",          SF_FLUX,  stage_bounds(v, d, 1, 1), launch_flux_kernel2(v, d, s),          \
    flux_stage2_point(v, d, i, j, k))                                                                             \
  X(FLUX3,    "flux_kernel3",          SF_FLUX,  stage_bounds(v, d, 1, 1), launch_flux_kernel3(v, d, s),          \
    flux_stage3_point(v, d, i, j, k))                                                                             \
  X(VISC,     "viscous_kernel",        SF_VISC,  stage_bounds(v, d, 1, 1), launch_viscous_kernel(v, d, s),        \
    viscous_flux_point(v, d, i, j, k))                                                                            \
  X(FLUX4,    "flux_kernel4",          SF_FLUX,  stage_bounds(v, d, 1, 0), launch_flux_kernel4(v, d, s),          \
    flux_stage4_point(v, d, i, j, k))                                                                             \
  X(ADI1,     "ADI_kernel1",           SF_ADI,   adi_box_interior(v),      launch_ADI_kernel1(v, d, s),           \
    adi_stage1_point(v, d, i, j, k))                                                                              \
  X(ADI2,     "ADI_kernel2",           SF_ADI,   adi_box_interior(v),      launch_ADI_kernel2(v, d, s),           \
    adi_stage2_point(v, d, i, j, k))                                                                              \
  X(ADI3,     "ADI_kernel3",           SF_ADI,   adi_box_interior(v),      launch_ADI_kernel3(v, d, s),           \
    adi_stage3_point(v, d, i, j, k))                                                                              \
  X(ADI4,     "ADI_kernel4",           SF_ADI,   adi_box_lines(v, d, 0),   launch_ADI_kernel4(v, d, s),           \
    adi_stage4_line(v, d, i, j))                                                                                  \
  X(ADI5,     "ADI_kernel5",           SF_ADI,   adi_box_interior(v),      launch_ADI_kernel5(v, d, s),           \
    adi_stage5_point(v, d, i, j, k))                                                                              \
  X(WALLT,    "bc_temperature_kernel", SF_BC,    adi_box_lines(v, d, 1),   launch_bc_temperature_kernel(v, d, s), \
    wall_temperature_line(v, d, i, j))

/* the kernel families of the timing table, in its order: F(id, name) */
#define ADI_SPLIT_FAMILIES(F)                                                   \
  F(SF_BC, "boundary conditions") F(SF_PRIM, "primitives")                      \
  F(SF_TSTEP, "local time step") F(SF_RESET, "residual reset")                  \
  F(SF_FLUX, "flux (flux_kernel1-4)") F(SF_VISC, "viscous")                     \
  F(SF_ADI, "lu_adi (ADI_kernel1-5)")

enum adi_stage_id {
#define ADI_X(id, name, family, box, launch, body) ST_##id,
  ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  ST_COUNT
};

enum adi_split_family {
#define ADI_FAM(id, name) id,
  ADI_SPLIT_FAMILIES(ADI_FAM)
#undef ADI_FAM
  SF_COUNT
};

typedef struct adi_step {
  int stage, d;
} adi_step;

enum { ADI_MAX_STEPS = 3 + 3 + 3 + 3*5 + 3*5 };

/* Steps of one iteration in order; returns their number. The isothermal
 * wall temperature (ST_WALLT) follows the time step, which reads interior
 * temperatures only, as in solver_cpu.f90. */
static inline int adi_iteration_schedule(const adi_solver_params *sp, adi_step steps[ADI_MAX_STEPS])
{
  int n = 0, d, st, order = sp->order;
  for (d = 1; d <= 3; ++d) { steps[n].stage = ST_BC; steps[n].d = d; ++n; }
  steps[n].stage = ST_PRIM; steps[n].d = 0; ++n;
  steps[n].stage = ST_TSTEP; steps[n].d = 0; ++n;
  if (sp->wall_thermal == ADI_WALL_ISOTHERMAL) {
    for (d = 1; d <= 3; ++d) { steps[n].stage = ST_WALLT; steps[n].d = d; ++n; }
  }
  steps[n].stage = ST_RES_ZERO; steps[n].d = 0; ++n;
  for (d = 1; d <= 3; ++d) {
    for (st = ST_FLUX1; st <= ST_FLUX4; ++st) {
      if (st == ST_FLUX1 && order != 2) continue;
      steps[n].stage = st; steps[n].d = d; ++n;
    }
  }
  for (d = 1; d <= 3; ++d) {
    for (st = ST_ADI1; st <= ST_ADI5; ++st) { steps[n].stage = st; steps[n].d = d; ++n; }
  }
  return n;
}

static inline const char *adi_stage_name(int stage)
{
  static const char *names[ST_COUNT] = {
#define ADI_X(id, name, family, box, launch, body) name,
    ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  };
  return stage >= 0 && stage < ST_COUNT ? names[stage] : "?";
}

/* the timing table's family of a stage (SF_*), and a family's name */
static inline int adi_stage_family(int stage)
{
  static const int fam[ST_COUNT] = {
#define ADI_X(id, name, family, box, launch, body) family,
    ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  };
  return stage >= 0 && stage < ST_COUNT ? fam[stage] : -1;
}

static inline const char *adi_split_family_name(int f)
{
  static const char *names[SF_COUNT] = {
#define ADI_FAM(id, name) name,
    ADI_SPLIT_FAMILIES(ADI_FAM)
#undef ADI_FAM
  };
  return f >= 0 && f < SF_COUNT ? names[f] : "?";
}

/* Index box a stage runs over (the box column of ADI_SPLIT_STAGES). */
ADI_HD static inline adi_box adi_stage_box(const adi_view *v, int stage, int d)
{
  switch (stage) {
#define ADI_X(id, name, family, box, launch, body) case ST_##id: return box;
    ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  default: return adi_box_interior(v);
  }
}

#endif
