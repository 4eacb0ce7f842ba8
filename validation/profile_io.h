/* Reading of a position,value profile (a run's centreline_u.csv /
 * centreline_v.csv, or a reference table), shared by build/ghia_compare and
 * build/gridstudy so that both refuse the same damaged inputs with the same
 * messages: a file that is missing, unreadable, not a regular file (a
 * directory or a FIFO is refused without opening it for a blocking read, by
 * the host library: modules/common/host/host_file.h), or damaged (a line that is not two
 * finite numbers, a line longer than MAXLINE, positions not increasing,
 * fewer than 2 points); the message names the file and the line. '#' lines and blank lines are skipped, and one header line
 * (e.g. "y,u") before the first point.
 *
 * Also the two operations the tools share on a profile: linear interpolation
 * (profile_interp) and the extremum by a parabola (profile_extremum).
 *
 * Define PROFILE_IO_PROG (the program name for the messages) before including.
 */
#ifndef PROFILE_IO_H
#define PROFILE_IO_H

#ifndef PROFILE_IO_PROG
#error "define PROFILE_IO_PROG before including profile_io.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_file.h"

#define MAXPTS 8192
#define MAXLINE 4096

typedef struct {
  int n;
  double x[MAXPTS], y[MAXPTS];
} profile;

/* Opens PATH for reading only if it is a regular file, never blocking on a
 * FIFO (the host library's adi_fopen_regular, modules/common/host/host_file.h), with the
 * tools' own messages. */
static FILE *open_regular(const char *path)
{
  adi_open_status st;
  FILE *f = adi_fopen_regular(path, &st);
  switch (st.step) {
  case ADI_OPEN_OK: break;
  case ADI_OPEN_STAT:
  case ADI_OPEN_OPEN: fprintf(stderr, PROFILE_IO_PROG ": cannot open %s: %s\n", path, strerror(st.err)); break;
  case ADI_OPEN_KIND:
    fprintf(stderr, PROFILE_IO_PROG ": %s is not a regular file (%s)\n", path, adi_file_kind(st.mode));
    break;
  case ADI_OPEN_CHANGED: fprintf(stderr, PROFILE_IO_PROG ": %s is not a regular file\n", path); break;
  case ADI_OPEN_STREAM: fprintf(stderr, PROFILE_IO_PROG ": cannot read %s: %s\n", path, strerror(st.err)); break;
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

/* "a,b" with optional blanks and a trailing CR: 0, anything else: -1.
 * extra != 0 also takes further ",number" columns (each finite), which are
 * not returned: a reference table that keeps its source's own coordinates
 * beside the mapped ones. */
static int parse_row(const char *line, double *a, double *b, int extra)
{
  const char *s = line;
  double skip;
  if (parse_number(&s, a))
    return -1;
  while (*s == ' ' || *s == '\t')
    s++;
  if (*s++ != ',')
    return -1;
  if (parse_number(&s, b))
    return -1;
  for (;;) {
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
      s++;
    if (!extra || *s != ',')
      break;
    s++;
    if (parse_number(&s, &skip))
      return -1;
  }
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

/* extra_columns != 0: rows may hold more than two numbers (parse_row). */
static int read_profile_cols(const char *path, profile *p, int extra_columns)
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
      fprintf(stderr, PROFILE_IO_PROG ": %s: line %ld holds a NUL byte (damaged or binary file)\n", path, lineno);
      fclose(f);
      return -1;
    }
    if (line[0] == '#' || blank(line))
      continue; /* a comment may be of any length */
    if (too_long) {
      fprintf(stderr, PROFILE_IO_PROG ": %s: line %ld is longer than %d characters (damaged file?)\n", path,
              lineno, MAXLINE);
      fclose(f);
      return -1;
    }
    if (parse_row(line, &a, &b, extra_columns) != 0) {
      if (!header_seen && p->n == 0) { header_seen = 1; continue; }
      line[strcspn(line, "\r")] = '\0';
      fprintf(stderr, PROFILE_IO_PROG ": %s: line %ld is not %s \"position,value\": %.80s\n", path, lineno,
              extra_columns ? "finite numbers" : "two finite numbers", line);
      fclose(f);
      return -1;
    }
    if (p->n == MAXPTS) {
      fprintf(stderr, PROFILE_IO_PROG ": %s has more than %d points\n", path, MAXPTS);
      fclose(f);
      return -1;
    }
    if (p->n > 0 && !(a > p->x[p->n - 1])) {
      fprintf(stderr, PROFILE_IO_PROG ": %s: line %ld: position %g does not increase (previous %g)\n", path,
              lineno, a, p->x[p->n - 1]);
      fclose(f);
      return -1;
    }
    p->x[p->n] = a;
    p->y[p->n] = b;
    p->n++;
  }
  if (ferror(f)) {
    fprintf(stderr, PROFILE_IO_PROG ": read error on %s: %s\n", path, strerror(errno));
    fclose(f);
    return -1;
  }
  fclose(f);
  if (p->n < 2) {
    fprintf(stderr, PROFILE_IO_PROG ": %s holds fewer than 2 points (empty or damaged file?)\n", path);
    return -1;
  }
  return 0;
}

static int read_profile(const char *path, profile *p)
{
  return read_profile_cols(path, p, 0);
}

/* Linear interpolation of p at x (p's end intervals extend it outside
 * [x[0], x[n-1]]). */
static inline double profile_interp(const profile *p, double x)
{
  int a = 0;
  while (a < p->n - 2 && x > p->x[a + 1])
    a++;
  double w = (x - p->x[a]) / (p->x[a + 1] - p->x[a]);
  return (1.0 - w) * p->y[a] + w * p->y[a + 1];
}

/* The extremum (sign = -1: minimum, +1: maximum) of a profile: the vertex
 * of the parabola through the discrete extremum and its neighbours. Returns
 * -1 when the discrete extremum lies on an end point (no interior extremum). */
static inline int profile_extremum(const profile *p, int sign, double *pos, double *val)
{
  int k = 0;
  for (int i = 1; i < p->n; i++)
    if (sign * p->y[i] > sign * p->y[k])
      k = i;
  if (k == 0 || k == p->n - 1)
    return -1;
  double x0 = p->x[k - 1], x1 = p->x[k], x2 = p->x[k + 1];
  double d1 = (p->y[k] - p->y[k - 1]) / (x1 - x0);
  double d12 = (p->y[k + 1] - p->y[k]) / (x2 - x1);
  double d2 = (d12 - d1) / (x2 - x0);
  if (sign * d2 >= 0.0) { /* not curved the right way (flat): the point itself */
    *pos = x1;
    *val = p->y[k];
    return 0;
  }
  double xs = 0.5 * (x0 + x1) - d1 / (2.0 * d2);
  *pos = xs;
  *val = p->y[k - 1] + d1 * (xs - x0) + d2 * (xs - x0) * (xs - x1);
  return 0;
}

#endif
