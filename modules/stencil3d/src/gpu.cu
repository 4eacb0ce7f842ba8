/* gpu.cu - CUDA back end of stencil3d (written in the C subset of CUDA).
 * Instantiates the kernels of s3_kernels.h, runs the time loop, verifies and
 * benchmarks. Every CUDA call is checked; errors name the file, the line and
 * what was being done. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>   /* CUtensorMap, PFN_cuTensorMapEncodeTiled */
#include "s3d.h"
#include "cuda_check.h"   /* modules/common: CUDA_CHECK, exits RC_DEVICE through mod_fail */

/* 4-wide accesses of the cqa / cqt kernels: one 128-bit load/store (FP32 build only;
 * s3_kernels.h keeps these and defines its portable C forms only without them) */
typedef char s3_real_is_float[sizeof(real) == sizeof(float) ? 1 : -1];
#define S3_LD4(d, p) { const float4 l4_ = *(const float4 *)(p); (d)[0] = l4_.x; (d)[1] = l4_.y; (d)[2] = l4_.z; (d)[3] = l4_.w; }
#define S3_ST4(p, s) { *(float4 *)(p) = make_float4((s)[0], (s)[1], (s)[2], (s)[3]); }
/* The asynchronous copies of cqa/cqas: one 16-byte global -> shared copy that
 * no register holds (cp.async.cg: cached in L2 only; src-size 0 zero-fills the
 * vector without reading, for the vectors beyond the halo band), grouped per
 * plane with commit_group and waited for with wait_group N (at most N of this
 * thread's groups left pending). The "memory" clobbers keep the compiler from
 * moving shared accesses across them. Before sm_80 there is no cp.async: the
 * copy is then done at issue time, which the kernels' waits and barriers also
 * cover (the schedule that the C emulations run). */
static __device__ __forceinline__ void s3_cp16(real *dst, const real *src, int ok)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(__cvta_generic_to_global(src)), "r"(ok ? 16 : 0) : "memory");
#else
    *(float4 *)dst = ok ? *(const float4 *)src : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}
static __device__ __forceinline__ void s3_cp_commit(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define S3_CP_WAIT(n) asm volatile("cp.async.wait_group %0;\n" :: "n"(n) : "memory");
#else
#define S3_CP_WAIT(n)
#endif
#define S3_CP4(dst, src, ok) s3_cp16((dst), (src), (ok));
#define S3_CP_COMMIT s3_cp_commit();
/* cqt: bulk tensor copies (TMA, sm_90) into shared memory, counted by
 * transaction barriers (mbarrier). The kernels receive two tensor maps as
 * __grid_constant__ parameters (every kernel has the parameter, so that one
 * table holds them all; the others ignore it): the tiles of u (the interior
 * and its R-wide halo band: the copy engine zero-fills beyond it) and the
 * cells of u^{n-1} (the interior). The host encodes them per launch. */
typedef struct { CUtensorMap tile, pv; } S3Tma;
#define S3_GRIDCONST __grid_constant__
#define S3_KARGS_X , const S3_GRIDCONST S3Tma tma
static __device__ __forceinline__ unsigned s3_saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
static __device__ __forceinline__ void s3_mbar_init(void *mb)
{ asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" :: "r"(s3_saddr(mb)) : "memory"); }
/* arrive once (the barrier's one expected arrival) and add bytes to the
 * transaction count that the copies must complete for the phase to end */
static __device__ __forceinline__ void s3_mbar_expect(void *mb, unsigned bytes)
{ asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(s3_saddr(mb)), "r"(bytes) : "memory"); }
static __device__ __forceinline__ void s3_mbar_wait(void *mb, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p_;\n\tmbarrier.try_wait.parity.shared::cta.b64 p_, [%1], %2;\n\tselp.u32 %0, 1, 0, p_;\n\t}\n"
                     : "=r"(done) : "r"(s3_saddr(mb)), "r"(parity) : "memory");
    } while (!done);
}
/* the box at tensor coordinates (x, y, z) of map m into dst, completing on mb */
static __device__ __forceinline__ void s3_tma3(void *dst, const CUtensorMap *m, int x, int y, int z, void *mb)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n"
                 :: "r"(s3_saddr(dst)), "l"((unsigned long long)m), "r"(x), "r"(y), "r"(z), "r"(s3_saddr(mb)) : "memory");
}
#define S3_TMA_INIT_FENCE asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#define S3_TMA_PROXY_FENCE asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
/* no copy engine before sm_90: the host refuses cqt there (prepare) */
static __device__ __forceinline__ void s3_mbar_init(void *mb) { (void)mb; __trap(); }
static __device__ __forceinline__ void s3_mbar_expect(void *mb, unsigned bytes) { (void)mb; (void)bytes; __trap(); }
static __device__ __forceinline__ void s3_mbar_wait(void *mb, unsigned parity) { (void)mb; (void)parity; __trap(); }
static __device__ __forceinline__ void s3_tma3(void *dst, const CUtensorMap *m, int x, int y, int z, void *mb)
{ (void)dst; (void)m; (void)x; (void)y; (void)z; (void)mb; __trap(); }
#define S3_TMA_INIT_FENCE
#define S3_TMA_PROXY_FENCE
#endif
#define S3_TMA_INIT(mb) s3_mbar_init(mb);
#define S3_TMA_EXPECT(mb, bytes) s3_mbar_expect((mb), (unsigned)(bytes));
#define S3_TMA_WAIT(mb, parity) s3_mbar_wait((mb), (unsigned)(parity));
/* tile origin (x0-R, y0-R, zp) is (x0, y0, zp+R) in the halo-band tensor */
#define S3_TMA_TILE(dst, zp, mb) s3_tma3((dst), &tma.tile, x0, y0, (zp) + R_, (mb));
#define S3_TMA_PV(dst, zp, mb) s3_tma3((dst), &tma.pv, x0, y0, (zp), (mb));
#include "s3_kernels.h"

