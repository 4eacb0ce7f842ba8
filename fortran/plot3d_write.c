/* See plot3d_write.h. The layouts are those the reader documents
 * (fortran/plot3d_file.h): per block x, y[, z] as whole arrays, i fastest;
 * Fortran records as gfortran writes them (a subrecord's start marker
 * negative when another follows, its end marker negative when one precedes:
 * the gfortran manual, "File format of unformatted sequential files"). */
#define _POSIX_C_SOURCE 200809L
#include "plot3d_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safe_file.h"

static void store(unsigned char *b, uint64_t v, int nbytes, int big)
{
  for (int i = 0; i < nbytes; ++i) b[big ? nbytes - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static void store_real(unsigned char *b, double v, int nbytes, int big)
{
  if (nbytes == 4) {
    float f = (float)v;
    uint32_t w;
    memcpy(&w, &f, 4);
    store(b, w, 4, big);
  } else {
    uint64_t w;
    memcpy(&w, &v, 8);
    store(b, w, 8, big);
  }
}

/* One record: raw, or between markers, split into subrecords. */
static int put_record(FILE *f, const p3d_write_options *o, const unsigned char *data, int64_t len)
{
  int64_t done = 0, piece_max = o->max_subrecord > 0 ? o->max_subrecord : len;
  int first = 1;
  unsigned char m[8];
  if (o->encoding == P3D_RAW) return fwrite(data, 1, (size_t)len, f) == (size_t)len ? 0 : -1;
  do {
    int64_t piece = len - done < piece_max ? len - done : piece_max;
    int last = done + piece == len;
    store(m, (uint64_t)(last ? piece : -piece), o->marker_bytes, o->big_endian);
    if (fwrite(m, 1, (size_t)o->marker_bytes, f) != (size_t)o->marker_bytes) return -1;
    if (fwrite(data + done, 1, (size_t)piece, f) != (size_t)piece) return -1;
    store(m, (uint64_t)(first ? piece : -piece), o->marker_bytes, o->big_endian);
    if (fwrite(m, 1, (size_t)o->marker_bytes, f) != (size_t)o->marker_bytes) return -1;
    done += piece;
    first = 0;
  } while (done < len);
  return 0;
}

/* The values of a block: nv per node (the coordinates: o->dims; a q
 * file: 5), value v of node m at val[b][v*N + m]; head: a q file's four
 * reals before each block's values (NULL: none, a grid file). */
static int write_binary(FILE *f, const p3d_write_options *o, int nb, const int64_t *n, const double *const *xyz,
                        int nv, const double *head)
{
  const int p = o->real_bytes;
  unsigned char hdr[8 + 12 * P3D_MAX_BLOCKS];
  int e = 0;
  if (o->with_count) {
    store(hdr, (uint64_t)nb, 4, o->big_endian);
    if (put_record(f, o, hdr, 4) != 0) return -1;
  }
  for (int b = 0; b < nb; ++b)
    for (int d = 0; d < o->dims; ++d) store(hdr + 4 * (b * o->dims + d), (uint64_t)n[3 * b + d], 4, o->big_endian);
  if (put_record(f, o, hdr, 4 * nb * o->dims) != 0) return -1;
  for (int b = 0; b < nb && !e; ++b) {
    const int64_t nn = n[3 * b] * n[3 * b + 1] * n[3 * b + 2];
    const int blank = o->iblank && !head;
    int64_t len = nv * nn * p + (blank ? 4 * nn : 0);
    unsigned char *data;
    if (head) {
      for (int h = 0; h < 4; ++h) store_real(hdr + h * p, head[h], p, o->big_endian);
      if (put_record(f, o, hdr, 4 * p) != 0) return -1;
    }
    data = malloc((size_t)len);
    if (!data) return -1;
    for (int64_t v = 0; v < nv * nn; ++v) store_real(data + v * p, xyz[b][v], p, o->big_endian);
    for (int64_t m = 0; blank && m < nn; ++m) store(data + nv * nn * p + 4 * m, 1, 4, o->big_endian);
    e = put_record(f, o, data, len);
    free(data);
  }
  return e;
}

static int write_text(FILE *f, const p3d_write_options *o, int nb, const int64_t *n, const double *const *xyz, int nv,
                      const double *head)
{
  if (o->with_count && fprintf(f, "%d\n", nb) < 0) return -1;
  for (int b = 0; b < nb; ++b) {
    for (int d = 0; d < o->dims; ++d)
      if (fprintf(f, d ? " %lld" : "%lld", (long long)n[3 * b + d]) < 0) return -1;
    if (fputc('\n', f) == EOF) return -1;
  }
  /* one value a line: tests edit a value with sed; 17 (9) significant
   * digits read back to the same double (float) */
  for (int b = 0; b < nb; ++b) {
    const int64_t nn = n[3 * b] * n[3 * b + 1] * n[3 * b + 2];
    for (int h = 0; head && h < 4; ++h)
      if (fprintf(f, "%.17g\n", head[h]) < 0) return -1;
    for (int64_t v = 0; v < nv * nn; ++v)
      if ((o->real_bytes == 4 ? fprintf(f, "%.9g\n", (double)(float)xyz[b][v]) : fprintf(f, "%.17g\n", xyz[b][v])) < 0)
        return -1;
    for (int64_t m = 0; o->iblank && !head && m < nn; ++m)
      if (fputs("1\n", f) == EOF) return -1;
  }
  return 0;
}

int p3d_write(const char *path, const p3d_write_options *o, const int64_t n[3], const double *xyz, char *msg,
              size_t msglen)
{
  int64_t ns[3 * P3D_MAX_BLOCKS];
  const double *xs[P3D_MAX_BLOCKS];
  if (o->nblocks < 1 || o->nblocks > P3D_MAX_BLOCKS) {
    snprintf(msg, msglen, "%d blocks: 1 to %d allowed", o->nblocks, P3D_MAX_BLOCKS);
    return -1;
  }
  for (int b = 0; b < o->nblocks; ++b) {
    memcpy(&ns[3 * b], n, 3 * sizeof *n);
    xs[b] = xyz;
  }
  return p3d_write_blocks(path, o, o->nblocks, ns, xs, msg, msglen);
}

static int write_file(const char *path, const p3d_write_options *o, int nb, const int64_t *n, const double *const *val,
                      int nv, const double *head, char *msg, size_t msglen)
{
  size_t plen = strlen(path);
  char *tmp;
  FILE *f;
  int fd, e;
  if (nb < 1 || nb > P3D_MAX_BLOCKS) {
    snprintf(msg, msglen, "%d blocks: 1 to %d allowed", nb, P3D_MAX_BLOCKS);
    return -1;
  }
  tmp = malloc(plen + 5);
  if (!tmp) {
    snprintf(msg, msglen, "out of memory");
    return -1;
  }
  snprintf(tmp, plen + 5, "%s.tmp", path);
  adi_remove_stale(tmp);
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (!f) {
    snprintf(msg, msglen, "cannot create \"%s\": %s", tmp, strerror(errno));
    if (fd >= 0) close(fd);
    free(tmp);
    return -1;
  }
  e = o->encoding == P3D_TEXT ? write_text(f, o, nb, n, val, nv, head) : write_binary(f, o, nb, n, val, nv, head);
  if (fclose(f) != 0) e = -1;
  if (e != 0) {
    snprintf(msg, msglen, "writing \"%s\" failed: %s", tmp, strerror(errno));
    unlink(tmp);
    free(tmp);
    return -1;
  }
  e = adi_commit_file(tmp, path, -1, msg, msglen);
  free(tmp);
  return e ? -1 : 0;
}

int p3d_write_blocks(const char *path, const p3d_write_options *o, int nb, const int64_t *n,
                     const double *const *xyz, char *msg, size_t msglen)
{
  return write_file(path, o, nb, n, xyz, o->dims, NULL, msg, msglen);
}

int p3d_write_q(const char *path, const p3d_write_options *o, int nb, const int64_t *n, const double *const *q,
                const double head[4], char *msg, size_t msglen)
{
  if (o->dims != 3) {
    snprintf(msg, msglen, "a Plot3D q file is written in 3D only");
    return -1;
  }
  return write_file(path, o, nb, n, q, 5, head, msg, msglen);
}

/* The drivers' solution files (fortran/plot3d_output.f90): one block, whole,
 * multi-block header, Fortran unformatted (4-byte record markers), 8-byte
 * reals, little-endian: the variant ParaView's and Tecplot's Plot3D readers
 * take with "multi grid", "binary", "byte count", "double precision". */
int adi_p3d_write_solution(const char *grid_path, const char *q_path, int nb, const int64_t *n, const double *xyz,
                           const double *q, const double head[4], char *msg, int msglen)
{
  const p3d_write_options o = {P3D_FORTRAN, 8, 0, 4, 0, 1, 3, 1, 0};
  const double *xs[P3D_MAX_BLOCKS], *qs[P3D_MAX_BLOCKS];
  int64_t at = 0;
  if (nb < 1 || nb > P3D_MAX_BLOCKS) {
    snprintf(msg, (size_t)msglen, "%d blocks: the Plot3D solution files take 1 to %d", nb, P3D_MAX_BLOCKS);
    return -1;
  }
  for (int b = 0; b < nb; ++b) {
    xs[b] = xyz + 3 * at;
    qs[b] = q + 5 * at;
    at += n[3 * b] * n[3 * b + 1] * n[3 * b + 2];
  }
  if (p3d_write_blocks(grid_path, &o, nb, n, xs, msg, (size_t)msglen) != 0) return -1;
  return p3d_write_q(q_path, &o, nb, n, qs, head, msg, (size_t)msglen);
}

int adi_p3d_max_blocks(void) { return P3D_MAX_BLOCKS; }
