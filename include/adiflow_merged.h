/* The "merged" kernel family: new per-point / per-line bodies and
 * the merged launch schedule, shared by the CUDA kernels
 * (cuda/merged_*.cu) and the host emulation
 * (tests/merged_host_emul.c, checked bit for bit against solver_cpu by
 * tests/test_merged_c_vs_fortran.f90).
 *
 * Rule: no new arithmetic. Every value is computed by the same expressions
 * of adiflow_math.h / adiflow_stages.h as in the split family (the same
 * operands, the same association); only where intermediates live changes
 * (registers or shared memory instead of the wk work fields) and which
 * thread computes them. With FMA contraction off the merged family is bit
 * identical to the CPU reference.
 *
 * Techniques ("steps"), each selectable at run time (ADIFLOW_MERGED_STEPS,
 * cuda/merged_schedule.cu), so one run can measure each one:
 *   MS_ADI12  (paper 1) ADI_kernel1+2 merged: eigenvalue split kept in
 *             registers, the neighbours' recomputed (adi12_point)
 *   MS_ALIGN  (paper 2) aligned access: blocks start at the first point of
 *             a row (i = -1, a 128-byte boundary), not at i = 1
 *   MS_SWEEP  (paper 3) i-sweeps through shared-memory tiles (lines x 17),
 *             j/k sweeps with loads batched in registers
 *   MS_FLUX1S (paper 4) flux_kernel1 through a shared-memory tile
 *   MS_TUNE   (paper 5) per-kernel block shapes from the tuning table
 *   MS_FUSE   (a) flux of a direction fused: differences, MUSCL, Roe flux,
 *             viscous flux and the residual update in one kernel
 *             (flux_face_g + shared memory), residual reset folded in
 *   MS_COMP   (b) sweeps with one thread per (line, characteristic
 *             component): 5x the threads, the same arithmetic (exact)
 *   MS_GRAPH  (c) the iteration captured in a CUDA graph and replayed
 *   MS_ADI123 ADI_kernel3 folded into the merged ADI_kernel1+2
 *   MS_PT     primitives and local time step in one kernel
 *   MS_FMARCH fused flux, marching: a block owns a cross-section tile and
 *             marches along d in chunks; each face's g computed exactly
 *             once (the chunk's last face carried to the next chunk in
 *             shared memory), convective then viscous part (fewer live
 *             registers), __launch_bounds__ (needs MS_FUSE); used along i
 *             and j only (adi_merged_march): along k the 168-register
 *             marching kernel was slower than the fused one on an H200
 *             (0.61 vs 0.43 ms at 128^3, bench/log/2026-11-21-cfd.md)
 *   MS_TSWEEP i-sweeps warp by warp: each warp owns warp-size lines and
 *             moves chunks of 16 i x lines through shared memory with all
 *             of a chunk's loads in flight at once (unrolled), no block
 *             barriers (needs MS_SWEEP)
 *   MS_ADI5F  ADI_kernel5 of direction d fused with ADI_kernel1+2+3 of
 *             d + 1 (d = 1, 2) into one point kernel, ADI_kernel5_123
 *             (adi5f_point): stage 5's increments at p go from registers
 *             straight into stage 3 of d + 1, so dq is neither written nor
 *             read (nothing else reads it); stages 1-2 of d + 1 are
 *             adi12_point's (whatever MS_ADI12 / MS_ADI123 say), which reads
 *             only qp, sc, vol and dtv, none written in the kernel. The
 *             schedule: [123 of 1] 4(1) 5_123(1) 4(2) 5_123(2) 4(3) 5(3)
 */
#ifndef ADIFLOW_MERGED_H
#define ADIFLOW_MERGED_H

#include "adiflow_stages.h"

enum adi_merged_step_flag {
  MS_ADI12 = 1 << 0, MS_ALIGN = 1 << 1, MS_SWEEP = 1 << 2, MS_FLUX1S = 1 << 3, MS_TUNE = 1 << 4,
  MS_FUSE = 1 << 5, MS_COMP = 1 << 6, MS_GRAPH = 1 << 7, MS_ADI123 = 1 << 8, MS_PT = 1 << 9,
  MS_FMARCH = 1 << 10, MS_TSWEEP = 1 << 11, MS_ADI5F = 1 << 12,
  MS_ALL = (1 << 13) - 1
};

