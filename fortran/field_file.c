/* The reader and writer of the field dump / restart format
 * (include/field_format.h), shared by the Fortran drivers (through
 * fortran/field_io.f90) and validation/compare_fields.c.
 *
 * Reading checks everything before the caller sees a value, cheapest first,
 * so that a file that cannot fit is refused before its data is touched: a
 * regular file (a FIFO or a device would block or never end), every header
 * field, the exact size the header implies (computed without overflow), the
 * header's own CRC, the header against what the caller expects (grid, rank,
 * decomposition, offsets); only then the data, once: the CRC over the whole
 * file and every value finite. Writing goes to PATH.tmp; every value is
 * checked finite, every write, the flush and the close are checked, the
 * finished file is read back and verified, and only then renamed over PATH
 * (fortran/safe_file.c). */
#define _POSIX_C_SOURCE 200809L
#include "field_format.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_file.h"
#include "safe_file.h"

/* the reader's chunk and the writer's staging buffer: multiples of 8 (a
 * chunk starts at a value), large enough for fortran/crc64.c to sum one on
 * several threads and for few, large writes */
enum { CHUNK_BYTES = 1 << 25 };

static const char *var_name[5] = {"rho", "rho*u", "rho*v", "rho*w", "E"};

adi_dump_place adi_dump_serial_place(int32_t ni, int32_t nj, int32_t nk)
{
  adi_dump_place p = {0, 1, 1, {ni, nj, nk}, {0, 0, 0}};
  return p;
}

/* the header fields a reader checks beyond those of adi_dump_header */
typedef struct raw_extra {
  int32_t reserved, reserved2;
  uint64_t crc;   /* version 3: the stored header CRC */
} raw_extra;

static void unpack_header(const unsigned char *b, adi_dump_header *h, raw_extra *x)
{
  memcpy(&h->version, b + 8, 4);
  memcpy(&h->ni, b + 12, 4);
  memcpy(&h->nj, b + 16, 4);
  memcpy(&h->nk, b + 20, 4);
  memcpy(&h->nvar, b + 24, 4);
  memcpy(&x->reserved, b + 28, 4);
  memcpy(&h->iteration, b + 32, 8);
  memcpy(h->res0, b + 40, 40);
  x->reserved2 = 0;
  x->crc = 0;
  if (h->version < 3) {
    h->place = adi_dump_serial_place(h->ni, h->nj, h->nk);
    return;
  }
  memcpy(&h->place.rank, b + 80, 4);
  memcpy(&h->place.npj, b + 84, 4);
  memcpy(&h->place.npk, b + 88, 4);
  memcpy(&x->reserved2, b + 92, 4);
  memcpy(h->place.gn, b + 96, 12);
  memcpy(h->place.off, b + 108, 12);
  memcpy(&x->crc, b + 120, 8);
}

void adi_dump_pack_header(unsigned char b[ADI_DUMP_HEADER_BYTES], const adi_dump_header *h)
{
  const int32_t version = ADI_DUMP_VERSION, zero = 0;
  uint64_t crc;
  memset(b, 0, ADI_DUMP_HEADER_BYTES);
  memcpy(b, ADI_DUMP_MAGIC, 8);
  memcpy(b + 8, &version, 4);
  memcpy(b + 12, &h->ni, 4);
  memcpy(b + 16, &h->nj, 4);
  memcpy(b + 20, &h->nk, 4);
  memcpy(b + 24, &h->nvar, 4);
  memcpy(b + 28, &zero, 4);
  memcpy(b + 32, &h->iteration, 8);
  memcpy(b + 40, h->res0, 40);
  memcpy(b + 80, &h->place.rank, 4);
  memcpy(b + 84, &h->place.npj, 4);
  memcpy(b + 88, &h->place.npk, 4);
  memcpy(b + 92, &zero, 4);
  memcpy(b + 96, h->place.gn, 12);
  memcpy(b + 108, h->place.off, 12);
  crc = adi_crc64_final(adi_crc64_update(ADI_CRC64_INIT, b, 120));
  memcpy(b + 120, &crc, 8);
}

