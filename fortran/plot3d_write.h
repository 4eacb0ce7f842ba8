/* A Plot3D writer: grids of every variant the reader (fortran/plot3d_file.c)
 * takes, and a few it refuses (validation/make_grid.c: the files of the
 * validation cases and the reader's test matrix), and the drivers' solution
 * files (a grid and its q file). */
#ifndef ADIFLOW_PLOT3D_WRITE_H
#define ADIFLOW_PLOT3D_WRITE_H

#include <stddef.h>
#include <stdint.h>

typedef enum { P3D_TEXT, P3D_FORTRAN, P3D_RAW } p3d_encoding;

enum { P3D_MAX_BLOCKS = 64 };   /* blocks in one file written here */

typedef struct p3d_write_options {
  p3d_encoding encoding;
  int real_bytes;          /* 4 or 8 */
  int big_endian;          /* binary only */
  int marker_bytes;        /* Fortran: 4 or 8 */
  int64_t max_subrecord;   /* Fortran: split records into subrecords of at most this many bytes (0: never) */
  int with_count;          /* write the block count (the multi-grid header) */
  int dims;                /* 2: x, y; 3: x, y, z */
  int nblocks;             /* p3d_write: the block written this many times (a multi-block file for the tests) */
  int iblank;              /* IBLANK = 1 after each block's coordinates */
} p3d_write_options;

/* Writes the block of n[0] x n[1] x n[2] nodes (n[2] = 1 for dims 2) whose
 * coordinate c of node m (i fastest) is xyz[c*N + m]. 0, or -1 with the
 * reason in msg. The file appears complete or not at all (PATH.tmp, then
 * renamed). */
int p3d_write(const char *path, const p3d_write_options *o, const int64_t n[3], const double *xyz, char *msg,
              size_t msglen);

/* A file of nb different blocks (1 to P3D_MAX_BLOCKS; o->nblocks is not
 * read): block b has n[3b] x n[3b+1] x n[3b+2] nodes and coordinate c of
 * its node m at xyz[b][c*N_b + m]. As p3d_write otherwise. */
int p3d_write_blocks(const char *path, const p3d_write_options *o, int nb, const int64_t *n,
                     const double *const *xyz, char *msg, size_t msglen);

/* A q file of nb blocks (the sizes as p3d_write_blocks; o->dims must be 3,
 * o->iblank is not read): before each block's values the four reals head
 * (free-stream Mach number, angle of attack in degrees, Reynolds number,
 * time), then its five values per node, value v of node m at q[b][v*N_b + m]:
 * density, the three momenta, total energy. */
int p3d_write_q(const char *path, const p3d_write_options *o, int nb, const int64_t *n, const double *const *q,
                const double head[4], char *msg, size_t msglen);

/* grid_path and q_path of nb blocks (the drivers' flow.xyz and flow.q; 1
 * to P3D_MAX_BLOCKS), block b of n[3b] x n[3b+1] x n[3b+2] nodes, the
 * blocks' coordinates one after another in xyz and their five values in q
 * (each block as p3d_write_blocks and p3d_write_q take it), each with the
 * q header head: with the block count, Fortran unformatted, 8-byte reals,
 * little-endian. 0, or -1 with the reason in msg. */
int adi_p3d_write_solution(const char *grid_path, const char *q_path, int nb, const int64_t *n, const double *xyz,
                           const double *q, const double head[4], char *msg, int msglen);

/* P3D_MAX_BLOCKS, for the Fortran side's checks before a run */
int adi_p3d_max_blocks(void);

#endif
