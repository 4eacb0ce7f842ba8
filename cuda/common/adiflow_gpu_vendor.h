/* One GPU source, two runtimes. The kernels and the bridge in cuda/ are
 * written with CUDA's names; this header is the only place that knows which
 * runtime compiles them (the approach of ggml's vendors/cuda.h and
 * vendors/hip.h, in one file):
 *
 *   nvcc   (make)      CUDA: <cuda_runtime.h>, every name unchanged. A
 *                      CUDA-compatible accelerator whose toolchain takes CUDA
 *                      source directly takes this branch too.
 *   hipcc  (make hip)  HIP on AMD GPUs and DCU-class accelerators:
 *                      <hip/hip_runtime.h>, and every CUDA name the sources
 *                      use is #defined to its HIP twin below. No copies of
 *                      the kernels exist; hip/README.md explains.
 *
 * Besides the names, for both runtimes alike:
 *   ADI_GPU_CUDA, ADI_GPU_HIP     which runtime compiles (one is 1, one is 0)
 *   ADI_GPU_API_NAME              "CUDA" or "HIP", for messages; with
 *   ADI_GPU_API_PREFIX, ADI_GPU_SMI, ADI_GPU_VISIBLE_ENV   "cuda"/"hip",
 *                                 "nvidia-smi"/"rocm-smi", CUDA_/HIP_VISIBLE_DEVICES
 *   ADI_GPU_SERIALIZE_ENV         the setting that makes a failing kernel report
 *                                 itself: CUDA_LAUNCH_BLOCKING=1, AMD_SERIALIZE_KERNEL=3
 *   ADI_GPU_CCL_NAME              the collective library of the multi-GPU
 *                                 block mode: "NCCL", or "RCCL" (NCCL's API)
 *   adi_gpu_error_t, ADI_GPU_SUCCESS
 *                                 the error type with a neutral name (the
 *                                 check macros ADI_GPU_CHECK and
 *                                 ADI_LAUNCH_CHECK are in cuda/common/gpu_check.cuh,
 *                                 next to the bridge's error recorder)
 *   ADI_WARP_SIZE                 warp (wavefront) size of the target being
 *                                 compiled, for device code: 32 on NVIDIA,
 *                                 64 on GCN/CDNA (gfx906 DCU, gfx90a, gfx942),
 *                                 32 on RDNA. Host code asks the device
 *                                 (prop.warpSize); see the note at its definition.
 *   ADI_WARP_SIZE_MAX             64, the largest warp: per-warp scratch and
 *                                 block sizes are sized for it
 *   adi_lanemask_t                a lane mask, 64 bits on both runtimes
 *   adi_shfl, adi_shfl_xor, adi_shfl_up, adi_shfl_down, adi_ballot, adi_syncwarp
 *                                 whole-warp operations on both runtimes; the
 *                                 CUDA forms __shfl_*_sync, __ballot_sync,
 *                                 __activemask and __syncwarp are mapped for
 *                                 HIP too, but new code uses the adi_ forms
 *   ADI_SHMEM_TILE_MAX            64 KiB: the most shared memory a block may
 *                                 use (the LDS of an AMD/DCU workgroup);
 *                                 ADI_ASSERT_SHMEM_TILE(bytes) checks a tile
 *                                 at compile time
 *   adi_gpu_allow_dynamic_shared  the opt-in NVIDIA needs above 48 KiB of
 *                                 dynamic shared memory; nothing to do on HIP
 *   ADI_PROP_SHMEM_PER_BLOCK(p)   the device's per-block shared-memory limit
 *   adi_launch_dep, adi_dep_wait  a launch that may overlap the kernel before it
 *                                 (CUDA's programmatic dependent launch), and the
 *                                 wait such a kernel does first; on HIP an
 *                                 ordinary launch and no wait
 *   ADI_HAS_HOPPER                1 only in device code compiled for sm_90+:
 *                                 the portable core uses sm_70 features only,
 *                                 anything Hopper-only sits behind this guard
 *                                 with a portable fallback.
 *
 * Rules for kernel authors: hip/README.md, "Writing kernels for both".
 */
#ifndef ADIFLOW_GPU_VENDOR_H
#define ADIFLOW_GPU_VENDOR_H

#include <stddef.h>
#include <stdint.h>

#if defined(__HIPCC__) || defined(__HIP__) || defined(ADI_GPU_FORCE_HIP)
#define ADI_GPU_HIP 1
#define ADI_GPU_CUDA 0
#else
#define ADI_GPU_HIP 0
#define ADI_GPU_CUDA 1
#endif