#define S3_RESTRICT __restrict__
#define S3_KDECL(NAME, NTH) __global__ void __launch_bounds__(NTH) NAME(S3_KARGS)
#define S3_BIX ((int)blockIdx.x)
#define S3_BIY ((int)blockIdx.y)
#define S3_BIZ ((int)blockIdx.z)
#define S3_SMEM(S, n) extern __shared__ __align__(128) real s3_smem[]; real *S = s3_smem   /* 128: bulk tensor copies */
#define S3_SMEM_FREE(S)
#define S3_PAR(t) { const int t = (int)threadIdx.x;
#define S3_PAR_END }
#define S3_SYNC __syncthreads();
#define S3_TDECL(type, name, dims) type name dims
#define S3_T(name) name
#define S3_UNROLL _Pragma("unroll")

S3_KERNELS(S3_DEFINE_KERNEL)

#undef S3_GRIDCONST
#define S3_GRIDCONST                      /* (a kernel-parameter annotation, not part of the type) */
typedef void (*GpuFn)(S3_KARGS);
typedef struct { S3KInfo info; GpuFn fn; } GpuKernel;
static const GpuKernel table[] = { S3_KERNELS(S3_KERNEL_ENTRY) };

extern "C" int s3_gpu_kernel_count(void) { return (int)(sizeof table / sizeof table[0]); }
extern "C" const S3KInfo *s3_gpu_info(int i) { return &table[i].info; }

extern "C" int s3_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) { cudaGetLastError(); return 0; }
    return n;
}

/* Allow the kernel its dynamic shared memory. NULL when the kernel can run
 * on this GPU, else why not (a phrase that follows "kernel X Y "). */
static const char *prepare(int ki)
{
    const GpuKernel *K = &table[ki];
    int dev, optin;
    CUDA_CHECK(cudaGetDevice(&dev), "finding the current GPU");
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "reading the shared-memory limit of the GPU");
    if (K->info.smem > (size_t)optin) return "needs more shared memory per block than this GPU allows";
    if (!strncmp(K->info.kind, "cqt", 3)) {   /* bulk tensor copies: Hopper (sm_90) and later */
        int major;
        CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), "reading the compute capability of the GPU");
        if (major < 9) return "uses bulk tensor copies (TMA), which need a GPU of compute capability 9.0 or later (use kernel = cqa)";
    }
    if (K->info.smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute((const void *)K->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)K->info.smem),
                   "allowing a kernel more than 48 KB of shared memory");
    return NULL;
}

