/* afp_gpu_check.h - the checks of the GPU path's CUDA, MPI and NCCL calls.
 * Every call goes through one of these; a failure records, for afp_error(),
 * "FILE:LINE: CUDA error while WHAT: MESSAGE (CALL)" (the wording of the
 * modules' CUDA_CHECK, modules/common/cuda_check.h; "out of device memory
 * while ..." for an allocation that did not fit, "MPI error", "NCCL error")
 * and makes the enclosing function return -1. Unlike the module programs, a
 * plugin must not exit: adiflowPCG.C raises the message as an OpenFOAM
 * FatalError. Include after <cuda_runtime.h>, <mpi.h> and "afp.h". */
#ifndef AFP_GPU_CHECK_H
#define AFP_GPU_CHECK_H

#include <fenv.h>

#define AFP_CUDA_CHECK(call, what) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    return afp_set_error(__FILE__, __LINE__, "%s while %s: %s (%s)", \
                         e_ == cudaErrorMemoryAllocation ? "out of device memory" : "CUDA error", \
                         what, cudaGetErrorString(e_), #call); } while (0)

/* after a <<<...>>> launch: a bad configuration shows at once, a fault
 * inside the kernel at the next synchronising call */
#define AFP_LAUNCH_CHECK(kernel) do { cudaError_t e_ = cudaGetLastError(); if (e_ != cudaSuccess) \
    return afp_set_error(__FILE__, __LINE__, "CUDA error while launching %s: %s", kernel, cudaGetErrorString(e_)); } while (0)

#define AFP_MPI_CHECK(call, what) do { int e_ = (call); if (e_ != MPI_SUCCESS) { \
    char s_[MPI_MAX_ERROR_STRING]; int l_ = 0; MPI_Error_string(e_, s_, &l_); \
    return afp_set_error(__FILE__, __LINE__, "MPI error while %s: %s (%s)", what, s_, #call); } } while (0)

/* OpenFOAM traps floating-point exceptions (FOAM_SIGFPE: division by zero,
 * invalid, overflow raise SIGFPE); NCCL's host code does not expect that (its
 * topology search in ncclCommInitRank divides by zero: SIGFPE on 2 H200s).
 * Every NCCL call runs with the traps held off (feholdexcept) and OpenFOAM's
 * environment put back afterwards; the threads NCCL starts inside a call
 * inherit the non-trapping environment. nccl: the afp_nccl of the handle. */
#define AFP_NCCL_CHECK(nccl, call, what) do { fenv_t fe_; feholdexcept(&fe_); int e_ = (call); fesetenv(&fe_); \
    if (e_ != 0) return afp_set_error(__FILE__, __LINE__, "NCCL error while %s: %s (%s)", what, \
                                      (nccl).err ? (nccl).err(e_) : "?", #call); } while (0)

/* a call of this path that has recorded its failure already */
#define AFP_TRY(call) do { if ((call) != 0) return -1; } while (0)

#endif
