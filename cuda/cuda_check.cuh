/* Error checks of the CUDA backend. Every CUDA call and kernel launch goes
 * through one of these macros; a failure records where it happened (file:line),
 * what was being done, the CUDA error and advice for the user (bridge.cu,
 * adi_cuda_fail), and makes the enclosing function return the bridge status
 * (ADI_ERR_CUDA, or ADI_ERR_MEMORY for an allocation that did not fit). */
#ifndef ADIFLOW_CUDA_CHECK_CUH
#define ADIFLOW_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "adiflow_bridge.h"

/* Records the failure for adi_gpu_error_message; returns the status code. */
int adi_cuda_fail(cudaError_t err, const char *what, const char *file, int line);

#define ADI_CUDA_CHECK(call)                                                    \
  do {                                                                          \
    cudaError_t adi_err_ = (call);                                              \
    if (adi_err_ != cudaSuccess)                                                \
      return adi_cuda_fail(adi_err_, #call, __FILE__, __LINE__);                \
  } while (0)

/* After a <<<...>>> launch: configuration errors show at once, faults inside
 * the kernel at the next synchronising call. */
#define ADI_LAUNCH_CHECK(kernel_name)                                           \
  do {                                                                          \
    cudaError_t adi_err_ = cudaGetLastError();                                  \
    if (adi_err_ != cudaSuccess)                                                \
      return adi_cuda_fail(adi_err_, "launch of " kernel_name, __FILE__, __LINE__); \
  } while (0)

#endif
