/* Grid-convergence analysis of centreline profiles: observed order,
 * Richardson extrapolation and Roache's grid convergence index (GCI).
 *
 *   gridstudy [--label L] [--out PREFIX] RUN_DIR RUN_DIR RUN_DIR [RUN_DIR ...]
 *
 * Each RUN_DIR holds a run's centreline_u.csv (u on the vertical centreline,
 * y,u) and centreline_v.csv (v on the horizontal one, x,v), as
 * fortran/output_profiles.f90 writes them: the two wall values and one value
 * per cell between them, so a profile of n points comes from a grid of
 * n - 2 cells in that direction. The grid sizes are read from the files, the
 * runs may be given in any order, and the sizes must all differ. The
 * analysis uses the three finest grids (1 fine, 2 medium, 3 coarse,
 * refinement ratios r21 = N1/N2, r32 = N2/N3, which need not be equal); with
 * four or more, the observed order of the next coarser triple is reported too,
 * which tells whether the grids are in the asymptotic range.
 *
 * For each scalar phi (the extrema: min u, max v, min v, each located by the
 * parabola through the discrete extremum and its two neighbours) the
 * procedure of Celik et al. (J. Fluids Eng. 130, 2008, after Roache):
 *   e21 = phi2 - phi1, e32 = phi3 - phi2, s = sign(e32/e21),
 *   p = (ln|e32/e21| + q(p)) / ln r21,  q(p) = ln((r21^p - s)/(r32^p - s))
 *   (solved by fixed-point iteration; q = 0 when r21 = r32),
 *   phi_ext = (r21^p phi1 - phi2)/(r21^p - 1),
 *   GCI_fine = 1.25 |(phi1 - phi2)/phi1| / (r21^p - 1).
 * p <= 0 (differences that do not shrink) gets no extrapolation. s < 0 is
 * reported as oscillatory convergence.
 *
 * For the whole profiles, the medium and coarse profiles are interpolated to
 * the fine grid's points by 4-point (cubic) Lagrange interpolation, whose
 * O(h^4) error stays below the O(h^2) discretisation error being measured;
 * one order p comes from the RMS norms of the differences (the same
 * formula, s = +1), and the extrapolated profile is
 * f_ext = f1 + (f1 - f2)/(r21^p - 1) point by point, with the GCI band
 * 1.25 |f1 - f2|/(r21^p - 1) (absolute: u and v cross zero).
 *
 * Output: a report on stdout, and "MD:" lines (Markdown table rows:
 * | label | quantity | value per grid, coarse to fine | p | p coarser triple |
 * Richardson | GCI fine | error of each grid against the Richardson value |)
 * that validation/gridstudy.sh collects. --out PREFIX writes the
 * extrapolated profiles as PREFIX_u.csv (y,u) and PREFIX_v.csv (x,v), in the
 * format of a run's profiles (build/ghia_compare reads them), and the GCI
 * bands as PREFIX_u_gci.csv, PREFIX_v_gci.csv (position,band).
 *
 * Exit status: 0 analysed (also when an order cannot be determined: the
 * report says so), 2 bad input (the reading rules of profile_io.h; fewer than
 * three runs; two runs of the same grid size; a profile with fewer than 4
 * points; grids whose profiles do not span the same interval).
 */
#define _POSIX_C_SOURCE 200809L
#define PROFILE_IO_PROG "gridstudy"
#include "profile_io.h"

#define MAXGRIDS 16

typedef struct {
  const char *dir;
  int n;          /* cells along the profile */
  profile *p;
} grid_profile;

/* Cubic Lagrange interpolation of p at x through the 4 points around it
 * (the stencil is shifted inwards at the ends). */
static double interp4(const profile *p, double x)
{
  int a = 0;
  while (a < p->n - 2 && x > p->x[a + 1])
    a++;
  int s = a - 1;
  if (s < 0)
    s = 0;
  if (s > p->n - 4)
    s = p->n - 4;
  double v = 0.0;
  for (int i = s; i < s + 4; i++) {
    double w = 1.0;
    for (int j = s; j < s + 4; j++)
      if (j != i)
        w *= (x - p->x[j]) / (p->x[i] - p->x[j]);
    v += w * p->y[i];
  }
  return v;
}