/* Every header field against what the format allows; the message names the
 * field and its value. */
static int check_header(const char *path, const adi_dump_header *h, const raw_extra *x, char *msg, size_t msglen)
{
  static const char *dim_name[3] = {"ni", "nj", "nk"};
  const int32_t dims[3] = {h->ni, h->nj, h->nk};
  for (int d = 0; d < 3; ++d) {
    if (dims[d] < 1 || dims[d] > ADI_DUMP_MAX_N) {
      snprintf(msg, msglen, "\"%s\": header field %s = %d is out of range (allowed 1 to %d): the file is damaged",
               path, dim_name[d], (int)dims[d], ADI_DUMP_MAX_N);
      return EINVAL;
    }
  }
  if (h->nvar != 5) {
    snprintf(msg, msglen, "\"%s\": header field nvar = %d, the format has 5 variables: the file is damaged", path,
             (int)h->nvar);
    return EINVAL;
  }
  if (x->reserved != 0 || x->reserved2 != 0) {
    snprintf(msg, msglen, "\"%s\": header field reserved = %d, must be 0: the file is damaged", path,
             (int)(x->reserved != 0 ? x->reserved : x->reserved2));
    return EINVAL;
  }
  if (h->iteration < 0) {
    snprintf(msg, msglen, "\"%s\": header field iteration = %lld is negative: the file is damaged", path,
             (long long)h->iteration);
    return EINVAL;
  }
  for (int m = 0; m < 5; ++m) {
    if (!isfinite(h->res0[m]) || h->res0[m] < 0.0) {
      snprintf(msg, msglen,
               "\"%s\": header field res0(%d) = %g is not a finite residual norm >= 0: the file is damaged", path,
               m + 1, h->res0[m]);
      return EINVAL;
    }
  }
  return 0;
}

/* The version-3 fields of where the block lies: checked after the size, so
 * that a damaged cell count is reported as the size it implies. */
static int check_place(const char *path, const adi_dump_header *h, char *msg, size_t msglen)
{
  static const char *dim_name[3] = {"ni", "nj", "nk"};
  const int32_t dims[3] = {h->ni, h->nj, h->nk};
  const adi_dump_place *p = &h->place;
  if (h->version < 3) return 0;
  if (p->npj < 1 || p->npj > ADI_DUMP_MAX_NP || p->npk < 1 || p->npk > ADI_DUMP_MAX_NP) {
    snprintf(msg, msglen, "\"%s\": header fields npj x npk = %d x %d are out of range (allowed 1 to %d each): the file "
             "is damaged", path, (int)p->npj, (int)p->npk, ADI_DUMP_MAX_NP);
    return EINVAL;
  }
  if (p->rank < 0 || (int64_t)p->rank >= (int64_t)p->npj * p->npk) {
    snprintf(msg, msglen, "\"%s\": header field rank = %d is out of range (allowed 0 to %lld for npj x npk = %d x %d): "
             "the file is damaged", path, (int)p->rank, (long long)p->npj * p->npk - 1, (int)p->npj, (int)p->npk);
    return EINVAL;
  }
  for (int d = 0; d < 3; ++d) {
    if (p->gn[d] < 1 || p->gn[d] > ADI_DUMP_MAX_N || p->off[d] < 0 || (int64_t)p->off[d] + dims[d] > p->gn[d]) {
      snprintf(msg, msglen, "\"%s\": header fields global %s = %d, offset %d and %s = %d do not fit (allowed: global 1 "
               "to %d, the block inside it): the file is damaged", path, dim_name[d], (int)p->gn[d], (int)p->off[d],
               dim_name[d], (int)dims[d], ADI_DUMP_MAX_N);
      return EINVAL;
    }
  }
  return 0;
}

static int is_serial(const adi_dump_place *p) { return p->npj == 1 && p->npk == 1; }

