/* The "merged" kernel family: new per-point / per-line bodies and
 * the merged launch schedule, shared by the CUDA kernels
 * (cuda/merged/) and the host emulation
 * (tests/c_vs_fortran/merged_host_emul.c, checked bit for bit against solver_cpu by
 * tests/c_vs_fortran/test_merged_c_vs_fortran.f90).
 *
 * Rule: no new arithmetic. Every value is computed by the same expressions
 * of adiflow_math.h / adiflow_stages.h as in the split family (the same
 * operands, the same association); only where intermediates live changes
 * (registers or shared memory instead of the wk work fields) and which
 * thread computes them. With FMA contraction off the merged family is bit
 * identical to the CPU reference.
 *
 * ADI_kernel1+2 always run merged (adi12_point, the seed paper's technique
 * 1): the eigenvalue split kept in registers, the neighbours' recomputed.
 *
 * implicit_precision = 'single': the ADI bodies branch on adi_single(v)
 * (uniform over the grid) into the float operations of
 * fortran/lu_adi.f90's header, the same ones as the split family's
 * (adi_eig_split, adi2_*, adi4x_*, adi_stage3_char, adi_stage5_incr), and
 * read and write the ADI work fields through adi_wk_get/put: in wk, or as
 * floats in the view's wkf (lu_adi.h: the kernels decide which at
 * compile time, adi_view_wk).
 *
 * Techniques ("steps"). A run has all of them on; what differs between
 * runs is what the grid and the device choose (the schedules below:
 * adi_merged_run_flags, and at launch the fused flux marching or not, a
 * direction's lines in ADI_line or, too long for it, in three kernels).
 * Switching one off measures what it brings: the merged_steps setting
 * (ADIFLOW_MERGED_STEPS, cuda/merged/schedule.cu) does that in a bench
 * build only (make BENCH_VARIANTS=1, bench/README.md), whose kernels
 * include those no run with all of them on reaches (the BENCH rows of
 * ADI_MERGED_KERNELS, and the sweeps of MS_SWEEP and MS_TSWEEP off); the
 * host emulation (tests/c_vs_fortran/merged_host_emul.c) runs every combination:
 *   MS_ALIGN  (paper 2) aligned access: point kernels' blocks start on a
 *             128-byte boundary (i = 1 modulo 16: the fields are allocated
 *             with cell i = 1 on one), not at a box's first point (i = -1)
 *   MS_SWEEP  (paper 3) i-sweeps through shared-memory tiles (lines x 17),
 *             j/k sweeps with loads batched in registers
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
 *             marches along d in chunks; each cell's limited slope and
 *             each face's g computed exactly once (the chunk's last slope
 *             and face carried to the next chunk in shared memory),
 *             convective then viscous part (fewer live registers),
 *             __launch_bounds__ (needs MS_FUSE); used along i and j only
 *             (adi_merged_march): along k the 168-register marching
 *             kernel was slower than the fused one on an H200, with and
 *             without shared slopes (bench/log/2026-11-21-cfd.md,
 *             2026-11-23-cfd.md);
 *             and only where its grid of blocks (one per column tile)
 *             fills at least half the device, the fused kernel otherwise
 *             (cuda/merged/flux_kernels.cu, mlaunch_flux_march)
 *   MS_TSWEEP i-sweeps warp by warp: each warp owns warp-size lines and
 *             moves chunks of 16 i (8 with float storage) x lines through
 *             shared memory with all of a chunk's loads in flight at once
 *             (unrolled), no block barriers (needs MS_SWEEP; without it
 *             MS_SWEEP's block-wide shared-memory i-sweep runs)
 *   MS_ADI5F  ADI_kernel5 of direction d fused with ADI_kernel1+2+3 of
 *             d + 1 (d = 1, 2) into one point kernel, ADI_kernel5_123
 *             (adi5f_point): stage 5's increments at p go from registers
 *             straight into stage 3 of d + 1, so dq is neither written nor
 *             read (nothing else reads it); stages 1-2 of d + 1 are
 *             adi12_point's (whatever MS_ADI123 says), which reads
 *             only qp, sc, vol and dtv, none written in the kernel. The
 *             schedule: [123 of 1] 4(1) 5_123(1) 4(2) 5_123(2) 4(3) 5(3)
 *   MS_ADIL   every ADI stage of direction d in one kernel, ADI_line
 *             (adi_line; supersedes MS_ADI123 and MS_ADI5F): a block holds
 *             whole lines along d in shared memory - the characteristic
 *             increments and the sweep coefficients never reach global
 *             memory. Stage 1 computes each point's eigenvalue split once
 *             (not three times), stage 2 takes the neighbours' from shared
 *             memory, the sweeps run there, stage 5 writes dq (q after d =
 *             3). The schedule: line(1) line(2) line(3). A direction a
 *             block sweeps across the blocks (exact mode), or a line too
 *             long for the kernel's shared memory (64 KB along i, the
 *             device's opt-in limit along j and k) runs ADI_kernel123, 4
 *             and 5 instead (cuda/merged/schedule.cu)
 *   MS_DEP    the boundary, flux and ADI_line kernels launched so that each
 *             may start while the kernel before it drains (CUDA's
 *             programmatic dependent launch, adi_launch_dep): its blocks are
 *             scheduled and set up, then wait (adi_dep_wait) until that
 *             kernel is done; the gap between two kernels shrinks. Only on
 *             compute capability 9.0 and later, not in a decomposed grid's
 *             blocks; an ordinary launch on HIP
 */
