/* One structured zone of a CGNS file (fortran/cgns_zone.c): its node
 * coordinates, its boundary conditions as adiflow's patch lines, and its
 * 1-to-1 connectivity, read through the CGNS mid-level library.
 *
 * The library is loaded when a CGNS file is first asked for (dlopen of the
 * libcgns the build found), not linked: build/adiflow then runs on a machine
 * without libcgns (a GPU machine) as long as no CGNS file is asked for. A
 * build made without libcgns-dev compiles the same API to answers that say
 * so (exit 2 for the driver).
 *
 * Every function returns 0, or 2 (the solver's exit code of bad input) with
 * a sentence in msg that names the file, the zone and what is wrong; the
 * CGNS library's own words and the source line follow in brackets. */
#ifndef ADIFLOW_CGNS_ZONE_H
#define ADIFLOW_CGNS_ZONE_H

#include <stddef.h>
#include <stdint.h>

typedef struct adi_cgns_zone adi_cgns_zone;

/* What the zone is; the same struct as cgns_zone_info_t in
 * fortran/cgns_grid.f90 (bind(c)). */
typedef struct adi_cgns_zone_info {
  int32_t dims;      /* coordinates per node: 2 (x, y) or 3 */
  int32_t nbc;       /* boundary conditions, as patch lines (adi_cgns_bc_line) */
  int32_t n1to1;     /* 1-to-1 interfaces (adi_cgns_1to1) */
  int32_t pad;
  int64_t n[3];      /* nodes in i, j, k; n[2] = 1 for a 2D zone */
} adi_cgns_zone_info;

/* Opens path, checks it holds one base with one structured zone and reads
 * the zone's sizes, boundary conditions and interfaces. *zone is NULL on
 * failure; else free it with adi_cgns_close. */
int adi_cgns_open(const char *path, adi_cgns_zone **zone, adi_cgns_zone_info *info, char *msg, size_t msglen);

/* The coordinates in the order of fortran/plot3d_file.h: coordinate c of
 * node (i,j,k) (1-based) at xyz[c*N + (i-1) + n0*((j-1) + n1*(k-1))];
 * nvalues = dims * N. A value that is not finite is refused by node. */
int adi_cgns_coords(adi_cgns_zone *zone, double *xyz, int64_t nvalues, char *msg, size_t msglen);

/* Boundary condition b (0-based) as one line of a patch file
 * ("imin wall 1:8 1:1") and where it comes from ("zone "Z", BC "wall-1"
 * (BCWallViscous)"); thermal: 0 the case's wall condition, 1 isothermal,
 * 2 adiabatic (a heat-flux wall, whose flux value is not read). */
int adi_cgns_bc_line(const adi_cgns_zone *zone, int b, char *line, size_t linelen, char *where, size_t wherelen,
                     int32_t *thermal);

/* Interface c (0-based): the donor is this zone itself (1) or another (0);
 * range and donor range as imin, jmin, kmin, imax, jmax, kmax (nodes,
 * 1-based); the transform; its name for messages. */
int adi_cgns_1to1(const adi_cgns_zone *zone, int c, int32_t *self, int64_t range[6], int64_t donor[6],
                  int32_t transform[3], char *name, size_t namelen);

void adi_cgns_close(adi_cgns_zone *zone);

/* A file of several zones (a multi-block grid, fortran/cgns_blocks.f90):
 * the count of its zones (one base, every zone structured); or the file
 * opened once (*nzones its zones, no zone read yet), then each zone zz
 * (1-based) read on that handle in turn, as adi_cgns_open reads the one
 * zone of a one-zone file (the previous zone's BCs and interfaces go). */
int adi_cgns_zone_count(const char *path, int32_t *nzones, char *msg, size_t msglen);
int adi_cgns_open_zones(const char *path, adi_cgns_zone **zone, int32_t *nzones, char *msg, size_t msglen);
int adi_cgns_select_zone(adi_cgns_zone *zone, int32_t zz, adi_cgns_zone_info *info, char *msg, size_t msglen);

/* Boundary condition b's face (0 imin .. 5 kmax) and its cell ranges in the
 * face's two directions, as adi_cgns_bc_line writes them (0, or 2 for no such b). */
int adi_cgns_bc_range(const adi_cgns_zone *zone, int b, int32_t *face, int64_t lo[2], int64_t hi[2]);

/* The zone's name; interface c's donor zone's name (0, or 2 for no such c). */
void adi_cgns_zone_name(const adi_cgns_zone *zone, char *name, size_t namelen);
int adi_cgns_1to1_donor(const adi_cgns_zone *zone, int c, char *name, size_t namelen);

/* 1 when this build reads CGNS files (libcgns-dev was there), else 0. */
int adi_cgns_available(void);

#endif
