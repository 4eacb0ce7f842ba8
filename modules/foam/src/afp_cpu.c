/* afp_cpu.c - the CPU path of adiflowPCG: OpenFOAM's PCG (v1912 PCG.C) with
 * its normalisation factor (lduMatrix::solver::normFactor) and convergence
 * test (SolverPerformance::checkConvergence), operation for operation in the
 * same order, so that with the diagonal preconditioner the residuals agree
 * with OpenFOAM's PCG + DIAGONAL to the last bit on one rank (and to the
 * rounding of the global sums on several). The coupled interfaces and the
 * global sums go through the caller's hooks (OpenFOAM's own interface updates
 * and reductions). Compile without FMA contraction (-ffp-contract=off) and
 * without -ffast-math, like OpenFOAM. With reduction TREE (afp.h) the local
 * sums are formed in the GPU path's order instead: the GPU path's default,
 * reproduced here to check it bit for bit. */
#include <math.h>
#include <stdlib.h>
#include "afp.h"

#define VSMALL 1.0e-300   /* doubleScalarVSMALL */
#define SMALL_ 1.0e-20    /* solverPerformance::small_ */
#define GREAT_ 1.0e20     /* solverPerformance::great_ */

void afp_ldu_amul(const afp_system *s, const double *x, double *y)
{
    const int n = s->n, nf = s->nfaces;
    const int *l = s->lower, *u = s->upper;
    const double *d = s->diag, *up = s->upper_coef, *lo = s->lower_coef;
    for (int c = 0; c < n; c++) y[c] = d[c] * x[c];
    for (int f = 0; f < nf; f++) {
        y[u[f]] += lo[f] * x[l[f]];
        y[l[f]] += up[f] * x[u[f]];
    }
}

typedef struct cpu_ctx {
    const afp_system *s;
    const afp_controls *c;
    const afp_cpu_hooks *h;
    double *const *v;
    double *rD;            /* 1/diag */
    double lmax;           /* Chebyshev: upper bound of the spectrum of D^-1 A */
    double *terms;         /* reduction TREE: the terms of one sum */
} cpu_ctx;

/* reduction TREE: the local sum of t[0..n-1] in the GPU path's order (afp.h):
 * thread j of block b adds t[b*B + j], t[b*B + j + nb*B], ... from 0; each
 * block halves its B values in shared memory; one block then adds the nb
 * block sums (thread j: j, j + B, ...) and halves them the same way */
static double tree_sum(int n, const double *t)
{
    enum { B = AFP_TREE_BLOCK };
    int nb = (n + B - 1) / B;
    if (nb < 1) nb = 1;
    if (nb > AFP_TREE_MAXBLOCKS) nb = AFP_TREE_MAXBLOCKS;
    double part[AFP_TREE_MAXBLOCKS], sh[B];
    for (int b = 0; b < nb; b++) {
        for (int j = 0; j < B; j++) {
            double v = 0.0;
            for (long i = (long)b * B + j; i < n; i += (long)nb * B) v += t[i];
            sh[j] = v;
        }
        for (int h = B / 2; h > 0; h >>= 1)
            for (int j = 0; j < h; j++) sh[j] += sh[j + h];
        part[b] = sh[0];
    }
    for (int j = 0; j < B; j++) {
        double a = 0.0;
        for (int i = j; i < nb; i += B) a += part[i];
        sh[j] = a;
    }
    for (int h = B / 2; h > 0; h >>= 1)
        for (int j = 0; j < h; j++) sh[j] += sh[j + h];
    return sh[0];
}

static void amul(const cpu_ctx *k, int xs, int ys)
{
    k->h->iface_init(k->h->ctx, xs, ys);
    afp_ldu_amul(k->s, k->v[xs], k->v[ys]);
    k->h->iface_update(k->h->ctx, xs, ys);
}

static double gsum1(const cpu_ctx *k, double x) { k->h->allsum(k->h->ctx, &x, 1); return x; }

static double gsum_prod(const cpu_ctx *k, const double *a, const double *b)
{
    double r = 0.0;
    if (k->terms) {
        for (int i = 0; i < k->s->n; i++) k->terms[i] = a[i] * b[i];
        r = tree_sum(k->s->n, k->terms);
    } else {
        for (int i = 0; i < k->s->n; i++) r += a[i] * b[i];
    }
    return gsum1(k, r);
}