typedef struct {
  int ok;         /* 1: p > 0 determined; 0: no order (say why in why) */
  double p, ext, gci21, gci32;
  int oscillatory;
  const char *why;
} richardson;

/* Celik et al.'s procedure on phi3 (coarse), phi2, phi1 (fine). */
static richardson order3(double phi3, double phi2, double phi1, double r32, double r21)
{
  richardson R = {0, NAN, NAN, NAN, NAN, 0, ""};
  double e21 = phi2 - phi1, e32 = phi3 - phi2;
  if (e21 == 0.0 || e32 == 0.0) {
    R.why = "equal values on two grids";
    return R;
  }
  double s = (e32 / e21) > 0.0 ? 1.0 : -1.0;
  double lr = log(fabs(e32 / e21));
  /* Celik's equation p ln r21 = ln|e32/e21| + q(p) as F(p) = 0, F increasing
   * in p; bisection instead of the fixed-point iteration, which need not
   * converge when r21 and r32 differ */
  double lo = 1e-9, hi = 30.0, p;
  double flo = lo * log(r21) + log((pow(r32, lo) - s) / (pow(r21, lo) - s)) - lr;
  double fhi = hi * log(r21) + log((pow(r32, hi) - s) / (pow(r21, hi) - s)) - lr;
  if (flo > 0.0)
    p = NAN;    /* no root p > 0: the differences do not shrink */
  else if (fhi < 0.0)
    p = hi;
  else {
    for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
      double m = 0.5 * (lo + hi);
      double fm = m * log(r21) + log((pow(r32, m) - s) / (pow(r21, m) - s)) - lr;
      if (fm > 0.0)
        hi = m;
      else
        lo = m;
    }
    p = 0.5 * (lo + hi);
  }
  R.oscillatory = s < 0.0;
  R.p = p;
  if (!(p > 0.0) || !isfinite(p)) {
    R.why = "the differences do not shrink with the grid";
    return R;
  }
  double f21 = pow(r21, p), f32 = pow(r32, p);
  R.ext = (f21 * phi1 - phi2) / (f21 - 1.0);
  R.gci21 = phi1 != 0.0 ? 1.25 * fabs((phi1 - phi2) / phi1) / (f21 - 1.0) : NAN;
  R.gci32 = phi2 != 0.0 ? 1.25 * fabs((phi2 - phi3) / phi2) / (f32 - 1.0) : NAN;
  R.ok = 1;
  return R;
}

static int by_size(const void *a, const void *b)
{
  const grid_profile *x = a, *y = b;
  return (x->n > y->n) - (x->n < y->n);
}

static char *join(const char *dir, const char *name)
{
  size_t n = strlen(dir) + strlen(name) + 2;
  char *s = malloc(n);
  if (!s) {
    fprintf(stderr, "gridstudy: out of memory\n");
    exit(2);
  }
  snprintf(s, n, "%s/%s", dir, name);
  return s;
}