typedef uint64_t adi_lanemask_t;
#define ADI_WARP_SIZE_MAX 64
#define ADI_SHMEM_TILE_MAX (64 * 1024)
#define ADI_ASSERT_SHMEM_TILE(bytes)                                                 \
  static_assert((bytes) <= ADI_SHMEM_TILE_MAX,                                       \
                "shared-memory tile larger than 64 KiB, the per-block limit of AMD/DCU GPUs")

/* ===================================================================== CUDA */
#if ADI_GPU_CUDA

#include <cuda_runtime.h>

#define ADI_GPU_API_NAME "CUDA"
#define ADI_GPU_API_PREFIX "cuda"                    /* of the API's function names */
#define ADI_GPU_SMI "nvidia-smi"
#define ADI_GPU_VISIBLE_ENV "CUDA_VISIBLE_DEVICES"
#define ADI_GPU_SERIALIZE_ENV "CUDA_LAUNCH_BLOCKING=1"
#define ADI_GPU_CCL_NAME "NCCL"
typedef cudaError_t adi_gpu_error_t;
#define ADI_GPU_SUCCESS cudaSuccess

/* CUDA defines warpSize as a run-time value; the architecture fixes it at 32. */
#define ADI_WARP_SIZE 32
#define ADI_SHMEM_DEFAULT_MAX (48 * 1024)   /* per block without cudaFuncSetAttribute */
#define ADI_PROP_SHMEM_PER_BLOCK(p) ((p).sharedMemPerBlockOptin)
#define ADI_PROP_SHMEM_PER_BLOCK_NAME "sharedMemPerBlockOptin"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define ADI_HAS_HOPPER 1
#else
#define ADI_HAS_HOPPER 0
#endif

#ifdef __CUDACC__
#define ADI_FULL_WARP 0xffffffffu           /* every lane of a 32-lane warp */
template <typename T> __device__ __forceinline__ T adi_shfl(T v, int src, int width = ADI_WARP_SIZE)
{ return __shfl_sync(ADI_FULL_WARP, v, src, width); }
template <typename T> __device__ __forceinline__ T adi_shfl_xor(T v, int mask, int width = ADI_WARP_SIZE)
{ return __shfl_xor_sync(ADI_FULL_WARP, v, mask, width); }
template <typename T> __device__ __forceinline__ T adi_shfl_up(T v, unsigned delta, int width = ADI_WARP_SIZE)
{ return __shfl_up_sync(ADI_FULL_WARP, v, delta, width); }
template <typename T> __device__ __forceinline__ T adi_shfl_down(T v, unsigned delta, int width = ADI_WARP_SIZE)
{ return __shfl_down_sync(ADI_FULL_WARP, v, delta, width); }
__device__ __forceinline__ adi_lanemask_t adi_ballot(int pred)
{ return (adi_lanemask_t)__ballot_sync(ADI_FULL_WARP, pred); }
__device__ __forceinline__ void adi_syncwarp(void) { __syncwarp(); }

template <typename F> static inline cudaError_t adi_gpu_allow_dynamic_shared(F *kernel, size_t bytes)
{
  if (bytes <= ADI_SHMEM_DEFAULT_MAX) return cudaSuccess;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

/* Programmatic dependent launch (sm_90 and later): a kernel started by
 * adi_launch_dep(..., dep = 1, ...) may be scheduled while the kernel
 * before it in the stream drains, so that its launch and set-up overlap
 * that kernel's last blocks; before it touches global memory it calls
 * adi_dep_wait(), which returns once the kernel before has finished and its
 * writes are visible. It needs compute capability 9.0 (the caller checks).
 * dep = 0: an ordinary launch (adi_dep_wait() then returns at once). */
__device__ __forceinline__ void adi_dep_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}
template <typename... P, typename... A>
static inline cudaError_t adi_launch_dep(int dep, void (*kernel)(P...), dim3 grid, dim3 block, size_t smem,
                                         cudaStream_t s, A... args)
{
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute at[1];
  if (!dep) {
    kernel<<<grid, block, smem, s>>>(static_cast<P>(args)...);
    return cudaGetLastError();
  }
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, static_cast<P>(args)...);
}
#endif /* __CUDACC__ */

/* ====================================================================== HIP */
#else

#include <hip/hip_runtime.h>

#define ADI_GPU_API_NAME "HIP"
#define ADI_GPU_API_PREFIX "hip"
#define ADI_GPU_SMI "rocm-smi"
#define ADI_GPU_VISIBLE_ENV "HIP_VISIBLE_DEVICES"
#define ADI_GPU_SERIALIZE_ENV "AMD_SERIALIZE_KERNEL=3"
#define ADI_GPU_CCL_NAME "RCCL"
typedef hipError_t adi_gpu_error_t;
#define ADI_GPU_SUCCESS hipSuccess

