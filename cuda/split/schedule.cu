/* The split kernel family's iteration (kernels = 'split', the default): the
 * steps of adi_iteration_schedule (cuda/split/split_stages.h), i.e.
 * solver_cpu's cpu_iteration, one kernel per stage and direction: boundary
 * fill i, j, k; primitives; time step; res = 0; flux_kernel1-3 + viscous +
 * flux_kernel4 for i, j, k; ADI_kernel1-5 for i, j, k. In block mode the
 * block driver's hooks (cuda/common/block_hooks.cuh) insert the halo
 * exchanges and the cross-block sweeps; with per-kernel timing every launch
 * sits between two events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "split.cuh"
#include "schedule.cuh"

struct split_state {
  const adi_block_hooks *block;       /* the grid's block hooks; NULL for one domain */
  adi_view v;
  cudaStream_t s;
  adi_step steps[ADI_MAX_STEPS];
  int nsteps;
  int events_ready;
  cudaEvent_t ev_start[ADI_MAX_STEPS], ev_stop[ADI_MAX_STEPS];
  double ms[ST_COUNT][4];             /* [stage][d], d = 0 for the undirected ones */
  double iter_ms;
};

int split_init(split_state **ss, const adi_view *v, cudaStream_t s, const adi_block_hooks *block)
{
  split_state *t;
  if (ss == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "internal error: split_init without a state pointer");
  *ss = NULL;
  t = (split_state *)calloc(1, sizeof *t);
  if (t == NULL)
    return adi_gpu_fail_msg(ADI_ERR_MEMORY, "out of host memory for the split schedule's state (%zu bytes)",
                            sizeof *t);
  t->block = block;
  t->v = *v;
  t->s = s;
  t->nsteps = adi_iteration_schedule(&v->sp, t->steps);
  *ss = t;
  return ADI_OK;
}

void split_finalize(split_state *ss)
{
  int s;
  if (ss == NULL) return;
  if (ss->events_ready)
    for (s = 0; s < ADI_MAX_STEPS; ++s) {
      cudaEventDestroy(ss->ev_start[s]);
      cudaEventDestroy(ss->ev_stop[s]);
    }
  memset(ss, 0, sizeof *ss);
  free(ss);
}

int split_timing_start(split_state *ss, int reset)
{
  int s;
  if (!ss->events_ready) {
    for (s = 0; s < ADI_MAX_STEPS; ++s) {
      ADI_GPU_CHECK(cudaEventCreate(&ss->ev_start[s]));
      ADI_GPU_CHECK(cudaEventCreate(&ss->ev_stop[s]));
    }
    ss->events_ready = 1;
  }
  if (reset) {
    memset(ss->ms, 0, sizeof ss->ms);
    ss->iter_ms = 0.0;
  }
  return ADI_OK;
}

/* ---------------------------------------------------------------- iteration */

/* One step: in block mode the hooks around (or instead of) its launch,
 * then the launch column of ADI_SPLIT_STAGES (cuda/split/split_stages.h) */
static int run_step(split_state *ss, const adi_step *st, double cfl)
{
  const adi_view *v = &ss->v;
  const adi_block_hooks *b = ss->block;
  const int d = st->d;
  cudaStream_t s = ss->s;
  int rc;
  if (b != NULL) {
    if (st->stage == ST_BC && d >= 2) {
      rc = b->exchange_q(b->ctx, v, d, s);
      if (rc != ADI_OK) return rc;
    }
    if (st->stage == ST_ADI2 && b->across[d]) {
      rc = b->exchange_lam(b->ctx, v, d, s);
      if (rc != ADI_OK) return rc;
    }
    if (st->stage == ST_ADI4 && b->across[d]) return b->sweep(b->ctx, v, d, s);
  }
  switch (st->stage) {
#define ADI_X(id, name, family, box, launch, body) case ST_##id: return launch;
    ADI_SPLIT_STAGES(ADI_X)
#undef ADI_X
  default:
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "internal error: unknown stage %d in the iteration schedule", st->stage);
  }
}

