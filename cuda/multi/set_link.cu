/* GPU-to-GPU halos of a block set spread over MPI ranks (build/adiflow_mpi
 * with a multi-block grid and --backend gpu; fortran/backend_blocks_ranks_gpu.f90):
 * a halo box of a block is packed on its GPU into the link's device buffer,
 * carried to the receiving block's rank by a transport of
 * cuda/multi/block_transport.cuh (NCCL GPU to GPU where the build has it,
 * else MPI through host memory), and unpacked there on the GPU. The bytes
 * are those adi_gpu_pack_halo / adi_gpu_unpack_halo move through host
 * memory, so the states do not depend on the path.
 *
 * A group of halo steps queues its messages (adi_set_link_send,
 * adi_set_link_recv) and ends with adi_set_link_flush, which packs the
 * sends, runs the transport's group (every send and receive in flight
 * together, in the order they were queued: the k-th send of rank a to b
 * meets the k-th receive of b from a, as the solver's halo steps run in the
 * same order on every rank) and unpacks the receives, all on the link's own
 * stream, ordered against each block's stream by events: the host waits for
 * nothing but a buffer that must grow. */
#include <stdlib.h>
#include <string.h>

#include "adiflow_gpu_vendor.h"
#include "adiflow_block.h"
#include "block_transport.cuh"
#include "gpu_check.cuh"
#include "runtime.cuh"
#include "../api/set_halo.cuh"

typedef struct link_msg {
  int send;                  /* 1: a box of g sent to peer; 0: a box of g received from peer */
  adi_gpu_grid *g;
  int lo[3], hi[3], from_beg[3], to_beg[3], t[3];
  int peer;
  size_t n, at;              /* doubles, and where they lie in the buffer */
} link_msg;

struct adi_set_link {
  const adi_block_transport_ops *tx;
  adi_block_transport *tp;
  int rank, nranks, device;
  cudaStream_t s;
  cudaEvent_t ev;
  int stream_ready, event_ready;
  double *dbuf;
  size_t cap, reserved;      /* doubles in dbuf; doubles the transport holds staging for */
  link_msg *msg;
  int nmsg, msgcap;
};

static int add_msg(adi_set_link *l, const link_msg *m)
{
  if (l->nmsg == l->msgcap) {
    int cap = l->msgcap ? 2*l->msgcap : 64;
    link_msg *grown = (link_msg *)realloc(l->msg, (size_t)cap*sizeof(link_msg));
    if (grown == NULL) return adi_gpu_fail_msg(ADI_ERR_MEMORY, "%s", "adi_set_link: out of host memory for messages");
    l->msg = grown;
    l->msgcap = cap;
  }
  l->msg[l->nmsg++] = *m;
  return ADI_OK;
}

