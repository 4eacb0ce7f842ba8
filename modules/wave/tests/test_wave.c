/* test_wave.c - numerical tests of the wave module (double precision build).
 * Prints one PASS/FAIL line per check and "N passed, M failed" at the end.
 * Files (a tiny PNG) go to --dir DIR, $WAVE_TEST_DIR or the executable's folder.
 * Also: test_wave --make-velfile PATH NX NY  (writes a float32 test model). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "wave.h"
#include "check.h"    /* modules/common/tests: check(), check_summary() */

static char g_dir[4096];   /* folder for the files the tests write */

static void s_gather(real *full, const real *mine, int nx, int r0, int r1) { memcpy(full + (size_t)r0 * nx, mine, sizeof(real) * (size_t)(r1 - r0) * nx); }
static void s_bcast(void *b, size_t n) { (void)b; (void)n; }
static void s_reduce(double *b, long n) { (void)b; (void)n; }
static void s_barrier(void) {}
static double s_max(double x) { return x; }
static const WaveComm serial = { 0, 1, 0, 1, s_bcast, s_gather, s_reduce, s_barrier, s_max };

/* ---- 1. 8th-order convergence on a standing wave ------------------------
 * Walls (u = 0) at ix = 4 and ix = nx-5; the frame cells hold the odd mirror
 * image so sin(m pi x) sin(m pi y) is an exact discrete mode. With the same dt
 * on every grid the time error is common, and the deviation from the
 * time-discrete solution with the exact Laplacian, cos(n theta) S, is purely
 * the spatial error. */
static void mirror(real *u, int n)
{
    for (int y = 4; y <= n - 5; y++)
        for (int j = 1; j <= 4; j++) {
            u[(size_t)y * n + 4 - j] = -u[(size_t)y * n + 4 + j];
            u[(size_t)y * n + n - 5 + j] = -u[(size_t)y * n + n - 5 - j];
            u[(size_t)(4 - j) * n + y] = -u[(size_t)(4 + j) * n + y];
            u[(size_t)(n - 5 + j) * n + y] = -u[(size_t)(n - 5 - j) * n + y];
        }
}

static double standing_wave_error(int N, int m, double T, double dt)
{
    int n = N + 9; double h = 1.0 / N, K2 = 2 * (m * M_PI) * (m * M_PI);
    size_t cells = (size_t)n * n;
    real *a = malloc(cells * sizeof(real)), *b = malloc(cells * sizeof(real)), *k = malloc(cells * sizeof(real)), *S = malloc(cells * sizeof(real));
    real *g = malloc(n * sizeof(real));
    double th = acos(1 - dt * dt * K2 / 2);
    for (int i = 0; i < n; i++) g[i] = 1;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            size_t o = (size_t)y * n + x;
            S[o] = sin(m * M_PI * (x - 4) * h) * sin(m * M_PI * (y - 4) * h);
            a[o] = S[o]; b[o] = cos(th) * S[o]; k[o] = (dt / h) * (dt / h);
        }
    int steps = (int)floor(T / dt + 0.5);
    for (int s = 0; s < steps; s++) {
        wave_cpu_rows(n, b, a, k, g, g, 4, n - 4);
        mirror(b, n);
        real *t = a; a = b; b = t;
    }
    double err = 0, c = cos(steps * th);
    for (int y = 4; y < n - 4; y++)
        for (int x = 4; x < n - 4; x++) {
            double e = fabs(a[(size_t)y * n + x] - c * S[(size_t)y * n + x]);
            if (e > err) err = e;
        }
    free(a); free(b); free(k); free(S); free(g);
    return err;
}

static void test_convergence(void)
{
    int N[4] = { 20, 28, 40, 56 };
    double e[4];
    for (int i = 0; i < 4; i++) e[i] = standing_wave_error(N[i], 2, 0.25, 0.002);
    double ord_min = 99, ord_max = 0;
    for (int i = 0; i < 3; i++) {
        double p = log(e[i] / e[i + 1]) / log((double)N[i + 1] / N[i]);
        if (p < ord_min) ord_min = p;
        if (p > ord_max) ord_max = p;
        printf("     N=%d -> %d: error %.3e -> %.3e, observed order %.3f\n", N[i], N[i + 1], e[i], e[i + 1], p);
    }
    double fit = log(e[0] / e[3]) / log((double)N[3] / N[0]);
    check(ord_min > 7.5 && ord_max < 8.7, "convergence_order", "observed spatial order %.3f .. %.3f (overall %.3f), expected 8", ord_min, ord_max, fit);
    check(e[3] < 1e-9, "convergence_accuracy", "max error %.3e on the finest grid (< 1e-9)", e[3]);
}

