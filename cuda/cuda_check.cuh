/* Error checks of the GPU backend (CUDA, or HIP through
 * include/adiflow_gpu_vendor.h). Every runtime call and kernel launch goes
 * through one of these macros; a failure records where it happened (file:line),
 * what was being done, the runtime's error and advice for the user (bridge.cu,
 * adi_cuda_fail), and makes the enclosing function return the bridge status
 * (ADI_ERR_CUDA, or ADI_ERR_MEMORY for an allocation that did not fit).
 * ADI_GPU_CHECK is the neutral name; ADI_CUDA_CHECK is the same macro. */
#ifndef ADIFLOW_CUDA_CHECK_CUH
#define ADIFLOW_CUDA_CHECK_CUH

#include "adiflow_gpu_vendor.h"
#include "adiflow_bridge.h"

/* Records the failure for adi_gpu_error_message; returns the status code. */
int adi_cuda_fail(adi_gpu_error_t err, const char *what, const char *file, int line);

/* Records a failure in words (not a runtime error code); returns status. */
int adi_gpu_fail_msg(int status, const char *fmt, ...);

#define ADI_GPU_CHECK(call)                                                     \
  do {                                                                          \
    adi_gpu_error_t adi_err_ = (call);                                          \
    if (adi_err_ != ADI_GPU_SUCCESS)                                            \
      return adi_cuda_fail(adi_err_, #call, __FILE__, __LINE__);                \
  } while (0)
#define ADI_CUDA_CHECK(call) ADI_GPU_CHECK(call)

/* After a <<<...>>> launch: configuration errors show at once, faults inside
 * the kernel at the next synchronising call. */
#define ADI_LAUNCH_CHECK(kernel_name)                                           \
  do {                                                                          \
    adi_gpu_error_t adi_err_ = cudaGetLastError();                              \
    if (adi_err_ != ADI_GPU_SUCCESS)                                            \
      return adi_cuda_fail(adi_err_, "launch of " kernel_name, __FILE__, __LINE__); \
  } while (0)

#endif