#ifndef ADIFLOW_MERGED_H
#define ADIFLOW_MERGED_H

#include "adiflow_stages.h"

/* the rows of adiflow_merged_steps.def, which Fortran's tests read too */
enum adi_merged_step_flag {
#define ADI_MERGED_STEP(name, bit, text) MS_##name = 1 << (bit),
#include "adiflow_merged_steps.def"
#undef ADI_MERGED_STEP
  MS_ALL = 0
#define ADI_MERGED_STEP(name, bit, text) | MS_##name
#include "adiflow_merged_steps.def"
#undef ADI_MERGED_STEP
};

/* Whether the fused flux of direction d runs as the marching kernel. */
static inline int adi_merged_march(int flags, int d)
{
  return (flags & MS_FMARCH) && d < 3;
}

/* ---- The schedule a run takes, every technique on, as the grid and the
 * device choose it (nothing to set): each direction's ADI stages in
 * ADI_line; a direction whose lines are too long for the kernel's shared
 * memory runs ADI_kernel123, 4 and 5 instead (at launch,
 * cuda/merged/schedule.cu's launch_adi_three), and so does a direction a
 * block of a decomposed grid sweeps across the blocks (exact mode), its
 * ADI_kernel4 the pipelined sweep (launch_step); MS_DEP only where the
 * device launches a kernel while the one before drains (dependent: compute
 * capability 9.0 or later, CUDA, one domain or a block without halo
 * neighbours). The fused flux of a direction marches or not by the grid's
 * size (cuda/merged/flux_kernels.cu, mlaunch_flux_march). ---- */
static inline int adi_merged_run_flags(int dependent)
{
  int flags = MS_ALL;
  if (!dependent) flags &= ~MS_DEP;
  return flags;
}

/* ---- ADI_kernel1+2 merged: rdiag, flmp, flmn at (i,j,k) with the
 * eigenvalues of the point and its two neighbours along d in registers
 * (the neighbours' recomputed); the expressions of adi_stage2_point. The
 * lam fields of wk are not written (nothing after stage 2 reads them). ---- */
