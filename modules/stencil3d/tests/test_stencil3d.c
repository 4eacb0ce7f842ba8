/* test_stencil3d.c - numerical tests of the stencil3d module (double precision).
 * Prints one PASS/FAIL line per check and "N passed, M failed" at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "s3d.h"
#include "check.h"    /* modules/common/tests: check(), check_summary() */

/* ---- 1. convergence order on a standing mode ------------------------------
 * S = sin(m pi x) sin(m pi y) sin(m pi z), x = (i+1) h, h = 1/(N+1): walls
 * (u = 0) at i = -1 and i = N, which are halo cells. After every step the
 * halo receives the odd mirror image of the interior, so S is an exact
 * discrete eigenmode of both stencils (corners of the box included). With
 * the same dt on every grid, the deviation from the time-discrete solution
 * with the exact eigenvalue -3 (m pi)^2 is purely the spatial error. */
static void mirror(const S3Grid *g, real *u)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    for (int ax = 0; ax < 3; ax++)               /* axis by axis: edges and corners too */
        for (int a = -S3_H; a < n[(ax + 1) % 3] + S3_H; a++)
            for (int b = -S3_H; b < n[(ax + 2) % 3] + S3_H; b++)
                for (int d = 1; d <= S3_H; d++) {
                    int lo[3], lo_src[3], hi[3], hi_src[3];
                    lo[ax] = -d; lo_src[ax] = d - 2;                  /* u(-1-e) = -u(-1+e) */
                    hi[ax] = n[ax] + d - 1; hi_src[ax] = n[ax] - d + 1; /* u(N+e) = -u(N-e) */
                    lo[(ax + 1) % 3] = lo_src[(ax + 1) % 3] = hi[(ax + 1) % 3] = hi_src[(ax + 1) % 3] = a;
                    lo[(ax + 2) % 3] = lo_src[(ax + 2) % 3] = hi[(ax + 2) % 3] = hi_src[(ax + 2) % 3] = b;
                    u[s3_idx(g, lo[0], lo[1], lo[2])] = d == 1 ? 0 : -u[s3_idx(g, lo_src[0], lo_src[1], lo_src[2])];
                    u[s3_idx(g, hi[0], hi[1], hi[2])] = d == 1 ? 0 : -u[s3_idx(g, hi_src[0], hi_src[1], hi_src[2])];
                }
}

static double mode_error(int eq, int st, int N, int m, double T, double dt)
{
    S3Grid g; s3_grid_init(&g, N, N, N);
    real *A = s3_alloc(&g, "A"), *B = s3_alloc(&g, "B"), *S = s3_alloc(&g, "S");
    real *a = A + g.org, *b = B + g.org, *s = S + g.org;
    const double h = 1.0 / (N + 1), lam = -3.0 * (m * M_PI) * (m * M_PI);
    const double k = eq == S3_WAVE ? (dt / h) * (dt / h) : dt / (h * h);
    const double th = eq == S3_WAVE ? acos(1 + dt * dt * lam / 2) : 0;
    for (int z = 0; z < N; z++) for (int y = 0; y < N; y++) for (int x = 0; x < N; x++) {
        long o = s3_idx(&g, x, y, z);
        s[o] = sin(m * M_PI * (x + 1) * h) * sin(m * M_PI * (y + 1) * h) * sin(m * M_PI * (z + 1) * h);
        a[o] = s[o]; b[o] = eq == S3_WAVE ? cos(th) * s[o] : s[o];
    }
    mirror(&g, a); mirror(&g, b);
    const int steps = (int)floor(T / dt + 0.5);
    for (int n = 0; n < steps; n++) {
        s3_cpu_step(&g, eq, st, (real)k, a, b, b);
        mirror(&g, b);
        real *t = a; a = b; b = t;
    }
    const double amp = eq == S3_WAVE ? cos(steps * th) : pow(1 + dt * lam, steps);
    double err = 0;
    for (int z = 0; z < N; z++) for (int y = 0; y < N; y++) for (int x = 0; x < N; x++) {
        long o = s3_idx(&g, x, y, z);
        double e = fabs(a[o] - amp * s[o]);
        if (e > err) err = e;
    }
    free(A); free(B); free(S);
    return err;
}

static void test_convergence(int eq, int st, const int *Ns, int nN, int m, double T, double dt, double pmin, double pmax)
{
    double e[4], p[4]; char buf[256]; int o = 0, ok = 1;
    for (int i = 0; i < nN; i++) {
        e[i] = mode_error(eq, st, Ns[i], m, T, dt);
        o += snprintf(buf + o, sizeof buf - o, "N=%d err %.2e", Ns[i], e[i]);
        if (i) {
            p[i] = log(e[i - 1] / e[i]) / log((Ns[i] + 1.0) / (Ns[i - 1] + 1.0));
            o += snprintf(buf + o, sizeof buf - o, " (order %.2f)", p[i]);
            if (!(p[i] >= pmin && p[i] <= pmax)) ok = 0;
        }
        if (i + 1 < nN) o += snprintf(buf + o, sizeof buf - o, ", ");
    }
    char name[64]; snprintf(name, sizeof name, "convergence_%s_%s", s3_stencil_name(st), s3_eq_name(eq));
    check(ok, name, "%s; expected order %.1f .. %.1f", buf, pmin, pmax);
}