/* Planes per block. Each block walks zc planes and loads 2R extra ones; few
 * chunks leave SMs idle or a partial last wave. Pick the number of chunks
 * (1..16) minimising waves x (zc + 2R). */
static int auto_zchunk(int ki, const S3Grid *g)
{
    const GpuKernel *K = &table[ki];
    int dev, sms, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&dev), "finding the current GPU");
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "reading the number of SMs");
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)K->fn, K->info.nthreads, K->info.smem),
               "computing the occupancy of a kernel");
    if (per_sm < 1) per_sm = 1;
    long resident = (long)per_sm * sms;
    long bxy = (long)((g->nx + K->info.bx - 1) / K->info.bx) * ((g->ny + K->info.by - 1) / K->info.by);
    int best = g->nz; double bcost = 1e300;
    for (int ch = 1; ch <= 16 && ch <= g->nz; ch++) {
        int zc = (g->nz + ch - 1) / ch;
        int nch = (g->nz + zc - 1) / zc;
        double waves = (double)((bxy * nch + resident - 1) / resident);
        double cost = waves * (zc + 2 * K->info.rad);
        if (cost < bcost * 0.999) { bcost = cost; best = zc; }
    }
    return best;
}

/* cuTensorMapEncodeTiled, from the driver through the runtime (no -lcuda) */
static PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn;
    if (!fn) {
        void *p = NULL;
        cudaDriverEntryPointQueryResult q;
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q),
                   "looking up cuTensorMapEncodeTiled in the CUDA driver");
        if (q != cudaDriverEntryPointSuccess || !p)
            mod_fail(RC_DEVICE, "%s:%d: kernel cqt needs cuTensorMapEncodeTiled, which this CUDA driver does not provide (driver 12.0 or later; use kernel = cqa)",
                   __FILE__, __LINE__);
        fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
    }
    return fn;
}

/* a 3D FP32 tensor map of dx x dy x dz cells from base (row pitch px, plane
 * pitch pxy elements), read in boxes of bx x by x 1; zero outside */