/* Whether the fused flux of direction d runs as the marching kernel. */
static inline int adi_merged_march(int flags, int d)
{
  return (flags & MS_FMARCH) && d < 3;
}



/* ---- ADI_kernel1+2 merged: diag, flmp, flmn at (i,j,k) with the
 * eigenvalues of the point and its two neighbours along d in registers
 * (the neighbours' recomputed); the expressions of adi_stage2_point. The
 * lam fields of wk are not written (nothing after stage 2 reads them). ---- */
ADI_HD static inline void adi12_point(const adi_view *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), e = adi_stride(v, d), n = v->nglob[d - 1], s, pd;
  double lp[3], ln[3], lv[3], xp[3], xn[3], xv[3], dg, dt;
  pd = (d == 1 ? i : (d == 2 ? j : k)) + v->off[d - 1];   /* global position along d */
  adi_eig_split(v, d, p, lp, ln, lv);
  dt = v->dtv[p];
  for (s = 1; s <= 3; ++s) {
    dg = 1.0 + dt*lv[s - 1];
    ADI_F(v, wk, WK_DIAG + s, p) = dg;
  }
  if (pd > 1) {
    adi_eig_split(v, d, p - e, xp, xn, xv);
    for (s = 1; s <= 3; ++s) ADI_F(v, wk, WK_FLMP + s, p) = -(dt*xp[s - 1]);
  } else {
    for (s = 1; s <= 3; ++s) ADI_F(v, wk, WK_FLMP + s, p) = 0.0;
  }
  if (pd < n) {
    adi_eig_split(v, d, p + e, xp, xn, xv);
    for (s = 1; s <= 3; ++s) {
      dg = 1.0 + dt*lv[s - 1];
      ADI_F(v, wk, WK_FLMN + s, p) = dt*xn[s - 1]/dg;
    }
  } else {
    for (s = 1; s <= 3; ++s) ADI_F(v, wk, WK_FLMN + s, p) = 0.0;
  }
}

/* ---- ADI_kernel4's recurrences, one element each (adi_stage4_line) ---- */
ADI_HD static inline double adi4_fwd_first(double w, double dg) { return w/dg; }
ADI_HD static inline double adi4_fwd(double w, double flmp, double dg, double x) { return (w - flmp*x)/dg; }
ADI_HD static inline double adi4_bwd(double w, double flmn, double x) { return w - flmn*x; }

/* eigenvalue index of characteristic component m (1-based) */
ADI_HD static inline int adi_eig_of_char(int m) { return m <= 3 ? 1 : m - 2; }

/* ---- ADI stage 4 for components m0..m1 of the line (b, c) of d: the
 * sweeps of adi_stage4_line, one component after the other (the
 * components are independent: any split of them over threads gives the
 * same bits) ---- */
ADI_HD static inline void adi4_line_comps(const adi_view *v, int d, int b, int c, int m0, int m1)
{
  int n = adi_ncells(v, d), e = adi_stride(v, d), p1, pa, m, a, r, s;
  int pc[3];
  double x;
  cell_index(d, 1, b, c, pc);
  p1 = adi_pt(v, pc[0], pc[1], pc[2]);
  for (m = m0; m <= m1; ++m) {
    r = WK_WCH + m; s = adi_eig_of_char(m);
    x = adi4_fwd_first(ADI_F(v, wk, r, p1), ADI_F(v, wk, WK_DIAG + s, p1));
    ADI_F(v, wk, r, p1) = x;
    pa = p1;
    for (a = 2; a <= n; ++a) {
      pa += e;
      x = adi4_fwd(ADI_F(v, wk, r, pa), ADI_F(v, wk, WK_FLMP + s, pa), ADI_F(v, wk, WK_DIAG + s, pa), x);
      ADI_F(v, wk, r, pa) = x;
    }
    for (a = n - 1; a >= 1; --a) {
      pa -= e;
      x = adi4_bwd(ADI_F(v, wk, r, pa), ADI_F(v, wk, WK_FLMN + s, pa), x);
      ADI_F(v, wk, r, pa) = x;
    }
  }
}

