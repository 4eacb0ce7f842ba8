/* main.c - wave2d driver: case parsing, process set-up (serial or MPI),
 * host-memory pre-check, time loop, progress, snapshots (PNG + raw), receiver
 * traces, checksum. Exit codes: see modules/common/fail.h and README.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef WAVE_HAVE_MPI
#include <mpi.h>
#define MPI_CHECK(call, what) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) { \
    char m_[MPI_MAX_ERROR_STRING]; int l_; MPI_Error_string(rc_, m_, &l_); \
    mod_fail(RC_DEVICE, "%s:%d: MPI failed while %s: %s", __FILE__, __LINE__, what, m_); } } while (0)
#endif
#include "opts.h"
#include "wave.h"

#ifdef WAVE_HAVE_MPI
static int g_rank = 0, g_mpi = 0;
/* an error on one rank must stop all of them */
static void mpi_exit(int code) { MPI_Abort(MPI_COMM_WORLD, code); exit(code); }
#endif

/* an error every rank detects identically (bad case): rank 0 reports it once */
static void die_all(int code, const char *msg)
{
#ifdef WAVE_HAVE_MPI
    if (g_mpi) {
        if (g_rank == 0) { fprintf(stderr, "%s: error: %s\n", mod_prog(), msg); fflush(stderr); }
        MPI_Finalize();
        exit(code);
    }
#endif
    mod_fail(code, "%s", msg);
}

/* ---- serial communicator ---- */
static void s_bcast(void *b, size_t n) { (void)b; (void)n; }
static void s_gather(real *full, const real *mine, int nx, int r0, int r1)
{ memcpy(full + (size_t)r0 * nx, mine, sizeof(real) * (size_t)(r1 - r0) * nx); }
static void s_reduce(double *b, long n) { (void)b; (void)n; }
static void s_barrier(void) {}
static double s_max(double x) { return x; }