/* The header against what the caller needs, before any data is read. A
 * version-1 or -2 file records no place: only its cell counts are compared. */
static int check_expect(const char *path, const adi_dump_header *h, const adi_dump_expect *e, char *msg, size_t msglen)
{
  const adi_dump_place *p = &h->place, *q = &e->place;
  const int32_t n[3] = {h->ni, h->nj, h->nk};
  if (h->version < 3) {
    if (n[0] == e->n[0] && n[1] == e->n[1] && n[2] == e->n[2]) return 0;
    if (is_serial(q))
      snprintf(msg, msglen, "\"%s\": grid %d x %d x %d does not match the case grid %d x %d x %d", path, (int)n[0],
               (int)n[1], (int)n[2], (int)q->gn[0], (int)q->gn[1], (int)q->gn[2]);
    else
      snprintf(msg, msglen, "\"%s\": holds a block of %d x %d x %d cells, but rank %d's block is %d x %d x %d", path,
               (int)n[0], (int)n[1], (int)n[2], (int)q->rank, (int)e->n[0], (int)e->n[1], (int)e->n[2]);
    return EINVAL;
  }
  if (p->gn[0] != q->gn[0] || p->gn[1] != q->gn[1] || p->gn[2] != q->gn[2]) {
    snprintf(msg, msglen, "\"%s\": grid %d x %d x %d does not match the case grid %d x %d x %d", path, (int)p->gn[0],
             (int)p->gn[1], (int)p->gn[2], (int)q->gn[0], (int)q->gn[1], (int)q->gn[2]);
    return EINVAL;
  }
  if (p->npj != q->npj || p->npk != q->npk) {
    if (is_serial(q))
      snprintf(msg, msglen, "\"%s\" holds the block of rank %d of an MPI run (npj x npk = %d x %d), not a serial state "
               "(build/adiflow_mpi reads it, on the same decomposition)", path, (int)p->rank, (int)p->npj, (int)p->npk);
    else
      snprintf(msg, msglen, "\"%s\" was written on npj x npk = %d x %d (rank %d), but was read for rank %d of npj x npk "
               "= %d x %d; restart on the same decomposition", path, (int)p->npj, (int)p->npk, (int)p->rank,
               (int)q->rank, (int)q->npj, (int)q->npk);
    return EINVAL;
  }
  if (p->rank != q->rank) {
    snprintf(msg, msglen, "\"%s\" holds the block of rank %d, but was read for rank %d (npj x npk = %d x %d): the rank "
             "restart files were swapped or renamed; put each back under its own rank's name", path, (int)p->rank,
             (int)q->rank, (int)q->npj, (int)q->npk);
    return EINVAL;
  }
  for (int d = 0; d < 3; ++d) {
    if (p->off[d] != q->off[d] || n[d] != e->n[d]) {
      snprintf(msg, msglen, "\"%s\": rank %d's block starts at cell (%d,%d,%d) with %d x %d x %d cells in the file, but "
               "at (%d,%d,%d) with %d x %d x %d cells in this run: not the same decomposition", path, (int)p->rank,
               (int)p->off[0] + 1, (int)p->off[1] + 1, (int)p->off[2] + 1, (int)n[0], (int)n[1], (int)n[2],
               (int)q->off[0] + 1, (int)q->off[1] + 1, (int)q->off[2] + 1, (int)e->n[0], (int)e->n[1], (int)e->n[2]);
      return EINVAL;
    }
  }
  return 0;
}

static char *concat(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  char *s = malloc(la + lb + 1);
  if (s) {
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
  }
  return s;
}

/* The variable and cell (global indices, 1-based) of value number at of a
 * file with header h, for the messages about a non-finite value. */
static void value_place(const adi_dump_header *h, uint64_t at, int *m, int ijk[3])
{
  uint64_t ncell = (uint64_t)h->ni * (uint64_t)h->nj * (uint64_t)h->nk, c = at % ncell;
  *m = (int)(at / ncell);
  ijk[0] = (int)(c % (uint64_t)h->ni) + 1 + h->place.off[0];
  c /= (uint64_t)h->ni;
  ijk[1] = (int)(c % (uint64_t)h->nj) + 1 + h->place.off[1];
  ijk[2] = (int)(c / (uint64_t)h->nj) + 1 + h->place.off[2];
}

