/* output.h - output helpers shared by wave2d, stencil3d and ooc2d: PNG images
 * (uncompressed deflate, no zlib needed) written through guard.h's safe output
 * files, the FNV-1a hash of the checksums, the monotonic clock, the integer
 * hash of the "noise" initial fields, and output calls that must succeed
 * (mod_out_*: on failure the message and exit RC_OUTPUT). None of it depends
 * on the precision of a module: fields come as float or double by flag. */
#ifndef MOD_OUTPUT_H
#define MOD_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include "guard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0, or -1 with a message in err */
int mod_png_rgb(const char *path, const unsigned char *rgb, int w, int h, char *err, size_t n);
/* field u (nx*ny, x fastest; float, or double if dbl) in blue - white - red,
 * symmetric clip (clip <= 0: the largest |u|); large fields are box-downsampled
 * to <= 2048 px */
int mod_png_field(const char *path, const void *u, int dbl, int nx, int ny, double clip, char *err, size_t n);
/* 64-bit FNV-1a */
unsigned long long mod_hash(const void *data, size_t bytes);
/* seconds on the monotonic clock */
double mod_now(void);

/* 32-bit integer hash (lowbias32): the "noise" initial fields of stencil3d and ooc */
static inline uint32_t mod_mix32(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

/* ---- output that must succeed: else "PROG: error: ..." and exit RC_OUTPUT ---- */
void mod_out_mkdir(const char *dir);
void mod_out_file(const char *path, const void *data, size_t bytes);
void mod_out_png(const char *path, const void *u, int dbl, int nx, int ny, double clip);
void mod_out_open(GuardOut *o, const char *path);
void mod_out_close(GuardOut *o);

#ifdef __cplusplus
}
#endif
#endif
