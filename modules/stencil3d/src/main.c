/* main.c - stencil3d driver: parameters, initial fields, time loop on the
 * chosen back end, verification of the GPU kernels, benchmark, outputs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "opts.h"
#include "s3d.h"
#include "output.h"   /* modules/common: mod_now; guard.h: exit codes, host-memory check */

static const S3KInfo *(*k_info)(int) = s3_emu_info;
static int k_count(void)
{
#ifdef S3_HAVE_CUDA
    if (k_info == s3_gpu_info) return s3_gpu_kernel_count();
#endif
    return s3_emu_count();
}

/* kernel of the case (kind, stencil, eq, tile) in the current table, or die with the choices */
static int pick_kernel(const S3Case *c)
{
    int i = s3_find_kernel(k_info, k_count(), c->kernel, c->st_id, c->eq_id, c->tile);
    if (i >= 0) return i;
    char list[512] = "";
    for (int j = 0; j < k_count(); j++) {
        const S3KInfo *k = k_info(j);
        if (!strcmp(k->kind, c->kernel) && k->stencil == c->st_id && k->eq == c->eq_id) {
            strncat(list, " ", sizeof list - strlen(list) - 1);
            strncat(list, k->tile, sizeof list - strlen(list) - 1);
        }
    }
    mod_fail(RC_INPUT, "tile = '%s' is not built for kernel = %s, stencil = %s, eq = %s: allowed tiles:%s",
           c->tile, c->kernel, c->stencil, c->eq, list[0] ? list : " (none)");
    return -1;
}

/* Refuse, before any large allocation, a grid this host cannot hold: two padded
 * fields (six in verify mode), a dense copy for the checksum / final.bin, the slice. */
static void check_host_memory(const S3Case *c, const S3Grid *g, const char *mode)
{
    char what[96], err[1024];
    double fields = !strcmp(mode, "verify") ? 6 : 2;
    double need = sizeof(real) * (fields * (double)g->total + (double)c->nx * c->ny * c->nz + (double)c->nx * c->ny)
                  + 64.0 * 1024 * 1024;
    snprintf(what, sizeof what, "grid %d x %d x %d", c->nx, c->ny, c->nz);
    if (guard_host_check(need, what, err, sizeof err)) mod_fail(RC_MEMORY, "%s", err);
}

/* one step of the CPU back ends: out = B (wave: in place over u^{n-1}) */
static void cpu_like_step(const S3Case *c, const S3Grid *g, int emu_k, real *A, real *B)
{
    if (emu_k < 0) s3_cpu_step(g, c->eq_id, c->st_id, c->k, A, B, B);
    else if (!strcmp(c->emu, "fiber")) s3_emu_fiber_step(emu_k, g, c->k, A, B, B, c->zchunk, (unsigned)c->emu_seed);
    else s3_emu_step(emu_k, g, c->k, A, B, B, c->zchunk);
}

/* verify: the CPU reference, then every kernel of this stencil and equation
 * from the same initial fields; bitwise comparison of u^n (and u^{n-1}). */
