/* One structured zone of a CGNS file: see fortran/cgns_zone.h. */
#define _POSIX_C_SOURCE 200809L
#include "cgns_zone.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ADIFLOW_CGNS

/* built without libcgns-dev: every request says so */
static const char no_cgns[] = "this build has no CGNS support (libcgns-dev was missing when it was built): "
                              "rebuild after installing libcgns-dev, or convert the file to Plot3D with cgns_to_plot3d";
int adi_cgns_available(void) { return 0; }
int adi_cgns_open(const char *path, adi_cgns_zone **zone, adi_cgns_zone_info *info, char *msg, size_t msglen)
{
  (void)info;
  *zone = NULL;
  snprintf(msg, msglen, "grid file \"%s\": %s", path, no_cgns);
  return 2;
}
int adi_cgns_coords(adi_cgns_zone *zone, double *xyz, int64_t nvalues, char *msg, size_t msglen)
{
  (void)zone; (void)xyz; (void)nvalues;
  snprintf(msg, msglen, "%s", no_cgns);
  return 2;
}
int adi_cgns_bc_line(const adi_cgns_zone *zone, int b, char *line, size_t linelen, char *where, size_t wherelen,
                     int32_t *thermal)
{
  (void)zone; (void)b; (void)line; (void)linelen; (void)where; (void)wherelen; (void)thermal;
  return 2;
}
int adi_cgns_1to1(const adi_cgns_zone *zone, int c, int32_t *self, int64_t range[6], int64_t donor[6],
                  int32_t transform[3], char *name, size_t namelen)
{
  (void)zone; (void)c; (void)self; (void)range; (void)donor; (void)transform; (void)name; (void)namelen;
  return 2;
}
void adi_cgns_close(adi_cgns_zone *zone) { (void)zone; }
int adi_cgns_zone_count(const char *path, int32_t *nzones, char *msg, size_t msglen)
{
  *nzones = 0;
  snprintf(msg, msglen, "grid file \"%s\": %s", path, no_cgns);
  return 2;
}
int adi_cgns_open_zones(const char *path, adi_cgns_zone **zone, int32_t *nzones, char *msg, size_t msglen)
{
  *zone = NULL;
  *nzones = 0;
  snprintf(msg, msglen, "grid file \"%s\": %s", path, no_cgns);
  return 2;
}
int adi_cgns_select_zone(adi_cgns_zone *zone, int32_t zz, adi_cgns_zone_info *info, char *msg, size_t msglen)
{
  (void)zone; (void)zz; (void)info;
  snprintf(msg, msglen, "%s", no_cgns);
  return 2;
}
int adi_cgns_bc_range(const adi_cgns_zone *zone, int b, int32_t *face, int64_t lo[2], int64_t hi[2])
{
  (void)zone; (void)b; (void)face; (void)lo; (void)hi;
  return 2;
}
void adi_cgns_zone_name(const adi_cgns_zone *zone, char *name, size_t namelen)
{
  (void)zone;
  if (namelen > 0) name[0] = 0;
}
int adi_cgns_1to1_donor(const adi_cgns_zone *zone, int c, char *name, size_t namelen)
{
  (void)zone; (void)c; (void)name; (void)namelen;
  return 2;
}

#else

#include <unistd.h>
#include "cgns_lib.h"
#include "host_file.h"

/* a boundary condition as a patch: face (0 imin .. 5 kmax), adiflow's kind
 * word, the face's cell ranges in its two directions (1-based) */
typedef struct bc_patch {
  int face;
  const char *kind;
  int thermal;
  int64_t lo[2], hi[2];
  char name[40], type[40];
} bc_patch;

typedef struct one_to_one {
  int self;
  int64_t range[6], donor[6];
  int32_t transform[3];
  char name[40], donor_zone[40];
} one_to_one;

struct adi_cgns_zone {
  adi_cgns_lib lib;
  int fn, base, zone;       /* the open file, base 1, the zone read */
  int nzones;               /* the file's zones */
  char path[1024], zname[40];
  adi_cgns_zone_info info;
  int index_dim;
  bc_patch *bc;
  one_to_one *c1;
};

int adi_cgns_available(void) { return 1; }