static double gsum_mag(const cpu_ctx *k, const double *a)
{
    double r = 0.0;
    if (k->terms) {
        for (int i = 0; i < k->s->n; i++) k->terms[i] = fabs(a[i]);
        r = tree_sum(k->s->n, k->terms);
    } else {
        for (int i = 0; i < k->s->n; i++) r += fabs(a[i]);
    }
    return gsum1(k, r);
}

/* lduMatrix::sumA: row sums, the interface coefficients subtracted */
static void sum_a(const afp_system *s, double *t)
{
    for (int c = 0; c < s->n; c++) t[c] = s->diag[c];
    for (int f = 0; f < s->nfaces; f++) {
        t[s->upper[f]] += s->lower_coef[f];
        t[s->lower[f]] += s->upper_coef[f];
    }
    for (int i = 0; i < s->niface; i++) {
        const afp_iface *q = &s->ifaces[i];
        for (int f = 0; f < q->nfaces; f++) t[q->face_cells[f]] -= q->coeffs[f];
    }
}

/* Gershgorin bound of D^-1 A over all ranks: each rank's bound goes into its
 * slot of an nranks vector, the hook sums the vectors, the maximum is taken */
static double gershgorin(const cpu_ctx *k)
{
    const afp_system *s = k->s;
    double *row = calloc((size_t)s->n, sizeof *row);
    if (!row) return -1.0;
    for (int f = 0; f < s->nfaces; f++) {
        row[s->upper[f]] += fabs(s->lower_coef[f]);
        row[s->lower[f]] += fabs(s->upper_coef[f]);
    }
    for (int i = 0; i < s->niface; i++) {
        const afp_iface *q = &s->ifaces[i];
        for (int f = 0; f < q->nfaces; f++) row[q->face_cells[f]] += fabs(q->coeffs[f]);
    }
    double m = 0.0;
    for (int c = 0; c < s->n; c++) {
        double g = 1.0 + row[c] / fabs(s->diag[c]);
        if (g > m) m = g;
    }
    free(row);
    int nr = s->nranks > 0 ? s->nranks : 1;
    double *all = calloc((size_t)nr, sizeof *all);
    if (!all) return -1.0;
    all[s->rank] = m;
    k->h->allsum(k->h->ctx, all, nr);
    m = 0.0;
    for (int r = 0; r < nr; r++) if (all[r] > m) m = all[r];
    free(all);
    return m;
}

/* w = M^-1 r */
static void precondition(const cpu_ctx *k, int ws, int rs)
{
    const int n = k->s->n;
    double *w = k->v[ws];
    const double *r = k->v[rs];
    const double *rD = k->rD;
    if (k->c->precond == AFP_PRECOND_DIAGONAL) {
        for (int i = 0; i < n; i++) w[i] = rD[i] * r[i];
        return;
    }
    /* Chebyshev polynomial of degree m in D^-1 A on [lmax/ratio, lmax],
     * started from zero: a fixed symmetric positive operator (z = p(D^-1 A) D^-1 r) */
    const double lmax = k->lmax, lmin = lmax / k->c->cheb_ratio;
    const double theta = 0.5 * (lmax + lmin), delta = 0.5 * (lmax - lmin);
    const double sigma = theta / delta;
    double rho = 1.0 / sigma;
    double *d = k->v[AFP_SLOT_T0], *az = k->v[AFP_SLOT_T1];
    for (int i = 0; i < n; i++) { d[i] = rD[i] * r[i] / theta; w[i] = d[i]; }
    for (int j = 1; j < k->c->cheb_degree; j++) {
        const double rho1 = 1.0 / (2.0 * sigma - rho);
        const double a = rho1 * rho, b = 2.0 * rho1 / delta;
        amul(k, ws, AFP_SLOT_T1);
        for (int i = 0; i < n; i++) {
            d[i] = a * d[i] + b * (rD[i] * (r[i] - az[i]));
            w[i] += d[i];
        }
        rho = rho1;
    }
}

