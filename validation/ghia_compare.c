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
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAXPTS 8192
#define MAXLINE 4096

typedef struct {
  int n;
  double x[MAXPTS], y[MAXPTS];
} profile;

/* Opens PATH for reading only if it is a regular file: stat first (a clear
 * message for a missing file, a directory, a FIFO), then open without
 * blocking (a FIFO swapped in after the stat cannot hang us) and check the
 * opened file again with fstat. */
static FILE *open_regular(const char *path)
{
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "ghia_compare: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    fprintf(stderr, "ghia_compare: %s is not a regular file (%s)\n", path,
            S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a special file");
    return NULL;
  }
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) {
    fprintf(stderr, "ghia_compare: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    fprintf(stderr, "ghia_compare: %s is not a regular file\n", path);
    close(fd);
    return NULL;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0)
    (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "r");
  if (!f) {
    fprintf(stderr, "ghia_compare: cannot read %s: %s\n", path, strerror(errno));
    close(fd);
  }
  return f;
}

/* One number at *s (leading blanks allowed), finite; *s moves past it. */
static int parse_number(const char **s, double *v)
{
  char *end;
  errno = 0;
  *v = strtod(*s, &end);
  if (end == *s || errno == ERANGE || !isfinite(*v))
    return -1;
  *s = end;
  return 0;
}

/* "a,b" with optional blanks and a trailing CR: 0, anything else: -1. */
static int parse_pair(const char *line, double *a, double *b)
{
  const char *s = line;
  if (parse_number(&s, a))
    return -1;
  while (*s == ' ' || *s == '\t')
    s++;
  if (*s++ != ',')
    return -1;
  if (parse_number(&s, b))
    return -1;
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
    s++;
  return *s == '\0' ? 0 : -1;
}

static int blank(const char *s)
{
  for (; *s; s++)
    if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
      return 0;
  return 1;
}

/* Reads one line (without its '\n') into buf of MAXLINE + 1 bytes.
 * Returns its length, -1 at the end of the file; *too_long is set (and the
 * rest of the line skipped) past MAXLINE characters, *has_nul when the line
 * holds a NUL byte. */
static long read_line(FILE *f, char *buf, int *too_long, int *has_nul)
{
  long n = 0;
  int c;
  *too_long = *has_nul = 0;
  while ((c = getc(f)) != EOF && c != '\n') {
    if (c == '\0')
      *has_nul = 1;
    if (n < MAXLINE)
      buf[n++] = (char)c;
    else
      *too_long = 1;
  }
  buf[n] = '\0';
  if (c == EOF && n == 0 && !*too_long)
    return -1;
  return n;
}

static int read_profile(const char *path, profile *p)
{
  char line[MAXLINE + 1];
  int header_seen = 0, too_long, has_nul;
  long lineno = 0;
  FILE *f = open_regular(path);
  if (!f)
    return -1;
  p->n = 0;
  while (read_line(f, line, &too_long, &has_nul) >= 0) {
    double a, b;
    lineno++;
    if (has_nul) {
      fprintf(stderr, "ghia_compare: %s: line %ld holds a NUL byte (damaged or binary file)\n", path, lineno);
      fclose(f);
      return -1;
    }
    if (line[0] == '#' || blank(line))
      continue; /* a comment may be of any length */
    if (too_long) {
      fprintf(stderr, "ghia_compare: %s: line %ld is longer than %d characters (damaged file?)\n", path,
              lineno, MAXLINE);
      fclose(f);
      return -1;
    }
    if (parse_pair(line, &a, &b) != 0) {
      if (!header_seen && p->n == 0) { header_seen = 1; continue; }
      line[strcspn(line, "\r")] = '\0';
      fprintf(stderr, "ghia_compare: %s: line %ld is not two finite numbers \"position,value\": %.80s\n",
              path, lineno, line);
      fclose(f);
      return -1;
    }
    if (p->n == MAXPTS) {
      fprintf(stderr, "ghia_compare: %s has more than %d points\n", path, MAXPTS);
      fclose(f);
      return -1;
    }
    if (p->n > 0 && !(a > p->x[p->n - 1])) {
      fprintf(stderr, "ghia_compare: %s: line %ld: position %g does not increase (previous %g)\n", path,
              lineno, a, p->x[p->n - 1]);
      fclose(f);
      return -1;
    }
    p->x[p->n] = a;
    p->y[p->n] = b;
    p->n++;
  }
  if (ferror(f)) {
    fprintf(stderr, "ghia_compare: read error on %s: %s\n", path, strerror(errno));
    fclose(f);
    return -1;
  }
  fclose(f);
  if (p->n < 2) {
    fprintf(stderr, "ghia_compare: %s holds fewer than 2 points (empty or damaged file?)\n", path);
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
  {
    const char *s = argv[5];
    if (parse_number(&s, &tol) || *s != '\0' || tol < 0.0) {
      fprintf(stderr, "ghia_compare: TOL must be a number >= 0, not \"%s\"\n", argv[5]);
      return 2;
    }
  }
  for (int a = 6; a < argc; a++) {
    if (!strcmp(argv[a], "--exclude-v") && a + 1 < argc) {
      const char *s = argv[++a];
      if (parse_number(&s, &exclude) || *s != '\0') {
        fprintf(stderr, "ghia_compare: --exclude-v needs a number, not \"%s\"\n", argv[a]);
        return 2;
      }
    }
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
