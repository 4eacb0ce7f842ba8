/* Field dump / restart file format, and the one reader and writer of it
 * (fortran/field_file.c) that the Fortran drivers and the tools in
 * validation/ share.
 *
 *   offset  size  content
 *        0     8  magic "ADIFDUMP"
 *        8     4  int32 version (ADI_DUMP_VERSION)
 *       12     4  int32 ni
 *       16     4  int32 nj
 *       20     4  int32 nk
 *       24     4  int32 nvar (5: rho, rho*u, rho*v, rho*w, E)
 *       28     4  int32 reserved (0)
 *       32     8  int64 iteration the state belongs to (>= 0)
 *       40    40  double[5] reference residual norms (largest seen so far; finite, >= 0)
 *       80     -  nvar blocks of ni*nj*nk doubles, interior cells, i fastest
 *    end-8     8  uint64 Fletcher-64 checksum of every byte before it
 *                 (version 2: header and data; version 1 files, still read,
 *                 covered only the data blocks)
 * All values in the machine's byte order (little-endian on x86-64 and the
 * GPU hosts). Restart files are the same format.
 */
#ifndef ADIFLOW_FIELD_FORMAT_H
#define ADIFLOW_FIELD_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ADI_DUMP_MAGIC "ADIFDUMP"
#define ADI_DUMP_VERSION 2
#define ADI_DUMP_HEADER_BYTES 80
/* the largest grid a dump may describe per direction (the solver allows 4096;
 * a damaged header claiming more is refused before any allocation) */
#define ADI_DUMP_MAX_N 65536

/* Fletcher-64 over 32-bit little-endian words; state carries (s1, s2) so
 * data can be fed in pieces. nbytes must be a multiple of 4. */
static inline void adi_fletcher64_update(uint64_t state[2], const void *data, size_t nbytes)
{
  const uint32_t mod = 0xffffffffu;
  const unsigned char *p = (const unsigned char *)data;
  uint64_t s1 = state[0], s2 = state[1];
  for (size_t i = 0; i + 4 <= nbytes; i += 4) {
    uint32_t w;
    memcpy(&w, p + i, 4);
    s1 = (s1 + w) % mod;
    s2 = (s2 + s1) % mod;
  }
  state[0] = s1;
  state[1] = s2;
}

static inline uint64_t adi_fletcher64_final(const uint64_t state[2])
{
  return (state[1] << 32) | state[0];
}

typedef struct adi_dump_header {
  int32_t version, ni, nj, nk, nvar;
  int64_t iteration;
  double res0[5];
} adi_dump_header;

/* An open dump being read: adi_dump_open has checked the whole file (regular
 * file, every header field, the exact size, the checksum) before it returns
 * 0; the blocks are then read in order with adi_dump_read. */
typedef struct adi_dump_reader {
  FILE *f;
  adi_dump_header h;
  size_t ncell;   /* ni*nj*nk */
} adi_dump_reader;

/* A dump being written to PATH.tmp; adi_dump_commit verifies it and renames
 * it over PATH, so PATH is never left damaged or empty. */
typedef struct adi_dump_writer {
  FILE *f;
  char *tmp, *path;
  uint64_t state[2];
  int err;        /* first errno seen, 0 if none */
} adi_dump_writer;

/* Each returns 0, or non-zero with a one-line reason in msg (naming the file
 * and the field or the system error). */
int adi_dump_open(adi_dump_reader *r, const char *path, char *msg, size_t msglen);
int adi_dump_read(adi_dump_reader *r, double *values, size_t n, char *msg, size_t msglen);
void adi_dump_close(adi_dump_reader *r);

int adi_dump_begin(adi_dump_writer *w, const char *path, const adi_dump_header *h, char *msg, size_t msglen);
void adi_dump_write(adi_dump_writer *w, const double *values, size_t n);
int adi_dump_commit(adi_dump_writer *w, char *msg, size_t msglen);
void adi_dump_abort(adi_dump_writer *w);

#endif