static void encode_box(CUtensorMap *m, const real *base, int dx, int dy, int dz, int px, long pxy, int bx, int by, const char *what)
{
    const cuuint64_t dim[3] = { (cuuint64_t)dx, (cuuint64_t)dy, (cuuint64_t)dz };
    const cuuint64_t stride[2] = { (cuuint64_t)px * sizeof(real), (cuuint64_t)pxy * sizeof(real) };
    const cuuint32_t box[3] = { (cuuint32_t)bx, (cuuint32_t)by, 1 }, estride[3] = { 1, 1, 1 };
    CUresult r = tensor_map_encoder()(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, (void *)base, dim, stride, box, estride,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        mod_fail(RC_DEVICE, "%s:%d: the tensor map of %s (%d x %d x %d cells, box %d x %d, row pitch %d) was refused by the driver (CUresult %d)",
               __FILE__, __LINE__, what, dx, dy, dz, bx, by, px, (int)r);
}

static void launch(int ki, const S3Grid *g, real k, const real *u, const real *pv, real *out, int zc, cudaStream_t st)
{
    const GpuKernel *K = &table[ki];
    const int naive = !strcmp(K->info.kind, "naive");
    if (naive) zc = 1;
    if (s3_kind_plane32(K->info.kind) && g->pxy > 2147483647L)
        mod_fail(RC_DEVICE, "kernel %s indexes a plane with 32-bit integers: a plane of %ld elements is too large (use kernel = cq)", K->info.kind, g->pxy);
    /* the 16-byte copies of cqa/cqas need 16-byte aligned tile rows: the
     * S3Grid layout gives them (x = 0 on S3_ALIGN, pitch a multiple of it);
     * anything else is refused rather than faulting in cp.async */
    if ((!strncmp(K->info.kind, "cqa", 3) || !strncmp(K->info.kind, "cqt", 3)) && ((size_t)u % 16 || (size_t)pv % 16 || (size_t)out % 16 || g->px % 4))
        mod_fail(RC_DEVICE, "kernel %s copies 16-byte vectors: the field (origin %p, row pitch %d elements) is not 16-byte aligned "
               "with a row pitch that is a multiple of 4 (use kernel = cq)", K->info.kind, (const void *)u, g->px);
    dim3 grid((g->nx + K->info.bx - 1) / K->info.bx, (g->ny + K->info.by - 1) / K->info.by, (g->nz + zc - 1) / zc);
    S3Tma tma;
    memset(&tma, 0, sizeof tma);
    if (!strncmp(K->info.kind, "cqt", 3)) {   /* u: interior + R-wide halo band, from its corner; u^{n-1}: interior */
        const int r = K->info.rad;
        encode_box(&tma.tile, u - r - (long)r * g->px - (long)r * g->pxy, g->nx + 2 * r, g->ny + 2 * r, g->nz + 2 * r,
                   g->px, g->pxy, K->info.bx + 2 * r, K->info.by + 2 * r, "the u^n tiles");
        encode_box(&tma.pv, pv, g->nx, g->ny, g->nz, g->px, g->pxy, K->info.bx, K->info.by, "u^{n-1}");
    }
    K->fn<<<grid, K->info.nthreads, K->info.smem, st>>>(u, pv, out, k, g->nx, g->ny, g->nz, g->px, g->pxy, zc, tma);
    CUDA_CHECK(cudaGetLastError(), "launching a stencil kernel");
}

static real *dev_alloc(const S3Grid *g, const char *what)
{
    real *p; char msg[160];
    snprintf(msg, sizeof msg, "allocating %.1f MB of GPU memory for %s", g->total * sizeof(real) / 1e6, what);
    CUDA_CHECK(cudaMalloc((void **)&p, g->total * sizeof(real)), msg);
    CUDA_CHECK(cudaMemset(p, 0, g->total * sizeof(real)), "clearing a field on the GPU");
    return p;
}

extern "C" double s3_gpu_run(int ki, const S3Grid *g, const S3Case *c, real *u, real *um, int verbose)
{
    const GpuKernel *K = &table[ki];
    const char *why = prepare(ki);
    if (why) mod_fail(RC_DEVICE, "kernel %s %s (%zu bytes of shared memory per block) %s", K->info.kind, K->info.tile, K->info.smem, why);
    const size_t bytes = g->total * sizeof(real);
    real *dA = dev_alloc(g, "u^n"), *dB = dev_alloc(g, "u^{n-1}");
    CUDA_CHECK(cudaMemcpy(dA, u - g->org, bytes, cudaMemcpyHostToDevice), "copying the initial field to the GPU");
    CUDA_CHECK(cudaMemcpy(dB, um - g->org, bytes, cudaMemcpyHostToDevice), "copying the initial field to the GPU");
    int zc = c->zchunk > 0 ? c->zchunk : auto_zchunk(ki, g);
    if (verbose) { printf("gpu: %d planes per thread block\n", strcmp(K->info.kind, "naive") ? zc : 1); fflush(stdout); }
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0), "creating a timing event");
    CUDA_CHECK(cudaEventCreate(&e1), "creating a timing event");
    CUDA_CHECK(cudaEventRecord(e0, 0), "recording a timing event");
    for (long n = 0; n < c->nt; n++) {
        launch(ki, g, c->k, dA + g->org, dB + g->org, dB + g->org, zc, 0);
        real *t = dA; dA = dB; dB = t;
    }
    CUDA_CHECK(cudaEventRecord(e1, 0), "recording a timing event");
    CUDA_CHECK(cudaEventSynchronize(e1), "running the time steps (a kernel failed)");
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1), "reading the timing events");
    CUDA_CHECK(cudaMemcpy(u - g->org, dA, bytes, cudaMemcpyDeviceToHost), "copying the result back from the GPU");
    CUDA_CHECK(cudaMemcpy(um - g->org, dB, bytes, cudaMemcpyDeviceToHost), "copying the result back from the GPU");
    CUDA_CHECK(cudaFree(dA), "freeing GPU memory"); CUDA_CHECK(cudaFree(dB), "freeing GPU memory");
    CUDA_CHECK(cudaEventDestroy(e0), "destroying an event"); CUDA_CHECK(cudaEventDestroy(e1), "destroying an event");
    return ms / 1e3;
}

__global__ void k_copy4(float4 *__restrict__ d, const float4 *__restrict__ s, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) d[i] = s[i];
}

