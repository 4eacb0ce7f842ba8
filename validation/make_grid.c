/* make_grid: the Plot3D grids of the validation cases (flat plate, channel, cylinder), and the
 * reader's test files, in every variant the reader takes.
 *
 *   make_grid SHAPE [sizes and shape options] [format options] -o FILE
 *
 * Shapes (2D, written as 2D files, or one cell thick in z with --dims 3):
 *   plate     laminar flat plate: a rectangle x in [-run_up, length],
 *             y in [0, height]; the plate (y = 0, x >= 0) starts at node
 *             i = ni_run + 1 (printed); cells cluster at the wall and
 *             towards the leading edge from both sides
 *             --ni-run 16 --ni-plate 48 --nj 32 --length 1 --run-up 0.5
 *             --height 0.5 --beta-x 2 --beta-y 3
 *   channel   plane channel x in [0, length], y in [0, height], clustered
 *             at both walls: --ni 64 --nj 32 --length 10 --height 1 --beta-y 1.5
 *   cylinder  O-grid around a circular cylinder of diameter D centred at
 *             the origin, farfield circle at F diameters; i runs clockwise
 *             from the rear (x > 0), so that i, j (outwards) and z form a
 *             right-handed system; nodes i = 1 and i = ni + 1 coincide, bit
 *             for bit; radii in geometric progression (every cell of the
 *             same aspect ratio): --ni 64 --nj 48 --diameter 1 --farfield 50
 *   box       a 3D box with a smooth interior distortion (the reader's and
 *             the metric tests' curvilinear block): --ni 6 --nj 5 --nk 4
 *   naca0012  C-grid around the NACA 0012 airfoil of chord 1 (leading edge
 *             at the origin), with the closed trailing edge of the high-order
 *             CFD workshop's definition (the x^4 coefficient -0.1036 instead
 *             of -0.1015); i runs from the lower wake's outflow end along the
 *             wake to the trailing edge, round the lower surface to the
 *             leading edge, back along the upper surface and out the upper
 *             wake; j outwards. --na 128 cells round the airfoil (cosine
 *             clustering at both edges), --nw 32 along each wake (geometric
 *             from the trailing edge's spacing), --nj 64 outwards (geometric
 *             from --first 2e-3), --farfield 30 (chords: the C's radius about
 *             the trailing edge and the wake's length). Grid lines leave the
 *             wall along its normal and turn within 5 first spacings onto the
 *             straight line to their node of the outer boundary (the 8 lines
 *             each side of a trailing edge sooner, where 5 would fold the
 *             grid: a fine level). Printed: the node planes i where the wake
 *             meets the airfoil (--split with them writes the 3 blocks whose
 *             lower and upper wakes join across the cut)
 * Format: --format text|unformatted|raw (unformatted) --precision
 *   single|double (double) --endian little|big (little) --count yes|no (yes:
 *   the block-count header) --markers 4|8 (4) --subrecord BYTES (split
 *   records into subrecords, as compilers do over 2 GiB) --dims 2|3 (2)
 *   --span S (1: the z thickness with --dims 3).
 * Test files the reader refuses: --blocks N (the block N times), --iblank,
 *   --flip i|j|k (one index reversed: a left-handed grid).
 * A multi-block file of the same grid: --split I[,I2,...] writes it as
 *   blocks joined at node planes i = I, I2, ... (1-based, as grid_check
 *   numbers nodes, increasing): nodes i = 1..I, I..I2, ..., the last up to
 *   ni+1 (the solver over blocks' tests, the C-grid's three blocks);
 *   --split-j J[,...] and --split-k K[,...] cut in j and k too (every
 *   combination a block, i fastest). --turn (3D) stores every second block
 *   along i with its directions cycled (its i, j, k along the grid's j, k,
 *   i): interfaces between faces of different directions.
 *
 * Clustering: one-sided stretching x(s) = 1 + tanh(beta (s - 1)) / tanh(beta),
 * two-sided x(s) = (1 + tanh(beta (2s - 1)) / tanh(beta)) / 2 (the hyperbolic
 * tangent functions of Vinokur, "On one-dimensional stretching functions for
 * finite-difference calculations", J. Comput. Phys. 50 (1983) 215-234, and
 * Thompson, Warsi & Mastin, "Numerical Grid Generation", 1985, ch. 8; the
 * two-sided one is stretch_1d of fortran/grid_generation.f90); the plate's
 * run-up region is a geometric progression starting from the plate's first
 * spacing, so the spacing is continuous at the leading edge. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot3d_write.h"

static const double pi = 3.14159265358979323846;

static void die(const char *fmt, const char *a)
{
  fprintf(stderr, "make_grid: ");
  fprintf(stderr, fmt, a);
  fprintf(stderr, "\nusage: make_grid plate|channel|cylinder|box [options] -o FILE (see validation/make_grid.c)\n");
  exit(2);
}

static double number(const char *key, const char *v, double lo, double hi)
{
  char *end;
  double x;
  if (!v) die("%s needs a value", key);
  errno = 0;
  x = strtod(v, &end);
  if (end == v || *end || errno || !(x >= lo && x <= hi)) {
    char m[200];
    snprintf(m, sizeof m, "%s %s: needs a number from %g to %g", key, v, lo, hi);
    die("%s", m);
  }
  return x;
}

static int count(const char *key, const char *v, int lo, int hi)
{
  double x = number(key, v, lo, hi);
  if (x != (int)x) die("%s needs an integer", key);
  return (int)x;
}

/* one-sided: clustered at s = 0; beta = 0 is uniform */
static double one_sided(double s, double beta) { return beta > 0 ? 1.0 + tanh(beta * (s - 1.0)) / tanh(beta) : s; }

