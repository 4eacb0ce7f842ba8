/* dump_fixtures: field dumps for the tests, through the one writer of the
 * format (include/field_format.h, fortran/field_file.c) where a valid file is
 * wanted, and by hand where the tests need a file that writer never makes.
 *
 *   dump_fixtures DIR
 *     three dumps of a small quasi-2D state for the tests of compare_fields'
 *     tolerance (tests/suites/run_tests.sh):
 *       base.dump    rho, rho*u, rho*v, E of order 1, rho*w exactly zero
 *       wnoise.dump  base with rho*w holding round-off (|rho*w| <= 3e-17), as
 *                    a quasi-2D run may leave it: within 1e-12 of base, since
 *                    the momenta are measured against the momentum's scale
 *       upert.dump   base with one rho*u value moved by 1e-10 of its scale:
 *                    above 1e-12
 *   dump_fixtures --crc TEXT
 *     prints the CRC-64 of TEXT's bytes (the check value of "123456789" is
 *     995dc9bbdf1939fa for CRC-64/XZ)
 *   dump_fixtures --header FILE NI NJ NK
 *     writes the 128-byte header (valid, with its CRC) of a serial dump of
 *     NI x NJ x NK cells and nothing else: `truncate` then gives it the size
 *     the header implies (sparse), for the test of a huge file of another grid
 *   dump_fixtures --reseal FILE
 *     recomputes both CRCs of a format-3 FILE after the test edited it (a NaN
 *     in the data that only the value check can see)
 *   dump_fixtures --old VERSION IN OUT
 *     rewrites the format-3 file IN as format VERSION (1 or 2): the 80-byte
 *     header and the Fletcher-64 those versions stored (version 1: of the
 *     data alone), for the tests of how older files are read
 * Exit 0 on success, 2 otherwise. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "field_format.h"

enum { NI = 8, NJ = 6, NCELL = NI*NJ };   /* nk = 1 */

/* q[m][cell]: the five blocks, interior cells, i fastest (the file's order) */
static int save(const char *dir, const char *name, double q[5][NCELL])
{
  adi_dump_header h = {ADI_DUMP_VERSION, NI, NJ, 1, 5, 10, {1.0, 1.0, 1.0, 1.0, 1.0}, adi_dump_serial_place(NI, NJ, 1)};
  adi_dump_writer w;
  char path[4096], msg[512];
  int m;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (adi_dump_begin(&w, path, &h, msg, sizeof msg) != 0) {
    fprintf(stderr, "dump_fixtures: %s\n", msg);
    return 2;
  }
  for (m = 0; m < 5; ++m) adi_dump_write(&w, q[m], NCELL);
  if (adi_dump_commit(&w, msg, sizeof msg) != 0) {
    fprintf(stderr, "dump_fixtures: %s\n", msg);
    return 2;
  }
  return 0;
}

static int tolerance_fixtures(const char *dir)
{
  static double q[5][NCELL];
  int i, j, c, rc = 0;
  for (j = 1; j <= NJ; ++j)
    for (i = 1; i <= NI; ++i) {
      c = (i - 1) + NI*(j - 1);
      q[0][c] = 1.0 + 0.01*i;
      q[1][c] = 0.9*(j - 3.5)/NJ;
      q[2][c] = 0.4*(i - 4.5)/NI;
      q[4][c] = 71.4 + 0.1*j;
    }
  rc |= save(dir, "base.dump", q);
  for (j = 1; j <= NJ; ++j)
    for (i = 1; i <= NI; ++i) q[3][(i - 1) + NI*(j - 1)] = ((i + 3*j) % 7 - 3)*1.0e-17;
  rc |= save(dir, "wnoise.dump", q);
  for (c = 0; c < NCELL; ++c) q[3][c] = 0.0;
  q[1][(3 - 1) + NI*(2 - 1)] += 1.0e-10*0.9*(2.5/NJ);
  rc |= save(dir, "upert.dump", q);
  return rc;
}

/* the whole of a (small, test) file */
static unsigned char *slurp(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  unsigned char *b = NULL;
  long len;
  if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
      !(b = malloc((size_t)len + 1)) || fread(b, 1, (size_t)len, f) != (size_t)len) {
    fprintf(stderr, "dump_fixtures: cannot read \"%s\": %s\n", path, strerror(errno));
    free(b);
    if (f) fclose(f);
    return NULL;
  }
  fclose(f);
  *n = (size_t)len;
  return b;
}