/* A failed library call: the user's sentence, then the library's words
 * and where in this file */
#define CG_CHECK(z, call, ...) \
  do { \
    if ((call) != 0) { \
      int n_ = snprintf(msg, msglen, __VA_ARGS__); \
      if (n_ >= 0 && (size_t)n_ < msglen) \
        snprintf(msg + n_, msglen - (size_t)n_, " (CGNS library: %s; %s:%d)", (z)->lib.cg_get_error(), __FILE__, __LINE__); \
      return 2; \
    } \
  } while (0)

static const char *zone_type_name(CGNS_ENUMT(ZoneType_t) t)
{
  return t == CGNS_ENUMV(Unstructured) ? "an unstructured zone (elements)" : "a zone of unknown type";
}

/* adiflow's kind for a CGNS BC type; NULL: none */
static const char *kind_of(CGNS_ENUMT(BCType_t) t, int *thermal)
{
  *thermal = 0;
  switch (t) {
  case CGNS_ENUMV(BCWall): case CGNS_ENUMV(BCWallViscous): return "wall";
  case CGNS_ENUMV(BCWallViscousIsothermal): *thermal = 1; return "wall";
  case CGNS_ENUMV(BCWallViscousHeatFlux): *thermal = 2; return "wall";
  case CGNS_ENUMV(BCWallInviscid): return "slip";
  case CGNS_ENUMV(BCSymmetryPlane): return "symmetry";
  case CGNS_ENUMV(BCFarfield): return "farfield";
  case CGNS_ENUMV(BCInflow): case CGNS_ENUMV(BCInflowSubsonic): return "inflow";
  case CGNS_ENUMV(BCOutflow): case CGNS_ENUMV(BCOutflowSubsonic): return "outflow";
  /* every variable taken from inside: adiflow's supersonic outflow does just that */
  case CGNS_ENUMV(BCExtrapolate): return "supersonic_outflow";
  case CGNS_ENUMV(BCInflowSupersonic): return "supersonic_inflow";
  case CGNS_ENUMV(BCOutflowSupersonic): return "supersonic_outflow";
  default: return NULL;
  }
}

static const char *bc_type_name(const adi_cgns_lib *L, CGNS_ENUMT(BCType_t) t)
{
  if ((int)t >= 0 && (int)t < NofValidBCTypes) return L->bc_type_names[t];
  return "an unknown BC type";
}

/* Whether the points (index_dim per point) fill the box they span, each
 * once: a point list that is a rectangle of a face. lo, hi: the box. */
static int is_box(const cgsize_t *p, int64_t np, int idim, int64_t lo[3], int64_t hi[3])
{
  for (int d = 0; d < 3; d++) { lo[d] = 1; hi[d] = 1; }
  if (np <= 0) return 0;
  for (int d = 0; d < idim; d++) lo[d] = hi[d] = p[d];
  for (int64_t m = 0; m < np; m++)
    for (int d = 0; d < idim; d++) {
      if (p[m * idim + d] < lo[d]) lo[d] = p[m * idim + d];
      if (p[m * idim + d] > hi[d]) hi[d] = p[m * idim + d];
    }
  int64_t cells = 1;
  for (int d = 0; d < idim; d++) cells *= hi[d] - lo[d] + 1;
  if (cells != np) return 0;
  unsigned char *seen = calloc((size_t)cells, 1);
  if (!seen) return 0;
  int ok = 1;
  for (int64_t m = 0; m < np && ok; m++) {
    int64_t at = 0;
    for (int d = idim - 1; d >= 0; d--) at = at * (hi[d] - lo[d] + 1) + (p[m * idim + d] - lo[d]);
    if (seen[at]) ok = 0;
    seen[at] = 1;
  }
  free(seen);
  return ok;
}

/* The face of a node box (vertex indices, 1-based) and its cell ranges; -1
 * when the box lies on no single face of the zone */