/* ---- fused flux: g = fc - fv at face p of direction d (between p - s and
 * p), faces 1..n+1, interior across. The du, ql/qr, fc and fv of
 * flux_stage1..3_point and viscous_flux_point, in registers. Two parts:
 * the convective flux fc (flux_face_conv_dir) and the viscous flux fv
 * (flux_face_visc_dir); g = fc - fv. ---- */
ADI_HD static ADI_FORCEINLINE void flux_face_conv_dir(const adi_view *v, int d, int p, double f[5])
{
  int s = adi_stride(v, d), il = p - s, ir = p + s, s0 = 3*(d - 1), m;
  double ql[5], qr[5], dul, dup, dur;
  for (m = 1; m <= 5; ++m) {
    if (v->sp.order == 2) {
      dul = ADI_F(v, qp, m, il) - ADI_F(v, qp, m, il - s);
      dup = ADI_F(v, qp, m, p) - ADI_F(v, qp, m, il);
      dur = ADI_F(v, qp, m, ir) - ADI_F(v, qp, m, p);
      ql[m - 1] = ADI_F(v, qp, m, il) + 0.5*limiter(&v->sp, dul, dup);
      qr[m - 1] = ADI_F(v, qp, m, p) - 0.5*limiter(&v->sp, dup, dur);
    } else {
      ql[m - 1] = ADI_F(v, qp, m, il);
      qr[m - 1] = ADI_F(v, qp, m, p);
    }
  }
  roe_flux(&v->sp, ql[0], ql[1], ql[2], ql[3], ql[4], qr[0], qr[1], qr[2], qr[3], qr[4],
           ADI_F(v, sf, s0 + 1, p), ADI_F(v, sf, s0 + 2, p), ADI_F(v, sf, s0 + 3, p), f);
}

ADI_HD static ADI_FORCEINLINE void flux_face_g_dir(const adi_view *v, int d, int p, double g[5])
{
  double f[5], fv[5];
  int m;
  flux_face_conv_dir(v, d, p, f);
  flux_face_visc_dir(v, d, p, fv);
  for (m = 0; m < 5; ++m) g[m] = f[m] - fv[m];
}

ADI_HD static inline void flux_face_g(const adi_view *v, int d, int p, double g[5])
{
  switch (d) {
  case 1: flux_face_g_dir(v, 1, p, g); break;
  case 2: flux_face_g_dir(v, 2, p, g); break;
  default: flux_face_g_dir(v, 3, p, g); break;
  }
}

/* flux_stage4_point with the face values given: res(p) = r0 + (gh - gl),
 * r0 = 0 for the first direction when the reset is folded in (the CPU's
 * res = 0 then res = res + ..., the same bits, -0 included) */
ADI_HD static inline void flux_res_update(const adi_view *v, int p, int first, const double gl[5],
                                          const double gh[5])
{
  int m;
  double r0;
  for (m = 1; m <= 5; ++m) {
    r0 = first ? 0.0 : ADI_F(v, res, m, p);
    ADI_F(v, res, m, p) = r0 + (gh[m - 1] - gl[m - 1]);
  }
}

/* ---- the merged iteration schedule ---- */
enum adi_merged_kernel {
  MK_BC, MK_PRIM, MK_TSTEP, MK_PT, MK_RES_ZERO,
  MK_FLUX1, MK_FLUX1S, MK_FLUX2, MK_FLUX3, MK_VISC, MK_FLUX4, MK_FLUXF,
  MK_ADI1, MK_ADI2, MK_ADI12, MK_ADI123, MK_ADI3, MK_ADI4, MK_ADI5,
  MK_WALLT, MK_ADI5F,
  MK_COUNT
};