/* The wavefront size is a property of the target: clang defines
 * __AMDGCN_WAVEFRONT_SIZE in each device pass (64 on gfx9, 32 on gfx10+
 * unless built with -mwavefrontsize64). The host pass of hipcc sees no
 * target, so there ADI_WARP_SIZE is only a placeholder that keeps shared
 * array declarations well formed: host code must use prop.warpSize. */
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN_WAVEFRONT_SIZE)
#define ADI_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#define ADI_WARP_SIZE ADI_WARP_SIZE_MAX
#endif
#define ADI_SHMEM_DEFAULT_MAX ADI_SHMEM_TILE_MAX   /* AMD has no opt-in step */
#define ADI_PROP_SHMEM_PER_BLOCK(p) ((p).sharedMemPerBlock)
#define ADI_PROP_SHMEM_PER_BLOCK_NAME "sharedMemPerBlock"
#define ADI_HAS_HOPPER 0

/* whole-wavefront operations: HIP's forms take no mask (every lane takes part) */
template <typename T> __device__ __forceinline__ T adi_shfl(T v, int src, int width = ADI_WARP_SIZE)
{ return __shfl(v, src, width); }
template <typename T> __device__ __forceinline__ T adi_shfl_xor(T v, int mask, int width = ADI_WARP_SIZE)
{ return __shfl_xor(v, mask, width); }
template <typename T> __device__ __forceinline__ T adi_shfl_up(T v, unsigned delta, int width = ADI_WARP_SIZE)
{ return __shfl_up(v, delta, width); }
template <typename T> __device__ __forceinline__ T adi_shfl_down(T v, unsigned delta, int width = ADI_WARP_SIZE)
{ return __shfl_down(v, delta, width); }
__device__ __forceinline__ adi_lanemask_t adi_ballot(int pred) { return (adi_lanemask_t)__ballot(pred); }
/* A wavefront runs in lockstep: __syncwarp's job is the memory ordering
 * between its lanes and keeping the compiler from moving accesses across. */