static int face_of(const int64_t lo[3], const int64_t hi[3], const int64_t n[3], int idim, int64_t clo[2], int64_t chi[2])
{
  for (int d = 0; d < idim; d++) {
    int side = -1;
    if (lo[d] == 1 && hi[d] == 1) side = 0;
    else if (lo[d] == n[d] && hi[d] == n[d]) side = 1;
    if (side < 0) continue;
    int m = 0;
    for (int e = 0; e < 3; e++) {
      if (e == d) continue;
      if (e >= idim) { clo[m] = 1; chi[m] = 1; }  /* a 2D zone is one cell thick */
      else { clo[m] = lo[e]; chi[m] = hi[e] - 1; }
      m++;
    }
    if (chi[0] < clo[0] || chi[1] < clo[1]) return -1;  /* an edge or a corner, not a face */
    return 2 * d + side;
  }
  return -1;
}

static int read_bcs(adi_cgns_zone *z, char *msg, size_t msglen)
{
  adi_cgns_lib *L = &z->lib;
  int nb = 0, idim = z->index_dim;
  CG_CHECK(z, L->cg_nbocos(z->fn, z->base, z->zone, &nb), "grid file \"%s\", zone \"%s\": its boundary conditions cannot be counted",
           z->path, z->zname);
  z->bc = calloc((size_t)(nb > 0 ? nb : 1), sizeof *z->bc);
  if (!z->bc) { snprintf(msg, msglen, "grid file \"%s\": no memory for its boundary conditions", z->path); return 2; }
  for (int b = 1; b <= nb; b++) {
    char name[33] = "";
    CGNS_ENUMT(BCType_t) type;
    CGNS_ENUMT(PointSetType_t) pst;
    CGNS_ENUMT(DataType_t) ndt;
    CGNS_ENUMT(GridLocation_t) loc = CGNS_ENUMV(Vertex);
    cgsize_t np = 0, nl = 0;
    int ni = 0, nds = 0;
    CG_CHECK(z, L->cg_boco_info(z->fn, z->base, z->zone, b, name, &type, &pst, &np, &ni, &nl, &ndt, &nds),
             "grid file \"%s\", zone \"%s\": boundary condition %d cannot be read", z->path, z->zname, b);
    CG_CHECK(z, L->cg_boco_gridlocation_read(z->fn, z->base, z->zone, b, &loc),
             "grid file \"%s\", zone \"%s\", BC \"%s\": its grid location cannot be read", z->path, z->zname, name);
    bc_patch *p = &z->bc[b - 1];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->type, sizeof p->type, "%s", bc_type_name(L, type));
    p->kind = kind_of(type, &p->thermal);
    if (!p->kind) {
      snprintf(msg, msglen, "grid file \"%s\", zone \"%s\", BC \"%s\": %s is not a boundary kind adiflow has "
               "(it takes BCWall, BCWallViscous, BCWallViscousIsothermal, BCWallViscousHeatFlux, BCWallInviscid, "
               "BCSymmetryPlane, BCFarfield, BCInflow, BCInflowSubsonic, BCInflowSupersonic, BCOutflow, "
               "BCOutflowSubsonic, BCOutflowSupersonic, BCExtrapolate)", z->path, z->zname, name, p->type);
      return 2;
    }
    if (loc != CGNS_ENUMV(Vertex)) {
      snprintf(msg, msglen, "grid file \"%s\", zone \"%s\", BC \"%s\": its points are given at %s; adiflow reads "
               "boundary conditions given at the vertices (GridLocation Vertex) so far", z->path, z->zname, name,
               ((int)loc >= 0 && (int)loc < NofValidGridLocation) ? L->grid_location_names[loc] : "an unknown location");
      return 2;
    }
    if (pst != CGNS_ENUMV(PointRange) && pst != CGNS_ENUMV(PointList)) {
      snprintf(msg, msglen, "grid file \"%s\", zone \"%s\", BC \"%s\": its points are an element range or list, "
               "which a structured zone does not take (use a PointRange)", z->path, z->zname, name);
      return 2;
    }
    cgsize_t *pts = malloc((size_t)(np > 0 ? np : 1) * (size_t)idim * sizeof *pts);
    if (!pts) { snprintf(msg, msglen, "grid file \"%s\": no memory for BC \"%s\"", z->path, name); return 2; }
    /* the normals are not asked for (NULL): the face tells the direction */
    if (L->cg_boco_read(z->fn, z->base, z->zone, b, pts, NULL) != 0) {
      free(pts);
      CG_CHECK(z, 1, "grid file \"%s\", zone \"%s\", BC \"%s\": its points cannot be read", z->path, z->zname, name);
    }
    int64_t lo[3], hi[3];
    if (pst == CGNS_ENUMV(PointRange)) {
      for (int d = 0; d < 3; d++) lo[d] = hi[d] = 1;
      for (int d = 0; d < idim; d++) {
        lo[d] = pts[d] < pts[idim + d] ? pts[d] : pts[idim + d];
        hi[d] = pts[d] < pts[idim + d] ? pts[idim + d] : pts[d];
      }
    } else if (!is_box(pts, np, idim, lo, hi)) {
      free(pts);
      snprintf(msg, msglen, "grid file \"%s\", zone \"%s\", BC \"%s\": its point list of %lld points is not a "
               "rectangle of one face, each point once; adiflow takes a point list only as a rectangle (give it as a "
               "PointRange)", z->path, z->zname, name, (long long)np);
      return 2;
    }
    free(pts);
    p->face = face_of(lo, hi, z->info.n, idim, p->lo, p->hi);
    if (p->face < 0) {
      snprintf(msg, msglen, "grid file \"%s\", zone \"%s\", BC \"%s\": its range %lld:%lld %lld:%lld %lld:%lld "
               "(nodes) is not a rectangle of cells on one face of the zone", z->path, z->zname, name,
               (long long)lo[0], (long long)hi[0], (long long)lo[1], (long long)hi[1], (long long)lo[2], (long long)hi[2]);
      return 2;
    }
  }
  z->info.nbc = nb;
  return 0;
}