static const char *nonfinite_name(double v) { return isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf"); }

int adi_dump_open_header(adi_dump_reader *r, const char *path, int flags, const adi_dump_expect *expect, char *msg,
                         size_t msglen)
{
  unsigned char hb[ADI_DUMP_HEADER_BYTES];
  raw_extra x;
  adi_open_status os;

  memset(r, 0, sizeof *r);
  r->f = adi_fopen_regular(path, &os);
  if (!r->f) {
    adi_open_message(path, &os, msg, msglen);
    return adi_open_errno(&os);
  }
  r->path = concat(path, "");
  if (!r->path) {
    snprintf(msg, msglen, "out of memory reading \"%s\"", path);
    adi_dump_close(r);
    return ENOMEM;
  }
  if (fread(hb, 1, ADI_DUMP_OLD_HEADER_BYTES, r->f) != ADI_DUMP_OLD_HEADER_BYTES) {
    snprintf(msg, msglen, "\"%s\" is shorter than the 80-byte header: not an adiflow dump, or truncated", path);
    goto bad;
  }
  if (memcmp(hb, ADI_DUMP_MAGIC, 8) != 0) {
    snprintf(msg, msglen, "\"%s\" is not an adiflow restart/dump file (bad magic)", path);
    goto bad;
  }
  memcpy(&r->h.version, hb + 8, 4);
  if (r->h.version < 1 || r->h.version > ADI_DUMP_VERSION) {
    snprintf(msg, msglen, "\"%s\": file version %d is not supported (this build reads versions 1, 2 and %d)", path,
             (int)r->h.version, ADI_DUMP_VERSION);
    goto bad;
  }
  if (r->h.version == 1 && !(flags & ADI_DUMP_ACCEPT_V1)) {
    snprintf(msg, msglen, "\"%s\" is a version-1 file: nothing protects its header (grid, iteration, reference "
             "residual), so a damaged one cannot be told from a good one. Read it only if you trust it, with "
             "--accept-old-restart (its reference residual is then not used); files written now are version %d", path,
             ADI_DUMP_VERSION);
    goto bad;
  }
  if (r->h.version == 2 && !(flags & ADI_DUMP_ACCEPT_V2)) {
    snprintf(msg, msglen, "\"%s\" is a version-2 file, which records no rank or decomposition, so it cannot be checked "
             "against the block it is read for. Read it only if each file is under its own rank's name, with "
             "--accept-old-restart; files written now are version %d", path, ADI_DUMP_VERSION);
    goto bad;
  }
  r->header_bytes = r->h.version >= 3 ? ADI_DUMP_HEADER_BYTES : ADI_DUMP_OLD_HEADER_BYTES;
  if (r->h.version >= 3 &&
      fread(hb + ADI_DUMP_OLD_HEADER_BYTES, 1, ADI_DUMP_HEADER_BYTES - ADI_DUMP_OLD_HEADER_BYTES, r->f) !=
          ADI_DUMP_HEADER_BYTES - ADI_DUMP_OLD_HEADER_BYTES) {
    snprintf(msg, msglen, "\"%s\" is shorter than the %d-byte header of version %d: the file is truncated", path,
             ADI_DUMP_HEADER_BYTES, (int)r->h.version);
    goto bad;
  }
  unpack_header(hb, &r->h, &x);
  if (check_header(path, &r->h, &x, msg, msglen) != 0) goto bad;
  r->ncell = (size_t)r->h.ni * (size_t)r->h.nj * (size_t)r->h.nk;
  /* at most 65536^3 * 5 * 8 bytes, well inside 64 bits */
  r->size = (uint64_t)r->header_bytes + (uint64_t)r->h.nvar * (uint64_t)r->ncell * 8u + 8u;
  if ((uint64_t)os.size != r->size) {
    snprintf(msg, msglen,
             "\"%s\" holds %lld bytes, but its header (grid %d x %d x %d) means %llu bytes: the file is %s", path,
             os.size, (int)r->h.ni, (int)r->h.nj, (int)r->h.nk, (unsigned long long)r->size,
             (uint64_t)os.size < r->size ? "truncated" : "damaged");
    goto bad;
  }
  if (check_place(path, &r->h, msg, msglen) != 0) goto bad;
  if (r->h.version >= 3 && x.crc != adi_crc64_final(adi_crc64_update(ADI_CRC64_INIT, hb, 120))) {
    snprintf(msg, msglen, "\"%s\": its header fails its checksum: the file is damaged; use an older copy or start "
             "afresh", path);
    goto bad;
  }
  /* the caller's grid and place before the data: a file of another case or
   * rank is refused at once, however large it claims to be */
  if (expect && check_expect(path, &r->h, expect, msg, msglen) != 0) goto bad;
  return 0;
bad:
  adi_dump_close(r);
  return EINVAL;
}

int adi_dump_verify(adi_dump_reader *r, char *msg, size_t msglen)
{
  unsigned char *chunk = NULL;
  uint64_t crc = ADI_CRC64_INIT, fl[2] = {0, 0}, stored, calc, left, at = 0, bad_at = UINT64_MAX;
  double bad_value = 0.0;
  const char *path = r->path;

  /* versions 1 and 2: the Fletcher-64 they stored (version 1: data only) */
  if (fseek(r->f, 0, SEEK_SET) != 0) {
    snprintf(msg, msglen, "cannot seek in \"%s\": %s", path, strerror(errno));
    goto bad;
  }
  chunk = malloc(r->size < (uint64_t)CHUNK_BYTES ? (size_t)r->size : (size_t)CHUNK_BYTES);
  if (!chunk) {
    snprintf(msg, msglen, "out of memory reading \"%s\"", path);
    goto bad;
  }
  if (fread(chunk, 1, (size_t)r->header_bytes, r->f) != (size_t)r->header_bytes) {
    snprintf(msg, msglen, "read error in \"%s\": %s", path, ferror(r->f) ? strerror(errno) : "unexpected end");
    goto bad;
  }
  if (r->h.version >= 3)
    crc = adi_crc64_update(crc, chunk, (size_t)r->header_bytes);
  else if (r->h.version == 2)
    adi_fletcher64_update(fl, chunk, (size_t)r->header_bytes);
  left = r->size - (uint64_t)r->header_bytes - 8u;
  while (left > 0) {
    size_t n = left > CHUNK_BYTES ? CHUNK_BYTES : (size_t)left;
    if (fread(chunk, 1, n, r->f) != n) {
      snprintf(msg, msglen, "read error in \"%s\": %s", path, ferror(r->f) ? strerror(errno) : "unexpected end");
      goto bad;
    }
    if (r->h.version >= 3)
      crc = adi_crc64_update(crc, chunk, n);
    else
      adi_fletcher64_update(fl, chunk, n);
    if (bad_at == UINT64_MAX) {
      for (size_t i = 0; i < n / 8; ++i) {
        double v;
        memcpy(&v, chunk + 8 * i, 8);
        if (!isfinite(v)) {
          bad_at = at + i;
          bad_value = v;
          break;
        }
      }
    }
    at += n / 8;
    left -= n;
  }
  free(chunk);
  chunk = NULL;
  calc = r->h.version >= 3 ? adi_crc64_final(crc) : adi_fletcher64_final(fl);
  if (fread(&stored, 8, 1, r->f) != 1 || stored != calc) {
    snprintf(msg, msglen, "\"%s\" fails its checksum: the file is damaged; use an older copy or start afresh", path);
    goto bad;
  }
  /* a checksum proves the bytes are those written, not that they are a
   * state: a NaN would be taken up silently and called a good restart */
  if (bad_at != UINT64_MAX) {
    int m, ijk[3];
    value_place(&r->h, bad_at, &m, ijk);
    snprintf(msg, msglen, "\"%s\": variable %s of cell (%d,%d,%d)%s is %s: a restart or dump holds finite values only; "
             "the file is damaged; use an older copy or start afresh", path, var_name[m], ijk[0], ijk[1], ijk[2],
             is_serial(&r->h.place) ? "" : " (global indices)", nonfinite_name(bad_value));
    goto bad;
  }
  if (fseek(r->f, r->header_bytes, SEEK_SET) != 0) {
    snprintf(msg, msglen, "cannot seek in \"%s\": %s", path, strerror(errno));
    goto bad;
  }
  return 0;
bad:
  free(chunk);
  adi_dump_close(r);
  return EINVAL;
}

int adi_dump_open(adi_dump_reader *r, const char *path, int flags, const adi_dump_expect *expect, char *msg,
                  size_t msglen)
{
  int e = adi_dump_open_header(r, path, flags, expect, msg, msglen);
  return e ? e : adi_dump_verify(r, msg, msglen);
}

int adi_dump_read(adi_dump_reader *r, double *values, size_t n, char *msg, size_t msglen)
{
  if (fread(values, sizeof(double), n, r->f) != n) {
    snprintf(msg, msglen, "read error in \"%s\": %s (was the file changed while being read?)", r->path,
             ferror(r->f) ? strerror(errno) : "unexpected end");
    return EIO;
  }
  return 0;
}

void adi_dump_close(adi_dump_reader *r)
{
  if (r->f) fclose(r->f);
  r->f = NULL;
  free(r->path);
  r->path = NULL;
}

static void writer_free(adi_dump_writer *w)
{
  free(w->tmp);
  free(w->path);
  free(w->stage);
  w->tmp = w->path = NULL;
  w->stage = NULL;
}

/* n bytes (the header, values): summed into the file's CRC and written in one call
 * (after a failed write only summed; the error is kept) */
static void put_bytes(adi_dump_writer *w, const void *p, size_t n)
{
  w->crc = adi_crc64_update(w->crc, p, n);
  errno = 0;
  if (!w->err && fwrite(p, 1, n, w->f) != n) w->err = errno ? errno : EIO;
}

/* the staged values */
static void flush_stage(adi_dump_writer *w)
{
  if (w->staged == 0) return;
  put_bytes(w, w->stage, w->staged);
  w->staged = 0;
}

int adi_dump_begin(adi_dump_writer *w, const char *path, const adi_dump_header *h, char *msg, size_t msglen)
{
  unsigned char hb[ADI_DUMP_HEADER_BYTES];
  memset(w, 0, sizeof *w);
  w->h = *h;
  w->h.version = ADI_DUMP_VERSION;
  w->bad_at = -1;
  w->crc = ADI_CRC64_INIT;
  w->path = concat(path, "");
  w->tmp = concat(path, ".tmp");
  if (!w->path || !w->tmp) {
    writer_free(w);
    snprintf(msg, msglen, "out of memory for the path \"%s\"", path);
    return ENOMEM;
  }
  /* a fresh file, never a link or file left by an earlier crash */
  adi_remove_stale(w->tmp);
  {
    int fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    w->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !w->f) close(fd);
  }
  if (!w->f) {
    int e = errno;
    snprintf(msg, msglen, "cannot write \"%s\": %s; the previous \"%s\" is kept", w->tmp, strerror(e), path);
    writer_free(w);
    return e;
  }
  {
    /* the staging buffer: the data's size, at most a chunk (none if out of memory) */
    uint64_t data = (uint64_t)w->h.ni * (uint64_t)w->h.nj * (uint64_t)w->h.nk * (uint64_t)w->h.nvar * 8u;
    w->stage_cap = data < (uint64_t)CHUNK_BYTES ? (size_t)data : (size_t)CHUNK_BYTES;
    w->stage = w->stage_cap > 0 ? malloc(w->stage_cap) : NULL;
  }
  adi_dump_pack_header(hb, &w->h);
  put_bytes(w, hb, sizeof hb);
  return 0;
}

