/* case.c - stencil3d parameters: table, defaults, validation. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "opts.h"
#include "s3d.h"

/* Ranges: what the parser accepts for each key; what depends on other keys
 * (stability limits, kernel and stencil, memory) is checked in s3_case_finalize and main. */
#define N(name, t, lo, hi, help) OPT_NUM(S3Case, name, t, lo, hi, help)
#define S(name, help)            OPT_TEXT(S3Case, name, help)
#define C(name, choices, help)   OPT_CHOICE(S3Case, name, choices, help)
static const OptKey keys[] = {
    N(n, OPT_INT, 0, 65535, "cube size: nx = ny = nz = n (0 = use nx, ny, nz)"),
    N(nx, OPT_INT, 1, 65535, "interior cells in x (the zero boundary halo is extra)"),
    N(ny, OPT_INT, 1, 65535, "interior cells in y"),
    N(nz, OPT_INT, 1, 65535, "interior cells in z"),
    C(eq, "wave|heat", "equation: wave (leapfrog, u_tt = v^2 L u) | heat (explicit, u_t = alpha L u)"),
    C(stencil, "star|box", "star (8th order, 25 points) | box (27-point isotropic, 2nd order)"),
    N(nt, OPT_LONG, 0, 1e12, "number of time steps"),
    N(courant, OPT_DBL, 0, INFINITY, "wave: v dt / h (0 = 0.8 x the stability limit)"),
    N(fo, OPT_DBL, 0, INFINITY, "heat: alpha dt / h^2 (0 = 0.8 x the stability limit)"),
    C(init, "gauss|sine|noise", "initial field: gauss | sine | noise (noise also in the boundary halo; wave: starts at rest)"),
    N(init_w, OPT_DBL, 0, INFINITY, "gauss: half-width in cells (0 = n/10)"),
    C(mode, "auto|cpu|emu|gpu|verify|bench", "auto | cpu (reference) | emu (GPU kernel emulated on the CPU) | gpu | verify | bench"),
    C(kernel, "naive|regq|cq|cqa|cqas|cqt|cqts", "GPU kernel: cq (circular queue, seed 003) | cqa (circular queue filled by asynchronous copies 3 planes ahead, 4 x cells per thread; star: z neighbours in a register queue; box: z as in-plane partial sums in registers, 1 resident tile) | cqas (the seed's 2R+1-tile queue with asynchronous copies, all points from shared memory; star and box) | cqt (cqa with the copies issued by one thread as bulk tensor copies (TMA, sm_90), star only) | cqts (cqas filled the same way as cqt, star only) | regq (2.5D register queue, star only) | naive (one thread per cell, neighbours from global memory)"),
    S(tile, "cells per thread block, BXxBY (e.g. 32x16; empty = the kernel's default)"),
    N(zchunk, OPT_INT, 0, 65535, "z planes per thread block (0 = automatic)"),
    C(emu, "phase|fiber", "mode emu/verify without GPU: phase (region by region) | fiber (one coroutine per GPU thread)"),
    N(emu_seed, OPT_INT, 0, 2147483647, "emu = fiber: 0 = threads in order, else a shuffled order per barrier"),
    N(threads, OPT_INT, 0, 1024, "OpenMP threads (0 = default)"),
    S(out, "output directory ('' = no files)"),
    N(write_final, OPT_INT, 0, 1, "write out/final.bin, the interior nx*ny*nz field, x fastest (1/0)"),
    N(snap_png, OPT_INT, 0, 1, "write out/slice_z.png, the mid-z plane (1/0)"),
    N(progress, OPT_LONG, 0, 1e12, "progress line every N steps (0 = 10 lines per run)"),
    N(quiet, OPT_INT, 0, 1, "1 = only errors and the final summary"),
    N(reps, OPT_INT, 1, 1000000, "bench: timed steps per kernel"),
    S(bench_only, "bench: only these kernels, a comma list of kind or kind:tile, each optionally @star or @box (that stencil only), e.g. cqa@star,cqt:64x16,cqa:32x32@box (empty = all)"),
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

void s3_case_defaults(S3Case *c)
{
    memset(c, 0, sizeof *c);
    c->nx = c->ny = c->nz = 64;
    strcpy(c->eq, "wave"); strcpy(c->stencil, "star");
    c->nt = 100;
    strcpy(c->init, "gauss");
    strcpy(c->mode, "auto"); strcpy(c->kernel, "cq"); strcpy(c->emu, "phase");
    c->snap_png = 1; c->reps = 20;
}

int s3_case_args(S3Case *c, int argc, char **argv, char *err, size_t n)
{
    return opts_args(keys, NKEYS, c, argc, argv, err, n);
}

void s3_usage(const char *prog)
{
    opts_usage(keys, NKEYS, prog,
               "3D wave / heat equation with star (8th order) or box (27-point) stencils;\n"
               "CPU reference (OpenMP) and GPU kernels: naive, regq (2.5D register queue), cq (circular queue),\n"
               "cqa / cqas (circular queue filled by asynchronous copies), cqt / cqts (the same filled by TMA).");
}

const char *s3_eq_name(int eq) { return eq == S3_WAVE ? "wave" : "heat"; }
const char *s3_stencil_name(int st) { return st == S3_STAR ? "star" : "box"; }

/* Largest |symbol| of L h^2. Star: each axis contributes
 * |C0 + 2 sum_d C_d cos(d theta)|, largest at theta = pi. Box: at
 * theta = (pi, pi, pi) the weights give (-128 - 84 + 36 - 8) / 30. The test
 * suite checks both against a scan of all frequencies. */
double s3_lap_max(int stencil)
{
    if (stencil == S3_STAR)
        return 3.0 * fabs(WAVE_C0 - 2 * WAVE_C1 + 2 * WAVE_C2 - 2 * WAVE_C3 + 2 * WAVE_C4);
    return 184.0 / 30.0;
}

/* "BXxBY", each 1 .. 1024, nothing else (strtol: no overflow, no trailing text) */
static int parse_tile(const char *t)
{
    char *e; errno = 0;
    long bx = strtol(t, &e, 10);
    if (e == t || *e != 'x' || errno || bx < 1 || bx > 1024) return -1;
    const char *p = e + 1;
    long by = strtol(p, &e, 10);
    if (e == p || *e || errno || by < 1 || by > 1024) return -1;
    return 0;
}

int s3_case_finalize(S3Case *c, char *err, size_t n)
{
    /* every number against its range and every choice against its list again:
     * fields may have been set by code, not the parser */
    if (opts_check(keys, NKEYS, c, err, n)) return -1;
    if (c->n > 0) c->nx = c->ny = c->nz = c->n;
    double bytes = 2.0 * sizeof(real) * (c->nx + 2.0 * S3_H + S3_ALIGN) * (c->ny + 2.0 * S3_H) * (c->nz + 2.0 * S3_H);
    if (bytes > 1.0e12) {
        snprintf(err, n, "grid %d x %d x %d needs %.0f GB for its two fields: too large (at most 1000 GB)", c->nx, c->ny, c->nz, bytes / 1e9);
        return -1;
    }
    c->eq_id = !strcmp(c->eq, "wave") ? S3_WAVE : S3_HEAT;
    c->st_id = !strcmp(c->stencil, "star") ? S3_STAR : S3_BOX;
    c->rad = c->st_id == S3_STAR ? S3_RAD_STAR : S3_RAD_BOX;
    /* cqa and cqas have box versions (in-plane partial sums / the 3-tile queue); cqt and cqts are star only */
    if ((!strcmp(c->kernel, "cqt") || !strcmp(c->kernel, "cqts")) && c->st_id == S3_BOX) {
        snprintf(err, n, "kernel = %s works only with stencil = star: its tensor copies and queue are built for the radius-4 star stencil only "
                         "(for the box stencil use kernel = cqa, cqas, cq or naive)", c->kernel);
        return -1;
    }
    if (!strcmp(c->kernel, "regq") && c->st_id == S3_BOX) {
        snprintf(err, n, "kernel = regq works only with stencil = star: its register queue holds one z column per thread, "
                         "and the box stencil needs the (x+-1, y+-1) neighbours in the planes above and below (use kernel = cq or naive)");
        return -1;
    }
    if (c->tile[0] && parse_tile(c->tile)) {
        snprintf(err, n, "tile = '%s': expected BXxBY with BX and BY in 1 .. 1024, e.g. 32x16", c->tile); return -1; }
    if (!c->progress) c->progress = c->nt >= 10 ? c->nt / 10 : 1;

    c->lap_max = s3_lap_max(c->st_id);
    if (c->eq_id == S3_WAVE) {
        c->limit = 2.0 / sqrt(c->lap_max);            /* leapfrog: courant^2 |L| <= 4 */
        if (c->courant == 0) c->courant = 0.8 * c->limit;
        if (!(c->courant > 0) || c->courant > c->limit) {
            snprintf(err, n, "courant = %g is outside the stable range of the %s stencil: allowed 0 < courant <= %.6f",
                     c->courant, c->stencil, c->limit);
            return -1;
        }
        c->k = (real)(c->courant * c->courant);
    } else {
        c->limit = 2.0 / c->lap_max;                  /* explicit Euler: fo |L| <= 2 */
        if (c->fo == 0) c->fo = 0.8 * c->limit;
        if (!(c->fo > 0) || c->fo > c->limit) {
            snprintf(err, n, "fo = %g is outside the stable range of the %s stencil: allowed 0 < fo <= %.6f",
                     c->fo, c->stencil, c->limit);
            return -1;
        }
        c->k = (real)c->fo;
    }
    return 0;
}

int s3_bench_wants(const char *list, const char *kind, const char *tile, const char *stencil)
{
    if (!list[0]) return 1;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        char item[64];
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item - 1 ? n : sizeof item - 1), p);
        char *at = strchr(item, '@');               /* "@star" / "@box": that stencil only */
        int ok = 1;
        if (at) { *at = 0; ok = !strcmp(at + 1, stencil); }
        char *colon = strchr(item, ':');
        if (colon) { *colon = 0; ok = ok && !strcmp(colon + 1, tile); }
        if (ok && !strcmp(item, kind)) return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

int s3_find_kernel(const S3KInfo *(*info)(int), int count, const char *kind, int stencil, int eq, const char *tile)
{
    for (int i = 0; i < count; i++) {
        const S3KInfo *k = info(i);
        if (!strcmp(k->kind, kind) && k->stencil == stencil && k->eq == eq && (!tile[0] || !strcmp(k->tile, tile)))
            return i;
    }
    return -1;
}

int s3_kind_plane32(const char *kind)
{
    return !strcmp(kind, "cqa") || !strcmp(kind, "cqas") || !strcmp(kind, "cqt") || !strcmp(kind, "cqts");
}
