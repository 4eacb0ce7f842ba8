/* Compare adiflow's centreline profiles of the lid-driven cube at Re = 1000
 * with Albensoeder & Kuhlmann (2005).
 *
 *   cube_compare OURS_U REF_U OURS_V REF_V REF_EXTREMA TOL_PCT TOL_PROFILE [--label L]
 *
 * OURS_*: a run's centreline_u.csv (y,u on x = z = 0.5) and centreline_v.csv
 * (x,v on y = z = 0.5), as fortran/output_profiles.f90 writes them.
 * REF_*: the tables in validation/data/albensoeder_kuhlmann2005 (position,
 * value, then the paper's own coordinate and value, which are not used).
 * REF_EXTREMA: that folder's cube_Re1000_extrema.csv: '#' lines, a header,
 * then the rows u_min, v_max, v_min as name,position,value, each once.
 *
 * Profiles: ours interpolated linearly at each reference station; the
 * largest |difference| of each profile must be <= TOL_PROFILE.
 * Extrema: ours located by the vertex of the parabola through the discrete
 * extremum and its two neighbours; the error 100 |ours - ref| / |ref| of each
 * must be <= TOL_PCT (per cent). Both operations are profile_io.h's, the ones
 * build/ghia_compare and build/gridstudy use.
 *
 * Output: a station table, an extremum table, a summary line, and Markdown
 * rows for validation/run_cube.sh's page: "MDE:" (one per extremum) and
 * "MDP:" (one per profile).
 * Exit status: 0 within both bounds; 1 outside a bound, or a profile of ours
 * without an interior extremum; 2 bad input (arguments; a file missing,
 * unreadable, not a regular file or damaged, by profile_io.h's rules; an
 * extrema file without one of the three rows, with a row twice, an unknown
 * name or a zero value).
 */
#define _POSIX_C_SOURCE 200809L
#define PROFILE_IO_PROG "cube_compare"
#include "profile_io.h"

enum { U_MIN, V_MAX, V_MIN, NEXT };
static const char *const ext_name[NEXT] = {"u_min", "v_max", "v_min"};
static const char *const ext_label[NEXT] = {"min u", "max v", "min v"};
static const char *const ext_axis[NEXT] = {"y", "x", "x"};
static const int ext_sign[NEXT] = {-1, +1, -1};

typedef struct {
  double pos[NEXT], val[NEXT];
} extrema;

/* The extrema file: '#' and blank lines skipped, one header line allowed
 * before the first row, then "name,position,value" rows. */
static int read_extrema(const char *path, extrema *e)
{
  char line[MAXLINE + 1];
  int seen[NEXT] = {0}, header_seen = 0, too_long, has_nul, rows = 0;
  long lineno = 0;
  FILE *f = open_regular(path);
  if (!f)
    return -1;
  while (read_line(f, line, &too_long, &has_nul) >= 0) {
    lineno++;
    if (has_nul || too_long) {
      fprintf(stderr, "cube_compare: %s: line %ld %s (damaged file?)\n", path, lineno,
              has_nul ? "holds a NUL byte" : "is too long");
      fclose(f);
      return -1;
    }
    if (line[0] == '#' || blank(line))
      continue;
    line[strcspn(line, "\r")] = '\0';
    const char *comma = strchr(line, ',');
    int k = -1;
    for (int i = 0; comma && i < NEXT; i++)
      if ((size_t)(comma - line) == strlen(ext_name[i]) && !strncmp(line, ext_name[i], strlen(ext_name[i])))
        k = i;
    double pos, val;
    if (k < 0 || parse_row(comma + 1, &pos, &val, 0) != 0) {
      if (!header_seen && rows == 0) { header_seen = 1; continue; }
      fprintf(stderr, "cube_compare: %s: line %ld is not \"u_min|v_max|v_min,position,value\": %.80s\n", path,
              lineno, line);
      fclose(f);
      return -1;
    }
    if (seen[k]) {
      fprintf(stderr, "cube_compare: %s: line %ld: %s is given twice\n", path, lineno, ext_name[k]);
      fclose(f);
      return -1;
    }
    if (val == 0.0) {
      fprintf(stderr, "cube_compare: %s: line %ld: %s = 0 (a relative error needs a value != 0)\n", path,
              lineno, ext_name[k]);
      fclose(f);
      return -1;
    }
    seen[k] = 1;
    rows++;
    e->pos[k] = pos;
    e->val[k] = val;
  }
  fclose(f);
  for (int i = 0; i < NEXT; i++)
    if (!seen[i]) {
      fprintf(stderr, "cube_compare: %s has no %s row\n", path, ext_name[i]);
      return -1;
    }
  return 0;
}