#ifdef WAVE_HAVE_MPI
static int g_ny;
static void m_bcast(void *b, size_t n) { MPI_CHECK(MPI_Bcast(b, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD), "broadcasting start-up data"); }
static void m_gather(real *full, const real *mine, int nx, int r0, int r1)
{
    int size; MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype T = sizeof(real) == 8 ? MPI_DOUBLE : MPI_FLOAT;
    int rows_per_msg = (1 << 28) / nx; if (rows_per_msg < 1) rows_per_msg = 1;
    if (g_rank == 0) {
        memcpy(full + (size_t)r0 * nx, mine, sizeof(real) * (size_t)(r1 - r0) * nx);
        for (int q = 1; q < size; q++) {
            int a, b; wave_split(g_ny, size, q, &a, &b);
            for (int y = a; y < b; y += rows_per_msg) {
                int nr = b - y < rows_per_msg ? b - y : rows_per_msg;
                MPI_CHECK(MPI_Recv(full + (size_t)y * nx, nr * nx, T, q, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "collecting the field on rank 0");
            }
        }
    } else {
        for (int y = r0; y < r1; y += rows_per_msg) {
            int nr = r1 - y < rows_per_msg ? r1 - y : rows_per_msg;
            MPI_CHECK(MPI_Send(mine + (size_t)(y - r0) * nx, nr * nx, T, 0, 7, MPI_COMM_WORLD), "sending the field to rank 0");
        }
    }
}
static void m_reduce(double *b, long n)
{
    for (long o = 0; o < n; o += 1 << 26) {
        int c = (int)(n - o < (1 << 26) ? n - o : (1 << 26));
        if (g_rank == 0) MPI_CHECK(MPI_Reduce(MPI_IN_PLACE, b + o, c, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "collecting receiver traces");
        else MPI_CHECK(MPI_Reduce(b + o, NULL, c, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "collecting receiver traces");
    }
}
static void m_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
static double m_max(double x)
{
    double r = x;
    MPI_CHECK(MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "collecting the run times");
    return r;
}
#endif

/* run the sibling binary of the other precision (before MPI_Init) */
static void switch_precision(char **argv, const char *want)
{
    char self[4096]; ssize_t L = readlink("/proc/self/exe", self, sizeof self - 8);
    if (L <= 0) mod_fail(RC_INPUT, "cannot locate this executable to start the %s-precision build", want);
    self[L] = 0;
    char other[4200];
    if (!strcmp(want, "double")) snprintf(other, sizeof other, "%s-dp", self);
    else {
        snprintf(other, sizeof other, "%s", self);
        size_t n = strlen(other);
        if (n > 3 && !strcmp(other + n - 3, "-dp")) other[n - 3] = 0;
    }
    if (access(other, X_OK)) mod_fail(RC_INPUT, "precision = %s needs the binary '%s', which is missing (build it with 'make wave')", want, other);
    argv[0] = other;
    execv(other, argv);
    mod_fail(RC_INPUT, "cannot start '%s': %s", other, strerror(errno));
}

static void write_traces(const WaveCase *c, const real *tr)
{
    char p[WAVE_STR + 64];
    snprintf(p, sizeof p, "%s/traces.bin", c->out);
    mod_out_file(p, tr, sizeof(real) * c->rec_n * (size_t)c->nsamp);
    snprintf(p, sizeof p, "%s/traces.dat", c->out);
    GuardOut f;
    mod_out_open(&f, p);
    guard_out_printf(&f, "# time[s]");
    for (int r = 0; r < c->rec_n; r++) guard_out_printf(&f, " rec%d(x=%gm)", r, c->rec_ix[r] * c->h);
    guard_out_printf(&f, "\n");
    for (long s = 0; s < c->nsamp && !f.err; s++) {
        guard_out_printf(&f, "%.8g", (s * c->rec_every + 1) * c->dt);
        for (int r = 0; r < c->rec_n; r++) guard_out_printf(&f, " %.8g", (double)tr[(size_t)r * c->nsamp + s]);
        guard_out_printf(&f, "\n");
    }
    mod_out_close(&f);
    /* seismogram image: time downwards, receivers across */
    int rep = c->rec_n < 400 ? (400 + c->rec_n - 1) / c->rec_n : 1;
    int w = c->rec_n * rep, hgt = (int)(c->nsamp < 4000 ? c->nsamp : 4000);
    real *img = malloc(sizeof(real) * (size_t)w * (hgt ? hgt : 1));
    if (!img) mod_fail(RC_MEMORY, "out of host memory for the seismogram image (%d x %d)", w, hgt);
    double m = 0;
    for (long i = 0; i < (long)c->rec_n * c->nsamp; i++) if (fabs((double)tr[i]) > m) m = fabs((double)tr[i]);
    for (int y = 0; y < hgt; y++)
        for (int x = 0; x < w; x++) img[(size_t)y * w + x] = tr[(size_t)(x / rep) * c->nsamp + (long)y * c->nsamp / hgt];
    snprintf(p, sizeof p, "%s/seismogram.png", c->out);
    if (hgt) mod_out_png(p, img, MOD_REAL_IS_DOUBLE, w, hgt, m > 0 ? 0.2 * m : 1);
    free(img);
}

static void write_info(const WaveCase *c, unsigned long long hsh)
{
    char p[WAVE_STR + 64];
    snprintf(p, sizeof p, "%s/info.txt", c->out);
    GuardOut f;
    mod_out_open(&f, p);
    guard_out_printf(&f, "nx %d\nny %d\nh %.17g\ndt %.17g\nnt %ld\ntype %s\nrec_n %d\nnsamp %ld\nrec_every %d\nchecksum %016llx\n",
                     c->nx, c->ny, c->h, c->dt, c->nt, MOD_REAL_NAME, c->rec_n, c->nsamp, c->rec_every, hsh);
    mod_out_close(&f);
}

/* refuse, before any large allocation, a run that cannot fit this host */
static void check_host_memory(const WaveCase *c, const WaveComm *comm, int gpu)
{
    char what[160], err[1024];
    int L = snprintf(what, sizeof what, "grid %d x %d", c->nx, c->ny);
    if ((double)c->rec_n * c->nsamp > (double)c->nx * c->ny)   /* the traces dominate: say so */
        L += snprintf(what + L, sizeof what - L, " with %d receivers x %ld samples", c->rec_n, c->nsamp);
    if (comm->size > 1) snprintf(what + L, sizeof what - L, " (one MPI process's share)");
    if (guard_host_check(wave_host_need(c, comm->size, comm->rank == 0, gpu), what, err, sizeof err))
        mod_fail(RC_MEMORY, "%s", err);
}

int main(int argc, char **argv)
{
    WaveCase c; char err[1024];
    mod_init("wave2d");
    wave_case_defaults(&c);
    if (opts_want_help(argc, argv)) { wave_usage(argv[0]); mod_finish_stdout(); return RC_OK; }
    if (argc < 2) { wave_usage(argv[0]); mod_fail(RC_INPUT, "no case file and no flags given (usage above)"); }
    if (wave_case_args(&c, argc, argv, err, sizeof err)) mod_fail(RC_INPUT, "%s", err);
    if ((!strcmp(c.precision, "double") || !strcmp(c.precision, "float")) && strcmp(c.precision, MOD_REAL_NAME))
        switch_precision(argv, c.precision);

    WaveComm comm = { 0, 1, 0, 1, s_bcast, s_gather, s_reduce, s_barrier, s_max };
#ifdef WAVE_HAVE_MPI
    MPI_CHECK(MPI_Init(&argc, &argv), "starting MPI");
    g_mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &comm.rank); MPI_Comm_size(MPI_COMM_WORLD, &comm.size);
    g_rank = comm.rank;
    if (comm.size > 1) {
        static char prog[48];
        snprintf(prog, sizeof prog, "wave2d (rank %d)", comm.rank);
        mod_init(prog);
        mod_set_exit(mpi_exit);
    }
    MPI_Comm local;
    MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, comm.rank, MPI_INFO_NULL, &local), "finding the ranks on this node");
    MPI_Comm_rank(local, &comm.local_rank); MPI_Comm_size(local, &comm.local_size);
    MPI_Comm_free(&local);
    g_ny = c.ny;
    if (comm.size > 1) { comm.bcast = m_bcast; comm.gather_rows = m_gather; comm.reduce_sum = m_reduce; comm.barrier = m_barrier; comm.max = m_max; }
#endif
    int root = comm.rank == 0;
    if (wave_case_finalize(&c, err, sizeof err)) die_all(RC_INPUT, err);
    if (comm.size > (c.ny - 8) / 4) {
        snprintf(err, sizeof err, "%d MPI ranks are too many for ny = %d: every rank needs at least 4 rows", comm.size, c.ny);
        die_all(RC_INPUT, err);
    }
#ifdef _OPENMP
    if (c.threads > 0) omp_set_num_threads(c.threads);
#endif
    const char *mode = c.mode;
#ifdef WAVE_HAVE_CUDA
    if (!strcmp(mode, "auto")) mode = wave_gpu_count() > 0 ? "gpu" : "cpu";
#else
    if (!strcmp(mode, "auto")) mode = "cpu";
    if (!strcmp(mode, "gpu")) mod_fail(RC_INPUT, "mode = gpu: this binary was built without CUDA (use wave2d-cuda / wave2d-mpi-cuda from 'make wave-cuda')");
#endif
    check_host_memory(&c, &comm, !strcmp(mode, "gpu"));
    if (c.out[0] && root) mod_out_mkdir(c.out);

    WaveBackend be; memset(&be, 0, sizeof be);
#ifdef WAVE_HAVE_CUDA
    if (!strcmp(mode, "gpu")) { if (wave_gpu_backend(&c, &comm, &be, err, sizeof err)) mod_fail(RC_DEVICE, "%s", err); }
    else
#endif
    if (wave_cpu_backend(&c, &comm, &be, err, sizeof err)) mod_fail(RC_INPUT, "%s", err);
    if (root && !c.quiet) {
        wave_case_print(&c);
#ifdef _OPENMP
        printf("mode: %s, %d OpenMP threads per process\n", be.name, omp_get_max_threads());
#else
        printf("mode: %s\n", be.name);
#endif
        fflush(stdout);
    }

    size_t cells, field_bytes;   /* checked products: the ranges keep them small, this keeps them honest */
    if (guard_mul((size_t)c.nx, (size_t)c.ny, &cells) || guard_mul(cells, sizeof(real), &field_bytes))
        mod_fail(RC_MEMORY, "grid %d x %d: the field size overflows a size_t", c.nx, c.ny);
    real *full = NULL, *tr = NULL;
    int need_full = root;
    if (need_full && !(full = malloc(field_bytes))) mod_fail(RC_MEMORY, "out of host memory for the %d x %d field", c.nx, c.ny);
    if (root && c.rec_n && !(tr = calloc((size_t)c.rec_n * c.nsamp + 1, sizeof(real)))) mod_fail(RC_MEMORY, "out of host memory for the traces");

    double interior = (double)(c.nx - 8) * (c.ny - 8);
    /* Timed: the time-stepping loop only (back-end set-up, including NCCL's
     * first connection, is done before; snapshot output inside the loop is
     * subtracted; gather and file output after it are not counted). Ranks
     * start together after a barrier; the rate uses the slowest rank's time. */
    comm.barrier();
    double t0 = mod_now(), t_io = 0, t_last = t0; long n_last = 0;
    for (long n = 0; n < c.nt; n++) {
        be.step(be.st, n, wave_src_value(&c, n));
        if (c.rec_n && n % c.rec_every == 0) be.record(be.st, n / c.rec_every);
        if (c.snap_every && (n + 1) % c.snap_every == 0 && c.out[0]) {
            double a = mod_now();
            be.gather(be.st, full);
            if (root) {
                char p[WAVE_STR + 64];
                if (c.snap_raw) {
                    snprintf(p, sizeof p, "%s/snap_%06ld.bin", c.out, n + 1);
                    mod_out_file(p, full, sizeof(real) * cells);
                }
                if (c.snap_png) {
                    snprintf(p, sizeof p, "%s/snap_%06ld.png", c.out, n + 1);
                    mod_out_png(p, full, MOD_REAL_IS_DOUBLE, c.nx, c.ny, 0);
                }
            }
            t_io += mod_now() - a;
        }
        if ((n + 1) % c.progress == 0 || n + 1 == c.nt) {
            be.sync(be.st);
            double t = mod_now();
            if (root && !c.quiet) {
                double rate = interior * (n + 1 - n_last) / (t - t_last) / 1e6;
                printf("step %7ld/%ld  t = %9.5f s  %10.1f Mcells/s  elapsed %7.2f s\n",
                       n + 1, c.nt, (n + 1) * c.dt, rate, t - t0);
                fflush(stdout);
            }
            t_last = t; n_last = n + 1;
        }
    }
    be.sync(be.st);
    double sec = comm.max(mod_now() - t0 - t_io);
    be.report(be.st, sec, c.nt);
    be.gather(be.st, full);
    if (c.rec_n) be.traces(be.st, tr);
    if (root) {
        unsigned long long hsh = mod_hash(full, sizeof(real) * cells);
        double umax = 0;
        for (size_t i = 0; i < cells; i++) if (fabs((double)full[i]) > umax) umax = fabs((double)full[i]);
        if (c.out[0]) {
            char p[WAVE_STR + 64];
            if (c.write_final) {
                snprintf(p, sizeof p, "%s/final.bin", c.out);
                mod_out_file(p, full, sizeof(real) * cells);
            }
            if (c.rec_n && c.traces) write_traces(&c, tr);
            write_info(&c, hsh);
        }
        printf("done: %ld steps in %.3f s, %.1f Mcells/s [%s], max|u| = %.6e, checksum %016llx\n",
               c.nt, sec, sec > 0 ? interior * c.nt / sec / 1e6 : 0.0, be.name, umax, hsh);
        guard_print_outputs(c.out);
        mod_finish_stdout();
    }
    be.destroy(be.st);
    free(full); free(tr);
    wave_case_free(&c);
#ifdef WAVE_HAVE_MPI
    MPI_Finalize();
#endif
    return RC_OK;
}
