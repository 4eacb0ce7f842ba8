/* Host emulation of the merged kernel family (cuda/merged/): the
 * merged launch schedule (adi_merged_schedule) over the bodies of
 * cuda/common/adiflow_merged.h and adiflow_stages.h, each "launch" a plain loop
 * over its index box, forwards or (reverse = 1) backwards.
 * tests/c_vs_fortran/test_merged_c_vs_fortran.f90 compares it bit for bit with
 * solver_cpu's cpu_iteration for several sets of steps (flags).
 *
 * How a launch maps to the GPU kernel:
 *   MK_PT      primitives_point on every cell, then time_step_point on the
 *              interior, by the same thread (the kernel does the same)
 *   MK_FLUXF   per cell: both faces' g = fc - fv and the residual update
 *              (flux_fused_cell); on the GPU each face is computed once, in
 *              shared memory, by one thread of the block - the same numbers
 *   MK_FLUXF with MS_FMARCH: per column along d (launch_flux_march), the
 *              cells' slopes and the faces in order, each once (the face's
 *              convective part from its two cells' slopes, then minus the
 *              viscous part), the cell between the carried face and the
 *              new one updated - as the marching kernel's chunks do
 *   MK_ADI4    adi4_line_comps per line, or per (component, line) with
 *              MS_COMP, as the component threads do (MS_TSWEEP moves the
 *              data differently, the recurrences are these)
 *   MK_ADI5F   adi5f_point, as the kernel: dq is not written (the test
 *              leaves dq out of the comparison for MS_ADI5F)
 * Every kernel's body is its body column in ADI_MERGED_KERNELS
 * (cuda/common/adiflow_merged.h), its index box the box column's.
 * emul_iteration_merged_wkf: the same with the ADI work fields stored as
 * floats in wkf, as on a single-mode grid of the GPU backend;
 * emul_iteration_merged_patches: on a grid with boundary patches
 * (tests/c_vs_fortran/test_patch_fill_c_vs_fortran.f90). */
#include <string.h>

#include "adiflow_merged.h"

/* one point (or line) of a merged kernel: the body column of
 * ADI_MERGED_KERNELS; m0..m1: the characteristic components of a sweep */
static void run_point(const adi_view *v, int kernel, int d, double cfl, int m0, int m1, int i, int j, int k)
{
  switch (kernel) {
#define ADI_X(id, name, launch, use, box, body) case MK_##id: body; break;
    ADI_MERGED_KERNELS(ADI_X)
#undef ADI_X
  default: break;
  }
}

/* the marching fused flux (MS_FMARCH): one column (b, c) across d at a
 * time, in forward or reverse order of columns */
static void fm_face(const adi_view *v, int d, int p, const double sl[5], const double sr[5], double g[5])
{
  double fv[5];
  int m;
  if (v->sp.order == 2) flux_face_conv_slopes(v, d, p, sl, sr, g);
  else flux_face_conv_dir(v, d, p, g);
  flux_face_visc_dir(v, d, p, fv);
  for (m = 0; m < 5; ++m) g[m] = g[m] - fv[m];
}

/* cell p's slope at order 2 (nothing at order 1), as the kernel's slope
 * buffer holds it */
static void fm_slope(const adi_view *v, int d, int p, double sl[5])
{
  if (v->sp.order == 2) muscl_cell_slope(v, d, p, sl);
}

static void launch_flux_march(const adi_view *v, int d, int reverse)
{
  int n = adi_ncells(v, d), e = adi_stride(v, d), nb = d == 1 ? v->nj : v->ni, nc = d == 3 ? v->nj : v->nk;
  int b, c, bi, ci, a, p, pc[3], m;
  double gl[5], gh[5], sl[5] = {0}, sr[5] = {0};
  for (ci = 1; ci <= nc; ++ci)
    for (bi = 1; bi <= nb; ++bi) {
      b = reverse ? nb + 1 - bi : bi;
      c = reverse ? nc + 1 - ci : ci;
      cell_index(d, 1, b, c, pc);
      p = adi_pt(v, pc[0], pc[1], pc[2]);
      /* each cell's slope once (cells 0..n+1), each face once (1..n+1) */
      fm_slope(v, d, p - e, sl);
      fm_slope(v, d, p, sr);
      fm_face(v, d, p, sl, sr, gl);
      for (a = 1; a <= n; ++a) {
        for (m = 0; m < 5; ++m) sl[m] = sr[m];
        fm_slope(v, d, p + e, sr);
        fm_face(v, d, p + e, sl, sr, gh);
        flux_res_update(v, p, d == 1, gl, gh);
        for (m = 0; m < 5; ++m) gl[m] = gh[m];
        p += e;
      }
    }
}

