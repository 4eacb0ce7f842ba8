/* A run's final state as a CGNS file (case key write_cgns): see
 * fortran/cgns_write.h. */
#define _POSIX_C_SOURCE 200809L
#include "cgns_write.h"
#include "safe_file.h"

#include <stdio.h>
#include <string.h>

#ifndef ADIFLOW_CGNS

int adi_cgns_write_solution(const char *path, const char *title, int32_t nzone, const char *znames, const int32_t *n,
                            const double *xyz, int32_t nfields, const char *names, const double *fields,
                            const int32_t *npatch, const int32_t *patches, int32_t nconn, const int32_t *conn,
                            char *msg, size_t msglen)
{
  (void)title; (void)nzone; (void)znames; (void)n; (void)xyz; (void)nfields; (void)names; (void)fields;
  (void)npatch; (void)patches; (void)nconn; (void)conn;
  snprintf(msg, msglen, "write_cgns: cannot write %s: this build has no CGNS support (libcgns-dev was missing "
           "when it was built): rebuild after installing libcgns-dev, or set write_cgns = .false.", path);
  return 2;
}

#else

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "cgns_lib.h"
#include "adiflow_params.h"

/* the CGNS type of adiflow's patch kind codes (include/adiflow_params.def's
 * BC_* as boundary_patches.f90 names them); periodic faces take none */
static int bc_type(int32_t kind, int32_t isothermal, CGNS_ENUMT(BCType_t) *t)
{
  switch (kind) {
  case ADI_BC_WALL: *t = isothermal ? CGNS_ENUMV(BCWallViscousIsothermal) : CGNS_ENUMV(BCWallViscousHeatFlux); return 1;
  case ADI_BC_LID: *t = CGNS_ENUMV(BCWallViscous); return 1;
  case ADI_BC_SLIP: *t = CGNS_ENUMV(BCWallInviscid); return 1;
  case ADI_BC_SYMMETRY: *t = CGNS_ENUMV(BCSymmetryPlane); return 1;
  case ADI_BC_FARFIELD: *t = CGNS_ENUMV(BCFarfield); return 1;
  case ADI_BC_INFLOW: *t = CGNS_ENUMV(BCInflowSubsonic); return 1;
  case ADI_BC_OUTFLOW: *t = CGNS_ENUMV(BCOutflowSubsonic); return 1;
  case ADI_BC_SUPERSONIC_INFLOW: *t = CGNS_ENUMV(BCInflowSupersonic); return 1;
  case ADI_BC_SUPERSONIC_OUTFLOW: *t = CGNS_ENUMV(BCOutflowSupersonic); return 1;
  default: return 0;
  }
}

static const char *kind_word(int32_t kind)
{
  static const char *w[] = {"wall", "lid", "periodic", "slip", "symmetry", "farfield", "inflow", "outflow",
                            "supersonic_inflow", "supersonic_outflow"};
  return (kind >= 0 && kind < (int32_t)(sizeof w / sizeof *w)) ? w[kind] : "patch";
}

/* a blank-padded name of 32 characters as a C string */
static void padded_name(char out[33], const char *in32)
{
  snprintf(out, 33, "%.32s", in32);
  for (char *e = out + strlen(out); e > out && e[-1] == ' '; ) *--e = '\0';
}

