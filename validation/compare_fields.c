/* compare_fields: compare two adiflow field dumps (include/field_format.h),
 * e.g. the CPU reference and the GPU backend after the same iterations.
 *
 *   compare_fields A.dump B.dump [--tol X] [--pointwise] [--quiet] [--accept-old-restart] [--at I,J,K [--turned]]
 *   compare_fields --info A.dump [--accept-old-restart]
 *
 * --at I,J,K: B is a part of A's grid, its first cell A's cell (I,J,K)
 * (1-based): a block of a multi-block run (restart.bNNNNN.itM.bin) against
 * the same cells of a one-block run of the whole grid. B is compared with
 * those cells of A; places are given in A's indices. --turned: B's i, j, k
 * run along A's j, k, i (a block make_grid --turn stored with its
 * directions cycled): B's cell (i, j, k) is A's (I + k - 1, J + i - 1,
 * K + j - 1).
 *
 * Both files are checked first by the solver's own reader
 * (fortran/field_file.c): regular file, every header field, size, the
 * header's CRC-64; the two grids are compared before any data is read (a
 * huge file of another grid is refused at once); then each file whole (the
 * CRC-64 over the file, every value finite). Format-1 files (no header
 * checksum) only with --accept-old-restart. Then, per variable (rho, rho*u,
 * rho*v, rho*w, E), it prints the largest absolute difference and where it
 * is (i,j,k), the largest difference relative to the variable's largest
 * magnitude max|a-b|/max|a|,
 * and the largest pointwise relative difference |a-b|/max(|a|,|b|) with its
 * place, plus how many values differ in their bits. For the three momenta
 * max|a| is the largest magnitude of any of them, the momentum's scale: a
 * component that is zero in exact arithmetic (rho*w of a quasi-2D case)
 * holds round-off only, and its own maximum would compare round-off with
 * round-off.
 *
 * --tol X (default 0): with X = 0 the files must be bit-identical (every
 * value the same bits); with X > 0 every variable's max|a-b|/max|a| must be
 * <= X (with --pointwise: every value's |a-b|/max(|a|,|b|) <= X).
 * Exit status: 0 within tolerance, 1 above it, 2 unreadable or unmatched
 * files / bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "field_format.h"

static const char *var_names[5] = {"rho", "rho*u", "rho*v", "rho*w", "E"};

static void usage(void)
{
  fprintf(stderr, "usage: compare_fields A.dump B.dump [--tol X] [--pointwise] [--quiet] [--accept-old-restart] "
                  "[--at I,J,K [--turned]]\n"
                  "       compare_fields --info A.dump   (header and the checksum of the data blocks)\n"
                  "  --accept-old-restart  read format-1 files too (nothing protects their header)\n"
                  "  --tol X      X = 0 (default): bit-identical; X > 0: per variable\n"
                  "               max|a-b| / max|a| <= X (momenta: max|a| of all three)\n"
                  "  --pointwise  apply X to |a-b| / max(|a|,|b|) of every value instead\n"
                  "  --at I,J,K   B is a part of A from A's cell (I,J,K); --turned: B's i, j, k along A's j, k, i\n"
                  "  exit 0 within tolerance, 1 above it, 2 bad files or usage\n");
}

/* format 2 is read always (its header is under its checksum), format 1 on request */
static int read_flags = ADI_DUMP_ACCEPT_V2;

/* The shared reader (fortran/field_file.c): the header (fields, size, its
 * CRC), without the data. */
static int open_header(adi_dump_reader *d, const char *path)
{
  char msg[1024];
  if (adi_dump_open_header(d, path, read_flags, NULL, msg, sizeof msg) != 0) {
    fprintf(stderr, "compare_fields: %s\n", msg);
    return 2;
  }
  return 0;
}

/* then the data, once: the checksum over the whole file, every value finite */
static int verify(adi_dump_reader *d)
{
  char msg[1024];
  if (adi_dump_verify(d, msg, sizeof msg) != 0) {
    fprintf(stderr, "compare_fields: %s\n", msg);
    return 2;
  }
  return 0;
}

static int open_dump(adi_dump_reader *d, const char *path)
{
  int rc = open_header(d, path);
  return rc ? rc : verify(d);
}

static int read_block(adi_dump_reader *d, const char *path, double *buf)
{
  char msg[1024];
  if (adi_dump_read(d, buf, d->ncell, msg, sizeof msg) != 0) {
    fprintf(stderr, "compare_fields: %s: %s\n", path, msg);
    return 2;
  }
  return 0;
}

