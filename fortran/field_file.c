/* The reader and writer of the field dump / restart format
 * (include/field_format.h), shared by the Fortran drivers (through
 * fortran/field_io.f90) and validation/compare_fields.c.
 *
 * Reading checks everything before the caller sees a value: a regular file
 * (a FIFO or a device would block or never end), every header field, the
 * exact size the header implies (computed without overflow), and the
 * checksum over the whole file. Writing goes to PATH.tmp; every write, the
 * flush and the close are checked, the finished file is read back and
 * verified, and only then renamed over PATH (fortran/safe_file.c). */
#define _POSIX_C_SOURCE 200809L
#include "field_format.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_file.h"

enum { CHUNK_BYTES = 1 << 20 };

static void unpack_header(const unsigned char *b, adi_dump_header *h, int32_t *reserved)
{
  memcpy(&h->version, b + 8, 4);
  memcpy(&h->ni, b + 12, 4);
  memcpy(&h->nj, b + 16, 4);
  memcpy(&h->nk, b + 20, 4);
  memcpy(&h->nvar, b + 24, 4);
  memcpy(reserved, b + 28, 4);
  memcpy(&h->iteration, b + 32, 8);
  memcpy(h->res0, b + 40, 40);
}

static void pack_header(unsigned char *b, const adi_dump_header *h)
{
  const int32_t reserved = 0;
  memcpy(b, ADI_DUMP_MAGIC, 8);
  memcpy(b + 8, &h->version, 4);
  memcpy(b + 12, &h->ni, 4);
  memcpy(b + 16, &h->nj, 4);
  memcpy(b + 20, &h->nk, 4);
  memcpy(b + 24, &h->nvar, 4);
  memcpy(b + 28, &reserved, 4);
  memcpy(b + 32, &h->iteration, 8);
  memcpy(b + 40, h->res0, 40);
}

/* Every header field against what the format allows; the message names the
 * field and its value. */
