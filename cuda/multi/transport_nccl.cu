/* The NCCL transport of the multi-GPU block driver (cuda/multi/block_transport.cuh):
 * device buffers GPU to GPU with ncclSend / ncclRecv, queued on the
 * caller's stream (the host does not wait). RCCL, NCCL's API under HIP,
 * on a HIP build. Linked where make finds NCCL (make hip: never, Debian
 * ships no RCCL; hip/README.md).
 *
 * One communicator per channel: NCCL serialises a communicator's work, and
 * two streams on one communicator can deadlock, so the halo exchanges and
 * the pipelined sweeps, which run on two streams, each have their own. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adiflow_gpu_vendor.h"
#if ADI_GPU_HIP
#include <rccl/rccl.h>
#else
#include <nccl.h>
#endif

#include "block_transport.cuh"
#include "gpu_check.cuh"

static const char *const nccl_advice =
  ADI_GPU_CCL_NAME " carries the halos between the GPUs: check that every rank has its own GPU (one rank per "
  "GPU), NCCL_DEBUG=WARN shows " ADI_GPU_CCL_NAME "'s own diagnosis, ADIFLOW_BLOCK_TRANSPORT=mpi moves the halos "
  "through MPI and host memory instead";

#define NCCL_CHECK(call)                                                                      \
  do {                                                                                        \
    ncclResult_t r_ = (call);                                                                 \
    if (r_ != ncclSuccess)                                                                    \
      return adi_gpu_fail_msg(ADI_ERR_CUDA, "%s:%d: %s failed: " ADI_GPU_CCL_NAME " error %d (%s); %s", \
                              __FILE__, __LINE__, #call, (int)r_, ncclGetErrorString(r_), nccl_advice); \
  } while (0)

static_assert(2*sizeof(ncclUniqueId) <= ADI_BLOCK_TRANSPORT_ID_BYTES, "two NCCL unique ids fit the block ids");

struct adi_block_transport {
  ncclComm_t comm[ADI_CH_COUNT];
};

static int nccl_make_ids(char ids[ADI_BLOCK_TRANSPORT_ID_BYTES])
{
  ncclUniqueId id;
  int ch;
  for (ch = 0; ch < ADI_CH_COUNT; ++ch) {
    NCCL_CHECK(ncclGetUniqueId(&id));
    memcpy(ids + ch*sizeof id, &id, sizeof id);
  }
  return ADI_OK;
}

/* The start-up thread's arguments and results. Heap-allocated: a thread
 * that misses its deadline keeps running and still writes here, so the
 * struct is left to it then (the driver stops the run); otherwise
 * nccl_open frees it. */
struct comm_init {
  ncclUniqueId id[ADI_CH_COUNT];
  int nranks, rank, device;
  ncclComm_t comm[ADI_CH_COUNT];
  ncclResult_t res;
  cudaError_t cerr;
};

static void *comm_init_thread(void *p)
{
  struct comm_init *a = (struct comm_init *)p;
  int ch;
  a->cerr = cudaSetDevice(a->device);
  if (a->cerr != cudaSuccess) return NULL;
  for (ch = 0; ch < ADI_CH_COUNT && a->res == ncclSuccess; ++ch)
    a->res = ncclCommInitRank(&a->comm[ch], a->nranks, a->id[ch], a->rank);
  return NULL;
}

/* ncclCommInitRank waits for every rank; a thread with a deadline turns a
 * missing rank into an error message instead of a hang */