/* A's cell index of B's cell p, B's first cell at A's cell at (1-based) */
/* A's cell (0-based, in A's i, j, k) of B's cell p: B from A's cell at (1-based), turned: B's i, j, k
 * along A's j, k, i */
static void a_cell(const adi_dump_reader *b, const int at[3], int turned, size_t p, size_t c[3])
{
  size_t i = p%(size_t)b->h.ni, j = (p/(size_t)b->h.ni)%(size_t)b->h.nj, k = p/((size_t)b->h.ni*(size_t)b->h.nj);
  c[0] = (turned ? k : i) + (size_t)at[0] - 1;
  c[1] = (turned ? i : j) + (size_t)at[1] - 1;
  c[2] = (turned ? j : k) + (size_t)at[2] - 1;
}

static size_t inside(const adi_dump_reader *a, const adi_dump_reader *b, const int at[3], int turned, size_t p)
{
  size_t c[3];
  a_cell(b, at, turned, p, c);
  return c[0] + (size_t)a->h.ni*(c[1] + (size_t)a->h.nj*c[2]);
}

typedef struct stats {
  double max_abs, max_ref, max_rel;
  size_t at_abs, at_rel, ndiff;
  int nonfinite;
} stats;

static void where(const adi_dump_reader *d, size_t p, int *i, int *j, int *k)
{
  *i = (int)(p%(size_t)d->h.ni) + 1;
  p /= (size_t)d->h.ni;
  *j = (int)(p%(size_t)d->h.nj) + 1;
  *k = (int)(p/(size_t)d->h.nj) + 1;
}

/* --info: the header, and the Fletcher-64 of the data blocks alone, which is
 * the checksum format-1 files stored: a state can be compared with figures
 * recorded under formats 1 and 2 (the file's own checksum is now a CRC-64
 * over header and data, and the header changed). */
static int info(const char *path)
{
  adi_dump_reader d;
  uint64_t state[2] = {0, 0};
  double *buf;
  int m, rc;
  if ((rc = open_dump(&d, path)) != 0) return rc;
  buf = malloc(d.ncell*sizeof(double));
  if (!buf) {
    fprintf(stderr, "compare_fields: out of memory for %zu values\n", d.ncell);
    return 2;
  }
  for (m = 0; m < 5; ++m) {
    if ((rc = read_block(&d, path, buf)) != 0) return rc;
    adi_fletcher64_update(state, buf, d.ncell*sizeof(double));
  }
  printf("%s: format %d, grid %d x %d x %d, iteration %lld\n", path, (int)d.h.version, (int)d.h.ni, (int)d.h.nj,
         (int)d.h.nk, (long long)d.h.iteration);
  if (d.h.place.npj*d.h.place.npk > 1)
    printf("block of rank %d of npj x npk = %d x %d, global grid %d x %d x %d, first cell (%d,%d,%d)\n",
           (int)d.h.place.rank, (int)d.h.place.npj, (int)d.h.place.npk, (int)d.h.place.gn[0], (int)d.h.place.gn[1],
           (int)d.h.place.gn[2], (int)d.h.place.off[0] + 1, (int)d.h.place.off[1] + 1, (int)d.h.place.off[2] + 1);
  printf("data checksum (Fletcher-64 of the data blocks): %016llx\n", (unsigned long long)adi_fletcher64_final(state));
  free(buf);
  adi_dump_close(&d);
  return 0;
}