/* Device copy bandwidth (read + write bytes per second): cudaMemcpy D2D and a copy kernel. */
static void copy_bandwidth(double *memcpy_bw, double *kernel_bw)
{
    size_t freeb, totb;
    CUDA_CHECK(cudaMemGetInfo(&freeb, &totb), "reading the free GPU memory");
    size_t bytes = (size_t)1 << 30;
    while (bytes > ((size_t)64 << 20) && 2 * bytes > freeb / 2) bytes /= 2;
    void *a, *b;
    CUDA_CHECK(cudaMalloc(&a, bytes), "allocating the bandwidth test buffers");
    CUDA_CHECK(cudaMalloc(&b, bytes), "allocating the bandwidth test buffers");
    CUDA_CHECK(cudaMemset(a, 0, bytes), "clearing the bandwidth test buffers");
    CUDA_CHECK(cudaMemset(b, 0, bytes), "clearing the bandwidth test buffers");
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0), "creating a timing event");
    CUDA_CHECK(cudaEventCreate(&e1), "creating a timing event");
    const int reps = 10;
    float ms;
    CUDA_CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "copying on the GPU");
    CUDA_CHECK(cudaEventRecord(e0, 0), "recording a timing event");
    for (int r = 0; r < reps; r++) CUDA_CHECK(cudaMemcpyAsync(r & 1 ? a : b, r & 1 ? b : a, bytes, cudaMemcpyDeviceToDevice, 0), "copying on the GPU");
    CUDA_CHECK(cudaEventRecord(e1, 0), "recording a timing event");
    CUDA_CHECK(cudaEventSynchronize(e1), "timing device copies");
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1), "reading the timing events");
    *memcpy_bw = 2.0 * bytes * reps / (ms / 1e3);
    int dev, sms; CUDA_CHECK(cudaGetDevice(&dev), "finding the current GPU");
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "reading the number of SMs");
    size_t n4 = bytes / 16;
    k_copy4<<<sms * 8, 256>>>((float4 *)b, (const float4 *)a, n4);
    CUDA_CHECK(cudaGetLastError(), "launching the copy kernel");
    CUDA_CHECK(cudaEventRecord(e0, 0), "recording a timing event");
    for (int r = 0; r < reps; r++) k_copy4<<<sms * 8, 256>>>((float4 *)(r & 1 ? a : b), (const float4 *)(r & 1 ? b : a), n4);
    CUDA_CHECK(cudaGetLastError(), "launching the copy kernel");
    CUDA_CHECK(cudaEventRecord(e1, 0), "recording a timing event");
    CUDA_CHECK(cudaEventSynchronize(e1), "timing the copy kernel");
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1), "reading the timing events");
    *kernel_bw = 2.0 * bytes * reps / (ms / 1e3);
    CUDA_CHECK(cudaFree(a), "freeing GPU memory"); CUDA_CHECK(cudaFree(b), "freeing GPU memory");
    CUDA_CHECK(cudaEventDestroy(e0), "destroying an event"); CUDA_CHECK(cudaEventDestroy(e1), "destroying an event");
}

extern "C" void s3_gpu_bench(const S3Grid *g, const S3Case *c)
{
    int dev; cudaDeviceProp p;
    CUDA_CHECK(cudaGetDevice(&dev), "finding the current GPU");
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev), "reading the GPU properties");
#ifdef S3_FMA_BUILD
    const char *build = "FMA build (--fmad=true, not bit-identical)";
#else
    const char *build = "strict build (--fmad=false, bit-identical)";