/* Sorted grids g[0..ng-1] (coarse to fine) of one profile kind: reads them. */
static int load(grid_profile *g, int ng, const char *file)
{
  for (int i = 0; i < ng; i++) {
    char *path = join(g[i].dir, file);
    g[i].p = malloc(sizeof(profile));
    if (!g[i].p) {
      fprintf(stderr, "gridstudy: out of memory\n");
      return -1;
    }
    int rc = read_profile(path, g[i].p);
    if (rc == 0 && g[i].p->n < 4) {
      fprintf(stderr, "gridstudy: %s holds %d points; the analysis needs at least 4 (2 cells)\n", path,
              g[i].p->n);
      rc = -1;
    }
    free(path);
    if (rc)
      return -1;
    g[i].n = g[i].p->n - 2;
  }
  qsort(g, (size_t)ng, sizeof *g, by_size);
  for (int i = 1; i < ng; i++) {
    if (g[i].n == g[i - 1].n) {
      fprintf(stderr, "gridstudy: %s and %s hold %s on the same grid (%d cells): give runs of different sizes\n",
              g[i - 1].dir, g[i].dir, file, g[i].n);
      return -1;
    }
    double a0 = g[0].p->x[0], a1 = g[0].p->x[g[0].p->n - 1];
    double b0 = g[i].p->x[0], b1 = g[i].p->x[g[i].p->n - 1];
    if (fabs(a0 - b0) > 1e-9 * (1.0 + fabs(a1 - a0)) || fabs(a1 - b1) > 1e-9 * (1.0 + fabs(a1 - a0))) {
      fprintf(stderr, "gridstudy: %s/%s spans [%g, %g] but %s/%s spans [%g, %g]: not the same centreline\n",
              g[0].dir, file, a0, a1, g[i].dir, file, b0, b1);
      return -1;
    }
  }
  return 0;
}

static void fmt(char *buf, size_t n, const char *f, double v)
{
  if (isfinite(v))
    snprintf(buf, n, f, v);
  else
    snprintf(buf, n, "n/a");
}

/* One scalar over the grids: report line and MD row. */
static void scalar_row(const char *label, const char *what, const grid_profile *g, int ng, const double *phi)
{
  int f = ng - 1;
  richardson R = order3(phi[f - 2], phi[f - 1], phi[f], (double)g[f - 1].n / g[f - 2].n, (double)g[f].n / g[f - 1].n);
  richardson C = {0, NAN, NAN, NAN, NAN, 0, ""};
  if (ng >= 4)
    C = order3(phi[f - 3], phi[f - 2], phi[f - 1], (double)g[f - 2].n / g[f - 3].n, (double)g[f - 1].n / g[f - 2].n);
  char sp[32], sc[32], se[32], sg[32];
  fmt(sp, sizeof sp, "%.3f", R.p);
  fmt(sc, sizeof sc, "%.3f", C.p);
  fmt(se, sizeof se, "%.6f", R.ok ? R.ext : NAN);
  fmt(sg, sizeof sg, "%.2f%%", R.ok ? 100.0 * R.gci21 : NAN);
  printf("  %-22s", what);
  for (int i = 0; i < ng; i++)
    printf(" %12.6f", phi[i]);
  printf("   p = %s%s", sp, R.oscillatory ? " (oscillatory)" : "");
  if (ng >= 4)
    printf(" (coarser triple: %s)", sc);
  if (R.ok)
    printf("   Richardson %s   GCI_fine %s\n", se, sg);
  else
    printf("   no extrapolation: %s\n", R.why);
  if (R.ok) {
    printf("  %-22s", "  error vs Richardson");
    for (int i = 0; i < ng; i++)
      printf(" %11.2f%%", 100.0 * fabs((phi[i] - R.ext) / R.ext));
    printf("\n");
  }
  printf("MD: | %s | %s |", label, what);
  for (int i = 0; i < ng; i++)
    printf("%s %.5f", i ? " /" : "", phi[i]);
  printf(" | %s%s | %s | %s | %s |", sp, R.oscillatory ? " (osc.)" : "", ng >= 4 ? sc : "-", se, sg);
  if (R.ok)
    for (int i = 0; i < ng; i++)
      printf("%s %.2f%%", i ? " /" : "", 100.0 * fabs((phi[i] - R.ext) / R.ext));
  else
    printf(" -");
  printf(" |\n");
}

