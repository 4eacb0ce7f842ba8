/* CRC-64/XZ of the dump and restart format (include/field_format.h).
 *
 * Slicing by 8: table[0] is the classic byte-at-a-time table of the
 * reflected polynomial; table[k][b] is the CRC contribution of byte b
 * followed by k zero bytes, so eight bytes are folded in with eight look-ups
 * (about 8x the byte loop).
 *
 * A long buffer is cut into pieces summed on threads of their own: a
 * restart of a 256^3 grid is 670 MB, summed when written and again when
 * read back, and one thread's look-ups were a large part of the end of
 * such a run (bench/log/2026-11-29-time-to-accuracy.md, section 16). The
 * CRC register is linear, so the register after A then B is the register
 * after A followed by len(B) zero bytes, xor the register of B started
 * from zero; the zero bytes are a 64x64 matrix over GF(2), raised to
 * len(B) by squaring, each piece's on its own thread. The result is the
 * same number whatever the pieces. */
#define _GNU_SOURCE   /* sched_getaffinity */
#include "field_format.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

static const uint64_t crc_poly = 0xC96C5795D7870F42ull;   /* ECMA-182, bit-reflected */

/* pieces: at least CRC_PIECE bytes each, at most CRC_MAX_PIECES */
enum { CRC_MAX_PIECES = 16 };
static const size_t CRC_PIECE = (size_t)4 << 20;

static uint64_t crc_table[8][256];
static int crc_cpus = 1;
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

/* the threads a long buffer may use: OMP_NUM_THREADS where that is set (the
 * solver's own thread budget, as OpenMP reads it), else the CPUs this
 * process may run on */
static int crc_threads(void)
{
  int n = 0;
  const char *omp = getenv("OMP_NUM_THREADS");
  if (omp != NULL) {
    char *end;
    long k = strtol(omp, &end, 10);
    if (end != omp && k >= 1) return k < CRC_MAX_PIECES ? (int)k : CRC_MAX_PIECES;
  }
#ifdef CPU_COUNT
  {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  }
#endif
  if (n < 1) n = (int)sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n;
}

static void crc_init(void)
{
  for (int b = 0; b < 256; ++b) {
    uint64_t c = (uint64_t)b;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ crc_poly : c >> 1;
    crc_table[0][b] = c;
  }
  for (int b = 0; b < 256; ++b)
    for (int k = 1; k < 8; ++k) crc_table[k][b] = (crc_table[k - 1][b] >> 8) ^ crc_table[0][crc_table[k - 1][b] & 0xffu];
  crc_cpus = crc_threads();
}

static uint64_t crc_serial(uint64_t crc, const unsigned char *p, size_t nbytes)
{
  while (nbytes >= 8) {
    /* the bytes in file order, whatever the machine's byte order */
    uint64_t w = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
                 (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
    crc ^= w;
    crc = crc_table[7][crc & 0xffu] ^ crc_table[6][(crc >> 8) & 0xffu] ^ crc_table[5][(crc >> 16) & 0xffu] ^
          crc_table[4][(crc >> 24) & 0xffu] ^ crc_table[3][(crc >> 32) & 0xffu] ^ crc_table[2][(crc >> 40) & 0xffu] ^
          crc_table[1][(crc >> 48) & 0xffu] ^ crc_table[0][crc >> 56];
    p += 8;
    nbytes -= 8;
  }
  while (nbytes-- > 0) crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xffu];
  return crc;
}

/* a 64x64 matrix over GF(2) as its 64 columns, times vector v */
static uint64_t gf2_times(const uint64_t *mat, uint64_t v)
{
  uint64_t s = 0;
  for (; v != 0; v >>= 1, ++mat)
    if (v & 1u) s ^= *mat;
  return s;
}

static void gf2_square(uint64_t *sq, const uint64_t *mat)
{
  for (int n = 0; n < 64; ++n) sq[n] = gf2_times(mat, mat[n]);
}

/* the register after nbytes zero bytes more */
static uint64_t crc_zeros(uint64_t reg, size_t nbytes)
{
  uint64_t even[64], odd[64], row = 1;
  if (nbytes == 0 || reg == 0) return reg;
  /* one zero bit: reg -> (reg >> 1) ^ (reg & 1 ? poly : 0) */
  odd[0] = crc_poly;
  for (int n = 1; n < 64; ++n, row <<= 1) odd[n] = row;
  gf2_square(even, odd);   /* two zero bits */
  gf2_square(odd, even);   /* four */
  for (;;) {
    gf2_square(even, odd);   /* one zero byte the first time, then 4, 16, ... */
    if (nbytes & 1u) reg = gf2_times(even, reg);
    if ((nbytes >>= 1) == 0) break;
    gf2_square(odd, even);   /* 2, 8, 32, ... */
    if (nbytes & 1u) reg = gf2_times(odd, reg);
    if ((nbytes >>= 1) == 0) break;
  }
  return reg;
}

