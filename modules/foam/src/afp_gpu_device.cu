/* afp_gpu_device.cu - the GPU path's handle and set-up (see afp_gpu.h): one
 * GPU per MPI rank, the node-local rank modulo the node's devices; a
 * duplicate of MPI_COMM_WORLD for this path's messages; two streams (compute,
 * communication), the scratch of the global sums; the device copy bandwidth
 * that the timing output compares the modelled traffic with. */
#include <stdlib.h>
#include <string.h>
#include "afp_gpu.h"

int afp_gpu_built(void) { return 1; }

int afp_gpu_count(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) { AFP_FAIL("no CUDA device: cudaGetDeviceCount says %s", cudaGetErrorString(e)); return 0; }
    if (n == 0) AFP_FAIL("no CUDA device (cudaGetDeviceCount = 0)");
    return n;
}

afp_gpu *afp_gpu_create(void)
{
    afp_gpu *g = (afp_gpu *)calloc(1, sizeof *g);
    if (!g) return NULL;
    g->device = -1;
    g->comm = MPI_COMM_NULL;
    g->nranks = 1;
    g->node_ranks = 1;
    g->exchange_kind = -1;
    g->cuda_aware = -1;
    return g;
}

void afp_gpu_destroy(afp_gpu *g)
{
    if (!g) return;
    for (int i = 0; i < MAXMAT; i++) if (g->mats[i].n) afp_gpu_matrix_free(&g->mats[i]);
    afp_gpu_nccl_close(&g->nccl);
    if (g->part) cudaFree(g->part);
    if (g->red_d) cudaFree(g->red_d);
    if (g->red_h) cudaFreeHost(g->red_h);
    if (g->s) cudaStreamDestroy(g->s);
    if (g->sc) cudaStreamDestroy(g->sc);
    int fin = 1;
    if (g->comm != MPI_COMM_NULL && MPI_Finalized(&fin) == MPI_SUCCESS && !fin) MPI_Comm_free(&g->comm);
    free(g);
}

int afp_gpu_init(afp_gpu *g)
{
    if (g->ready) return 0;
    int flag = 0;
    AFP_MPI_CHECK(MPI_Initialized(&flag), "asking whether MPI runs");
    int fin = 0;
    if (flag) AFP_MPI_CHECK(MPI_Finalized(&fin), "asking whether MPI has ended");
    g->mpi = flag && !fin;
    int local = 0;
    if (g->mpi) {
        AFP_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &g->comm), "making the GPU path's communicator");
        AFP_MPI_CHECK(MPI_Comm_set_errhandler(g->comm, MPI_ERRORS_RETURN), "making the GPU path's communicator");
        AFP_MPI_CHECK(MPI_Comm_rank(g->comm, &g->rank), "asking for this rank");
        AFP_MPI_CHECK(MPI_Comm_size(g->comm, &g->nranks), "asking for the number of ranks");
        MPI_Comm node;
        AFP_MPI_CHECK(MPI_Comm_split_type(g->comm, MPI_COMM_TYPE_SHARED, g->rank, MPI_INFO_NULL, &node),
                      "finding the ranks on this node");
        AFP_MPI_CHECK(MPI_Comm_rank(node, &local), "finding the ranks on this node");
        AFP_MPI_CHECK(MPI_Comm_size(node, &g->node_ranks), "finding the ranks on this node");
        AFP_MPI_CHECK(MPI_Comm_free(&node), "finding the ranks on this node");
    }
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0)
        return AFP_FAIL("no CUDA device on rank %d (%s)", g->rank, e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    g->ndev = ndev;
    g->device = local % ndev;
    AFP_CUDA_CHECK(cudaSetDevice(g->device), "choosing this rank's device");
    AFP_CUDA_CHECK(cudaStreamCreateWithFlags(&g->s, cudaStreamNonBlocking), "making the compute stream");
    AFP_CUDA_CHECK(cudaStreamCreateWithFlags(&g->sc, cudaStreamNonBlocking), "making the communication stream");
    AFP_CUDA_CHECK(cudaMalloc(&g->part, sizeof(double) * NRED * MAXBLOCKS), "allocating the sums' scratch");
    AFP_CUDA_CHECK(cudaMalloc(&g->red_d, sizeof(double) * NRED), "allocating the sums' scratch");
    AFP_CUDA_CHECK(cudaMallocHost(&g->red_h, sizeof(double) * NRED), "allocating the sums' pinned host scratch");
    g->ready = 1;
    return 0;
}

__global__ void k_copy(size_t n, const double *a, double *b)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}

/* the best of 5 timed copies (after one warm-up) of 2 x 512 MiB, less when
 * memory is short; the buffers are freed whatever happens */
static int time_copies(afp_gpu *g, size_t n, double *a, double *b, cudaEvent_t e0, cudaEvent_t e1)
{
    AFP_CUDA_CHECK(cudaMemsetAsync(a, 0, n * sizeof(double), g->s), "clearing the copy test's buffer");
    float best = 1e30f;
    for (int rep = 0; rep < 6; rep++) {
        AFP_CUDA_CHECK(cudaEventRecord(e0, g->s), "timing the copy test");
        k_copy<<<4 * 132 * 4, BLOCK, 0, g->s>>>(n, a, b);
        AFP_CUDA_CHECK(cudaEventRecord(e1, g->s), "timing the copy test");
        AFP_CUDA_CHECK(cudaEventSynchronize(e1), "running the copy test");
        float ms = 0; AFP_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1), "timing the copy test");
        if (rep > 0 && ms < best) best = ms;
    }
    g->copy_gbs = 2.0 * n * sizeof(double) / (best * 1e-3) / 1e9;
    return 0;
}

int afp_gpu_measure_copy_bw(afp_gpu *g)
{
    if (g->copy_gbs > 0) return 0;
    size_t fr = 0, tot = 0;
    AFP_CUDA_CHECK(cudaMemGetInfo(&fr, &tot), "asking for the free device memory");
    size_t n = (size_t)64 << 20;   /* 2 x 512 MiB, less when memory is short */
    while (n > ((size_t)1 << 20) && 2 * n * sizeof(double) > fr / 4) n >>= 1;
    double *a = NULL, *b = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    int rc = 0;
    cudaError_t e = cudaMalloc(&a, n * sizeof(double));
    if (e == cudaSuccess) e = cudaMalloc(&b, n * sizeof(double));
    if (e == cudaSuccess) e = cudaEventCreate(&e0);
    if (e == cudaSuccess) e = cudaEventCreate(&e1);
    if (e != cudaSuccess) rc = AFP_FAIL("CUDA error while preparing the copy test: %s", cudaGetErrorString(e));
    else rc = time_copies(g, n, a, b, e0, e1);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (a) cudaFree(a);
    if (b) cudaFree(b);
    return rc;
}
