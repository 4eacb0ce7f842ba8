/* test_ooc.c - tests of the out-of-core driver on the CPU stand-in device.
 * Prints one PASS/FAIL line per check and "N passed, M failed" at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "ooc.h"
#include "check.h"    /* modules/common/tests: check(), check_summary() */

typedef struct { unsigned long long hu, hv; } Sums;

static OocCase mkcase(const char *eq, int nx, int ny, long nt)
{
    OocCase c; char err[512];
    ooc_case_defaults(&c);
    strcpy(c.eq, eq); c.nx = nx; c.ny = ny; c.nt = nt; strcpy(c.init, "noise");
    if (ooc_case_finalize(&c, err, sizeof err)) mod_fail(RC_INPUT, "%s", err);
    return c;
}

static OocGeom geom(const OocCase *c, int cap)
{
    OocGeom g = { c->eq_id, c->nx, c->ny, c->rad, c->levels, c->nt, cap };
    return g;
}

/* run one method on a fresh field; n = 0: in-core */
static Sums run(const OocCase *c, int cap, int n, int overlap, unsigned seed, int poison, int brk)
{
    OocDev d; char err[256];
    ooc_cpu_device(&d, seed, poison, err, sizeof err);
    const size_t cells = (size_t)c->nx * c->ny;
    real *u = malloc(cells * sizeof(real)), *v = c->levels == 2 ? malloc(cells * sizeof(real)) : NULL;
    ooc_init_field(c, u);
    if (v) memcpy(v, u, cells * sizeof(real));
    OocGeom g = geom(c, cap);
    if (n == 0) ooc_incore(&d, &g, c->coef, u, v);
    else ooc_run(&d, &g, n, overlap, c->coef, u, v, brk);
    Sums s = { ooc_checksum(u, c->nx, c->ny), v ? ooc_checksum(v, c->nx, c->ny) : 0 };
    free(u); free(v);
    d.destroy(d.st);
    return s;
}
static int same(Sums a, Sums b) { return a.hu == b.hu && a.hv == b.hv; }

/* ---- 1. pyramids and trivial method bit-identical to the in-core solver ----
 * tiny budgets (many slabs, short last slab), every pyramid height that fits,
 * heights that do not divide nt, with and without overlap, in issue order and
 * in random legal stream interleavings with NaN-poisoned device buffers */
static void test_identity(const char *eq, const int (*grids)[2], int ngrids, const int *caps, int ncaps)
{
    int tried = 0, ok = 0; char bad[400] = "";
    for (int gi = 0; gi < ngrids; gi++) {
        OocCase c = mkcase(eq, grids[gi][0], grids[gi][1], 23);
        Sums ref = run(&c, 0, 0, 0, 0, 0, 0);
        for (int ci = 0; ci < ncaps; ci++) {
            OocGeom g = geom(&c, caps[ci]);
            int nmax = ooc_max_n(&g);
            for (int n = 1; n <= nmax; n++)
                for (int ov = 0; ov <= 1; ov++)
                    for (unsigned seed = 0; seed <= (ov ? 2u : 0u); seed++) {
                        Sums s = run(&c, caps[ci], n, ov, seed ? seed * 7919u + (unsigned)n : 0, seed > 0, 0);
                        tried++;
                        if (same(s, ref)) ok++;
                        else if (strlen(bad) < 300)
                            snprintf(bad + strlen(bad), sizeof bad - strlen(bad), " [%dx%d rows %d n %d overlap %d seed %u]",
                                     c.nx, c.ny, caps[ci], n, ov, seed);
                    }
        }
    }
    char name[64]; snprintf(name, sizeof name, "identity_%s", eq);
    check(tried > 0 && ok == tried, name, "%d of %d out-of-core runs bit-identical to the in-core solver "
          "(field and u^{t-1}; all heights that fit, overlap on/off, random stream orders, NaN poison)%s", ok, tried, bad);
}

static void test_edges(void)
{
    OocCase c = mkcase("wave", 45, 38, 9);
    Sums ref = run(&c, 0, 0, 0, 0, 0, 0);
    Sums one = run(&c, 38 + 2 * 4 * 9, 9, 1, 5, 1, 0);     /* the whole field in one slab, one pass */
    check(same(one, ref), "single_slab_single_pass", "budget larger than the field: one slab, n = nt");
    OocCase z = mkcase("heat", 30, 40, 0);
    Sums r0 = run(&z, 0, 0, 0, 0, 0, 0), p0 = run(&z, 5, 1, 1, 3, 1, 0);
    check(same(r0, p0), "zero_steps", "nt = 0 leaves the field unchanged");
}