/* a piece: its bytes (in memory at p, or else in file fd from offset off),
 * the register it starts from, and the bytes after it in the whole; its run
 * leaves its share of the whole's register in crc (its own register carried
 * over the zero bytes that follow), so that the register of the whole is the
 * xor of the shares and every piece's operator is raised on its own thread */
typedef struct crc_piece {
  const unsigned char *p;
  int fd;
  uint64_t off, n, after;
  uint64_t crc;
  int err;   /* a failed read of the file: its errno (EIO: the file ended early) */
} crc_piece;

/* a file piece's bytes read and summed in CRC_PIECE chunks */
static void crc_read_piece(crc_piece *c)
{
  size_t cap = c->n < CRC_PIECE ? (size_t)c->n : CRC_PIECE;
  unsigned char *buf = malloc(cap > 0 ? cap : 1);
  uint64_t at = c->off, left = c->n;
  if (buf == NULL) {
    c->err = ENOMEM;
    return;
  }
  while (left > 0) {
    size_t want = left < cap ? (size_t)left : cap;
    ssize_t got = pread(c->fd, buf, want, (off_t)at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      c->err = got < 0 ? errno : EIO;
      break;
    }
    c->crc = crc_serial(c->crc, buf, (size_t)got);
    at += (uint64_t)got;
    left -= (uint64_t)got;
  }
  free(buf);
}

static void *crc_piece_run(void *arg)
{
  crc_piece *c = (crc_piece *)arg;
  if (c->p != NULL)
    c->crc = crc_serial(c->crc, c->p, (size_t)c->n);
  else
    crc_read_piece(c);
  if (c->err == 0) c->crc = crc_zeros(c->crc, (size_t)c->after);
  return NULL;
}

/* the pieces of nbytes (at least CRC_PIECE bytes each, at most the threads
 * allowed; 1 for a short whole), the first started from register crc: their
 * count; each piece's place set but its source (p or fd) */
static int crc_split(uint64_t nbytes, uint64_t crc, crc_piece pc[CRC_MAX_PIECES])
{
  int np;
  uint64_t per;
  pthread_once(&crc_once, crc_init);
  np = (int)(nbytes / CRC_PIECE);
  if (np > crc_cpus) np = crc_cpus;
  if (np > CRC_MAX_PIECES) np = CRC_MAX_PIECES;
  if (np < 1) np = 1;
  per = nbytes / (uint64_t)np;
  for (int i = 0; i < np; ++i) {
    pc[i].p = NULL;
    pc[i].fd = -1;
    pc[i].off = (uint64_t)i * per;
    pc[i].n = i == np - 1 ? nbytes - (uint64_t)i * per : per;
    pc[i].after = nbytes - (uint64_t)i * per - pc[i].n;
    pc[i].crc = i == 0 ? crc : 0;
    pc[i].err = 0;
  }
  return np;
}

/* every piece run, each but the first on a thread of its own (a piece whose
 * thread cannot start is summed here instead); 0 with the whole's register
 * in *crc, or the first piece's error */
static int crc_run(crc_piece *pc, int np, uint64_t *crc)
{
  pthread_t th[CRC_MAX_PIECES];
  int started[CRC_MAX_PIECES];
  for (int i = 1; i < np; ++i) started[i] = pthread_create(&th[i], NULL, crc_piece_run, &pc[i]) == 0;
  crc_piece_run(&pc[0]);
  for (int i = 1; i < np; ++i) {
    if (started[i]) pthread_join(th[i], NULL);
    else crc_piece_run(&pc[i]);
  }
  for (int i = 0; i < np; ++i)
    if (pc[i].err != 0) return pc[i].err;
  *crc = 0;
  for (int i = 0; i < np; ++i) *crc ^= pc[i].crc;
  return 0;
}

uint64_t adi_crc64_update(uint64_t crc, const void *data, size_t nbytes)
{
  crc_piece pc[CRC_MAX_PIECES];
  const unsigned char *p = (const unsigned char *)data;
  int np = crc_split(nbytes, crc, pc);
  if (np < 2) return crc_serial(crc, p, nbytes);
  for (int i = 0; i < np; ++i) pc[i].p = p + pc[i].off;
  (void)crc_run(pc, np, &crc);   /* memory pieces do not fail */
  return crc;
}

/* ---- the CRC of a file's bytes, each piece read by its own thread: the
 * reads (the kernel's copies from the page cache) are as much of a read-back
 * as the sums ---- */
int adi_crc64_file(int fd, uint64_t off, uint64_t nbytes, uint64_t *crc)
{
  crc_piece pc[CRC_MAX_PIECES];
  int np = crc_split(nbytes, *crc, pc);
  for (int i = 0; i < np; ++i) {
    pc[i].fd = fd;
    pc[i].off += off;
  }
  return crc_run(pc, np, crc);
}
