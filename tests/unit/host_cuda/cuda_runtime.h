/* A host-memory stand-in for the CUDA runtime calls that
 * cuda/multi/transport_mpi.cu makes, so that tests/unit/block_transport_check.cc
 * runs that transport's own logic (groups, staging, message pairing, both
 * channels, its errors) under mpirun where there is no GPU: CI.
 * "Device" buffers are host memory, a copy happens when it is queued,
 * streams and events are tokens. What it cannot show is the ordering of
 * real asynchronous streams: bench/device_mpi_mg.sh transport checks the
 * transport on GPUs, bit for bit against NCCL.
 * Only the compile of that check puts this folder on the include path
 * (the Makefile's $(BUILD)/block_transport_check). */
#ifndef ADIFLOW_HOST_CUDA_RUNTIME_H
#define ADIFLOW_HOST_CUDA_RUNTIME_H

#include <stdlib.h>
#include <string.h>

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorInvalidValue = 1 };
typedef struct host_stream *cudaStream_t;
typedef struct host_event { int recorded; } *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
enum { cudaEventDisableTiming = 2 };

/* what the check reads back: how many copies and host waits the transport asked for */
struct host_cuda_counts { long d2h, h2d, stream_syncs, event_syncs; };
extern struct host_cuda_counts host_cuda;

static inline const char *cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "host stand-in error"; }
static inline cudaError_t cudaSetDevice(int device) { (void)device; return cudaSuccess; }
static inline cudaError_t cudaMallocHost(void **p, size_t bytes)
{
  *p = malloc(bytes);
  return *p != NULL ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                          cudaStream_t s)
{
  (void)s;
  if (dst == NULL || src == NULL) return cudaErrorInvalidValue;
  memcpy(dst, src, bytes);
  if (kind == cudaMemcpyDeviceToHost) host_cuda.d2h++;
  else host_cuda.h2d++;
  return cudaSuccess;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void)s; host_cuda.stream_syncs++; return cudaSuccess; }
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
  (void)flags;
  *e = (cudaEvent_t)calloc(1, sizeof **e);
  return *e != NULL ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { (void)s; e->recorded = 1; return cudaSuccess; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
  if (!e->recorded) return cudaErrorInvalidValue;     /* a wait for an event never recorded: a bug */
  host_cuda.event_syncs++;
  return cudaSuccess;
}
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }

#endif
