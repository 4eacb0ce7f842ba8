/* case.c - parameters (the table for wave/src/opts.c), validation, models, source, sponge. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "opts.h"
#include "wave.h"

#define K(name, t, help) OPT(WaveCase, name, t, help)
static const OptKey keys[] = {
    K(nx, OPT_INT, "grid points in x (incl. 4-point zero frame each side)"),
    K(ny, OPT_INT, "grid points in y (depth)"),
    K(h, OPT_DBL, "grid spacing [m]"),
    K(dt, OPT_DBL, "time step [s], 0 = from cfl_target"),
    K(cfl_target, OPT_DBL, "fraction of the stability limit used when dt = 0"),
    K(nt, OPT_LONG, "number of time steps"),
    K(model, OPT_STR, "velocity model: constant | layered | file"),
    K(v0, OPT_DBL, "velocity [m/s] (constant model, top layer default)"),
    K(layers, OPT_STR, "layered model: 'depth:v, depth:v, ...' [m, m/s]"),
    K(velfile, OPT_STR, "file model: raw little-endian float32 nx*ny, x fastest"),
    K(sponge, OPT_INT, "absorbing sponge width in cells (0 = reflecting, energy conserving)"),
    K(sponge_edge, OPT_DBL, "damping factor per step at the outermost sponge cell"),
    K(src_x, OPT_DBL, "source x [m]"), K(src_y, OPT_DBL, "source y (depth) [m]"),
    K(f0, OPT_DBL, "Ricker peak frequency [Hz]"), K(t0, OPT_DBL, "Ricker delay [s], 0 = 1.2/f0"),
    K(amp, OPT_DBL, "source amplitude (0 = no source)"),
    K(init, OPT_STR, "initial field: none | gaussian"),
    K(init_x, OPT_DBL, "gaussian centre x [m]"), K(init_y, OPT_DBL, "gaussian centre y [m]"),
    K(init_w, OPT_DBL, "gaussian half-width [m]"), K(init_amp, OPT_DBL, "gaussian amplitude"),
    K(rec_n, OPT_INT, "number of receivers on a horizontal line (0 = none)"),
    K(rec_y, OPT_DBL, "receiver line depth [m]"), K(rec_x0, OPT_DBL, "first receiver x [m]"),
    K(rec_dx, OPT_DBL, "receiver spacing [m]"), K(rec_every, OPT_INT, "trace sample every N steps"),
    K(out, OPT_STR, "output directory ('' = no files)"),
    K(snap_every, OPT_LONG, "snapshot every N steps (0 = none)"),
    K(snap_png, OPT_INT, "write snapshot PNG images (1/0)"),
    K(snap_raw, OPT_INT, "write snapshot raw binaries (1/0)"),
    K(write_final, OPT_INT, "write final field out/final.bin (1/0)"),
    K(traces, OPT_INT, "write receiver traces (1/0)"),
    K(progress, OPT_LONG, "progress line every N steps (0 = 10 lines per run)"),
    K(mode, OPT_STR, "auto | cpu | gpu"),
    K(precision, OPT_STR, "float | double (double runs the -dp binary)"),
    K(gpus, OPT_INT, "GPUs used by one process (0 = all visible)"),
    K(parts, OPT_INT, "CPU mode: split into this many slabs in-process (test of decomposition)"),
    K(threads, OPT_INT, "OpenMP threads (0 = default)"),
    K(kernel, OPT_STR, "GPU kernel: tile | tile256 | tile64 | simple"),
    K(chunk, OPT_INT, "GPU rows per thread block (tile kernels)"),
    K(no_peer, OPT_INT, "1 = do not use GPU peer access (host-staged halo copies)"),
    K(profile, OPT_INT, "1 = GPU event timings of halo/interior overlap"),
    K(quiet, OPT_INT, "1 = only errors and the final summary"),
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

void wave_case_defaults(WaveCase *c)
{
    memset(c, 0, sizeof *c);
    c->nx = 512; c->ny = 512; c->h = 10.0; c->dt = 0; c->cfl_target = 0.5; c->nt = 1000;
    strcpy(c->model, "constant"); c->v0 = 2000.0;
    c->sponge = 40; c->sponge_edge = 0.92;
    c->src_x = -1; c->src_y = -1; c->f0 = 10.0; c->t0 = 0; c->amp = 1.0;
    strcpy(c->init, "none"); c->init_w = 0; c->init_amp = 1.0; c->init_x = -1; c->init_y = -1;
    c->rec_n = 0; c->rec_every = 1; c->rec_y = -1; c->rec_x0 = -1; c->rec_dx = 0;
    c->snap_every = 0; c->snap_png = 1; c->snap_raw = 1; c->write_final = 0; c->traces = 1;
    strcpy(c->mode, "auto"); strcpy(c->precision, WAVE_REAL_NAME);
    c->gpus = 0; c->parts = 1; c->threads = 0; c->chunk = 64; strcpy(c->kernel, "tile");
}

int wave_case_set(WaveCase *c, const char *key, const char *val, char *err, size_t n)
{
    return opts_set(keys, NKEYS, c, key, val, err, n);
}

int wave_case_load(WaveCase *c, const char *path, char *err, size_t n)
{
    return opts_load(keys, NKEYS, c, path, err, n);
}

void wave_usage(const char *prog)
{
    opts_usage(keys, NKEYS, prog, "2D acoustic wave equation, 8th order in space, leapfrog in time.");
}

int wave_case_args(WaveCase *c, int argc, char **argv, char *err, size_t n)
{
    return opts_args(keys, NKEYS, c, argc, argv, err, n);
}

/* ---- velocity models ---- */
typedef struct { double depth, v; } Layer;
static int parse_layers(const WaveCase *c, Layer *L, int max, char *err, size_t n)
{
    int nl = 0; const char *p = c->layers;
    while (*p) {
        while (*p == ' ' || *p == ',' || *p == ';') p++;
        if (!*p) break;
        char *e; double d = strtod(p, &e);
        if (e == p || *e != ':') { snprintf(err, n, "layers: expected 'depth:velocity' pairs, got '%s'", p); return -1; }
        p = e + 1; double v = strtod(p, &e);
        if (e == p) { snprintf(err, n, "layers: missing velocity after '%g:'", d); return -1; }
        p = e;
        if (nl == max) { snprintf(err, n, "layers: more than %d layers", max); return -1; }
        if (nl && d <= L[nl - 1].depth) { snprintf(err, n, "layers: depths must increase (%g after %g)", d, L[nl - 1].depth); return -1; }
        L[nl].depth = d; L[nl].v = v; nl++;
    }
    if (!nl) { snprintf(err, n, "model = layered needs 'layers = depth:v, depth:v, ...'"); return -1; }
    return nl;
}

