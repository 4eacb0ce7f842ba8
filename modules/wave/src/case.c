/* case.c - parameters (the key table for modules/common/opts.c), validation, models, source, sponge. */
#include <errno.h>
#include <sys/types.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "opts.h"
#include "wave.h"

/* Ranges: what the parser accepts for each key; the checks that need the grid
 * (positions inside it, sponge width, CFL) are in wave_case_finalize. The
 * positions have one sentinel, WAVE_AUTO = -1 ("centre" and the like), and no
 * other negative value. */
#define N(name, t, lo, hi, help) OPT_NUM(WaveCase, name, t, lo, hi, help)
#define P(name, t, lo, hi, help) OPT_POS(WaveCase, name, t, lo, hi, help)
#define X(name, means, help)     OPT_OR(WaveCase, name, OPT_DBL, 0, INFINITY, WAVE_AUTO, means, help)
#define S(name, help)            OPT_TEXT(WaveCase, name, help)
#define C(name, choices, help)   OPT_CHOICE(WaveCase, name, choices, help)
#define BIG 1e12
static const OptKey keys[] = {
    N(nx, OPT_INT, 17, 1000000, "grid points in x (incl. 4-point zero frame each side)"),
    N(ny, OPT_INT, 17, 1000000, "grid points in y (depth)"),
    P(h, OPT_DBL, 0, INFINITY, "grid spacing [m]"),
    N(dt, OPT_DBL, 0, INFINITY, "time step [s], 0 = from cfl_target"),
    P(cfl_target, OPT_DBL, 0, 1, "fraction of the stability limit used when dt = 0"),
    N(nt, OPT_LONG, 0, BIG, "number of time steps"),
    C(model, "constant|layered|file", "velocity model"),
    P(v0, OPT_DBL, 0, INFINITY, "velocity [m/s] (constant model, top layer default)"),
    S(layers, "layered model: 'depth:v, depth:v, ...' [m, m/s]"),
    S(velfile, "file model: raw little-endian float32 nx*ny, x fastest"),
    N(sponge, OPT_INT, 0, 1000000, "absorbing sponge width in cells (0 = reflecting, energy conserving)"),
    P(sponge_edge, OPT_DBL, 0, 1, "damping factor per step at the outermost sponge cell"),
    X(src_x, "centre", "source x [m]; -1 = centre (default)"),
    X(src_y, "ny/4 deep", "source y (depth) [m]; -1 = a quarter of the depth (default)"),
    P(f0, OPT_DBL, 0, INFINITY, "Ricker peak frequency [Hz]"),
    N(t0, OPT_DBL, 0, INFINITY, "Ricker delay [s], 0 = 1.2/f0"),
    N(amp, OPT_DBL, -1e6, 1e6, "source amplitude (0 = no source)"),
    C(init, "none|gaussian", "initial field"),
    X(init_x, "centre", "gaussian centre x [m]; -1 = centre (default)"),
    X(init_y, "centre", "gaussian centre y [m]; -1 = centre (default)"),
    N(init_w, OPT_DBL, 0, INFINITY, "gaussian half-width [m], 0 = 5 h"),
    N(init_amp, OPT_DBL, -1e6, 1e6, "gaussian amplitude"),
    N(rec_n, OPT_INT, 0, 100000, "number of receivers on a horizontal line (0 = none)"),
    X(rec_y, "the source depth", "receiver line depth [m]; -1 = the source depth (default)"),
    X(rec_x0, "4 h", "first receiver x [m]; -1 = 4 h, the first updated column (default)"),
    N(rec_dx, OPT_DBL, 0, INFINITY, "receiver spacing [m], 0 = spread over the grid"),
    N(rec_every, OPT_INT, 1, 1000000000, "trace sample every N steps"),
    S(out, "output directory ('' = no files)"),
    N(snap_every, OPT_LONG, 0, BIG, "snapshot every N steps (0 = none)"),
    N(snap_png, OPT_INT, 0, 1, "write snapshot PNG images (1/0)"),
    N(snap_raw, OPT_INT, 0, 1, "write snapshot raw binaries (1/0)"),
    N(write_final, OPT_INT, 0, 1, "write final field out/final.bin (1/0)"),
    N(traces, OPT_INT, 0, 1, "write receiver traces (1/0)"),
    N(progress, OPT_LONG, 0, BIG, "progress line every N steps (0 = 10 lines per run)"),
    C(mode, "auto|cpu|gpu", "where to run"),
    C(precision, "float|double", "precision (double runs the -dp binary)"),
    N(gpus, OPT_INT, 0, 1024, "GPUs used by one process (0 = all visible)"),
    N(parts, OPT_INT, 1, 1000000, "CPU mode: split into this many slabs in-process (test of decomposition)"),
    N(threads, OPT_INT, 0, 1024, "OpenMP threads (0 = default)"),
    C(kernel, "tile|tile256|tile64|simple", "GPU kernel"),
    N(chunk, OPT_INT, 1, 65536, "GPU rows per thread block (tile kernels)"),
    N(no_peer, OPT_INT, 0, 1, "1 = do not use GPU peer access (host-staged halo copies)"),
    N(profile, OPT_INT, 0, 1, "1 = GPU event timings of halo/interior overlap"),
    N(quiet, OPT_INT, 0, 1, "1 = only errors and the final summary"),
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
    strcpy(c->mode, "auto"); strcpy(c->precision, MOD_REAL_NAME);
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
        char *e; errno = 0;
        double d = strtod(p, &e);
        if (e == p || *e != ':') { snprintf(err, n, "layers = '%s': expected 'depth:velocity' pairs, got '%.40s'", c->layers, p); return -1; }
        if (errno || !isfinite(d) || d < 0) { snprintf(err, n, "layers: depth '%.*s' must be a finite number >= 0", (int)(e - p), p); return -1; }
        p = e + 1; double v = strtod(p, &e);
        if (e == p) { snprintf(err, n, "layers: missing velocity after '%g:'", d); return -1; }
        if (errno || !isfinite(v) || !(v > 0)) { snprintf(err, n, "layers: velocity '%.*s' at depth %g must be a finite number > 0", (int)(e - p), p, d); return -1; }
        p = e;
        if (*p && *p != ' ' && *p != ',' && *p != ';') { snprintf(err, n, "layers: unexpected '%.20s' after velocity %g", p, v); return -1; }
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

/* The velocity file: a regular file (never a FIFO or device, which could block
 * or never end) of exactly nx*ny float32 values; *f positioned at row r_lo. */
static FILE *open_velfile(const WaveCase *c, int r_lo, char *err, size_t n)
{
    long long size, want = 4LL * c->nx * c->ny;   /* nx, ny <= 1e6: no overflow */
    FILE *f = guard_open_regular(c->velfile, "velocity file", &size, err, n);
    if (!f) return NULL;
    if (size != want) {
        snprintf(err, n, "velocity file '%s' has %lld bytes, expected nx*ny*4 = %d*%d*4 = %lld (raw float32)", c->velfile, size, c->nx, c->ny, want);
        fclose(f); return NULL;
    }
    if (fseeko(f, (off_t)r_lo * c->nx * 4, SEEK_SET)) {
        snprintf(err, n, "cannot read velocity file '%s': %s", c->velfile, strerror(errno)); fclose(f); return NULL; }
    return f;
}

/* velocity of rows [r_lo, r_hi) as double, via callback per row */
static int velocity_rows(const WaveCase *c, int r_lo, int r_hi, double *vrow_out,
                         int (*fn)(void *, int, const double *), void *ctx, char *err, size_t n)
{
    Layer L[64]; int nl = 0;
    if (!strcmp(c->model, "layered") && (nl = parse_layers(c, L, 64, err, n)) < 0) return -1;
    float *fb = NULL; FILE *f = NULL;
    if (!strcmp(c->model, "file")) {
        if (!(f = open_velfile(c, r_lo, err, n))) return -1;
        if (!(fb = malloc(sizeof(float) * c->nx))) { fclose(f); snprintf(err, n, "out of host memory for a velocity row"); return -1; }
    }
    int rc = 0;
    for (int iy = r_lo; iy < r_hi && !rc; iy++) {
        if (f) {
            /* the file may have shrunk since it was checked */
            if (fread(fb, 4, (size_t)c->nx, f) != (size_t)c->nx) {
                snprintf(err, n, "velocity file '%s' ends early: cannot read row %d of %d", c->velfile, iy, c->ny); rc = -1; break; }
            for (int ix = 0; ix < c->nx; ix++) vrow_out[ix] = fb[ix];
        } else {
            double v = nl ? layer_v(c, L, nl, iy) : c->v0;
            for (int ix = 0; ix < c->nx; ix++) vrow_out[ix] = v;
        }
        rc = fn(ctx, iy, vrow_out);
    }
    free(fb);
    if (f) fclose(f);
    return rc;
}

typedef struct { double vmin, vmax, vsrc; int six, siy; } VStat;
typedef struct { const WaveCase *c; VStat *s; char *err; size_t n; } VCtx;
static int vcheck_fn(void *ctx, int iy, const double *v)
{
    VCtx *x = ctx; const WaveCase *c = x->c;
    for (int ix = 0; ix < c->nx; ix++) {
        if (!(v[ix] > 0) || !isfinite(v[ix])) {
            snprintf(x->err, x->n, "velocity must be positive and finite, found %g at (ix=%d, iy=%d)%s%s", v[ix], ix, iy,
                     strcmp(c->model, "file") ? "" : " of velocity file ", strcmp(c->model, "file") ? "" : c->velfile);
            return -1;
        }
        if (v[ix] < x->s->vmin) x->s->vmin = v[ix];
        if (v[ix] > x->s->vmax) x->s->vmax = v[ix];
    }
    if (iy == x->s->siy) x->s->vsrc = v[x->s->six];
    return 0;
}

/* Constant and layered models: one velocity per row, so the range costs O(ny)
 * whatever nx is (a hostile 1e6 x 1e6 grid reaches the memory check at once). */
static int row_stats(const WaveCase *c, VStat *s, char *err, size_t n)
{
    Layer L[64]; int nl = 0;
    if (!strcmp(c->model, "layered") && (nl = parse_layers(c, L, 64, err, n)) < 0) return -1;
    for (int iy = 0; iy < c->ny; iy++) {
        double v = nl ? layer_v(c, L, nl, iy) : c->v0;
        if (!(v > 0) || !isfinite(v)) { snprintf(err, n, "velocity must be positive and finite, found %g in row %d", v, iy); return -1; }
        if (v < s->vmin) s->vmin = v;
        if (v > s->vmax) s->vmax = v;
        if (iy == s->siy) s->vsrc = v;
    }
    return 0;
}

/* nearest grid index of a position; clamped so that absurd positions stay
 * "outside the grid" instead of overflowing the int conversion */
static int to_index(double pos, double h)
{
    double q = floor(pos / h + 0.5);
    return q > 2e9 ? 2000000000 : q < -2e9 ? -2000000000 : (int)q;
}

/* the checks that need the grid size */
static int check_grid(const WaveCase *c, char *err, size_t n)
{
    if (!strcmp(c->model, "file") && !c->velfile[0]) { snprintf(err, n, "model = file needs velfile = PATH"); return -1; }
    if (2 * c->sponge > c->nx - 8 || 2 * c->sponge > c->ny - 8) { snprintf(err, n, "sponge width %d does not fit the grid (%d x %d)", c->sponge, c->nx, c->ny); return -1; }
    if (c->parts > (c->ny - 8) / 4) { snprintf(err, n, "parts = %d too many: every slab needs >= 4 rows (ny - 8 = %d)", c->parts, c->ny - 8); return -1; }
    if (c->amp != 0 && !(c->f0 > 0)) { snprintf(err, n, "Ricker peak frequency f0 must be positive (got %g)", c->f0); return -1; }
    return 0;
}

/* source position (WAVE_AUTO: centre, 1/4 depth), which must lie in the updated interior */
static int place_source(WaveCase *c, char *err, size_t n)
{
    if (c->src_x == WAVE_AUTO) c->src_x = (c->nx - 1) * c->h / 2;
    if (c->src_y == WAVE_AUTO) c->src_y = (c->ny - 1) * c->h / 4;
    c->src_ix = to_index(c->src_x, c->h); c->src_iy = to_index(c->src_y, c->h);
    if (c->src_ix < 4 || c->src_ix >= c->nx - 4 || c->src_iy < 4 || c->src_iy >= c->ny - 4) {
        snprintf(err, n, "source (src_x, src_y) = (%g, %g) m is outside the grid interior (%g..%g, %g..%g m)",
                 c->src_x, c->src_y, 4 * c->h, (c->nx - 5) * c->h, 4 * c->h, (c->ny - 5) * c->h);
        return -1;
    }
    if (c->t0 == 0 && c->f0 > 0) c->t0 = 1.2 / c->f0;
    return 0;
}

static int place_receivers(WaveCase *c, char *err, size_t n)
{
    free(c->rec_ix); free(c->rec_iy); c->rec_ix = c->rec_iy = NULL;
    if (c->rec_n == 0) return 0;
    if (c->rec_y == WAVE_AUTO) c->rec_y = c->src_y;
    if (c->rec_x0 == WAVE_AUTO) c->rec_x0 = 4 * c->h;
    if (c->rec_dx == 0) c->rec_dx = c->rec_n > 1 ? ((c->nx - 9) * c->h - c->rec_x0 + 4 * c->h) / (c->rec_n - 1) : c->h;
    c->rec_ix = malloc(sizeof(int) * c->rec_n); c->rec_iy = malloc(sizeof(int) * c->rec_n);
    if (!c->rec_ix || !c->rec_iy) { snprintf(err, n, "out of host memory for %d receivers", c->rec_n); return -1; }
    for (int i = 0; i < c->rec_n; i++) {
        double xr = c->rec_x0 + i * c->rec_dx;
        c->rec_ix[i] = to_index(xr, c->h); c->rec_iy[i] = to_index(c->rec_y, c->h);
        if (c->rec_ix[i] < 4 || c->rec_ix[i] >= c->nx - 4 || c->rec_iy[i] < 4 || c->rec_iy[i] >= c->ny - 4) {
            snprintf(err, n, "receiver %d at (%g, %g) m (rec_x0 + %d rec_dx, rec_y) is outside the grid interior", i, xr, c->rec_y, i); return -1; }
    }
    return 0;
}

/* velocity range, then dt: leapfrog needs (v dt/h)^2 * max|symbol| <= 4; max|symbol| of
 * the 2D operator = 2 * (-C0 + 2*(C1 + C3) - 2*(C2 + C4)) at the Nyquist mode */
static int velocity_and_dt(WaveCase *c, char *err, size_t n)
{
    VStat s = { 1e300, 0, 0, c->src_ix, c->src_iy };
    if (strcmp(c->model, "file")) { if (row_stats(c, &s, err, n)) return -1; }
    else {
        VCtx x = { c, &s, err, n };
        double *row = malloc(sizeof(double) * c->nx);
        if (!row) { snprintf(err, n, "out of host memory for a velocity row"); return -1; }
        int rc = velocity_rows(c, 0, c->ny, row, vcheck_fn, &x, err, n);
        free(row);
        if (rc) return -1;
    }
    c->vmin = s.vmin; c->vmax = s.vmax; c->vsrc = s.vsrc;
    double sym = 2.0 * (-WAVE_C0 + 2.0 * (WAVE_C1 - WAVE_C2 + WAVE_C3 - WAVE_C4));
    c->cfl_max = 2.0 / sqrt(sym);
    if (c->dt == 0) c->dt = c->cfl_target * c->cfl_max * c->h / c->vmax;
    c->cfl = c->vmax * c->dt / c->h;
    if (!(c->dt > 0) || !isfinite(c->cfl) || c->cfl > c->cfl_max) {
        snprintf(err, n, "unstable time step: CFL number vmax*dt/h = %.4g*%.4g/%.4g = %.4f exceeds the limit %.4f of this 8th-order scheme; use dt <= %.4g s (or dt = 0 for automatic)",
                 c->vmax, c->dt, c->h, c->cfl, c->cfl_max, c->cfl_max * c->h / c->vmax);
        return -1;
    }
    return 0;
}

int wave_case_finalize(WaveCase *c, char *err, size_t n)
{
    /* every number against its range and every choice against its list again:
     * fields may have been set by code, not the parser */
    if (opts_check(keys, NKEYS, c, err, n) || check_grid(c, err, n)
        || place_source(c, err, n) || velocity_and_dt(c, err, n) || place_receivers(c, err, n))
        return -1;
    c->nsamp = (c->nt + c->rec_every - 1) / c->rec_every;
    if (c->progress == 0) c->progress = c->nt >= 10 ? c->nt / 10 : 1;
    if (!strcmp(c->init, "gaussian")) {
        if (c->init_x == WAVE_AUTO) c->init_x = (c->nx - 1) * c->h / 2;
        if (c->init_y == WAVE_AUTO) c->init_y = (c->ny - 1) * c->h / 2;
        if (c->init_w == 0) c->init_w = 5 * c->h;
    }
    return 0;
}

/* Host memory of one process, by the allocations of main.c, cpu.c and gpu.cu:
 * CPU slabs: 3 arrays (u, u_prev, k) of (rows + 8 halo rows) x nx each;
 * GPU mode: one slab-sized staging buffer; the root: the gathered field and the
 * seismogram image; every process: traces (twice, plus doubles for the MPI sum). */
double wave_host_need(const WaveCase *c, int ranks, int root, int gpu)
{
    const double R = sizeof(real), nx = c->nx, ny = c->ny;
    const int P = ranks > 1 ? ranks : c->parts;
    const double slab_rows = ranks > 1 ? ceil((ny - 8) / P) + 8 : (ny - 8) + 8.0 * P;
    const double tr = (double)c->rec_n * c->nsamp + 1;
    double need = gpu ? R * (ceil((ny - 8) / P) + 8) * nx : 3 * R * slab_rows * nx;
    need += R * (nx + ny) + 3 * R * tr + (ranks > 1 ? 8 * tr : 0);
    if (root) {
        double w = c->rec_n < 400 && c->rec_n > 0 ? 400 + c->rec_n : c->rec_n, hgt = c->nsamp < 4000 ? c->nsamp : 4000;
        need += R * nx * ny + R * w * hgt;
    }
    return need + 64.0 * 1024 * 1024;   /* PNG buffers (<= 2048^2 pixels), stacks, libraries */
}

void wave_case_free(WaveCase *c) { free(c->rec_ix); free(c->rec_iy); c->rec_ix = c->rec_iy = NULL; }

void wave_case_print(const WaveCase *c)
{
    printf("grid %d x %d, h = %g m, dt = %.6g s, nt = %ld (t_end = %.6g s), %s precision\n",
           c->nx, c->ny, c->h, c->dt, c->nt, c->nt * c->dt, MOD_REAL_NAME);
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
