/* driver.c - the method of pyramids (1D decomposition along rows), its cost
 * model, the start-up calibration of tau_c and tau_a, and the in-core run.
 *
 * Pass m advances the whole field from level t0 to t0+h (h = n, the last pass
 * the remainder). Slab i owns result rows [a_i, b_i) (res rows, the last one
 * shorter). It uploads rows [a_i - h R, b_i + h R) (clipped to the grid: R is
 * the stencil radius) of every time level, computes step j = 1..h on rows
 * [a_i - (h-j) R, b_i + (h-j) R): the trapezoid shrinks by R rows per side and
 * step, so the rows outside it go stale and are never used. It then downloads
 * its result rows. Neighbouring trapezoids overlap: the overlap is computed
 * twice instead of exchanged (the paper's "pyramids").
 *
 * The host field is updated in place. Slab i+1 still has to upload the old
 * level of rows [b_i - hR, b_i) (the "seam") after slab i has computed the new
 * one, so slab i downloads [a_i, b_i - hR) at once (stream DOWN) and its seam
 * only after upload i+1 (on stream UP, behind it). Streams and events:
 *   UP:   wait down(slot) | upload i | wait comp(i-1) | seam download i-1
 *   COMP: wait up(i) | h steps | record comp(slot)
 *   DOWN: wait comp(i) | download main part of i | record down(slot)
 * with two buffer slots (i % 2), each holding two levels-buffers of cap rows.
 * Without overlap every operation goes to one stream in the same order (the
 * paper's serial setting). The CPU stand-in device executes these streams in
 * random legal orders, which tests that the waits above are sufficient. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ooc.h"
#include "output.h"   /* modules/common: mod_now */

int ooc_res_rows(const OocGeom *g, int n)
{
    int res = g->cap - 2 * n * g->rad;
    if (res >= g->ny) return g->ny;                 /* one slab holds the whole field */
    if (res < n * g->rad || res < 1) return 0;      /* the seam of a slab must lie in the slab */
    return res;
}

int ooc_max_n(const OocGeom *g)
{
    int n = 0;
    while (n < g->nt && ooc_res_rows(g, n + 1) > 0) n++;
    return n;
}

typedef struct { int lo, hi, a, b, seam_lo; } Slab;

static void slab_of(const OocGeom *g, int res, int h, int i, Slab *s)
{
    s->a = i * res;
    s->b = s->a + res < g->ny ? s->a + res : g->ny;
    s->lo = s->a - h * g->rad > 0 ? s->a - h * g->rad : 0;
    s->hi = s->b + h * g->rad < g->ny ? s->b + h * g->rad : g->ny;
    s->seam_lo = s->b == g->ny ? s->b : s->b - h * g->rad;   /* the last slab has no seam */
    if (s->seam_lo < s->a) s->seam_lo = s->a;
}

/* rows computed at step j of h */
static void step_rows(const OocGeom *g, const Slab *s, int h, int j, int *ya, int *yb)
{
    int w = (h - j) * g->rad;
    *ya = s->a - w > s->lo ? s->a - w : s->lo;
    *yb = s->b + w < s->hi ? s->b + w : s->hi;
}

void ooc_model(const OocGeom *g, int n, const OocTau *t, double *serial, double *overlapped, OocStats *st)
{
    OocStats z; memset(&z, 0, sizeof z);
    double ser = 0, ovl = 0;
    const int res = ooc_res_rows(g, n);
    const int ns = (g->ny + res - 1) / res;
    const double L = g->levels, nx = g->nx;
    for (long t0 = 0; t0 < g->nt; t0 += n) {
        const int h = g->nt - t0 < n ? (int)(g->nt - t0) : n;
        double tH = 0, tC = 0, tD = 0, down_done[2] = { 0, 0 }, comp_prev = 0, seam_prev = 0;
        for (int i = 0; i < ns; i++) {
            Slab s; slab_of(g, res, h, i, &s);
            double up = (s.hi - s.lo) * nx * L, down = (s.seam_lo - s.a) * nx * L, seam = (s.b - s.seam_lo) * nx * L, cells = 0;
            for (int j = 1; j <= h; j++) { int ya, yb; step_rows(g, &s, h, j, &ya, &yb); cells += (yb - ya) * nx; }
            double comp = cells * t->a + h * t->launch;
            ser += up * t->d + (down + seam) * t->h + comp;
            /* overlapped: three engines, the dependencies of ooc_run */
            double u0 = tH > down_done[i % 2] ? tH : down_done[i % 2];
            double up_end = u0 + up * t->d2;
            tH = up_end;
            if (i > 0) { double s0 = tH > comp_prev ? tH : comp_prev; tH = s0 + seam_prev * t->h2; }
            double c0 = tC > up_end ? tC : up_end;
            tC = c0 + comp; comp_prev = tC;
            double d0 = tD > tC ? tD : tC;
            tD = d0 + down * t->h2; down_done[i % 2] = tD;
            seam_prev = seam;
            z.up_values += up; z.down_values += down + seam; z.cells += cells; z.launches += h; z.slabs++;
        }
        double e = tH > tC ? tH : tC; if (tD > e) e = tD;
        ovl += e; z.passes++;
    }
    if (serial) *serial = ser;
    if (overlapped) *overlapped = ovl;
    if (st) *st = z;
}