static inline const char *adi_merged_kernel_name(int k)
{
  static const char *names[MK_COUNT] = {
    "bc_kernel", "primitives_kernel", "time_step_kernel", "prim_tstep_kernel", "res_zero(memset)",
    "flux_kernel1", "flux_kernel1_smem", "flux_kernel2", "flux_kernel3", "viscous_kernel", "flux_kernel4",
    "flux_fused", "ADI_kernel1", "ADI_kernel2", "ADI_kernel12", "ADI_kernel123", "ADI_kernel3",
    "ADI_kernel4", "ADI_kernel5", "bc_temperature_kernel", "ADI_kernel5_123"
  };
  return k >= 0 && k < MK_COUNT ? names[k] : "?";
}

/* ---- ADI_kernel5 of d fused with ADI_kernel1+2+3 of d + 1 (MS_ADI5F,
 * d = 1, 2; MK_ADI5F with st.d = d): at (i,j,k) of the interior, stage 1+2
 * of d + 1 (adi12_point: diag, flmp, flmn; the neighbours' eigenvalues
 * recomputed from qp), then stage 5 of d (adi_stage5_incr: the increments
 * r from wch, read before stage 3 overwrites wch at the same p) and stage 3
 * of d + 1 on r (adi_stage3_char) - the expressions of adi_stage5_point
 * and adi_stage3_point, r in registers instead of dq. Every read other
 * than wch(p) is of qp, sc, vol, dtv (not written here); every write is at
 * p: no dependency between points. ---- */
ADI_HD static inline void adi5f_point(const adi_view *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k);
  double r[5];
  adi12_point(v, d + 1, i, j, k);
  adi_stage5_incr(v, d, p, r);
  adi_stage3_char(v, d + 1, p, r);
}

typedef struct adi_mstep {
  int kernel, d;
} adi_mstep;

enum { ADI_MAX_MSTEPS = 3 + 4 + 3 + 3*6 + 3*5 };

/* Steps of one merged iteration in order (the data flow of cpu_iteration);
 * returns their number. isothermal: the walls' ghost temperatures
 * (MK_WALLT) follow the time step, as in adi_iteration_schedule. */
static inline int adi_merged_schedule(int flags, int order, int isothermal, adi_mstep st[ADI_MAX_MSTEPS])
{
  int n = 0, d;
#define MS_PUSH(kk, dd) do { st[n].kernel = (kk); st[n].d = (dd); ++n; } while (0)
  for (d = 1; d <= 3; ++d) MS_PUSH(MK_BC, d);
  if (flags & MS_PT) {
    MS_PUSH(MK_PT, 0);
  } else {
    MS_PUSH(MK_PRIM, 0);
    MS_PUSH(MK_TSTEP, 0);
  }
  if (isothermal)
    for (d = 1; d <= 3; ++d) MS_PUSH(MK_WALLT, d);
  if (!(flags & MS_FUSE)) MS_PUSH(MK_RES_ZERO, 0);
  for (d = 1; d <= 3; ++d) {
    if (flags & MS_FUSE) {
      MS_PUSH(MK_FLUXF, d);
    } else {
      if (order == 2) MS_PUSH((flags & MS_FLUX1S) ? MK_FLUX1S : MK_FLUX1, d);
      MS_PUSH(MK_FLUX2, d);
      MS_PUSH(MK_FLUX3, d);
      MS_PUSH(MK_VISC, d);
      MS_PUSH(MK_FLUX4, d);
    }
  }
  for (d = 1; d <= 3; ++d) {
    if ((flags & MS_ADI5F) && d > 1) {
      /* stages 1-3 of d ran in MK_ADI5F of d - 1 */
    } else if (flags & MS_ADI123) {
      MS_PUSH(MK_ADI123, d);
    } else {
      if (flags & MS_ADI12) {
        MS_PUSH(MK_ADI12, d);
      } else {
        MS_PUSH(MK_ADI1, d);
        MS_PUSH(MK_ADI2, d);
      }
      MS_PUSH(MK_ADI3, d);
    }
    MS_PUSH(MK_ADI4, d);
    MS_PUSH((flags & MS_ADI5F) && d < 3 ? MK_ADI5F : MK_ADI5, d);
  }
#undef MS_PUSH
  return n;
}

#endif
