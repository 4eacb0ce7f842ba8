/* Test files for the CGNS reader (tests/suites/cgns_tests.sh), written
 * through the CGNS mid-level library as other programs write them:
 *
 *   cgns_fixture addbc FILE NAME TYPE i1:i2 j1:j2 k1:k2 [Z] a BC_t over a node range (of zone Z, default 1)
 *   cgns_fixture addlist FILE NAME TYPE i,j,k ...         a BC_t as a point list
 *   cgns_fixture addcut FILE NAME DIR                     a 1-to-1 of zone 1 with itself,
 *                                                         its DIR = 1 face onto its DIR = n face
 *   cgns_fixture unstructured FILE                        a file with one unstructured zone
 *   cgns_fixture twozones FILE                            two structured 3 x 3 x 3 zones
 *   cgns_fixture boxzones FILE TURN DEFECT                a 4 x 2 x 2-cell box as two zones "left" and
 *                                                         "right" with their 1-to-1 records both ways;
 *                                                         TURN 1: "right" stored with i and j reversed;
 *                                                         DEFECT none, shift (left's record maps j the
 *                                                         wrong way round), donor (left's names a zone
 *                                                         not in the file), bc (a BCWall on left's
 *                                                         interface face)
 *
 * Exit 0, 1 on a failed library call (said), 77 when this build has no
 * CGNS support (the suite then skips). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ADIFLOW_CGNS
int main(void)
{
  fprintf(stderr, "cgns_fixture: this build has no CGNS support (libcgns-dev was missing when it was built)\n");
  return 77;
}
#else
#include "cgns_lib.h"

static adi_cgns_lib L;
#define CHECK(call) \
  do { if ((call) != 0) { fprintf(stderr, "cgns_fixture: %s failed: %s (%s:%d)\n", #call, L.cg_get_error(), \
                                  __FILE__, __LINE__); exit(1); } } while (0)

static CGNS_ENUMT(BCType_t) bc_type(const char *name)
{
  for (int t = 0; t < NofValidBCTypes; t++)
    if (strcmp(L.bc_type_names[t], name) == 0) return (CGNS_ENUMT(BCType_t))t;
  fprintf(stderr, "cgns_fixture: %s is not a CGNS BC type\n", name);
  exit(1);
}

static void structured_zone(int fn, int base, const char *name, double x0)
{
  cgsize_t size[9] = {3, 3, 3, 2, 2, 2, 0, 0, 0};
  double x[27], y[27], z[27];
  int zone, c;
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++) {
        x[i + 3 * (j + 3 * k)] = x0 + i;
        y[i + 3 * (j + 3 * k)] = j;
        z[i + 3 * (j + 3 * k)] = k;
      }
  CHECK(L.cg_zone_write(fn, base, name, size, CGNS_ENUMV(Structured), &zone));
  CHECK(L.cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), "CoordinateX", x, &c));
  CHECK(L.cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), "CoordinateY", y, &c));
  CHECK(L.cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), "CoordinateZ", z, &c));
}

int main(int argc, char **argv)
{
  char msg[512];
  if (argc < 3) { fprintf(stderr, "usage: see tests/unit/cgns_fixture.c\n"); return 1; }
  if (adi_cgns_lib_load(&L, msg, sizeof msg) != 0) { fprintf(stderr, "cgns_fixture: %s\n", msg); return 77; }
  const char *mode = argv[1], *path = argv[2];
  int fn, base, idx;
  if (!strcmp(mode, "unstructured") || !strcmp(mode, "twozones")) {
    CHECK(L.cg_open(path, CG_MODE_WRITE, &fn));
    CHECK(L.cg_base_write(fn, "Base", 3, 3, &base));
    if (!strcmp(mode, "twozones")) {
      structured_zone(fn, base, "left", 0.0);
      structured_zone(fn, base, "right", 2.0);
    } else {
      cgsize_t size[3] = {8, 1, 0};   /* 8 nodes, 1 element: a hexahedron */
      double x[8] = {0, 1, 1, 0, 0, 1, 1, 0}, y[8] = {0, 0, 1, 1, 0, 0, 1, 1}, z[8] = {0, 0, 0, 0, 1, 1, 1, 1};
      int zone, c;
      CHECK(L.cg_zone_write(fn, base, "tets", size, CGNS_ENUMV(Unstructured), &zone));
      CHECK(L.cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), "CoordinateX", x, &c));
      CHECK(L.cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), "CoordinateY", y, &c));
      CHECK(L.cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), "CoordinateZ", z, &c));
    }
    CHECK(L.cg_close(fn));
    return 0;
  }
  if (!strcmp(mode, "boxzones")) {
    if (argc != 5) { fprintf(stderr, "boxzones FILE TURN DEFECT\n"); return 1; }
    int turn = atoi(argv[3]), zl, zr;
    const char *defect = argv[4];
    cgsize_t size[9] = {3, 3, 3, 2, 2, 2, 0, 0, 0};
    double x[27], y[27], z[27];
    int c;
    CHECK(L.cg_open(path, CG_MODE_WRITE, &fn));
    CHECK(L.cg_base_write(fn, "Base", 3, 3, &base));
    structured_zone(fn, base, "left", 0.0);
    zl = 1;
    for (int k = 0; k < 3; k++)
      for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
          x[i + 3 * (j + 3 * k)] = turn ? 4.0 - i : 2.0 + i;
          y[i + 3 * (j + 3 * k)] = turn ? 2.0 - j : j;
          z[i + 3 * (j + 3 * k)] = k;
        }
    CHECK(L.cg_zone_write(fn, base, "right", size, CGNS_ENUMV(Structured), &zr));
    CHECK(L.cg_coord_write(fn, base, zr, CGNS_ENUMV(RealDouble), "CoordinateX", x, &c));
    CHECK(L.cg_coord_write(fn, base, zr, CGNS_ENUMV(RealDouble), "CoordinateY", y, &c));
    CHECK(L.cg_coord_write(fn, base, zr, CGNS_ENUMV(RealDouble), "CoordinateZ", z, &c));
    /* left's i = 3 face against right's i = 1 face (turned: its i = 3 face, j reversed) */
    cgsize_t rl[6] = {3, 1, 1, 3, 3, 3}, dl[6] = {1, 1, 1, 1, 3, 3};
    cgsize_t rr[6] = {1, 1, 1, 1, 3, 3}, dr[6] = {3, 1, 1, 3, 3, 3};
    int t[3] = {1, 2, 3};
    if (turn) {
      cgsize_t dl_t[6] = {3, 3, 1, 3, 1, 3}, rr_t[6] = {3, 1, 1, 3, 3, 3}, dr_t[6] = {3, 3, 1, 3, 1, 3};
      memcpy(dl, dl_t, sizeof dl);
      memcpy(rr, rr_t, sizeof rr);
      memcpy(dr, dr_t, sizeof dr);
      t[0] = -1;
      t[1] = -2;
    }
    int tl[3] = {t[0], t[1], t[2]};
    cgsize_t dl_bad[6];
    memcpy(dl_bad, dl, sizeof dl);
    if (!strcmp(defect, "shift")) {   /* j mapped the other way round */
      dl_bad[1] = dl[4];
      dl_bad[4] = dl[1];
      tl[1] = -t[1];
    }
    CHECK(L.cg_1to1_write(fn, base, zl, "left-right", strcmp(defect, "donor") ? "right" : "nowhere", rl, dl_bad, tl, &idx));
    CHECK(L.cg_1to1_write(fn, base, zr, "right-left", "left", rr, dr, t, &idx));
    if (!strcmp(defect, "bc")) {
      cgsize_t r[6] = {3, 1, 1, 3, 3, 3};
      CHECK(L.cg_boco_write(fn, base, zl, "wall", CGNS_ENUMV(BCWall), CGNS_ENUMV(PointRange), 2, r, &idx));
    }
    {
      cgsize_t r[6] = {1, 1, 1, 1, 3, 3};
      CHECK(L.cg_boco_write(fn, base, zl, "inlet", CGNS_ENUMV(BCInflow), CGNS_ENUMV(PointRange), 2, r, &idx));
    }
    CHECK(L.cg_close(fn));
    return 0;
  }
  if (argc < 5) { fprintf(stderr, "usage: see tests/unit/cgns_fixture.c\n"); return 1; }
  CHECK(L.cg_open(path, CG_MODE_MODIFY, &fn));
  if (!strcmp(mode, "addbc")) {
    cgsize_t r[6];
    long long a, b;
    int zone = argc == 9 ? atoi(argv[8]) : 1;
    if ((argc != 8 && argc != 9) || zone < 1) { fprintf(stderr, "addbc FILE NAME TYPE i1:i2 j1:j2 k1:k2 [ZONE]\n"); return 1; }
    for (int d = 0; d < 3; d++) {
      if (sscanf(argv[5 + d], "%lld:%lld", &a, &b) != 2) { fprintf(stderr, "bad range %s\n", argv[5 + d]); return 1; }
      r[d] = (cgsize_t)a;
      r[3 + d] = (cgsize_t)b;
    }
    CHECK(L.cg_boco_write(fn, 1, zone, argv[3], bc_type(argv[4]), CGNS_ENUMV(PointRange), 2, r, &idx));
  } else if (!strcmp(mode, "addlist")) {
    int np = argc - 5;
    cgsize_t *p = malloc(sizeof *p * 3 * (size_t)(np > 0 ? np : 1));
    long long i, j, k;
    for (int m = 0; m < np; m++) {
      if (sscanf(argv[5 + m], "%lld,%lld,%lld", &i, &j, &k) != 3) { fprintf(stderr, "bad point %s\n", argv[5 + m]); return 1; }
      p[3 * m] = (cgsize_t)i; p[3 * m + 1] = (cgsize_t)j; p[3 * m + 2] = (cgsize_t)k;
    }
    CHECK(L.cg_boco_write(fn, 1, 1, argv[3], bc_type(argv[4]), CGNS_ENUMV(PointList), np, p, &idx));
    free(p);
  } else if (!strcmp(mode, "addcut")) {
    char zname[33];
    cgsize_t size[9], r[6], d[6];
    int t[3] = {1, 2, 3}, dir = atoi(argv[4]) - 1;
    CHECK(L.cg_zone_read(fn, 1, 1, zname, size));
    for (int e = 0; e < 3; e++) { r[e] = d[e] = 1; r[3 + e] = d[3 + e] = size[e]; }
    r[3 + dir] = 1;
    d[dir] = size[dir];
    CHECK(L.cg_1to1_write(fn, 1, 1, argv[3], zname, r, d, t, &idx));
  } else {
    fprintf(stderr, "cgns_fixture: no mode %s\n", mode);
    return 1;
  }
  CHECK(L.cg_close(fn));
  return 0;
}
#endif