ADI_VIEW_TEMPLATE
ADI_HD static inline void adi12_point(const adi_view_t *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k), e = adi_stride(v, d), n = v->nglob[d - 1], s, pd, single = adi_single(v);
  double lp[3], ln[3], lv[3], xp[3], xn[3], xv[3], rdg, dt;
  pd = (d == 1 ? i : (d == 2 ? j : k)) + v->off[d - 1];   /* global position along d */
  adi_eig_split(v, d, p, lp, ln, lv);
  dt = v->dtv[p];
  for (s = 1; s <= 3; ++s) {
    rdg = adi2_rdiag(single, dt, lv[s - 1]);
    adi_wk_put(v, WK_RDIAG + s, p, rdg);
  }
  if (pd > 1) {
    adi_eig_split(v, d, p - e, xp, xn, xv);
    for (s = 1; s <= 3; ++s) adi_wk_put(v, WK_FLMP + s, p, adi2_flmp(single, dt, xp[s - 1]));
  } else {
    for (s = 1; s <= 3; ++s) adi_wk_put(v, WK_FLMP + s, p, 0.0);
  }
  if (pd < n) {
    adi_eig_split(v, d, p + e, xp, xn, xv);
    for (s = 1; s <= 3; ++s) {
      rdg = adi2_rdiag(single, dt, lv[s - 1]);
      adi_wk_put(v, WK_FLMN + s, p, adi2_flmn(single, dt, xn[s - 1], rdg));
    }
  } else {
    for (s = 1; s <= 3; ++s) adi_wk_put(v, WK_FLMN + s, p, 0.0);
  }
}

/* The limited MUSCL slope of cell p along d, per component:
 * limiter(q(p) - q(p - s), q(p + s) - q(p)), the du(p), du(p + s) of
 * flux_stage2_point. Face p + s takes it for its left state, face p for its
 * right state: the marching kernel computes it once per cell and shares it
 * between the two faces (the same operands, the same bits). In two parts,
 * for a kernel that loads a slope's operands ahead of the barrier before
 * it: muscl_cell_loads, the primitives of cells p - s, p, p + s
 * (qn[3*(m-1) + 0..2]), then muscl_slope_of, the slope from them. */
ADI_HD static ADI_FORCEINLINE void muscl_cell_loads(const adi_view *v, int d, int p, double qn[15])
{
  int s = adi_stride(v, d), m;
  for (m = 1; m <= 5; ++m) {
    qn[3*(m - 1)] = ADI_F(v, qp, m, p - s);
    qn[3*(m - 1) + 1] = ADI_F(v, qp, m, p);
    qn[3*(m - 1) + 2] = ADI_F(v, qp, m, p + s);
  }
}

ADI_HD static ADI_FORCEINLINE void muscl_slope_of(const adi_view *v, const double qn[15], double sl[5])
{
  int m;
  for (m = 0; m < 5; ++m) sl[m] = limiter(&v->sp, qn[3*m + 1] - qn[3*m], qn[3*m + 2] - qn[3*m + 1]);
}

ADI_HD static ADI_FORCEINLINE void muscl_cell_slope(const adi_view *v, int d, int p, double sl[5])
{
  double qn[15];
  muscl_cell_loads(v, d, p, qn);
  muscl_slope_of(v, qn, sl);
}

/* the convective flux at face p of direction d from the slopes of its two
 * cells: ql = q(p - s) + 0.5*sl, qr = q(p) - 0.5*sr (order 2) */
ADI_HD static ADI_FORCEINLINE void flux_face_conv_slopes(const adi_view *v, int d, int p, const double sl[5],
                                                         const double sr[5], double f[5])
{
  int s = adi_stride(v, d), il = p - s, s0 = 3*(d - 1), m;
  double ql[5], qr[5];
  for (m = 1; m <= 5; ++m) {
    ql[m - 1] = ADI_F(v, qp, m, il) + 0.5*sl[m - 1];
    qr[m - 1] = ADI_F(v, qp, m, p) - 0.5*sr[m - 1];
  }
  roe_flux(&v->sp, ql[0], ql[1], ql[2], ql[3], ql[4], qr[0], qr[1], qr[2], qr[3], qr[4],
           ADI_F(v, sf, s0 + 1, p), ADI_F(v, sf, s0 + 2, p), ADI_F(v, sf, s0 + 3, p), f);
}

/* ---- fused flux: g = fc - fv at face p of direction d (between p - s and
 * p), faces 1..n+1, interior across. The du, ql/qr, fc and fv of
 * flux_stage1..3_point and viscous_flux_point, in registers. Two parts:
 * the convective flux fc (flux_face_conv_dir) and the viscous flux fv
 * (flux_face_visc_dir); g = fc - fv. flux_face_conv_dir computes both
 * cells' slopes itself, with the difference between them loaded once (the
 * same operations as muscl_cell_slope + flux_face_conv_slopes; written
 * through them, the fused kernel ran slower: bench/log/2026-11-23-cfd.md). ---- */
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
 * res = 0 then res = res + ..., the same bits, -0 included). In two parts
 * for the GPU kernels: flux_res_old loads r0 before the block's barrier,
 * so that the loads are in flight while the block waits (zero: r0 = 0, no
 * load; set for every thread, so that r0 is not live across a kernel's
 * loop), flux_res_store adds the face values after it. */
