/* cpu.c - stencil3d CPU reference (OpenMP) and field helpers: layout,
 * initial fields, checksum, comparison, output files. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "s3d.h"
#include "output.h"    /* modules/common: PNG, FNV hash, mod_mix32, mod_out_*; guard.h: safe files */

void s3_grid_init(S3Grid *g, int nx, int ny, int nz)
{
    g->nx = nx; g->ny = ny; g->nz = nz;
    /* row: [S3_ALIGN - S3_H unused][S3_H halo][nx interior][S3_H halo][pad] */
    g->px = ((S3_ALIGN + nx + S3_H) + S3_ALIGN - 1) / S3_ALIGN * S3_ALIGN;
    g->pxy = (long)g->px * (ny + 2 * S3_H);
    g->org = (long)S3_H * g->pxy + (long)S3_H * g->px + S3_ALIGN;
    g->total = (size_t)g->pxy * (size_t)(nz + 2 * S3_H);
}

real *s3_alloc(const S3Grid *g, const char *what)
{
    size_t bytes;
    if (guard_mul(g->total, sizeof(real), &bytes) || bytes > SIZE_MAX - 255)
        mod_fail(RC_MEMORY, "%s: %d x %d x %d cells overflow a size_t", what, g->nx, g->ny, g->nz);
    bytes = (bytes + 255) / 256 * 256;
    real *p = (real *)aligned_alloc(256, bytes);
    if (!p) mod_fail(RC_MEMORY, "out of host memory: %s needs %.1f MB", what, bytes / 1e6);
    memset(p, 0, bytes);
    return p;
}

void s3_init_field(const S3Grid *g, const S3Case *c, real *u)
{
    const int nx = g->nx, ny = g->ny, nz = g->nz;
    int nmax = nx > ny ? nx : ny; if (nz > nmax) nmax = nz;
    double w = c->init_w > 0 ? c->init_w : (nmax / 10.0 > 1 ? nmax / 10.0 : 1);
    double *fx = malloc(sizeof(double) * nx), *fy = malloc(sizeof(double) * ny), *fz = malloc(sizeof(double) * nz);
    if (!fx || !fy || !fz) mod_fail(RC_MEMORY, "out of host memory for the initial profiles");
    const int dims[3] = { nx, ny, nz }; double *f[3] = { fx, fy, fz };
    for (int d = 0; d < 3; d++)
        for (int i = 0; i < dims[d]; i++) {
            if (!strcmp(c->init, "sine")) f[d][i] = sin(M_PI * (i + 1) / (dims[d] + 1));
            else { double x = (i - 0.5 * (dims[d] - 1)) / w; f[d][i] = exp(-x * x); }
        }
    /* noise covers the halo too: non-zero boundary values make every halo
     * load of the kernels count in the comparisons */
    const int noise = !strcmp(c->init, "noise"), h = noise ? S3_H : 0;
    #pragma omp parallel for collapse(2) schedule(static)
    for (int k = -h; k < nz + h; k++)
        for (int j = -h; j < ny + h; j++) {
            real *row = u + s3_idx(g, 0, j, k);
            for (int i = -h; i < nx + h; i++) {
                if (noise) {
                    uint32_t x = mod_mix32((uint32_t)i * 0x9e3779b1U ^ mod_mix32((uint32_t)j * 0x85ebca77U ^ mod_mix32((uint32_t)k + 0x165667b1U)));
                    row[i] = (real)((x >> 8) * (2.0 / 16777216.0) - 1.0);
                } else
                    row[i] = (real)((fx[i] * fy[j]) * fz[k]);
            }
        }
    free(fx); free(fy); free(fz);
}

/* One reference step over all interior cells; ST and EQ are constants in
 * every call below, so the compiler specialises the inner loop. */
static inline void step_rows(const S3Grid *g, const int ST, const int EQ, real k,
                             const real *u, const real *pv, real *out)
{
    const int px = g->px; const long pxy = g->pxy;
    #pragma omp parallel for collapse(2) schedule(static)
    for (int z = 0; z < g->nz; z++)
        for (int y = 0; y < g->ny; y++) {
            const long o0 = s3_idx(g, 0, y, z);
            for (int x = 0; x < g->nx; x++) {
                const long o = o0 + x;
                real lap;
                if (ST == S3_STAR)
                    lap = s3_star_lap(&u[o], px, u[o - 4 * pxy], u[o - 3 * pxy], u[o - 2 * pxy], u[o - pxy],
                                      u[o + pxy], u[o + 2 * pxy], u[o + 3 * pxy], u[o + 4 * pxy]);
                else
                    lap = s3_box_lap(&u[o - pxy], &u[o], &u[o + pxy], px);
                out[o] = EQ == S3_WAVE ? s3_wave_update(u[o], pv[o], k, lap) : s3_heat_update(u[o], k, lap);
            }
        }
}

