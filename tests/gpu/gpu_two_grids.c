/* Two grids of different sizes in one process (include/adiflow_bridge.h's
 * handles): grid A (12 x 10 x 8) and grid B (16 x 8 x 6), lid-driven cubes
 * at Re 100, Mach 0.2, are iterated interleaved (A, B, A, B, ... 20
 * iterations each, with the mass_fix calls and the residual norms after
 * every iteration) and must give, bit for bit, the residual norms, the
 * residual plane sums and the state of the same grid iterated alone in a
 * fresh handle. For the split family, the merged family, and A split with
 * B merged. Then both grids with timing on: each report names its own grid.
 *
 * The inputs are built here as build/adiflow builds them: parameters as
 * fortran/case_config.f90's make_solver_params, the layout of
 * fortran/grid_layout.f90, the metrics fortran/metrics.f90 gives a uniform
 * box (1 x 1 x 1): face vectors sf and cell-centred vectors sc of
 * component c + 3*(d-1) = the face area along d, volume dx*dy*dz, over
 * cells -1..n+2, zero in the padding.
 *
 * Needs a GPU; without one it checks the NULL-handle answers only and
 * prints "SKIP no GPU" (exit 0). Prints PASS/FAIL lines and
 * "N passed, N failed"; exit 1 on any failure.
 *
 *   build/gpu_two_grids              (make builds it with the CUDA backend) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adiflow_bridge.h"

enum { ITERS = 20 };

static int npass, nfail;

static void check(int ok, const char *fmt, const char *what)
{
  printf("%s ", ok ? "PASS" : "FAIL");
  printf(fmt, what);
  printf("\n");
  if (ok) ++npass;
  else ++nfail;
}

typedef struct tcase {
  const char *name;
  adi_solver_params sp;
  size_t npts;
  double *sf, *sc, *vol, *q, mass0;
} tcase;

typedef struct result {
  double norms[ITERS][5];
  double *plane;   /* 5*nk residual plane sums after the last iteration */
  double *q;       /* the state after the last iteration, 5*npts */
} result;

static void *alloc_or_die(size_t n)
{
  void *p = calloc(n, 1);
  if (p == NULL) {
    fprintf(stderr, "gpu_two_grids: out of host memory\n");
    exit(2);
  }
  return p;
}

/* a lid-driven cube: walls, lid at j max (make_solver_params of a cavity
 * case at Re 100, Mach 0.2, Pr 0.72, isothermal walls, MUSCL order 2) */
static void make_case(tcase *c, const char *name, int ni, int nj, int nk)
{
  const double gamma = 1.4, mach = 0.2, re = 100.0, pr = 0.72;
  const double dx = 1.0/ni, dy = 1.0/nj, dz = 1.0/nk;
  const double area[3] = {dy*dz, dz*dx, dx*dy};
  adi_solver_params *sp = &c->sp;
  int i, j, k, d, f;
  memset(c, 0, sizeof *c);
  c->name = name;
  sp->gamma = gamma;
  sp->gm1 = gamma - 1.0;
  sp->ggm1 = gamma/sp->gm1;
  sp->gm2 = gamma*mach*mach;
  sp->re_inv = 1.0/re;
  sp->cond_coef = 1.0/(re*pr*sp->gm1*mach*mach);
  sp->sutherland_s = 110.4/288.15;
  sp->efix = 0.1;
  sp->vis_fac = 2.0;
  sp->t_wall = 1.0;
  sp->lid_u = 1.0; sp->lid_v = 0.0; sp->lid_w = 0.0;
  sp->visc_law = ADI_VISC_CONSTANT;
  sp->order = 2;
  sp->limiter = ADI_LIM_VANALBADA;
  sp->wall_thermal = ADI_WALL_ISOTHERMAL;
  for (f = 0; f < 6; ++f) sp->bc[f] = ADI_BC_WALL;
  sp->bc[3] = ADI_BC_LID;
  sp->ni = ni; sp->nj = nj; sp->nk = nk;
  adi_layout_set(sp);
  c->npts = (size_t)sp->ldi*(size_t)sp->ldj*(size_t)sp->ldk;
  c->sf = (double *)alloc_or_die(9*c->npts*sizeof(double));
  c->sc = (double *)alloc_or_die(9*c->npts*sizeof(double));
  c->vol = (double *)alloc_or_die(c->npts*sizeof(double));
  c->q = (double *)alloc_or_die(5*c->npts*sizeof(double));
  for (k = -1; k <= nk + 2; ++k)
    for (j = -1; j <= nj + 2; ++j)
      for (i = -1; i <= ni + 2; ++i) {
        size_t p = (size_t)(i + 1) + (size_t)sp->ldi*((size_t)(j + 1) + (size_t)sp->ldj*(size_t)(k + 1));
        for (d = 0; d < 3; ++d) {
          c->sf[p + (size_t)(3*d + d)*c->npts] = area[d];
          c->sc[p + (size_t)(3*d + d)*c->npts] = area[d];
        }
        c->vol[p] = dx*dy*dz;
      }
  /* fluid at rest, rho = 1, T = 1 (adiflow.f90's initial_state), everywhere */
  for (i = 0; i < (int)c->npts; ++i) {
    c->q[i] = 1.0;
    c->q[i + 4*c->npts] = (1.0/sp->gm2)/sp->gm1;
  }
  c->mass0 = (double)ni*nj*nk*(dx*dy*dz);
}

