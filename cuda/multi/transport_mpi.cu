/* The MPI host-staging transport of the multi-GPU block driver
 * (cuda/multi/block_transport.cuh): a group's send buffers are copied
 * device to host into pinned staging memory, the host waits for them, MPI
 * carries them (MPI_Irecv / MPI_Isend, then MPI_Waitall), and the received
 * ones are copied host to device on the same stream. Needs only the GPU
 * runtime and MPI: the transport of a build without NCCL or RCCL (make hip
 * on Debian), and ADIFLOW_BLOCK_TRANSPORT=mpi in a build with NCCL.
 *
 * Unlike NCCL's, its group_end blocks the host until the group's messages
 * have arrived: a halo exchange that the split schedule overlaps with
 * interior work therefore hides only what the GPU already had queued.
 *
 * Pairing without tags, as NCCL pairs: one duplicate of MPI_COMM_WORLD per
 * channel, one tag, and MPI's non-overtaking rule (messages from one
 * sender on one communicator with one tag match receives in issue order);
 * every group is complete before the next begins. The driver's ranks are
 * MPI_COMM_WORLD's (fortran/adiflow_mpi.f90 decomposes over it). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the C API only: OpenMPI and MPICH pull in their C++ bindings under a C++
 * compiler unless told not to */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "block_transport.cuh"
#include "gpu_check.cuh"

enum {
  MAX_OPS = 32,       /* per group: the driver's largest is the warm-up's, 2 per neighbour (8 at most) */
  BLOCK_TAG = 7       /* every message: the pairing is by order, see above */
};

static const char *const mpi_advice =
  "MPI carries the GPU blocks' halos through host memory (the MPI host-staged transport): the message above "
  "is MPI's own; check that every rank runs the same adiflow_mpi";

static int mpi_fail(int err, const char *call, const char *file, int line)
{
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "no text for it");
  return adi_gpu_fail_msg(ADI_ERR_CUDA, "%s:%d: %s failed: MPI error %d (%s); %s", file, line, call, err, text,
                          mpi_advice);
}

/* The communicators return their errors (MPI_ERRORS_RETURN, set in open),
 * so that a failure names the call and its place like every other check */
#define MPI_CHECK(call)                                                     \
  do {                                                                      \
    int e_ = (call);                                                        \
    if (e_ != MPI_SUCCESS) return mpi_fail(e_, #call, __FILE__, __LINE__); \
  } while (0)

struct staged_op {
  double *dev;        /* the driver's device buffer */
  size_t off, n;      /* its place in the staging memory, its length (doubles) */
  int peer, send;
};

struct channel {
  MPI_Comm comm;
  double *stage;      /* pinned host memory, cap doubles */
  size_t cap, used;
  int depth;          /* group_start nesting */
  int nops;
  struct staged_op op[MAX_OPS];
  MPI_Request req[MAX_OPS];
  cudaStream_t s;     /* the stream of the queued operations */
  cudaEvent_t h2d;    /* after the last group's copies to the device */
  int h2d_pending;
};

struct adi_block_transport {
  struct channel ch[ADI_CH_COUNT];
};

/* nothing to agree on before open: the communicators come from MPI_COMM_WORLD */
static int mpi_make_ids(char ids[ADI_BLOCK_TRANSPORT_ID_BYTES])
{
  memset(ids, 0, ADI_BLOCK_TRANSPORT_ID_BYTES);
  return ADI_OK;
}

static int mpi_open(adi_block_transport **out, const char ids[ADI_BLOCK_TRANSPORT_ID_BYTES], int rank, int nranks,
                    int device, double timeout_s)
{
  adi_block_transport *t;
  int init = 0, wrank = -1, wsize = 0, c;
  (void)ids;
  (void)timeout_s;     /* every rank has passed the driver's own collectives by now */
  *out = NULL;
  MPI_CHECK(MPI_Initialized(&init));
  if (!init)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s:%d: the MPI host-staged transport needs MPI, and MPI is not "
                            "initialised (adiflow_mpi initialises it before the GPU blocks)", __FILE__, __LINE__);
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  if (wrank != rank || wsize != nranks)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s:%d: block %d of %d is rank %d of %d in MPI_COMM_WORLD: the MPI "
                            "host-staged transport numbers the blocks by MPI_COMM_WORLD's ranks", __FILE__, __LINE__,
                            rank, nranks, wrank, wsize);
  t = (adi_block_transport *)calloc(1, sizeof *t);
  if (t == NULL)
    return adi_gpu_fail_msg(ADI_ERR_MEMORY, "%s:%d: out of host memory for the MPI transport", __FILE__, __LINE__);
  for (c = 0; c < ADI_CH_COUNT; ++c) t->ch[c].comm = MPI_COMM_NULL;
  /* from here on t is given back, also on failure: its close frees what
   * exists (the driver stops every rank after a failed open) */
  *out = t;
  for (c = 0; c < ADI_CH_COUNT; ++c) {
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &t->ch[c].comm));
    MPI_CHECK(MPI_Comm_set_errhandler(t->ch[c].comm, MPI_ERRORS_RETURN));
  }
  /* the events belong to this rank's GPU */
  ADI_GPU_CHECK(cudaSetDevice(device));
  for (c = 0; c < ADI_CH_COUNT; ++c) ADI_GPU_CHECK(cudaEventCreateWithFlags(&t->ch[c].h2d, cudaEventDisableTiming));
  return ADI_OK;
}

/* the host may write the staging memory again once the last group's
 * copies to the device have read it (they run on the stream, after
 * group_end returned) */
static int wait_staging_free(struct channel *h)
{
  if (!h->h2d_pending) return ADI_OK;
  ADI_GPU_CHECK(cudaEventSynchronize(h->h2d));
  h->h2d_pending = 0;
  return ADI_OK;
}

