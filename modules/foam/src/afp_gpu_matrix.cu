/* afp_gpu_matrix.cu - the device matrix of a field (see afp_gpu.h).
 *  - It stays on the device between calls, per field: when the LDU
 *    addressing (and the interfaces' cells and neighbours) hash to the same
 *    key as last time, only the values (diagonal, face and interface
 *    coefficients) are uploaded and converted.
 *  - LDU -> CSR on the device: every face gives two entries (row u[f]: the
 *    lower coefficient at column l[f]; row l[f]: the upper coefficient at
 *    column u[f]); a stable radix sort by row keeps the face order within a
 *    row, which is the order in which OpenFOAM's Amul adds them, so the local
 *    product equals OpenFOAM's to the last bit (no FMA contraction here).
 *  - Processor interfaces: the interface faces packed in interface order,
 *    and per row the entries in OpenFOAM's (interface, face) order. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afp_gpu.h"
#include "afp_gpu_tree.cuh"

/* ---- kernels: the CSR structure, then the values of each call ----------- */
__global__ void k_count(int nf, const int *l, const int *u, int *cnt)
{
    for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < nf; f += gridDim.x * blockDim.x) {
        atomicAdd(&cnt[u[f]], 1);
        atomicAdd(&cnt[l[f]], 1);
    }
}
__global__ void k_keys(int nf, const int *l, const int *u, int *key, int *ent)
{
    for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < nf; f += gridDim.x * blockDim.x) {
        key[2 * f] = u[f];     ent[2 * f] = 2 * f;          /* row u[f]: lower coef, column l[f] */
        key[2 * f + 1] = l[f]; ent[2 * f + 1] = 2 * f + 1;  /* row l[f]: upper coef, column u[f] */
    }
}
__global__ void k_cols(int nnz, const int *ent, const int *l, const int *u, int *col)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) {
        int e = ent[k], f = e >> 1;
        col[k] = (e & 1) ? u[f] : l[f];
    }
}
/* values of this call: CSR values from the face coefficients; row sums (lduMatrix::sumA); 1/D */
__global__ void k_values(int n, const int *rowptr, const int *src, const double *lo, const double *up,
                         const double *diag, double *val, double *sumA, double *rD)
{
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        double s = diag[r];
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++) {
            int e = src[k];
            double v = (e & 1) ? up[e >> 1] : lo[e >> 1];
            val[k] = v;
            s += v;
        }
        sumA[r] = s;
        rD[r] = 1.0 / diag[r];
    }
}
__global__ void k_iface_sumA(int nirow, const int *irows, const int *iptr, const double *icoef, double *sumA)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < nirow; j += gridDim.x * blockDim.x) {
        double s = sumA[irows[j]];
        for (int k = iptr[j]; k < iptr[j + 1]; k++) s -= icoef[k];
        sumA[irows[j]] = s;
    }
}
/* Gershgorin bound of D^-1 A: max over rows of 1 + sum|a_ij| / |a_ii| (interfaces added later) */
__global__ void k_gersh(int n, const int *rowptr, const double *val, const double *diag, double *g)
{
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++) s += fabs(val[k]);
        g[r] = s;
    }
}
__global__ void k_gersh_iface(int nirow, const int *irows, const int *iptr, const double *icoef, double *g)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < nirow; j += gridDim.x * blockDim.x) {
        double s = g[irows[j]];
        for (int k = iptr[j]; k < iptr[j + 1]; k++) s += fabs(icoef[k]);
        g[irows[j]] = s;
    }
}
__global__ void k_gersh_max(int n, const double *g, const double *diag, double *partials)
{
    double m = 0.0;
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        double v = 1.0 + g[r] / fabs(diag[r]);
        m = v > m ? v : m;
    }
    __shared__ double sh[BLOCK];
    sh[threadIdx.x] = m;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && sh[threadIdx.x + s] > sh[threadIdx.x]) sh[threadIdx.x] = sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = sh[0];
}
__global__ void k_max_final(const double *partials, int nb, double *out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        double m = 0.0;
        for (int i = 0; i < nb; i++) m = partials[i] > m ? partials[i] : m;
        out[0] = m;
    }
}

