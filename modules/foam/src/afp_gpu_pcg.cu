/* afp_gpu_pcg.cu - the GPU path's solve (see afp_gpu.h): OpenFOAM's PCG
 * loop (PCG.C of v1912, as afp_cpu.c) with fused kernels: the
 * solution/residual update also forms |r| and, with the diagonal
 * preconditioner, w = r/D and w.r for the next iteration (2 global sums per
 * iteration instead of 3); y = A x overlaps the interface exchange with the
 * local product. */
#include <math.h>
#include <stdlib.h>
#include "afp_gpu.h"
#include "afp_gpu_tree.cuh"

#define VSMALL 1.0e-300
#define SMALL_ 1.0e-20
#define GREAT_ 1.0e20

/* ---- kernels ----------------------------------------------------------------- */
/* y = D x + (L + U) x, in OpenFOAM's order; optionally the dot y.x (no interfaces) */
template <bool DOT>
__global__ void k_spmv(int n, const int *__restrict__ rowptr, const int *__restrict__ col, const double *__restrict__ val,
                       const double *__restrict__ diag, const double *__restrict__ x, double *__restrict__ y, double *partials)
{
    double v[1] = { 0.0 };
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        double xr = x[r];
        double s = diag[r] * xr;
        const int k1 = rowptr[r + 1];
        for (int k = rowptr[r]; k < k1; k++) s += val[k] * x[col[k]];
        y[r] = s;
        if (DOT) v[0] += s * xr;
    }
    if (DOT) block_sums<1>(v, partials);
}
/* rA = b - wA; normFactor terms with tmp = sumA*avg; |rA| */
__global__ void k_init(int n, const double *b, const double *wA, const double *sumA, double avg, double *rA, double *partials)
{
    double v[2] = { 0.0, 0.0 };
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double r = b[i] - wA[i];
        rA[i] = r;
        double t = sumA[i] * avg;
        v[0] += fabs(wA[i] - t) + fabs(b[i] - t);
        v[1] += fabs(r);
    }
    block_sums<2>(v, partials);
}
/* w = rD r; w.r */
__global__ void k_precond_diag(int n, const double *rD, const double *r, double *w, double *partials)
{
    double v[1] = { 0.0 };
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double x = rD[i] * r[i];
        w[i] = x;
        v[0] += x * r[i];
    }
    block_sums<1>(v, partials);
}
__global__ void k_pcopy(int n, const double *w, double *p)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = w[i];
}
__global__ void k_pupdate(int n, const double *w, double beta, double *p)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = w[i] + beta * p[i];
}
/* psi += alpha p; r -= alpha w; |r|; with DIAG also w = rD r and w.r for the next iteration */
template <bool DIAG>
__global__ void k_update(int n, double alpha, const double *__restrict__ p, double *__restrict__ w, double *__restrict__ psi,
                         double *__restrict__ r, const double *__restrict__ rD, double *partials)
{
    double v[2] = { 0.0, 0.0 };
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        psi[i] += alpha * p[i];
        double ri = r[i] - alpha * w[i];
        r[i] = ri;
        v[0] += fabs(ri);
        if (DIAG) { double x = rD[i] * ri; w[i] = x; v[1] += x * ri; }
    }
    block_sums<2>(v, partials);
}
/* Chebyshev: d = rD r / theta; w = d */
__global__ void k_cheb0(int n, const double *rD, const double *r, double theta, double *d, double *w)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double x = rD[i] * r[i] / theta;
        d[i] = x; w[i] = x;
    }
}
/* d = a d + b rD (r - Az); w += d */
__global__ void k_cheb1(int n, double a, double b, const double *rD, const double *r, const double *az, double *d, double *w)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double x = a * d[i] + b * (rD[i] * (r[i] - az[i]));
        d[i] = x; w[i] += x;
    }
}

/* ---- y = A x with the interfaces (x, y device vectors) --------------------- */
static double spmv_bytes(const afp_gpu_matrix *m) { return 4.0 * (m->n + 1) + 12.0 * m->nnz + 24.0 * m->n; }

/* the local product between the start and the finish of the exchange */
static int amul_exchanged(afp_gpu *g, afp_gpu_matrix *m, const double *x, double *y, int fuse_dot, MPI_Request *req)
{
    const int nb = nblocks(m->n);
    AFP_TRY(afp_gpu_exchange_start(g, m, x, req));
    if (fuse_dot) k_spmv<true><<<nb, BLOCK, 0, g->s>>>(m->n, m->rowptr, m->col, m->val, m->diag, x, y, g->part);
    else k_spmv<false><<<nb, BLOCK, 0, g->s>>>(m->n, m->rowptr, m->col, m->val, m->diag, x, y, g->part);
    AFP_LAUNCH_CHECK("k_spmv");
    m->bytes_acc += spmv_bytes(m);
    return afp_gpu_exchange_finish(g, m, y, req);
}