/* Block mode with overlap (split family, per-kernel timing off): the steps of
 * adi_iteration_schedule with two changes, neither of which alters a single
 * operation, because the stages moved are pointwise and touch no ghost row:
 *  1. the boundary fill and the primitives run as
 *       BC(1) [BC(2) when j has no neighbour]; begin the first q halo;
 *       primitives and time step of the interior;
 *       end; the rest of the fill in the serial order i, j, k;
 *       primitives of the ghost shell
 *  2. in exact mode, for a direction swept across the blocks,
 *       ADI1; begin the lam halo; ADI3; end; ADI2; sweep; ADI5
 * (ADI3 reads neither lam nor anything ADI2 writes). */
static int iterate_block_overlapped(split_state *ss, double cfl)
{
  const adi_view *v = &ss->v;
  const adi_block_hooks *b = ss->block;
  int s, rc, first = b->has_halo[2] ? 2 : 3;
  if ((rc = launch_bc_kernel(v, 1, ss->s)) != ADI_OK) return rc;
  if (first == 3 && (rc = launch_bc_kernel(v, 2, ss->s)) != ADI_OK) return rc;
  if ((rc = b->exchange_begin(b->ctx, v, 0, first, ss->s)) != ADI_OK) return rc;
  if ((rc = launch_primitives_part(v, 1, ss->s)) != ADI_OK) return rc;
  if ((rc = launch_time_step_kernel(v, cfl, ss->s)) != ADI_OK) return rc;
  if ((rc = b->exchange_end(b->ctx, v, 0, first, ss->s)) != ADI_OK) return rc;
  if (first == 2) {
    if ((rc = launch_bc_kernel(v, 2, ss->s)) != ADI_OK) return rc;
    if ((rc = b->exchange_q(b->ctx, v, 3, ss->s)) != ADI_OK) return rc;
  }
  if ((rc = launch_bc_kernel(v, 3, ss->s)) != ADI_OK) return rc;
  if ((rc = launch_primitives_part(v, 2, ss->s)) != ADI_OK) return rc;
  for (s = 0; s < ss->nsteps; ++s) {
    const adi_step *st = &ss->steps[s];
    if (st->stage == ST_BC || st->stage == ST_PRIM || st->stage == ST_TSTEP) continue;
    if (st->stage == ST_ADI2 && b->across[st->d]) {
      rc = b->exchange_begin(b->ctx, v, 1, st->d, ss->s);
    } else if (st->stage == ST_ADI3 && b->across[st->d]) {
      rc = launch_ADI_kernel3(v, st->d, ss->s);
      if (rc == ADI_OK) rc = b->exchange_end(b->ctx, v, 1, st->d, ss->s);
      if (rc == ADI_OK) rc = launch_ADI_kernel2(v, st->d, ss->s);
    } else {
      rc = run_step(ss, st, cfl);
    }
    if (rc != ADI_OK) return rc;
  }
  return ADI_OK;
}

int split_iterate(split_state *ss, double cfl, int timing)
{
  int s, rc;
  if (ss->block != NULL && ss->block->overlap && !timing) return iterate_block_overlapped(ss, cfl);
  for (s = 0; s < ss->nsteps; ++s) {
    if (timing) ADI_GPU_CHECK(cudaEventRecord(ss->ev_start[s], ss->s));
    rc = run_step(ss, &ss->steps[s], cfl);
    if (rc != ADI_OK) return rc;
    if (timing) ADI_GPU_CHECK(cudaEventRecord(ss->ev_stop[s], ss->s));
  }
  if (timing) {
    float t;
    ADI_GPU_CHECK(cudaEventSynchronize(ss->ev_stop[ss->nsteps - 1]));
    for (s = 0; s < ss->nsteps; ++s) {
      ADI_GPU_CHECK(cudaEventElapsedTime(&t, ss->ev_start[s], ss->ev_stop[s]));
      ss->ms[ss->steps[s].stage][ss->steps[s].d] += (double)t;
    }
    ADI_GPU_CHECK(cudaEventElapsedTime(&t, ss->ev_start[0], ss->ev_stop[ss->nsteps - 1]));
    ss->iter_ms += (double)t;
  }
  return ADI_OK;
}