static void free_case(tcase *c)
{
  free(c->sf); free(c->sc); free(c->vol); free(c->q);
}

/* the CFL ramp of a case with cfl_start = 1, cfl = 5, cfl_ramp_iters = 10 */
static double cfl_at(int it)
{
  return it <= 10 ? 1.0 + 4.0*(double)(it - 1)/10.0 : 5.0;
}

static int say(int rc, const char *what)
{
  if (rc != ADI_OK) {
    char msg[2048];
    adi_gpu_error_message(msg, (int)sizeof msg);
    fprintf(stderr, "gpu_two_grids: %s failed (status %d): %s\n", what, rc, msg);
  }
  return rc;
}

/* iteration it (1-based) of one grid, as adiflow.f90 runs it with
 * mass_fix, then the residual norms */
static int step(adi_gpu_grid *g, const tcase *c, int it, result *r)
{
  double *plane = (double *)alloc_or_die((size_t)c->sp.nk*sizeof(double)), m = 0.0;
  int k, rc;
  rc = say(adi_gpu_iterate(g, cfl_at(it)), "adi_gpu_iterate");
  if (rc == ADI_OK) rc = say(adi_gpu_mass_plane_sums(g, plane), "adi_gpu_mass_plane_sums");
  if (rc == ADI_OK) {
    for (k = 0; k < c->sp.nk; ++k) m += plane[k];
    rc = say(adi_gpu_scale_state(g, c->mass0/m), "adi_gpu_scale_state");
  }
  if (rc == ADI_OK) rc = say(adi_gpu_residual_norms(g, r->norms[it - 1]), "adi_gpu_residual_norms");
  free(plane);
  return rc;
}

static int finish(adi_gpu_grid *g, const tcase *c, result *r)
{
  int rc;
  r->plane = (double *)alloc_or_die((size_t)(5*c->sp.nk)*sizeof(double));
  r->q = (double *)alloc_or_die(5*c->npts*sizeof(double));
  rc = say(adi_gpu_residual_plane_sums(g, r->plane), "adi_gpu_residual_plane_sums");
  if (rc == ADI_OK) rc = say(adi_gpu_download_state(g, r->q), "adi_gpu_download_state");
  return rc;
}

static void free_result(result *r)
{
  free(r->plane); free(r->q);
  r->plane = r->q = NULL;
}

static int make_grid(adi_gpu_grid **g, const tcase *c, int kernels)
{
  return say(adi_gpu_init(g, &c->sp, kernels, NULL, c->sf, c->sc, c->vol, c->q, 0, NULL, NULL), "adi_gpu_init");
}

/* one grid alone in a fresh handle */
static int run_alone(const tcase *c, int kernels, result *r)
{
  adi_gpu_grid *g = NULL;
  int it, rc = make_grid(&g, c, kernels);
  for (it = 1; it <= ITERS && rc == ADI_OK; ++it) rc = step(g, c, it, r);
  if (rc == ADI_OK) rc = finish(g, c, r);
  if (say(adi_gpu_finalize(g), "adi_gpu_finalize") != ADI_OK) rc = ADI_ERR_USAGE;
  return rc;
}