/* ---- structure ------------------------------------------------------------ */
void afp_gpu_matrix_free(afp_gpu_matrix *m)
{
    void *d[] = { m->rowptr, m->col, m->src, m->val, m->diag, m->rD, m->sumA, m->up, m->lo, m->ifc, m->irows, m->iptr,
                  m->islot, m->icoef, m->sendb, m->recvb, m->psi, m->b, m->wA, m->pA, m->rA, m->t0, m->t1 };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) if (d[i]) cudaFree(d[i]);
    if (m->h_send) cudaFreeHost(m->h_send);
    if (m->h_recv) cudaFreeHost(m->h_recv);
    free(m->h_nb); free(m->h_tag); free(m->h_off); free(m->h_cnt); free(m->h_perm); free(m->h_icoef);
    memset(m, 0, sizeof *m);
}

static uint64_t sys_key(const afp_system *s)
{
    uint64_t h = AFP_HASH0;
    int hdr[4] = { s->n, s->nfaces, s->niface, s->lower_coef == s->upper_coef };
    h = afp_hash(h, hdr, sizeof hdr);
    h = afp_hash(h, s->lower, sizeof(int) * (size_t)s->nfaces);
    h = afp_hash(h, s->upper, sizeof(int) * (size_t)s->nfaces);
    for (int i = 0; i < s->niface; i++) {
        int q[3] = { s->ifaces[i].nfaces, s->ifaces[i].neighbour, s->ifaces[i].tag };
        h = afp_hash(h, q, sizeof q);
        h = afp_hash(h, s->ifaces[i].face_cells, sizeof(int) * (size_t)s->ifaces[i].nfaces);
    }
    return h;
}

#define DMALLOC(p, cnt) AFP_CUDA_CHECK(cudaMalloc((void **)&(p), sizeof(*(p)) * (size_t)((cnt) > 0 ? (cnt) : 1)), \
                                       "allocating the device matrix")

/* the device temporaries of the LDU -> CSR conversion */
typedef struct { int *d_l, *d_u, *keys, *keys2, *ent2, *cnt; void *tmp; } csr_scratch;

/* LDU -> CSR: counts, scan, a stable sort of the 2 nf entries by row */
static int csr_convert(afp_gpu *g, afp_gpu_matrix *m, const afp_system *s, csr_scratch *t)
{
    const int n = s->n, nf = s->nfaces, nnz = 2 * nf;
    DMALLOC(t->d_l, nf); DMALLOC(t->d_u, nf); DMALLOC(t->keys, nnz); DMALLOC(t->keys2, nnz); DMALLOC(t->ent2, nnz);
    DMALLOC(t->cnt, n + 1);
    AFP_CUDA_CHECK(cudaMemcpyAsync(t->d_l, s->lower, sizeof(int) * (size_t)nf, cudaMemcpyHostToDevice, g->s),
                   "uploading the matrix addressing");
    AFP_CUDA_CHECK(cudaMemcpyAsync(t->d_u, s->upper, sizeof(int) * (size_t)nf, cudaMemcpyHostToDevice, g->s),
                   "uploading the matrix addressing");
    AFP_CUDA_CHECK(cudaMemsetAsync(t->cnt, 0, sizeof(int) * (size_t)(n + 1), g->s), "counting the entries per row");
    const int gb = 1024;
    if (nf > 0) {
        k_count<<<gb, BLOCK, 0, g->s>>>(nf, t->d_l, t->d_u, t->cnt);
        k_keys<<<gb, BLOCK, 0, g->s>>>(nf, t->d_l, t->d_u, t->keys, m->col /* entries, temporarily */);
    }
    AFP_LAUNCH_CHECK("k_count, k_keys");
    size_t tb1 = 0, tb2 = 0;
    AFP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, tb1, t->cnt, m->rowptr, n + 1, g->s), "sizing the row scan");
    int bits = 1;
    while ((1LL << bits) < (long long)n + 1 && bits < 31) bits++;
    if (nnz > 0)
        AFP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, tb2, t->keys, t->keys2, m->col, t->ent2, nnz, 0, bits, g->s),
                       "sizing the sort by row");
    size_t tb = tb1 > tb2 ? tb1 : tb2;
    AFP_CUDA_CHECK(cudaMalloc(&t->tmp, tb > 0 ? tb : 1), "allocating the sort's scratch");
    AFP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(t->tmp, tb, t->cnt, m->rowptr, n + 1, g->s), "scanning the row counts");
    if (nnz > 0) {
        tb = tb2 > 0 ? tb2 : 1;
        AFP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(t->tmp, tb, t->keys, t->keys2, m->col, t->ent2, nnz, 0, bits, g->s),
                       "sorting the entries by row");
        k_cols<<<gb, BLOCK, 0, g->s>>>(nnz, t->ent2, t->d_l, t->d_u, m->col);
        AFP_LAUNCH_CHECK("k_cols");
        AFP_CUDA_CHECK(cudaMemcpyAsync(m->src, t->ent2, sizeof(int) * (size_t)nnz, cudaMemcpyDeviceToDevice, g->s),
                       "keeping the entries' sources");
    }
    AFP_CUDA_CHECK(cudaStreamSynchronize(g->s), "converting the matrix to CSR");
    return 0;
}