ADI_HD static inline void flux_res_old(const adi_view *v, int p, int zero, double r0[5])
{
  int m;
  for (m = 1; m <= 5; ++m) r0[m - 1] = zero ? 0.0 : ADI_F(v, res, m, p);
}

ADI_HD static inline void flux_res_store(const adi_view *v, int p, const double r0[5], const double gl[5],
                                         const double gh[5])
{
  int m;
  for (m = 1; m <= 5; ++m) ADI_F(v, res, m, p) = r0[m - 1] + (gh[m - 1] - gl[m - 1]);
}

ADI_HD static inline void flux_res_update(const adi_view *v, int p, int first, const double gl[5],
                                          const double gh[5])
{
  double r0[5];
  flux_res_old(v, p, first, r0);
  flux_res_store(v, p, r0, gl, gh);
}

/* the fused flux at cell p the way the host emulation runs it: both faces'
 * g and the residual update (on the GPU each face is computed once, in
 * shared memory, by one thread of the block: the same numbers) */
ADI_HD static inline void flux_fused_cell(const adi_view *v, int d, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k);
  double gl[5], gh[5];
  flux_face_g(v, d, p, gl);
  flux_face_g(v, d, p + adi_stride(v, d), gh);
  flux_res_update(v, p, d == 1, gl, gh);
}

/* ---- every ADI stage of direction d on the line (b, c) across d
 * (MS_ADIL): stages 1-3 at each point (adi12_point, adi_stage3_point), the
 * sweeps (adi_stage4_line), stage 5 at each point. The host emulation runs
 * this; the GPU's ADI_line kernel (cuda/merged/adi_line.cu) computes the
 * same values with the same operations, keeping what this writes to the
 * ADI work fields in shared memory instead (each point's eigenvalue split
 * once, its neighbours' read there). One domain: the line is whole. ---- */
ADI_VIEW_TEMPLATE
ADI_HD static inline void adi_line(const adi_view_t *v, int d, int b, int c)
{
  int n = adi_ncells(v, d), a, pc[3];
  for (a = 1; a <= n; ++a) {
    cell_index(d, a, b, c, pc);
    adi12_point(v, d, pc[0], pc[1], pc[2]);
    adi_stage3_point(v, d, pc[0], pc[1], pc[2]);
  }
  adi_stage4_line(v, d, b, c);
  for (a = 1; a <= n; ++a) {
    cell_index(d, a, b, c, pc);
    adi_stage5_point(v, d, pc[0], pc[1], pc[2]);
  }
}

/* ---- the merged family's kernels: the one list a kernel is registered in.
 * The enum, the names, the point kernels' bodies and launch switches
 * (cuda/merged/flux_kernels.cu, adi_kernels.cu), the schedule's dispatch
 * (cuda/merged/schedule.cu) and the host emulation
 * (tests/c_vs_fortran/merged_host_emul.c) are made from it. A new kernel: a row here,
 * its body, and where it runs in adi_merged_schedule below.
 *   X(id, name, launch, use, box, body)
 *   id      MK_<id>
 *   name    its name in the timing table and the tuning table
 *   launch  FLUXPT: a point kernel of cuda/merged/flux_kernels.cu (one
 *           thread per cell of box, blocks of the tuned shape), ADIPT: one
 *           of cuda/merged/adi_kernels.cu, OWN: launched its own way by
 *           cuda/merged/schedule.cu (lines, tiles, sweeps, a memset)
 *   use     RUN: a schedule of adi_merged_run_flags reaches it; BENCH: only
 *           a technique switched off does, and only a bench build
 *           (ADIFLOW_BENCH_VARIANTS) holds its kernel
 *   box     the index box it covers (the Fortran stage's loop range), with
 *           v and d in scope
 *   body    one point (i, j, k), or one line (b, c) = (i, j): the body of the
 *           FLUXPT and ADIPT kernels on the GPU and of every kind in the
 *           host emulation, with v, d, cfl, i, j, k in scope (and m0..m1,
 *           the characteristic components a sweep thread owns). RES_ZERO is
 *           a memset of the whole field: no body per point. */
