/* See plot3d_file.h.
 *
 * Why C and not Fortran stream I/O: the reader must decide what a file is
 * from its bytes before it trusts any of them (record markers of either
 * width in either byte order, header integers against the file's length,
 * text or not), and must survive every damaged file with a sentence rather
 * than a runtime error; byte swapping, 8-byte markers, subrecords and
 * pread-based probing are plain C, and the project's safe opening of input
 * files (a regular file, never blocking on a FIFO) is C already
 * (safe_file.c, as field_file.c and case_scan.c use it). fortran/grid_file.f90
 * is the thin Fortran side.
 *
 * What is tried, in order:
 *   1. text (the first 4 KiB printable ASCII): formatted, read as numbers;
 *   2. Fortran unformatted: the whole file is a chain of records whose start
 *      and end markers agree (4-byte, then 8-byte markers; each byte order);
 *   3. raw binary: every reading of the header (byte order, block count or
 *      not, 2D or 3D) whose sizes give exactly the file's length in single
 *      or double precision, with or without IBLANK;
 * and when nothing fits, the nearest reading says why (a truncated record,
 * extra bytes, sizes that match neither precision). */
#define _POSIX_C_SOURCE 200809L
#include "plot3d_file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_file.h"
#include "safe_file.h"

enum {
  HEAD_BYTES = 4096,            /* what the text test looks at */
  MAX_SEGMENTS = 1 << 20,       /* a grid file has a handful of records */
  MAX_BLOCKS = 100000,          /* beyond, a "block count" is not one */
  MAX_HEADER_TOKENS = 1 + 3 * 4096,
  TOKEN_CHARS = 80,
  CHUNK_BYTES = 1 << 20         /* a multiple of 8 */
};
static const double COORD_LIMIT = 1e100;

typedef struct segment {
  int64_t off, len;
} segment;

typedef struct source {
  const char *path;
  int fd;
  int64_t size;
  char *msg;
  size_t msglen;
} source;

/* A Fortran record: its subrecords' data are seg[seg0 .. seg0+nseg-1]. */
typedef struct record {
  int64_t len;
  size_t seg0, nseg;
} record;

typedef struct chain {
  record *rec;
  size_t nrec, caprec;
  segment *seg;
  size_t nseg, capseg;
  int64_t end;      /* the byte after the last complete record */
  char why[400];    /* where the chain broke */
} chain;

/* What the probe found, and where block 1's coordinates are. */
typedef struct found {
  adi_p3d_layout lay;
  segment *seg;         /* binary: block 1's coordinate bytes, in order */
  size_t nseg;
  int64_t skip_values;  /* text: values before block 1's coordinates */
  chain ch;             /* Fortran: the records (seg points into it) */
  segment raw_seg;
  int multi;            /* the caller reads multi-block files (adi_p3d_probe_blocks) */
  int64_t nb;           /* blocks in the file */
  int64_t *bn;          /* their sizes, 3 a block (n[2] = 1 in 2D) */
  int64_t *start;       /* value index where block b's coordinates start; start[nb]: all */
} found;

/* ---------------------------------------------------------------- basics */

static int fail(source *s, int code, const char *fmt, ...)
{
  char why[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  snprintf(s->msg, s->msglen, "grid file \"%s\"%s", s->path, why);
  return code;
}

static int read_at(const source *s, void *buf, size_t n, int64_t off)
{
  unsigned char *p = buf;
  while (n > 0) {
    ssize_t got = pread(s->fd, p, n, (off_t)off);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return -1;
    p += got;
    n -= (size_t)got;
    off += got;
  }
  return 0;
}

static uint64_t load_u(const unsigned char *b, int nbytes, int big)
{
  uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) v |= (uint64_t)b[big ? nbytes - 1 - i : i] << (8 * i);
  return v;
}

static int64_t load_int(const unsigned char *b, int nbytes, int big)
{
  uint64_t u = load_u(b, nbytes, big);
  if (nbytes == 4) return (int64_t)(int32_t)(uint32_t)u;
  return (int64_t)u;
}

