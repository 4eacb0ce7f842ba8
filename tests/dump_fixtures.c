/* dump_fixtures DIR: writes three field dumps of a small quasi-2D state for
 * the tests of compare_fields' tolerance (tests/run_tests.sh), through the
 * solver's own writer (fortran/field_file.c):
 *   base.dump    rho, rho*u, rho*v, E of order 1, rho*w exactly zero
 *   wnoise.dump  base with rho*w holding round-off (|rho*w| <= 3e-17), as a
 *                quasi-2D run may leave it: within 1e-12 of base, since the
 *                momenta are measured against the momentum's scale
 *   upert.dump   base with one rho*u value moved by 1e-10 of its scale:
 *                above 1e-12
 * Exit 0 when all three are written, 2 otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int adi_dump_save(const char *path, const int32_t *dims, const double *q, int64_t iteration, const double *res0,
                  char *msg, int msglen);

enum { NI = 8, NJ = 6, NK = 1, LDI = NI + 4, LDJ = NJ + 4, LDK = NK + 4 };

static size_t at(int i, int j, int k, int m)
{
  return (size_t)(i + 1) + (size_t)LDI*((size_t)(j + 1) + (size_t)LDJ*((size_t)(k + 1) + (size_t)LDK*(size_t)(m - 1)));
}

static int save(const char *dir, const char *name, const double *q)
{
  const int32_t dims[6] = {NI, NJ, NK, LDI, LDJ, LDK};
  const double res0[5] = {1.0, 1.0, 1.0, 1.0, 1.0};
  char path[4096], msg[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (adi_dump_save(path, dims, q, 10, res0, msg, (int)sizeof msg) != 0) {
    fprintf(stderr, "dump_fixtures: %s\n", msg);
    return 2;
  }
  return 0;
}

int main(int argc, char **argv)
{
  double *q = calloc((size_t)LDI*LDJ*LDK*5, sizeof(double));
  int i, j, rc = 0;
  if (argc != 2 || q == NULL) {
    fprintf(stderr, "usage: dump_fixtures DIR\n");
    return 2;
  }
  for (j = 1; j <= NJ; ++j)
    for (i = 1; i <= NI; ++i) {
      q[at(i, j, 1, 1)] = 1.0 + 0.01*i;
      q[at(i, j, 1, 2)] = 0.9*(j - 3.5)/NJ;
      q[at(i, j, 1, 3)] = 0.4*(i - 4.5)/NI;
      q[at(i, j, 1, 5)] = 71.4 + 0.1*j;
    }
  rc |= save(argv[1], "base.dump", q);
  for (j = 1; j <= NJ; ++j)
    for (i = 1; i <= NI; ++i) q[at(i, j, 1, 4)] = ((i + 3*j) % 7 - 3)*1.0e-17;
  rc |= save(argv[1], "wnoise.dump", q);
  for (j = 1; j <= NJ; ++j)
    for (i = 1; i <= NI; ++i) q[at(i, j, 1, 4)] = 0.0;
  q[at(3, 2, 1, 2)] += 1.0e-10*0.9*(2.5/NJ);
  rc |= save(argv[1], "upert.dump", q);
  free(q);
  return rc;
}