#endif
    printf("bench: device %s, %d SMs, %.1f GB, %s\n", p.name, p.multiProcessorCount, p.totalGlobalMem / 1e9, build);
    double bw_mc, bw_k;
    copy_bandwidth(&bw_mc, &bw_k);
    double bw = bw_mc > bw_k ? bw_mc : bw_k;
    const int bpc = c->eq_id == S3_WAVE ? 12 : 8;     /* wave: read u^n, u^{n-1}, write u^{n+1}; heat: read, write */
    printf("bench: copy bandwidth memcpy %.1f GB/s, copy kernel %.1f GB/s; floor at %.1f GB/s and %d B/cell = %.1f Gcells/s\n",
           bw_mc / 1e9, bw_k / 1e9, bw / 1e9, bpc, bw / bpc / 1e9);
    fflush(stdout);

    real *h = s3_alloc(g, "the initial field");
    s3_init_field(g, c, h + g->org);
    real *dA = dev_alloc(g, "u^n"), *dB = dev_alloc(g, "u^{n-1}");
    const size_t bytes = g->total * sizeof(real);
    const double cells = (double)g->nx * g->ny * g->nz;
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0), "creating a timing event");
    CUDA_CHECK(cudaEventCreate(&e1), "creating a timing event");
    for (int ki = 0; ki < s3_gpu_kernel_count(); ki++) {
        const GpuKernel *K = &table[ki];
        if (K->info.eq != c->eq_id || !s3_bench_wants(c->bench_only, K->info.kind, K->info.tile, s3_stencil_name(K->info.stencil))) continue;
        const char *why = prepare(ki);
        if (why) {
            printf("bench: kernel=%s tile=%s stencil=%s eq=%s skipped: it %s (%zu B of shared memory per block)\n",
                   K->info.kind, K->info.tile, s3_stencil_name(K->info.stencil), s3_eq_name(K->info.eq), why, K->info.smem);
            continue;
        }
        /* a stable coefficient for this kernel's stencil */
        double lim = c->eq_id == S3_WAVE ? 2.0 / sqrt(s3_lap_max(K->info.stencil)) : 2.0 / s3_lap_max(K->info.stencil);
        real k = c->eq_id == S3_WAVE ? (real)(0.64 * lim * lim) : (real)(0.8 * lim);
        CUDA_CHECK(cudaMemcpy(dA, h, bytes, cudaMemcpyHostToDevice), "copying the initial field to the GPU");
        CUDA_CHECK(cudaMemcpy(dB, h, bytes, cudaMemcpyHostToDevice), "copying the initial field to the GPU");
        int zc = c->zchunk > 0 ? c->zchunk : auto_zchunk(ki, g);
        for (int w = 0; w < 2; w++) { launch(ki, g, k, dA + g->org, dB + g->org, dB + g->org, zc, 0); real *t = dA; dA = dB; dB = t; }
        CUDA_CHECK(cudaEventRecord(e0, 0), "recording a timing event");
        for (int r = 0; r < c->reps; r++) { launch(ki, g, k, dA + g->org, dB + g->org, dB + g->org, zc, 0); real *t = dA; dA = dB; dB = t; }
        CUDA_CHECK(cudaEventRecord(e1, 0), "recording a timing event");
        CUDA_CHECK(cudaEventSynchronize(e1), "running the benchmark steps (a kernel failed)");
        float ms; CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1), "reading the timing events");
        double s = ms / 1e3 / c->reps, gc = cells / s / 1e9;
        /* resources: registers per thread, resident blocks per SM, blocks in the grid */
        cudaFuncAttributes fa; int per_sm = 0;
        CUDA_CHECK(cudaFuncGetAttributes(&fa, (const void *)K->fn), "reading a kernel's attributes");
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)K->fn, K->info.nthreads, K->info.smem),
                   "computing the occupancy of a kernel");
        const int zce = strcmp(K->info.kind, "naive") ? zc : 1;
        const long nblk = (long)((g->nx + K->info.bx - 1) / K->info.bx) * ((g->ny + K->info.by - 1) / K->info.by) * ((g->nz + zce - 1) / zce);
        printf("bench: kernel=%s tile=%s stencil=%s eq=%s zchunk=%d ms_per_step=%.4f gcells=%.2f eff_gbs=%.1f pct_floor=%.1f"
               " regs=%d smem_kb=%.1f blk_per_sm=%d threads=%d blocks=%ld waves=%.2f\n",
               K->info.kind, K->info.tile, s3_stencil_name(K->info.stencil), s3_eq_name(K->info.eq),
               zce, s * 1e3, gc, gc * bpc, 100.0 * gc * 1e9 / (bw / bpc),
               fa.numRegs, K->info.smem / 1024.0, per_sm, K->info.nthreads, nblk,
               per_sm > 0 ? (double)nblk / ((double)per_sm * p.multiProcessorCount) : 0.0);
        fflush(stdout);
    }
    CUDA_CHECK(cudaFree(dA), "freeing GPU memory"); CUDA_CHECK(cudaFree(dB), "freeing GPU memory");
    CUDA_CHECK(cudaEventDestroy(e0), "destroying an event"); CUDA_CHECK(cudaEventDestroy(e1), "destroying an event");
    free(h);
}
