/* Compile-only check of cuda/common/adiflow_gpu_vendor.h: every name and helper
 * it offers, used the way kernel authors are told to (hip/README.md), must
 * compile with nvcc and with hipcc. Nothing here runs; `make hip` compiles
 * it for every HIP_ARCH, `make gpu-vendor-check` with nvcc as well. */
#include "adiflow_gpu_vendor.h"

enum { CHECK_BLOCK = 256 };                 /* a multiple of ADI_WARP_SIZE_MAX */
static_assert(CHECK_BLOCK % ADI_WARP_SIZE_MAX == 0, "block is not a whole number of 64-lane warps");

/* a block sum: per-warp shuffles, one partial per warp in shared memory */
__device__ static double block_sum(double x)
{
  __shared__ double partial[CHECK_BLOCK / 32];   /* room for the smallest warp (32) */
  const int lane = (int)threadIdx.x % ADI_WARP_SIZE, warp = (int)threadIdx.x / ADI_WARP_SIZE;
  for (int off = ADI_WARP_SIZE / 2; off > 0; off /= 2) x += adi_shfl_down(x, (unsigned)off);
  if (lane == 0) partial[warp] = x;
  __syncthreads();
  x = (int)threadIdx.x < CHECK_BLOCK / ADI_WARP_SIZE ? partial[threadIdx.x] : 0.0;
  if (warp == 0)
    for (int off = ADI_WARP_SIZE / 2; off > 0; off /= 2) x += adi_shfl_xor(x, off);
  return x;
}

__global__ void check_kernel(const double *in, double *out, unsigned long long *masks, int n)
{
  extern __shared__ double tile[];
  const int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  double x = t < n ? in[t] : 0.0;
  adi_lanemask_t m = adi_ballot(x > 0.0);
  tile[threadIdx.x] = x;
  adi_syncwarp();
  x += adi_shfl(tile[threadIdx.x], 0) + adi_shfl_up(x, 1u);
  x = block_sum(x);
  if (threadIdx.x == 0) out[blockIdx.x] = x;
  if ((int)threadIdx.x % ADI_WARP_SIZE == 0) masks[t / ADI_WARP_SIZE] = (unsigned long long)m;
#if ADI_HAS_HOPPER
  /* Hopper-only paths go here, each with the portable code as its fallback */
#endif
}

/* CUDA-style code must compile unchanged through the header's mapping */
__global__ void check_cuda_style(float *a)
{
  float v = a[threadIdx.x];
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  v += __shfl_down_sync(0xffffffffu, v, 2, 16);
  v += __shfl_sync(0xffffffffu, v, 0);
  v += __shfl_up_sync(0xffffffffu, v, 1);
  adi_lanemask_t b = __ballot_sync(0xffffffffu, v > 0.0f), act = __activemask();
  __syncwarp();
  a[threadIdx.x] = v + (float)(b & act);
}

ADI_ASSERT_SHMEM_TILE(CHECK_BLOCK * sizeof(double));

int gpu_vendor_check_host(void)
{
  struct cudaDeviceProp prop;
  struct cudaFuncAttributes attr;
  cudaStream_t s;
  cudaEvent_t e;
  double *d = NULL, *h = NULL;
  size_t shmem = CHECK_BLOCK * sizeof(double), free_b, total_b;
  int dev = 0, value = 0;
  adi_gpu_error_t err = cudaGetDeviceProperties(&prop, dev);
  if (err != ADI_GPU_SUCCESS) return (int)err;
  if (shmem > ADI_PROP_SHMEM_PER_BLOCK(prop) || prop.warpSize > ADI_WARP_SIZE_MAX) return -1;
  cudaFuncGetAttributes(&attr, check_kernel);
  adi_gpu_allow_dynamic_shared(check_kernel, shmem);
  cudaFuncSetAttribute(check_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem);
  cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, dev);
  cudaMemGetInfo(&free_b, &total_b);
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  cudaMalloc((void **)&d, 2 * shmem);
  cudaMallocHost((void **)&h, shmem);
  cudaMemsetAsync(d, 0, shmem, s);
  check_kernel<<<1, CHECK_BLOCK, shmem, s>>>(d, d + CHECK_BLOCK, (unsigned long long *)h, CHECK_BLOCK);
  check_cuda_style<<<1, 64, 0, s>>>((float *)d);
  err = cudaGetLastError();
  {
    cudaGraph_t g = NULL;
    cudaGraphExec_t x = NULL;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    check_cuda_style<<<1, 64, 0, s>>>((float *)d);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&x, g, 0);
    cudaGraphLaunch(x, s);
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
  }
  cudaMemcpyAsync(h, d, shmem, cudaMemcpyDeviceToHost, s);
  {
    /* the multi-GPU paths (modules/wave): peers, a high-priority stream */
    int can = 0, lo = 0, hi = 0;
    cudaStream_t p;
    cudaDeviceCanAccessPeer(&can, dev, dev + 1);
    if (can && cudaDeviceEnablePeerAccess(dev + 1, 0) == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
    cudaDeviceGetStreamPriorityRange(&lo, &hi);
    cudaStreamCreateWithPriority(&p, cudaStreamNonBlocking, hi);
    cudaMemcpyPeerAsync(d + CHECK_BLOCK, dev, d, dev, shmem / 2, p);
    cudaStreamSynchronize(p);
    cudaStreamDestroy(p);
  }
  cudaEventRecord(e, s);
  cudaStreamWaitEvent(s, e, 0);
  cudaStreamSynchronize(s);
  cudaFreeHost(h);
  cudaFree(d);
  cudaEventDestroy(e);
  cudaStreamDestroy(s);
  if (err != ADI_GPU_SUCCESS && cudaGetErrorName(err) != NULL && cudaGetErrorString(err) != NULL) return (int)err;
  return 0;
}