int main(int argc, char **argv)
{
  adi_dump_reader a, b;
  stats s[5];
  double tol = 0.0, mom_ref, *va = NULL, *vb = NULL;
  const char *pa = NULL, *pb = NULL;
  int pointwise = 0, quiet = 0, ai, m, rc, fail = 0, at[3] = {0, 0, 0}, part = 0, turned = 0;
  size_t p;

  for (ai = 1; ai < argc; ++ai)
    if (strcmp(argv[ai], "--accept-old-restart") == 0) read_flags |= ADI_DUMP_ACCEPT_V1;
  if (argc >= 3 && strcmp(argv[1], "--info") == 0 &&
      (argc == 3 || (argc == 4 && strcmp(argv[3], "--accept-old-restart") == 0)))
    return info(argv[2]);
  for (ai = 1; ai < argc; ++ai) {
    if (strcmp(argv[ai], "--tol") == 0 && ai + 1 < argc) {
      char *end;
      tol = strtod(argv[++ai], &end);
      if (*end != '\0' || !(tol >= 0.0)) {
        fprintf(stderr, "compare_fields: --tol needs a number >= 0, got \"%s\"\n", argv[ai]);
        return 2;
      }
    } else if (strcmp(argv[ai], "--at") == 0 && ai + 1 < argc) {
      char tail;
      if (sscanf(argv[++ai], "%d,%d,%d%c", &at[0], &at[1], &at[2], &tail) != 3 || at[0] < 1 || at[1] < 1 || at[2] < 1) {
        fprintf(stderr, "compare_fields: --at needs the first cell as I,J,K (each >= 1), got \"%s\"\n", argv[ai]);
        return 2;
      }
      part = 1;
    } else if (strcmp(argv[ai], "--turned") == 0) {
      turned = 1;
    } else if (strcmp(argv[ai], "--pointwise") == 0) {
      pointwise = 1;
    } else if (strcmp(argv[ai], "--quiet") == 0) {
      quiet = 1;
    } else if (strcmp(argv[ai], "--accept-old-restart") == 0) {
      /* taken above */
    } else if (strcmp(argv[ai], "-h") == 0 || strcmp(argv[ai], "--help") == 0) {
      usage();
      return 0;
    } else if (argv[ai][0] == '-' && argv[ai][1] == '-') {
      fprintf(stderr, "compare_fields: unknown option \"%s\"\n", argv[ai]);
      usage();
      return 2;
    } else if (!pa) {
      pa = argv[ai];
    } else if (!pb) {
      pb = argv[ai];
    } else {
      usage();
      return 2;
    }
  }
  if (!pa || !pb) {
    usage();
    return 2;
  }
  /* both headers, and the grids compared, before either file's data is read */
  if ((rc = open_header(&a, pa)) != 0) return rc;
  if ((rc = open_header(&b, pb)) != 0) return rc;
  if (turned && !part) {
    fprintf(stderr, "compare_fields: --turned needs --at I,J,K (B a turned part of A)\n");
    return 2;
  }
  if (part) {
    /* B's extent along A's i, j, k */
    const int ext[3] = {(int)(turned ? b.h.nk : b.h.ni), (int)(turned ? b.h.ni : b.h.nj), (int)(turned ? b.h.nj : b.h.nk)};
    if (at[0] - 1 + ext[0] > a.h.ni || at[1] - 1 + ext[1] > a.h.nj || at[2] - 1 + ext[2] > a.h.nk) {
      fprintf(stderr, "compare_fields: %s (%d x %d x %d cells) from cell (%d,%d,%d) does not fit inside %s (%d x %d x "
              "%d)\n", pb, (int)b.h.ni, (int)b.h.nj, (int)b.h.nk, at[0], at[1], at[2], pa, (int)a.h.ni, (int)a.h.nj,
              (int)a.h.nk);
      return 2;
    }
  } else if (a.h.ni != b.h.ni || a.h.nj != b.h.nj || a.h.nk != b.h.nk) {
    fprintf(stderr, "compare_fields: the grids differ: %s is %d x %d x %d, %s is %d x %d x %d\n", pa,
            (int)a.h.ni, (int)a.h.nj, (int)a.h.nk, pb, (int)b.h.ni, (int)b.h.nj, (int)b.h.nk);
    return 2;
  }
  if ((rc = verify(&a)) != 0 || (rc = verify(&b)) != 0) return rc;
  va = malloc(a.ncell*sizeof(double));
  vb = malloc(b.ncell*sizeof(double));
  if (!va || !vb) {
    fprintf(stderr, "compare_fields: out of memory for %zu + %zu values\n", a.ncell, b.ncell);
    return 2;
  }

  memset(s, 0, sizeof s);
  for (m = 0; m < 5; ++m) {
    if ((rc = read_block(&a, pa, va)) != 0 || (rc = read_block(&b, pb, vb)) != 0) return rc;
    for (p = 0; p < b.ncell; ++p) {
      double x = va[part ? inside(&a, &b, at, turned, p) : p], y = vb[p], dxy, mag, rel;
      if (memcmp(&x, &y, sizeof x) == 0) {
        mag = fabs(x);
        if (mag > s[m].max_ref) s[m].max_ref = mag;
        continue;
      }
      s[m].ndiff++;
      /* the reader refuses NaN and Inf; kept so that a comparison never
       * calls a non-finite value equal or small */
      if (!isfinite(x) || !isfinite(y)) {
        if (!s[m].nonfinite) s[m].at_abs = s[m].at_rel = p;
        s[m].nonfinite = 1;
        s[m].max_abs = s[m].max_rel = INFINITY;
        continue;
      }
      dxy = fabs(x - y);
      mag = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
      rel = mag > 0.0 ? dxy/mag : 0.0;
      if (fabs(x) > s[m].max_ref) s[m].max_ref = fabs(x);
      if (dxy > s[m].max_abs) { s[m].max_abs = dxy; s[m].at_abs = p; }
      if (rel > s[m].max_rel) { s[m].max_rel = rel; s[m].at_rel = p; }
    }
  }
  adi_dump_close(&a);
  adi_dump_close(&b);

  if (!quiet) {
    if (part)
      printf("compare_fields: %s (iteration %lld) from cell (%d,%d,%d) vs %s (iteration %lld), %d x %d x %d cells\n",
             pa, (long long)a.h.iteration, at[0], at[1], at[2], pb, (long long)b.h.iteration, (int)b.h.ni,
             (int)b.h.nj, (int)b.h.nk);
    else
      printf("compare_fields: %s (iteration %lld) vs %s (iteration %lld), grid %d x %d x %d\n", pa,
             (long long)a.h.iteration, pb, (long long)b.h.iteration, (int)a.h.ni, (int)a.h.nj, (int)a.h.nk);
    if (a.h.iteration != b.h.iteration) printf("  note: the dumps belong to different iterations\n");
    printf("  %-6s %12s %-16s %15s %15s %-16s %10s\n", "var", "max|a-b|", " at (i,j,k)", "max|a-b|/max|a|",
           "max pointwise", " at (i,j,k)", "differing");
  }
  /* the momenta's common scale, see the header */
  mom_ref = fmax(s[1].max_ref, fmax(s[2].max_ref, s[3].max_ref));
  for (m = 0; m < 5; ++m) {
    double ref = (m >= 1 && m <= 3) ? mom_ref : s[m].max_ref;
    double field_rel = ref > 0.0 ? s[m].max_abs/ref : (s[m].max_abs > 0.0 ? INFINITY : 0.0);
    char loc_abs[40] = " -", loc_rel[40] = " -";
    int i, j, k, bad;
    if (s[m].ndiff > 0) {
      /* B's cell p; with --at in A's indices */
      if (part) {
        size_t c[3];
        a_cell(&b, at, turned, s[m].at_abs, c);
        snprintf(loc_abs, sizeof loc_abs, " (%d,%d,%d)", (int)c[0] + 1, (int)c[1] + 1, (int)c[2] + 1);
        a_cell(&b, at, turned, s[m].at_rel, c);
        snprintf(loc_rel, sizeof loc_rel, " (%d,%d,%d)", (int)c[0] + 1, (int)c[1] + 1, (int)c[2] + 1);
      } else {
        where(&b, s[m].at_abs, &i, &j, &k);
        snprintf(loc_abs, sizeof loc_abs, " (%d,%d,%d)", i, j, k);
        where(&b, s[m].at_rel, &i, &j, &k);
        snprintf(loc_rel, sizeof loc_rel, " (%d,%d,%d)", i, j, k);
      }
    }
    if (tol == 0.0)
      bad = s[m].ndiff > 0;
    else
      bad = s[m].nonfinite || (pointwise ? s[m].max_rel > tol : field_rel > tol);
    fail |= bad;
    if (!quiet)
      printf("  %-6s %12.3e %-16s %15.3e %15.3e %-16s %10zu%s\n", var_names[m], s[m].max_abs, loc_abs, field_rel,
             s[m].max_rel, loc_rel, s[m].ndiff, bad ? "  ABOVE TOLERANCE" : "");
  }
  if (tol == 0.0)
    printf("%s: %s\n", fail ? "DIFFERENT" : "IDENTICAL",
           fail ? "some values differ in their bits (tolerance 0 = bit-identical)" : "every value has the same bits");
  else
    printf("%s: %s %s %.3e\n", fail ? "ABOVE TOLERANCE" : "WITHIN TOLERANCE",
           pointwise ? "pointwise |a-b|/max(|a|,|b|)" : "per-variable max|a-b|/max|a|", fail ? ">" : "<=", tol);
  free(va);
  free(vb);
  return fail ? 1 : 0;
}
