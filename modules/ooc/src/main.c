/* main.c - ooc2d: the 2D heat or wave equation on a grid larger than the
 * device memory budget. Runs the in-core solver, the trivial out-of-core
 * method (one step per transfer) and the method of pyramids (n steps per
 * transfer, n from the cost model with tau_c and tau_a measured at start-up)
 * in one process; reports predicted vs measured times and checks that every
 * result is bit-identical to the in-core reference. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "opts.h"
#include "ooc.h"
#include "output.h"   /* modules/common: mod_out_*; guard.h: exit codes, safe output files, host-memory check */

/* final.bin, final.png, info.txt in c->out, each through guard.c's safe output files */
static void write_outputs(const OocCase *c, const real *U, size_t field, unsigned long long hsh)
{
    char p[OOC_STR + 64];
    mod_out_mkdir(c->out);
    if (c->write_final) {
        snprintf(p, sizeof p, "%s/final.bin", c->out);
        mod_out_file(p, U, field);
    }
    snprintf(p, sizeof p, "%s/final.png", c->out);
    mod_out_png(p, U, MOD_REAL_IS_DOUBLE, c->nx, c->ny, 0);
    snprintf(p, sizeof p, "%s/info.txt", c->out);
    GuardOut f;
    mod_out_open(&f, p);
    guard_out_printf(&f, "eq %s\nnx %d\nny %d\nnt %ld\ncoefficient %.17g\ntype %s\nchecksum %016llx\n",
                     c->eq, c->nx, c->ny, c->nt, (double)c->coef, MOD_REAL_NAME, hsh);
    mod_out_close(&f);
}

/* Refuse, before any large allocation, a run this host cannot hold: the field
 * (one or two levels), the in-core reference on the CPU (two more fields), the
 * slab buffers (host memory on the CPU stand-in; pinned scratch on the GPU), the PNG. */
static void check_host_memory(const OocCase *c, double field, double slabs, int gpu, const char *chk)
{
    char what[96], err[1024];
    double need = field * c->levels + (gpu && strcmp(chk, "cpu") ? 0 : 2 * field) + (gpu ? 0.5 : 1) * slabs
                  + 8.0 * c->ny + 64.0 * 1024 * 1024;
    snprintf(what, sizeof what, "grid %d x %d", c->nx, c->ny);
    if (guard_host_check(need, what, err, sizeof err)) mod_fail(RC_MEMORY, "%s", err);
}

static const char *size_str(double b, char *buf, size_t n)
{
    if (b >= 1 << 30) snprintf(buf, n, "%.2f GiB", b / (1 << 30));
    else if (b >= 1 << 20) snprintf(buf, n, "%.2f MiB", b / (1 << 20));
    else if (b >= 1 << 10) snprintf(buf, n, "%.2f KiB", b / (1 << 10));
    else snprintf(buf, n, "%.0f B", b);
    return buf;
}

typedef struct { unsigned long long hu, hv; } Sums;

static Sums sums(const OocCase *c, const real *u, const real *v)
{
    Sums s = { ooc_checksum(u, c->nx, c->ny), v ? ooc_checksum(v, c->nx, c->ny) : 0 };
    return s;
}

static void fresh(const OocCase *c, real *u, real *v)
{
    ooc_init_field(c, u);
    if (v) memcpy(v, u, (size_t)c->nx * c->ny * sizeof(real));   /* wave: at rest */
}