/* the writing itself, into tmp (a fresh file in a folder of our own) */
static int write_file(adi_cgns_lib *L, const char *tmp, const char *path, const char *title, int32_t nzone,
                      const char *znames, const int32_t *n, const double *xyz, int32_t nfields, const char *names,
                      const double *fields, const int32_t *npatch, const int32_t *patches, int32_t nconn,
                      const int32_t *conn, char *msg, size_t msglen)
{
  int fn = -1, base, zone, sol, idx;
  static const char *coord[3] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
  const double *x = xyz, *fv = fields;
  const int32_t *pr = patches;
#define WCHECK(call, ...) do { if ((call) != 0) { int n_ = snprintf(msg, msglen, __VA_ARGS__); \
    if (n_ >= 0 && (size_t)n_ < msglen) snprintf(msg + n_, msglen - (size_t)n_, " (CGNS library: %s; %s:%d)", \
      L->cg_get_error(), __FILE__, __LINE__); if (fn >= 0) L->cg_close(fn); return 5; } } while (0)
  WCHECK(L->cg_open(tmp, CG_MODE_WRITE, &fn), "write_cgns: cannot create %s", path);
  WCHECK(L->cg_base_write(fn, "adiflow", 3, 3, &base), "write_cgns: %s: cannot write its base", path);
  /* the solver's values are nondimensional (the units the run's header
   * states); the base's DataClass says so for everything under it */
  WCHECK(L->cg_goto(fn, base, "end"), "write_cgns: %s: cannot reach its base", path);
  WCHECK(L->cg_dataclass_write(CGNS_ENUMV(NormalizedByUnknownDimensional)), "write_cgns: %s: cannot write its DataClass", path);
  WCHECK(L->cg_descriptor_write("adiflow", title), "write_cgns: %s: cannot write its description", path);
  for (int z = 0; z < nzone; z++) {
    const int32_t *nz = n + 3 * z;
    cgsize_t size[9] = {nz[0] + 1, nz[1] + 1, nz[2] + 1, nz[0], nz[1], nz[2], 0, 0, 0};
    int64_t nn = (int64_t)(nz[0] + 1) * (nz[1] + 1) * (nz[2] + 1), nc = (int64_t)nz[0] * nz[1] * nz[2];
    char zname[33];
    padded_name(zname, znames + 32 * z);
    WCHECK(L->cg_zone_write(fn, base, zname, size, CGNS_ENUMV(Structured), &zone), "write_cgns: %s: cannot write zone %s",
           path, zname);
    for (int c = 0; c < 3; c++)
      WCHECK(L->cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), coord[c], x + c * nn, &idx),
             "write_cgns: %s: cannot write zone %s's %s", path, zname, coord[c]);
    x += 3 * nn;
    WCHECK(L->cg_sol_write(fn, base, zone, "FlowSolution", CGNS_ENUMV(CellCenter), &sol),
           "write_cgns: %s: cannot write zone %s's FlowSolution", path, zname);
    for (int f = 0; f < nfields; f++) {
      char name[33];
      padded_name(name, names + 32 * f);
      WCHECK(L->cg_field_write(fn, base, zone, sol, CGNS_ENUMV(RealDouble), name, fv + f * nc, &idx),
             "write_cgns: %s: cannot write zone %s's field %s", path, zname, name);
    }
    fv += nfields * nc;
    /* each patch: face, kind, isothermal, cell ranges lo1 hi1 lo2 hi2 -> a node range */
    for (int p = 0; p < npatch[z]; p++, pr += 7) {
      CGNS_ENUMT(BCType_t) t;
      if (!bc_type(pr[1], pr[2], &t)) continue;
      int d = pr[0] / 2, side = pr[0] % 2, m = 0;
      cgsize_t r[6];
      for (int e = 0; e < 3; e++) {
        if (e == d) { r[e] = r[3 + e] = side ? nz[e] + 1 : 1; continue; }
        r[e] = pr[3 + 2 * m];
        r[3 + e] = pr[4 + 2 * m] + 1;
        m++;
      }
      char name[33];
      snprintf(name, sizeof name, "%s_%d", kind_word(pr[1]), p + 1);
      WCHECK(L->cg_boco_write(fn, base, zone, name, t, CGNS_ENUMV(PointRange), 2, r, &idx),
             "write_cgns: %s: cannot write zone %s's boundary condition %s", path, zname, name);
    }
    /* the 1-to-1 interfaces this zone holds: rows of zone, donor zone, range
     * (imin jmin kmin imax jmax kmax), donor range, transform */
    for (int q = 0; q < nconn; q++) {
      const int32_t *c = conn + 17 * q;
      cgsize_t r[6], dr[6];
      int t[3];
      char name[33], donor[33];
      if (c[0] != z + 1) continue;
      for (int e = 0; e < 6; e++) r[e] = c[2 + e], dr[e] = c[8 + e];
      for (int e = 0; e < 3; e++) t[e] = c[14 + e];
      padded_name(donor, znames + 32 * (c[1] - 1));
      snprintf(name, sizeof name, "interface_%d", q + 1);
      WCHECK(L->cg_1to1_write(fn, base, zone, name, donor, r, dr, t, &idx),
             "write_cgns: %s: cannot write zone %s's 1-to-1 interface %s", path, zname, name);
    }
  }
  WCHECK(L->cg_close(fn), "write_cgns: %s: cannot close it", path);
#undef WCHECK
  return 0;
}

int adi_cgns_write_solution(const char *path, const char *title, int32_t nzone, const char *znames, const int32_t *n,
                            const double *xyz, int32_t nfields, const char *names, const double *fields,
                            const int32_t *npatch, const int32_t *patches, int32_t nconn, const int32_t *conn,
                            char *msg, size_t msglen)
{
  adi_cgns_lib L;
  char why[600];
  if (adi_cgns_lib_load(&L, why, sizeof why) != 0) {
    snprintf(msg, msglen, "write_cgns: cannot write %s: %s", path, why);
    return 2;
  }
  /* The library creates its file by name, truncating whatever is there: so
   * it writes into a folder made for this file alone (mode 0700, a fresh
   * name), where no link can be planted; the finished file is then committed
   * over path as every output is (size checked, synced, renamed). */
  char dir[4096], tmp[4200];
  const char *slash = strrchr(path, '/');
  int dlen = slash ? (int)(slash - path) : 1;
  snprintf(dir, sizeof dir, "%.*s/.cgns.XXXXXX", dlen, slash ? path : ".");
  if (!mkdtemp(dir)) {
    snprintf(msg, msglen, "write_cgns: cannot make a temporary folder beside %s: %s", path, strerror(errno));
    adi_cgns_lib_unload(&L);
    return 5;
  }
  snprintf(tmp, sizeof tmp, "%s/flow.cgns", dir);
  int rc = write_file(&L, tmp, path, title, nzone, znames, n, xyz, nfields, names, fields, npatch, patches, nconn, conn,
                      msg, msglen);
  adi_cgns_lib_unload(&L);
  if (rc == 0) rc = adi_commit_file(tmp, path, -1, msg, msglen) == 0 ? 0 : 5;
  unlink(tmp);
  rmdir(dir);
  return rc;
}
#endif