/* ---- 2. discrete energy ----------------------------------------------
 * E^{n+1/2} = sum (u1-u0)^2 / k - sum u1 * (L u0) is exactly conserved by the
 * leapfrog scheme without sponge and source (L symmetric, zero frame). */
static double energy(const WaveCase *c, const real *u0, const real *u1, const real *k)
{
    int nx = c->nx, ny = c->ny; double E = 0;
    const double C[5] = { WAVE_C0, WAVE_C1, WAVE_C2, WAVE_C3, WAVE_C4 };
    for (int y = 4; y < ny - 4; y++)
        for (int x = 4; x < nx - 4; x++) {
            size_t o = (size_t)y * nx + x;
            double Lu = 2 * C[0] * u0[o];
            for (int d = 1; d <= 4; d++) Lu += C[d] * (u0[o - d] + u0[o + d] + u0[o - d * (size_t)nx] + u0[o + d * (size_t)nx]);
            double du = u1[o] - u0[o];
            E += du * du / k[o] - u1[o] * Lu;
        }
    return E;
}

static int setup(WaveCase *c, const char *const *kv)
{
    char err[512];
    wave_case_defaults(c);
    for (int i = 0; kv[i]; i += 2)
        if (wave_case_set(c, kv[i], kv[i + 1], err, sizeof err)) { printf("setup: %s\n", err); return -1; }
    if (wave_case_finalize(c, err, sizeof err)) { printf("setup: %s\n", err); return -1; }
    return 0;
}

static void run_energy(const char *name, int sponge, long steps, double *e_first, double *e_last, double *e_min)
{
    char sp[16]; snprintf(sp, sizeof sp, "%d", sponge);
    const char *kv[] = { "nx", "160", "ny", "144", "h", "5", "model", "layered", "v0", "1500",
                         "layers", "0:1500, 300:2500, 500:3000", "sponge", sp, "amp", "0",
                         "init", "gaussian", "init_w", "20", "init_y", "250", "nt", "0", NULL };
    WaveCase c; WaveBackend be; char err[512];
    if (setup(&c, kv)) { check(0, name, "setup failed"); return; }
    if (wave_cpu_backend(&c, &serial, &be, err, sizeof err)) { check(0, name, "%s", err); return; }
    size_t cells = (size_t)c.nx * c.ny;
    real *u0 = malloc(cells * sizeof(real)), *u1 = malloc(cells * sizeof(real)), *k = malloc(cells * sizeof(real));
    wave_fill_k(&c, k, 0, c.ny, err, sizeof err);
    be.gather(be.st, u0);
    *e_min = 1e300;
    for (long n = 0; n < steps; n++) {
        be.step(be.st, n, 0);
        be.gather(be.st, u1);
        double E = energy(&c, u0, u1, k);
        if (n == 0) *e_first = E;
        if (E < *e_min) *e_min = E;
        *e_last = E;
        real *t = u0; u0 = u1; u1 = t;
    }
    be.destroy(be.st); free(u0); free(u1); free(k); wave_case_free(&c);
}

static void test_energy(void)
{
    double e0, e1, emin;
    run_energy("energy", 0, 600, &e0, &e1, &emin);
    double drift = fabs(e1 - e0) / e0;
    check(drift < 1e-10 && emin > 0, "energy_conserved_no_sponge", "relative energy change %.2e over 600 steps (< 1e-10), min E/E0 %.12f", drift, emin / e0);
    run_energy("sponge", 32, 1500, &e0, &e1, &emin);
    check(e1 / e0 < 1e-3, "sponge_absorbs", "energy left 1500 steps after release with a 32-cell sponge: %.2e of the initial (< 1e-3)", e1 / e0);
}

/* ---- 3. decomposition into slabs is bit-identical -------------------- */
static void test_decomposition(void)
{
    unsigned long long hsh[4]; int parts[4] = { 1, 2, 3, 7 };
    for (int i = 0; i < 4; i++) {
        char p[8]; snprintf(p, sizeof p, "%d", parts[i]);
        const char *kv[] = { "nx", "96", "ny", "90", "h", "5", "model", "layered", "v0", "1500",
                             "layers", "0:1500, 200:2500", "sponge", "10", "f0", "25", "src_y", "60", "nt", "120",
                             "parts", p, "rec_n", "5", NULL };
        WaveCase c; WaveBackend be; char err[512];
        if (setup(&c, kv) || wave_cpu_backend(&c, &serial, &be, err, sizeof err)) { check(0, "decomposition", "setup failed"); return; }
        for (long n = 0; n < c.nt; n++) be.step(be.st, n, wave_src_value(&c, n));
        real *u = malloc(sizeof(real) * c.nx * c.ny);
        be.gather(be.st, u);
        hsh[i] = mod_hash(u, sizeof(real) * c.nx * c.ny);
        free(u); be.destroy(be.st); wave_case_free(&c);
    }
    int same = hsh[0] == hsh[1] && hsh[0] == hsh[2] && hsh[0] == hsh[3];
    check(same, "slabs_bit_identical", "parts 1/2/3/7 checksums %016llx %016llx %016llx %016llx", hsh[0], hsh[1], hsh[2], hsh[3]);
}