static double compare(const char *name, const profile *ours, const profile *ref)
{
  double worst = 0.0;
  for (int i = 0; i < ref->n; i++) {
    double v = profile_interp(ours, ref->x[i]);
    double e = fabs(v - ref->y[i]);
    printf("  %-6s %10.4f %12.5f %12.5f %10.5f\n", name, ref->x[i], ref->y[i], v, e);
    if (e > worst)
      worst = e;
  }
  return worst;
}

/* "X" as a number >= 0 or exit 2 */
static int bound_arg(const char *what, const char *arg, double *out)
{
  const char *s = arg;
  if (parse_number(&s, out) || *s != '\0' || *out < 0.0) {
    fprintf(stderr, "cube_compare: %s must be a number >= 0, not \"%s\"\n", what, arg);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  static profile ou, ru, ov, rv; /* static: four profiles of MAXPTS points are large for a stack */
  extrema ref;
  double tol_pct, tol_prof;
  const char *label = "";
  if (argc < 8) {
    fprintf(stderr, "usage: cube_compare OURS_U REF_U OURS_V REF_V REF_EXTREMA TOL_PCT TOL_PROFILE [--label L]\n");
    return 2;
  }
  if (bound_arg("TOL_PCT", argv[6], &tol_pct) || bound_arg("TOL_PROFILE", argv[7], &tol_prof))
    return 2;
  for (int a = 8; a < argc; a++) {
    if (!strcmp(argv[a], "--label") && a + 1 < argc)
      label = argv[++a];
    else {
      fprintf(stderr, "cube_compare: unknown argument %s\n", argv[a]);
      return 2;
    }
  }
  /* the reference tables keep the paper's coordinates in extra columns */
  if (read_profile(argv[1], &ou) || read_profile_cols(argv[2], &ru, 1) || read_profile(argv[3], &ov) ||
      read_profile_cols(argv[4], &rv, 1) || read_extrema(argv[5], &ref))
    return 2;

  printf("%s\n", label);
  printf("  %-6s %10s %12s %12s %10s\n", "", "station", "A&K", "adiflow", "|diff|");
  double eu = compare("u(y)", &ou, &ru);
  double ev = compare("v(x)", &ov, &rv);

  const profile *of[NEXT] = {&ou, &ov, &ov};
  double pos[NEXT], val[NEXT], err[NEXT], worst = 0.0;
  int ok = eu <= tol_prof && ev <= tol_prof, found = 1;
  printf("  %-6s %12s %12s %12s %12s %9s\n", "", "A&K at", "A&K", "adiflow at", "adiflow", "error");
  for (int i = 0; i < NEXT; i++) {
    if (profile_extremum(of[i], ext_sign[i], &pos[i], &val[i]) != 0) {
      printf("  %-6s %12.5f %12.5f  no interior extremum in our profile\n", ext_label[i], ref.pos[i], ref.val[i]);
      found = ok = 0;
      err[i] = NAN;
      continue;
    }
    err[i] = 100.0 * fabs(val[i] - ref.val[i]) / fabs(ref.val[i]);
    if (err[i] > worst)
      worst = err[i];
    if (err[i] > tol_pct)
      ok = 0;
    printf("  %-6s %12.5f %12.5f %12.5f %12.5f %8.3f%%\n", ext_label[i], ref.pos[i], ref.val[i], pos[i], val[i],
           err[i]);
  }
  printf("max |u - u_AK| = %.5f, max |v - v_AK| = %.5f (bound %.3f); largest extremum error %s%.3f %% (bound %g %%): %s\n",
         eu, ev, tol_prof, found ? "" : "(an extremum missing) ", worst, tol_pct, ok ? "PASS" : "FAIL");
  for (int i = 0; i < NEXT; i++) {
    if (isnan(err[i]))
      printf("MDE: | %s | %s | %s = %.5f | %.5f | - | - | - | %g %% | FAIL |\n", label, ext_label[i], ext_axis[i],
             ref.pos[i], ref.val[i], tol_pct);
    else
      printf("MDE: | %s | %s | %s = %.5f | %.5f | %s = %.5f | %.5f | %.2f %% | %g %% | %s |\n", label, ext_label[i],
             ext_axis[i], ref.pos[i], ref.val[i], ext_axis[i], pos[i], val[i], err[i], tol_pct,
             err[i] <= tol_pct ? "pass" : "FAIL");
  }
  printf("MDP: | %s | u on the vertical centreline (%d stations) | %.5f | %.3f | %s |\n", label, ru.n, eu, tol_prof,
         eu <= tol_prof ? "pass" : "FAIL");
  printf("MDP: | %s | v on the horizontal centreline (%d stations) | %.5f | %.3f | %s |\n", label, rv.n, ev, tol_prof,
         ev <= tol_prof ? "pass" : "FAIL");
  return ok ? 0 : 1;
}