static int check_header(const char *path, const adi_dump_header *h, int32_t reserved, char *msg, size_t msglen)
{
  static const char *dim_name[3] = {"ni", "nj", "nk"};
  const int32_t dims[3] = {h->ni, h->nj, h->nk};
  if (h->version != 1 && h->version != ADI_DUMP_VERSION) {
    snprintf(msg, msglen, "\"%s\": file version %d is not supported (this build reads versions 1 and %d)", path,
             (int)h->version, ADI_DUMP_VERSION);
    return EINVAL;
  }
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
  if (reserved != 0) {
    snprintf(msg, msglen, "\"%s\": header field reserved = %d, must be 0: the file is damaged", path, (int)reserved);
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

int adi_dump_open(adi_dump_reader *r, const char *path, char *msg, size_t msglen)
{
  unsigned char hb[ADI_DUMP_HEADER_BYTES];
  unsigned char *chunk = NULL;
  uint64_t state[2] = {0, 0}, stored, expected, left;
  int32_t reserved;
  struct stat st;
  int fd, e;

  memset(r, 0, sizeof *r);
  if ((e = adi_check_regular_file(path, msg, msglen)) != 0) return e;
  /* O_NONBLOCK: a FIFO swapped in after the check must not block the open */
  fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    e = errno;
    snprintf(msg, msglen, "cannot open \"%s\": %s", path, strerror(e));
    return e;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    snprintf(msg, msglen, "\"%s\" is not a regular file", path);
    return EINVAL;
  }
  r->f = fdopen(fd, "rb");
  if (!r->f) {
    e = errno;
    close(fd);
    snprintf(msg, msglen, "cannot open \"%s\": %s", path, strerror(e));
    return e;
  }
  if (fread(hb, 1, sizeof hb, r->f) != sizeof hb) {
    snprintf(msg, msglen, "\"%s\" is shorter than the 80-byte header: not an adiflow dump, or truncated", path);
    goto bad;
  }
  if (memcmp(hb, ADI_DUMP_MAGIC, 8) != 0) {
    snprintf(msg, msglen, "\"%s\" is not an adiflow restart/dump file (bad magic)", path);
    goto bad;
  }
  unpack_header(hb, &r->h, &reserved);
  if (check_header(path, &r->h, reserved, msg, msglen) != 0) goto bad;
  r->ncell = (size_t)r->h.ni * (size_t)r->h.nj * (size_t)r->h.nk;
  /* at most 65536^3 * 5 * 8 bytes, well inside 64 bits */
  expected = ADI_DUMP_HEADER_BYTES + (uint64_t)r->h.nvar * (uint64_t)r->ncell * 8u + 8u;
  if ((uint64_t)st.st_size != expected) {
    snprintf(msg, msglen,
             "\"%s\" holds %lld bytes, but its header (grid %d x %d x %d) means %llu bytes: the file is %s", path,
             (long long)st.st_size, (int)r->h.ni, (int)r->h.nj, (int)r->h.nk, (unsigned long long)expected,
             (uint64_t)st.st_size < expected ? "truncated" : "damaged");
    goto bad;
  }
  /* the checksum over the whole file before any value is used */
  if (r->h.version >= 2) adi_fletcher64_update(state, hb, sizeof hb);
  chunk = malloc(CHUNK_BYTES);
  if (!chunk) {
    snprintf(msg, msglen, "out of memory reading \"%s\"", path);
    goto bad;
  }
  left = expected - ADI_DUMP_HEADER_BYTES - 8u;
  while (left > 0) {
    size_t n = left > CHUNK_BYTES ? CHUNK_BYTES : (size_t)left;
    if (fread(chunk, 1, n, r->f) != n) {
      snprintf(msg, msglen, "read error in \"%s\": %s", path, ferror(r->f) ? strerror(errno) : "unexpected end");
      goto bad;
    }
    adi_fletcher64_update(state, chunk, n);
    left -= n;
  }
  free(chunk);
  chunk = NULL;
  if (fread(&stored, 8, 1, r->f) != 1 || stored != adi_fletcher64_final(state)) {
    snprintf(msg, msglen, "\"%s\" fails its checksum: the file is damaged; use an older copy or start afresh", path);
    goto bad;
  }
  if (fseek(r->f, ADI_DUMP_HEADER_BYTES, SEEK_SET) != 0) {
    snprintf(msg, msglen, "cannot seek in \"%s\": %s", path, strerror(errno));
    goto bad;
  }
  return 0;
bad:
  free(chunk);
  adi_dump_close(r);
  return EINVAL;
}

int adi_dump_read(adi_dump_reader *r, double *values, size_t n, char *msg, size_t msglen)
{
  if (fread(values, sizeof(double), n, r->f) != n) {
    snprintf(msg, msglen, "read error in a dump: %s (was the file changed while being read?)",
             ferror(r->f) ? strerror(errno) : "unexpected end");
    return EIO;
  }
  return 0;
}

void adi_dump_close(adi_dump_reader *r)
{
  if (r->f) fclose(r->f);
  r->f = NULL;
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

static void writer_free(adi_dump_writer *w)
{
  free(w->tmp);
  free(w->path);
  w->tmp = w->path = NULL;
}

int adi_dump_begin(adi_dump_writer *w, const char *path, const adi_dump_header *h, char *msg, size_t msglen)
{
  unsigned char hb[ADI_DUMP_HEADER_BYTES];
  adi_dump_header hv = *h;
  memset(w, 0, sizeof *w);
  hv.version = ADI_DUMP_VERSION;
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
  pack_header(hb, &hv);
  adi_fletcher64_update(w->state, hb, sizeof hb);
  if (fwrite(hb, 1, sizeof hb, w->f) != sizeof hb) w->err = errno ? errno : EIO;
  return 0;
}

void adi_dump_write(adi_dump_writer *w, const double *values, size_t n)
{
  if (w->err) return;
  errno = 0;
  if (fwrite(values, sizeof(double), n, w->f) != n) w->err = errno ? errno : EIO;
  adi_fletcher64_update(w->state, values, n * sizeof(double));
}

int adi_dump_commit(adi_dump_writer *w, char *msg, size_t msglen)
{
  uint64_t csum = adi_fletcher64_final(w->state);
  adi_dump_reader back;
  int e = w->err;
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
  /* read the finished file back: size, header and checksum as a reader sees them */
  if (adi_dump_open(&back, w->tmp, msg, msglen) != 0) {
    size_t used = strlen(msg);
    snprintf(msg + used, msglen - used, " (read back after writing; the previous \"%s\" is kept)", w->path);
    adi_dump_abort(w);
    return EIO;
  }
  adi_dump_close(&back);
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
 * interior cells are stored. */

static size_t row_offset(const int32_t *dims, int j, int k, int m)
{
  /* cell (1, j, k) of variable m: (i+1) + ldi*((j+1) + ldj*((k+1) + ldk*(m-1))) */
  return (size_t)2 + (size_t)dims[3] * ((size_t)(j + 1) + (size_t)dims[4] * ((size_t)(k + 1) + (size_t)dims[5] * (size_t)(m - 1)));
}

int adi_dump_save(const char *path, const int32_t *dims, const double *q, int64_t iteration, const double *res0,
                  char *msg, int msglen)
{
  adi_dump_writer w;
  adi_dump_header h = {ADI_DUMP_VERSION, dims[0], dims[1], dims[2], 5, iteration, {0}};
  int e;
  memcpy(h.res0, res0, sizeof h.res0);
  if ((e = adi_dump_begin(&w, path, &h, msg, (size_t)msglen)) != 0) return e;
  for (int m = 1; m <= 5; ++m)
    for (int k = 1; k <= dims[2]; ++k)
      for (int j = 1; j <= dims[1]; ++j) adi_dump_write(&w, q + row_offset(dims, j, k, m), (size_t)dims[0]);
  return adi_dump_commit(&w, msg, (size_t)msglen);
}

int adi_dump_load(const char *path, const int32_t *dims, double *q, int64_t *iteration, double *res0, char *msg,
                  int msglen)
{
  adi_dump_reader r;
  int e = adi_dump_open(&r, path, msg, (size_t)msglen);
  if (e) return e;
  if (r.h.ni != dims[0] || r.h.nj != dims[1] || r.h.nk != dims[2]) {
    snprintf(msg, (size_t)msglen, "\"%s\": grid %d x %d x %d does not match the case grid %d x %d x %d", path,
             (int)r.h.ni, (int)r.h.nj, (int)r.h.nk, (int)dims[0], (int)dims[1], (int)dims[2]);
    adi_dump_close(&r);
    return EINVAL;
  }
  for (int m = 1; m <= 5; ++m)
    for (int k = 1; k <= dims[2]; ++k)
      for (int j = 1; j <= dims[1]; ++j)
        if ((e = adi_dump_read(&r, q + row_offset(dims, j, k, m), (size_t)dims[0], msg, (size_t)msglen)) != 0) {
          adi_dump_close(&r);
          return e;
        }
  *iteration = r.h.iteration;
  memcpy(res0, r.h.res0, sizeof r.h.res0);
  adi_dump_close(&r);
  return 0;
}
