/* dump_fixtures DIR: writes three field dumps of a small quasi-2D state for
 * the tests of compare_fields' tolerance (tests/run_tests.sh), through the
 * one writer of the format (include/field_format.h, fortran/field_file.c):
 *   base.dump    rho, rho*u, rho*v, E of order 1, rho*w exactly zero
 *   wnoise.dump  base with rho*w holding round-off (|rho*w| <= 3e-17), as a
 *                quasi-2D run may leave it: within 1e-12 of base, since the
 *                momenta are measured against the momentum's scale
 *   upert.dump   base with one rho*u value moved by 1e-10 of its scale:
 *                above 1e-12
 * Exit 0 when all three are written, 2 otherwise. */
#include <stdio.h>

#include "field_format.h"

enum { NI = 8, NJ = 6, NCELL = NI*NJ };   /* nk = 1 */

/* q[m][cell]: the five blocks, interior cells, i fastest (the file's order) */
static int save(const char *dir, const char *name, double q[5][NCELL])
{
  adi_dump_header h = {ADI_DUMP_VERSION, NI, NJ, 1, 5, 10, {1.0, 1.0, 1.0, 1.0, 1.0}};
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

int main(int argc, char **argv)
{
  static double q[5][NCELL];
  int i, j, c, rc = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: dump_fixtures DIR\n");
    return 2;
  }
  for (j = 1; j <= NJ; ++j)
    for (i = 1; i <= NI; ++i) {
      c = (i - 1) + NI*(j - 1);
      q[0][c] = 1.0 + 0.01*i;
      q[1][c] = 0.9*(j - 3.5)/NJ;
      q[2][c] = 0.4*(i - 4.5)/NI;
      q[4][c] = 71.4 + 0.1*j;
    }
  rc |= save(argv[1], "base.dump", q);
  for (j = 1; j <= NJ; ++j)
    for (i = 1; i <= NI; ++i) q[3][(i - 1) + NI*(j - 1)] = ((i + 3*j) % 7 - 3)*1.0e-17;
  rc |= save(argv[1], "wnoise.dump", q);
  for (c = 0; c < NCELL; ++c) q[3][c] = 0.0;
  q[1][(3 - 1) + NI*(2 - 1)] += 1.0e-10*0.9*(2.5/NJ);
  rc |= save(argv[1], "upert.dump", q);
  return rc;
}