static int mpi_reserve(adi_block_transport *t, int ch, size_t doubles)
{
  struct channel *h = &t->ch[ch];
  int rc;
  if (doubles <= h->cap) return ADI_OK;
  if ((rc = wait_staging_free(h)) != ADI_OK) return rc;
  if (h->stage != NULL) {
    ADI_GPU_CHECK(cudaFreeHost(h->stage));
    h->stage = NULL;
    h->cap = 0;
  }
  ADI_GPU_CHECK(cudaMallocHost((void **)&h->stage, doubles*sizeof(double)));
  h->cap = doubles;
  return ADI_OK;
}

/* The queued group: sends to the host, the host waits for them, MPI moves
 * everything, the receives to the device on the group's stream. */
static int flush(struct channel *h)
{
  int k, nreq = 0, any_send = 0, rc;
  if (h->nops == 0) return ADI_OK;
  if ((rc = wait_staging_free(h)) != ADI_OK) return rc;
  for (k = 0; k < h->nops; ++k)
    if (h->op[k].send) {
      ADI_GPU_CHECK(cudaMemcpyAsync(h->stage + h->op[k].off, h->op[k].dev, h->op[k].n*sizeof(double),
                                    cudaMemcpyDeviceToHost, h->s));
      any_send = 1;
    }
  if (any_send) ADI_GPU_CHECK(cudaStreamSynchronize(h->s));
  /* receives first, so that a peer's send finds its receive posted */
  for (k = 0; k < h->nops; ++k)
    if (!h->op[k].send)
      MPI_CHECK(MPI_Irecv(h->stage + h->op[k].off, (int)h->op[k].n, MPI_DOUBLE, h->op[k].peer, BLOCK_TAG, h->comm,
                          &h->req[nreq++]));
  for (k = 0; k < h->nops; ++k)
    if (h->op[k].send)
      MPI_CHECK(MPI_Isend(h->stage + h->op[k].off, (int)h->op[k].n, MPI_DOUBLE, h->op[k].peer, BLOCK_TAG, h->comm,
                          &h->req[nreq++]));
  MPI_CHECK(MPI_Waitall(nreq, h->req, MPI_STATUSES_IGNORE));
  for (k = 0; k < h->nops; ++k)
    if (!h->op[k].send) {
      ADI_GPU_CHECK(cudaMemcpyAsync(h->op[k].dev, h->stage + h->op[k].off, h->op[k].n*sizeof(double),
                                    cudaMemcpyHostToDevice, h->s));
      h->h2d_pending = 1;
    }
  if (h->h2d_pending) ADI_GPU_CHECK(cudaEventRecord(h->h2d, h->s));
  h->nops = 0;
  h->used = 0;
  return ADI_OK;
}

static int mpi_group_start(adi_block_transport *t, int ch)
{
  t->ch[ch].depth++;
  return ADI_OK;
}

static int mpi_group_end(adi_block_transport *t, int ch)
{
  struct channel *h = &t->ch[ch];
  if (h->depth < 1)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s:%d: internal error: group_end without group_start", __FILE__,
                            __LINE__);
  if (--h->depth > 0) return ADI_OK;
  return flush(h);
}

/* an operation into the group (outside one: a group of its own) */
static int queue(adi_block_transport *t, int ch, double *dev, size_t n, int peer, int send, cudaStream_t s)
{
  struct channel *h = &t->ch[ch];
  struct staged_op *o;
  if (h->nops > 0 && h->s != s)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s:%d: internal error: one group of the MPI transport on two streams",
                            __FILE__, __LINE__);
  if (h->nops == MAX_OPS || n > (size_t)INT_MAX || n > h->cap - h->used)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s:%d: internal error: a group of the MPI transport exceeds its "
                            "staging (%d operations, %zu + %zu doubles of %zu reserved)", __FILE__, __LINE__,
                            h->nops + 1, h->used, n, h->cap);
  o = &h->op[h->nops++];
  o->dev = dev; o->off = h->used; o->n = n; o->peer = peer; o->send = send;
  h->used += n;
  h->s = s;
  return h->depth > 0 ? ADI_OK : flush(h);
}

static int mpi_send(adi_block_transport *t, int ch, const double *buf, size_t n, int peer, cudaStream_t s)
{
  /* the D2H copy only reads it */
  return queue(t, ch, (double *)buf, n, peer, 1, s);
}

static int mpi_recv(adi_block_transport *t, int ch, double *buf, size_t n, int peer, cudaStream_t s)
{
  return queue(t, ch, buf, n, peer, 0, s);
}

/* Also on an error path: whatever exists. After MPI_Finalize the
 * communicators are gone with it. */
static void mpi_close(adi_block_transport *t)
{
  int c, fin = 0;
  if (t == NULL) return;
  MPI_Finalized(&fin);
  for (c = 0; c < ADI_CH_COUNT; ++c) {
    struct channel *h = &t->ch[c];
    if (h->h2d) {
      cudaEventSynchronize(h->h2d);
      cudaEventDestroy(h->h2d);
    }
    if (h->stage) cudaFreeHost(h->stage);
    if (!fin && h->comm != MPI_COMM_NULL) MPI_Comm_free(&h->comm);
  }
  free(t);
}

const adi_block_transport_ops *adi_block_transport_mpi(void)
{
  static const adi_block_transport_ops ops = {
    "MPI host-staged", 'm', "mpi", mpi_make_ids, mpi_open, mpi_reserve, mpi_group_start, mpi_group_end,
    mpi_send, mpi_recv, mpi_close, 0,
  };
  return &ops;
}