static int conv(double fin, double init, const afp_controls *c)
{
    return fin < c->tolerance || (c->rel_tol > SMALL_ && fin < c->rel_tol * init);
}

int afp_cpu_solve(const afp_system *s, const afp_controls *c, const afp_cpu_hooks *h,
                  double *const v[AFP_NSLOTS], const double *source, afp_result *res)
{
    const double t0 = afp_wtime();
    const int n = s->n;
    cpu_ctx k = { s, c, h, v, NULL, 0.0, NULL };
    if (c->reduction == AFP_REDUCE_TREE) {
        k.terms = malloc((size_t)(n > 0 ? n : 1) * sizeof *k.terms);
        if (!k.terms) return AFP_FAIL("out of host memory for %d cells", n);
    }
    double *psi = v[AFP_SLOT_PSI], *wA = v[AFP_SLOT_WA], *pA = v[AFP_SLOT_PA], *rA = v[AFP_SLOT_RA];
    res->iterations = 0; res->singular = 0; res->exchange = "OpenFOAM interfaces";
    res->uploaded_structure = 0; res->bytes_iter = 0; res->copy_gbs = 0; res->device = -1;

    double wArA = GREAT_, wArAold = wArA;
    amul(&k, AFP_SLOT_PSI, AFP_SLOT_WA);
    for (int i = 0; i < n; i++) rA[i] = source[i] - wA[i];

    /* normFactor: tmp = sumA * gAverage(psi); sum |A psi - tmp| + |source - tmp| */
    sum_a(s, pA);
    double sn[2] = { 0.0, (double)n };
    if (k.terms) sn[0] = tree_sum(n, psi);
    else for (int i = 0; i < n; i++) sn[0] += psi[i];
    h->allsum(h->ctx, sn, 2);
    const double avg = sn[1] > 0 ? sn[0] / sn[1] : 0.0;
    double nf = 0.0;
    for (int i = 0; i < n; i++) {
        pA[i] *= avg;
        const double t = fabs(wA[i] - pA[i]) + fabs(source[i] - pA[i]);
        if (k.terms) k.terms[i] = t; else nf += t;
    }
    if (k.terms) nf = tree_sum(n, k.terms);
    nf = gsum1(&k, nf) + SMALL_;

    res->initial = res->final = gsum_mag(&k, rA) / nf;
    int rc = 0;
    if (c->min_iter > 0 || !conv(res->final, res->initial, c)) {
        k.rD = malloc((size_t)(n > 0 ? n : 1) * sizeof *k.rD);
        if (!k.rD) { free(k.terms); return AFP_FAIL("out of host memory for %d cells", n); }
        for (int i = 0; i < n; i++) k.rD[i] = 1.0 / s->diag[i];
        if (c->precond == AFP_PRECOND_CHEBYSHEV) {
            k.lmax = gershgorin(&k);
            if (k.lmax <= 0) { free(k.rD); free(k.terms); return AFP_FAIL("out of host memory for %d cells", n); }
        }
        int it = 0;
        do {
            wArAold = wArA;
            precondition(&k, AFP_SLOT_WA, AFP_SLOT_RA);
            wArA = gsum_prod(&k, wA, rA);
            if (it == 0) {
                for (int i = 0; i < n; i++) pA[i] = wA[i];
            } else {
                const double beta = wArA / wArAold;
                for (int i = 0; i < n; i++) pA[i] = wA[i] + beta * pA[i];
            }
            amul(&k, AFP_SLOT_PA, AFP_SLOT_WA);
            const double wApA = gsum_prod(&k, wA, pA);
            if (fabs(wApA) / nf < VSMALL) { res->singular = 1; break; }
            const double alpha = wArA / wApA;
            for (int i = 0; i < n; i++) {
                psi[i] += alpha * pA[i];
                rA[i] -= alpha * wA[i];
            }
            res->final = gsum_mag(&k, rA) / nf;
        } while ((++it < c->max_iter && !conv(res->final, res->initial, c)) || it < c->min_iter);
        res->iterations = it;
        free(k.rD);
    }
    free(k.terms);
    res->t_solve = afp_wtime() - t0;
    res->t_iter = res->iterations > 0 ? res->t_solve / res->iterations : 0.0;
    return rc;
}