static int read_1to1(adi_cgns_zone *z, char *msg, size_t msglen)
{
  adi_cgns_lib *L = &z->lib;
  int nc = 0, idim = z->index_dim;
  CG_CHECK(z, L->cg_n1to1(z->fn, z->base, z->zone, &nc), "grid file \"%s\", zone \"%s\": its 1-to-1 interfaces "
           "cannot be counted", z->path, z->zname);
  z->c1 = calloc((size_t)(nc > 0 ? nc : 1), sizeof *z->c1);
  if (!z->c1) { snprintf(msg, msglen, "grid file \"%s\": no memory for its interfaces", z->path); return 2; }
  for (int c = 1; c <= nc; c++) {
    char name[33] = "", donor[33] = "";
    cgsize_t r[6] = {1, 1, 1, 1, 1, 1}, d[6] = {1, 1, 1, 1, 1, 1};
    int t[3] = {1, 2, 3};
    CG_CHECK(z, L->cg_1to1_read(z->fn, z->base, z->zone, c, name, donor, r, d, t),
             "grid file \"%s\", zone \"%s\": 1-to-1 interface %d cannot be read", z->path, z->zname, c);
    one_to_one *o = &z->c1[c - 1];
    snprintf(o->name, sizeof o->name, "%s", name);
    snprintf(o->donor_zone, sizeof o->donor_zone, "%s", donor);
    o->self = strcmp(donor, z->zname) == 0;
    for (int e = 0; e < 3; e++) {
      o->range[e] = o->range[3 + e] = o->donor[e] = o->donor[3 + e] = 1;
      o->transform[e] = e + 1;
    }
    for (int e = 0; e < idim; e++) {
      o->range[e] = r[e]; o->range[3 + e] = r[idim + e];
      o->donor[e] = d[e]; o->donor[3 + e] = d[idim + e];
      o->transform[e] = t[e];
    }
  }
  z->info.n1to1 = nc;
  return 0;
}

/* Opens path (a regular file, one base, every zone structured) into a new
 * handle; *nzones gets the zone count. NULL on failure, with msg. */