/* ---- 2. the randomised stream order catches a missing wait ---- */
static void test_races_detected(void)
{
    OocCase c = mkcase("heat", 40, 61, 8);
    Sums ref = run(&c, 0, 0, 0, 0, 0, 0);
    int caught = 0, seeds = 40;
    for (unsigned s = 1; s <= (unsigned)seeds; s++) if (!same(run(&c, 9, 2, 1, s, 1, 1), ref)) caught++;
    Sums inorder = run(&c, 9, 2, 1, 0, 1, 1);
    check(caught > 0 && same(inorder, ref), "missing_slot_wait_detected",
          "without the wait on the buffer slot's last download: correct in issue order, wrong in %d of %d random stream orders", caught, seeds);
    Sums early = run(&c, 9, 2, 1, 0, 0, 2);
    check(!same(early, ref), "early_seam_download_detected", "downloading a slab's seam before the next slab's upload changes the result");
}

/* ---- 3. the model counts exactly what the driver does ---- */
static OocDev inner;
static double c_up, c_down, c_cells; static long c_launch;
static void w_copy(void *st, int s, void *dst, const void *src, size_t bytes, int to_dev)
{
    if (to_dev) c_up += bytes / sizeof(real); else c_down += bytes / sizeof(real);
    inner.copy(st, s, dst, src, bytes, to_dev);
}
static void w_step(void *st, int s, const OocStep *p)
{
    c_cells += (double)(p->yb - p->ya) * p->nx; c_launch++;
    inner.step(st, s, p);
}

static void test_model_counts(void)
{
    int ok = 1, tried = 0; char msg[256] = "";
    const char *eqs[2] = { "heat", "wave" };
    for (int e = 0; e < 2; e++) {
        OocCase c = mkcase(eqs[e], 50, 77, 13);
        const int caps[2] = { 3 * c.rad + 2, 30 };
        for (int ci = 0; ci < 2; ci++) {
            OocGeom g = geom(&c, caps[ci]);
            for (int n = 1; n <= ooc_max_n(&g); n++) {
                char err[64]; OocDev d;
                ooc_cpu_device(&inner, 0, 0, err, sizeof err);
                d = inner; d.copy = w_copy; d.step = w_step;
                size_t cells = (size_t)c.nx * c.ny;
                real *u = calloc(cells, sizeof(real)), *v = calloc(cells, sizeof(real));
                c_up = c_down = c_cells = 0; c_launch = 0;
                ooc_run(&d, &g, n, 1, c.coef, u, c.levels == 2 ? v : NULL, 0);
                OocTau t = { 1, 1, 1, 1, 1, 0 };
                OocStats st; ooc_model(&g, n, &t, NULL, NULL, &st);
                tried++;
                if (st.up_values != c_up || st.down_values != c_down || st.cells != c_cells || st.launches != c_launch) {
                    ok = 0;
                    snprintf(msg, sizeof msg, " %s rows %d n %d: model %.0f/%.0f/%.0f/%ld, driver %.0f/%.0f/%.0f/%ld", eqs[e], caps[ci], n,
                             st.up_values, st.down_values, st.cells, st.launches, c_up, c_down, c_cells, c_launch);
                }
                free(u); free(v); inner.destroy(inner.st);
            }
        }
    }
    check(ok, "model_counts_match_driver", "values up, values down, cell updates and launches of the model = those the driver issues (%d cases)%s", tried, msg);
}

/* ---- 4. the paper's own table (1D decomposition, I = 32768) from eq. (4) ---- */
static void test_paper_table(void)
{
    const double ratio[4] = { 1, 5, 10, 15 };
    const double paper[2][4] = { { 2.74, 8.95, 15.63, 21.53 }, { 2.87, 9.94, 18.18, 25.95 } };
    const double R[2] = { 1024, 4096 };               /* 128 MB and 512 MB of 32768-float rows */
    const double cells = 32767.0 * 32767.0;
    double worst = 0; char buf[256]; int o = 0;
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 4; k++) {
            double best = 1e300;
            for (int n = 1; n < R[m] / 2; n++) {
                double t = ooc_paper_eq4(1, cells, R[m], n, ratio[k], 1);
                if (t < best) best = t;
            }
            double sp = ooc_paper_trivial(1, cells, R[m], ratio[k], 1) / best;
            double d = fabs(sp - paper[m][k]);
            if (d > worst) worst = d;
            o += snprintf(buf + o, sizeof buf - o, "%.2f%s", sp, k == 3 ? (m ? "" : " | ") : " ");
        }
    check(worst < 0.03, "paper_table_reproduced", "speed-ups %s vs the paper's 2.74 8.95 15.63 21.53 | 2.87 9.94 18.18 25.95 (max diff %.3f)", buf, worst);
}

