/* Host emulation of the GPU iteration: the launch sequence of cuda/split/schedule.cu
 * (adi_iteration_schedule, cuda/split/split_stages.h) over the stage bodies
 * of cuda/common/adiflow_stages.h, each "launch" a plain loop over the
 * stage's index box, on fields in the Fortran layout. tests/c_vs_fortran/test_stages_c_vs_fortran.f90 compares it bit for
 * bit with solver_cpu's cpu_iteration.
 *
 * With reverse = 1 every launch visits its points in reverse order: a stage
 * whose points were not independent (a race on the GPU) would then differ
 * from the Fortran loop order. The mass_fix kernels (cuda/api/mass.cu)
 * are emulated the same way (emul_mass_plane_sums, emul_scale_state).
 * emul_iteration_wkf: the same with the ADI work fields stored as floats in
 * wkf (ADI_NWORK_ADI components, as a single-mode grid of the GPU backend
 * holds them, cuda/api/grid.cu); wk then keeps the flux stages' values.
 * emul_iteration_patches: on a grid with boundary patches
 * (tests/c_vs_fortran/test_patch_fill_c_vs_fortran.f90). */
#include <string.h>

#include "split_stages.h"

/* one point (or line) of a stage: the body column of ADI_SPLIT_STAGES */
static void run_point(const adi_view *v, int stage, int d, double cfl, int i, int j, int k)
{
  switch (stage) {
#define ADI_X(id, name, family, box, launch, body) case ST_##id: body; break;
    ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  default: break;
  }
}

static void launch(const adi_view *v, int stage, int d, double cfl, int reverse)
{
  adi_box b;
  int i, j, k;
  if (stage == ST_RES_ZERO) {
    memset(v->res, 0, sizeof(double)*(size_t)v->npts*ADI_NVAR);
    return;
  }
  b = adi_stage_box(v, stage, d);
  if (!reverse) {
    for (k = b.lo[2]; k <= b.hi[2]; ++k)
      for (j = b.lo[1]; j <= b.hi[1]; ++j)
        for (i = b.lo[0]; i <= b.hi[0]; ++i) run_point(v, stage, d, cfl, i, j, k);
  } else {
    for (k = b.hi[2]; k >= b.lo[2]; --k)
      for (j = b.hi[1]; j >= b.lo[1]; --j)
        for (i = b.hi[0]; i >= b.lo[0]; --i) run_point(v, stage, d, cfl, i, j, k);
  }
}

static void iteration(const adi_view *v, double cfl, int reverse)
{
  adi_step steps[ADI_MAX_STEPS];
  int n = adi_iteration_schedule(&v->sp, steps), s;
  for (s = 0; s < n; ++s) launch(v, steps[s].stage, steps[s].d, cfl, reverse);
}

void emul_iteration(const adi_solver_params *sp, double cfl, int reverse, double *q, double *qp,
                    double *res, double *dq, double *dtv, double *wk, const double *sf, const double *sc,
                    const double *vol)
{
  adi_view v = adi_make_view(sp, q, qp, res, dq, dtv, wk, sf, sc, vol);
  iteration(&v, cfl, reverse);
}

void emul_iteration_wkf(const adi_solver_params *sp, double cfl, int reverse, double *q, double *qp,
                        double *res, double *dq, double *dtv, double *wk, float *wkf, const double *sf,
                        const double *sc, const double *vol)
{
  adi_view v = adi_make_view(sp, q, qp, res, dq, dtv, wk, sf, sc, vol);
  v.wkf = wkf;
  iteration(&v, cfl, reverse);
}

/* emul_iteration on a grid with boundary patches (include/adiflow_patches.h):
 * its view carries them, as a patched grid's view does on the GPU
 * (cuda/api/grid.cu), and the fill stages go by them */
void emul_iteration_patches(const adi_solver_params *sp, double cfl, int reverse, double *q, double *qp,
                            double *res, double *dq, double *dtv, double *wk, const double *sf, const double *sc,
                            const double *vol, const adi_bc_patch *patches, const int *face_maps)
{
  adi_view v = adi_make_view(sp, q, qp, res, dq, dtv, wk, sf, sc, vol);
  v.patch = patches;
  v.patch_map = face_maps;
  iteration(&v, cfl, reverse);
}

/* residual norms the way cuda/api/norms.cu computes them: one sum per
 * (variable, k-plane), then the planes in k order */
void emul_residual_norms(const adi_solver_params *sp, const double *res, const double *vol, double *plane,
                         double norms[5])
{
  adi_view v = adi_make_view(sp, NULL, NULL, (double *)res, NULL, NULL, NULL, NULL, NULL, vol);
  int m, k;
  for (k = v.nk; k >= 1; --k)
    for (m = 1; m <= 5; ++m) plane[(m - 1) + 5*(k - 1)] = residual_plane_sum(&v, m, k);
  for (m = 1; m <= 5; ++m) norms[m - 1] = residual_norm_final(&v, plane, m);
}

/* mass_fix the way cuda/api/mass.cu computes it: one "thread" per (j,k)
 * row (mass_row_sum into rows[nj*nk]), then one per k-plane continuing
 * plane[k-1] over its rows in j order (mass_plane_sum_from). With reverse =
 * 1 the rows and the planes are visited backwards: each must depend on
 * nothing but its own inputs, as the GPU threads do. */
void emul_mass_plane_sums(const adi_solver_params *sp, double *q, const double *vol, double *rows,
                          double *plane, int reverse)
{
  adi_view v = adi_make_view(sp, q, NULL, NULL, NULL, NULL, NULL, NULL, NULL, vol);
  int t, n = v.nj*v.nk, k;
  for (t = 0; t < n; ++t) {
    int r = reverse ? n - 1 - t : t;
    rows[r] = mass_row_sum(&v, r%v.nj + 1, r/v.nj + 1);
  }
  for (t = 0; t < v.nk; ++t) {
    k = reverse ? v.nk - t : t + 1;
    plane[k - 1] = mass_plane_sum_from(&v, rows, k, plane[k - 1]);
  }
}

/* the rescale kernel: scale_state_point over the interior box */
void emul_scale_state(const adi_solver_params *sp, double *q, double s, int reverse)
{
  adi_view v = adi_make_view(sp, q, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  int i, j, k;
  if (!reverse) {
    for (k = 1; k <= v.nk; ++k)
      for (j = 1; j <= v.nj; ++j)
        for (i = 1; i <= v.ni; ++i) scale_state_point(&v, s, i, j, k);
  } else {
    for (k = v.nk; k >= 1; --k)
      for (j = v.nj; j >= 1; --j)
        for (i = v.ni; i >= 1; --i) scale_state_point(&v, s, i, j, k);
  }
}