/* the host temporaries of the interface layout */
typedef struct { int *cells, *rowcnt, *irows, *iptr, *start; } iface_scratch;

/* interfaces: packed faces (interface order), and per row the entries in (interface, face) order */
static int iface_layout(afp_gpu_matrix *m, const afp_system *s, iface_scratch *t)
{
    const int n = s->n, nif = m->nif;
    t->cells = (int *)malloc(sizeof(int) * (size_t)nif);
    t->rowcnt = (int *)calloc((size_t)n + 1, sizeof(int));
    if (!t->cells || !t->rowcnt) return AFP_FAIL("out of host memory");
    int *cells = t->cells, *rowcnt = t->rowcnt;
    int tt = 0;
    for (int i = 0; i < s->niface; i++) {
        m->h_nb[i] = s->ifaces[i].neighbour; m->h_tag[i] = s->ifaces[i].tag;
        m->h_off[i] = tt; m->h_cnt[i] = s->ifaces[i].nfaces;
        for (int f = 0; f < s->ifaces[i].nfaces; f++) { cells[tt] = s->ifaces[i].face_cells[f]; rowcnt[cells[tt]]++; tt++; }
    }
    /* rows in increasing order; within a row, packed order = (interface, face) order */
    int nirow = 0;
    for (int r = 0; r < n; r++) if (rowcnt[r]) nirow++;
    t->irows = (int *)malloc(sizeof(int) * (size_t)(nirow > 0 ? nirow : 1));
    t->iptr = (int *)malloc(sizeof(int) * (size_t)(nirow + 1));
    t->start = (int *)malloc(sizeof(int) * ((size_t)n + 1));
    if (!t->irows || !t->iptr || !t->start) return AFP_FAIL("out of host memory");
    int *irows = t->irows, *iptr = t->iptr, *start = t->start;
    int j = 0, k = 0;
    for (int r = 0; r < n; r++) if (rowcnt[r]) { irows[j] = r; iptr[j] = k; start[r] = k; k += rowcnt[r]; j++; }
    iptr[nirow] = k;
    for (int q = 0; q < nif; q++) { int r = cells[q]; m->h_perm[start[r]++] = q; }
    m->nirow = nirow;
    DMALLOC(m->ifc, nif); DMALLOC(m->irows, nirow); DMALLOC(m->iptr, nirow + 1); DMALLOC(m->islot, nif);
    DMALLOC(m->icoef, nif); DMALLOC(m->sendb, nif); DMALLOC(m->recvb, nif);
    AFP_CUDA_CHECK(cudaMallocHost((void **)&m->h_send, sizeof(double) * (size_t)nif), "allocating the pinned send buffer");
    AFP_CUDA_CHECK(cudaMallocHost((void **)&m->h_recv, sizeof(double) * (size_t)nif), "allocating the pinned receive buffer");
    AFP_CUDA_CHECK(cudaMemcpy(m->ifc, cells, sizeof(int) * (size_t)nif, cudaMemcpyHostToDevice), "uploading the interfaces");
    AFP_CUDA_CHECK(cudaMemcpy(m->irows, irows, sizeof(int) * (size_t)nirow, cudaMemcpyHostToDevice), "uploading the interfaces");
    AFP_CUDA_CHECK(cudaMemcpy(m->iptr, iptr, sizeof(int) * (size_t)(nirow + 1), cudaMemcpyHostToDevice),
                   "uploading the interfaces");
    AFP_CUDA_CHECK(cudaMemcpy(m->islot, m->h_perm, sizeof(int) * (size_t)nif, cudaMemcpyHostToDevice),
                   "uploading the interfaces");
    return 0;
}