/* ---- 4. bad inputs are rejected with a clear message ---------------- */
static void expect_reject(const char *name, const char *const *kv, const char *needle)
{
    char err[1024] = ""; WaveCase c; wave_case_defaults(&c);
    int rc = 0;
    for (int i = 0; kv[i] && !rc; i += 2) rc = wave_case_set(&c, kv[i], kv[i + 1], err, sizeof err);
    if (!rc) rc = wave_case_finalize(&c, err, sizeof err);
    check(rc != 0 && strstr(err, needle) != NULL, name, "message: \"%s\"", err);
    wave_case_free(&c);
}

static void test_bad_inputs(void)
{
    const char *a[] = { "dt", "0.01", NULL };  expect_reject("reject_cfl", a, "unstable time step");
    const char *b[] = { "nx", "8", NULL };     expect_reject("reject_small_grid", b, "nx = 8: allowed 17 .. 1000000");
    const char *d[] = { "h", "-1", NULL };     expect_reject("reject_negative_h", d, "h = -1: allowed h > 0");
    const char *e[] = { "nxx", "5", NULL };    expect_reject("reject_unknown_key", e, "unknown parameter 'nxx'");
    const char *f[] = { "nx", "12abc", NULL }; expect_reject("reject_bad_number", f, "expected an integer");
    const char *g[] = { "model", "layered", "layers", "0-1500", NULL }; expect_reject("reject_bad_layers", g, "depth:velocity");
    const char *i[] = { "model", "file", "velfile", "/nonexistent/v.bin", NULL }; expect_reject("reject_missing_velfile", i, "cannot open velocity file");
    const char *j[] = { "src_x", "1e6", NULL }; expect_reject("reject_source_outside", j, "outside the grid");
    const char *k[] = { "v0", "-5", NULL };    expect_reject("reject_negative_velocity", k, "v0 = -5: allowed v0 > 0");
    const char *o[] = { "src_x", "-5", NULL }; expect_reject("reject_negative_position", o, "src_x = -5: allowed src_x >= 0, or exactly -1 = centre");
    const char *q[] = { "h", "1e999", NULL };  expect_reject("reject_overflow", q, "out of the range of a double");
    const char *r[] = { "amp", "nan", NULL };  expect_reject("reject_nan", r, "'amp = nan': expected a finite number");
    const char *t[] = { "nt", "", NULL };      expect_reject("reject_empty_value", t, "'nt' has an empty value");
    const char *u[] = { "nx", "99999999999999999999", NULL }; expect_reject("reject_int_overflow", u, "allowed 17 .. 1000000");
    /* the sentinel is the only special value: -1 still means "centre" */
    WaveCase cc; char e2[512]; wave_case_defaults(&cc);
    int okc = wave_case_set(&cc, "src_x", "-1", e2, sizeof e2) == 0 && wave_case_finalize(&cc, e2, sizeof e2) == 0
              && cc.src_x == (cc.nx - 1) * cc.h / 2;
    check(okc, "sentinel_centre", "src_x = -1 puts the source at the centre, x = %g m (column %d of %d)", cc.src_x, cc.src_ix, cc.nx);
    wave_case_free(&cc);
    const char *l[] = { "parts", "1000", NULL }; expect_reject("reject_too_many_parts", l, "every slab needs");
    const char *m[] = { "mode", "fpga", NULL }; expect_reject("reject_unknown_mode", m, "mode = 'fpga': allowed auto, cpu or gpu");
    const char *n[] = { "sponge", "400", NULL }; expect_reject("reject_sponge_too_wide", n, "does not fit");
    /* CFL limit itself: just below passes, just above fails */
    WaveCase c; char err[512]; wave_case_defaults(&c);
    c.dt = 0; wave_case_finalize(&c, err, sizeof err);
    double lim = c.cfl_max * c.h / c.vmax; wave_case_free(&c);
    wave_case_defaults(&c); c.dt = lim * 0.999;
    int ok1 = wave_case_finalize(&c, err, sizeof err) == 0; wave_case_free(&c);
    wave_case_defaults(&c); c.dt = lim * 1.001;
    int ok2 = wave_case_finalize(&c, err, sizeof err) != 0; wave_case_free(&c);
    check(ok1 && ok2 && fabs(c.cfl_max - 0.5546) < 1e-3, "cfl_limit", "limit v dt/h = %.5f; 0.999x accepted, 1.001x rejected", c.cfl_max);
}

