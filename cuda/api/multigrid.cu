/* The multigrid level operations on the GPU (fortran/backend_cpu.f90 is
 * the reference; the cycle itself stays in the Fortran driver,
 * fortran/multigrid_cycle.f90, for both backends):
 *   adi_gpu_residual     the iteration's steps up to the residual
 *   adi_gpu_mg_restrict  coarse q (boundary-filled, kept as q0) and P from
 *                        the fine level
 *   adi_gpu_mg_forcing   P = P - R(q) on the coarse level
 *   adi_gpu_mg_prolong   fine q += the interpolated coarse correction
 * The per-cell bodies are cuda/common/adiflow_multigrid.h. On the blocks
 * of a decomposed grid (build/adiflow_mpi) every level is a block of that
 * level's decomposition: the transfers are cell by cell within the block,
 * and the coarse level's boundary fill gets its halo rows through the
 * block's hooks as an iteration's fill does (fill_level). Each level has
 * its own stream: a transfer makes the stream it runs on wait for the other
 * level's work with an event, and the other level's stream wait for the
 * transfer, so nothing synchronises with the host. */
#include "grid.cuh"
#include "adiflow_multigrid.h"

typedef struct mg_ratio { int r[3]; } mg_ratio;

__global__ void mg_restrict_kernel(adi_view fv, adi_view cv, double *p_c, mg_ratio r, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  mg_restrict_point(&fv, &cv, p_c, r.r, i, j, k);
}

__global__ void mg_forcing_kernel(adi_view cv, double *p_c, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  mg_subtract_residual_point(&cv, p_c, i, j, k);
}

__global__ void mg_correction_kernel(adi_view cv, const double *q0, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  mg_correction_point(&cv, q0, i, j, k);
}

__global__ void mg_prolong_kernel(adi_view fv, adi_view cv, mg_ratio r, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  mg_prolong_point(&fv, &cv, r.r, i, j, k);
}

static adi_box interior_box(const adi_view *v, int ghost)
{
  adi_box b;
  b.lo[0] = 1 - ghost; b.lo[1] = 1 - ghost; b.lo[2] = 1 - ghost;
  b.hi[0] = v->ni + ghost; b.hi[1] = v->nj + ghost; b.hi[2] = v->nk + ghost;
  return b;
}

/* The ghosts of level g by the boundary rules, direction after direction;
 * on a block each direction's halo rows first (cuda/common/block_hooks.cuh,
 * the order of an iteration's fill), so the ghosts equal one domain's. */
static int fill_level(adi_gpu_grid *g)
{
  int rc, d;
  for (d = 1; d <= 3; ++d) {
    if (g->block != NULL && d >= 2 && (rc = g->block->exchange_q(g->block->ctx, &g->v, d, g->stream)) != ADI_OK)
      return rc;
    if ((rc = launch_bc_kernel(&g->v, d, g->stream)) != ADI_OK) return rc;
  }
  return ADI_OK;
}

/* stream s goes on only after the work queued so far on g's */
int adi_gpu_stream_after_grid(cudaStream_t s, adi_gpu_grid *g)
{
  if (!g->mg_event_ready) {
    ADI_GPU_CHECK(cudaEventCreateWithFlags(&g->mg_event, cudaEventDisableTiming));
    g->mg_event_ready = 1;
  }
  ADI_GPU_CHECK(cudaEventRecord(g->mg_event, g->stream));
  ADI_GPU_CHECK(cudaStreamWaitEvent(s, g->mg_event, 0));
  return ADI_OK;
}

/* g's stream goes on only after the work queued so far on s (ev recorded there) */
int adi_gpu_grid_after_stream(adi_gpu_grid *g, cudaStream_t s, cudaEvent_t ev)
{
  ADI_GPU_CHECK(cudaEventRecord(ev, s));
  ADI_GPU_CHECK(cudaStreamWaitEvent(g->stream, ev, 0));
  return ADI_OK;
}

/* the stream of `waiter` goes on only after the work queued so far on `first` */
int adi_gpu_order_after(adi_gpu_grid *waiter, adi_gpu_grid *first)
{
  return adi_gpu_stream_after_grid(waiter->stream, first);
}

/* fine and coarse: live grids, coarse a level of adi_gpu_init_level (or
 * adi_gpu_block_init_level), the sizes those of the ratio, one device, both
 * single-domain grids or both blocks */