/* ---- 2. the stability bound is the maximum of the symbol ---------------- */
static double symbol(int st, double a, double b, double c)
{
    if (st == S3_STAR) {
        double s = 0, t[3] = { a, b, c };
        for (int d = 0; d < 3; d++)
            s += WAVE_C0 + 2 * (WAVE_C1 * cos(t[d]) + WAVE_C2 * cos(2 * t[d]) + WAVE_C3 * cos(3 * t[d]) + WAVE_C4 * cos(4 * t[d]));
        return s;
    }
    double ca = cos(a), cb = cos(b), cc = cos(c);
    return (-128 + 28 * (ca + cb + cc) + 12 * (ca * cb + ca * cc + cb * cc) + 8 * ca * cb * cc) / 30;
}

static void test_symbol(int st)
{
    double m = 0; const int n = 48;
    for (int i = 0; i <= n; i++) for (int j = 0; j <= n; j++) for (int l = 0; l <= n; l++) {
        double v = fabs(symbol(st, M_PI * i / n, M_PI * j / n, M_PI * l / n));
        if (v > m) m = v;
    }
    char name[64]; snprintf(name, sizeof name, "stability_bound_%s", s3_stencil_name(st));
    check(fabs(m - s3_lap_max(st)) < 1e-12 * m, name, "max |symbol| over a 49^3 frequency scan %.12f, s3_lap_max %.12f", m, s3_lap_max(st));
}

/* ---- 3. the GPU kernels, emulated on the CPU, are bit-identical to the reference */
static void test_emulated_kernels(void)
{
    const int dims[2][3] = { { 45, 37, 29 }, { 70, 18, 11 } };   /* partial tiles in x and y */
    S3Case c; s3_case_defaults(&c);
    strcpy(c.init, "noise");                                       /* noise in the halo too */
    for (int gi = 0; gi < 2; gi++) {
        S3Grid g; s3_grid_init(&g, dims[gi][0], dims[gi][1], dims[gi][2]);
        real *A0 = s3_alloc(&g, "A0"), *RA = s3_alloc(&g, "RA"), *RB = s3_alloc(&g, "RB");
        real *A = s3_alloc(&g, "A"), *B = s3_alloc(&g, "B");
        s3_init_field(&g, &c, A0 + g.org);
        const size_t bytes = g.total * sizeof(real);
        for (int eq = 0; eq < 2; eq++)
            for (int st = 0; st < 2; st++) {
                const real k = (real)(eq == S3_WAVE ? 0.5 * 4 / s3_lap_max(st) : 0.8 * 2 / s3_lap_max(st));
                const int nt = 3;
                memcpy(RA, A0, bytes); memcpy(RB, A0, bytes);
                for (int n = 0; n < nt; n++) { s3_cpu_step(&g, eq, st, k, RA + g.org, RB + g.org, RB + g.org); real *t = RA; RA = RB; RB = t; }
                int tried = 0, same = 0; char bad[512] = "";
                for (int ki = 0; ki < s3_emu_count(); ki++) {
                    const S3KInfo *K = s3_emu_info(ki);
                    if (K->eq != eq || K->stencil != st) continue;
                    /* phase-major with several z chunkings, fiber forward and shuffled */
                    const int runs[4][2] = { { 0, -1 }, { 5, -1 }, { 7, 0 }, { 0, 11 } };
                    for (int r = 0; r < 4; r++) {
                        memcpy(A, A0, bytes); memcpy(B, A0, bytes);
                        for (int n = 0; n < nt; n++) {
                            if (runs[r][1] < 0) s3_emu_step(ki, &g, k, A + g.org, B + g.org, B + g.org, runs[r][0]);
                            else s3_emu_fiber_step(ki, &g, k, A + g.org, B + g.org, B + g.org, runs[r][0], (unsigned)runs[r][1]);
                            real *t = A; A = B; B = t;
                        }
                        double md; int fi, fj, fk;
                        long nd = s3_compare(&g, RA + g.org, A + g.org, &md, &fi, &fj, &fk);
                        if (!nd && eq == S3_WAVE) nd = s3_compare(&g, RB + g.org, B + g.org, &md, &fi, &fj, &fk);
                        tried++;
                        if (!nd) same++;
                        else if (strlen(bad) < 400)
                            snprintf(bad + strlen(bad), sizeof bad - strlen(bad), " %s %s run %d: %ld cells, first (%d,%d,%d);",
                                     K->kind, K->tile, r, nd, fi, fj, fk);
                    }
                }
                char name[96];
                snprintf(name, sizeof name, "emulated_kernels_%s_%s_%dx%dx%d", s3_stencil_name(st), s3_eq_name(eq), g.nx, g.ny, g.nz);
                check(tried > 0 && same == tried, name, "%d of %d kernel runs bit-identical to the CPU reference "
                      "(phase emulation: one z chunk, 5-plane chunks; fiber emulation: 7-plane chunks in thread order, one chunk shuffled)%s", same, tried, bad);
            }
        free(A0); free(RA); free(RB); free(A); free(B);
    }
}

