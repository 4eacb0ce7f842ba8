/* dev_cuda.cu - the CUDA device of ooc2d (written in the C subset of CUDA):
 * cudaMalloc'd slab buffers, pinned host field (cudaHostAlloc), three streams
 * (upload, compute, download) and events, and the row-range step kernel over
 * ooc_cell() of ooc_stencil.h (bit-identical to the CPU with --fmad=false).
 * Every CUDA call is checked; errors name the file, the line and what failed. */
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>
#include "ooc.h"
#include "cuda_check.h"   /* modules/common: CUDA_CHECK, exits RC_DEVICE through mod_fail */

#define ROWS_PER_BLOCK 8
#define BLOCK_X 256

typedef struct {
    cudaStream_t s[OOC_NSTREAMS];
    cudaEvent_t e[OOC_NEVENTS];
} Cu;

__global__ void __launch_bounds__(BLOCK_X) k_rows(OocStep s)
{
    const int x = blockIdx.x * BLOCK_X + threadIdx.x;
    if (x >= s.nx) return;
    for (int y0 = s.ya + blockIdx.y * ROWS_PER_BLOCK; y0 < s.yb; y0 += gridDim.y * ROWS_PER_BLOCK) {
        const int y1 = min(y0 + ROWS_PER_BLOCK, s.yb);
        for (int y = y0; y < y1; y++)
            ooc_cell(s.eq, s.nx, s.ny, x, y, (long)(y - s.lo) * s.nx + x, s.coef, s.a, s.b);
    }
}

static void *g_alloc(void *st, size_t bytes)
{
    (void)st;
    void *p; char msg[128];
    snprintf(msg, sizeof msg, "allocating %.1f MB of GPU memory for a slab buffer", bytes / 1e6);
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1), msg);
    return p;
}
static void g_release(void *st, void *p) { (void)st; CUDA_CHECK(cudaFree(p), "freeing GPU memory"); }
static void *g_host_alloc(void *st, size_t bytes)
{
    (void)st;
    void *p; char msg[160];
    snprintf(msg, sizeof msg, "pinning %.1f MB of host memory for the field (page-locked memory is needed for asynchronous copies)", bytes / 1e6);
    CUDA_CHECK(cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault), msg);
    return p;
}
static void g_host_release(void *st, void *p) { (void)st; CUDA_CHECK(cudaFreeHost(p), "freeing pinned host memory"); }
static void g_copy(void *st, int s, void *dst, const void *src, size_t bytes, int to_device)
{
    Cu *c = (Cu *)st;
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, c->s[s]),
               to_device ? "queueing a copy of slab rows to the GPU" : "queueing a copy of slab rows back to the host");
}
static void g_step(void *st, int s, const OocStep *step)
{
    Cu *c = (Cu *)st;
    const int rows = step->yb - step->ya;
    if (rows <= 0) return;
    const int by = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    dim3 grid((step->nx + BLOCK_X - 1) / BLOCK_X, by < 65535 ? by : 65535);   /* the kernel strides over more rows */
    k_rows<<<grid, BLOCK_X, 0, c->s[s]>>>(*step);
    CUDA_CHECK(cudaGetLastError(), "launching the time-step kernel");
}
static void g_record(void *st, int s, int ev)
{
    Cu *c = (Cu *)st;
    CUDA_CHECK(cudaEventRecord(c->e[ev], c->s[s]), "recording a stream event");
}
static void g_wait(void *st, int s, int ev)
{
    Cu *c = (Cu *)st;
    CUDA_CHECK(cudaStreamWaitEvent(c->s[s], c->e[ev], 0), "ordering one stream after another");
}
static void g_sync(void *st)
{
    (void)st;
    CUDA_CHECK(cudaDeviceSynchronize(), "waiting for the GPU (a copy or a time-step kernel failed)");
}
static void g_destroy(void *st)
{
    Cu *c = (Cu *)st;
    for (int i = 0; i < OOC_NSTREAMS; i++) CUDA_CHECK(cudaStreamDestroy(c->s[i]), "destroying a stream");
    for (int i = 0; i < OOC_NEVENTS; i++) CUDA_CHECK(cudaEventDestroy(c->e[i]), "destroying an event");
    free(c);
}

extern "C" int ooc_cuda_device(OocDev *d, char *err, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        cudaGetLastError();
        snprintf(err, n, "no CUDA device is visible (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return -1;
    }
    Cu *c = (Cu *)calloc(1, sizeof(Cu));
    if (!c) mod_fail(RC_DEVICE, "out of host memory");
    for (int i = 0; i < OOC_NSTREAMS; i++) CUDA_CHECK(cudaStreamCreateWithFlags(&c->s[i], cudaStreamNonBlocking), "creating a stream");
    for (int i = 0; i < OOC_NEVENTS; i++) CUDA_CHECK(cudaEventCreateWithFlags(&c->e[i], cudaEventDisableTiming), "creating an event");
    cudaDeviceProp p;
    int dev; CUDA_CHECK(cudaGetDevice(&dev), "finding the current GPU");
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev), "reading the GPU properties");
    size_t fr, tot;
    CUDA_CHECK(cudaMemGetInfo(&fr, &tot), "reading the free GPU memory");
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "GPU %s", p.name);
    d->st = c;
    d->alloc = g_alloc; d->release = g_release;
    d->host_alloc = g_host_alloc; d->host_release = g_host_release;
    d->copy = g_copy; d->step = g_step; d->record = g_record; d->wait = g_wait;
    d->poison = NULL;
    d->sync = g_sync; d->destroy = g_destroy;
    d->free_mem = fr;
    return 0;
}