void adi_dump_write(adi_dump_writer *w, const double *values, size_t n)
{
  if (w->bad_at < 0) {
    for (size_t i = 0; i < n; ++i) {
      if (!isfinite(values[i])) {
        w->bad_at = (int64_t)(w->nwritten + i);
        w->bad_value = values[i];
        break;
      }
    }
  }
  w->nwritten += n;
  if (w->err) return;
  if (w->stage != NULL) {
    const unsigned char *src = (const unsigned char *)values;
    size_t bytes = n * sizeof(double);
    while (bytes > 0) {
      size_t take = w->stage_cap - w->staged;
      if (take > bytes) take = bytes;
      memcpy(w->stage + w->staged, src, take);
      w->staged += take;
      src += take;
      bytes -= take;
      if (w->staged == w->stage_cap) flush_stage(w);
    }
    return;
  }
  put_bytes(w, values, n * sizeof(double));
}

/* The written file read back as a reader takes it: its header, size and
 * place (adi_dump_open_header), then the checksum of its bytes, summed as
 * they are read by threads (adi_crc64_file). A reader also refuses a
 * non-finite value (adi_dump_verify); here the writer refused those before
 * the commit, and a matching checksum means the bytes are the ones it
 * checked. */
static int read_back(const adi_dump_writer *w, adi_dump_reader *back, char *msg, size_t msglen)
{
  adi_dump_expect ex = {{w->h.ni, w->h.nj, w->h.nk}, w->h.place};
  uint64_t crc = ADI_CRC64_INIT, stored = 0;
  int e;
  if (adi_dump_open_header(back, w->tmp, 0, &ex, msg, msglen) != 0) return EIO;
  e = adi_crc64_file(fileno(back->f), 0, back->size - 8u, &crc);
  if (e == 0 && pread(fileno(back->f), &stored, 8, (off_t)(back->size - 8u)) != 8) e = EIO;
  if (e != 0) {
    snprintf(msg, msglen, "read error in \"%s\": %s", w->tmp, strerror(e));
  } else if (stored != adi_crc64_final(crc)) {
    snprintf(msg, msglen, "\"%s\" fails its checksum: the file is damaged", w->tmp);
    e = EIO;
  }
  adi_dump_close(back);
  return e;
}