int ooc_best_n(const OocGeom *g, const OocTau *t, int overlap, double *pred)
{
    int best = 1, nmax = ooc_max_n(g); double bt = 1e300;
    for (int n = 1; n <= nmax; n++) {
        double s, o; ooc_model(g, n, t, &s, &o, NULL);
        double v = overlap ? o : s;
        if (v < bt) { bt = v; best = n; }
    }
    if (pred) *pred = bt;
    return best;
}

double ooc_paper_eq4(double K, double cells, double R, double n, double tau_c, double tau_a)
{
    return K * cells * (R - n) / (R - 2 * n) * (2 / n * tau_c + tau_a);
}

double ooc_paper_trivial(double K, double cells, double R, double tau_c, double tau_a)
{
    return K * cells * (2 * (R - 1) / (R - 2) * tau_c + tau_a);
}

/* ---- the pyramid driver ---- */
double ooc_run(OocDev *d, const OocGeom *g, int n, int overlap, real coef, real *u, real *v, int debug_break)
{
    const int res = ooc_res_rows(g, n);
    if (res <= 0) mod_fail(RC_DEVICE, "internal: pyramid height %d does not fit %d buffer rows", n, g->cap);
    const int ns = (g->ny + res - 1) / res;
    const size_t row = (size_t)g->nx * sizeof(real), buf = (size_t)g->cap * row;
    real *B[2][2];
    for (int s = 0; s < 2; s++) for (int l = 0; l < 2; l++) B[s][l] = (real *)d->alloc(d->st, buf);
    const int SU = overlap ? OOC_S_UP : 0, SC = overlap ? OOC_S_COMP : 0, SD = overlap ? OOC_S_DOWN : 0;
    real *host[2] = { u, v };
    double t0 = mod_now();
    for (long tl = 0; tl < g->nt; tl += n) {
        const int h = g->nt - tl < n ? (int)(g->nt - tl) : n;
        int cur = 0;                               /* buffer index holding the newest level after h steps */
        Slab prev; memset(&prev, 0, sizeof prev);
        for (int i = 0; i < ns; i++) {
            const int sl = i % 2;
            Slab s; slab_of(g, res, h, i, &s);
            /* upload both levels (wave) or one (heat) of rows [lo, hi) into slot sl */
            if (!(debug_break == 1)) d->wait(d->st, SU, OOC_E_DOWN + sl);
            if (d->poison) for (int l = 0; l < 2; l++) d->poison(d->st, SU, B[sl][l], buf);
            if (debug_break == 2 && i > 0)         /* wrong: the seam before the upload that reads it */
                for (int l = 0; l < g->levels; l++)
                    d->copy(d->st, SU, host[l] + (size_t)prev.seam_lo * g->nx, B[(i - 1) % 2][l ^ cur] + (size_t)(prev.seam_lo - prev.lo) * g->nx,
                            (size_t)(prev.b - prev.seam_lo) * row, 0);
            for (int l = 0; l < g->levels; l++)
                d->copy(d->st, SU, B[sl][l], host[l] + (size_t)s.lo * g->nx, (size_t)(s.hi - s.lo) * row, 1);
            d->record(d->st, SU, OOC_E_UP + sl);
            /* seam of the previous slab, now that this upload has read the old level */
            if (i > 0 && debug_break != 2) {
                d->wait(d->st, SU, OOC_E_COMP + (i - 1) % 2);
                for (int l = 0; l < g->levels; l++)
                    d->copy(d->st, SU, host[l] + (size_t)prev.seam_lo * g->nx,
                            B[(i - 1) % 2][l ^ cur] + (size_t)(prev.seam_lo - prev.lo) * g->nx,
                            (size_t)(prev.b - prev.seam_lo) * row, 0);
            }
            /* h steps on the shrinking trapezoid; the levels swap buffers each step */
            d->wait(d->st, SC, OOC_E_UP + sl);
            int a = 0;
            for (int j = 1; j <= h; j++) {
                OocStep st = { g->eq, g->nx, g->ny, s.lo, 0, 0, coef, B[sl][a], B[sl][a ^ 1] };
                step_rows(g, &s, h, j, &st.ya, &st.yb);
                d->step(d->st, SC, &st);
                a ^= 1;
            }
            cur = a;                               /* B[.][cur]: level tl+h, B[.][cur^1]: tl+h-1 */
            d->record(d->st, SC, OOC_E_COMP + sl);
            /* result rows except the seam */
            d->wait(d->st, SD, OOC_E_COMP + sl);
            for (int l = 0; l < g->levels; l++)
                if (s.seam_lo > s.a)
                    d->copy(d->st, SD, host[l] + (size_t)s.a * g->nx, B[sl][l ^ cur] + (size_t)(s.a - s.lo) * g->nx,
                            (size_t)(s.seam_lo - s.a) * row, 0);
            d->record(d->st, SD, OOC_E_DOWN + sl);
            prev = s;
        }
        d->sync(d->st);                            /* the next pass reads what this one wrote */
    }
    double sec = mod_now() - t0;
    for (int s = 0; s < 2; s++) for (int l = 0; l < 2; l++) d->release(d->st, B[s][l]);
    return sec;
}