__device__ __forceinline__ void adi_syncwarp(void)
{
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

template <typename F> static inline hipError_t adi_gpu_allow_dynamic_shared(F *kernel, size_t bytes)
{
  (void)kernel; (void)bytes;
  return hipSuccess;
}

/* no programmatic dependent launch: adi_launch_dep is an ordinary launch */
__device__ __forceinline__ void adi_dep_wait(void) {}
template <typename... P, typename... A>
static inline hipError_t adi_launch_dep(int dep, void (*kernel)(P...), dim3 grid, dim3 block, size_t smem,
                                        hipStream_t s, A... args)
{
  (void)dep;
  kernel<<<grid, block, smem, s>>>(static_cast<P>(args)...);
  return hipGetLastError();
}

/* CUDA's warp intrinsics, for code written the CUDA way (ROCm before 6.2 has
 * no _sync forms). The mask is dropped: every lane of the wavefront must take
 * part, as with the adi_ forms. __ballot_sync and __activemask return 64-bit
 * masks here: keep them in adi_lanemask_t, never in a 32-bit unsigned. */
#define __shfl_sync(mask, ...) __shfl(__VA_ARGS__)
#define __shfl_xor_sync(mask, ...) __shfl_xor(__VA_ARGS__)
#define __shfl_up_sync(mask, ...) __shfl_up(__VA_ARGS__)
#define __shfl_down_sync(mask, ...) __shfl_down(__VA_ARGS__)
#define __ballot_sync(mask, pred) __ballot(pred)
#define __activemask() __ballot(1)
#define __syncwarp(...) adi_syncwarp()

/* API functions whose HIP twin takes a const void * for the kernel */
template <typename F> static inline hipError_t adi_hip_func_get_attributes(hipFuncAttributes *attr, F *kernel)
{ return hipFuncGetAttributes(attr, reinterpret_cast<const void *>(kernel)); }
template <typename F> static inline hipError_t adi_hip_func_set_attribute(F *kernel, hipFuncAttribute attr, int value)
{ return hipFuncSetAttribute(reinterpret_cast<const void *>(kernel), attr, value); }

/* ---- names: types and constants */
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaStream_t hipStream_t
#define cudaEvent_t hipEvent_t
#define cudaDeviceProp hipDeviceProp_t
#define cudaFuncAttributes hipFuncAttributes
#define cudaFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define cudaFuncAttributePreferredSharedMemoryCarveout hipFuncAttributePreferredSharedMemoryCarveout
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyDefault hipMemcpyDefault
#define cudaStreamDefault hipStreamDefault
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaEventDefault hipEventDefault
#define cudaEventDisableTiming hipEventDisableTiming
#define cudaDevAttrMaxSharedMemoryPerBlock hipDeviceAttributeMaxSharedMemoryPerBlock
#define cudaDevAttrMaxSharedMemoryPerBlockOptin hipDeviceAttributeSharedMemPerBlockOptin
#define cudaDevAttrWarpSize hipDeviceAttributeWarpSize
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount

/* ---- names: error codes that have a HIP twin (cuda/common/runtime.cu's advice for HIP
 * errors is its own function: several CUDA codes have none) */
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaErrorInvalidValue hipErrorInvalidValue
#define cudaErrorNotReady hipErrorNotReady
#define cudaErrorNoDevice hipErrorNoDevice
#define cudaErrorInvalidDevice hipErrorInvalidDevice
#define cudaErrorInsufficientDriver hipErrorInsufficientDriver
#define cudaErrorNoKernelImageForDevice hipErrorNoBinaryForGpu
#define cudaErrorInvalidDeviceFunction hipErrorInvalidDeviceFunction
#define cudaErrorIllegalAddress hipErrorIllegalAddress
#define cudaErrorLaunchFailure hipErrorLaunchFailure
#define cudaErrorLaunchOutOfResources hipErrorLaunchOutOfResources
#define cudaErrorLaunchTimeout hipErrorLaunchTimeOut
#define cudaErrorECCUncorrectable hipErrorECCNotCorrectable
#define cudaErrorPeerAccessAlreadyEnabled hipErrorPeerAccessAlreadyEnabled

/* ---- names: functions */
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaPeekAtLastError hipPeekAtLastError
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDevice hipGetDevice
#define cudaSetDevice hipSetDevice
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaDeviceReset hipDeviceReset
#define cudaDriverGetVersion hipDriverGetVersion
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cudaMemGetInfo hipMemGetInfo
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMallocHost(ptr, size) hipHostMalloc(ptr, size, hipHostMallocDefault)
#define cudaFreeHost hipHostFree
#define cudaHostRegister hipHostRegister
#define cudaHostUnregister hipHostUnregister
#define cudaHostRegisterDefault hipHostRegisterDefault
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyPeerAsync hipMemcpyPeerAsync
#define cudaDeviceCanAccessPeer hipDeviceCanAccessPeer
#define cudaDeviceEnablePeerAccess hipDeviceEnablePeerAccess
#define cudaMemcpy2D hipMemcpy2D
#define cudaMemcpy2DAsync hipMemcpy2DAsync
#define cudaMemset hipMemset
#define cudaMemsetAsync hipMemsetAsync
#define cudaStreamCreate hipStreamCreate
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamCreateWithPriority hipStreamCreateWithPriority
#define cudaDeviceGetStreamPriorityRange hipDeviceGetStreamPriorityRange
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamWaitEvent hipStreamWaitEvent
#define cudaStreamQuery hipStreamQuery
#define cudaEventCreate hipEventCreate
#define cudaEventCreateWithFlags hipEventCreateWithFlags
#define cudaEventDestroy hipEventDestroy
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventQuery hipEventQuery
#define cudaFuncGetAttributes adi_hip_func_get_attributes
#define cudaFuncSetAttribute adi_hip_func_set_attribute
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor

/* ---- names: graphs (stream capture). CUDA 12's three-argument
 * cudaGraphInstantiate is HIP's hipGraphInstantiateWithFlags. The merged
 * schedule uses them on HIP only when built with make hip HIP_GRAPHS=1
 * (-DADIFLOW_HIP_GRAPHS). */
#define cudaGraph_t hipGraph_t
#define cudaGraphExec_t hipGraphExec_t
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaStreamCaptureModeGlobal hipStreamCaptureModeGlobal
#define cudaStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define cudaStreamCaptureModeRelaxed hipStreamCaptureModeRelaxed
#define cudaGraphInstantiate(exec, graph, flags) hipGraphInstantiateWithFlags(exec, graph, flags)
#define cudaGraphInstantiateFlagUseNodePriority hipGraphInstantiateFlagUseNodePriority
#define cudaGraphLaunch hipGraphLaunch
#define cudaGraphExecDestroy hipGraphExecDestroy
#define cudaGraphDestroy hipGraphDestroy

#endif /* ADI_GPU_HIP */
#endif
