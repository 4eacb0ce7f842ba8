/* The MPI host-staged transport of the GPU blocks (cuda/multi/transport_mpi.cu)
 * on two ranks, over a host stand-in of the CUDA runtime
 * (tests/unit/host_cuda/cuda_runtime.h): the message patterns of the block
 * driver (cuda/multi/block_driver.cu) arrive where they must.
 *   mpirun -np 2 build/block_transport_check    (tests/suites/run_block_transport.sh)
 * C++ only because the transport is compiled as the GPU sources are (C in
 * a .cu file); prints PASS/FAIL lines and "N passed, N failed" on rank 0. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "block_transport.cuh"
#include "runtime.cuh"

struct host_cuda_counts host_cuda;

/* the bridge's error recorder, as cuda/common/runtime.cu keeps it */
static char last_error[ADI_ERRLEN];
int adi_gpu_fail_msg(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return status;
}
int adi_gpu_fail(adi_gpu_error_t err, const char *what, const char *file, int line)
{
  return adi_gpu_fail_msg(ADI_ERR_CUDA, "%s:%d: %s failed: %s", file, line, what, cudaGetErrorString(err));
}

static int rank, pass, fail;

/* one check, agreed by both ranks (a check fails if it fails on either) */
static void check(int ok, const char *what)
{
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (all) pass++;
  else fail++;
  if (rank == 0) printf("%s %s\n", all ? "PASS" : "FAIL", what);
  if (!ok) fprintf(stderr, "rank %d: %s: %s\n", rank, what, last_error);
}

/* the value of element i of buffer `which` on rank r */
static double val(int r, int which, int i) { return 1000.0*r + 100.0*which + i + 0.25; }

static int holds(const double *a, int r, int which, int n)
{
  int i;
  for (i = 0; i < n; ++i)
    if (a[i] != val(r, which, i)) return 0;
  return 1;
}

static void fill(double *a, int which, int n)
{
  int i;
  for (i = 0; i < n; ++i) a[i] = val(rank, which, i);
}

enum { N = 4096, NCH = 4, CH = 300, BIG = 2*N + 1 };