void s3_cpu_step(const S3Grid *g, int eq, int stencil, real k, const real *u, const real *pv, real *out)
{
    if (stencil == S3_STAR && eq == S3_WAVE) step_rows(g, S3_STAR, S3_WAVE, k, u, pv, out);
    else if (stencil == S3_STAR) step_rows(g, S3_STAR, S3_HEAT, k, u, pv, out);
    else if (eq == S3_WAVE) step_rows(g, S3_BOX, S3_WAVE, k, u, pv, out);
    else step_rows(g, S3_BOX, S3_HEAT, k, u, pv, out);
}

void s3_gather(const S3Grid *g, const real *u, real *dense)
{
    #pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            memcpy(dense + ((size_t)k * g->ny + j) * g->nx, u + s3_idx(g, 0, j, k), sizeof(real) * g->nx);
}

unsigned long long s3_checksum(const S3Grid *g, const real *u, double *umax)
{
    size_t cells = (size_t)g->nx * g->ny * g->nz;
    real *d = malloc(sizeof(real) * cells);
    if (!d) mod_fail(RC_MEMORY, "out of host memory for the checksum (%.1f MB)", sizeof(real) * cells / 1e6);
    s3_gather(g, u, d);
    double m = 0;
    for (size_t i = 0; i < cells; i++) { double a = fabs((double)d[i]); if (a > m || a != a) m = a; }  /* NaN sticks */
    if (umax) *umax = m;
    unsigned long long h = mod_hash(d, sizeof(real) * cells);
    free(d);
    return h;
}

long s3_compare(const S3Grid *g, const real *a, const real *b, double *maxdiff, int *fi, int *fj, int *fk)
{
    long nd = 0; double md = 0;
    *fi = *fj = *fk = -1;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                long o = s3_idx(g, i, j, k);
                if (memcmp(&a[o], &b[o], sizeof(real))) {
                    if (!nd++) { *fi = i; *fj = j; *fk = k; }
                    double d = fabs((double)a[o] - (double)b[o]);
                    if (d > md || d != d) md = d;
                }
            }
    *maxdiff = md;
    return nd;
}

/* final.bin, slice_z.png, info.txt in c->out, each through guard.c's safe output files */
int s3_write_outputs(const S3Grid *g, const S3Case *c, const real *u, unsigned long long hsh, const char *modename)
{
    if (!c->out[0]) return 0;
    char p[S3_STR + 64];
    mod_out_mkdir(c->out);
    if (c->write_final) {
        size_t cells = (size_t)g->nx * g->ny * g->nz;
        real *d = malloc(sizeof(real) * cells);
        if (!d) mod_fail(RC_MEMORY, "out of host memory for final.bin (%.1f MB)", sizeof(real) * cells / 1e6);
        s3_gather(g, u, d);
        snprintf(p, sizeof p, "%s/final.bin", c->out);
        mod_out_file(p, d, sizeof(real) * cells);
        free(d);
    }
    if (c->snap_png) {
        real *s = malloc(sizeof(real) * (size_t)g->nx * g->ny);
        if (!s) mod_fail(RC_MEMORY, "out of host memory for the slice image");
        for (int j = 0; j < g->ny; j++)
            memcpy(s + (size_t)j * g->nx, u + s3_idx(g, 0, j, g->nz / 2), sizeof(real) * g->nx);
        snprintf(p, sizeof p, "%s/slice_z.png", c->out);
        mod_out_png(p, s, MOD_REAL_IS_DOUBLE, g->nx, g->ny, 0);
        free(s);
    }
    snprintf(p, sizeof p, "%s/info.txt", c->out);
    GuardOut f;
    mod_out_open(&f, p);
    guard_out_printf(&f, "nx %d\nny %d\nnz %d\neq %s\nstencil %s\nnt %ld\ncoefficient %.17g\ntype %s\nmode %s\nchecksum %016llx\n",
                     g->nx, g->ny, g->nz, c->eq, c->stencil, c->nt, (double)c->k, MOD_REAL_NAME, modename, hsh);
    mod_out_close(&f);
    return 0;
}
