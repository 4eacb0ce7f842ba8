/* case.c - ooc2d parameters, validation, initial field, checksum. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "ooc.h"
#include "output.h"   /* modules/common: mod_hash, mod_mix32 */

/* Ranges: what the parser accepts for each key; what depends on other keys
 * (the grid minimum of the equation, stability, the budget) is checked in
 * ooc_case_finalize and main. */
#define N(name, t, lo, hi, help) OPT_NUM(OocCase, name, t, lo, hi, help)
#define S(name, help)            OPT_TEXT(OocCase, name, help)
#define C(name, choices, help)   OPT_CHOICE(OocCase, name, choices, help)
static const OptKey keys[] = {
    C(eq, "heat|wave", "heat (5-point explicit scheme of the paper) | wave (8th-order leapfrog, two time levels)"),
    N(nx, OPT_INT, 3, 1000000, "grid points in x (a row), fixed frame included"),
    N(ny, OPT_INT, 3, 1000000, "grid points in y (rows; slabs are ranges of rows)"),
    N(nt, OPT_LONG, 0, 1e12, "time steps"),
    N(r, OPT_DBL, 0, INFINITY, "heat: alpha dt / h^2 (0 = 0.2; stable up to 0.25)"),
    N(courant, OPT_DBL, 0, INFINITY, "wave: v dt / h (0 = 0.45; stable up to 0.5546)"),
    N(device_mem, OPT_SIZE, 0, 1e15, "device memory budget, e.g. 64M or 2G (0 = 1/8 of the field, at least 2 x the minimum); --device-mem works too"),
    N(rows, OPT_INT, 0, 100000000, "rows of a slab buffer (0 = as many as the budget allows)"),
    N(n, OPT_INT, 0, 1000000, "pyramid height, steps per transfer (0 = chosen by the cost model)"),
    C(method, "all|pyramid|trivial|incore", "which methods to run"),
    C(check, "auto|cpu|gpu|none", "reference for the bit-identity check: auto | cpu | gpu | none (gpu = in-core on the GPU)"),
    C(mode, "auto|cpu|gpu", "auto | cpu (CPU stand-in device) | gpu"),
    N(overlap, OPT_INT, 0, 1, "1 = streams and double buffering, 0 = one stream (the paper's serial setting)"),
    C(init, "gauss|noise", "gauss | noise (noise also in the frame; wave: starts at rest)"),
    N(sched_seed, OPT_INT, 0, 2147483647, "CPU stand-in: 0 = operations in issue order, else a random legal stream interleaving"),
    N(poison, OPT_INT, 0, 1, "CPU stand-in: 1 = fill device buffers with NaN before each slab"),
    N(threads, OPT_INT, 0, 1024, "OpenMP threads (0 = default)"),
    N(quiet, OPT_INT, 0, 1, "1 = only errors and the summary"),
    S(out, "output directory ('' = no files): final.bin, final.png, info.txt"),
    N(write_final, OPT_INT, 0, 1, "write out/final.bin (1/0)"),
    N(debug_break, OPT_INT, 0, 2, "tests only: 1 = drop the buffer-slot wait, 2 = download the seam too early"),
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

void ooc_case_defaults(OocCase *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->eq, "heat");
    c->nx = 1024; c->ny = 1024; c->nt = 100;
    strcpy(c->method, "all"); strcpy(c->check, "auto"); strcpy(c->mode, "auto");
    c->overlap = 1;
    strcpy(c->init, "gauss");
}

int ooc_case_args(OocCase *c, int argc, char **argv, char *err, size_t n)
{
    return opts_args(keys, NKEYS, c, argc, argv, err, n);
}

void ooc_usage(const char *prog)
{
    opts_usage(keys, NKEYS, prog,
               "2D heat / wave equation on a grid larger than the device memory budget:\n"
               "the method of pyramids (n steps per transfer) against the trivial method (one step per transfer).");
}

