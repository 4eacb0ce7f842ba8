/* Compare adiflow centreline profiles with Ghia, Ghia & Shin (1982).
 *
 *   ghia_compare OURS_U GHIA_U OURS_V GHIA_V TOL [--exclude-v X] [--label L]
 *
 * OURS_*: centreline_u.csv / centreline_v.csv of a run (header line, then
 * position,value). GHIA_*: the tables in shared/data/ghia1982 ('#' comment
 * lines, a header, then position,value). Our profile is interpolated
 * linearly at each of Ghia's stations. Prints one table row per station and
 * a summary line; a Markdown row goes to stdout after "MD:" for RESULTS.md.
 * --exclude-v X leaves Ghia's v station at x = X (a known misprint) out of
 * the maximum and reports it on its own line. Exit status 1 when the
 * maximum difference exceeds TOL, 2 on bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXPTS 8192

typedef struct {
  int n;
  double x[MAXPTS], y[MAXPTS];
} profile;

static int read_profile(const char *path, profile *p)
{
  FILE *f = fopen(path, "r");
  char line[1024];
  int header_seen = 0;
  if (!f) {
    fprintf(stderr, "ghia_compare: cannot open %s\n", path);
    return -1;
  }
  p->n = 0;
  while (fgets(line, sizeof line, f)) {
    double a, b;
    if (line[0] == '#' || line[0] == '\n')
      continue;
    if (sscanf(line, "%lf,%lf", &a, &b) != 2) {
      if (!header_seen) { header_seen = 1; continue; }
      fprintf(stderr, "ghia_compare: %s: cannot read line: %s", path, line);
      fclose(f);
      return -1;
    }
    if (p->n == MAXPTS) {
      fprintf(stderr, "ghia_compare: %s has more than %d points\n", path, MAXPTS);
      fclose(f);
      return -1;
    }
    p->x[p->n] = a;
    p->y[p->n] = b;
    p->n++;
  }
  fclose(f);
  if (p->n < 2) {
    fprintf(stderr, "ghia_compare: %s holds fewer than 2 points\n", path);
    return -1;
  }
  return 0;
}

static double interp(const profile *p, double x)
{
  int a = 0;
  while (a < p->n - 2 && x > p->x[a + 1])
    a++;
  double w = (x - p->x[a]) / (p->x[a + 1] - p->x[a]);
  return (1.0 - w) * p->y[a] + w * p->y[a + 1];
}

static double compare(const char *name, const profile *ours, const profile *ref,
                      double exclude, double *excluded_err)
{
  double worst = 0.0;
  printf("  %-8s %10s %12s %12s %10s\n", "", "station", "Ghia", "adiflow", "|diff|");
  for (int i = 0; i < ref->n; i++) {
    double v = interp(ours, ref->x[i]);
    double e = fabs(v - ref->y[i]);
    int skip = exclude >= 0.0 && fabs(ref->x[i] - exclude) < 5e-5;
    printf("  %-8s %10.4f %12.5f %12.5f %10.5f%s\n", name, ref->x[i], ref->y[i], v, e,
           skip ? "  (known misprint, reported apart)" : "");
    if (skip)
      *excluded_err = e;
    else if (e > worst)
      worst = e;
  }
  return worst;
}

int main(int argc, char **argv)
{
  profile ou, gu, ov, gv;
  double tol, exclude = -1.0, excluded_err = -1.0;
  const char *label = "";
  if (argc < 6) {
    fprintf(stderr, "usage: ghia_compare OURS_U GHIA_U OURS_V GHIA_V TOL [--exclude-v X] [--label L]\n");
    return 2;
  }
  tol = atof(argv[5]);
  for (int a = 6; a < argc; a++) {
    if (!strcmp(argv[a], "--exclude-v") && a + 1 < argc)
      exclude = atof(argv[++a]);
    else if (!strcmp(argv[a], "--label") && a + 1 < argc)
      label = argv[++a];
    else {
      fprintf(stderr, "ghia_compare: unknown argument %s\n", argv[a]);
      return 2;
    }
  }
  if (read_profile(argv[1], &ou) || read_profile(argv[2], &gu) || read_profile(argv[3], &ov) ||
      read_profile(argv[4], &gv))
    return 2;
  printf("%s\n", label);
  double eu = compare("u(y)", &ou, &gu, -1.0, &excluded_err);
  double ev = compare("v(x)", &ov, &gv, exclude, &excluded_err);
  int ok = eu <= tol && ev <= tol;
  printf("max |u - u_Ghia| = %.5f, max |v - v_Ghia| = %.5f, bound %.3f: %s\n", eu, ev, tol,
         ok ? "PASS" : "FAIL");
  if (excluded_err >= 0.0)
    printf("excluded station v(x=%.4f): |diff| = %.5f\n", exclude, excluded_err);
  printf("MD: | %s | %.5f | %.5f | %.3f | %s |", label, eu, ev, tol, ok ? "pass" : "FAIL");
  if (excluded_err >= 0.0)
    printf(" v(%.4f): %.5f |\n", exclude, excluded_err);
  else
    printf(" - |\n");
  return ok ? 0 : 1;
}
