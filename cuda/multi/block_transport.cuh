/* How the multi-GPU block driver (cuda/multi/block_driver.cu) moves its
 * packed device buffers between the ranks. The driver packs, sweeps and
 * unpacks; a transport only carries a device buffer to or from a peer, in
 * the order of the stream it is given. Two of them:
 *   transport_nccl.cu   NCCL (RCCL on HIP): GPU to GPU, queued on the
 *                       stream, the host does not wait
 *   transport_mpi.cu    MPI through pinned host memory: device to host,
 *                       MPI between the ranks, host to device. Needs no
 *                       collective library (a HIP build on Debian, which
 *                       ships no RCCL; a CUDA build without NCCL)
 * Both carry the same bytes in the same order, so results do not depend on
 * the transport (bench/device_mpi_mg.sh transport compares them bit for bit).
 *
 * The contract the driver relies on, whichever transport:
 *   channels     ADI_CH_HALO and ADI_CH_PIPE are independent message
 *                streams (NCCL: a communicator each; MPI: a duplicated
 *                communicator each). The driver uses each channel from one
 *                CUDA stream at a time.
 *   pairing      messages between two ranks on one channel pair in issue
 *                order (no tags): the k-th send of rank a to b meets the
 *                k-th receive of b from a
 *   groups       sends and receives between group_start and group_end are
 *                in flight together (no deadlock between two ranks sending
 *                to each other); an operation outside a group is a group of
 *                its own
 *   stream order a send reads its buffer, and a receive's buffer holds the
 *                data, at the point of stream s where the operation (or its
 *                group_end) was issued: work queued on s before it may
 *                produce the send buffer, work queued after it may read the
 *                receive buffer and overwrite the send buffer. */
#ifndef ADIFLOW_BLOCK_TRANSPORT_CUH
#define ADIFLOW_BLOCK_TRANSPORT_CUH

#include <stddef.h>

#include "adiflow_gpu_vendor.h"
#include "adiflow_block.h"

/* 1 where the build links NCCL (RCCL): the Makefile's ADI_BLOCK_CCL */
#ifndef ADIFLOW_BLOCK_CCL
#define ADIFLOW_BLOCK_CCL 0
#endif

enum { ADI_CH_HALO = 0, ADI_CH_PIPE = 1, ADI_CH_COUNT = 2 };

/* The ids rank 0 makes and every rank passes to open (include/adiflow_block.h):
 * byte 0 names the transport (every rank takes rank 0's choice), the
 * transport's own ids follow from ADI_BLOCK_ID_OFFSET on. */
enum { ADI_BLOCK_ID_OFFSET = 8, ADI_BLOCK_TRANSPORT_ID_BYTES = ADI_BLOCK_ID_BYTES - ADI_BLOCK_ID_OFFSET };

typedef struct adi_block_transport adi_block_transport;   /* a transport's own state */

typedef struct adi_block_transport_ops {
  const char *name;          /* for the run's header and messages: "NCCL", "MPI host-staged" */
  char key;                  /* byte 0 of the ids: rank 0's choice, which every rank takes */
  const char *word;          /* its value of ADIFLOW_BLOCK_TRANSPORT */
  /* rank 0, before open: the ids every rank's open takes */
  int (*make_ids)(char ids[ADI_BLOCK_TRANSPORT_ID_BYTES]);
  /* every rank together: the channels between the ranks; timeout_s bounds
   * a start-up that waits for ranks that never come (where the transport
   * can wait on its own) */
  int (*open)(adi_block_transport **t, const char ids[ADI_BLOCK_TRANSPORT_ID_BYTES], int rank, int nranks,
              int device, double timeout_s);
  /* set-up only, nothing in flight: the most doubles one group of channel
   * ch will carry (sends and receives together) */
  int (*reserve)(adi_block_transport *t, int ch, size_t doubles);
  int (*group_start)(adi_block_transport *t, int ch);
  int (*group_end)(adi_block_transport *t, int ch);
  int (*send)(adi_block_transport *t, int ch, const double *buf, size_t n, int peer, cudaStream_t s);
  int (*recv)(adi_block_transport *t, int ch, double *buf, size_t n, int peer, cudaStream_t s);
  void (*close)(adi_block_transport *t);
  /* 1: send and receive only queue work on the stream (the host never
   * waits), so a CUDA graph can capture them with the kernels around them
   * (NCCL); 0: the host takes part in every transfer (MPI host-staged) */
  int stream_ordered;
} adi_block_transport_ops;

/* The transports' tables. Functions rather than global tables: hipcc's
 * device pass would also emit a namespace-scope const table, with host
 * function addresses it cannot resolve. */
const adi_block_transport_ops *adi_block_transport_mpi(void);
#if ADIFLOW_BLOCK_CCL
const adi_block_transport_ops *adi_block_transport_nccl(void);
#endif

/* Rank 0's transport (byte 0 of ids, adi_gpu_block_make_ids) opened on
 * this rank: *tx its table, *tp its state (cuda/multi/block_driver.cu). */
int adi_block_transport_open(const char ids[ADI_BLOCK_ID_BYTES], int rank, int nranks, int device, double timeout_s,
                             const adi_block_transport_ops **tx, adi_block_transport **tp);

#endif