int main(int argc, char **argv)
{
    OocCase c; char err[1024], b1[32], b2[32];
    mod_init("ooc2d");
    ooc_case_defaults(&c);
    if (opts_want_help(argc, argv)) { ooc_usage(argv[0]); mod_finish_stdout(); return RC_OK; }
    if (ooc_case_args(&c, argc, argv, err, sizeof err)) mod_fail(RC_INPUT, "%s", err);
    if (ooc_case_finalize(&c, err, sizeof err)) mod_fail(RC_INPUT, "%s", err);
#ifdef _OPENMP
    if (c.threads > 0) omp_set_num_threads(c.threads);
#endif
    /* ---- device ---- */
    const char *mode = c.mode;
    OocDev dev;
#ifdef OOC_HAVE_CUDA
    OocDev probe;
    int have_gpu = !strcmp(mode, "cpu") ? 0 : ooc_cuda_device(&probe, err, sizeof err) == 0;
    if (!strcmp(mode, "auto")) mode = have_gpu ? "gpu" : "cpu";
    if (!strcmp(mode, "gpu") && !have_gpu) mod_fail(RC_DEVICE, "mode = gpu: %s", err);   /* no usable GPU: RC_DEVICE */
    if (have_gpu && strcmp(mode, "gpu")) { probe.destroy(probe.st); have_gpu = 0; }
    if (have_gpu) dev = probe;
    else
#else
    if (!strcmp(mode, "auto")) mode = "cpu";
    if (!strcmp(mode, "gpu")) mod_fail(RC_INPUT, "mode = gpu: this binary was built without CUDA (use build/ooc/ooc2d-cuda from 'make ooc-cuda')");
#endif
    if (ooc_cpu_device(&dev, (unsigned)c.sched_seed, c.poison, err, sizeof err)) mod_fail(RC_DEVICE, "%s", err);
    const int gpu = !strcmp(mode, "gpu");

    /* ---- geometry from the budget: 2 slots x 2 buffers of cap rows ---- */
    size_t row, field;   /* checked products: the ranges keep them small, this keeps them honest */
    if (guard_mul((size_t)c.nx, sizeof(real), &row) || guard_mul(row, (size_t)c.ny, &field))
        mod_fail(RC_MEMORY, "grid %d x %d: the field size overflows a size_t", c.nx, c.ny);
    const long per_row = 4L * (long)row;
    long cap = c.device_mem / per_row;
    const int minrows = 3 * c.rad;
    if (cap < minrows)
        mod_fail(RC_INPUT, "device_mem = %s is too small for nx = %d: the 4 slab buffers (2 slots x 2 levels) need at least %d rows each, %s in all",
                size_str((double)c.device_mem, b1, sizeof b1), c.nx, minrows, size_str((double)per_row * minrows, b2, sizeof b2));
    if (c.rows > 0) {
        if (c.rows > cap) mod_fail(RC_INPUT, "rows = %d does not fit device_mem = %s: at most %ld rows of %d points (4 buffers)", c.rows,
                                  size_str((double)c.device_mem, b1, sizeof b1), cap, c.nx);
        if (c.rows < minrows) mod_fail(RC_INPUT, "rows = %d: a slab buffer needs at least %d rows for eq = %s", c.rows, minrows, c.eq);
        cap = c.rows;
    }
    if (cap > (long)c.ny + 2L * c.rad * (c.nt > 0 ? c.nt : 1)) cap = c.ny + 2L * c.rad * (c.nt > 0 ? c.nt : 1);
    /* host memory first: for a hostile grid it is the message that matters */
    const char *chk = c.check;
    if (!strcmp(chk, "auto")) chk = gpu && (double)field * (c.levels + 1) < 0.9 * (double)dev.free_mem ? "gpu" : "cpu";
    check_host_memory(&c, (double)field, (double)cap * per_row, gpu, chk);
    if (gpu && (double)cap * per_row > (double)dev.free_mem)
        mod_fail(RC_INPUT, "device_mem = %s is more than the free GPU memory (%s)", size_str((double)c.device_mem, b1, sizeof b1),
                size_str((double)dev.free_mem, b2, sizeof b2));
    OocGeom G = { c.eq_id, c.nx, c.ny, c.rad, c.levels, c.nt, (int)cap };
    const int nmax = ooc_max_n(&G);
    if (c.n > 0 && (c.n > nmax || ooc_res_rows(&G, c.n) <= 0))
        mod_fail(RC_INPUT, "n = %d does not fit: with %d rows per buffer and a stencil radius of %d the pyramid height is at most %d "
                "(each slab computes at least n x radius result rows; raise device_mem or lower n)", c.n, G.cap, c.rad, nmax);

    real *U = (real *)dev.host_alloc(dev.st, field), *V = c.levels == 2 ? (real *)dev.host_alloc(dev.st, field) : NULL;
    if (!c.quiet) {
        printf("ooc2d: %s equation, %d x %d points (%s per level, %d level%s), nt %ld, %s, %s\n",
               c.eq, c.nx, c.ny, size_str((double)field, b1, sizeof b1), c.levels, c.levels > 1 ? "s" : "", c.nt, MOD_REAL_NAME, dev.name);
        printf("budget: device_mem %s -> 4 buffers of %d rows (%s in use, %.3f of the field), overlap %s\n",
               size_str((double)c.device_mem, b1, sizeof b1), G.cap, size_str((double)G.cap * per_row, b2, sizeof b2),
               (double)G.cap * per_row / ((double)field * c.levels), c.overlap ? "on (3 streams, 2 slots)" : "off (1 stream)");
        fflush(stdout);
    }

    /* ---- calibration and the choice of n ---- */
    OocTau tau;
    ooc_calibrate(&dev, &G, c.coef, &tau);
    double pred_best;
    int n_model = ooc_best_n(&G, &tau, c.overlap, &pred_best);
    int n_paper = ooc_best_n(&G, &tau, 0, NULL);
    const int n = c.n > 0 ? c.n : n_model;
    if (!c.quiet) {
        printf("calibration: tau_c %.4g ns (H2D) %.4g ns (D2H), with both directions %.4g / %.4g ns per value; "
               "tau_a %.4g ns per cell, %.3g us per step launch; tau_c/tau_a = %.1f\n",
               tau.d * 1e9, tau.h * 1e9, tau.d2 * 1e9, tau.h2 * 1e9, tau.a * 1e9, tau.launch * 1e6, 0.5 * (tau.d + tau.h) / tau.a);
        printf("pyramid height: n = %d (%s; serial model of the paper: %d; at most %d fit)\n",
               n, c.n > 0 ? "given" : (c.overlap ? "overlapped model" : "paper's serial model"), n_paper, nmax);
        fflush(stdout);
    }

    /* ---- reference ---- */
    if (!strcmp(chk, "gpu") && !gpu) mod_fail(RC_INPUT, "check = gpu needs mode = gpu");
    Sums ref = { 0, 0 }; int have_ref = 0;
    double t_incore = -1;
    if (strcmp(chk, "none")) {
        fresh(&c, U, V);
        if (!strcmp(chk, "gpu")) {
            if ((double)field * 2 > 0.95 * (double)dev.free_mem)
                mod_fail(RC_INPUT, "check = gpu: the in-core reference needs %s of GPU memory, %s is free (use check = cpu or none)",
                        size_str((double)field * 2, b1, sizeof b1), size_str((double)dev.free_mem, b2, sizeof b2));
            t_incore = ooc_incore(&dev, &G, c.coef, U, V);
        } else {
            OocDev ref_dev;
            if (ooc_cpu_device(&ref_dev, 0, 0, err, sizeof err)) mod_fail(RC_DEVICE, "%s", err);
            double t = ooc_incore(&ref_dev, &G, c.coef, U, V);
            if (!gpu) t_incore = t;
            ref_dev.destroy(ref_dev.st);
        }
        ref = sums(&c, U, V); have_ref = 1;
        if (!c.quiet) { printf("reference: in-core on the %s, %.3f s, checksum %016llx\n", !strcmp(chk, "gpu") ? "GPU" : "CPU", t_incore >= 0 ? t_incore : 0, ref.hu); fflush(stdout); }
    }

    /* ---- methods ---- */
    const int run_incore = !strcmp(c.method, "all") || !strcmp(c.method, "incore");
    const int run_trivial = !strcmp(c.method, "all") || !strcmp(c.method, "trivial");
    const int run_pyr = !strcmp(c.method, "all") || !strcmp(c.method, "pyramid");
    printf("%-9s %5s %6s %7s %6s %7s %11s %11s %11s %7s %9s  %-16s %s\n", "method", "n", "rows", "result", "slabs", "passes",
           "pred.serial", "pred.overl", "measured", "err", "vs trivial", "checksum", "bit-identical");
    int mismatches = 0; double t_triv = -1;
    Sums last = { 0, 0 };
    for (int m = 0; m < 3; m++) {
        if ((m == 0 && !run_incore) || (m == 1 && !run_trivial) || (m == 2 && !run_pyr)) continue;
        const int nn = m == 1 ? 1 : n;
        double sec, ps = 0, po = 0; OocStats st; memset(&st, 0, sizeof st);
        if (m == 0 && t_incore >= 0 && have_ref) { sec = t_incore; last = ref; }
        else {
            fresh(&c, U, V);
            sec = m == 0 ? ooc_incore(&dev, &G, c.coef, U, V) : ooc_run(&dev, &G, nn, c.overlap, c.coef, U, V, c.debug_break);
            last = sums(&c, U, V);
        }
        const char *name = m == 0 ? "in-core" : m == 1 ? "trivial" : "pyramid";
        const char *same = !have_ref ? "(not checked)" : (last.hu == ref.hu && last.hv == ref.hv) ? "yes" : "NO";
        if (have_ref && strcmp(same, "yes")) mismatches++;
        if (m == 0) {
            printf("%-9s %5s %6d %7s %6d %7d %11s %11s %10.4fs %7s %9s  %016llx %s\n", name, "-", c.ny, "-", 1, 1, "-", "-", sec, "-", "-", last.hu, same);
        } else {
            ooc_model(&G, nn, &tau, &ps, &po, &st);
            const double p = c.overlap ? po : ps;
            if (m == 1) t_triv = sec;
            char vs[32] = "1.00x";
            if (m == 2 && t_triv > 0) snprintf(vs, sizeof vs, "%.2fx", t_triv / sec);
            printf("%-9s %5d %6d %7d %6ld %7ld %10.4fs %10.4fs %10.4fs %6.1f%% %9s  %016llx %s\n", name, nn, G.cap,
                   ooc_res_rows(&G, nn), st.slabs / (st.passes ? st.passes : 1), st.passes, ps, po, sec, 100.0 * (p - sec) / sec,
                   m == 2 && t_triv < 0 ? "-" : vs, last.hu, same);
            if (!c.quiet && m == 2) {
                /* the paper's closed form (4): K (I-1)^2 (R-n)/(R-2n) (2 tau_c / n + tau_a), R rows of a buffer */
                double tc = 0.5 * (tau.d + tau.h) * c.levels;
                double eq4 = ooc_paper_eq4((double)c.nt, (c.nx - 2.0 * c.rad) * (c.ny - 2.0 * c.rad), G.cap / (double)c.rad, nn, tc, tau.a);
                printf("          paper eq. (4) closed form for n = %d: %.4f s; transfers %s up, %s down, %.3g cell updates (%.3f x the in-core count)\n",
                       nn, eq4, size_str(st.up_values * sizeof(real), b1, sizeof b1), size_str(st.down_values * sizeof(real), b2, sizeof b2),
                       st.cells, st.cells / ((double)c.nx * c.ny * (c.nt ? c.nt : 1)));
            }
        }
        fflush(stdout);
    }
    if (c.out[0]) write_outputs(&c, U, field, last.hu);
    printf("done: %s, %s; %s\n", c.eq, dev.name, mismatches ? "MISMATCH with the in-core reference" : have_ref ? "all results bit-identical to the in-core reference" : "no reference check");
    guard_print_outputs(c.out);
    dev.host_release(dev.st, U); if (V) dev.host_release(dev.st, V);
    dev.destroy(dev.st);
    mod_finish_stdout();
    return mismatches ? RC_MISMATCH : RC_OK;
}