/* ---- 5. small helpers ------------------------------------------------ */
static void test_misc(void)
{
    WaveCase c; wave_case_defaults(&c); c.f0 = 10; c.t0 = 0.12;
    double z = c.t0 + sqrt(0.5) / (M_PI * c.f0);
    check(fabs(wave_ricker(&c, c.t0) - 1) < 1e-15 && fabs(wave_ricker(&c, z)) < 1e-12, "ricker",
          "peak %.15f at t0, value %.2e at the zero crossing", wave_ricker(&c, c.t0), wave_ricker(&c, z));
    unsigned char rgb[3 * 5 * 3];
    for (int i = 0; i < 45; i++) rgb[i] = (unsigned char)(i * 5);
    char p[4200], err[1200];
    snprintf(p, sizeof p, "%s/test_tiny.png", g_dir);
    int rc = mod_png_rgb(p, rgb, 5, 3, err, sizeof err);
    FILE *f = fopen(p, "rb"); unsigned char hdr[8] = { 0 }; long sz = 0;
    if (f) { if (fread(hdr, 1, 8, f) != 8) hdr[0] = 0; fseek(f, 0, SEEK_END); sz = ftell(f); fclose(f); }
    /* 8 sig + 25 IHDR + 12 + (2 + 5 + 48 + 4) IDAT + 12 IEND */
    check(rc == 0 && hdr[0] == 137 && hdr[1] == 'P' && sz == 8 + 25 + 12 + 59 + 12, "png_writer", "%ld bytes, wrote %s%s%s", sz, p, rc ? ": " : "", rc ? err : "");
    int r0, r1, tot = 0, ok = 1, prev = 4;
    for (int q = 0; q < 7; q++) { wave_split(1000, 7, q, &r0, &r1); ok &= r0 == prev && r1 - r0 >= 141; tot += r1 - r0; prev = r1; }
    check(ok && tot == 992 && prev == 996, "split", "7 slabs cover rows 4..995 contiguously");
}

/* Where the test writes its files: argument --dir DIR, else $WAVE_TEST_DIR, else
 * the folder of this executable, so that the test works from any current directory. */
static void pick_dir(int argc, char **argv)
{
    const char *env = getenv("WAVE_TEST_DIR");
    if (argc == 3 && !strcmp(argv[1], "--dir")) snprintf(g_dir, sizeof g_dir, "%s", argv[2]);
    else if (env && *env) snprintf(g_dir, sizeof g_dir, "%s", env);
    else {
        ssize_t L = readlink("/proc/self/exe", g_dir, sizeof g_dir - 1);
        g_dir[L > 0 ? L : 0] = 0;
        char *s = strrchr(g_dir, '/');
        if (s) *s = 0; else snprintf(g_dir, sizeof g_dir, ".");
    }
}

int main(int argc, char **argv)
{
    mod_init("test_wave");   /* the name in a mod_fail message of the module's files */
    if (argc == 5 && !strcmp(argv[1], "--make-velfile")) {
        char *e1, *e2;
        long nx = strtol(argv[3], &e1, 10), ny = strtol(argv[4], &e2, 10);
        if (*e1 || *e2 || nx < 1 || ny < 1 || nx > 100000 || ny > 100000) { fprintf(stderr, "test_wave: bad size %s x %s\n", argv[3], argv[4]); return 2; }
        /* through the guard: PATH.tmp-PID renamed into place, removed by an
         * interrupt (the module's signal handler), so no partial file is left */
        GuardOut o; char err[512];
        if (guard_out_open(&o, argv[2], err, sizeof err)) { fprintf(stderr, "test_wave: %s\n", err); return 5; }
        for (long y = 0; y < ny; y++)
            for (long x = 0; x < nx; x++) { float v = 1500.0f + 1000.0f * y / ny + 200.0f * (x > nx / 2); guard_out_write(&o, &v, 4); }
        if (guard_out_close(&o, err, sizeof err)) { fprintf(stderr, "test_wave: %s\n", err); return 5; }
        return 0;
    }
    if (argc > 1 && !(argc == 3 && !strcmp(argv[1], "--dir"))) {
        fprintf(stderr, "test_wave: unknown option \"%s\"\nusage: test_wave [--dir DIR] | --make-velfile PATH NX NY\n", argv[1]);
        return 2;
    }
    pick_dir(argc, argv);
    printf("test_wave: files go to %s\n", g_dir);
    test_convergence();
    test_energy();
    test_decomposition();
    test_bad_inputs();
    test_misc();
    return check_summary();
}
