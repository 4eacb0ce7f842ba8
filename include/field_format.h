/* Field dump / restart file format, and the one reader and writer of it
 * (fortran/field_file.c) that the Fortran drivers and the tools in
 * validation/ share.
 *
 * Version 3 (written since the switch to CRC-64):
 *
 *   offset  size  content
 *        0     8  magic "ADIFDUMP"
 *        8     4  int32 version (ADI_DUMP_VERSION = 3)
 *       12     4  int32 ni   \
 *       16     4  int32 nj    > the cells this file holds (an MPI rank: its block)
 *       20     4  int32 nk   /
 *       24     4  int32 nvar (5: rho, rho*u, rho*v, rho*w, E)
 *       28     4  int32 reserved (0)
 *       32     8  int64 iteration the state belongs to (>= 0)
 *       40    40  double[5] reference residual norms (largest seen so far; finite, >= 0)
 *       80     4  int32 rank that wrote the block (0 for a serial file)
 *       84     4  int32 npj  \ the decomposition in j and k (adiflow_mpi: rank = pj + npj*pk);
 *       88     4  int32 npk  / 1 x 1 for a serial file
 *       92     4  int32 reserved (0)
 *       96    12  int32[3] global grid gni, gnj, gnk (a serial file: ni, nj, nk)
 *      108    12  int32[3] the block's offsets in the global grid, 0-based (serial: 0 0 0)
 *      120     8  uint64 CRC-64 of bytes 0..119: the header can be trusted, and compared
 *                 with the case, before any of the data is read
 *      128     -  nvar blocks of ni*nj*nk doubles, interior cells, i fastest; every value
 *                 finite (a NaN or Inf is refused on writing and on reading)
 *    end-8     8  uint64 CRC-64 of every byte before it, header included
 *
 * CRC-64 is CRC-64/XZ: the ECMA-182 polynomial 0x42F0E1EBA9EA3693 bit-reflected
 * (0xC96C5795D7870F42), initial value and final xor all ones; the CRC of the
 * ASCII bytes "123456789" is 0x995DC9BBDF1939FA. Unlike the Fletcher-64 of
 * versions 1 and 2 (sums modulo 2^32-1, to which the words 0x00000000 and
 * 0xFFFFFFFF are the same number), it detects every change of up to 64
 * consecutive bits and any odd number of flipped bits.
 *
 * Older versions, 80-byte header (offsets 0..79 as above), data at 80:
 *   version 2: Fletcher-64 of header and data at the end. Read: its header is
 *              covered by the checksum, but the checksum cannot see a 32-bit
 *              word turning from 0x00000000 into 0xFFFFFFFF (or back); the data
 *              is checked for NaN/Inf. It holds no rank or decomposition, so
 *              adiflow_mpi reads version-2 rank files only when asked to.
 *   version 1: Fletcher-64 of the data alone; nothing protects the header.
 *              Read only when asked to (--accept-old-restart), and then its
 *              reference residual is never used (the caller gets zeros).
 * All values in the machine's byte order (little-endian on x86-64 and the
 * GPU hosts).
 */
#ifndef ADIFLOW_FIELD_FORMAT_H
#define ADIFLOW_FIELD_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ADI_DUMP_MAGIC "ADIFDUMP"
#define ADI_DUMP_VERSION 3
#define ADI_DUMP_HEADER_BYTES 128
#define ADI_DUMP_OLD_HEADER_BYTES 80   /* versions 1 and 2 */
/* the largest grid a dump may describe per direction (the solver allows 4096;
 * a damaged header claiming more is refused before any allocation) */
#define ADI_DUMP_MAX_N 65536
/* the most blocks a decomposition may have in j or in k */
#define ADI_DUMP_MAX_NP 65536

/* Which older versions a reader takes (adi_dump_open's flags). Version 3 is
 * always read. */
#define ADI_DUMP_ACCEPT_V1 1
#define ADI_DUMP_ACCEPT_V2 2

/* CRC-64/XZ (see above), fed in pieces: crc = adi_crc64_update(crc, ...)
 * starting from ADI_CRC64_INIT; adi_crc64_final gives the stored value. */
#define ADI_CRC64_INIT UINT64_MAX
uint64_t adi_crc64_update(uint64_t crc, const void *data, size_t nbytes);
/* the same over nbytes of file fd from offset off (read with pread, the
 * pieces on threads as above): 0 with *crc updated, else the errno of a
 * failed read (EIO where the file ends early) */
int adi_crc64_file(int fd, uint64_t off, uint64_t nbytes, uint64_t *crc);
static inline uint64_t adi_crc64_final(uint64_t crc) { return crc ^ UINT64_MAX; }