static int spill(const char *path, const unsigned char *b, size_t n)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "dump_fixtures: cannot write \"%s\": %s\n", path, strerror(errno));
    return 2;
  }
  return 0;
}

static int is_v3(const unsigned char *b, size_t n, const char *path)
{
  int32_t v;
  if (n < ADI_DUMP_HEADER_BYTES + 8 || memcmp(b, ADI_DUMP_MAGIC, 8) != 0 || (memcpy(&v, b + 8, 4), v != 3)) {
    fprintf(stderr, "dump_fixtures: \"%s\" is not a format-3 dump\n", path);
    return 0;
  }
  return 1;
}

static int reseal(const char *path)
{
  size_t n;
  unsigned char *b = slurp(path, &n);
  uint64_t crc;
  int rc;
  if (!b) return 2;
  if (!is_v3(b, n, path)) { free(b); return 2; }
  crc = adi_crc64_final(adi_crc64_update(ADI_CRC64_INIT, b, 120));
  memcpy(b + 120, &crc, 8);
  crc = adi_crc64_final(adi_crc64_update(ADI_CRC64_INIT, b, n - 8));
  memcpy(b + n - 8, &crc, 8);
  rc = spill(path, b, n);
  free(b);
  return rc;
}

static int make_old(int version, const char *in, const char *out)
{
  size_t n, nd;
  unsigned char *b = slurp(in, &n), *o;
  uint64_t st[2] = {0, 0}, sum;
  int32_t v = version;
  int rc;
  if (!b) return 2;
  if (!is_v3(b, n, in) || (version != 1 && version != 2)) { free(b); return 2; }
  nd = n - ADI_DUMP_HEADER_BYTES - 8;   /* the data blocks */
  o = malloc(ADI_DUMP_OLD_HEADER_BYTES + nd + 8);
  if (!o) { free(b); return 2; }
  memcpy(o, b, ADI_DUMP_OLD_HEADER_BYTES);
  memcpy(o + 8, &v, 4);
  memcpy(o + ADI_DUMP_OLD_HEADER_BYTES, b + ADI_DUMP_HEADER_BYTES, nd);
  if (version == 2) adi_fletcher64_update(st, o, ADI_DUMP_OLD_HEADER_BYTES);
  adi_fletcher64_update(st, o + ADI_DUMP_OLD_HEADER_BYTES, nd);
  sum = adi_fletcher64_final(st);
  memcpy(o + ADI_DUMP_OLD_HEADER_BYTES + nd, &sum, 8);
  rc = spill(out, o, ADI_DUMP_OLD_HEADER_BYTES + nd + 8);
  free(o);
  free(b);
  return rc;
}

static int header_only(const char *path, const char *si, const char *sj, const char *sk)
{
  adi_dump_header h = {ADI_DUMP_VERSION, atoi(si), atoi(sj), atoi(sk), 5, 10, {1, 1, 1, 1, 1}, {0}};
  unsigned char b[ADI_DUMP_HEADER_BYTES];
  h.place = adi_dump_serial_place(h.ni, h.nj, h.nk);
  adi_dump_pack_header(b, &h);
  return spill(path, b, sizeof b);
}

int main(int argc, char **argv)
{
  if (argc == 2 && argv[1][0] != '-') return tolerance_fixtures(argv[1]);
  if (argc == 3 && strcmp(argv[1], "--crc") == 0) {
    printf("%016llx\n",
           (unsigned long long)adi_crc64_final(adi_crc64_update(ADI_CRC64_INIT, argv[2], strlen(argv[2]))));
    return 0;
  }
  if (argc == 6 && strcmp(argv[1], "--header") == 0) return header_only(argv[2], argv[3], argv[4], argv[5]);
  if (argc == 3 && strcmp(argv[1], "--reseal") == 0) return reseal(argv[2]);
  if (argc == 5 && strcmp(argv[1], "--old") == 0) return make_old(atoi(argv[2]), argv[3], argv[4]);
  fprintf(stderr, "usage: dump_fixtures DIR | --crc TEXT | --header FILE NI NJ NK | --reseal FILE | "
                  "--old 1|2 IN OUT\n");
  return 2;
}
