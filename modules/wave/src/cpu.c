/* cpu.c - C/OpenMP reference back end: one slab, several in-process slabs
 * (parts = N, exercises the same decomposition as the GPU modes), or one
 * slab per MPI rank with host halo exchange overlapped with the interior. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef WAVE_HAVE_MPI
#include <mpi.h>
#endif
#include "wave.h"

void wave_cpu_rows(int nx, real *un, const real *uc, const real *k,
                   const real *gx, const real *gy, int ra, int rb)
{
    #pragma omp parallel for schedule(static)
    for (int y = ra; y < rb; y++) {
        const size_t o = (size_t)y * nx;
        const real *u = uc + o;
        const real *ym4 = u - 4 * (size_t)nx, *ym3 = u - 3 * (size_t)nx, *ym2 = u - 2 * (size_t)nx, *ym1 = u - nx;
        const real *yp1 = u + nx, *yp2 = u + 2 * (size_t)nx, *yp3 = u + 3 * (size_t)nx, *yp4 = u + 4 * (size_t)nx;
        real *out = un + o; const real *kk = k + o; const real gyv = gy[y];
        for (int x = 4; x < nx - 4; x++)
            out[x] = wave_update(u[x], out[x], kk[x], gx[x], gyv,
                                 u[x - 4], u[x - 3], u[x - 2], u[x - 1],
                                 u[x + 1], u[x + 2], u[x + 3], u[x + 4],
                                 ym4[x], ym3[x], ym2[x], ym1[x],
                                 yp1[x], yp2[x], yp3[x], yp4[x]);
    }
}

typedef struct { int p, r0, r1, nloc; real *a, *b, *k; } Slab;
typedef struct {
    const WaveCase *c; const WaveComm *comm;
    int np; Slab *s; real *gx, *gy, *trace;
} Cpu;

#define ROW(sl, l) ((size_t)(l) * c->nx)

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n, sz);
    if (!p) mod_fail(RC_MEMORY, "out of host memory (asked for %.1f MiB)", (double)n * sz / 1048576.0);
    return p;
}

static void inject(const WaveCase *c, Slab *s, real val, int l_lo, int l_hi)
{
    int l = c->src_iy - s->r0 + 4;
    if (val != 0 && c->src_iy >= s->r0 && c->src_iy < s->r1 && l >= l_lo && l < l_hi) {
        real *p = &s->b[(size_t)l * c->nx + c->src_ix];
        *p = *p + val;
    }
}

static void swap(Slab *s) { real *t = s->a; s->a = s->b; s->b = t; }

static void cpu_step(void *st, long n, real srcval)
{
    Cpu *C = st; const WaveCase *c = C->c; (void)n;
    size_t rowb = (size_t)c->nx * sizeof(real);
#ifdef WAVE_HAVE_MPI
    if (C->comm->size > 1) {
        Slab *s = &C->s[0];
        const real *gy = C->gy + (s->r0 - 4);
        int nl = s->nloc, P = C->comm->size, p = C->comm->rank;
        MPI_Datatype T = sizeof(real) == 8 ? MPI_DOUBLE : MPI_FLOAT;
        MPI_Request rq[4]; int nr = 0;
        /* halo rows first */
        int hb_lo = nl < 8 ? 4 + nl : 8, hb_hi = nl < 8 ? 4 : nl;   /* interior = [hb_lo, hb_hi) */
        if (nl < 8) { wave_cpu_rows(c->nx, s->b, s->a, s->k, C->gx, gy, 4, 4 + nl); inject(c, s, srcval, 4, 4 + nl); }
        else {
            wave_cpu_rows(c->nx, s->b, s->a, s->k, C->gx, gy, 4, 8);
            wave_cpu_rows(c->nx, s->b, s->a, s->k, C->gx, gy, nl, nl + 4);
            inject(c, s, srcval, 4, 8); inject(c, s, srcval, nl, nl + 4);
        }
        int cnt = 4 * c->nx;
        if (p > 0) {
            MPI_Irecv(s->b, cnt, T, p - 1, 1, MPI_COMM_WORLD, &rq[nr++]);
            MPI_Isend(s->b + 4 * (size_t)c->nx, cnt, T, p - 1, 0, MPI_COMM_WORLD, &rq[nr++]);
        }
        if (p < P - 1) {
            MPI_Irecv(s->b + (size_t)(nl + 4) * c->nx, cnt, T, p + 1, 0, MPI_COMM_WORLD, &rq[nr++]);
            MPI_Isend(s->b + (size_t)nl * c->nx, cnt, T, p + 1, 1, MPI_COMM_WORLD, &rq[nr++]);
        }
        if (hb_lo < hb_hi) {   /* interior while messages are in flight */
            wave_cpu_rows(c->nx, s->b, s->a, s->k, C->gx, gy, hb_lo, hb_hi);
            inject(c, s, srcval, hb_lo, hb_hi);
        }
        int rc = MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING]; int len; MPI_Error_string(rc, msg, &len);
            mod_fail(RC_DEVICE, "%s:%d: MPI halo exchange between ranks failed: %s", __FILE__, __LINE__, msg);
        }
        swap(s);
        return;
    }