static int verify(const S3Case *c, const S3Grid *g, const real *A0, const real *B0, int gpu)
{
    size_t bytes = g->total * sizeof(real);
    real *RA = s3_alloc(g, "the reference field"), *RB = s3_alloc(g, "the reference field");
    real *A = s3_alloc(g, "a test field"), *B = s3_alloc(g, "a test field");
    memcpy(RA, A0, bytes); memcpy(RB, B0, bytes);
    for (long n = 0; n < c->nt; n++) {
        cpu_like_step(c, g, -1, RA + g->org, RB + g->org);
        real *t = RA; RA = RB; RB = t;
    }
    int bad = 0, tried = 0;
    for (int i = 0; i < k_count(); i++) {
        const S3KInfo *ki = k_info(i);
        if (ki->stencil != c->st_id || ki->eq != c->eq_id) continue;
        memcpy(A, A0, bytes); memcpy(B, B0, bytes);
#ifdef S3_HAVE_CUDA
        if (gpu) s3_gpu_run(i, g, c, A + g->org, B + g->org, 0);
        else
#endif
        for (long n = 0; n < c->nt; n++) {
            cpu_like_step(c, g, i, A + g->org, B + g->org);
            real *t = A; A = B; B = t;
        }
        double md; int fi, fj, fk;
        long nd = s3_compare(g, RA + g->org, A + g->org, &md, &fi, &fj, &fk);
        if (!nd && c->eq_id == S3_WAVE) nd = s3_compare(g, RB + g->org, B + g->org, &md, &fi, &fj, &fk);
        tried++;
        if (nd) {
            bad++;
            printf("verify: %-5s %-5s %-4s %-4s %s  DIFF  %ld cells differ, max |diff| %.3e, first at (%d,%d,%d)\n",
                   gpu ? "gpu" : c->emu, ki->kind, s3_stencil_name(ki->stencil), s3_eq_name(ki->eq), ki->tile, nd, md, fi, fj, fk);
        } else
            printf("verify: %-5s %-5s %-4s %-4s %-5s  MATCH (bit-identical to the CPU reference, %ld steps)\n",
                   gpu ? "gpu" : c->emu, ki->kind, s3_stencil_name(ki->stencil), s3_eq_name(ki->eq), ki->tile, c->nt);
        fflush(stdout);
    }
    /* the summary stays the last line (scripts read it with tail -1) */
    printf("outputs: none (mode verify writes no files)\n");
    printf("verify: %d of %d kernels bit-identical\n", tried - bad, tried);
    free(RA); free(RB); free(A); free(B);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    S3Case c; char err[1024];
    mod_init("stencil3d");
    s3_case_defaults(&c);
    if (opts_want_help(argc, argv)) { s3_usage(argv[0]); mod_finish_stdout(); return RC_OK; }
    if (s3_case_args(&c, argc, argv, err, sizeof err)) mod_fail(RC_INPUT, "%s", err);
    if (s3_case_finalize(&c, err, sizeof err)) mod_fail(RC_INPUT, "%s", err);
#ifdef _OPENMP
    if (c.threads > 0) omp_set_num_threads(c.threads);
#endif
    const char *mode = c.mode;
    int ngpu = 0;
#ifdef S3_HAVE_CUDA
    ngpu = s3_gpu_count();
#endif
    if (!strcmp(mode, "auto")) mode = ngpu > 0 ? "gpu" : "cpu";
    int want_gpu = !strcmp(mode, "gpu") || !strcmp(mode, "bench") || (!strcmp(mode, "verify") && ngpu > 0);
#ifndef S3_HAVE_CUDA
    if (want_gpu) mod_fail(RC_INPUT, "mode = %s needs a GPU: this binary was built without CUDA (use build/stencil3d/stencil3d-cuda from 'make stencil3d-cuda')", mode);
#else
    if (want_gpu && ngpu == 0) mod_fail(RC_DEVICE, "mode = %s needs a GPU, and no CUDA device is visible", mode);
    if (want_gpu) k_info = s3_gpu_info;
#endif
    int ki = -1;
    if (!strcmp(mode, "emu") || !strcmp(mode, "gpu")) ki = pick_kernel(&c);

    S3Grid g; s3_grid_init(&g, c.nx, c.ny, c.nz);
    check_host_memory(&c, &g, mode);
    const double cells = (double)c.nx * c.ny * c.nz;
    if (!c.quiet) {
        printf("stencil3d: %s equation, %s stencil (radius %d), %d x %d x %d cells, %s, nt %ld, %s = %g (limit %.6f)\n",
               c.eq, c.stencil, c.rad, c.nx, c.ny, c.nz, MOD_REAL_NAME, c.nt,
               c.eq_id == S3_WAVE ? "courant" : "fo", c.eq_id == S3_WAVE ? c.courant : c.fo, c.limit);
        if (ki >= 0)
            printf("mode: %s, kernel %s, tile %s, %d threads per block, %zu bytes of shared memory\n",
                   mode, k_info(ki)->kind, k_info(ki)->tile, k_info(ki)->nthreads, k_info(ki)->smem);
        else printf("mode: %s\n", mode);
#ifdef _OPENMP
        printf("OpenMP threads: %d\n", omp_get_max_threads());
#endif
        fflush(stdout);
    }
#ifdef S3_HAVE_CUDA
    if (!strcmp(mode, "bench")) { s3_gpu_bench(&g, &c); guard_print_outputs(c.out); mod_finish_stdout(); return RC_OK; }
#endif
    real *A = s3_alloc(&g, "the field u^n"), *B = s3_alloc(&g, "the field u^{n-1}");
    s3_init_field(&g, &c, A + g.org);
    memcpy(B, A, g.total * sizeof(real));   /* wave: at rest, u^{-1} = u^0; both: the same boundary halo */

    if (!strcmp(mode, "verify")) {
        int rc = verify(&c, &g, A, B, want_gpu);
        free(A); free(B);
        mod_finish_stdout();
        return rc ? RC_MISMATCH : RC_OK;
    }

    double t0 = mod_now(), sec;
    if (!strcmp(mode, "gpu")) {
#ifdef S3_HAVE_CUDA
        sec = s3_gpu_run(ki, &g, &c, A + g.org, B + g.org, !c.quiet);
#else
        sec = 0;
#endif
    } else {
        double tl = t0; long nl = 0;
        for (long n = 0; n < c.nt; n++) {
            cpu_like_step(&c, &g, ki, A + g.org, B + g.org);
            real *t = A; A = B; B = t;
            if (!c.quiet && ((n + 1) % c.progress == 0 || n + 1 == c.nt)) {
                double t = mod_now();
                printf("step %7ld/%ld  %10.1f Mcells/s  elapsed %7.2f s\n", n + 1, c.nt, cells * (n + 1 - nl) / (t - tl) / 1e6, t - t0);
                fflush(stdout);
                tl = t; nl = n + 1;
            }
        }
        sec = mod_now() - t0;
    }
    double umax;
    unsigned long long h = s3_checksum(&g, A + g.org, &umax);
    char name[64];
    if (ki >= 0) snprintf(name, sizeof name, "%s %s %s", mode, k_info(ki)->kind, k_info(ki)->tile);
    else snprintf(name, sizeof name, "%s", mode);
    s3_write_outputs(&g, &c, A + g.org, h, name);
    printf("done: %ld steps in %.3f s, %.1f Mcells/s [%s], max|u| = %.6e, checksum %016llx\n",
           c.nt, sec, sec > 0 ? cells * c.nt / sec / 1e6 : 0.0, name, umax, h);
    guard_print_outputs(c.out);
    free(A); free(B);
    mod_finish_stdout();
    return RC_OK;
}
