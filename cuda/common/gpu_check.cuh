/* Error checks of the GPU backend (CUDA, or HIP through
 * cuda/common/adiflow_gpu_vendor.h). Every runtime call and kernel launch
 * goes through one of these macros; a failure records where it happened
 * (file:line), what was being done, the runtime's error and advice for the
 * user (adi_gpu_fail, cuda/common/runtime.cu), and makes the enclosing
 * function return the bridge status (ADI_ERR_CUDA, or ADI_ERR_MEMORY for an
 * allocation that did not fit). */
#ifndef ADIFLOW_GPU_CHECK_CUH
#define ADIFLOW_GPU_CHECK_CUH

#include "adiflow_gpu_vendor.h"
#include "runtime.cuh"

/* the call as text after the vendor header's renaming: a HIP build names
 * the HIP function that failed (hipMalloc), a CUDA build the CUDA one */
#define ADI_GPU_STR_(x) #x
#define ADI_GPU_STR(x) ADI_GPU_STR_(x)

#define ADI_GPU_CHECK(call)                                                     \
  do {                                                                          \
    adi_gpu_error_t adi_err_ = (call);                                          \
    if (adi_err_ != ADI_GPU_SUCCESS)                                            \
      return adi_gpu_fail(adi_err_, ADI_GPU_STR(call), __FILE__, __LINE__);     \
  } while (0)

/* After a <<<...>>> launch: configuration errors show at once, faults inside
 * the kernel at the next synchronising call. */
#define ADI_LAUNCH_CHECK(kernel_name)                                           \
  do {                                                                          \
    adi_gpu_error_t adi_err_ = cudaGetLastError();                              \
    if (adi_err_ != ADI_GPU_SUCCESS)                                            \
      return adi_gpu_fail(adi_err_, "launch of " kernel_name, __FILE__, __LINE__); \
  } while (0)

#endif