/* the device copy of the addressing: CSR built on the device, interfaces */
static int mat_build(afp_gpu *g, afp_gpu_matrix *m, const afp_system *s, const afp_controls *c, const char *field)
{
    const int n = s->n, nf = s->nfaces, nnz = 2 * nf;
    int nif = 0;
    for (int i = 0; i < s->niface; i++) nif += s->ifaces[i].nfaces;
    const int sym = s->lower_coef == s->upper_coef;
    /* memory check first: a clear message instead of a failed allocation midway */
    size_t need = sizeof(int) * ((size_t)n + 1 + 2 * (size_t)nnz) + sizeof(double) * ((size_t)nnz + 3 * (size_t)n
                  + (sym ? 1 : 2) * (size_t)nf + 7 * (size_t)n) + (sizeof(int) * 3 + sizeof(double) * 3) * (size_t)nif;
    size_t sort_tmp = sizeof(int) * 4 * (size_t)nnz + 64u * 1024 * 1024;
    size_t fr = 0, tot = 0;
    AFP_CUDA_CHECK(cudaMemGetInfo(&fr, &tot), "asking for the free device memory");
    if (need + sort_tmp > fr)
        return AFP_FAIL("out of device memory: the matrix of %s (%d cells, %d faces) needs %.1f MiB on device %d, %.1f MiB free of %.1f MiB",
                        field, n, nf, (double)(need + sort_tmp) / 1048576.0, g->device, (double)fr / 1048576.0, (double)tot / 1048576.0);
    snprintf(m->field, sizeof m->field, "%s", field);
    m->n = n; m->nfaces = nf; m->nnz = nnz; m->sym = sym; m->bytes = need;
    DMALLOC(m->rowptr, n + 1); DMALLOC(m->col, nnz); DMALLOC(m->src, nnz); DMALLOC(m->val, nnz);
    DMALLOC(m->diag, n); DMALLOC(m->rD, n); DMALLOC(m->sumA, n); DMALLOC(m->up, nf);
    if (!sym) DMALLOC(m->lo, nf);
    DMALLOC(m->psi, n); DMALLOC(m->b, n); DMALLOC(m->wA, n); DMALLOC(m->pA, n); DMALLOC(m->rA, n);
    if (c->precond == AFP_PRECOND_CHEBYSHEV) { DMALLOC(m->t0, n); DMALLOC(m->t1, n); }

    csr_scratch ct;
    memset(&ct, 0, sizeof ct);
    int rc = csr_convert(g, m, s, &ct);
    cudaFree(ct.tmp); cudaFree(ct.d_l); cudaFree(ct.d_u); cudaFree(ct.keys); cudaFree(ct.keys2); cudaFree(ct.ent2);
    cudaFree(ct.cnt);
    if (rc) return rc;

    m->niface = s->niface; m->nif = nif;
    int ni = s->niface > 0 ? s->niface : 1;
    m->h_nb = (int *)calloc(ni, sizeof(int)); m->h_tag = (int *)calloc(ni, sizeof(int));
    m->h_off = (int *)calloc(ni, sizeof(int)); m->h_cnt = (int *)calloc(ni, sizeof(int));
    m->h_perm = (int *)calloc(nif > 0 ? nif : 1, sizeof(int));
    m->h_icoef = (double *)calloc(nif > 0 ? nif : 1, sizeof(double));
    if (!m->h_nb || !m->h_tag || !m->h_off || !m->h_cnt || !m->h_perm || !m->h_icoef) return AFP_FAIL("out of host memory");
    if (nif > 0) {
        iface_scratch it;
        memset(&it, 0, sizeof it);
        rc = iface_layout(m, s, &it);
        free(it.cells); free(it.rowcnt); free(it.irows); free(it.iptr); free(it.start);
        if (rc) return rc;
    } else {
        for (int i = 0; i < s->niface; i++) { m->h_nb[i] = s->ifaces[i].neighbour; m->h_tag[i] = s->ifaces[i].tag; }
    }
    return 0;
}