#endif
    for (int i = 0; i < C->np; i++) {
        Slab *s = &C->s[i];
        wave_cpu_rows(c->nx, s->b, s->a, s->k, C->gx, C->gy + (s->r0 - 4), 4, 4 + s->nloc);
        inject(c, s, srcval, 4, 4 + s->nloc);
        swap(s);
    }
    for (int i = 0; i + 1 < C->np; i++) {
        Slab *lo = &C->s[i], *hi = &C->s[i + 1];
        memcpy(hi->a, lo->a + (size_t)lo->nloc * c->nx, 4 * rowb);
        memcpy(lo->a + (size_t)(lo->nloc + 4) * c->nx, hi->a + 4 * (size_t)c->nx, 4 * rowb);
    }
}

static void cpu_record(void *st, long sample)
{
    Cpu *C = st; const WaveCase *c = C->c;
    for (int i = 0; i < C->np; i++) {
        Slab *s = &C->s[i];
        for (int r = 0; r < c->rec_n; r++)
            if (c->rec_iy[r] >= s->r0 && c->rec_iy[r] < s->r1)
                C->trace[(size_t)r * c->nsamp + sample] = s->a[(size_t)(c->rec_iy[r] - s->r0 + 4) * c->nx + c->rec_ix[r]];
    }
}

static void cpu_sync(void *st) { (void)st; }

static void cpu_gather(void *st, real *full)
{
    Cpu *C = st; const WaveCase *c = C->c;
    if (C->comm->size > 1) {
        Slab *s = &C->s[0];
        C->comm->gather_rows(full, s->a + 4 * (size_t)c->nx, c->nx, s->r0, s->r1);
        return;
    }
    memset(full, 0, sizeof(real) * c->nx * (size_t)c->ny);
    for (int i = 0; i < C->np; i++) {
        Slab *s = &C->s[i];
        memcpy(full + (size_t)s->r0 * c->nx, s->a + 4 * (size_t)c->nx, sizeof(real) * s->nloc * (size_t)c->nx);
    }
}

static void cpu_traces(void *st, real *tr)
{
    Cpu *C = st; const WaveCase *c = C->c;
    long n = (long)c->rec_n * c->nsamp;
    if (!n) return;
    if (C->comm->size > 1) {
        double *d = xcalloc((size_t)n, sizeof(double));
        for (long i = 0; i < n; i++) d[i] = C->trace[i];
        C->comm->reduce_sum(d, n);
        if (C->comm->rank == 0) for (long i = 0; i < n; i++) tr[i] = (real)d[i];
        free(d);
    } else memcpy(tr, C->trace, sizeof(real) * n);
}

static void cpu_report(void *st, double sec, long steps) { (void)st; (void)sec; (void)steps; }

static void cpu_destroy(void *st)
{
    Cpu *C = st;
    for (int i = 0; i < C->np; i++) { free(C->s[i].a); free(C->s[i].b); free(C->s[i].k); }
    free(C->s); free(C->gx); free(C->gy); free(C->trace); free(C);
}

int wave_cpu_backend(const WaveCase *c, const WaveComm *comm, WaveBackend *be, char *err, size_t n)
{
    Cpu *C = xcalloc(1, sizeof *C);
    C->c = c; C->comm = comm;
    int P = comm->size > 1 ? comm->size : c->parts;
    if (comm->size > 1 && c->parts != 1) { snprintf(err, n, "parts > 1 is for single-process runs; with MPI every rank holds one slab"); free(C); return -1; }
    if (P > (c->ny - 8) / 4) { snprintf(err, n, "%d slabs are too many for ny = %d: every slab needs at least 4 rows", P, c->ny); free(C); return -1; }
    C->np = comm->size > 1 ? 1 : P;
    C->s = xcalloc(C->np, sizeof(Slab));
    C->gx = xcalloc(c->nx, sizeof(real)); C->gy = xcalloc(c->ny, sizeof(real));
    wave_sponge(c, C->gx, C->gy);
    C->trace = xcalloc((size_t)c->rec_n * c->nsamp + 1, sizeof(real));
    for (int i = 0; i < C->np; i++) {
        Slab *s = &C->s[i];
        s->p = comm->size > 1 ? comm->rank : i;
        wave_split(c->ny, P, s->p, &s->r0, &s->r1);
        s->nloc = s->r1 - s->r0;
        size_t cells = (size_t)(s->nloc + 8) * c->nx;
        s->a = xcalloc(cells, sizeof(real)); s->b = xcalloc(cells, sizeof(real)); s->k = xcalloc(cells, sizeof(real));
        if (wave_fill_k(c, s->k, s->r0 - 4, s->r1 + 4, err, n)) { cpu_destroy(C); return -1; }
        wave_fill_init(c, s->a, s->r0 - 4, s->r1 + 4);
        memcpy(s->b, s->a, cells * sizeof(real));
    }
    if (comm->size > 1) snprintf(be->name, sizeof be->name, "cpu, %d MPI ranks (host halo exchange)", comm->size);
    else if (P > 1) snprintf(be->name, sizeof be->name, "cpu, %d in-process slabs", P);
    else snprintf(be->name, sizeof be->name, "cpu");
    be->st = C; be->step = cpu_step; be->record = cpu_record; be->sync = cpu_sync;
    be->gather = cpu_gather; be->traces = cpu_traces; be->report = cpu_report; be->destroy = cpu_destroy;
    return 0;
}