/* both grids alive at once, iterations interleaved A, B, A, B, ... */
static int run_interleaved(const tcase *a, int ka, result *ra, const tcase *b, int kb, result *rb)
{
  adi_gpu_grid *ga = NULL, *gb = NULL;
  int it, rc = make_grid(&ga, a, ka);
  if (rc == ADI_OK) rc = make_grid(&gb, b, kb);
  for (it = 1; it <= ITERS && rc == ADI_OK; ++it) {
    rc = step(ga, a, it, ra);
    if (rc == ADI_OK) rc = step(gb, b, it, rb);
  }
  if (rc == ADI_OK) rc = finish(ga, a, ra);
  if (rc == ADI_OK) rc = finish(gb, b, rb);
  if (say(adi_gpu_finalize(ga), "adi_gpu_finalize") != ADI_OK) rc = ADI_ERR_USAGE;
  if (say(adi_gpu_finalize(gb), "adi_gpu_finalize") != ADI_OK) rc = ADI_ERR_USAGE;
  return rc;
}

/* bit-identical: norms of every iteration, plane sums, state */
static void compare(const char *label, const tcase *c, const result *x, const result *alone)
{
  char what[256];
  int it, m, bad_it = -1;
  size_t p, bad_p = (size_t)-1;
  for (it = 0; it < ITERS && bad_it < 0; ++it)
    for (m = 0; m < 5; ++m)
      if (memcmp(&x->norms[it][m], &alone->norms[it][m], sizeof(double)) != 0) {
        bad_it = it;
        break;
      }
  snprintf(what, sizeof what, "%s, grid %s: residual norms of all %d iterations bit-identical to the grid alone",
           label, c->name, ITERS);
  if (bad_it >= 0) {
    size_t n = strlen(what);
    snprintf(what + n, sizeof what - n, " (first difference at iteration %d: %.17g vs %.17g)", bad_it + 1,
             x->norms[bad_it][0], alone->norms[bad_it][0]);
  }
  check(bad_it < 0, "%s", what);
  snprintf(what, sizeof what, "%s, grid %s: residual plane sums bit-identical to the grid alone", label, c->name);
  check(memcmp(x->plane, alone->plane, (size_t)(5*c->sp.nk)*sizeof(double)) == 0, "%s", what);
  for (p = 0; p < 5*c->npts; ++p)
    if (memcmp(&x->q[p], &alone->q[p], sizeof(double)) != 0) {
      bad_p = p;
      break;
    }
  snprintf(what, sizeof what, "%s, grid %s: downloaded state bit-identical to the grid alone", label, c->name);
  if (bad_p != (size_t)-1) {
    size_t n = strlen(what);
    snprintf(what + n, sizeof what - n, " (first difference at point %zu of %zu: %.17g vs %.17g)", bad_p,
             5*c->npts, x->q[bad_p], alone->q[bad_p]);
  }
  check(bad_p == (size_t)-1, "%s", what);
}

static int finite_norms(const result *r)
{
  int it, m;
  for (it = 0; it < ITERS; ++it)
    for (m = 0; m < 5; ++m)
      if (!isfinite(r->norms[it][m])) return 0;
  return 1;
}

/* boundary patches that do not fit the grid are refused before anything
 * is allocated (no device needed): a patch count without the lists, and a
 * face map naming a patch of another face */