int adi_dump_commit(adi_dump_writer *w, char *msg, size_t msglen)
{
  uint64_t csum;
  adi_dump_reader back;
  int e;
  flush_stage(w);
  csum = adi_crc64_final(w->crc);
  e = w->err;
  if (w->bad_at >= 0) {
    /* a file that every reader refuses is not written at all */
    int m, ijk[3];
    value_place(&w->h, (uint64_t)w->bad_at, &m, ijk);
    snprintf(msg, msglen, "not writing \"%s\": variable %s of cell (%d,%d,%d)%s is %s (a restart or dump holds "
             "finite values only); the previous \"%s\" is kept", w->path, var_name[m], ijk[0], ijk[1], ijk[2],
             is_serial(&w->h.place) ? "" : " (global indices)", nonfinite_name(w->bad_value), w->path);
    adi_dump_abort(w);
    return EINVAL;
  }
  errno = 0;
  if (!e && fwrite(&csum, 8, 1, w->f) != 1) e = errno ? errno : EIO;
  if (fflush(w->f) != 0 && !e) e = errno ? errno : EIO;
  if (fclose(w->f) != 0 && !e) e = errno ? errno : EIO;
  w->f = NULL;
  if (e) {
    snprintf(msg, msglen, "writing \"%s\" failed: %s; the previous \"%s\" is kept", w->tmp, strerror(e), w->path);
    adi_dump_abort(w);
    return e;
  }
  /* the disk takes the bytes while they are read back below */
  adi_start_writeback(w->tmp);
  /* read the finished file back: size, header, place and checksum as a reader sees them */
  if (read_back(w, &back, msg, msglen) != 0) {
    size_t used = strlen(msg);
    snprintf(msg + used, msglen - used, " (read back after writing; the previous \"%s\" is kept)", w->path);
    adi_dump_abort(w);
    return EIO;
  }
  e = adi_commit_file(w->tmp, w->path, -1, msg, msglen);
  writer_free(w);
  return e;
}