static int nccl_open(adi_block_transport **out, const char ids[ADI_BLOCK_TRANSPORT_ID_BYTES], int rank, int nranks,
                     int device, double timeout_s)
{
  struct comm_init *a = (struct comm_init *)calloc(1, sizeof *a);
  adi_block_transport *t;
  pthread_t th;
  struct timespec dl;
  int err, ch;
  *out = NULL;
  if (a == NULL)
    return adi_gpu_fail_msg(ADI_ERR_MEMORY, "%s:%d: out of host memory for the " ADI_GPU_CCL_NAME " start-up",
                            __FILE__, __LINE__);
  for (ch = 0; ch < ADI_CH_COUNT; ++ch) memcpy(&a->id[ch], ids + ch*sizeof a->id[ch], sizeof a->id[ch]);
  a->rank = rank; a->nranks = nranks; a->device = device;
  a->res = ncclSuccess; a->cerr = cudaSuccess;
  if (pthread_create(&th, NULL, comm_init_thread, a) != 0) {
    free(a);
    return adi_gpu_fail_msg(ADI_ERR_CUDA, "%s:%d: cannot start the " ADI_GPU_CCL_NAME " start-up thread", __FILE__,
                            __LINE__);
  }
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += (time_t)(timeout_s > 1.0 ? timeout_s : 1.0);
  err = pthread_timedjoin_np(th, NULL, &dl);
  if (err == ETIMEDOUT) {
    /* the thread still runs and writes into a: left to it (the driver stops every rank) */
    pthread_detach(th);
    return adi_gpu_fail_msg(ADI_ERR_CUDA, "%s:%d: the " ADI_GPU_CCL_NAME " start-up of rank %d did not finish "
                            "within %.0f s (a rank that never arrived, or GPUs that cannot reach each other); "
                            "ADIFLOW_MPI_STARTUP_TIMEOUT sets the limit", __FILE__, __LINE__, rank, timeout_s);
  }
  {
    struct comm_init r = *a;
    free(a);
    if (r.cerr != cudaSuccess)
      return adi_gpu_fail(r.cerr, ADI_GPU_API_PREFIX "SetDevice in the " ADI_GPU_CCL_NAME " start-up", __FILE__,
                          __LINE__);
    NCCL_CHECK(r.res);
    t = (adi_block_transport *)calloc(1, sizeof *t);
    if (t == NULL) {
      /* communicators made but nowhere to keep them: the driver stops every
       * rank, and ncclCommDestroy, a collective, could hang here */
      return adi_gpu_fail_msg(ADI_ERR_MEMORY, "%s:%d: out of host memory for the " ADI_GPU_CCL_NAME " state",
                              __FILE__, __LINE__);
    }
    for (ch = 0; ch < ADI_CH_COUNT; ++ch) t->comm[ch] = r.comm[ch];
  }
  *out = t;
  return ADI_OK;
}

/* NCCL allocates what it needs at connection time */
static int nccl_reserve(adi_block_transport *t, int ch, size_t doubles)
{
  (void)t; (void)ch; (void)doubles;
  return ADI_OK;
}

static int nccl_group_start(adi_block_transport *t, int ch)
{
  (void)t; (void)ch;
  NCCL_CHECK(ncclGroupStart());
  return ADI_OK;
}

static int nccl_group_end(adi_block_transport *t, int ch)
{
  (void)t; (void)ch;
  NCCL_CHECK(ncclGroupEnd());
  return ADI_OK;
}

static int nccl_send(adi_block_transport *t, int ch, const double *buf, size_t n, int peer, cudaStream_t s)
{
  NCCL_CHECK(ncclSend(buf, n, ncclDouble, peer, t->comm[ch], s));
  return ADI_OK;
}

static int nccl_recv(adi_block_transport *t, int ch, double *buf, size_t n, int peer, cudaStream_t s)
{
  NCCL_CHECK(ncclRecv(buf, n, ncclDouble, peer, t->comm[ch], s));
  return ADI_OK;
}

static void nccl_close(adi_block_transport *t)
{
  int ch;
  if (t == NULL) return;
  for (ch = 0; ch < ADI_CH_COUNT; ++ch)
    if (t->comm[ch]) ncclCommDestroy(t->comm[ch]);
  free(t);
}

const adi_block_transport_ops *adi_block_transport_nccl(void)
{
  static const adi_block_transport_ops ops = {
    ADI_GPU_CCL_NAME, 'n', "nccl", nccl_make_ids, nccl_open, nccl_reserve, nccl_group_start, nccl_group_end,
    nccl_send, nccl_recv, nccl_close, 1,
  };
  return &ops;
}