/* a box's doubles (0 for an empty box); the peer checked */
static int box_doubles(const adi_set_link *l, const int lo[3], const int hi[3], int peer, const char *fn, size_t *n)
{
  int e;
  if (l == NULL || lo == NULL || hi == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: a null argument", fn);
  if (peer < 0 || peer >= l->nranks || peer == l->rank)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: peer rank %d of %d (this is rank %d)", fn, peer, l->nranks, l->rank);
  *n = 5;
  for (e = 0; e < 3; ++e) {
    if (lo[e] > hi[e]) {
      *n = 0;
      return ADI_OK;
    }
    *n *= (size_t)(hi[e] - lo[e] + 1);
  }
  return ADI_OK;
}

int adi_set_link_open(adi_set_link **link, const char ids[ADI_BLOCK_ID_BYTES], int rank, int nranks, int device,
                      double timeout_s)
{
  adi_set_link *l;
  int rc;
  if (link == NULL || ids == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_set_link_open: a null argument");
  *link = NULL;
  l = (adi_set_link *)calloc(1, sizeof *l);
  if (l == NULL) return adi_gpu_fail_msg(ADI_ERR_MEMORY, "%s", "adi_set_link_open: out of host memory");
  l->rank = rank;
  l->nranks = nranks;
  l->device = device;
  *link = l;   /* from here adi_set_link_close frees what there is */
  ADI_GPU_CHECK(cudaSetDevice(device));
  ADI_GPU_CHECK(cudaStreamCreateWithFlags(&l->s, cudaStreamNonBlocking));
  l->stream_ready = 1;
  ADI_GPU_CHECK(cudaEventCreateWithFlags(&l->ev, cudaEventDisableTiming));
  l->event_ready = 1;
  if ((rc = adi_block_transport_open(ids, rank, nranks, device, timeout_s, &l->tx, &l->tp)) != ADI_OK) return rc;
  return ADI_OK;
}

int adi_set_link_send(adi_set_link *link, adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3],
                      const int to_beg[3], const int t[3], int peer)
{
  link_msg m;
  int rc, e;
  memset(&m, 0, sizeof m);
  if ((rc = box_doubles(link, lo, hi, peer, "adi_set_link_send", &m.n)) != ADI_OK) return rc;
  if (from_beg == NULL || to_beg == NULL || t == NULL || src == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_set_link_send: a null argument");
  m.send = 1;
  m.g = src;
  m.peer = peer;
  for (e = 0; e < 3; ++e) {
    m.lo[e] = lo[e];
    m.hi[e] = hi[e];
    m.from_beg[e] = from_beg[e];
    m.to_beg[e] = to_beg[e];
    m.t[e] = t[e];
  }
  return m.n ? add_msg(link, &m) : ADI_OK;
}

int adi_set_link_recv(adi_set_link *link, adi_gpu_grid *dst, const int lo[3], const int hi[3], int peer)
{
  link_msg m;
  int rc, e;
  memset(&m, 0, sizeof m);
  if ((rc = box_doubles(link, lo, hi, peer, "adi_set_link_recv", &m.n)) != ADI_OK) return rc;
  if (dst == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_set_link_recv: a null grid");
  m.g = dst;
  m.peer = peer;
  for (e = 0; e < 3; ++e) {
    m.lo[e] = lo[e];
    m.hi[e] = hi[e];
  }
  return m.n ? add_msg(link, &m) : ADI_OK;
}

/* room for n doubles: nothing may be in flight when the buffer or the
 * transport's staging grows (the link's stream drained first) */
static int make_room(adi_set_link *l, size_t n)
{
  int rc;
  if (n <= l->cap && n <= l->reserved) return ADI_OK;
  ADI_GPU_CHECK(cudaStreamSynchronize(l->s));
  if (n > l->cap) {
    if (l->dbuf != NULL) ADI_GPU_CHECK(cudaFree(l->dbuf));
    l->dbuf = NULL;
    l->cap = 0;
    ADI_GPU_CHECK(cudaMalloc((void **)&l->dbuf, n*sizeof(double)));
    l->cap = n;
  }
  if (n > l->reserved) {
    if ((rc = l->tx->reserve(l->tp, ADI_CH_HALO, n)) != ADI_OK) return rc;
    l->reserved = n;
  }
  return ADI_OK;
}

int adi_set_link_flush(adi_set_link *link)
{
  adi_set_link *l = link;
  size_t total = 0;
  int k, rc;
  if (l == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_set_link_flush: no link");
  if (l->nmsg == 0) return ADI_OK;
  for (k = 0; k < l->nmsg; ++k) {
    l->msg[k].at = total;
    total += l->msg[k].n;
  }
  if ((rc = make_room(l, total)) != ADI_OK) return rc;
  for (k = 0; k < l->nmsg; ++k) {
    link_msg *m = &l->msg[k];
    if (m->send && (rc = adi_gpu_pack_halo_on(m->g, m->lo, m->hi, m->from_beg, m->to_beg, m->t, l->dbuf + m->at, l->s,
                                              l->ev)) != ADI_OK)
      return rc;
  }
  if ((rc = l->tx->group_start(l->tp, ADI_CH_HALO)) != ADI_OK) return rc;
  for (k = 0; k < l->nmsg; ++k) {
    link_msg *m = &l->msg[k];
    rc = m->send ? l->tx->send(l->tp, ADI_CH_HALO, l->dbuf + m->at, m->n, m->peer, l->s)
                 : l->tx->recv(l->tp, ADI_CH_HALO, l->dbuf + m->at, m->n, m->peer, l->s);
    if (rc != ADI_OK) return rc;
  }
  if ((rc = l->tx->group_end(l->tp, ADI_CH_HALO)) != ADI_OK) return rc;
  for (k = 0; k < l->nmsg; ++k) {
    link_msg *m = &l->msg[k];
    if (!m->send && (rc = adi_gpu_unpack_halo_on(m->g, m->lo, m->hi, l->dbuf + m->at, l->s, l->ev)) != ADI_OK)
      return rc;
  }
  l->nmsg = 0;
  return ADI_OK;
}

int adi_set_link_close(adi_set_link *link)
{
  adi_set_link *l = link;
  int rc = ADI_OK;
  if (l == NULL) return ADI_OK;
  if (l->stream_ready && cudaStreamSynchronize(l->s) != cudaSuccess && rc == ADI_OK)
    rc = adi_gpu_fail_msg(ADI_ERR_CUDA, "%s", "adi_set_link_close: the link's stream failed");
  if (l->tp != NULL) l->tx->close(l->tp);
  if (l->dbuf != NULL) cudaFree(l->dbuf);
  if (l->event_ready) cudaEventDestroy(l->ev);
  if (l->stream_ready) cudaStreamDestroy(l->s);
  free(l->msg);
  free(l);
  return rc;
}