int main(int argc, char **argv)
{
  static double sl[N], sh[N], rl[N], rh[N], rows[NCH][CH + 1], big[BIG], big2[BIG];
  const adi_block_transport_ops *tx;
  adi_block_transport *t = NULL, *bad = NULL;
  cudaStream_t halo = (cudaStream_t)&sl, pipe = (cudaStream_t)&sh;   /* tokens */
  char ids[ADI_BLOCK_TRANSPORT_ID_BYTES];
  int nranks, peer, ok, c, round, rc;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks != 2) {
    if (rank == 0) printf("FAIL run with mpirun -np 2 (got %d ranks)\n0 passed, 1 failed\n", nranks);
    MPI_Finalize();
    return 1;
  }
  peer = 1 - rank;
  tx = adi_block_transport_mpi();

  rc = tx->open(&bad, ids, rank, nranks + 1, 0, 1.0);
  check(rc == ADI_ERR_USAGE && strstr(last_error, "MPI_COMM_WORLD") != NULL,
        "open refuses a block numbering other than MPI_COMM_WORLD's, naming it");
  tx->close(bad);

  memset(ids, 0, sizeof ids);
  if (rank == 0) check(tx->make_ids(ids) == ADI_OK, "make_ids");
  else check(1, "make_ids");
  MPI_Bcast(ids, (int)sizeof ids, MPI_CHAR, 0, MPI_COMM_WORLD);
  check(tx->open(&t, ids, rank, nranks, 0, 10.0) == ADI_OK, "open: a duplicate of MPI_COMM_WORLD per channel");
  check(tx->reserve(t, ADI_CH_HALO, 2*N) == ADI_OK && tx->reserve(t, ADI_CH_PIPE, CH) == ADI_OK,
        "reserve the staging of both channels");

  /* the halo exchange of two ranks with a periodic wrap: the peer is both lo
   * and hi, and only the order of the two groups tells the messages apart */
  for (round = 0; round < 3; ++round) {
    fill(sh, 1 + round, N);
    fill(sl, 5 + round, N);
    memset(rl, 0, sizeof rl);
    memset(rh, 0, sizeof rh);
    ok = tx->group_start(t, ADI_CH_HALO) == ADI_OK && tx->send(t, ADI_CH_HALO, sh, N, peer, halo) == ADI_OK &&
         tx->recv(t, ADI_CH_HALO, rl, N, peer, halo) == ADI_OK && tx->group_end(t, ADI_CH_HALO) == ADI_OK;
    ok = ok && tx->group_start(t, ADI_CH_HALO) == ADI_OK && tx->send(t, ADI_CH_HALO, sl, N, peer, halo) == ADI_OK &&
         tx->recv(t, ADI_CH_HALO, rh, N, peer, halo) == ADI_OK && tx->group_end(t, ADI_CH_HALO) == ADI_OK;
    ok = ok && holds(rl, peer, 1 + round, N) && holds(rh, peer, 5 + round, N);
    check(ok, round == 0 ? "halo groups up and down, peer both lo and hi: each ghost gets the right rows"
                         : "the same again (staging reused)");
  }

  /* the pipelined sweep: chunk rows up one at a time (outside groups), then
   * down, rank 0 below rank 1 */
  for (c = 0; c < NCH; ++c) {
    if (rank == 0) {
      fill(rows[c], 20 + c, CH);
      ok = tx->send(t, ADI_CH_PIPE, rows[c], CH - c, 1, pipe) == ADI_OK;
    } else {
      memset(rows[c], 0, sizeof rows[c]);
      ok = tx->recv(t, ADI_CH_PIPE, rows[c], CH - c, 0, pipe) == ADI_OK && holds(rows[c], 0, 20 + c, CH - c) &&
           rows[c][CH - c] == 0.0;          /* rows have room for one more: nothing past the message */
    }
    if (!ok) break;
  }
  check(ok, "pipelined sweep upwards: chunk rows of different lengths in order, one at a time");
  for (c = 0; c < NCH; ++c) {
    if (rank == 1) {
      fill(rows[c], 30 + c, CH);
      ok = tx->send(t, ADI_CH_PIPE, rows[c], CH, 0, pipe) == ADI_OK;
    } else {
      memset(rows[c], 0, sizeof rows[c]);
      ok = tx->recv(t, ADI_CH_PIPE, rows[c], CH, 1, pipe) == ADI_OK && holds(rows[c], 1, 30 + c, CH);
    }
    if (!ok) break;
  }
  check(ok, "pipelined sweep downwards");

  /* the warm-up: one double each way per neighbour, on both channels */
  for (c = 0; c < ADI_CH_COUNT && ok; ++c) {
    fill(sl, 40 + c, 1);
    rl[0] = 0.0;
    ok = tx->group_start(t, c) == ADI_OK && tx->send(t, c, sl, 1, peer, c == ADI_CH_HALO ? halo : pipe) == ADI_OK &&
         tx->recv(t, c, rl, 1, peer, c == ADI_CH_HALO ? halo : pipe) == ADI_OK && tx->group_end(t, c) == ADI_OK &&
         holds(rl, peer, 40 + c, 1);
  }
  check(ok, "warm-up groups on both channels");

  /* a group of the block driver reads its send buffers and fills its
   * receive buffers through the staging: one copy each way per message, and
   * the host waits for the copies to the host before MPI reads them */
  memset(&host_cuda, 0, sizeof host_cuda);
  fill(sh, 50, N);
  ok = tx->group_start(t, ADI_CH_HALO) == ADI_OK && tx->send(t, ADI_CH_HALO, sh, N, peer, halo) == ADI_OK &&
       tx->recv(t, ADI_CH_HALO, rl, N, peer, halo) == ADI_OK && tx->group_end(t, ADI_CH_HALO) == ADI_OK;
  check(ok && holds(rl, peer, 50, N) && host_cuda.d2h == 1 && host_cuda.h2d == 1 && host_cuda.stream_syncs == 1,
        "one group: one copy to the host, one host wait, MPI, one copy to the device");

  /* a group larger than its reserve is an error with a message, before any
   * MPI traffic; a larger reserve (set-up, nothing queued) lets it through */
  ok = tx->group_start(t, ADI_CH_HALO) == ADI_OK;
  rc = tx->recv(t, ADI_CH_HALO, big2, BIG, peer, halo);
  check(ok && rc == ADI_ERR_USAGE && strstr(last_error, "staging") != NULL && tx->group_end(t, ADI_CH_HALO) == ADI_OK,
        "a group beyond the reserved staging is refused, naming the staging");
  fill(big, 60, BIG);
  check(tx->reserve(t, ADI_CH_HALO, 2*BIG) == ADI_OK && tx->group_start(t, ADI_CH_HALO) == ADI_OK &&
        tx->send(t, ADI_CH_HALO, big, BIG, peer, halo) == ADI_OK &&
        tx->recv(t, ADI_CH_HALO, big2, BIG, peer, halo) == ADI_OK && tx->group_end(t, ADI_CH_HALO) == ADI_OK &&
        holds(big2, peer, 60, BIG),
        "after a larger reserve a group of that size goes through");

  tx->close(t);
  if (rank == 0) printf("%d passed, %d failed\n", pass, fail);
  MPI_Finalize();
  return fail != 0;
}