static adi_cgns_zone *open_file(const char *path, int *nzones, char *msg, size_t msglen)
{
  adi_cgns_zone *z = calloc(1, sizeof *z);
  if (!z) { snprintf(msg, msglen, "grid file \"%s\": no memory", path); return NULL; }
  snprintf(z->path, sizeof z->path, "%s", path);
  z->fn = -1;
  char why[600];
  /* a FIFO or a device named .cgns would block or mislead the library,
   * which opens by name: only a regular file is handed to it (the window
   * between this check and its open is the same as any reader's by name) */
  adi_open_status st;
  int fd = adi_open_regular(path, &st);
  if (fd < 0) {
    adi_open_message(path, &st, why, sizeof why);
    snprintf(msg, msglen, "grid file %s", why);
    free(z);
    return NULL;
  }
  close(fd);
  if (adi_cgns_lib_load(&z->lib, why, sizeof why) != 0) {
    snprintf(msg, msglen, "grid file \"%s\": %s", path, why);
    free(z);
    return NULL;
  }
  adi_cgns_lib *L = &z->lib;
  int ftype = 0, nbases = 0, cdim = 0, pdim = 0;
  char bname[33] = "";
  if (L->cg_is_cgns(path, &ftype) != 0) {
    snprintf(msg, msglen, "grid file \"%s\" is missing or not a CGNS file (its name ends in .cgns)", path);
    goto fail;
  }
#define FAIL_IF(call, ...) do { if ((call) != 0) { int n_ = snprintf(msg, msglen, __VA_ARGS__); \
    if (n_ >= 0 && (size_t)n_ < msglen) snprintf(msg + n_, msglen - (size_t)n_, " (CGNS library: %s; %s:%d)", \
      L->cg_get_error(), __FILE__, __LINE__); goto fail; } } while (0)
  FAIL_IF(L->cg_open(path, CG_MODE_READ, &z->fn), "grid file \"%s\" cannot be opened as a CGNS file", path);
  FAIL_IF(L->cg_nbases(z->fn, &nbases), "grid file \"%s\": its bases cannot be counted", path);
  if (nbases != 1) {
    snprintf(msg, msglen, "grid file \"%s\" holds %d CGNS bases; adiflow reads a file of one base", path, nbases);
    goto fail;
  }
  z->base = 1;
  FAIL_IF(L->cg_base_read(z->fn, 1, bname, &cdim, &pdim), "grid file \"%s\": its base cannot be read", path);
  FAIL_IF(L->cg_nzones(z->fn, 1, nzones), "grid file \"%s\": its zones cannot be counted", path);
  /* every zone must be structured (said by name) */
  for (int zz = 1; zz <= *nzones; zz++) {
    CGNS_ENUMT(ZoneType_t) zt;
    char zname[33] = "";
    cgsize_t sz[9];
    FAIL_IF(L->cg_zone_read(z->fn, 1, zz, zname, sz), "grid file \"%s\": zone %d cannot be read", path, zz);
    FAIL_IF(L->cg_zone_type(z->fn, 1, zz, &zt), "grid file \"%s\": the type of zone \"%s\" cannot be read", path, zname);
    if (zt != CGNS_ENUMV(Structured)) {
      snprintf(msg, msglen, "grid file \"%s\", zone \"%s\" is %s; adiflow reads structured zones only", path, zname,
               zone_type_name(zt));
      goto fail;
    }
  }
  if (*nzones < 1) {
    snprintf(msg, msglen, "grid file \"%s\" holds no zone", path);
    goto fail;
  }
  z->nzones = *nzones;
  return z;
fail:
  adi_cgns_close(z);
  return NULL;
}

/* Zone zz (1-based) of the open file: its sizes, coordinates' count, BCs
 * and interfaces into z. 0, or 2 with msg. */
