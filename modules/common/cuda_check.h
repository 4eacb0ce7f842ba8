/* cuda_check.h - the CUDA error check of the modules' .cu files: a failing
 * runtime call ends the program through mod_fail with exit code RC_DEVICE and
 * "FILE:LINE: CUDA error while WHAT: MESSAGE (CALL)". Include after
 * <cuda_runtime.h>, or after cuda/common/adiflow_gpu_vendor.h, whose HIP
 * build makes it "HIP error" (the call keeps its CUDA name as written). */
#ifndef MOD_CUDA_CHECK_H
#define MOD_CUDA_CHECK_H

#include "fail.h"

#ifdef ADI_GPU_API_NAME
#define MOD_GPU_API_NAME ADI_GPU_API_NAME
#else
#define MOD_GPU_API_NAME "CUDA"
#endif

#define CUDA_CHECK(call, what) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    mod_fail(RC_DEVICE, "%s:%d: " MOD_GPU_API_NAME " error while %s: %s (%s)", __FILE__, __LINE__, what, cudaGetErrorString(e_), #call); } while (0)

#endif
