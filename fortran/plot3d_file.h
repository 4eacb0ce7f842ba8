/* Plot3D grid files, whole format, one block (fortran/plot3d_file.c): what a
 * file is, found from its bytes alone, and its node coordinates.
 *
 * Read: 3D (x, y, z per node) and 2D (x, y) grids; formatted (ASCII text),
 * Fortran unformatted sequential (4- or 8-byte record markers, records split
 * into subrecords as gfortran and Intel Fortran write those over 2 GiB) and
 * raw binary (stream, no markers); single and double precision; little- and
 * big-endian; with or without the block-count header. The encoding, the
 * precision and the byte order are never asked: the record markers, or the
 * sizes in the header against the file's length, tell them, and a file that
 * two readings fit is refused as ambiguous rather than guessed.
 * Refused with a message naming the file: more than one block (the count is
 * named; adi_p3d_probe_blocks below reads them), IBLANK values, the planes format, sizes that do not match the
 * file's length or its records, a damaged or truncated record, a value that
 * is not a finite number (the node and the coordinate are named).
 *
 * Node (i,j,k), 1-based as Plot3D numbers them, coordinate c (0 = x, 1 = y,
 * 2 = z) is xyz[c*N + (i-1) + n[0]*((j-1) + n[1]*(k-1))], N = n[0]*n[1]*n[2]:
 * the file's own order, each coordinate a whole array, i fastest. */
#ifndef ADIFLOW_PLOT3D_FILE_H
#define ADIFLOW_PLOT3D_FILE_H

#include <stddef.h>
#include <stdint.h>

enum { ADI_P3D_ASCII = 1, ADI_P3D_FORTRAN = 2, ADI_P3D_RAW = 3 };

/* What adi_p3d_probe found; the same struct as plot3d_layout_t in
 * fortran/grid_file.f90 (bind(c)). */
typedef struct adi_p3d_layout {
  int32_t encoding;      /* ADI_P3D_ASCII, ADI_P3D_FORTRAN or ADI_P3D_RAW */
  int32_t marker_bytes;  /* 4 or 8 (Fortran unformatted), else 0 */
  int32_t real_bytes;    /* 4 or 8 (binary), 0 for text */
  int32_t big_endian;    /* 1: big-endian (binary), else 0 */
  int32_t has_count;     /* 1: the file starts with the block count (1) */
  int32_t dims;          /* 2 (x, y) or 3 (x, y, z) coordinates per node */
  int64_t n[3];          /* nodes in i, j, k; n[2] = 1 for a 2D grid */
  int64_t file_bytes;    /* the file's size when it was probed */
} adi_p3d_layout;

/* Finds what the file at path is, reading its header, its record markers
 * (or its text) and nothing more. 0, or an errno-like code with the reason
 * in msg (a sentence naming the file). */
int adi_p3d_probe(const char *path, adi_p3d_layout *lay, char *msg, size_t msglen);

/* Reads the coordinates of the file that adi_p3d_probe described as lay into
 * xyz (nvalues = lay->dims * N doubles). Refuses a file that changed since
 * the probe, and the first value that is not finite or is beyond 1e100 in
 * magnitude (no grid coordinate is: a file read in another precision or byte
 * order than it was written in), naming the node and the coordinate. */
int adi_p3d_read(const char *path, const adi_p3d_layout *lay, double *xyz, int64_t nvalues, char *msg,
                 size_t msglen);

/* Multi-block files (the same formats; all blocks in one dims and one
 * precision): adi_p3d_probe_blocks is adi_p3d_probe that reads a file of
 * any number of blocks: *nblocks gets their count, and when it is at most
 * cap, sizes[3*b .. 3*b+2] the nodes of block b+1 in i, j, k (k = 1 in 2D);
 * lay->n is block 1's. adi_p3d_read_blocks reads every block's coordinates
 * in the file's order into xyz: block 1's x array, y array (z array), then
 * block 2's, ... (nvalues = dims * the nodes of all blocks). A one-block
 * file reads as adi_p3d_probe and adi_p3d_read read it. */
int adi_p3d_probe_blocks(const char *path, adi_p3d_layout *lay, int64_t *nblocks, int64_t *sizes, int64_t cap,
                         char *msg, size_t msglen);
int adi_p3d_read_blocks(const char *path, const adi_p3d_layout *lay, double *xyz, int64_t nvalues, char *msg,
                        size_t msglen);

/* "Fortran unformatted (4-byte record markers), double precision,
 * big-endian, with the block count" and the like. */
void adi_p3d_describe(const adi_p3d_layout *lay, char *buf, size_t buflen);

#endif