/* ---- 4. bad parameters are rejected with a message naming the value ----- */
static void expect_reject(const char *name, const char *needle, int argc, char **argv)
{
    S3Case c; char err[1024] = "";
    s3_case_defaults(&c);
    int rc = s3_case_args(&c, argc, argv, err, sizeof err);
    if (!rc) rc = s3_case_finalize(&c, err, sizeof err);
    check(rc != 0 && strstr(err, needle) != NULL, name, "%s", err[0] ? err : "(accepted)");
}

static void test_bad_inputs(void)
{
    char *a1[] = { "x", "--courant", "0.5" };             expect_reject("reject_unstable_courant", "allowed 0 < courant <= 0.452856", 3, a1);
    char *a2[] = { "x", "--eq", "heat", "--fo", "0.2" };  expect_reject("reject_unstable_fo", "allowed 0 < fo <= 0.1025", 5, a2);
    char *a3[] = { "x", "--kernel", "regq", "--stencil", "box" }; expect_reject("reject_regq_box", "works only with stencil = star", 5, a3);
    char *a4[] = { "x", "--nx", "0" };                    expect_reject("reject_nx_zero", "nx = 0: allowed 1 .. 65535", 3, a4);
    char *a5[] = { "x", "--stencil", "cross" };           expect_reject("reject_stencil_name", "stencil = 'cross': allowed star", 3, a5);
    char *a6[] = { "x", "--tile", "32by8" };              expect_reject("reject_tile_format", "expected BXxBY", 3, a6);
    char *a7[] = { "x", "--nt", "-3" };                   expect_reject("reject_negative_nt", "nt = -3", 3, a7);
    char *a8[] = { "x", "--n", "4096" };                  expect_reject("reject_huge_grid", "too large", 3, a8);
    char *a9[] = { "x", "--courant", "abc" };             expect_reject("reject_not_a_number", "expected a finite number", 3, a9);
}

/* ---- 5. the bench filter (--bench_only): kind, kind:tile, @star / @box */
static void test_bench_filter(void)
{
    const char *L = "cqa:64x16@star,cqt,cqas@box,cq:32x8";
    const int got[8] = {
        s3_bench_wants(L, "cqa", "64x16", "star"), s3_bench_wants(L, "cqa", "64x16", "box"),
        s3_bench_wants(L, "cqa", "32x16", "star"), s3_bench_wants(L, "cqt", "128x16", "star"),
        s3_bench_wants(L, "cqas", "64x16", "box"), s3_bench_wants(L, "cqas", "64x16", "star"),
        s3_bench_wants(L, "cq", "32x8", "box"), s3_bench_wants("", "naive", "32x8", "box") };
    const int want[8] = { 1, 0, 0, 1, 1, 0, 1, 1 };
    check(!memcmp(got, want, sizeof got), "bench_filter", "%d%d%d%d%d%d%d%d (expected 10011011)",
          got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7]);
}

int main(int argc, char **argv)
{
    mod_init("test_stencil3d");   /* the name in a mod_fail message of the module's files */
    if (argc > 1) {   /* it takes none: a mistyped option must not run the suite as if given */
        fprintf(stderr, "test_stencil3d: unknown option \"%s\" (this test program takes no options)\n", argv[1]);
        return 2;
    }
    const int Ns8[3] = { 11, 15, 23 }, Ns2[3] = { 15, 23, 31 };
    test_convergence(S3_WAVE, S3_STAR, Ns8, 3, 2, 0.2, 0.004, 7.5, 8.8);
    test_convergence(S3_HEAT, S3_STAR, Ns8, 3, 2, 0.0016, 0.00016, 7.5, 8.8);
    test_convergence(S3_WAVE, S3_BOX, Ns2, 3, 1, 0.2, 0.004, 1.9, 2.2);
    test_convergence(S3_HEAT, S3_BOX, Ns2, 3, 1, 0.002, 0.0001, 1.9, 2.2);
    test_symbol(S3_STAR);
    test_symbol(S3_BOX);
    test_emulated_kernels();
    test_bench_filter();
    test_bad_inputs();
    return check_summary();
}