static int read_zone(adi_cgns_zone *z, int zz, char *msg, size_t msglen)
{
  adi_cgns_lib *L = &z->lib;
  const char *path = z->path;
  z->zone = zz;
  /* a handle that read another zone before: its lists go */
  free(z->bc);
  free(z->c1);
  z->bc = NULL;
  z->c1 = NULL;
  memset(&z->info, 0, sizeof z->info);
  cgsize_t sz[9] = {0};
  FAIL_IF(L->cg_zone_read(z->fn, 1, zz, z->zname, sz), "grid file \"%s\": zone %d cannot be read", path, zz);
  FAIL_IF(L->cg_index_dim(z->fn, 1, zz, &z->index_dim), "grid file \"%s\", zone \"%s\": its index dimension cannot be read",
          path, z->zname);
  if (z->index_dim != 2 && z->index_dim != 3) {
    snprintf(msg, msglen, "grid file \"%s\", zone \"%s\" is %dD; adiflow reads 2D and 3D zones", path, z->zname, z->index_dim);
    goto fail;
  }
  z->info.n[0] = z->info.n[1] = z->info.n[2] = 1;
  for (int d = 0; d < z->index_dim; d++) z->info.n[d] = sz[d];
  for (int d = 0; d < z->index_dim; d++)
    if (z->info.n[d] < 2) {
      snprintf(msg, msglen, "grid file \"%s\", zone \"%s\": %lld nodes in direction %c; a zone needs 2 or more", path,
               z->zname, (long long)z->info.n[d], "ijk"[d]);
      goto fail;
    }
  /* a 2D zone's nodes carry x, y (and a CoordinateZ, when present, is read as
   * a 3D file of one k-plane is: it must be constant) */
  int ncoord = 0;
  FAIL_IF(L->cg_ncoords(z->fn, 1, zz, &ncoord), "grid file \"%s\", zone \"%s\": its coordinates cannot be counted", path,
          z->zname);
  z->info.dims = 2;
  for (int c = 1; c <= ncoord; c++) {
    CGNS_ENUMT(DataType_t) dt;
    char cname[33] = "";
    FAIL_IF(L->cg_coord_info(z->fn, 1, zz, c, &dt, cname), "grid file \"%s\", zone \"%s\": coordinate %d cannot be read",
            path, z->zname, c);
    if (strcmp(cname, "CoordinateZ") == 0) z->info.dims = 3;
  }
  if (z->index_dim == 3 && z->info.dims != 3) {
    snprintf(msg, msglen, "grid file \"%s\", zone \"%s\": a 3D zone without CoordinateZ", path, z->zname);
    goto fail;
  }
  if (read_bcs(z, msg, msglen) != 0 || read_1to1(z, msg, msglen) != 0) goto fail;
#undef FAIL_IF
  return 0;
fail:
  return 2;
}

int adi_cgns_open(const char *path, adi_cgns_zone **zone, adi_cgns_zone_info *info, char *msg, size_t msglen)
{
  int nzones = 0;
  adi_cgns_zone *z = open_file(path, &nzones, msg, msglen);
  *zone = NULL;
  if (!z) return 2;
  if (nzones != 1) {
    snprintf(msg, msglen, "grid file \"%s\" holds %d zones; the solver runs one block (one structured zone)", path, nzones);
    adi_cgns_close(z);
    return 2;
  }
  if (read_zone(z, 1, msg, msglen) != 0) {
    adi_cgns_close(z);
    return 2;
  }
  *info = z->info;
  *zone = z;
  return 0;
}

int adi_cgns_zone_count(const char *path, int32_t *nzones, char *msg, size_t msglen)
{
  int n = 0;
  adi_cgns_zone *z = open_file(path, &n, msg, msglen);
  *nzones = 0;
  if (!z) return 2;
  *nzones = n;
  adi_cgns_close(z);
  return 0;
}

int adi_cgns_open_zones(const char *path, adi_cgns_zone **zone, int32_t *nzones, char *msg, size_t msglen)
{
  int n = 0;
  *zone = open_file(path, &n, msg, msglen);
  *nzones = n;
  return *zone ? 0 : 2;
}

int adi_cgns_select_zone(adi_cgns_zone *z, int32_t zz, adi_cgns_zone_info *info, char *msg, size_t msglen)
{
  if (zz < 1 || zz > z->nzones) {
    snprintf(msg, msglen, "grid file \"%s\" holds %d zones, not a zone %d", z->path, z->nzones, (int)zz);
    return 2;
  }
  if (read_zone(z, zz, msg, msglen) != 0) return 2;
  *info = z->info;
  return 0;
}

int adi_cgns_bc_range(const adi_cgns_zone *z, int b, int32_t *face, int64_t lo[2], int64_t hi[2])
{
  if (b < 0 || b >= z->info.nbc) return 2;
  *face = z->bc[b].face;
  memcpy(lo, z->bc[b].lo, sizeof z->bc[b].lo);
  memcpy(hi, z->bc[b].hi, sizeof z->bc[b].hi);
  return 0;
}