static double layer_v(const WaveCase *c, const Layer *L, int nl, int iy)
{
    double y = iy * c->h, v = c->v0;
    for (int i = 0; i < nl; i++) if (y >= L[i].depth) v = L[i].v;
    return v;
}

static int read_vel_rows(const WaveCase *c, float *buf, int r_lo, int r_hi, char *err, size_t n)
{
    FILE *f = fopen(c->velfile, "rb");
    if (!f) { snprintf(err, n, "cannot open velocity file '%s': %s", c->velfile, strerror(errno)); return -1; }
    if (fseek(f, (long)r_lo * c->nx * 4L, SEEK_SET) ||
        fread(buf, 4, (size_t)(r_hi - r_lo) * c->nx, f) != (size_t)(r_hi - r_lo) * c->nx) {
        snprintf(err, n, "velocity file '%s' is too short (need %d x %d float32 = %ld bytes)",
                 c->velfile, c->nx, c->ny, 4L * c->nx * c->ny);
        fclose(f); return -1;
    }
    fclose(f);
    return 0;
}

/* velocity of rows [r_lo, r_hi) as double, via callback per row */
static int velocity_rows(const WaveCase *c, int r_lo, int r_hi, double *vrow_out,
                         int (*fn)(void *, int, const double *), void *ctx, char *err, size_t n)
{
    Layer L[64]; int nl = 0;
    if (!strcmp(c->model, "layered") && (nl = parse_layers(c, L, 64, err, n)) < 0) return -1;
    float *fb = NULL;
    if (!strcmp(c->model, "file")) fb = malloc(sizeof(float) * c->nx);
    for (int iy = r_lo; iy < r_hi; iy++) {
        if (fb) {
            if (read_vel_rows(c, fb, iy, iy + 1, err, n)) { free(fb); return -1; }
            for (int ix = 0; ix < c->nx; ix++) vrow_out[ix] = fb[ix];
        } else {
            double v = nl ? layer_v(c, L, nl, iy) : c->v0;
            for (int ix = 0; ix < c->nx; ix++) vrow_out[ix] = v;
        }
        if (fn(ctx, iy, vrow_out)) { free(fb); return -1; }
    }
    free(fb);
    return 0;
}