static double load_real(const unsigned char *b, int nbytes, int big)
{
  uint64_t u = load_u(b, nbytes, big);
  if (nbytes == 4) {
    uint32_t w = (uint32_t)u;
    float f;
    memcpy(&f, &w, 4);
    return (double)f;
  }
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* "17 x 9 x 2" or "17 x 9" */
static const char *sizes_text(const int64_t *n, int dims, char *buf, size_t len)
{
  if (dims == 3)
    snprintf(buf, len, "%lld x %lld x %lld", (long long)n[0], (long long)n[1], (long long)n[2]);
  else
    snprintf(buf, len, "%lld x %lld", (long long)n[0], (long long)n[1]);
  return buf;
}

/* The product of the sizes, or -1 when a size is below 1 or the product
 * exceeds limit (no grid larger than its file). */
static int64_t node_count(const int64_t *n, int dims, int64_t limit)
{
  int64_t p = 1;
  for (int d = 0; d < dims; ++d) {
    if (n[d] < 1 || n[d] > limit || p > limit / n[d]) return -1;
    p *= n[d];
  }
  return p;
}

static const char *value_name(int c) { return c == 0 ? "x" : c == 1 ? "y" : "z"; }

/* The block (0-based) whose coordinates hold value idx of the file's
 * coordinates, all blocks in order: binary search of the block starts. */
static int64_t block_of(const found *f, int64_t idx)
{
  int64_t lo = 0, hi = f->nb - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) / 2;
    if (f->start[mid] <= idx) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* A coordinate a grid can have: finite and at most 1e100 in magnitude. */
static int check_value(source *s, const found *f, int64_t idx, double v)
{
  int64_t b = block_of(f, idx), loc = idx - f->start[b];
  const int64_t *bn = &f->bn[3 * b];
  int64_t n = bn[0] * bn[1] * bn[2], m = loc % n;
  long long i = m % bn[0] + 1, j = (m / bn[0]) % bn[1] + 1, k = m / (bn[0] * bn[1]) + 1;
  int c = (int)(loc / n);
  if (isnan(v) || isinf(v))
    return fail(s, EINVAL, ", block %lld: node i,j,k = %lld,%lld,%lld: %s = %s is not a finite number", (long long)b + 1,
                i, j, k, value_name(c), isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf"));
  if (fabs(v) > COORD_LIMIT)
    return fail(s, EINVAL,
                ", block %lld: node i,j,k = %lld,%lld,%lld: %s = %.6g is beyond 1e100 in magnitude, which no grid "
                "coordinate is (a file in another precision or byte order than its sizes suggest?)",
                (long long)b + 1, i, j, k, value_name(c), v);
  return 0;
}

/* The block table of f from the sizes of its nb blocks (hn: dims a block,
 * already checked by the caller to be sizes of a grid). */
static int set_blocks(source *s, found *f, int64_t nb, int dims, const int64_t *hn)
{
  f->bn = malloc((size_t)(3 * nb) * sizeof *f->bn);
  f->start = malloc((size_t)(nb + 1) * sizeof *f->start);
  if (!f->bn || !f->start) return fail(s, ENOMEM, ": out of memory for the sizes of its %lld blocks", (long long)nb);
  f->nb = nb;
  f->start[0] = 0;
  for (int64_t q = 0; q < nb; ++q) {
    for (int d = 0; d < 3; ++d) f->bn[3 * q + d] = d < dims ? hn[dims * q + d] : 1;
    f->start[q + 1] = f->start[q] + dims * f->bn[3 * q] * f->bn[3 * q + 1] * f->bn[3 * q + 2];
  }
  return 0;
}

/* The sizes of block q (0-based) as a grid takes them, or -1 (the message
 * names the block). */
static int64_t block_nodes(source *s, const int64_t *n3, int dims, int64_t q, int64_t limit)
{
  char sz[80];
  int64_t nn = node_count(n3, dims, limit);
  if (nn < 0 || n3[0] < 2 || n3[1] < 2) {
    fail(s, EINVAL, ", block %lld: the sizes %s are not those of a grid (at least 2 nodes in i and j, 1 in k)",
         (long long)q + 1, sizes_text(n3, dims, sz, sizeof sz));
    return -1;
  }
  return nn;
}

static int open_source(source *s, const char *path, char *msg, size_t msglen)
{
  struct stat st;
  char why[700];
  int e;
  s->path = path;
  s->fd = -1;
  s->msg = msg;
  s->msglen = msglen;
  if ((e = adi_check_regular_file(path, why, sizeof why)) != 0) {
    snprintf(msg, msglen, "grid file %s", why);
    return e;
  }
  /* O_NONBLOCK: a FIFO swapped in after the check must not block the open */
  s->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (s->fd < 0) return fail(s, errno, ": cannot open it: %s", strerror(errno));
  if (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(s->fd);
    s->fd = -1;
    return fail(s, EINVAL, " is not a regular file");
  }
  s->size = (int64_t)st.st_size;
  if (s->size == 0) {
    close(s->fd);
    s->fd = -1;
    return fail(s, EINVAL, " is empty");
  }
  return 0;
}

static void close_source(source *s)
{
  if (s->fd >= 0) close(s->fd);
  s->fd = -1;
}

/* -------------------------------------------------- Fortran unformatted */

static void free_chain(chain *c)
{
  free(c->rec);
  free(c->seg);
  memset(c, 0, sizeof *c);
}

static int push_segment(chain *c, int64_t off, int64_t len)
{
  if (c->nseg == c->capseg) {
    size_t cap = c->capseg ? 2 * c->capseg : 16;
    segment *p = realloc(c->seg, cap * sizeof *p);
    if (!p) return -1;
    c->seg = p;
    c->capseg = cap;
  }
  c->seg[c->nseg].off = off;
  c->seg[c->nseg].len = len;
  c->nseg++;
  return 0;
}

static int push_record(chain *c, record r)
{
  if (c->nrec == c->caprec) {
    size_t cap = c->caprec ? 2 * c->caprec : 16;
    record *p = realloc(c->rec, cap * sizeof *p);
    if (!p) return -1;
    c->rec = p;
    c->caprec = cap;
  }
  c->rec[c->nrec++] = r;
  return 0;
}

/* Walks the records from byte 0 with markers of mb bytes: at most max_rec
 * records. 1: the file ends right after a record; 2: max_rec records read;
 * 0: the chain breaks (c->why says where); -1: out of memory. A subrecord's
 * start marker is negative when another subrecord follows, its end marker
 * negative when one precedes (gfortran's and Intel's records over 2 GiB). */
static int walk_records(const source *s, int mb, int big, size_t max_rec, chain *c)
{
  int64_t off = 0;
  memset(c, 0, sizeof *c);
  while (off < s->size) {
    record r = {0, c->nseg, 0};
    int first = 1, more;
    if (c->nrec == max_rec) return 2;
    do {
      unsigned char m[8];
      int64_t lead, trail, len;
      if (c->nseg >= MAX_SEGMENTS) {
        snprintf(c->why, sizeof c->why, "has more than %d records", MAX_SEGMENTS);
        return 0;
      }
      if (off + mb > s->size || read_at(s, m, (size_t)mb, off) != 0) {
        snprintf(c->why, sizeof c->why, "ends %lld byte(s) into the start marker of record %zu (at byte %lld)",
                 (long long)(s->size - off), c->nrec + 1, (long long)off);
        return 0;
      }
      lead = load_int(m, mb, big);
      more = lead < 0;
      len = more ? -lead : lead;
      if (len <= 0) {
        snprintf(c->why, sizeof c->why, "has a record marker of %lld at byte %lld, which is no record length",
                 (long long)lead, (long long)off);
        return 0;
      }
      if (len > s->size - off - 2 * mb) {
        snprintf(c->why, sizeof c->why,
                 "is truncated: record %zu (at byte %lld) says it holds %lld bytes and an end marker, but only %lld "
                 "bytes follow its start marker",
                 c->nrec + 1, (long long)off, (long long)len, (long long)(s->size - off - mb));
        return 0;
      }
      if (read_at(s, m, (size_t)mb, off + mb + len) != 0) {
        snprintf(c->why, sizeof c->why, "cannot be read at byte %lld", (long long)(off + mb + len));
        return 0;
      }
      trail = load_int(m, mb, big);
      if (trail != (first ? len : -len)) {
        snprintf(c->why, sizeof c->why,
                 "is damaged: record %zu (at byte %lld) starts with the length %lld but ends with %lld", c->nrec + 1,
                 (long long)off, (long long)lead, (long long)trail);
        return 0;
      }
      if (push_segment(c, off + mb, len) != 0) return -1;
      r.len += len;
      r.nseg++;
      off += len + 2 * mb;
      first = 0;
    } while (more);
    if (push_record(c, r) != 0) return -1;
    c->end = off;
  }
  return 1;
}

/* n bytes from the start of record r (its first subrecords). */
static int record_bytes(const source *s, const chain *c, const record *r, unsigned char *buf, int64_t n)
{
  int64_t got = 0;
  for (size_t q = 0; q < r->nseg && got < n; ++q) {
    const segment *g = &c->seg[r->seg0 + q];
    int64_t take = g->len < n - got ? g->len : n - got;
    if (read_at(s, buf + got, (size_t)take, g->off) != 0) return -1;
    got += take;
  }
  return got == n ? 0 : -1;
}

static int refuse_blocks(source *s, int64_t nb)
{
  return fail(s, EINVAL,
              " holds %lld blocks (a multi-block grid): adiflow reads single-block grids only for now; write the "
              "block you want to solve on as a file of its own",
              (long long)nb);
}

static int refuse_iblank(source *s)
{
  return fail(s, EINVAL,
              ", block 1: holds IBLANK values (a blanking flag per node after the coordinates, for overset grids), "
              "which adiflow does not use: write the grid without IBLANK (cgns_to_plot3d: -n)");
}

/* A multi-block file's records: the sizes of every block (record
 * dims_rec), then one coordinate record a block from record k on, all in
 * one precision (block 1's). */
static int fortran_blocks(source *s, found *f, int64_t nb, int dims, size_t dims_rec, size_t k)
{
  chain *c = &f->ch;
  record *r = c->rec;
  unsigned char *b = malloc((size_t)(4 * dims * nb));
  int64_t *hn = malloc((size_t)(dims * nb) * sizeof *hn);
  int p = 0, e = 0;
  char sz[80];
  if (!b || !hn) {
    free(b);
    free(hn);
    return fail(s, ENOMEM, ": out of memory for the sizes of its %lld blocks", (long long)nb);
  }
  if (record_bytes(s, c, &r[dims_rec], b, 4 * dims * nb) != 0) e = fail(s, EIO, ": cannot read its sizes");
  for (int64_t q = 0; q < nb && !e; ++q) {
    int64_t n3[3] = {1, 1, 1}, nn, L = r[k + (size_t)q].len;
    int pq = 0;
    for (int d = 0; d < dims; ++d) n3[d] = hn[dims * q + d] = load_int(b + 4 * (dims * q + d), 4, f->lay.big_endian);
    if ((nn = block_nodes(s, n3, dims, q, s->size)) < 0) {
      e = EINVAL;
      break;
    }
    for (int pp = 4; pp <= 8; pp += 4) {
      if (L == dims * nn * pp) pq = pp;
      else if (L == dims * nn * pp + 4 * nn) e = refuse_iblank(s);
    }
    if (e) break;
    if (!pq || (p && pq != p))
      e = fail(s, EINVAL,
               ", block %lld: its sizes, %s nodes, need %lld bytes for the %d coordinates in %s, but its coordinate "
               "record holds %lld bytes: the sizes do not match the data",
               (long long)q + 1, sizes_text(n3, dims, sz, sizeof sz), (long long)(dims * nn * (p ? p : 8)), dims,
               p == 4 ? "single precision (block 1's)" : "double precision", (long long)L);
    p = pq;
  }
  free(b);
  if (!e) {
    f->lay.real_bytes = p;
    f->seg = &c->seg[r[k].seg0];
    f->nseg = c->nseg - r[k].seg0;
    e = set_blocks(s, f, nb, dims, hn);
  }
  free(hn);
  return e;
}

/* Reads what the records say: the block count, the sizes, the precision. */
static int fortran_layout(source *s, found *f, int mb, int big)
{
  chain *c = &f->ch;
  record *r = c->rec;
  adi_p3d_layout *lay = &f->lay;
  unsigned char b[16];
  int64_t nb = 1, n3[3] = {1, 1, 1}, nn, L;
  size_t k, dims_rec;
  int dims;
  char sz[80];

  lay->encoding = ADI_P3D_FORTRAN;
  lay->marker_bytes = mb;
  lay->big_endian = big;
  if (r[0].len == 4) {
    if (record_bytes(s, c, &r[0], b, 4) != 0) return fail(s, EIO, ": cannot read its first record");
    nb = load_int(b, 4, big);
    if (nb < 1) return fail(s, EINVAL, ": its block count (the first record) is %lld", (long long)nb);
    if (c->nrec < 2) return fail(s, EINVAL, " holds only a block count (%lld), no sizes and no coordinates", (long long)nb);
    if (r[1].len == 12 * nb) {
      dims = 3;
    } else if (r[1].len == 8 * nb) {
      dims = 2;
    } else {
      return fail(s, EINVAL,
                  ": its block count is %lld, so its second record should hold the sizes, %lld bytes (3D) or %lld "
                  "(2D), but it holds %lld",
                  (long long)nb, (long long)(12 * nb), (long long)(8 * nb), (long long)r[1].len);
    }
    lay->has_count = 1;
    dims_rec = 1;
    k = 2;
  } else if (r[0].len == 12 || r[0].len == 8) {
    dims = (int)(r[0].len / 4);
    dims_rec = 0;
    k = 1;
  } else {
    return fail(s, EINVAL,
                " (Fortran unformatted, %d-byte record markers): its first record holds %lld bytes, but a Plot3D grid "
                "starts with its block count (4 bytes) or its sizes (8 bytes in 2D, 12 in 3D)",
                mb, (long long)r[0].len);
  }
  lay->dims = dims;
  if (record_bytes(s, c, &r[dims_rec], b, 4 * dims) != 0) return fail(s, EIO, ": cannot read its sizes");
  for (int d = 0; d < dims; ++d) n3[d] = load_int(b + 4 * d, 4, big);
  for (int d = 0; d < 3; ++d) lay->n[d] = n3[d];
  if (nb > 1) {
    if (c->nrec == k + (size_t)nb && f->multi) return fortran_blocks(s, f, nb, dims, dims_rec, k);
    if (c->nrec == k + (size_t)nb) return refuse_blocks(s, nb);
    return fail(s, EINVAL, ": its block count says %lld blocks, but %zu records follow its sizes", (long long)nb,
                c->nrec - k);
  }
  nn = node_count(n3, dims, s->size);
  if (nn < 0 || n3[0] < 2 || n3[1] < 2)
    return fail(s, EINVAL, ", block 1: the sizes %s are not those of a grid (at least 2 nodes in i and j, 1 in k)",
                sizes_text(n3, dims, sz, sizeof sz));
  if (c->nrec == k + 1) {
    L = r[k].len;
    for (int p = 4; p <= 8; p += 4) {
      if (L == dims * nn * p) {
        lay->real_bytes = p;
        f->seg = &c->seg[r[k].seg0];
        f->nseg = r[k].nseg;
        return set_blocks(s, f, 1, dims, n3);
      }
      if (L == dims * nn * p + 4 * nn) return refuse_iblank(s);
    }
    return fail(s, EINVAL,
                ", block 1: its sizes, %s nodes, need %lld bytes for the %d coordinates in single precision or %lld in "
                "double, but its coordinate record holds %lld bytes: the sizes do not match the data",
                sizes_text(n3, dims, sz, sizeof sz), (long long)(dims * nn * 4), dims, (long long)(dims * nn * 8),
                (long long)L);
  }
  if (dims == 3 && n3[2] > 1 && c->nrec == k + (size_t)n3[2]) {
    int64_t plane = n3[0] * n3[1];
    if (r[k].len == 3 * plane * 4 || r[k].len == 3 * plane * 8 || r[k].len == 16 * plane || r[k].len == 28 * plane)
      return fail(s, EINVAL,
                  " is in Plot3D's planes format (a record per k-plane): only the whole format is read; write the grid "
                  "again in the whole format (cgns_to_plot3d without -p)");
  }
  return fail(s, EINVAL,
              ", block 1: %zu records follow its sizes, but a single-block grid in Plot3D's whole format has one "
              "(its coordinates)",
              c->nrec - k);
}

/* ----------------------------------------------------------- raw binary */

typedef struct reading {
  int big, count, dims, p, ib;
  int64_t nb, n[3], header_bytes;
} reading;

/* Every reading of the header that gives exactly the file's length; *near
 * gets the reading of one block whose sizes come nearest to it, for the
 * message when none fits (near->p = 0: no reading gives sensible sizes). */
static int raw_readings(const source *s, reading *out, int max, reading *near)
{
  int found_n = 0;
  int64_t best = -1;
  near->p = 0;
  for (int big = 0; big <= 1; ++big)
    for (int count = 1; count >= 0; --count)
      for (int dims = 3; dims >= 2; --dims) {
        unsigned char b[8];
        int64_t nb = 1, nints, sum_n = 0, n1[3] = {1, 1, 1};
        unsigned char *hb;
        int ok = 1;
        if (count) {
          if (s->size < 4 || read_at(s, b, 4, 0) != 0) continue;
          nb = load_int(b, 4, big);
          if (nb < 1 || nb > MAX_BLOCKS) continue;
        }
        nints = count + dims * nb;
        if (4 * nints > s->size) continue;
        hb = malloc((size_t)(4 * nints));
        if (!hb) continue;
        if (read_at(s, hb, (size_t)(4 * nints), 0) != 0) {
          free(hb);
          continue;
        }
        for (int64_t q = 0; q < nb && ok; ++q) {
          int64_t n3[3] = {1, 1, 1}, nn;
          for (int d = 0; d < dims; ++d) n3[d] = load_int(hb + 4 * (count + q * dims + d), 4, big);
          nn = node_count(n3, dims, s->size);
          if (nn < 0 || sum_n > s->size) ok = 0;
          else sum_n += nn;
          if (q == 0) memcpy(n1, n3, sizeof n1);
        }
        free(hb);
        if (!ok || n1[0] < 2 || n1[1] < 2) continue;
        for (int p = 4; p <= 8; p += 4)
          for (int ib = 0; ib <= 1; ++ib) {
            int64_t total = 4 * nints + sum_n * (dims * p + 4 * ib);
            if (total == s->size && found_n < max) {
              reading *r = &out[found_n++];
              r->big = big, r->count = count, r->dims = dims, r->p = p, r->ib = ib, r->nb = nb;
              r->header_bytes = 4 * nints;
              memcpy(r->n, n1, sizeof n1);
            }
          }
        if (nb == 1) {   /* the nearest single-block reading, for the message */
          int64_t lo = 4 * nints + sum_n * dims * 4, hi = 4 * nints + sum_n * dims * 8;
          int64_t dist = s->size < lo ? lo - s->size : s->size > hi ? s->size - hi : 0;
          if (best < 0 || dist < best) {
            best = dist;
            near->big = big, near->count = count, near->dims = dims, near->p = 4, near->ib = 0, near->nb = 1;
            near->header_bytes = 4 * nints;
            memcpy(near->n, n1, sizeof n1);
          }
        }
      }
  return found_n;
}

/* The first and last IBLANK flag are small integers (block numbers at most). */
static int iblank_plausible(const source *s, const reading *r)
{
  int64_t nn = r->n[0] * r->n[1] * r->n[2];
  unsigned char b[4];
  for (int end = 0; end <= 1; ++end) {
    int64_t off = r->header_bytes + r->dims * nn * r->p + (end ? nn - 1 : 0) * 4, v;
    if (read_at(s, b, 4, off) != 0) return 0;
    v = load_int(b, 4, r->big);
    if (v < -MAX_BLOCKS || v > MAX_BLOCKS) return 0;
  }
  return 1;
}

/* The first and last value of each coordinate (and IBLANK) are numbers a
 * grid can have: what tells two readings of the same length apart. */
static int reading_plausible(const source *s, const reading *r)
{
  int64_t nn = r->n[0] * r->n[1] * r->n[2];
  unsigned char b[8];
  for (int c = 0; c < r->dims; ++c)
    for (int end = 0; end <= 1; ++end) {
      int64_t off = r->header_bytes + (c * nn + (end ? nn - 1 : 0)) * r->p;
      double v;
      if (read_at(s, b, (size_t)r->p, off) != 0) return 0;
      v = load_real(b, r->p, r->big);
      if (!isfinite(v) || fabs(v) > COORD_LIMIT) return 0;
    }
  return !r->ib || iblank_plausible(s, r);
}

static void reading_text(const reading *r, char *buf, size_t len)
{
  char sz[80];
  snprintf(buf, len, "%s nodes (%dD), %s precision, %s-endian, %s the block count%s", sizes_text(r->n, r->dims, sz, sizeof sz),
           r->dims, r->p == 8 ? "double" : "single", r->big ? "big" : "little", r->count ? "with" : "without",
           r->ib ? ", with IBLANK" : "");
}

static int raw_layout(source *s, found *f, const reading *r)
{
  adi_p3d_layout *lay = &f->lay;
  int64_t sum_n = 0;
  if (r->nb > 1 && !f->multi) return refuse_blocks(s, r->nb);
  if (r->ib) return refuse_iblank(s);
  {
    /* the block table from the header again (raw_readings checked its sizes) */
    int64_t nints = r->count + r->dims * r->nb, *hn = malloc((size_t)nints * sizeof *hn);
    unsigned char *hb = malloc((size_t)(4 * nints));
    int e = 0;
    if (!hn || !hb) e = fail(s, ENOMEM, ": out of memory for the sizes of its %lld blocks", (long long)r->nb);
    else if (read_at(s, hb, (size_t)(4 * nints), 0) != 0) e = fail(s, EIO, ": cannot read its sizes");
    for (int64_t q = 0; q < nints && !e; ++q) hn[q] = load_int(hb + 4 * q, 4, r->big);
    for (int64_t q = 0; q < r->nb && !e; ++q) {
      int64_t n3[3] = {1, 1, 1};
      for (int d = 0; d < r->dims; ++d) n3[d] = hn[r->count + r->dims * q + d];
      if (block_nodes(s, n3, r->dims, q, s->size) < 0) e = EINVAL;
    }
    if (!e) e = set_blocks(s, f, r->nb, r->dims, hn + r->count);
    free(hb);
    free(hn);
    if (e) return e;
    sum_n = f->start[f->nb] / r->dims;
  }
  lay->encoding = ADI_P3D_RAW;
  lay->real_bytes = r->p;
  lay->big_endian = r->big;
  lay->has_count = r->count;
  lay->dims = r->dims;
  memcpy(lay->n, r->n, sizeof lay->n);
  f->raw_seg.off = r->header_bytes;
  f->raw_seg.len = r->dims * sum_n * r->p;
  f->seg = &f->raw_seg;
  f->nseg = 1;
  return 0;
}

/* ----------------------------------------------------------------- text */

typedef struct tokens {
  const source *s;
  unsigned char buf[1 << 16];
  size_t pos, len;
  int64_t off;      /* file offset of buf[len] */
  long long line;
} tokens;

/* The next word (separated by blanks, line ends or commas) into t:
 * 1, 0 at the end of the file, -1 with the reason in why. */
static int next_word(tokens *k, char *t, size_t cap, char *why, size_t whylen)
{
  size_t n = 0;
  int in_word = 0;
  for (;;) {
    unsigned char ch;
    if (k->pos == k->len) {
      ssize_t got;
      do got = pread(k->s->fd, k->buf, sizeof k->buf, (off_t)k->off);
      while (got < 0 && errno == EINTR);
      if (got < 0) {
        snprintf(why, whylen, "cannot be read: %s", strerror(errno));
        return -1;
      }
      if (got == 0) break;
      k->pos = 0;
      k->len = (size_t)got;
      k->off += got;
    }
    ch = k->buf[k->pos++];
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v' || ch == ',') {
      if (ch == '\n') {
        if (in_word) {
          k->pos--;   /* count the line end after the word is returned */
          break;
        }
        k->line++;
      }
      if (in_word) break;
      continue;
    }
    if (ch < 0x20 || ch > 0x7e) {
      snprintf(why, whylen, "line %lld: byte 0x%02x is not text (a binary file mistaken for text?)", k->line, ch);
      return -1;
    }
    if (n + 1 >= cap) {
      snprintf(why, whylen, "line %lld: a word of more than %zu characters is no number", k->line, cap - 2);
      return -1;
    }
    t[n++] = (char)ch;
    in_word = 1;
  }
  t[n] = '\0';
  return in_word;
}

/* A word as Fortran's list-directed input reads it: [r*]value, the value an
 * integer or a real (exponent letter e, E, d or D). */
static int parse_word(const char *w, long long line, int64_t *repeat, double *v, int *is_int, char *why, size_t whylen)
{
  char t[TOKEN_CHARS + 2], *end;
  const char *star = strchr(w, '*'), *val = w;
  size_t i;
  *repeat = 1;
  if (star) {
    long long r;
    errno = 0;
    r = strtoll(w, &end, 10);
    if (end != star || r < 1 || errno != 0 || star == w || !(w[0] >= '0' && w[0] <= '9')) {
      snprintf(why, whylen, "line %lld: \"%s\" is not a number (nor r*value with a count r >= 1)", line, w);
      return -1;
    }
    *repeat = r;
    val = star + 1;
  }
  snprintf(t, sizeof t, "%s", val);
  *is_int = t[0] != '\0';
  for (i = (t[0] == '+' || t[0] == '-'); t[i]; ++i)
    if (t[i] < '0' || t[i] > '9') *is_int = 0;
  if (*is_int && i == 1 && (t[0] == '+' || t[0] == '-')) *is_int = 0;
  for (i = 0; t[i]; ++i)
    if (t[i] == 'd' || t[i] == 'D') t[i] = 'e';
  errno = 0;
  *v = t[0] ? strtod(t, &end) : 0.0;
  if (!t[0] || *end != '\0') {
    snprintf(why, whylen, "line %lld: \"%s\" is not a number", line, w);
    return -1;
  }
  return 0;
}

typedef struct text_scan {
  int64_t nvalues;
  int64_t nhead;                    /* values kept in head */
  double head[MAX_HEADER_TOKENS];
  unsigned char head_int[MAX_HEADER_TOKENS];
  int last_int;
} text_scan;

static int scan_text(source *s, text_scan *ts)
{
  tokens *k = calloc(1, sizeof *k);
  char w[TOKEN_CHARS + 2], why[600];
  int e = 0;
  if (!k) return fail(s, ENOMEM, ": out of memory");
  k->s = s;
  k->line = 1;
  ts->nvalues = ts->nhead = 0;
  for (;;) {
    int64_t rep;
    double v;
    int is_int, got = next_word(k, w, sizeof w, why, sizeof why);
    if (got == 0) break;
    if (got < 0 || parse_word(w, k->line, &rep, &v, &is_int, why, sizeof why) != 0) {
      e = fail(s, EINVAL, " (text): %s", why);
      break;
    }
    for (int64_t q = 0; q < rep && ts->nhead < MAX_HEADER_TOKENS; ++q) {
      ts->head[ts->nhead] = v;
      ts->head_int[ts->nhead++] = (unsigned char)is_int;
    }
    ts->nvalues += rep;
    ts->last_int = is_int;
  }
  free(k);
  return e;
}

static int text_layout(source *s, found *f)
{
  text_scan *ts = malloc(sizeof *ts);
  adi_p3d_layout *lay = &f->lay;
  reading cand[8], near = {0};
  int ncand = 0, e;
  int64_t best = -1, nvalues_all;
  double *heads = NULL;
  char a[200], b[200];
  if (!ts) return fail(s, ENOMEM, ": out of memory");
  if ((e = scan_text(s, ts)) != 0) {
    free(ts);
    return e;
  }
  for (int count = 1; count >= 0; --count)
    for (int dims = 3; dims >= 2; --dims) {
      int64_t nb = 1, nh, sum_n = 0, n1[3] = {1, 1, 1};
      int ok = 1;
      if (count) {
        if (ts->nhead < 1 || !ts->head_int[0] || ts->head[0] < 1 || ts->head[0] > MAX_BLOCKS) continue;
        nb = (int64_t)ts->head[0];
      }
      nh = count + dims * nb;
      if (nh > ts->nhead || nh > ts->nvalues) continue;
      for (int64_t q = 0; q < nb && ok; ++q) {
        int64_t n3[3] = {1, 1, 1}, nn;
        for (int d = 0; d < dims; ++d) {
          int64_t at = count + q * dims + d;
          if (!ts->head_int[at] || fabs(ts->head[at]) > 9.0e15) ok = 0;
          else n3[d] = (int64_t)ts->head[at];
        }
        nn = ok ? node_count(n3, dims, ts->nvalues) : -1;
        if (nn < 0) ok = 0;
        else sum_n += nn;
        if (q == 0) memcpy(n1, n3, sizeof n1);
      }
      if (!ok || n1[0] < 2 || n1[1] < 2 || sum_n > ts->nvalues) continue;
      for (int ib = 0; ib <= 1; ++ib)
        if (nh + sum_n * (dims + ib) == ts->nvalues && (!ib || ts->last_int) && ncand < 8) {
          reading *r = &cand[ncand++];
          r->big = 0, r->count = count, r->dims = dims, r->p = 8, r->ib = ib, r->nb = nb, r->header_bytes = nh;
          memcpy(r->n, n1, sizeof n1);
        }
      if (nb == 1) {
        int64_t want = nh + sum_n * dims, dist = want > ts->nvalues ? want - ts->nvalues : ts->nvalues - want;
        if (best < 0 || dist < best) {
          best = dist;
          near.count = count, near.dims = dims, near.nb = 1, near.header_bytes = nh, near.p = 8;
          memcpy(near.n, n1, sizeof n1);
        }
      }
    }
  nvalues_all = ts->nvalues;
  if (ncand == 1) {
    /* the header's numbers, for the block table below */
    int64_t nh = cand[0].header_bytes;
    heads = malloc((size_t)nh * sizeof *heads);
    if (!heads) {
      free(ts);
      return fail(s, ENOMEM, ": out of memory");
    }
    memcpy(heads, ts->head, (size_t)nh * sizeof *heads);
  }
  {
    int64_t nvalues = ts->nvalues;
    char sz[80];
    free(ts);
    if (ncand > 1) {
      reading_text(&cand[0], a, sizeof a);
      reading_text(&cand[1], b, sizeof b);
      return fail(s, EINVAL, " (text) can be read as %s or as %s: write it without the block count, or as Fortran "
                  "unformatted", a, b);
    }
    if (ncand == 0 && best < 0)
      return fail(s, EINVAL, " (text): its first numbers give no grid sizes (at least 2 nodes in i and j)");
    if (ncand == 0) {
      int64_t want = near.header_bytes + near.n[0] * near.n[1] * near.n[2] * near.dims;
      return fail(s, EINVAL,
                  " (text): its sizes, %s nodes (%dD, %s the block count), need %lld numbers with the header, but the "
                  "file holds %lld: %s",
                  sizes_text(near.n, near.dims, sz, sizeof sz), near.dims, near.count ? "with" : "without",
                  (long long)want, (long long)nvalues,
                  nvalues < want ? "it is truncated, or its sizes are wrong" : "it has extra numbers, or its sizes are wrong");
    }
  }
  if ((cand[0].nb > 1 && !f->multi) || cand[0].ib) {
    free(heads);
    return cand[0].ib ? refuse_iblank(s) : refuse_blocks(s, cand[0].nb);
  }
  {
    /* the block table from the header's numbers (text_layout checked them) */
    int64_t nb = cand[0].nb, dims = cand[0].dims, *hn = malloc((size_t)(dims * nb) * sizeof *hn);
    if (!hn) return fail(s, ENOMEM, ": out of memory for the sizes of its %lld blocks", (long long)nb);
    for (int64_t q = 0; q < dims * nb; ++q) hn[q] = (int64_t)heads[cand[0].count + q];
    for (int64_t q = 0; q < nb; ++q) {
      int64_t n3[3] = {1, 1, 1};
      for (int d = 0; d < dims; ++d) n3[d] = hn[dims * q + d];
      if (block_nodes(s, n3, (int)dims, q, nvalues_all) < 0) {
        free(hn);
        free(heads);
        return EINVAL;
      }
    }
    e = set_blocks(s, f, nb, (int)dims, hn);
    free(hn);
    free(heads);
    if (e) return e;
  }
  lay->encoding = ADI_P3D_ASCII;
  lay->has_count = cand[0].count;
  lay->dims = cand[0].dims;
  memcpy(lay->n, cand[0].n, sizeof lay->n);
  f->skip_values = cand[0].header_bytes;
  return 0;
}

/* ---------------------------------------------------------------- probe */

static int looks_like_text(const source *s)
{
  unsigned char b[HEAD_BYTES];
  size_t n = s->size < HEAD_BYTES ? (size_t)s->size : HEAD_BYTES;
  if (read_at(s, b, n, 0) != 0) return 0;
  for (size_t i = 0; i < n; ++i)
    if ((b[i] < 0x20 || b[i] > 0x7e) && b[i] != '\n' && b[i] != '\r' && b[i] != '\t' && b[i] != '\f' && b[i] != '\v')
      return 0;
  return 1;
}

static void free_found(found *f)
{
  free(f->bn);
  free(f->start);
  f->bn = f->start = NULL;
  free_chain(&f->ch);
  f->seg = NULL;
  f->nseg = 0;
}

static int probe(source *s, found *f, int multi)
{
  reading cand[16], near = {0};
  int ncand, e;
  chain partial;
  int partial_mb = 0, partial_big = 0;
  char a[200], b[200], sz[80];

  memset(f, 0, sizeof *f);
  f->multi = multi;
  f->lay.file_bytes = s->size;
  if (looks_like_text(s)) return text_layout(s, f);

  memset(&partial, 0, sizeof partial);
  for (int mb = 4; mb <= 8; mb += 4)
    for (int big = 0; big <= 1; ++big) {
      chain c;
      int w = walk_records(s, mb, big, MAX_SEGMENTS, &c);
      if (w < 0) {
        free_chain(&c);
        free_chain(&partial);
        return fail(s, ENOMEM, ": out of memory");
      }
      if (w == 1) {
        free_chain(&partial);
        f->ch = c;
        return fortran_layout(s, f, mb, big);
      }
      /* a broken chain whose first record is a Plot3D header: the reason,
       * unless a raw reading fits the file after all */
      if (!partial_mb && c.nrec >= 1 && (c.rec[0].len == 4 || c.rec[0].len == 8 || c.rec[0].len == 12)) {
        partial = c;
        partial_mb = mb;
        partial_big = big;
      } else {
        free_chain(&c);
      }
    }

  ncand = raw_readings(s, cand, 16, &near);
  {
    /* a reading with IBLANK whose flags are not small integers is none:
     * the sizes of a damaged header can give the file's length that way */
    int keep = 0;
    for (int q = 0; q < ncand; ++q)
      if (!cand[q].ib || iblank_plausible(s, &cand[q])) cand[keep++] = cand[q];
    ncand = keep;
  }
  if (ncand > 1) {
    int keep = 0;
    for (int q = 0; q < ncand; ++q)
      if (reading_plausible(s, &cand[q])) cand[keep++] = cand[q];
    if (keep == 0) keep = ncand;   /* none plausible: the message of the first */
    ncand = keep;
  }
  if (ncand > 1) {
    free_chain(&partial);
    reading_text(&cand[0], a, sizeof a);
    reading_text(&cand[1], b, sizeof b);
    return fail(s, EINVAL,
                " (raw binary) can be read as %s or as %s: write it as Fortran unformatted (its record markers say "
                "which)",
                a, b);
  }
  if (ncand == 1) {
    free_chain(&partial);
    return raw_layout(s, f, &cand[0]);
  }

  if (partial_mb) {
    /* the records before the break may be a whole grid: then what follows is extra */
    found g;
    char why[400];
    memset(&g, 0, sizeof g);
    snprintf(why, sizeof why, "%s", partial.why);
    if (partial.end > 0) {
      source t = *s;
      char m2[1000];
      t.size = partial.end;
      t.msg = m2;
      t.msglen = sizeof m2;
      g.ch = partial;
      g.multi = multi;
      e = fortran_layout(&t, &g, partial_mb, partial_big);
      free_found(&g);
      if (e == 0)
        return fail(s, EINVAL,
                    " (Fortran unformatted, %d-byte %s-endian record markers) has %lld extra bytes after the grid's "
                    "records end (at byte %lld)",
                    partial_mb, partial_big ? "big" : "little", (long long)(s->size - partial.end), (long long)partial.end);
    } else {
      free_chain(&partial);
    }
    return fail(s, EINVAL, " (Fortran unformatted, %d-byte %s-endian record markers) %s", partial_mb,
                partial_big ? "big" : "little", why);
  }
  if (near.p) {
    int64_t nn = near.n[0] * near.n[1] * near.n[2];
    int64_t lo = near.header_bytes + near.dims * nn * 4, hi = near.header_bytes + near.dims * nn * 8;
    char tail[160];
    if (s->size < lo) snprintf(tail, sizeof tail, "it is truncated, or not a Plot3D grid file");
    else if (s->size > hi) snprintf(tail, sizeof tail, "%lld bytes more than double precision needs (extra bytes?)",
                                    (long long)(s->size - hi));
    else if (hi - s->size < s->size - lo)
      snprintf(tail, sizeof tail, "%lld bytes short of double precision (truncated?)", (long long)(hi - s->size));
    else snprintf(tail, sizeof tail, "%lld bytes more than single precision needs (extra bytes?)",
                  (long long)(s->size - lo));
    return fail(s, EINVAL,
                " (raw binary: no text, no Fortran record markers): its header's sizes, %s nodes (%dD, %s-endian, %s "
                "the block count), need %lld bytes in single precision or %lld in double, but the file has %lld: %s",
                sizes_text(near.n, near.dims, sz, sizeof sz), near.dims, near.big ? "big" : "little",
                near.count ? "with" : "without", (long long)lo, (long long)hi, (long long)s->size, tail);
  }
  return fail(s, EINVAL,
              " is not a Plot3D grid file that adiflow can read: not text, no Fortran record markers, and its first "
              "numbers give no grid sizes in either byte order");
}

int adi_p3d_probe(const char *path, adi_p3d_layout *lay, char *msg, size_t msglen)
{
  source s;
  found f;
  int e = open_source(&s, path, msg, msglen);
  if (e) return e;
  e = probe(&s, &f, 0);
  if (e == 0) *lay = f.lay;
  free_found(&f);
  close_source(&s);
  return e;
}

int adi_p3d_probe_blocks(const char *path, adi_p3d_layout *lay, int64_t *nblocks, int64_t *sizes, int64_t cap,
                         char *msg, size_t msglen)
{
  source s;
  found f;
  int e = open_source(&s, path, msg, msglen);
  *nblocks = 0;
  if (e) return e;
  e = probe(&s, &f, 1);
  if (e == 0) {
    *lay = f.lay;
    *nblocks = f.nb;
    if (f.nb <= cap) memcpy(sizes, f.bn, (size_t)(3 * f.nb) * sizeof *sizes);
  }
  free_found(&f);
  close_source(&s);
  return e;
}

/* ----------------------------------------------------------------- read */

static int read_binary(source *s, const found *f, double *xyz, int64_t nval)
{
  const int p = f->lay.real_bytes, big = f->lay.big_endian;
  unsigned char *buf = malloc(CHUNK_BYTES + 8);
  size_t have = 0;
  int64_t idx = 0;
  if (!buf) return fail(s, ENOMEM, ": out of memory");
  for (size_t q = 0; q < f->nseg && idx < nval; ++q) {
    int64_t off = f->seg[q].off, left = f->seg[q].len;
    while (left > 0 && idx < nval) {
      size_t take = (size_t)(left < (int64_t)(CHUNK_BYTES - have) ? left : (int64_t)(CHUNK_BYTES - have)), used = 0;
      if (read_at(s, buf + have, take, off) != 0) {
        free(buf);
        return fail(s, EIO, ": cannot read byte %lld (did it shrink while being read?)", (long long)off);
      }
      off += (int64_t)take;
      left -= (int64_t)take;
      have += take;
      /* a value may straddle two subrecords: what is left waits for the next */
      for (; used + (size_t)p <= have && idx < nval; used += (size_t)p, ++idx) {
        xyz[idx] = load_real(buf + used, p, big);
        if (check_value(s, f, idx, xyz[idx]) != 0) {
          free(buf);
          return EINVAL;
        }
      }
      memmove(buf, buf + used, have - used);
      have -= used;
    }
  }
  free(buf);
  if (idx != nval) return fail(s, EIO, ": ended before its coordinates did");
  return 0;
}

static int read_text(source *s, const found *f, double *xyz, int64_t nval)
{
  tokens *k = calloc(1, sizeof *k);
  char w[TOKEN_CHARS + 2], why[600];
  int64_t seen = 0, idx = 0;
  if (!k) return fail(s, ENOMEM, ": out of memory");
  k->s = s;
  k->line = 1;
  while (idx < nval) {
    int64_t rep;
    double v;
    int is_int, got = next_word(k, w, sizeof w, why, sizeof why);
    if (got <= 0 || parse_word(w, k->line, &rep, &v, &is_int, why, sizeof why) != 0) {
      free(k);
      return got == 0 ? fail(s, EIO, ": ended before its coordinates did") : fail(s, EINVAL, " (text): %s", why);
    }
    for (int64_t q = 0; q < rep && idx < nval; ++q, ++seen) {
      if (seen < f->skip_values) continue;
      xyz[idx] = v;
      if (check_value(s, f, idx, v) != 0) {
        free(k);
        return EINVAL;
      }
      ++idx;
    }
  }
  free(k);
  return 0;
}

/* Both reads: probe again (multi: as adi_p3d_probe_blocks), the same layout
 * and the number of values asked for, then every block's coordinates. */
static int read_values(const char *path, const adi_p3d_layout *lay, int multi, double *xyz, int64_t nvalues, char *msg,
                       size_t msglen)
{
  source s;
  found f;
  int e = open_source(&s, path, msg, msglen);
  if (e) return e;
  e = probe(&s, &f, multi);
  if (e == 0 && memcmp(&f.lay, lay, sizeof *lay) != 0)
    e = fail(&s, EINVAL, " changed while it was being read");
  if (e == 0 && nvalues != f.start[f.nb])
    e = fail(&s, EINVAL, ": %lld values asked for, but it holds %lld", (long long)nvalues, (long long)f.start[f.nb]);
  if (e == 0) e = f.lay.encoding == ADI_P3D_ASCII ? read_text(&s, &f, xyz, nvalues) : read_binary(&s, &f, xyz, nvalues);
  free_found(&f);
  close_source(&s);
  return e;
}

int adi_p3d_read(const char *path, const adi_p3d_layout *lay, double *xyz, int64_t nvalues, char *msg, size_t msglen)
{
  return read_values(path, lay, 0, xyz, nvalues, msg, msglen);
}

int adi_p3d_read_blocks(const char *path, const adi_p3d_layout *lay, double *xyz, int64_t nvalues, char *msg,
                        size_t msglen)
{
  return read_values(path, lay, 1, xyz, nvalues, msg, msglen);
}

void adi_p3d_describe(const adi_p3d_layout *lay, char *buf, size_t buflen)
{
  char enc[80];
  if (lay->encoding == ADI_P3D_ASCII) snprintf(enc, sizeof enc, "formatted (text)");
  else if (lay->encoding == ADI_P3D_FORTRAN) snprintf(enc, sizeof enc, "Fortran unformatted (%d-byte record markers)", lay->marker_bytes);
  else snprintf(enc, sizeof enc, "raw binary (no record markers)");
  if (lay->encoding == ADI_P3D_ASCII)
    snprintf(buf, buflen, "Plot3D %dD, %s, %s the block count", lay->dims, enc, lay->has_count ? "with" : "without");
  else
    snprintf(buf, buflen, "Plot3D %dD, %s, %s precision, %s-endian, %s the block count", lay->dims, enc,
             lay->real_bytes == 8 ? "double" : "single", lay->big_endian ? "big" : "little",
             lay->has_count ? "with" : "without");
}