static void launch(const adi_view *v, int kernel, int d, double cfl, int flags, int reverse)
{
  adi_box b;
  int i, j, k, m, nm;
  if (kernel == MK_FLUXF && adi_merged_march(flags, d)) {
    launch_flux_march(v, d, reverse);
    return;
  }
  if (kernel == MK_RES_ZERO) {
    memset(v->res, 0, sizeof(double)*(size_t)v->npts*ADI_NVAR);
    return;
  }
  b = adi_merged_box(v, kernel, d);
  nm = (kernel == MK_ADI4 && (flags & MS_COMP)) ? 5 : 1;
  for (m = 1; m <= nm; ++m) {
    /* MS_COMP: one component per "thread"; otherwise all five */
    int mc = reverse ? nm + 1 - m : m, m0 = nm == 5 ? mc : 1, m1 = nm == 5 ? mc : 5;
    if (!reverse) {
      for (k = b.lo[2]; k <= b.hi[2]; ++k)
        for (j = b.lo[1]; j <= b.hi[1]; ++j)
          for (i = b.lo[0]; i <= b.hi[0]; ++i) run_point(v, kernel, d, cfl, m0, m1, i, j, k);
    } else {
      for (k = b.hi[2]; k >= b.lo[2]; --k)
        for (j = b.hi[1]; j >= b.lo[1]; --j)
          for (i = b.hi[0]; i >= b.lo[0]; --i) run_point(v, kernel, d, cfl, m0, m1, i, j, k);
    }
  }
}

static void iteration(const adi_view *v, double cfl, int reverse, int flags)
{
  adi_mstep steps[ADI_MAX_MSTEPS];
  int n = adi_merged_schedule(flags, v->sp.order, v->sp.wall_thermal == ADI_WALL_ISOTHERMAL, steps), s;
  for (s = 0; s < n; ++s) launch(v, steps[s].kernel, steps[s].d, cfl, flags, reverse);
}

void emul_iteration_merged(const adi_solver_params *sp, double cfl, int reverse, int flags, double *q,
                           double *qp, double *res, double *dq, double *dtv, double *wk, const double *sf,
                           const double *sc, const double *vol)
{
  adi_view v = adi_make_view(sp, q, qp, res, dq, dtv, wk, sf, sc, vol);
  iteration(&v, cfl, reverse, flags);
}

void emul_iteration_merged_wkf(const adi_solver_params *sp, double cfl, int reverse, int flags, double *q,
                               double *qp, double *res, double *dq, double *dtv, double *wk, float *wkf,
                               const double *sf, const double *sc, const double *vol)
{
  adi_view v = adi_make_view(sp, q, qp, res, dq, dtv, wk, sf, sc, vol);
  v.wkf = wkf;
  iteration(&v, cfl, reverse, flags);
}

/* emul_iteration_merged on a grid with boundary patches
 * (include/adiflow_patches.h), its view carrying them as on the GPU */
void emul_iteration_merged_patches(const adi_solver_params *sp, double cfl, int reverse, int flags, double *q,
                                   double *qp, double *res, double *dq, double *dtv, double *wk, const double *sf,
                                   const double *sc, const double *vol, const adi_bc_patch *patches,
                                   const int *face_maps)
{
  adi_view v = adi_make_view(sp, q, qp, res, dq, dtv, wk, sf, sc, vol);
  v.patch = patches;
  v.patch_map = face_maps;
  iteration(&v, cfl, reverse, flags);
}

/* The kernels the schedules of a run take (adi_merged_run_flags: with and
 * without dependent launches, both orders, isothermal walls or not), plus
 * the three-kernel path of lines too long for ADI_line and of a direction
 * swept across blocks, that an ordinary build lacks (the BENCH rows of
 * ADI_MERGED_KERNELS): 0 when the use column is right. This file is
 * compiled without ADIFLOW_BENCH_VARIANTS, as an ordinary build is. */
int emul_merged_run_kernels_missing(void)
{
  static const int three[3] = {MK_ADI123, MK_ADI4, MK_ADI5};
  adi_mstep steps[ADI_MAX_MSTEPS];
  int dep, order, iso, n, s, missing = 0;
  for (dep = 0; dep <= 1; ++dep)
    for (order = 1; order <= 2; ++order)
      for (iso = 0; iso <= 1; ++iso) {
        n = adi_merged_schedule(adi_merged_run_flags(dep), order, iso, steps);
        for (s = 0; s < n; ++s) missing += !adi_merged_kernel_built(steps[s].kernel);
      }
  for (s = 0; s < 3; ++s) missing += !adi_merged_kernel_built(three[s]);
  return missing;
}