#define ADI_MERGED_KERNELS(X)                                                                                          \
  X(BC,       "bc_kernel",             OWN,    RUN,   adi_box_lines(v, d, 1),   fill_ghosts_line(v, d, i, j))          \
  X(PRIM,     "primitives_kernel",     FLUXPT, BENCH, adi_box_all(v),           primitives_point(v, i, j, k))          \
  X(TSTEP,    "time_step_kernel",      FLUXPT, BENCH, adi_box_interior(v),      time_step_point(v, cfl, i, j, k))      \
  /* the same thread reads back the qp it wrote */                                                                     \
  X(PT,       "prim_tstep_kernel",     FLUXPT, RUN,   adi_box_all(v),           primitives_point(v, i, j, k);          \
    if (i >= 1 && i <= v->ni && j >= 1 && j <= v->nj && k >= 1 && k <= v->nk)                                          \
      time_step_point(v, cfl, i, j, k))                                                                                \
  X(RES_ZERO, "res_zero(memset)",      OWN,    BENCH, adi_box_interior(v),      (void)0)                               \
  X(FLUX1,    "flux_kernel1",          FLUXPT, BENCH, stage_bounds(v, d, 0, 2), flux_stage1_point(v, d, i, j, k))      \
  X(FLUX2,    "flux_kernel2",          FLUXPT, BENCH, stage_bounds(v, d, 1, 1), flux_stage2_point(v, d, i, j, k))      \
  X(FLUX3,    "flux_kernel3",          FLUXPT, BENCH, stage_bounds(v, d, 1, 1), flux_stage3_point(v, d, i, j, k))      \
  X(VISC,     "viscous_kernel",        FLUXPT, BENCH, stage_bounds(v, d, 1, 1), viscous_flux_point(v, d, i, j, k))     \
  X(FLUX4,    "flux_kernel4",          FLUXPT, BENCH, stage_bounds(v, d, 1, 0), flux_stage4_point(v, d, i, j, k))      \
  X(FLUXF,    "flux_fused",            OWN,    RUN,   stage_bounds(v, d, 1, 0), flux_fused_cell(v, d, i, j, k))        \
  X(ADI12,    "ADI_kernel12",          ADIPT,  BENCH, adi_box_interior(v),      adi12_point(v, d, i, j, k))            \
  X(ADI123,   "ADI_kernel123",         ADIPT,  RUN,   adi_box_interior(v),      adi12_point(v, d, i, j, k);            \
    adi_stage3_point(v, d, i, j, k))                                                                                   \
  X(ADI3,     "ADI_kernel3",           ADIPT,  BENCH, adi_box_interior(v),      adi_stage3_point(v, d, i, j, k))       \
  X(ADI4,     "ADI_kernel4",           OWN,    RUN,   adi_box_lines(v, d, 0),   adi4_line_comps(v, d, i, j, m0, m1))   \
  X(ADI5,     "ADI_kernel5",           ADIPT,  RUN,   adi_box_interior(v),      adi_stage5_point(v, d, i, j, k))       \
  X(WALLT,    "bc_temperature_kernel", OWN,    RUN,   adi_box_lines(v, d, 1),                                          \
    fill_wall_temperatures_line(v, d, i, j))                                                                           \
  X(ADI5F,    "ADI_kernel5_123",       ADIPT,  BENCH, adi_box_interior(v),      adi5f_point(v, d, i, j, k))            \
  X(ADIL,     "ADI_line",              OWN,    RUN,   adi_box_lines(v, d, 0),   adi_line(v, d, i, j))

enum adi_merged_kernel {
#define ADI_X(id, name, launch, use, box, body) MK_##id,
  ADI_MERGED_KERNELS(ADI_X)
#undef ADI_X
  MK_COUNT
};

static inline const char *adi_merged_kernel_name(int k)
{
  static const char *names[MK_COUNT] = {
#define ADI_X(id, name, launch, use, box, body) name,
    ADI_MERGED_KERNELS(ADI_X)
#undef ADI_X
  };
  return k >= 0 && k < MK_COUNT ? names[k] : "?";
}

