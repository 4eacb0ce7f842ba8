/* Compare adiflow centreline profiles with Ghia, Ghia & Shin (1982).
 *
 *   ghia_compare OURS_U GHIA_U OURS_V GHIA_V TOL [--exclude-v X] [--label L]
 *
 * OURS_*: centreline_u.csv / centreline_v.csv of a run (header line, then
 * position,value). GHIA_*: the tables in validation/data/ghia1982 ('#'
 * comment lines, a header, then position,value). Our profile is interpolated
 * linearly at each of Ghia's stations. Prints one table row per station and
 * a summary line; a Markdown row goes to stdout after "MD:" for RESULTS.md.
 * --exclude-v X leaves Ghia's v station at x = X (a known misprint) out of
 * the maximum and reports it on its own line. Exit status 1 when the
 * maximum difference exceeds TOL, 2 on bad input: a file that is missing,
 * unreadable, not a regular file (a directory or a FIFO is refused without
 * opening it for a blocking read), or damaged (a line that is not two finite
 * numbers, a line longer than MAXLINE, positions not increasing, fewer than
 * 2 points); the message names the file and the line.
 */
#define _POSIX_C_SOURCE 200809L
#define PROFILE_IO_PROG "ghia_compare"
#include "profile_io.h"

static double compare(const char *name, const profile *ours, const profile *ref,
                      double exclude, double *excluded_err)
{
  double worst = 0.0;
  printf("  %-8s %10s %12s %12s %10s\n", "", "station", "Ghia", "adiflow", "|diff|");
  for (int i = 0; i < ref->n; i++) {
    double v = profile_interp(ours, ref->x[i]);
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
  {
    const char *s = argv[5];
    if (parse_number(&s, &tol) || *s != '\0' || tol < 0.0) {
      fprintf(stderr, "ghia_compare: TOL must be a number >= 0, not \"%s\"\n", argv[5]);
      return 2;
    }
  }
  for (int a = 6; a < argc; a++) {
    /* an option at the end without its value: say so, not "unknown" */
    if ((!strcmp(argv[a], "--exclude-v") || !strcmp(argv[a], "--label")) && a + 1 >= argc) {
      fprintf(stderr, "ghia_compare: option %s needs a value\n", argv[a]);
      return 2;
    }
    if (!strcmp(argv[a], "--exclude-v")) {
      const char *s = argv[++a];
      if (parse_number(&s, &exclude) || *s != '\0') {
        fprintf(stderr, "ghia_compare: --exclude-v needs a number, not \"%s\"\n", argv[a]);
        return 2;
      }
    }
    else if (!strcmp(argv[a], "--label"))
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