typedef struct { double vmin, vmax, vsrc; int six, siy; } VStat;
typedef struct { const WaveCase *c; VStat *s; char *err; size_t n; } VCtx;
static int vcheck_fn(void *ctx, int iy, const double *v)
{
    VCtx *x = ctx; const WaveCase *c = x->c;
    for (int ix = 0; ix < c->nx; ix++) {
        if (!(v[ix] > 0) || !isfinite(v[ix])) {
            snprintf(x->err, x->n, "velocity must be positive and finite, found %g at (ix=%d, iy=%d)", v[ix], ix, iy);
            return -1;
        }
        if (v[ix] < x->s->vmin) x->s->vmin = v[ix];
        if (v[ix] > x->s->vmax) x->s->vmax = v[ix];
    }
    if (iy == x->s->siy) x->s->vsrc = v[x->s->six];
    return 0;
}

static int to_index(double pos, double h) { return (int)floor(pos / h + 0.5); }

int wave_case_finalize(WaveCase *c, char *err, size_t n)
{
    if (c->nx < 17 || c->ny < 17) { snprintf(err, n, "grid too small: nx = %d, ny = %d (need at least 17 each; 4 points on each side are the fixed frame)", c->nx, c->ny); return -1; }
    if ((double)c->nx * c->ny > 4.0e10) { snprintf(err, n, "grid too large: %d x %d", c->nx, c->ny); return -1; }
    if (!(c->h > 0)) { snprintf(err, n, "grid spacing h must be positive (got %g)", c->h); return -1; }
    if (c->nt < 0) { snprintf(err, n, "nt must be >= 0 (got %ld)", c->nt); return -1; }
    if (c->dt < 0) { snprintf(err, n, "dt must be positive, or 0 for automatic (got %g)", c->dt); return -1; }
    if (!(c->cfl_target > 0 && c->cfl_target <= 1)) { snprintf(err, n, "cfl_target must be in (0, 1] (got %g)", c->cfl_target); return -1; }
    if (c->sponge < 0 || 2 * c->sponge > c->nx - 8 || 2 * c->sponge > c->ny - 8) { snprintf(err, n, "sponge width %d does not fit the grid (%d x %d)", c->sponge, c->nx, c->ny); return -1; }
    if (!(c->sponge_edge > 0 && c->sponge_edge <= 1)) { snprintf(err, n, "sponge_edge must be in (0, 1] (got %g)", c->sponge_edge); return -1; }
    if (strcmp(c->model, "constant") && strcmp(c->model, "layered") && strcmp(c->model, "file")) { snprintf(err, n, "unknown model '%s' (constant, layered or file)", c->model); return -1; }
    if (strcmp(c->mode, "auto") && strcmp(c->mode, "cpu") && strcmp(c->mode, "gpu")) { snprintf(err, n, "unknown mode '%s' (auto, cpu or gpu)", c->mode); return -1; }
    if (strcmp(c->precision, "float") && strcmp(c->precision, "double")) { snprintf(err, n, "unknown precision '%s' (float or double)", c->precision); return -1; }
    if (strcmp(c->init, "none") && strcmp(c->init, "gaussian")) { snprintf(err, n, "unknown init '%s' (none or gaussian)", c->init); return -1; }
    if (strcmp(c->kernel, "tile") && strcmp(c->kernel, "tile256") && strcmp(c->kernel, "tile64") && strcmp(c->kernel, "simple")) { snprintf(err, n, "unknown kernel '%s' (tile, tile256, tile64, simple)", c->kernel); return -1; }
    if (c->parts < 1) { snprintf(err, n, "parts must be >= 1"); return -1; }
    if (c->parts > (c->ny - 8) / 4) { snprintf(err, n, "parts = %d too many: every slab needs >= 4 rows (ny - 8 = %d)", c->parts, c->ny - 8); return -1; }
    if (c->chunk < 1) { snprintf(err, n, "chunk must be >= 1"); return -1; }
    if (c->gpus < 0 || c->threads < 0) { snprintf(err, n, "gpus and threads must be >= 0"); return -1; }
    if (c->rec_every < 1) { snprintf(err, n, "rec_every must be >= 1"); return -1; }
    if (c->snap_every < 0 || c->progress < 0) { snprintf(err, n, "snap_every and progress must be >= 0"); return -1; }
    if (c->amp != 0 && !(c->f0 > 0)) { snprintf(err, n, "Ricker peak frequency f0 must be positive (got %g)", c->f0); return -1; }
    if (!strcmp(c->model, "file") && !c->velfile[0]) { snprintf(err, n, "model = file needs velfile = PATH"); return -1; }
    if (!strcmp(c->model, "file")) {
        FILE *f = fopen(c->velfile, "rb");
        if (!f) { snprintf(err, n, "cannot open velocity file '%s': %s", c->velfile, strerror(errno)); return -1; }
        fseek(f, 0, SEEK_END); long sz = ftell(f); fclose(f);
        if (sz != 4L * c->nx * c->ny) { snprintf(err, n, "velocity file '%s' has %ld bytes, expected nx*ny*4 = %ld (raw float32)", c->velfile, sz, 4L * c->nx * c->ny); return -1; }
    }
    /* source position (default: centre, 1/4 depth) */
    if (c->src_x < 0) c->src_x = (c->nx - 1) * c->h / 2;
    if (c->src_y < 0) c->src_y = (c->ny - 1) * c->h / 4;
    c->src_ix = to_index(c->src_x, c->h); c->src_iy = to_index(c->src_y, c->h);
    if (c->src_ix < 4 || c->src_ix >= c->nx - 4 || c->src_iy < 4 || c->src_iy >= c->ny - 4) { snprintf(err, n, "source (%g, %g) m is outside the grid interior (%g..%g, %g..%g m)", c->src_x, c->src_y, 4 * c->h, (c->nx - 5) * c->h, 4 * c->h, (c->ny - 5) * c->h); return -1; }
    if (c->t0 == 0 && c->f0 > 0) c->t0 = 1.2 / c->f0;
    /* velocity range */
    VStat s = { 1e300, 0, 0, c->src_ix, c->src_iy };
    VCtx x = { c, &s, err, n };
    double *row = malloc(sizeof(double) * c->nx);
    int rc = velocity_rows(c, 0, c->ny, row, vcheck_fn, &x, err, n);
    free(row);
    if (rc) return -1;
    c->vmin = s.vmin; c->vmax = s.vmax; c->vsrc = s.vsrc;
    /* stability: leapfrog needs (v dt/h)^2 * max|symbol| <= 4; max|symbol| of the
     * 2D operator = 2 * (-C0 + 2*(C1 + C3) - 2*(C2 + C4)) at the Nyquist mode */
    double sym = 2.0 * (-WAVE_C0 + 2.0 * (WAVE_C1 - WAVE_C2 + WAVE_C3 - WAVE_C4));
    c->cfl_max = 2.0 / sqrt(sym);
    if (c->dt == 0) c->dt = c->cfl_target * c->cfl_max * c->h / c->vmax;
    c->cfl = c->vmax * c->dt / c->h;
    if (c->cfl > c->cfl_max) {
        snprintf(err, n, "unstable time step: CFL number vmax*dt/h = %.4g*%.4g/%.4g = %.4f exceeds the limit %.4f of this 8th-order scheme; use dt <= %.4g s (or dt = 0 for automatic)",
                 c->vmax, c->dt, c->h, c->cfl, c->cfl_max, c->cfl_max * c->h / c->vmax);
        return -1;
    }
    /* receivers */
    free(c->rec_ix); free(c->rec_iy); c->rec_ix = c->rec_iy = NULL;
    if (c->rec_n < 0) { snprintf(err, n, "rec_n must be >= 0"); return -1; }
    if (c->rec_n > 0) {
        if (c->rec_y < 0) c->rec_y = c->src_y;
        if (c->rec_x0 < 0) c->rec_x0 = 4 * c->h;
        if (c->rec_dx <= 0) c->rec_dx = c->rec_n > 1 ? ((c->nx - 9) * c->h - c->rec_x0 + 4 * c->h) / (c->rec_n - 1) : c->h;
        c->rec_ix = malloc(sizeof(int) * c->rec_n); c->rec_iy = malloc(sizeof(int) * c->rec_n);
        for (int i = 0; i < c->rec_n; i++) {
            double xr = c->rec_x0 + i * c->rec_dx;
            c->rec_ix[i] = to_index(xr, c->h); c->rec_iy[i] = to_index(c->rec_y, c->h);
            if (c->rec_ix[i] < 4 || c->rec_ix[i] >= c->nx - 4 || c->rec_iy[i] < 4 || c->rec_iy[i] >= c->ny - 4) {
                snprintf(err, n, "receiver %d at (%g, %g) m is outside the grid interior", i, xr, c->rec_y); return -1; }
        }
    }
    c->nsamp = (c->nt + c->rec_every - 1) / c->rec_every;
    if (c->progress == 0) c->progress = c->nt >= 10 ? c->nt / 10 : 1;
    if (!strcmp(c->init, "gaussian")) {
        if (c->init_x < 0) c->init_x = (c->nx - 1) * c->h / 2;
        if (c->init_y < 0) c->init_y = (c->ny - 1) * c->h / 2;
        if (c->init_w <= 0) c->init_w = 5 * c->h;
    }
    return 0;
}