/* how a merged kernel is launched (the launch column); FLUXPT and ADIPT
 * are the point kernels, one thread per cell */
enum adi_merged_launch { MKL_OWN, MKL_FLUXPT, MKL_ADIPT };
static inline int adi_merged_launch(int k)
{
  static const int launch[MK_COUNT] = {
#define ADI_X(id, name, launch, use, box, body) MKL_##launch,
    ADI_MERGED_KERNELS(ADI_X)
#undef ADI_X
  };
  return k >= 0 && k < MK_COUNT ? launch[k] : MKL_OWN;
}

/* the index box a merged kernel covers (the box column) */
ADI_HD static inline adi_box adi_merged_box(const adi_view *v, int k, int d)
{
  switch (k) {
#define ADI_X(id, name, launch, use, box, body) case MK_##id: return box;
    ADI_MERGED_KERNELS(ADI_X)
#undef ADI_X
  default: return adi_box_interior(v);
  }
}

/* ADI_MK_IF_<use>(x): x where this build holds the kernels of that use
 * column (BENCH: a bench build only) */
#define ADI_MK_IF_RUN(...) __VA_ARGS__
#ifdef ADIFLOW_BENCH_VARIANTS
#define ADI_MK_IF_BENCH(...) __VA_ARGS__
#else
#define ADI_MK_IF_BENCH(...)
#endif

/* whether this build holds merged kernel k */
static inline int adi_merged_kernel_built(int k)
{
  static const int built[MK_COUNT] = {
#define ADI_X(id, name, launch, use, box, body) ADI_MK_IF_##use(1) + 0,
    ADI_MERGED_KERNELS(ADI_X)
#undef ADI_X
  };
  return k >= 0 && k < MK_COUNT ? built[k] : 0;
}

/* ---- ADI_kernel5 of d fused with ADI_kernel1+2+3 of d + 1 (MS_ADI5F,
 * d = 1, 2; MK_ADI5F with st.d = d): at (i,j,k) of the interior, stage 1+2
 * of d + 1 (adi12_point: rdiag, flmp, flmn; the neighbours' eigenvalues
 * recomputed from qp), then stage 5 of d (adi_stage5_incr: the increments
 * r from wch, read before stage 3 overwrites wch at the same p) and stage 3
 * of d + 1 on r (adi_stage3_char) - the expressions of adi_stage5_point
 * and adi_stage3_point, r in registers instead of dq. Every read other
 * than wch(p) is of qp, sc, vol, dtv (not written here); every write is at
 * p: no dependency between points. ---- */
ADI_VIEW_TEMPLATE
ADI_HD static inline void adi5f_point(const adi_view_t *v, int d, int i, int j, int k)
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

/* bc 3, prim + tstep 2, wall temperatures 3, res_zero 1, flux 5 per
 * direction, ADI 4 per direction (ADI12, ADI3, ADI4, ADI5) at most */
enum { ADI_MAX_MSTEPS = 3 + 2 + 3 + 1 + 3*5 + 3*4 };

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
      if (order == 2) MS_PUSH(MK_FLUX1, d);
      MS_PUSH(MK_FLUX2, d);
      MS_PUSH(MK_FLUX3, d);
      MS_PUSH(MK_VISC, d);
      MS_PUSH(MK_FLUX4, d);
    }
  }
  for (d = 1; d <= 3; ++d) {
    if (flags & MS_ADIL) {
      MS_PUSH(MK_ADIL, d);
      continue;
    }
    if ((flags & MS_ADI5F) && d > 1) {
      /* stages 1-3 of d ran in MK_ADI5F of d - 1 */
    } else if (flags & MS_ADI123) {
      MS_PUSH(MK_ADI123, d);
    } else {
      MS_PUSH(MK_ADI12, d);
      MS_PUSH(MK_ADI3, d);
    }
    MS_PUSH(MK_ADI4, d);
    MS_PUSH((flags & MS_ADI5F) && d < 3 ? MK_ADI5F : MK_ADI5, d);
  }
#undef MS_PUSH
  return n;
}

#endif