/* y = A x; with dot != NULL also y.x (summed over the ranks): formed by the
 * product itself when there are no interfaces and the sums are the tree's */
static int amul(afp_gpu *g, afp_gpu_matrix *m, const double *x, double *y, double *dot)
{
    MPI_Request stackreq[32], *req = stackreq;
    if (2 * m->niface > 32) {
        req = (MPI_Request *)malloc(sizeof(MPI_Request) * 2 * (size_t)m->niface);
        if (!req) return AFP_FAIL("out of host memory");
    }
    const int fuse_dot = dot && m->nif == 0 && !g->seq;
    int rc = amul_exchanged(g, m, x, y, fuse_dot, req);
    if (req != stackreq) free(req);
    if (rc || !dot) return rc;
    if (fuse_dot) return afp_gpu_finish_sums(g, nblocks(m->n), 1, dot);
    if (!g->seq) m->bytes_acc += 16.0 * m->n;
    return afp_gpu_dot(g, m->n, y, x, dot);   /* gSumProd(wA, pA) */
}

/* w = M^-1 r and w.r (Chebyshev; the diagonal one is fused elsewhere) */
static int precond_cheb(afp_gpu *g, afp_gpu_matrix *m, const afp_controls *c, double *wr)
{
    const int n = m->n, nb = nblocks(n);
    const double lmax = m->lmax, lmin = lmax / c->cheb_ratio;
    const double theta = 0.5 * (lmax + lmin), delta = 0.5 * (lmax - lmin), sigma = theta / delta;
    double rho = 1.0 / sigma;
    k_cheb0<<<nb, BLOCK, 0, g->s>>>(n, m->rD, m->rA, theta, m->t0, m->wA);
    AFP_LAUNCH_CHECK("k_cheb0");
    m->bytes_acc += 32.0 * n;
    for (int j = 1; j < c->cheb_degree; j++) {
        const double rho1 = 1.0 / (2.0 * sigma - rho);
        AFP_TRY(amul(g, m, m->wA, m->t1, NULL));
        k_cheb1<<<nb, BLOCK, 0, g->s>>>(n, rho1 * rho, 2.0 * rho1 / delta, m->rD, m->rA, m->t1, m->t0, m->wA);
        AFP_LAUNCH_CHECK("k_cheb1");
        m->bytes_acc += 56.0 * n;
        rho = rho1;
    }
    if (!g->seq) m->bytes_acc += 16.0 * n;
    return afp_gpu_dot(g, n, m->wA, m->rA, wr);
}

static int conv(double fin, double init, const afp_controls *c)
{
    return fin < c->tolerance || (c->rel_tol > SMALL_ && fin < c->rel_tol * init);
}

