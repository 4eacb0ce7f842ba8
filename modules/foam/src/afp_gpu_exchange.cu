/* afp_gpu_exchange.cu - the processor interfaces of y = A x (see afp_gpu.h):
 * the interface cells' values are packed on the device and exchanged device
 * to device by CUDA-aware MPI when the MPI library says so at run time
 * (MPIX_Query_cuda_support), else by NCCL (opened at run time: a machine
 * without it still loads the plugin; NCCL needs one GPU per rank), else
 * through pinned host buffers; the received values are applied row by row in
 * OpenFOAM's (interface, face) order. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "afp_gpu.h"
#include "afp_gpu_tree.cuh"

__global__ void k_gather(int m, const int *ifc, const double *x, double *sendb)
{
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < m; t += gridDim.x * blockDim.x) sendb[t] = x[ifc[t]];
}
/* y[row] -= coef * x_neighbour, per row in (interface, face) order */
__global__ void k_iface(int nirow, const int *irows, const int *iptr, const int *islot, const double *icoef,
                        const double *recvb, double *y)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < nirow; j += gridDim.x * blockDim.x) {
        const int r = irows[j];
        double s = y[r];
        for (int k = iptr[j]; k < iptr[j + 1]; k++) s -= icoef[k] * recvb[islot[k]];
        y[r] = s;
    }
}

/* ---- NCCL, opened at run time -------------------------------------------- */
static int nccl_open(afp_nccl *nccl, char *why, size_t nwhy)
{
    if (nccl->lib) return 0;
    fenv_t fe;
    feholdexcept(&fe);   /* its static constructors too (see AFP_NCCL_CHECK) */
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (!h) h = dlopen("libnccl.so", RTLD_NOW | RTLD_GLOBAL);
    fesetenv(&fe);
    if (!h) { snprintf(why, nwhy, "libnccl.so.2 not found (%s)", dlerror()); return -1; }
    nccl->get_id = (nccl_getid_fn)dlsym(h, "ncclGetUniqueId");
    nccl->init = (nccl_init_fn)dlsym(h, "ncclCommInitRank");
    nccl->send = (nccl_sendrecv_fn)dlsym(h, "ncclSend");
    nccl->recv = (nccl_recv_fn)dlsym(h, "ncclRecv");
    nccl->gstart = (nccl_group_fn)dlsym(h, "ncclGroupStart");
    nccl->gend = (nccl_group_fn)dlsym(h, "ncclGroupEnd");
    nccl->destroy = (nccl_destroy_fn)dlsym(h, "ncclCommDestroy");
    nccl->err = (nccl_errstr_fn)dlsym(h, "ncclGetErrorString");
    if (!nccl->get_id || !nccl->init || !nccl->send || !nccl->recv || !nccl->gstart || !nccl->gend) {
        snprintf(why, nwhy, "libnccl.so.2 lacks ncclSend/ncclRecv (NCCL < 2.7)");
        dlclose(h); return -1;
    }
    nccl->lib = h;
    return 0;
}

/* the communicator goes; the library stays loaded (its threads may still
 * be winding down, and a later handle may open it again) */
void afp_gpu_nccl_close(afp_nccl *nccl)
{
    if (nccl->comm && nccl->destroy) {
        fenv_t fe;
        feholdexcept(&fe);
        (void)nccl->destroy(nccl->comm);
        fesetenv(&fe);
    }
    nccl->comm = NULL;
}

/* ---- the choice ------------------------------------------------------------ */
int afp_gpu_pick_exchange(afp_gpu *g, int want)
{
    if (g->exchange_kind >= 0) return 0;
    if (g->cuda_aware < 0) {
        typedef int (*q_fn)(void);
        q_fn q = (q_fn)dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support");
        g->cuda_aware = q ? q() : 0;
    }
    char why[256] = "";
    if (want == AFP_EXCHANGE_MPI && !g->cuda_aware)
        return AFP_FAIL("exchange mpi requested, but the MPI library is not CUDA-aware (MPIX_Query_cuda_support %s)",
                        dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support") ? "returned 0" : "is missing");
    int kind = AFP_EXCHANGE_HOST;
    if (want == AFP_EXCHANGE_MPI || (want == AFP_EXCHANGE_AUTO && g->cuda_aware)) kind = AFP_EXCHANGE_MPI;
    else if (want == AFP_EXCHANGE_NCCL || want == AFP_EXCHANGE_AUTO) {
        if (g->node_ranks > g->ndev) snprintf(why, sizeof why, "%d ranks share %d GPUs on this node (NCCL needs one GPU per rank)", g->node_ranks, g->ndev);
        else if (nccl_open(&g->nccl, why, sizeof why) == 0) kind = AFP_EXCHANGE_NCCL;
        else if (want == AFP_EXCHANGE_NCCL) return AFP_FAIL("exchange nccl requested, but %s", why);
    }
    /* every rank must agree: take the weakest choice of all (host < nccl < mpi) */
    int rankv = kind == AFP_EXCHANGE_MPI ? 2 : kind == AFP_EXCHANGE_NCCL ? 1 : 0, minv = rankv;
    AFP_MPI_CHECK(MPI_Allreduce(&rankv, &minv, 1, MPI_INT, MPI_MIN, g->comm), "agreeing on the interface exchange");
    if (minv != rankv && want != AFP_EXCHANGE_AUTO)
        return AFP_FAIL("exchange %s is not available on every rank", want == AFP_EXCHANGE_MPI ? "mpi" : "nccl");
    kind = minv == 2 ? AFP_EXCHANGE_MPI : minv == 1 ? AFP_EXCHANGE_NCCL : AFP_EXCHANGE_HOST;
    if (kind == AFP_EXCHANGE_NCCL) {
        nccl_id_t id;
        if (g->rank == 0) AFP_NCCL_CHECK(g->nccl, g->nccl.get_id(&id), "making the NCCL communicator's id");
        AFP_MPI_CHECK(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, g->comm), "handing out the NCCL communicator's id");
        AFP_NCCL_CHECK(g->nccl, g->nccl.init(&g->nccl.comm, g->nranks, id, g->rank), "making the NCCL communicator");
    }
    g->exchange_kind = kind;
    return 0;
}