void wave_case_free(WaveCase *c) { free(c->rec_ix); free(c->rec_iy); c->rec_ix = c->rec_iy = NULL; }

void wave_case_print(const WaveCase *c)
{
    printf("grid %d x %d, h = %g m, dt = %.6g s, nt = %ld (t_end = %.6g s), %s precision\n",
           c->nx, c->ny, c->h, c->dt, c->nt, c->nt * c->dt, WAVE_REAL_NAME);
    printf("model %s: v = %g .. %g m/s, CFL %.4f (limit %.4f), sponge %d cells\n",
           c->model, c->vmin, c->vmax, c->cfl, c->cfl_max, c->sponge);
    if (c->amp != 0)
        printf("Ricker source f0 = %g Hz at (%g, %g) m = cell (%d, %d); %.1f cells per minimum wavelength (at 2.5 f0)\n",
               c->f0, c->src_x, c->src_y, c->src_ix, c->src_iy, c->vmin / (2.5 * c->f0) / c->h);
    if (c->rec_n) printf("%d receivers at depth %g m, every %d steps\n", c->rec_n, c->rec_y, c->rec_every);
}

double wave_ricker(const WaveCase *c, double t)
{
    double a = M_PI * c->f0 * (t - c->t0); a *= a;
    return (1.0 - 2.0 * a) * exp(-a);
}

