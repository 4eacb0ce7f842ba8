/* output.c - see output.h: PNG (uncompressed deflate, no zlib needed, written
 * through guard.c's safe output files), hashing, the clock the programs share,
 * output calls that exit RC_OUTPUT on failure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "guard.h"
#include "output.h"

static unsigned long crc_table[256];
static void crc_init(void)
{
    static int done;
    if (done) return;
    for (unsigned long n = 0; n < 256; n++) {
        unsigned long c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320UL ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
    done = 1;
}
static unsigned long crc_update(unsigned long crc, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
    return crc;
}
static void put32(unsigned char *p, unsigned long v) { p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16); p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v; }

static void chunk(GuardOut *f, const char *type, const unsigned char *data, size_t n)
{
    unsigned char hdr[8]; put32(hdr, (unsigned long)n); memcpy(hdr + 4, type, 4);
    unsigned long crc = crc_update(0xffffffffUL, (const unsigned char *)type, 4);
    crc = crc_update(crc, data, n) ^ 0xffffffffUL;
    unsigned char c4[4]; put32(c4, crc);
    guard_out_write(f, hdr, 8);
    guard_out_write(f, data, n);
    guard_out_write(f, c4, 4);
}

int mod_png_rgb(const char *path, const unsigned char *rgb, int w, int h, char *err, size_t n)
{
    if (w < 1 || h < 1 || w > 65535 || h > 65535) {
        snprintf(err, n, "cannot write '%s': image size %d x %d is outside 1 .. 65535", path, w, h); return -1; }
    crc_init();
    size_t row = (size_t)w * 3 + 1, raw = row * h;
    size_t nblk = raw / 65535 + 1;
    size_t zn = 2 + raw + nblk * 5 + 4;
    unsigned char *z = malloc(zn);
    if (!z) { snprintf(err, n, "cannot write '%s': out of host memory for the image", path); return -1; }
    size_t o = 0; unsigned long a = 1, b = 0;
    z[o++] = 0x78; z[o++] = 0x01;
    size_t left = raw, pos = 0;  /* stream of filter bytes + pixels */
    while (1) {
        size_t len = left < 65535 ? left : 65535;
        z[o++] = left <= 65535 ? 1 : 0;
        z[o++] = (unsigned char)len; z[o++] = (unsigned char)(len >> 8);
        z[o++] = (unsigned char)~len; z[o++] = (unsigned char)(~len >> 8);
        for (size_t i = 0; i < len; i++, pos++) {
            size_t y = pos / row, x = pos % row;
            unsigned char v = x == 0 ? 0 : rgb[y * (size_t)w * 3 + x - 1];
            z[o++] = v;
            a = (a + v) % 65521; b = (b + a) % 65521;
        }
        left -= len;
        if (!left) break;
    }
    put32(z + o, (b << 16) | a); o += 4;
    GuardOut f;
    if (guard_out_open(&f, path, err, n)) { free(z); return -1; }
    static const unsigned char sig[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
    unsigned char ihdr[13];
    put32(ihdr, (unsigned long)w); put32(ihdr + 4, (unsigned long)h);
    ihdr[8] = 8; ihdr[9] = 2; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
    guard_out_write(&f, sig, 8);
    chunk(&f, "IHDR", ihdr, 13);
    chunk(&f, "IDAT", z, o);
    chunk(&f, "IEND", NULL, 0);
    free(z);
    return guard_out_close(&f, err, n);
}

/* blue - white - red, symmetric clip; large fields are box-downsampled to <= 2048 px
 * (a box is cut at the edge of the field, so odd shapes such as 1000000 x 3 work) */
static inline double value_at(const void *u, int dbl, size_t i)
{
    return dbl ? ((const double *)u)[i] : (double)((const float *)u)[i];
}

int mod_png_field(const char *path, const void *u, int dbl, int nx, int ny, double clip, char *err, size_t n)
{
    int s = 1;
    while (nx / s > 2048 || ny / s > 2048) s++;
    int w = nx / s, h = ny / s;
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    if (clip <= 0) {
        double m = 0;
        for (size_t i = 0; i < (size_t)nx * ny; i++) { double v = fabs(value_at(u, dbl, i)); if (v > m) m = v; }
        clip = m > 0 ? m : 1;
    }
    unsigned char *rgb = malloc((size_t)w * h * 3);
    if (!rgb) { snprintf(err, n, "cannot write '%s': out of host memory for the image", path); return -1; }
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            double acc = 0; int cnt = 0;
            for (int b = 0; b < s && j * s + b < ny; b++)
                for (int a = 0; a < s && i * s + a < nx; a++, cnt++) acc += value_at(u, dbl, (size_t)(j * s + b) * nx + i * s + a);
            double v = acc / (cnt ? cnt : 1) / clip;
            if (v > 1) v = 1;
            if (v < -1) v = -1;
            if (v != v) v = 0;   /* NaN: white */
            unsigned char *p = rgb + ((size_t)j * w + i) * 3;
            if (v >= 0) { p[0] = 255; p[1] = p[2] = (unsigned char)(255 * (1 - v)); }
            else { p[2] = 255; p[0] = p[1] = (unsigned char)(255 * (1 + v)); }
        }
    int rc = mod_png_rgb(path, rgb, w, h, err, n);
    free(rgb);
    return rc;
}

unsigned long long mod_hash(const void *data, size_t bytes)
{
    const unsigned char *p = data;
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < bytes; i++) { h ^= p[i]; h *= 1099511628211ULL; }
    return h;
}

double mod_now(void)
{
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* ---- output that must succeed ---- */

void mod_out_mkdir(const char *dir)
{
    char err[1200];
    if (guard_mkdir_p(dir, err, sizeof err)) mod_fail(RC_OUTPUT, "%s", err);
}

void mod_out_file(const char *path, const void *data, size_t bytes)
{
    char err[1200];
    if (guard_write_file(path, data, bytes, err, sizeof err)) mod_fail(RC_OUTPUT, "%s", err);
}

void mod_out_png(const char *path, const void *u, int dbl, int nx, int ny, double clip)
{
    char err[1200];
    if (mod_png_field(path, u, dbl, nx, ny, clip, err, sizeof err)) mod_fail(RC_OUTPUT, "%s", err);
}

void mod_out_open(GuardOut *o, const char *path)
{
    char err[1200];
    if (guard_out_open(o, path, err, sizeof err)) mod_fail(RC_OUTPUT, "%s", err);
}

void mod_out_close(GuardOut *o)
{
    char err[1200];
    if (guard_out_close(o, err, sizeof err)) mod_fail(RC_OUTPUT, "%s", err);
}