static void patch_checks(void)
{
  char msg[2048];
  double x[1] = {0.0};
  adi_solver_params sp;
  adi_bc_patch p[6];
  adi_gpu_grid *g = NULL;
  int maps[6*16], f, a;
  memset(&sp, 0, sizeof sp);
  sp.ni = 4; sp.nj = 4; sp.nk = 4; sp.order = 2;
  adi_layout_set(&sp);
  memset(p, 0, sizeof p);
  for (f = 0; f < 6; ++f) {
    p[f].kind = ADI_BC_WALL;
    p[f].face = f + 1;
    for (a = 0; a < 16; ++a) maps[16*f + a] = f + 1;
  }
  check(adi_gpu_init(&g, &sp, ADI_KERNELS_SPLIT, NULL, x, x, x, x, 6, NULL, NULL) == ADI_ERR_USAGE && g == NULL,
        "%s", "adi_gpu_init with 6 patches but no lists gives ADI_ERR_USAGE");
  maps[16*2 + 5] = 1;   /* a jmin cell names the imin patch */
  check(adi_gpu_init(&g, &sp, ADI_KERNELS_SPLIT, NULL, x, x, x, x, 6, p, maps) == ADI_ERR_USAGE && g == NULL, "%s",
        "adi_gpu_init with a face map naming another face's patch gives ADI_ERR_USAGE");
  adi_gpu_error_message(msg, (int)sizeof msg);
  check(strstr(msg, "face 3's map names patch 1 at cell (2,2)") != NULL, "the refusal names the face and the cell: \"%s\"",
        msg);
}

/* calls that need no device: a NULL handle is refused with a message */
static void null_handle_checks(void)
{
  char msg[2048];
  double norms[5], plane[8] = {0};
  static char not_a_grid;
  adi_gpu_grid *g = (adi_gpu_grid *)(void *)&not_a_grid;   /* adi_gpu_init must overwrite it with NULL */
  adi_solver_params sp;
  memset(&sp, 0, sizeof sp);
  check(adi_gpu_iterate(NULL, 1.0) == ADI_ERR_USAGE, "%s", "adi_gpu_iterate(NULL) gives ADI_ERR_USAGE");
  adi_gpu_error_message(msg, (int)sizeof msg);
  check(strstr(msg, "adi_gpu_iterate") != NULL && strstr(msg, "NULL") != NULL,
        "adi_gpu_iterate(NULL) says why: \"%s\"", msg);
  check(adi_gpu_residual_norms(NULL, norms) == ADI_ERR_USAGE && adi_gpu_download_state(NULL, norms) == ADI_ERR_USAGE
        && adi_gpu_mass_plane_sums(NULL, plane) == ADI_ERR_USAGE && adi_gpu_scale_state(NULL, 1.0) == ADI_ERR_USAGE
        && adi_gpu_residual_plane_sums(NULL, plane) == ADI_ERR_USAGE && adi_gpu_upload_state(NULL, norms) == ADI_ERR_USAGE
        && adi_gpu_set_timing(NULL, 1) == ADI_ERR_USAGE, "%s",
        "every per-grid call refuses a NULL handle with ADI_ERR_USAGE");
  check(adi_gpu_finalize(NULL) == ADI_OK, "%s", "adi_gpu_finalize(NULL) is ADI_OK");
  check(adi_gpu_init(NULL, &sp, ADI_KERNELS_SPLIT, NULL, norms, norms, norms, norms, 0, NULL, NULL) == ADI_ERR_USAGE,
        "%s", "adi_gpu_init without a place for the handle gives ADI_ERR_USAGE");
  check(adi_gpu_init(&g, NULL, ADI_KERNELS_SPLIT, NULL, norms, norms, norms, norms, 0, NULL, NULL) == ADI_ERR_USAGE &&
        g == NULL, "%s", "a failed adi_gpu_init returns a NULL handle");
  patch_checks();
}

static const char *family_name(int k) { return k == ADI_KERNELS_MERGED ? "merged" : "split"; }