/* ---- 5. the choice of n follows tau_c / tau_a ---- */
static void test_choice(void)
{
    /* the bench geometry: heat, 32768 x 16384 FP32 (2 GiB), budget 1/8 of it -> 512-row buffers */
    OocCase c = mkcase("heat", 32768, 16384, 200);
    OocGeom g = geom(&c, 512);
    OocTau cheap = { 0, 0, 0, 0, 1e-12, 0 }, gpu = { 80e-12, 80e-12, 95e-12, 95e-12, 3.2e-12, 4e-6 };
    int n0 = ooc_best_n(&g, &cheap, 1, NULL);
    double pp, pt; int n1 = ooc_best_n(&g, &gpu, 1, &pp);
    ooc_model(&g, 1, &gpu, NULL, &pt, NULL);
    check(n0 == 1 && n1 > 1 && pt / pp > 8, "model_choice_of_n",
          "free transfers -> n = %d; PCIe-like tau_c = 80 ps, tau_a = 3.2 ps, 4 us launches, bench geometry -> n = %d, "
          "predicted %.1fx over the trivial method", n0, n1, pt / pp);
}

/* ---- 6. bad parameters are rejected, naming the value and what is allowed ---- */
static void expect_reject(const char *name, const char *needle, int argc, char **argv)
{
    OocCase c; char err[1024] = "";
    ooc_case_defaults(&c);
    int rc = ooc_case_args(&c, argc, argv, err, sizeof err);
    if (!rc) rc = ooc_case_finalize(&c, err, sizeof err);
    check(rc != 0 && strstr(err, needle) != NULL, name, "%s", err[0] ? err : "(accepted)");
}
static void test_bad_inputs(void)
{
    char *a1[] = { "x", "--r", "0.3" };                   expect_reject("reject_unstable_r", "allowed 0 < r <= 0.25", 3, a1);
    char *a2[] = { "x", "--eq", "wave", "--courant", "0.6" }; expect_reject("reject_unstable_courant", "allowed 0 < courant <= 0.5546", 5, a2);
    char *a3[] = { "x", "--device-mem", "2X" };           expect_reject("reject_bad_size", "expected a size such as 512M or 2G", 3, a3);
    char *a4[] = { "x", "--eq", "wave", "--nx", "8" };    expect_reject("reject_small_grid", "must be 9 .. 1000000 for eq = wave", 5, a4);
    char *a5[] = { "x", "--method", "fast" };             expect_reject("reject_method", "allowed all, pyramid, trivial or incore", 3, a5);
    char *a6[] = { "x", "--overlap", "2" };               expect_reject("reject_overlap", "overlap = 2: allowed 0 or 1", 3, a6);
    char *a7[] = { "x", "--n", "-1" };                    expect_reject("reject_negative_n", "n = -1", 3, a7);
    char *a8[] = { "x", "--eq", "poisson" };              expect_reject("reject_eq", "allowed heat or wave", 3, a8);
    OocCase c; char err[64]; ooc_case_defaults(&c);
    char *a9[] = { "x", "--device-mem", "1.5G" };
    int rc = ooc_case_args(&c, 3, a9, err, sizeof err);
    check(!rc && c.device_mem == 1610612736L, "size_suffixes", "--device-mem 1.5G = %ld bytes", c.device_mem);
}

int main(int argc, char **argv)
{
    mod_init("test_ooc");   /* the name in a mod_fail message of the module's files */
    if (argc > 1) {   /* it takes none: a mistyped option must not run the suite as if given */
        fprintf(stderr, "test_ooc: unknown option \"%s\" (this test program takes no options)\n", argv[1]);
        return 2;
    }
#ifdef _OPENMP
    omp_set_num_threads(1);   /* tiny grids: threads would only add overhead */
#endif
    const int grids[3][2] = { { 67, 53 }, { 33, 101 }, { 129, 40 } };
    const int caps_heat[5] = { 3, 7, 16, 41, 90 }, caps_wave[4] = { 12, 21, 45, 100 };
    test_identity("heat", grids, 3, caps_heat, 5);
    test_identity("wave", grids, 3, caps_wave, 4);
    test_edges();
    test_races_detected();
    test_model_counts();
    test_paper_table();
    test_choice();
    test_bad_inputs();
    return check_summary();
}