/* Fletcher-64 over 32-bit little-endian words (versions 1 and 2, and
 * compare_fields --info's figure of the data); state carries (s1, s2) so
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

/* Where a file's block lies: rank, decomposition, global grid, offsets. A
 * serial file is rank 0 of 1 x 1, global grid = its own, offsets 0. */
typedef struct adi_dump_place {
  int32_t rank, npj, npk;
  int32_t gn[3];    /* global grid */
  int32_t off[3];   /* 0-based offsets of the block's first cell */
} adi_dump_place;

typedef struct adi_dump_header {
  int32_t version, ni, nj, nk, nvar;
  int64_t iteration;
  double res0[5];
  adi_dump_place place;   /* version 3; filled as a serial file's for 1 and 2 */
} adi_dump_header;

/* What a caller requires of a file before its data is read: the block it
 * must hold and where that block lies. */
typedef struct adi_dump_expect {
  int32_t n[3];
  adi_dump_place place;
} adi_dump_expect;

/* An open dump being read. adi_dump_open_header reads and checks the header
 * (its CRC, every field, the exact file size it implies) and compares it with
 * expect if given, without reading the data; adi_dump_verify then reads the
 * data once (checksum over the whole file, every value finite). adi_dump_open
 * does both. After them the blocks are read in order with adi_dump_read. */
typedef struct adi_dump_reader {
  FILE *f;
  char *path;
  adi_dump_header h;
  size_t ncell;   /* ni*nj*nk */
  long header_bytes;
  uint64_t size;  /* bytes on disk, as the header implies */
} adi_dump_reader;

/* A dump being written to PATH.tmp; adi_dump_commit verifies it and renames
 * it over PATH, so PATH is never left damaged or empty. */
typedef struct adi_dump_writer {
  FILE *f;
  char *tmp, *path;
  uint64_t crc;
  adi_dump_header h;
  uint64_t nwritten;     /* values written so far */
  int64_t bad_at;        /* the first non-finite value's index, -1 if none */
  double bad_value;
  int err;               /* first errno seen, 0 if none */
  /* values staged for one large write and one checksum pass (several
   * threads; fortran/crc64.c); NULL: each call writes and sums its own */
  unsigned char *stage;
  size_t staged, stage_cap;
} adi_dump_writer;

/* Each returns 0, or non-zero with a one-line reason in msg (naming the file
 * and the field or the system error). flags: ADI_DUMP_ACCEPT_V1/V2; expect
 * may be NULL. */
int adi_dump_open_header(adi_dump_reader *r, const char *path, int flags, const adi_dump_expect *expect, char *msg,
                         size_t msglen);
int adi_dump_verify(adi_dump_reader *r, char *msg, size_t msglen);
int adi_dump_open(adi_dump_reader *r, const char *path, int flags, const adi_dump_expect *expect, char *msg,
                  size_t msglen);
int adi_dump_read(adi_dump_reader *r, double *values, size_t n, char *msg, size_t msglen);
void adi_dump_close(adi_dump_reader *r);

/* h->version is ignored (ADI_DUMP_VERSION is written); h->place must be set
 * (adi_dump_serial_place for a serial file). */
int adi_dump_begin(adi_dump_writer *w, const char *path, const adi_dump_header *h, char *msg, size_t msglen);
void adi_dump_write(adi_dump_writer *w, const double *values, size_t n);
int adi_dump_commit(adi_dump_writer *w, char *msg, size_t msglen);
void adi_dump_abort(adi_dump_writer *w);

/* The drivers' whole-field writer (fortran/field_io.f90; fortran/dump_job.c
 * runs it on a thread): the interior of the padded field q(-1:ldi-2,
 * -1:ldj-2, -1:ldk-2, 5), dims = ni, nj, nk, ldi, ldj, ldk; place = rank,
 * npj, npk, the global grid (3), the block's 0-based offsets (3). The
 * begin/write/commit sequence above, with its checks and commit. */
int adi_dump_save(const char *path, const int32_t *dims, const int32_t *place, const double *q, int64_t iteration,
                  const double *res0, char *msg, int msglen);

/* The place of a serial file of ni x nj x nk cells. */
adi_dump_place adi_dump_serial_place(int32_t ni, int32_t nj, int32_t nk);

/* The header of a version-3 file, packed with its CRC (for tests/suites/dump_fixtures.c). */
void adi_dump_pack_header(unsigned char b[ADI_DUMP_HEADER_BYTES], const adi_dump_header *h);

#endif