/* added to u^{n+1} at the source cell in step n */
real wave_src_value(const WaveCase *c, long n)
{
    if (c->amp == 0) return 0;
    double k = c->vsrc * c->dt / c->h; k *= k;
    return (real)(c->amp * k * wave_ricker(c, n * c->dt));
}

typedef struct { const WaveCase *c; real *k; int r_lo; } KCtx;
static int kfill_fn(void *ctx, int iy, const double *v)
{
    KCtx *x = ctx; const WaveCase *c = x->c;
    real *row = x->k + (size_t)(iy - x->r_lo) * c->nx;
    for (int ix = 0; ix < c->nx; ix++) { double q = v[ix] * c->dt / c->h; row[ix] = (real)(q * q); }
    return 0;
}

int wave_fill_k(const WaveCase *c, real *k, int r_lo, int r_hi, char *err, size_t n)
{
    KCtx x = { c, k, r_lo };
    double *row = malloc(sizeof(double) * c->nx);
    int rc = velocity_rows(c, r_lo, r_hi, row, kfill_fn, &x, err, n);
    free(row);
    return rc;
}

static double sponge_1d(const WaveCase *c, int i, int n)
{
    /* distance (in cells) from the first updated cell (4) / last (n-5) */
    int d = i - 4; if (n - 5 - i < d) d = n - 5 - i;
    if (c->sponge == 0 || d >= c->sponge || i < 4 || i > n - 5) return 1.0;
    double a = sqrt(-log(c->sponge_edge)), r = (double)(c->sponge - d) / c->sponge;
    return exp(-(a * r) * (a * r));
}

void wave_sponge(const WaveCase *c, real *gx, real *gy)
{
    for (int i = 0; i < c->nx; i++) gx[i] = (real)sponge_1d(c, i, c->nx);
    for (int i = 0; i < c->ny; i++) gy[i] = (real)sponge_1d(c, i, c->ny);
}

void wave_fill_init(const WaveCase *c, real *u, int r_lo, int r_hi)
{
    for (int iy = r_lo; iy < r_hi; iy++)
        for (int ix = 0; ix < c->nx; ix++) {
            real v = 0;
            if (!strcmp(c->init, "gaussian") && ix >= 4 && ix < c->nx - 4 && iy >= 4 && iy < c->ny - 4) {
                double dx = ix * c->h - c->init_x, dy = iy * c->h - c->init_y;
                v = (real)(c->init_amp * exp(-(dx * dx + dy * dy) / (c->init_w * c->init_w)));
            }
            u[(size_t)(iy - r_lo) * c->nx + ix] = v;
        }
}

void wave_split(int ny, int P, int p, int *r0, int *r1)
{
    int n = ny - 8, base = n / P, rem = n % P;
    *r0 = 4 + p * base + (p < rem ? p : rem);
    *r1 = *r0 + base + (p < rem ? 1 : 0);
}