/* two-sided: clustered at s = 0 and s = 1 */
static double two_sided(double s, double beta)
{
  return beta > 0 ? 0.5 * (1.0 + tanh(beta * (2.0 * s - 1.0)) / tanh(beta)) : s;
}

/* ratio q of n spacings first*q^m (m = 0..n-1) that add up to length */
static double geometric_ratio(double first, int n, double length)
{
  double lo = 1e-3, hi = 1e3;
  for (int it = 0; it < 200; ++it) {
    double q = 0.5 * (lo + hi), sum = 0.0, t = first;
    for (int m = 0; m < n; ++m, t *= q) sum += t;
    if (sum > length) hi = q;
    else lo = q;
  }
  return 0.5 * (lo + hi);
}

/* a --split list "P1,P2,..." (1 to 8 increasing node planes from 2) of option opt into split; their count */
static int split_list(const char *opt, const char *v, int split[8])
{
  int n = 0;
  const char *p = v;
  char what[64];
  snprintf(what, sizeof what, "%s", opt);
  if (!v) die("%s needs node planes P[,P2,...]", what);
  while (*p) {
    char *end;
    long x = strtol(p, &end, 10);
    if (end == p || x < 2 || x > 100000 || n == 8 || (n > 0 && x <= split[n - 1]))
      die("%s: needs 1 to 8 increasing node planes from 2, as P1,P2,...", what);
    split[n++] = (int)x;
    p = end;
    if (*p == ',') ++p;
    else if (*p) die("%s: needs 1 to 8 increasing node planes from 2, as P1,P2,...", what);
  }
  return n;
}

/* NACA 0012 half-thickness at x in [0, 1], closed trailing edge (the
 * workshop's -0.1036) */