const char *afp_gpu_exchange_name(const afp_gpu *g)
{
    switch (g->exchange_kind) {
    case AFP_EXCHANGE_MPI: return "cuda-aware MPI";
    case AFP_EXCHANGE_NCCL: return "NCCL";
    case AFP_EXCHANGE_HOST: return "host staging";
    default: return "none";
    }
}

/* ---- the exchange of one product ------------------------------------------ */
int afp_gpu_exchange_start(afp_gpu *g, afp_gpu_matrix *m, const double *x, MPI_Request *req)
{
    if (m->nif == 0) return 0;
    k_gather<<<nblocks(m->nif), BLOCK, 0, g->s>>>(m->nif, m->ifc, x, m->sendb);
    AFP_LAUNCH_CHECK("k_gather");
    m->bytes_acc += 20.0 * m->nif;
    if (g->exchange_kind == AFP_EXCHANGE_NCCL) {
        /* the communication stream waits for the packing */
        cudaEvent_t ev;
        AFP_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "ordering the NCCL exchange");
        AFP_CUDA_CHECK(cudaEventRecord(ev, g->s), "ordering the NCCL exchange");
        AFP_CUDA_CHECK(cudaStreamWaitEvent(g->sc, ev, 0), "ordering the NCCL exchange");
        AFP_CUDA_CHECK(cudaEventDestroy(ev), "ordering the NCCL exchange");
        AFP_NCCL_CHECK(g->nccl, g->nccl.gstart(), "starting the interface exchange");
        for (int i = 0; i < m->niface; i++) {
            if (m->h_cnt[i] == 0) continue;
            AFP_NCCL_CHECK(g->nccl, g->nccl.send(m->sendb + m->h_off[i], (size_t)m->h_cnt[i], NCCL_DOUBLE, m->h_nb[i], g->nccl.comm, g->sc),
                           "sending interface values");
            AFP_NCCL_CHECK(g->nccl, g->nccl.recv(m->recvb + m->h_off[i], (size_t)m->h_cnt[i], NCCL_DOUBLE, m->h_nb[i], g->nccl.comm, g->sc),
                           "receiving interface values");
        }
        AFP_NCCL_CHECK(g->nccl, g->nccl.gend(), "starting the interface exchange");
        return 0;
    }
    double *sb = m->sendb, *rb = m->recvb;
    if (g->exchange_kind == AFP_EXCHANGE_HOST) {
        AFP_CUDA_CHECK(cudaMemcpyAsync(m->h_send, m->sendb, sizeof(double) * (size_t)m->nif, cudaMemcpyDeviceToHost, g->s),
                       "staging the interface values");
        sb = m->h_send; rb = m->h_recv;
    }
    AFP_CUDA_CHECK(cudaStreamSynchronize(g->s), "packing the interface values");
    for (int i = 0; i < m->niface; i++) {
        AFP_MPI_CHECK(MPI_Irecv(rb + m->h_off[i], m->h_cnt[i], MPI_DOUBLE, m->h_nb[i], 100 + m->h_tag[i], g->comm, &req[2 * i]),
                      "receiving interface values");
        AFP_MPI_CHECK(MPI_Isend(sb + m->h_off[i], m->h_cnt[i], MPI_DOUBLE, m->h_nb[i], 100 + m->h_tag[i], g->comm, &req[2 * i + 1]),
                      "sending interface values");
    }
    return 0;
}

int afp_gpu_exchange_finish(afp_gpu *g, afp_gpu_matrix *m, double *y, MPI_Request *req)
{
    if (m->nif == 0) return 0;
    if (g->exchange_kind == AFP_EXCHANGE_NCCL) {
        /* the compute stream waits for the exchange */
        cudaEvent_t ev;
        AFP_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "ordering the NCCL exchange");
        AFP_CUDA_CHECK(cudaEventRecord(ev, g->sc), "ordering the NCCL exchange");
        AFP_CUDA_CHECK(cudaStreamWaitEvent(g->s, ev, 0), "ordering the NCCL exchange");
        AFP_CUDA_CHECK(cudaEventDestroy(ev), "ordering the NCCL exchange");
    } else {
        AFP_MPI_CHECK(MPI_Waitall(2 * m->niface, req, MPI_STATUSES_IGNORE), "exchanging interface values");
        if (g->exchange_kind == AFP_EXCHANGE_HOST)
            AFP_CUDA_CHECK(cudaMemcpyAsync(m->recvb, m->h_recv, sizeof(double) * (size_t)m->nif, cudaMemcpyHostToDevice, g->s),
                           "uploading the received interface values");
    }
    k_iface<<<nblocks(m->nirow), BLOCK, 0, g->s>>>(m->nirow, m->irows, m->iptr, m->islot, m->icoef, m->recvb, y);
    AFP_LAUNCH_CHECK("k_iface");
    m->bytes_acc += 8.0 * m->nirow * 2 + 24.0 * m->nif;
    return 0;
}