/* ---- the solve --------------------------------------------------------------- */
int afp_gpu_solve(afp_gpu *g, const afp_system *s, const afp_controls *c, const char *field,
                  double *psi_h, const double *source, afp_result *res)
{
    const double t0 = afp_wtime();
    if (!g) return AFP_FAIL("out of host memory for the GPU path's state");
    AFP_TRY(afp_gpu_init(g));
    if (g->mpi && (s->nranks != g->nranks || s->rank != g->rank))
        return AFP_FAIL("rank %d of %d in OpenFOAM's communicator is rank %d of %d in MPI_COMM_WORLD", s->rank, s->nranks, g->rank, g->nranks);
    for (int i = 0; i < s->niface; i++)
        if (s->ifaces[i].neighbour < 0 || s->ifaces[i].neighbour >= g->nranks)
            return AFP_FAIL("interface %d: neighbour rank %d is not a processor of this run", i, s->ifaces[i].neighbour);
    if (g->mpi && g->nranks > 1) AFP_TRY(afp_gpu_pick_exchange(g, c->exchange));
    if (c->timing) AFP_TRY(afp_gpu_measure_copy_bw(g));
    g->seq = c->reduction == AFP_REDUCE_SEQUENTIAL;

    /* the device matrix of this field: reused when the addressing is the same */
    res->uploaded_structure = 0;
    afp_gpu_matrix *m = afp_gpu_matrix_of(g, s, c, field, &res->uploaded_structure);
    if (!m) return -1;
    AFP_TRY(afp_gpu_upload_values(g, m, s, c, psi_h, source));

    const int n = m->n, nb = nblocks(n);
    const int diagp = c->precond == AFP_PRECOND_DIAGONAL;
    double v[2];
    /* wA = A psi; rA = b - wA; normFactor; |rA| */
    AFP_TRY(amul(g, m, m->psi, m->wA, NULL));
    AFP_TRY(afp_gpu_sum(g, n, m->psi, v));
    double sn[2] = { v[0], (double)n };
    if (g->mpi && g->nranks > 1) { double nn = (double)n; AFP_TRY(afp_gpu_allsum_host(g, &nn, 1)); sn[1] = nn; }
    const double avg = sn[1] > 0 ? sn[0] / sn[1] : 0.0;
    k_init<<<nb, BLOCK, 0, g->s>>>(n, m->b, m->wA, m->sumA, avg, m->rA, g->part);
    AFP_LAUNCH_CHECK("k_init");
    if (g->seq) AFP_TRY(afp_gpu_seq_sums(g, SEQ_INIT, n, m->wA, m->b, m->sumA, avg, v));
    else AFP_TRY(afp_gpu_finish_sums(g, nb, 2, v));
    const double nf = v[0] + SMALL_;
    res->initial = res->final = v[1] / nf;
    res->iterations = 0; res->singular = 0;
    int it = 0;
    double t_loop0 = afp_wtime();
    m->bytes_acc = 0;
    if (c->min_iter > 0 || !conv(res->final, res->initial, c)) {
        double wArA = GREAT_, wArAold, next_wr = 0.0;
        if (diagp) {
            k_precond_diag<<<nb, BLOCK, 0, g->s>>>(n, m->rD, m->rA, m->wA, g->part);
            AFP_LAUNCH_CHECK("k_precond_diag");
            if (g->seq) AFP_TRY(afp_gpu_seq_sums(g, SEQ_DOT, n, m->wA, m->rA, NULL, 0.0, &next_wr));
            else AFP_TRY(afp_gpu_finish_sums(g, nb, 1, &next_wr));
        }
        m->bytes_acc = 0;
        t_loop0 = afp_wtime();
        do {
            wArAold = wArA;
            if (diagp) wArA = next_wr;              /* w = rA/D and w.r formed by the last update */
            else AFP_TRY(precond_cheb(g, m, c, &wArA));
            if (it == 0) k_pcopy<<<nb, BLOCK, 0, g->s>>>(n, m->wA, m->pA);
            else k_pupdate<<<nb, BLOCK, 0, g->s>>>(n, m->wA, wArA / wArAold, m->pA);
            AFP_LAUNCH_CHECK("k_pcopy/k_pupdate");
            m->bytes_acc += 24.0 * n;
            double wApA;
            AFP_TRY(amul(g, m, m->pA, m->wA, &wApA));
            if (fabs(wApA) / nf < VSMALL) { res->singular = 1; break; }
            const double alpha = wArA / wApA;
            if (diagp) k_update<true><<<nb, BLOCK, 0, g->s>>>(n, alpha, m->pA, m->wA, m->psi, m->rA, m->rD, g->part);
            else k_update<false><<<nb, BLOCK, 0, g->s>>>(n, alpha, m->pA, m->wA, m->psi, m->rA, m->rD, g->part);
            AFP_LAUNCH_CHECK("k_update");
            m->bytes_acc += diagp ? 64.0 * n : 48.0 * n;
            if (g->seq) AFP_TRY(afp_gpu_seq_sums(g, diagp ? SEQ_MAGDOT : SEQ_MAG, n, m->rA, m->wA, NULL, 0.0, v));
            else AFP_TRY(afp_gpu_finish_sums(g, nb, 2, v));
            res->final = v[0] / nf;
            next_wr = v[1];
        } while ((++it < c->max_iter && !conv(res->final, res->initial, c)) || it < c->min_iter);
    }
    const double t_loop = afp_wtime() - t_loop0;
    res->iterations = it;
    AFP_CUDA_CHECK(cudaMemcpyAsync(psi_h, m->psi, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost, g->s),
                   "fetching the solution");
    AFP_CUDA_CHECK(cudaStreamSynchronize(g->s), "solving");
    res->t_solve = afp_wtime() - t0;
    res->t_iter = it > 0 ? t_loop / it : 0.0;
    res->bytes_iter = it > 0 ? m->bytes_acc / it : 0.0;
    res->copy_gbs = g->copy_gbs;
    res->exchange = (g->mpi && g->nranks > 1) ? afp_gpu_exchange_name(g) : "none";
    res->device = g->device;
    return 0;
}