int main(void)
{
  tcase a, b;
  result alone_a[2], alone_b[2], ia, ib;
  int fam, rc, ok_a[2] = {0, 0}, ok_b[2] = {0, 0};
  char what[256];

  null_handle_checks();
  if (!adi_gpu_available(NULL)) {
    char msg[2048];
    adi_gpu_error_message(msg, (int)sizeof msg);
    printf("SKIP no GPU (%s)\n", msg);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
  }

  make_case(&a, "A 12x10x8", 12, 10, 8);
  make_case(&b, "B 16x8x6", 16, 8, 6);
  memset(alone_a, 0, sizeof alone_a);
  memset(alone_b, 0, sizeof alone_b);

  /* each grid alone, both families */
  for (fam = 0; fam < 2; ++fam) {
    rc = run_alone(&a, fam, &alone_a[fam]);
    ok_a[fam] = rc == ADI_OK;
    snprintf(what, sizeof what, "%s kernels: grid A alone runs %d iterations with finite norms", family_name(fam), ITERS);
    check(ok_a[fam] && finite_norms(&alone_a[fam]), "%s", what);
    rc = run_alone(&b, fam, &alone_b[fam]);
    ok_b[fam] = rc == ADI_OK;
    snprintf(what, sizeof what, "%s kernels: grid B alone runs %d iterations with finite norms", family_name(fam), ITERS);
    check(ok_b[fam] && finite_norms(&alone_b[fam]), "%s", what);
  }

  /* both at once: split + split, merged + merged, split A + merged B */
  for (fam = 0; fam < 3; ++fam) {
    int ka = fam == 2 ? ADI_KERNELS_SPLIT : fam, kb = fam == 2 ? ADI_KERNELS_MERGED : fam;
    char label[64];
    if (fam == 2) snprintf(label, sizeof label, "A split + B merged, interleaved");
    else snprintf(label, sizeof label, "%s kernels, interleaved", family_name(fam));
    memset(&ia, 0, sizeof ia);
    memset(&ib, 0, sizeof ib);
    rc = run_interleaved(&a, ka, &ia, &b, kb, &ib);
    snprintf(what, sizeof what, "%s: both grids run (two handles alive at once)", label);
    check(rc == ADI_OK, "%s", what);
    if (rc == ADI_OK && ok_a[ka]) compare(label, &a, &ia, &alone_a[ka]);
    if (rc == ADI_OK && ok_b[kb]) compare(label, &b, &ib, &alone_b[kb]);
    free_result(&ia);
    free_result(&ib);
  }

  /* timing is per grid: each report names its own grid */
  {
    adi_gpu_grid *ga = NULL, *gb = NULL;
    static char rep_a[16384], rep_b[16384];
    rc = make_grid(&ga, &a, ADI_KERNELS_SPLIT);
    if (rc == ADI_OK) rc = make_grid(&gb, &b, ADI_KERNELS_MERGED);
    if (rc == ADI_OK) rc = say(adi_gpu_set_timing(ga, 1), "adi_gpu_set_timing");
    if (rc == ADI_OK) rc = say(adi_gpu_set_timing(gb, 1), "adi_gpu_set_timing");
    if (rc == ADI_OK) rc = say(adi_gpu_iterate(ga, 1.0), "adi_gpu_iterate");
    if (rc == ADI_OK) rc = say(adi_gpu_iterate(gb, 1.0), "adi_gpu_iterate");
    if (rc == ADI_OK) rc = say(adi_gpu_iterate(ga, 1.0), "adi_gpu_iterate");
    if (rc == ADI_OK) rc = say(adi_gpu_timing_report(ga, rep_a, (int)sizeof rep_a), "adi_gpu_timing_report");
    if (rc == ADI_OK) rc = say(adi_gpu_timing_report(gb, rep_b, (int)sizeof rep_b), "adi_gpu_timing_report");
    check(rc == ADI_OK && strstr(rep_a, "split kernels, grid 12 x 10 x 8") != NULL &&
          strstr(rep_a, "mean of 2 iterations") != NULL, "%s",
          "timing report of grid A (split, 2 timed iterations) names its own grid");
    check(rc == ADI_OK && strstr(rep_b, "grid 16 x 8 x 6") != NULL && strstr(rep_b, "mean of 1 iterations") != NULL,
          "%s", "timing report of grid B (merged, 1 timed iteration) names its own grid");
    if (say(adi_gpu_finalize(ga), "adi_gpu_finalize") != ADI_OK) rc = ADI_ERR_USAGE;
    if (say(adi_gpu_finalize(gb), "adi_gpu_finalize") != ADI_OK) rc = ADI_ERR_USAGE;
    check(rc == ADI_OK, "%s", "both timed grids finalise");
  }

  for (fam = 0; fam < 2; ++fam) {
    free_result(&alone_a[fam]);
    free_result(&alone_b[fam]);
  }
  free_case(&a);
  free_case(&b);
  printf("%d passed, %d failed\n", npass, nfail);
  return nfail ? 1 : 0;
}