int ooc_case_finalize(OocCase *c, char *err, size_t n)
{
    /* every number against its range and every choice against its list again:
     * fields may have been set by code, not the parser */
    if (opts_check(keys, NKEYS, c, err, n)) return -1;
    c->eq_id = !strcmp(c->eq, "heat") ? OOC_HEAT : OOC_WAVE;
    c->rad = OOC_RAD(c->eq_id);
    c->levels = c->eq_id == OOC_WAVE ? 2 : 1;
    const int minn = 2 * c->rad + 1;
    if (c->nx < minn || c->ny < minn || c->nx > 1000000 || c->ny > 1000000) {
        snprintf(err, n, "grid %d x %d: nx and ny must be %d .. 1000000 for eq = %s (a frame of %d points on each side plus at least one updated point)",
                 c->nx, c->ny, minn, c->eq, c->rad);
        return -1;
    }
    if (c->eq_id == OOC_HEAT) {
        if (c->r == 0) c->r = 0.2;
        if (!(c->r > 0) || c->r > 0.25) { snprintf(err, n, "r = %g is outside the stable range of the explicit heat scheme: allowed 0 < r <= 0.25", c->r); return -1; }
        c->coef = (real)c->r;
    } else {
        const double lim = 2.0 / sqrt(2.0 * fabs(WAVE_C0 - 2 * WAVE_C1 + 2 * WAVE_C2 - 2 * WAVE_C3 + 2 * WAVE_C4));
        if (c->courant == 0) c->courant = 0.45;
        if (!(c->courant > 0) || c->courant > lim) {
            snprintf(err, n, "courant = %g is outside the stable range of the 8th-order leapfrog scheme: allowed 0 < courant <= %.4f", c->courant, lim);
            return -1;
        }
        c->coef = (real)(c->courant * c->courant);
    }
    const double field = (double)c->nx * c->ny * sizeof(real) * c->levels;
    const double minimum = 4.0 * c->nx * sizeof(real) * 3 * c->rad;   /* 4 buffers of 3R rows */
    if (c->device_mem == 0) c->device_mem = (long)(field / 8 > 2 * minimum ? field / 8 : 2 * minimum);
    return 0;
}

void ooc_init_field(const OocCase *c, real *u)
{
    const int nx = c->nx, ny = c->ny, R = c->rad, noise = !strcmp(c->init, "noise");
    double *gx = malloc(sizeof(double) * nx), *gy = malloc(sizeof(double) * ny);
    if (!gx || !gy) mod_fail(RC_MEMORY, "out of host memory for the initial profiles");
    const double w = (nx < ny ? nx : ny) / 12.0;
    for (int i = 0; i < nx; i++) { double x = (i - 0.4 * nx) / w; gx[i] = exp(-x * x); }
    for (int j = 0; j < ny; j++) { double y = (j - 0.55 * ny) / w; gy[j] = exp(-y * y); }
    #pragma omp parallel for schedule(static)
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            size_t o = (size_t)j * nx + i;
            if (noise) u[o] = (real)((mod_mix32((uint32_t)i * 0x9e3779b1U ^ mod_mix32((uint32_t)j + 0x85ebca77U)) >> 8) * (2.0 / 16777216.0) - 1.0);
            else if (i < R || j < R || i >= nx - R || j >= ny - R) u[o] = 0;
            else u[o] = (real)(gx[i] * gy[j]);
        }
    free(gx); free(gy);
}

unsigned long long ooc_checksum(const real *u, int nx, int ny)
{
    unsigned long long *h = malloc(sizeof(unsigned long long) * ny);
    if (!h) mod_fail(RC_MEMORY, "out of host memory for the checksum");
    #pragma omp parallel for schedule(static)
    for (int j = 0; j < ny; j++) h[j] = mod_hash(u + (size_t)j * nx, sizeof(real) * nx);
    unsigned long long r = mod_hash(h, sizeof(unsigned long long) * ny);
    free(h);
    return r;
}