double ooc_incore(OocDev *d, const OocGeom *g, real coef, real *u, real *v)
{
    const size_t bytes = (size_t)g->nx * g->ny * sizeof(real);
    real *A = (real *)d->alloc(d->st, bytes), *Bf = (real *)d->alloc(d->st, bytes);
    d->copy(d->st, 0, A, u, bytes, 1);
    d->copy(d->st, 0, Bf, g->levels == 2 ? v : u, bytes, 1);   /* heat: the frame in both buffers */
    d->sync(d->st);
    double t0 = mod_now();
    for (long n = 0; n < g->nt; n++) {
        OocStep st = { g->eq, g->nx, g->ny, 0, 0, g->ny, coef, A, Bf };
        d->step(d->st, 0, &st);
        real *t = A; A = Bf; Bf = t;
    }
    d->sync(d->st);
    double sec = mod_now() - t0;
    d->copy(d->st, 0, u, A, bytes, 0);
    if (g->levels == 2) d->copy(d->st, 0, v, Bf, bytes, 0);
    d->sync(d->st);
    d->release(d->st, A); d->release(d->st, Bf);
    return sec;
}

/* ---- start-up calibration: tau_c (both directions, alone and together), tau_a, launch ---- */
static double timed_copies(OocDev *d, void *dev, real *hostbuf, size_t bytes, int up, int down, int reps)
{
    double best = 1e300;
    for (int r = 0; r < reps + 1; r++) {
        double t = mod_now();
        if (up) d->copy(d->st, OOC_S_UP, dev, hostbuf, bytes, 1);
        if (down) d->copy(d->st, OOC_S_DOWN, (char *)hostbuf + bytes, (char *)dev + bytes, bytes, 0);
        d->sync(d->st);
        t = mod_now() - t;
        if (r > 0 && t < best) best = t;           /* the first one warms up */
    }
    return best;
}

void ooc_calibrate(OocDev *d, const OocGeom *g, real coef, OocTau *t)
{
    const size_t row = (size_t)g->nx * sizeof(real);
    const int rows = g->cap;
    const size_t half = (size_t)rows * row;
    /* device: two buffers of cap rows (a slot); host: a pinned scratch of 2 x cap rows */
    real *dv = (real *)d->alloc(d->st, 2 * half), *hs = (real *)d->host_alloc(d->st, 2 * half);
    memset(hs, 0, 2 * half);
    const double vals = (double)rows * g->nx;
    t->d = timed_copies(d, dv, hs, half, 1, 0, 3) / vals;
    t->h = timed_copies(d, dv, hs, half, 0, 1, 3) / vals;
    double both = timed_copies(d, dv, hs, half, 1, 1, 3);
    t->d2 = both / vals; t->h2 = both / vals;
    if (t->d2 < t->d) t->d2 = t->d;
    if (t->h2 < t->h) t->h2 = t->h;
    /* compute: full-buffer steps, and one-row steps for the launch cost */
    OocStep full = { g->eq, g->nx, g->ny, 0, 0, rows < g->ny ? rows : g->ny, coef, dv, dv + (size_t)rows * g->nx };
    OocStep one = full; one.ya = one.yb - 1;
    d->step(d->st, OOC_S_COMP, &full); d->sync(d->st);
    const int K = 5, K1 = 20;
    double ts = mod_now();
    for (int k = 0; k < K; k++) d->step(d->st, OOC_S_COMP, &full);
    d->sync(d->st);
    ts = (mod_now() - ts) / K;
    double tl = mod_now();
    for (int k = 0; k < K1; k++) d->step(d->st, OOC_S_COMP, &one);
    d->sync(d->st);
    tl = (mod_now() - tl) / K1;
    t->launch = tl;
    t->a = (ts - tl > 0 ? ts - tl : ts) / ((double)(full.yb - full.ya) * g->nx);
    d->release(d->st, dv); d->host_release(d->st, hs);
}