void adi_dump_abort(adi_dump_writer *w)
{
  if (w->f) fclose(w->f);
  w->f = NULL;
  if (w->tmp) unlink(w->tmp);
  writer_free(w);
}

/* ---- the Fortran drivers' entry points (fortran/field_io.f90) ----
 * q is the padded field q(-1:ldi-2, -1:ldj-2, -1:ldk-2, 5) of
 * fortran/grid_layout.f90; dims = ni, nj, nk, ldi, ldj, ldk. Only the
 * interior cells are stored. place = rank, npj, npk, the global grid (3),
 * the block's 0-based offsets (3): 0, 1, 1, ni, nj, nk, 0, 0, 0 serially. */

static size_t row_offset(const int32_t *dims, int j, int k, int m)
{
  /* cell (1, j, k) of variable m: (i+1) + ldi*((j+1) + ldj*((k+1) + ldk*(m-1))) */
  return (size_t)2 + (size_t)dims[3] * ((size_t)(j + 1) + (size_t)dims[4] * ((size_t)(k + 1) + (size_t)dims[5] * (size_t)(m - 1)));
}

static adi_dump_place place_of(const int32_t *pl)
{
  adi_dump_place p = {pl[0], pl[1], pl[2], {pl[3], pl[4], pl[5]}, {pl[6], pl[7], pl[8]}};
  return p;
}