/* Everything of an iteration up to the residual (boundary fill, primitives,
 * time step, wall temperatures, flux stages): the steps before the first
 * ADI stage, for the multigrid transfers (cuda/api/multigrid.cu). One
 * domain only. */
int split_residual(split_state *ss, double cfl)
{
  int s, rc;
  /* on a block, run_step brings the halo rows before each fill */
  for (s = 0; s < ss->nsteps; ++s) {
    if (ss->steps[s].stage >= ST_ADI1 && ss->steps[s].stage <= ST_ADI5) break;
    rc = run_step(ss, &ss->steps[s], cfl);
    if (rc != ADI_OK) return rc;
  }
  return ADI_OK;
}

/* ---------------------------------------------------------------- timing */

/* The per-kernel table (i, j, k, sum in ms per iteration), the kernel
 * families' shares, the whole iteration and the residual norms. */
int split_timing_report(const split_state *ss, char *buf, int buflen, long long timed_iterations,
                        double norm_ms, long long norm_calls)
{
  int pos = 0, st, d, f;
  double n, total = 0.0, fam;
  n = (double)timed_iterations;
  adi_gpu_put(buf, buflen, &pos, "GPU kernel times (" ADI_GPU_API_NAME " events), split kernels, grid %d x %d x %d, "
              "mean of %lld iterations, ms per iteration:\n", ss->v.ni, ss->v.nj, ss->v.nk, timed_iterations);
  adi_gpu_put(buf, buflen, &pos, "  %-18s %10s %10s %10s %10s\n", "kernel", "i", "j", "k", "sum");
  for (st = 0; st < ST_COUNT; ++st) {
    double sum = 0.0;
    int directed = st != ST_PRIM && st != ST_TSTEP && st != ST_RES_ZERO;
    if (st == ST_FLUX1 && ss->v.sp.order != 2) continue;
    for (d = 0; d < 4; ++d) sum += ss->ms[st][d];
    if (directed)
      adi_gpu_put(buf, buflen, &pos, "  %-18s %10.4f %10.4f %10.4f %10.4f\n", adi_stage_name(st), ss->ms[st][1]/n,
                  ss->ms[st][2]/n, ss->ms[st][3]/n, sum/n);
    else
      adi_gpu_put(buf, buflen, &pos, "  %-18s %10s %10s %10s %10.4f\n", adi_stage_name(st), "", "", "", sum/n);
    total += sum;
  }
  adi_gpu_put(buf, buflen, &pos, "  families:\n");
  /* the kernel families (the family column of ADI_SPLIT_STAGES), each stage's
   * times added in stage order */
  for (f = 0; f < SF_COUNT; ++f) {
    fam = 0.0;
    for (st = 0; st < ST_COUNT; ++st)
      if (adi_stage_family(st) == f)
        for (d = 0; d < 4; ++d) fam += ss->ms[st][d];
    adi_gpu_put(buf, buflen, &pos, "    %-24s %10.4f ms  %5.1f %%\n", adi_split_family_name(f), fam/n,
                total > 0.0 ? 100.0*fam/total : 0.0);
  }
  adi_gpu_put(buf, buflen, &pos, "    %-24s %10.4f ms\n", "all kernels", total/n);
  adi_gpu_put(buf, buflen, &pos, "    %-24s %10.4f ms  (first launch to last, gaps included)\n", "iteration", ss->iter_ms/n);
  if (norm_calls > 0)
    adi_gpu_put(buf, buflen, &pos, "    %-24s %10.4f ms per call, %lld calls\n", "residual norms", norm_ms/(double)norm_calls,
                norm_calls);
  return ADI_OK;
}