static int check_pair(adi_gpu_grid *fine, adi_gpu_grid *coarse, const int ratio[3], const char *fn)
{
  int rc, d, nf[3], nc[3];
  if ((rc = adi_gpu_check_grid(fine, fn)) != ADI_OK) return rc;
  if ((rc = adi_gpu_check_grid(coarse, fn)) != ADI_OK) return rc;
  if (ratio == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: null ratio", fn);
  if (coarse->d_forcing == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: the coarse grid was not made by adi_gpu_init_level", fn);
  if (fine->device != coarse->device || (fine->block == NULL) != (coarse->block == NULL))
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: both levels must be on one device, both single-domain grids or both "
                            "blocks of a decomposed grid", fn);
  nf[0] = fine->v.ni; nf[1] = fine->v.nj; nf[2] = fine->v.nk;
  nc[0] = coarse->v.ni; nc[1] = coarse->v.nj; nc[2] = coarse->v.nk;
  for (d = 0; d < 3; ++d)
    if ((ratio[d] != 1 && ratio[d] != 2) || nc[d]*ratio[d] != nf[d])
      return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: grid %d x %d x %d is not grid %d x %d x %d coarsened by "
                              "(%d, %d, %d)", fn, nc[0], nc[1], nc[2], nf[0], nf[1], nf[2], ratio[0], ratio[1],
                              ratio[2]);
  return ADI_OK;
}

int adi_gpu_residual(adi_gpu_grid *g, double cfl)
{
  REQUIRE_INIT("adi_gpu_residual");
  if (g->kernels == ADI_KERNELS_MERGED) return merged_residual(g->merged, cfl);
  return split_residual(g->split, cfl);
}

/* q0 = q, ghosts included (the correction reads its first ghost layer) */
static int keep_q0(adi_gpu_grid *coarse)
{
  ADI_GPU_CHECK(cudaMemcpyAsync(coarse->d_q0, coarse->v.q, (size_t)coarse->v.npts*ADI_NVAR*sizeof(double),
                                cudaMemcpyDeviceToDevice, coarse->stream));
  return ADI_OK;
}

int adi_gpu_mg_keep_q0(adi_gpu_grid *coarse)
{
  int rc = adi_gpu_check_grid(coarse, "adi_gpu_mg_keep_q0");
  if (rc != ADI_OK) return rc;
  if (coarse->d_q0 == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_mg_keep_q0: the grid was not made as a coarse level");
  return keep_q0(coarse);
}

int adi_gpu_mg_restrict(adi_gpu_grid *fine, adi_gpu_grid *coarse, const int ratio[3])
{
  int rc, d;
  mg_ratio r;
  adi_box b;
  if ((rc = check_pair(fine, coarse, ratio, "adi_gpu_mg_restrict")) != ADI_OK) return rc;
  for (d = 0; d < 3; ++d) r.r[d] = ratio[d];
  if ((rc = adi_gpu_order_after(coarse, fine)) != ADI_OK) return rc;
  b = interior_box(&coarse->v, 0);
  mg_restrict_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, coarse->stream>>>(fine->v, coarse->v, coarse->d_forcing,
                                                                                r, b);
  ADI_LAUNCH_CHECK("mg_restrict_kernel");
  if ((rc = fill_level(coarse)) != ADI_OK) return rc;
  /* a block of a set keeps q0 once the set's fill is done (adi_gpu_mg_keep_q0) */
  if (!coarse->v.ghosts_by_caller && (rc = keep_q0(coarse)) != ADI_OK) return rc;
  /* the fine level's next iteration overwrites the res this read */
  return adi_gpu_order_after(fine, coarse);
}

int adi_gpu_mg_forcing(adi_gpu_grid *coarse)
{
  adi_box b;
  int rc = adi_gpu_check_grid(coarse, "adi_gpu_mg_forcing");
  if (rc != ADI_OK) return rc;
  if (coarse->d_forcing == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_mg_forcing: the grid was not made by adi_gpu_init_level");
  b = interior_box(&coarse->v, 0);
  mg_forcing_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, coarse->stream>>>(coarse->v, coarse->d_forcing, b);
  ADI_LAUNCH_CHECK("mg_forcing_kernel");
  return ADI_OK;
}

int adi_gpu_mg_prolong(adi_gpu_grid *fine, adi_gpu_grid *coarse, const int ratio[3])
{
  int rc, d;
  mg_ratio r;
  adi_box b;
  if ((rc = check_pair(fine, coarse, ratio, "adi_gpu_mg_prolong")) != ADI_OK) return rc;
  for (d = 0; d < 3; ++d) r.r[d] = ratio[d];
  if ((rc = fill_level(coarse)) != ADI_OK) return rc;
  b = interior_box(&coarse->v, 1);
  mg_correction_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, coarse->stream>>>(coarse->v, coarse->d_q0, b);
  ADI_LAUNCH_CHECK("mg_correction_kernel");
  if ((rc = adi_gpu_order_after(fine, coarse)) != ADI_OK) return rc;
  b = interior_box(&fine->v, 0);
  mg_prolong_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, fine->stream>>>(fine->v, coarse->v, r, b);
  ADI_LAUNCH_CHECK("mg_prolong_kernel");
  /* the coarse level's next restriction overwrites the dq this read */
  return adi_gpu_order_after(coarse, fine);
}