int adi_dump_save(const char *path, const int32_t *dims, const int32_t *place, const double *q, int64_t iteration,
                  const double *res0, char *msg, int msglen)
{
  adi_dump_writer w;
  adi_dump_header h = {ADI_DUMP_VERSION, dims[0], dims[1], dims[2], 5, iteration, {0}, place_of(place)};
  int e;
  memcpy(h.res0, res0, sizeof h.res0);
  if ((e = adi_dump_begin(&w, path, &h, msg, (size_t)msglen)) != 0) return e;
  for (int m = 1; m <= 5; ++m)
    for (int k = 1; k <= dims[2]; ++k)
      for (int j = 1; j <= dims[1]; ++j) adi_dump_write(&w, q + row_offset(dims, j, k, m), (size_t)dims[0]);
  return adi_dump_commit(&w, msg, (size_t)msglen);
}

/* flags: ADI_DUMP_ACCEPT_V1/V2. *version gets the file's version. A
 * version-1 file's reference residual is never returned (zeros instead):
 * nothing protects its header, and a flipped bit there could declare a run
 * converged. */
int adi_dump_load(const char *path, const int32_t *dims, const int32_t *place, int32_t flags, double *q,
                  int64_t *iteration, double *res0, int32_t *version, char *msg, int msglen)
{
  adi_dump_reader r;
  adi_dump_expect ex = {{dims[0], dims[1], dims[2]}, place_of(place)};
  int e = adi_dump_open(&r, path, (int)flags, &ex, msg, (size_t)msglen);
  if (e) return e;
  for (int m = 1; m <= 5; ++m)
    for (int k = 1; k <= dims[2]; ++k)
      for (int j = 1; j <= dims[1]; ++j)
        if ((e = adi_dump_read(&r, q + row_offset(dims, j, k, m), (size_t)dims[0], msg, (size_t)msglen)) != 0) {
          adi_dump_close(&r);
          return e;
        }
  *iteration = r.h.iteration;
  *version = r.h.version;
  if (r.h.version >= 2)
    memcpy(res0, r.h.res0, sizeof r.h.res0);
  else
    memset(res0, 0, sizeof r.h.res0);
  adi_dump_close(&r);
  return 0;
}