static int write_pair(const char *path, const char *head, const profile *p, const double *y)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "gridstudy: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  fprintf(f, "%s\n", head);
  for (int i = 0; i < p->n; i++)
    fprintf(f, "%.14e,%.14e\n", p->x[i], y[i]);
  if (fflush(f) != 0 || ferror(f)) {
    fprintf(stderr, "gridstudy: cannot write %s: %s\n", path, strerror(errno));
    fclose(f);
    return -1;
  }
  if (fclose(f) != 0) {
    fprintf(stderr, "gridstudy: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* The whole profile: order from RMS norms, extrapolated profile, GCI band. */
static int profile_rows(const char *label, const char *what, const char *head, const grid_profile *g, int ng,
                        const char *out, const char *suffix)
{
  int f = ng - 1;
  const profile *fine = g[f].p;
  int n = fine->n;
  double *v = malloc(sizeof(double) * (size_t)n * (size_t)ng);
  double *ext = malloc(sizeof(double) * (size_t)n), *band = malloc(sizeof(double) * (size_t)n);
  if (!v || !ext || !band) {
    fprintf(stderr, "gridstudy: out of memory\n");
    return -1;
  }
  for (int i = 0; i < ng; i++)
    for (int k = 0; k < n; k++)
      v[i * n + k] = i == f ? fine->y[k] : interp4(g[i].p, fine->x[k]);
  double e[MAXGRIDS];   /* RMS of (grid i+1) - (grid i) on the fine points */
  for (int i = 0; i + 1 < ng; i++) {
    double s = 0.0;
    for (int k = 0; k < n; k++) {
      double d = v[(i + 1) * n + k] - v[i * n + k];
      s += d * d;
    }
    e[i] = sqrt(s / n);
  }
  /* the norms as a sequence phi with differences e: order3 needs only the
   * differences, so phi3 = e32 + e21, phi2 = e21, phi1 = 0 gives p */
  richardson R = order3(e[f - 2] + e[f - 1], e[f - 1], 0.0, (double)g[f - 1].n / g[f - 2].n,
                        (double)g[f].n / g[f - 1].n);
  richardson C = {0, NAN, NAN, NAN, NAN, 0, ""};
  if (ng >= 4)
    C = order3(e[f - 3] + e[f - 2], e[f - 2], 0.0, (double)g[f - 2].n / g[f - 3].n, (double)g[f - 1].n / g[f - 2].n);
  char sp[32], sc[32], sg[32];
  fmt(sp, sizeof sp, "%.3f", R.p);
  fmt(sc, sizeof sc, "%.3f", C.p);
  printf("  %-22s", what);
  for (int i = 0; i + 1 < ng; i++)
    printf(" rms(%d-%d) %.3e", g[i].n, g[i + 1].n, e[i]);
  printf("   p = %s", sp);
  if (ng >= 4)
    printf(" (coarser triple: %s)", sc);
  double maxband = NAN, err[MAXGRIDS];
  if (R.ok) {
    double fp = pow((double)g[f].n / g[f - 1].n, R.p);
    maxband = 0.0;
    for (int k = 0; k < n; k++) {
      double f1 = v[f * n + k], f2 = v[(f - 1) * n + k];
      ext[k] = f1 + (f1 - f2) / (fp - 1.0);
      band[k] = 1.25 * fabs(f1 - f2) / (fp - 1.0);
      if (band[k] > maxband)
        maxband = band[k];
    }
    for (int i = 0; i < ng; i++) {
      err[i] = 0.0;
      for (int k = 0; k < n; k++)
        if (fabs(v[i * n + k] - ext[k]) > err[i])
          err[i] = fabs(v[i * n + k] - ext[k]);
    }
    printf("   max GCI band %.2e\n  %-22s", maxband, "  max |f - f_ext|");
    for (int i = 0; i < ng; i++)
      printf(" %12.3e", err[i]);
    printf("\n");
  } else {
    printf("   no extrapolation: %s\n", R.why);
  }
  fmt(sg, sizeof sg, "%.2e (abs)", maxband);
  printf("MD: | %s | %s (RMS difference) |", label, what);
  for (int i = 0; i + 1 < ng; i++)
    printf("%s %.2e", i ? " /" : "", e[i]);
  printf(" | %s | %s | (profile) | %s |", sp, ng >= 4 ? sc : "-", sg);
  if (R.ok)
    for (int i = 0; i < ng; i++)
      printf("%s %.2e", i ? " /" : "", err[i]);
  else
    printf(" -");
  printf(" (max abs) |\n");
  int rc = 0;
  if (out && R.ok) {
    char *a = malloc(strlen(out) + 16), *b = malloc(strlen(out) + 20);
    if (!a || !b) {
      fprintf(stderr, "gridstudy: out of memory\n");
      return -1;
    }
    sprintf(a, "%s_%s.csv", out, suffix);
    sprintf(b, "%s_%s_gci.csv", out, suffix);
    rc = write_pair(a, head, fine, ext) || write_pair(b, head[0] == 'y' ? "y,band" : "x,band", fine, band);
    free(a);
    free(b);
  }
  free(v);
  free(ext);
  free(band);
  return rc;
}

int main(int argc, char **argv)
{
  const char *label = "", *out = NULL;
  grid_profile gu[MAXGRIDS], gv[MAXGRIDS];
  int ng = 0;
  for (int a = 1; a < argc; a++) {
    /* an option at the end without its value: say so, not "unknown" */
    if ((!strcmp(argv[a], "--label") || !strcmp(argv[a], "--out")) && a + 1 >= argc) {
      fprintf(stderr, "gridstudy: option %s needs a value\n", argv[a]);
      return 2;
    }
    if (!strcmp(argv[a], "--label"))
      label = argv[++a];
    else if (!strcmp(argv[a], "--out"))
      out = argv[++a];
    else if (argv[a][0] == '-' && argv[a][1] == '-') {
      fprintf(stderr, "gridstudy: unknown option %s\n", argv[a]);
      return 2;
    } else {
      if (ng == MAXGRIDS) {
        fprintf(stderr, "gridstudy: at most %d runs\n", MAXGRIDS);
        return 2;
      }
      gu[ng].dir = gv[ng].dir = argv[a];
      ng++;
    }
  }
  if (ng < 3) {
    fprintf(stderr, "usage: gridstudy [--label L] [--out PREFIX] RUN_DIR RUN_DIR RUN_DIR [RUN_DIR ...]\n"
                    "  (three or more runs of one case on different grids; each RUN_DIR holds\n"
                    "   centreline_u.csv and centreline_v.csv)\n");
    return 2;
  }
  if (load(gu, ng, "centreline_u.csv") || load(gv, ng, "centreline_v.csv"))
    return 2;
  printf("%s\n  grids (cells along the profile, coarse to fine): u:", label);
  for (int i = 0; i < ng; i++)
    printf(" %d", gu[i].n);
  printf(", v:");
  for (int i = 0; i < ng; i++)
    printf(" %d", gv[i].n);
  printf("; the analysis uses the finest three\n");

  double phi[MAXGRIDS], pos[MAXGRIDS];
  struct { const char *name, *where; grid_profile *g; int sign; } ex[3] = {
    {"min u", "y of min u", gu, -1}, {"max v", "x of max v", gv, +1}, {"min v", "x of min v", gv, -1}};
  for (int e = 0; e < 3; e++) {
    int ok = 1;
    for (int i = 0; i < ng; i++)
      if (profile_extremum(ex[e].g[i].p, ex[e].sign, &pos[i], &phi[i]) != 0)
        ok = 0;
    if (!ok) {
      printf("  %-22s no interior extremum on every grid\n", ex[e].name);
      continue;
    }
    scalar_row(label, ex[e].name, ex[e].g, ng, phi);
    scalar_row(label, ex[e].where, ex[e].g, ng, pos);
  }
  if (profile_rows(label, "u profile", "y,u", gu, ng, out, "u") ||
      profile_rows(label, "v profile", "x,v", gv, ng, out, "v"))
    return 2;
  for (int i = 0; i < ng; i++) {
    free(gu[i].p);
    free(gv[i].p);
  }
  return 0;
}