static double naca0012_y(double x)
{
  return 0.6 * (0.2969 * sqrt(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x - 0.1036 * x * x * x * x);
}

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

/* Line i of the C-grid outwards: distances geometric from first (ratio qj)
 * over the radius, leaving the wall along nrm[i] and turning, within blend
 * first spacings, onto the straight line to the outer node */
static void cgrid_line(int i, int nj, int nx, int nn, double radius, double first, double blend, double qj,
                       const double *in, const double *out, const double *nrm, double *x2)
{
  double dx = out[2 * i] - in[2 * i], dy = out[2 * i + 1] - in[2 * i + 1], l = sqrt(dx * dx + dy * dy), d = 0.0, t = first;
  for (int j = 0; j <= nj; ++j) {
    double ux = dx / l, uy = dy / l, w = d < blend * first ? d / (blend * first) : 1.0;
    double ex = (1.0 - w) * nrm[2 * i] + w * ux, ey = (1.0 - w) * nrm[2 * i + 1] + w * uy;
    x2[i + nx * j] = j == nj ? out[2 * i] : in[2 * i] + d * l / radius * ex;
    x2[nn + i + nx * j] = j == nj ? out[2 * i + 1] : in[2 * i + 1] + d * l / radius * ey;
    d += t;
    t *= qj;
  }
}

/* The signed area of cell (i, j) (its diagonals' cross product) */
static double cgrid_area(int i, int j, int nx, int nn, const double *x2)
{
  int p = i + nx * j, q = i + 1 + nx * (j + 1), r = i + 1 + nx * j, s = i + nx * (j + 1);
  return (x2[q] - x2[p]) * (x2[nn + s] - x2[nn + r]) - (x2[nn + q] - x2[nn + p]) * (x2[s] - x2[r]);
}

/* the node lines each side of a trailing edge that cgrid_folded checks and
 * the C-grid's unfolding turns sooner */
#define TE_LINES 8

/* 1 when a cell among the TE_LINES node lines each side of node lines a
 * and b turns over: its signed area zero or of the other sign than cell
 * (0, 0)'s, at the far end of the lower wake */
static int cgrid_folded(int a, int b, int nj, int nx, int nn, const double *x2)
{
  const int lines[2] = {a, b};
  const double ref = cgrid_area(0, 0, nx, nn, x2);
  for (int c = 0; c < 2; ++c)
    for (int i = imax(lines[c] - TE_LINES, 0); i < imin(lines[c] + TE_LINES, nx - 1); ++i)
      for (int j = 0; j < nj; ++j)
        if (!(cgrid_area(i, j, nx, nn, x2) * ref > 0.0)) return 1;
  return 0;
}

/* The C-grid's nodes x2[c][i + (ni+1) j], ni = 2 nw + na (see the header) */
static void naca0012_cgrid(int na, int nw, int nj, double radius, double first, double *x2)
{
  const int ni = 2 * nw + na, nx = ni + 1, nn = (ni + 1) * (nj + 1);
  double *in = malloc(sizeof(double) * 2 * (size_t)nx), *out = malloc(sizeof(double) * 2 * (size_t)nx);
  double *nrm = malloc(sizeof(double) * 2 * (size_t)nx), te, q, qj;
  if (!in || !out || !nrm) die("out of memory%s", "");
  /* the airfoil: cosine clustering, lower surface TE -> LE, upper LE -> TE */
  for (int m = 0; m <= na; ++m) {
    double s = (double)m / na, x = 0.5 * (1.0 + cos(2.0 * pi * s));
    if (m == 0 || m == na) x = 1.0;
    if (2 * m == na) x = 0.0;
    in[2 * (nw + m)] = x;
    in[2 * (nw + m) + 1] = (2 * m < na ? -1.0 : 1.0) * naca0012_y(x);
    out[2 * (nw + m)] = 1.0 + radius * cos(-0.5 * pi - pi * s);
    out[2 * (nw + m) + 1] = radius * sin(-0.5 * pi - pi * s);
  }
  out[2 * nw] = 1.0, out[2 * nw + 1] = -radius;
  out[2 * (nw + na)] = 1.0, out[2 * (nw + na) + 1] = radius;
  out[2 * (nw + na / 2) + 1] = 0.0;
  /* the wakes: geometric from the trailing edge's spacing to x = 1 + radius */
  te = 1.0 - in[2 * (nw + 1)];
  q = geometric_ratio(te, nw, radius);
  for (int m = 0; m <= nw; ++m) {
    double x = 1.0, t = te;
    for (int r = 0; r < m; ++r, t *= q) x += t;
    if (m == nw) x = 1.0 + radius;
    in[2 * (nw - m)] = out[2 * (nw - m)] = x;
    in[2 * (nw + na + m)] = out[2 * (nw + na + m)] = x;
    in[2 * (nw - m) + 1] = in[2 * (nw + na + m) + 1] = 0.0;
    out[2 * (nw - m) + 1] = -radius;
    out[2 * (nw + na + m) + 1] = radius;
  }
  /* the wall's normals (-t_y, t_x) of the tangent along i */
  for (int i = 0; i <= ni; ++i) {
    int a = i > 0 ? i - 1 : i, b = i < ni ? i + 1 : i;
    double tx = in[2 * b] - in[2 * a], ty = in[2 * b + 1] - in[2 * a + 1], l = sqrt(tx * tx + ty * ty);
    nrm[2 * i] = -ty / l;
    nrm[2 * i + 1] = tx / l;
  }
  /* outwards: distances geometric from first over the radius, each line
   * leaving the wall along its normal and turning, within 5 first spacings,
   * onto the straight line to its outer node (lines along the normals
   * alone would cross within a hundredth of the chord of the trailing
   * edge, where the wake meets the surface at the wedge's half-angle) */
  qj = geometric_ratio(first, nj, radius);
  for (int i = 0; i <= ni; ++i) cgrid_line(i, nj, nx, nn, radius, first, 5.0, qj, in, out, nrm, x2);
  /* the lines about the trailing edge leave along normals that differ by
   * half the edge's angle and more; where the airfoil's spacing there has
   * shrunk below the sideways drift of their turn (a fine level: 3.8e-5
   * chords against a first spacing of 5e-4), neighbours cross. Only then
   * the 8 lines each side of either edge turn within a half, a quarter, ...
   * of the 5 first spacings, the first fraction that unfolds the grid: a
   * grid that does not fold keeps its nodes. */
  for (int k = 1; cgrid_folded(nw, nw + na, nj, nx, nn, x2); ++k) {
    const int te[2] = {nw, nw + na};
    char why[200];
    if (k > 4) {
      snprintf(why, sizeof why, "%d cells round the airfoil, first spacing %g", na, first);
      die("the C-grid folds at its trailing edge (%s): use a larger --first", why);
    }
    for (int c = 0; c < 2; ++c)
      for (int i = imax(te[c] - TE_LINES, 0); i <= imin(te[c] + TE_LINES, ni); ++i)
        cgrid_line(i, nj, nx, nn, radius, first, 5.0 / (1 << k), qj, in, out, nrm, x2);
    if (!cgrid_folded(nw, nw + na, nj, nx, nn, x2))
      printf("make_grid: the lines about the trailing edge turn within %g first spacings (5 fold the grid)\n",
             5.0 / (1 << k));
  }
  /* the cut: the lower and upper wakes' nodes on the wake line, bit for bit */
  for (int m = 0; m <= nw; ++m) {
    x2[nw + na + m] = x2[nw - m];
    x2[nn + nw + na + m] = x2[nn + nw - m];
  }
  free(in);
  free(out);
  free(nrm);
}

int main(int argc, char **argv)
{
  const char *shape = argc > 1 ? argv[1] : NULL, *out = NULL;
  p3d_write_options o = {P3D_FORTRAN, 8, 0, 4, 0, 1, 2, 1, 0};
  int ni = 0, nj = 0, nk = 4, ni_run = 16, ni_plate = 48, dims = 2, flip = -1, n_given[3] = {0, 0, 0};
  int nsplit[3] = {0, 0, 0}, split[3][8], turn = 0;
  int na = 128, nw = 32;
  double first = 2e-3;
  double length = -1, height = -1, run_up = 0.5, beta_x = 2.0, beta_y = -1, diameter = 1.0, farfield = 50.0, span = 1.0;
  int64_t n[3];
  double *xyz, *x2;
  char msg[600];

  if (!shape || (strcmp(shape, "plate") && strcmp(shape, "channel") && strcmp(shape, "cylinder") && strcmp(shape, "box") &&
                 strcmp(shape, "naca0012")))
    die("the first argument is the shape: plate, channel, cylinder, box or naca0012%s", "");
  for (int a = 2; a < argc; ++a) {
    const char *k = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
    int takes = 1;
    if (!strcmp(k, "-o")) out = v;
    else if (!strcmp(k, "--ni")) ni = count(k, v, 1, 100000), n_given[0] = 1;
    else if (!strcmp(k, "--nj")) nj = count(k, v, 1, 100000), n_given[1] = 1;
    else if (!strcmp(k, "--nk")) nk = count(k, v, 1, 100000), n_given[2] = 1;
    else if (!strcmp(k, "--ni-run")) ni_run = count(k, v, 1, 100000);
    else if (!strcmp(k, "--ni-plate")) ni_plate = count(k, v, 1, 100000);
    else if (!strcmp(k, "--length")) length = number(k, v, 1e-6, 1e6);
    else if (!strcmp(k, "--height")) height = number(k, v, 1e-6, 1e6);
    else if (!strcmp(k, "--run-up")) run_up = number(k, v, 1e-6, 1e6);
    else if (!strcmp(k, "--beta-x")) beta_x = number(k, v, 0, 20);
    else if (!strcmp(k, "--beta-y")) beta_y = number(k, v, 0, 20);
    else if (!strcmp(k, "--diameter")) diameter = number(k, v, 1e-6, 1e6);
    else if (!strcmp(k, "--farfield")) farfield = number(k, v, 1, 1e6);
    else if (!strcmp(k, "--span")) span = number(k, v, 1e-9, 1e9);
    else if (!strcmp(k, "--dims")) dims = count(k, v, 2, 3);
    else if (!strcmp(k, "--markers")) o.marker_bytes = count(k, v, 4, 8);
    else if (!strcmp(k, "--subrecord")) o.max_subrecord = count(k, v, 1, 2147483639);
    else if (!strcmp(k, "--blocks")) o.nblocks = count(k, v, 1, 64);
    else if (!strcmp(k, "--iblank")) o.iblank = 1, takes = 0;
    else if (!strcmp(k, "--split")) nsplit[0] = split_list(k, v, split[0]);
    else if (!strcmp(k, "--split-j")) nsplit[1] = split_list(k, v, split[1]);
    else if (!strcmp(k, "--split-k")) nsplit[2] = split_list(k, v, split[2]);
    else if (!strcmp(k, "--turn")) turn = 1, takes = 0;
    else if (!strcmp(k, "--na")) na = count(k, v, 4, 100000);
    else if (!strcmp(k, "--nw")) nw = count(k, v, 1, 100000);
    else if (!strcmp(k, "--first")) first = number(k, v, 1e-9, 1);
    else if (!strcmp(k, "--format")) {
      if (v && !strcmp(v, "text")) o.encoding = P3D_TEXT;
      else if (v && !strcmp(v, "unformatted")) o.encoding = P3D_FORTRAN;
      else if (v && !strcmp(v, "raw")) o.encoding = P3D_RAW;
      else die("--format needs text, unformatted or raw%s", "");
    } else if (!strcmp(k, "--precision")) {
      if (v && !strcmp(v, "single")) o.real_bytes = 4;
      else if (v && !strcmp(v, "double")) o.real_bytes = 8;
      else die("--precision needs single or double%s", "");
    } else if (!strcmp(k, "--endian")) {
      if (v && !strcmp(v, "little")) o.big_endian = 0;
      else if (v && !strcmp(v, "big")) o.big_endian = 1;
      else die("--endian needs little or big%s", "");
    } else if (!strcmp(k, "--count")) {
      if (v && !strcmp(v, "yes")) o.with_count = 1;
      else if (v && !strcmp(v, "no")) o.with_count = 0;
      else die("--count needs yes or no%s", "");
    } else if (!strcmp(k, "--flip")) {
      if (v && strlen(v) == 1 && strchr("ijk", v[0])) flip = v[0] - 'i';
      else die("--flip needs i, j or k%s", "");
    } else die("unknown option \"%s\"", k);
    a += takes;
  }
  if (!out) die("no output file (-o FILE)%s", "");
  if (o.marker_bytes != 4 && o.marker_bytes != 8) die("--markers needs 4 or 8%s", "");
  if (!o.with_count && o.nblocks > 1) die("--blocks needs the block count (--count yes)%s", "");
  if (!strcmp(shape, "box")) dims = 3;
  else if (n_given[2]) die("--nk is for the box only (a 2D shape is one cell thick)%s", "");

  /* the 2D node arrays x2[c][i + (ni+1) j] of the 2D shapes */
  if (!strcmp(shape, "plate")) {
    double *xs, q, dx0;
    if (n_given[0]) die("the plate takes --ni-run and --ni-plate, not --ni%s", "");
    if (!n_given[1]) nj = 32;
    if (length < 0) length = 1.0;
    if (height < 0) height = 0.5;
    if (beta_y < 0) beta_y = 3.0;
    ni = ni_run + ni_plate;
    xs = malloc(sizeof(double) * (size_t)(ni + 1));
    if (!xs) die("out of memory%s", "");
    for (int i = 0; i <= ni_plate; ++i) xs[ni_run + i] = length * one_sided((double)i / ni_plate, beta_x);
    xs[ni_run] = 0.0;
    xs[ni] = length;
    dx0 = xs[ni_run + 1];
    q = geometric_ratio(dx0, ni_run, run_up);
    for (int m = 1; m <= ni_run; ++m) {
      double sum = 0.0, s = dx0;
      for (int r = 0; r < m; ++r, s *= q) sum += s;
      xs[ni_run - m] = -sum;
    }
    xs[0] = -run_up;
    x2 = malloc(sizeof(double) * 2 * (size_t)((ni + 1) * (nj + 1)));
    if (!x2) die("out of memory%s", "");
    for (int j = 0; j <= nj; ++j)
      for (int i = 0; i <= ni; ++i) {
        x2[i + (ni + 1) * j] = xs[i];
        x2[(ni + 1) * (nj + 1) + i + (ni + 1) * j] = j == nj ? height : height * one_sided((double)j / nj, beta_y);
      }
    free(xs);
    printf("make_grid: flat plate, leading edge at node i = %d (x = 0), run-up ratio %.4f, first spacings dx %.3e, "
           "dy %.3e\n",
           ni_run + 1, q, dx0, x2[(ni + 1) * (nj + 1) + (ni + 1)]);
  } else if (!strcmp(shape, "channel")) {
    if (!n_given[0]) ni = 64;
    if (!n_given[1]) nj = 32;
    if (length < 0) length = 10.0;
    if (height < 0) height = 1.0;
    if (beta_y < 0) beta_y = 1.5;
    x2 = malloc(sizeof(double) * 2 * (size_t)((ni + 1) * (nj + 1)));
    if (!x2) die("out of memory%s", "");
    for (int j = 0; j <= nj; ++j)
      for (int i = 0; i <= ni; ++i) {
        x2[i + (ni + 1) * j] = i == ni ? length : length * (double)i / ni;
        x2[(ni + 1) * (nj + 1) + i + (ni + 1) * j] = j == nj ? height : j == 0 ? 0.0 : height * two_sided((double)j / nj, beta_y);
      }
  } else if (!strcmp(shape, "cylinder")) {
    double r0 = 0.5 * diameter, r1 = farfield * diameter;
    if (!n_given[0]) ni = 64;
    if (!n_given[1]) nj = 48;
    if (r1 <= r0) die("--farfield must put the farfield outside the cylinder (more than 0.5 diameters)%s", "");
    if (ni < 3) die("--ni needs at least 3 cells around the cylinder%s", "");
    x2 = malloc(sizeof(double) * 2 * (size_t)((ni + 1) * (nj + 1)));
    if (!x2) die("out of memory%s", "");
    for (int j = 0; j <= nj; ++j) {
      double r = j == nj ? r1 : r0 * pow(r1 / r0, (double)j / nj);
      for (int i = 0; i < ni; ++i) {
        double t = -2.0 * pi * i / ni;
        x2[i + (ni + 1) * j] = r * cos(t);
        x2[(ni + 1) * (nj + 1) + i + (ni + 1) * j] = r * sin(t);
      }
      /* the cut: node ni is node 0, bit for bit */
      x2[ni + (ni + 1) * j] = x2[(ni + 1) * j];
      x2[(ni + 1) * (nj + 1) + ni + (ni + 1) * j] = x2[(ni + 1) * (nj + 1) + (ni + 1) * j];
    }
    printf("make_grid: cylinder O-grid, farfield at %g diameters, radial ratio %.5f\n", farfield,
           pow(r1 / r0, 1.0 / nj));
  } else if (!strcmp(shape, "naca0012")) {
    if (n_given[0]) die("the C-grid takes --na and --nw, not --ni%s", "");
    if (!n_given[1]) nj = 64;
    if (farfield == 50.0) farfield = 30.0;
    ni = 2 * nw + na;
    x2 = malloc(sizeof(double) * 2 * (size_t)((ni + 1) * (nj + 1)));
    if (!x2) die("out of memory%s", "");
    naca0012_cgrid(na, nw, nj, farfield, first, x2);
    printf("make_grid: NACA 0012 C-grid, the wake meets the airfoil at nodes i = %d and %d (--split %d,%d gives its "
           "3 blocks)\n", nw + 1, nw + na + 1, nw + 1, nw + na + 1);
  } else {
    x2 = NULL;
    if (!n_given[0]) ni = 6;
    if (!n_given[1]) nj = 5;
  }

  /* the file's arrays */
  n[0] = ni + 1;
  n[1] = nj + 1;
  n[2] = dims == 3 ? (strcmp(shape, "box") ? 2 : nk + 1) : 1;
  if ((double)n[0] * n[1] * n[2] > 2e8) die("more than 2e8 nodes%s", "");
  xyz = malloc(sizeof(double) * 3 * (size_t)(n[0] * n[1] * n[2]));
  if (!xyz) die("out of memory%s", "");
  {
    const int64_t nn = n[0] * n[1] * n[2];
    for (int64_t k = 0; k < n[2]; ++k)
      for (int64_t j = 0; j < n[1]; ++j)
        for (int64_t i = 0; i < n[0]; ++i) {
          int64_t src[3] = {i, j, k}, m;
          if (flip >= 0) src[flip] = n[flip] - 1 - src[flip];
          m = i + n[0] * (j + n[1] * k);
          if (x2) {
            xyz[m] = x2[src[0] + n[0] * src[1]];
            xyz[nn + m] = x2[n[0] * n[1] + src[0] + n[0] * src[1]];
            xyz[2 * nn + m] = src[2] == 0 ? 0.0 : span;
          } else {
            double sx = (double)src[0] / ni, sy = (double)src[1] / nj, sz = (double)src[2] / nk;
            double bump = 0.05 * sin(2 * pi * sx) * sin(2 * pi * sy) * sin(2 * pi * sz);
            xyz[m] = 0.1 + 1.0 * (sx + bump);
            xyz[nn + m] = -0.3 + 0.8 * (sy + bump * cos(pi * sx));
            xyz[2 * nn + m] = 0.7 + 0.6 * (sz - bump * cos(pi * sy));
          }
        }
  }
  o.dims = dims;
  if (nsplit[0] + nsplit[1] + nsplit[2] > 0) {
    /* blocks of nodes P_m..P_m+1 in each direction (1, the planes, n), every combination, i fastest;
     * with --turn every second block along i (the second, the fourth, ...) is stored with its
     * directions cycled: the block's i, j, k run along the grid's j, k, i, so that its interfaces
     * along i join faces of different directions (a right-handed block stays right-handed); the
     * grid's imin face stays on blocks in the grid's directions */
    const int64_t nn = n[0] * n[1] * n[2];
    int nbd[3], nb = 1;
    int64_t *nbk;
    double **part;
    if (o.nblocks > 1 || !o.with_count) die("--split needs one block (no --blocks) and the block count (--count yes)%s", "");
    if (turn && dims != 3) die("--turn needs a 3D grid (the box, or --dims 3)%s", "");
    for (int d = 0; d < 3; ++d) {
      for (int m = 0; m < nsplit[d]; ++m)
        if (split[d][m] > n[d] - 1) {
          char why[160];
          snprintf(why, sizeof why, "%s %d: the node planes in %c must lie inside 2..%lld (the grid has %lld nodes there)",
                   d == 0 ? "--split" : d == 1 ? "--split-j" : "--split-k", split[d][m], "ijk"[d], (long long)(n[d] - 1),
                   (long long)n[d]);
          die("%s", why);
        }
      nbd[d] = nsplit[d] + 1;
      nb *= nbd[d];
    }
    nbk = malloc(sizeof(int64_t) * 3 * (size_t)nb);
    part = malloc(sizeof(double *) * (size_t)nb);
    if (!nbk || !part) die("out of memory%s", "");
    for (int b = 0; b < nb; ++b) {
      const int bd[3] = {b % nbd[0], (b / nbd[0]) % nbd[1], b / (nbd[0] * nbd[1])};
      const int turned = turn && bd[0] % 2 == 1;
      int64_t lo[3], cnt[3], np;
      for (int d = 0; d < 3; ++d) {
        lo[d] = bd[d] == 0 ? 0 : split[d][bd[d] - 1] - 1;
        cnt[d] = (bd[d] == nsplit[d] ? n[d] - 1 : split[d][bd[d]] - 1) - lo[d] + 1;
      }
      /* the block's own sizes: turned, its i, j, k are the grid's j, k, i */
      for (int d = 0; d < 3; ++d) nbk[3 * b + d] = turned ? cnt[(d + 1) % 3] : cnt[d];
      np = cnt[0] * cnt[1] * cnt[2];
      part[b] = malloc(sizeof(double) * 3 * (size_t)np);
      if (!part[b]) die("out of memory%s", "");
      for (int c = 0; c < 3; ++c)
        for (int64_t k = 0; k < nbk[3 * b + 2]; ++k)
          for (int64_t j = 0; j < nbk[3 * b + 1]; ++j)
            for (int64_t i = 0; i < nbk[3 * b]; ++i) {
              /* the grid's node of the block's node (i, j, k) */
              const int64_t gi = lo[0] + (turned ? k : i), gj = lo[1] + (turned ? i : j), gk = lo[2] + (turned ? j : k);
              part[b][c * np + i + nbk[3 * b] * (j + nbk[3 * b + 1] * k)] = xyz[c * nn + gi + n[0] * (gj + n[1] * gk)];
            }
    }
    if (p3d_write_blocks(out, &o, nb, nbk, (const double *const *)part, msg, sizeof msg) != 0) {
      fprintf(stderr, "make_grid: %s\n", msg);
      return 5;
    }
    printf("make_grid: wrote %s as %d blocks (nodes:", shape, nb);
    for (int b = 0; b < nb; ++b)
      printf(" %lldx%lldx%lld", (long long)nbk[3 * b], (long long)nbk[3 * b + 1], (long long)nbk[3 * b + 2]);
    printf("%s), to %s\n", turn ? "; turned blocks' i, j, k along the grid's j, k, i" : "", out);
    for (int b = 0; b < nb; ++b) free(part[b]);
    free(part);
    free(nbk);
    free(xyz);
    free(x2);
    return 0;
  }
  if (p3d_write(out, &o, n, xyz, msg, sizeof msg) != 0) {
    fprintf(stderr, "make_grid: %s\n", msg);
    return 5;
  }
  if (dims == 3)
    printf("make_grid: wrote %s, %lld x %lld x %lld nodes (3D), to %s\n", shape, (long long)n[0], (long long)n[1],
           (long long)n[2], out);
  else
    printf("make_grid: wrote %s, %lld x %lld nodes (2D), to %s\n", shape, (long long)n[0], (long long)n[1], out);
  free(xyz);
  free(x2);
  return 0;
}