afp_gpu_matrix *afp_gpu_matrix_of(afp_gpu *g, const afp_system *s, const afp_controls *c, const char *field, int *built)
{
    const uint64_t key = sys_key(s);
    afp_gpu_matrix *m = NULL;
    for (int i = 0; i < MAXMAT && !m; i++)
        if (g->mats[i].n && strncmp(g->mats[i].field, field, sizeof g->mats[i].field - 1) == 0) m = &g->mats[i];
    *built = 0;
    if (m && (m->key != key || (c->precond == AFP_PRECOND_CHEBYSHEV && !m->t0))) afp_gpu_matrix_free(m);
    if (!m || !m->n) {
        /* a free slot, else the first field's makes room */
        if (!m) for (int i = 0; i < MAXMAT && !m; i++) if (!g->mats[i].n) m = &g->mats[i];
        if (!m) { afp_gpu_matrix_free(&g->mats[0]); m = &g->mats[0]; }
        if (mat_build(g, m, s, c, field)) { afp_gpu_matrix_free(m); return NULL; }
        m->key = key;
        *built = 1;
    }
    return m;
}

/* ---- values of this call ------------------------------------------------- */
int afp_gpu_upload_values(afp_gpu *g, afp_gpu_matrix *m, const afp_system *s, const afp_controls *c,
                          const double *psi, const double *b)
{
    const int n = s->n, nf = s->nfaces;
    AFP_CUDA_CHECK(cudaMemcpyAsync(m->diag, s->diag, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice, g->s),
                   "uploading the diagonal");
    AFP_CUDA_CHECK(cudaMemcpyAsync(m->up, s->upper_coef, sizeof(double) * (size_t)nf, cudaMemcpyHostToDevice, g->s),
                   "uploading the upper coefficients");
    if (!m->sym)
        AFP_CUDA_CHECK(cudaMemcpyAsync(m->lo, s->lower_coef, sizeof(double) * (size_t)nf, cudaMemcpyHostToDevice, g->s),
                       "uploading the lower coefficients");
    AFP_CUDA_CHECK(cudaMemcpyAsync(m->psi, psi, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice, g->s),
                   "uploading the solution");
    AFP_CUDA_CHECK(cudaMemcpyAsync(m->b, b, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice, g->s),
                   "uploading the source");
    if (m->nif > 0) {
        /* interface coefficients in the row-grouped order */
        int t = 0;
        double *packed = m->h_send;   /* free until the first exchange */
        for (int i = 0; i < s->niface; i++)
            for (int f = 0; f < s->ifaces[i].nfaces; f++) packed[t++] = s->ifaces[i].coeffs[f];
        for (int k = 0; k < m->nif; k++) m->h_icoef[k] = packed[m->h_perm[k]];
        AFP_CUDA_CHECK(cudaMemcpyAsync(m->icoef, m->h_icoef, sizeof(double) * (size_t)m->nif, cudaMemcpyHostToDevice, g->s),
                       "uploading the interface coefficients");
    }
    const int nb = nblocks(n);
    k_values<<<nb, BLOCK, 0, g->s>>>(n, m->rowptr, m->src, m->sym ? m->up : m->lo, m->up, m->diag, m->val, m->sumA, m->rD);
    AFP_LAUNCH_CHECK("k_values");
    if (m->nirow > 0) {
        k_iface_sumA<<<nblocks(m->nirow), BLOCK, 0, g->s>>>(m->nirow, m->irows, m->iptr, m->icoef, m->sumA);
        AFP_LAUNCH_CHECK("k_iface_sumA");
    }
    if (c->precond == AFP_PRECOND_CHEBYSHEV) {
        k_gersh<<<nb, BLOCK, 0, g->s>>>(n, m->rowptr, m->val, m->diag, m->t0);
        if (m->nirow > 0) k_gersh_iface<<<nblocks(m->nirow), BLOCK, 0, g->s>>>(m->nirow, m->irows, m->iptr, m->icoef, m->t0);
        k_gersh_max<<<nb, BLOCK, 0, g->s>>>(n, m->t0, m->diag, g->part);
        k_max_final<<<1, 32, 0, g->s>>>(g->part, nb, g->red_d);
        AFP_LAUNCH_CHECK("the Gershgorin bound's kernels");
        AFP_CUDA_CHECK(cudaMemcpyAsync(g->red_h, g->red_d, sizeof(double), cudaMemcpyDeviceToHost, g->s),
                       "fetching the Gershgorin bound");
        AFP_CUDA_CHECK(cudaStreamSynchronize(g->s), "forming the Gershgorin bound");
        double lm = g->red_h[0];
        if (g->mpi && g->nranks > 1)
            AFP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &lm, 1, MPI_DOUBLE, MPI_MAX, g->comm), "taking the largest Gershgorin bound");
        m->lmax = lm;
    }
    return 0;
}