void adi_cgns_zone_name(const adi_cgns_zone *z, char *name, size_t namelen) { snprintf(name, namelen, "%s", z->zname); }

int adi_cgns_1to1_donor(const adi_cgns_zone *z, int c, char *name, size_t namelen)
{
  if (c < 0 || c >= z->info.n1to1) return 2;
  snprintf(name, namelen, "%s", z->c1[c].donor_zone);
  return 0;
}

int adi_cgns_coords(adi_cgns_zone *z, double *xyz, int64_t nvalues, char *msg, size_t msglen)
{
  static const char *names[3] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
  int64_t nn = z->info.n[0] * z->info.n[1] * z->info.n[2];
  if (nvalues != z->info.dims * nn) {
    snprintf(msg, msglen, "grid file \"%s\": %lld coordinates asked for, the zone has %lld", z->path,
             (long long)nvalues, (long long)(z->info.dims * nn));
    return 2;
  }
  cgsize_t rmin[3] = {1, 1, 1}, rmax[3];
  for (int d = 0; d < 3; d++) rmax[d] = (cgsize_t)z->info.n[d];
  for (int c = 0; c < z->info.dims; c++) {
    /* the library converts a single-precision file to doubles exactly */
    CG_CHECK(z, z->lib.cg_coord_read(z->fn, z->base, z->zone, names[c], CGNS_ENUMV(RealDouble), rmin, rmax, xyz + c * nn),
             "grid file \"%s\", zone \"%s\": its %s cannot be read (a structured zone needs CoordinateX, CoordinateY "
             "and, in 3D, CoordinateZ)", z->path, z->zname, names[c]);
    for (int64_t m = 0; m < nn; m++)
      if (!isfinite(xyz[c * nn + m]) || fabs(xyz[c * nn + m]) > 1e100) {
        int64_t i = m % z->info.n[0], j = (m / z->info.n[0]) % z->info.n[1], k = m / (z->info.n[0] * z->info.n[1]);
        snprintf(msg, msglen, "grid file \"%s\", zone \"%s\": node %lld,%lld,%lld has %s = %g, not a coordinate",
                 z->path, z->zname, (long long)i + 1, (long long)j + 1, (long long)k + 1, names[c], xyz[c * nn + m]);
        return 2;
      }
  }
  return 0;
}

int adi_cgns_bc_line(const adi_cgns_zone *z, int b, char *line, size_t linelen, char *where, size_t wherelen,
                     int32_t *thermal)
{
  static const char *faces[6] = {"imin", "imax", "jmin", "jmax", "kmin", "kmax"};
  if (b < 0 || b >= z->info.nbc) return 2;
  const bc_patch *p = &z->bc[b];
  snprintf(line, linelen, "%s %s %lld:%lld %lld:%lld", faces[p->face], p->kind, (long long)p->lo[0], (long long)p->hi[0],
           (long long)p->lo[1], (long long)p->hi[1]);
  snprintf(where, wherelen, "grid file \"%s\", zone \"%s\", BC \"%s\" (%s)", z->path, z->zname, p->name, p->type);
  *thermal = p->thermal;
  return 0;
}

int adi_cgns_1to1(const adi_cgns_zone *z, int c, int32_t *self, int64_t range[6], int64_t donor[6],
                  int32_t transform[3], char *name, size_t namelen)
{
  if (c < 0 || c >= z->info.n1to1) return 2;
  const one_to_one *o = &z->c1[c];
  *self = o->self;
  memcpy(range, o->range, sizeof o->range);
  memcpy(donor, o->donor, sizeof o->donor);
  memcpy(transform, o->transform, sizeof o->transform);
  snprintf(name, namelen, "%s", o->name);
  return 0;
}

void adi_cgns_close(adi_cgns_zone *z)
{
  if (!z) return;
  if (z->fn >= 0 && z->lib.cg_close) z->lib.cg_close(z->fn);
  free(z->bc);
  free(z->c1);
  adi_cgns_lib_unload(&z->lib);
  free(z);
}
#endif
