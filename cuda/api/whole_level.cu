/* The copies between a coarse multigrid level that runs whole on every rank
 * of a decomposed grid and the rank's block of that level
 * (fortran/multigrid_whole.f90 is the host's mirror, share_state and
 * take_state; the exchange between the ranks is the block driver's,
 * adi_gpu_block_share_level in cuda/multi/block_driver.cu):
 *   adi_gpu_pack_level_on    the block's interior state and forcing into a
 *                            device buffer
 *   adi_gpu_unpack_level_on  a block's buffer into the whole level's state
 *                            and forcing at the block's place
 *   adi_gpu_take_level_part  the whole level's corrected state back into
 *                            the block's interior
 * Copies only, so the whole level holds the bits the blocks had. Ordered
 * against the grids' own streams by events, as the halo copies of
 * cuda/api/block_set.cu. */
#include "grid.cuh"
#include "block_grid.cuh"

enum { LEVEL_FIELDS = 2*ADI_NVAR };   /* q, then the forcing */

/* buf[(f*nk + k-1)*nj + j-1)*ni + i-1]: field f of cell (i, j, k) of the
 * box [1..ni] x [j0+1..j0+nj] x [k0+1..k0+nk] of v (f < 5: q, else the
 * forcing). unpack: from buf into v, else from v into buf. */
__global__ void level_copy_kernel(adi_view v, double *forcing, int j0, int k0, int nj, int nk, double *buf,
                                  int unpack)
{
  long long t = (long long)blockIdx.x*blockDim.x + threadIdx.x;
  long long cells = (long long)v.ni*nj*nk, r;
  int f, i, j, k;
  ptrdiff_t p;
  double *a;
  if (t >= cells*LEVEL_FIELDS) return;
  f = (int)(t/cells); r = t%cells;
  i = 1 + (int)(r%v.ni); r /= v.ni;
  j = 1 + (int)(r%nj) + j0;
  k = 1 + (int)(r/nj) + k0;
  p = adi_pt(&v, i, j, k) + (ptrdiff_t)(f%ADI_NVAR)*v.npts;
  a = f < ADI_NVAR ? v.q : forcing;
  if (unpack) a[p] = buf[t];
  else buf[t] = a[p];
}

/* blk's interior q = whole's q at the offsets */
__global__ void level_take_kernel(adi_view blk, adi_view whole, int j0, int k0, adi_box b)
{
  int i, j, k, m;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  for (m = 1; m <= ADI_NVAR; ++m)
    ADI_F(&blk, q, m, adi_pt(&blk, i, j, k)) = ADI_F(&whole, q, m, adi_pt(&whole, i, j + j0, k + k0));
}

static int copy_level(adi_gpu_grid *g, int j0, int k0, int nj, int nk, double *buf, int unpack, cudaStream_t s)
{
  long long n = (long long)g->v.ni*nj*nk*LEVEL_FIELDS;
  unsigned blocks = (unsigned)((n + 255)/256);
  if (n == 0) return ADI_OK;
  level_copy_kernel<<<blocks, 256, 0, s>>>(g->v, g->d_forcing, j0, k0, nj, nk, buf, unpack);
  ADI_LAUNCH_CHECK("level_copy_kernel");
  return ADI_OK;
}

int adi_gpu_pack_level_on(adi_gpu_grid *blk, double *dbuf, cudaStream_t s, cudaEvent_t ev)
{
  int rc;
  if ((rc = adi_gpu_check_grid(blk, "adi_gpu_pack_level_on")) != ADI_OK) return rc;
  if (blk->d_forcing == NULL || dbuf == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_pack_level_on: a null buffer, or a grid that is no coarse "
                            "level");
  if ((rc = adi_gpu_stream_after_grid(s, blk)) != ADI_OK) return rc;
  if ((rc = copy_level(blk, 0, 0, blk->v.nj, blk->v.nk, dbuf, 0, s)) != ADI_OK) return rc;
  /* the block's next restriction overwrites what this read */
  return adi_gpu_grid_after_stream(blk, s, ev);
}

int adi_gpu_unpack_level_on(adi_gpu_grid *whole, const double *dbuf, int joff, int koff, int nj, int nk,
                            cudaStream_t s, cudaEvent_t ev)
{
  int rc;
  if ((rc = adi_gpu_check_grid(whole, "adi_gpu_unpack_level_on")) != ADI_OK) return rc;
  if (whole->d_forcing == NULL || dbuf == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_unpack_level_on: a null buffer, or a grid that is no "
                            "coarse level");
  if (joff < 0 || koff < 0 || nj < 0 || nk < 0 || joff + nj > whole->v.nj || koff + nk > whole->v.nk)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_unpack_level_on: cells j %d..%d, k %d..%d outside a %d x %d x %d "
                            "level", joff + 1, joff + nj, koff + 1, koff + nk, whole->v.ni, whole->v.nj, whole->v.nk);
  /* the whole level's work so far (its last visit) may still read what this writes */
  if ((rc = adi_gpu_stream_after_grid(s, whole)) != ADI_OK) return rc;
  if ((rc = copy_level(whole, joff, koff, nj, nk, (double *)dbuf, 1, s)) != ADI_OK) return rc;
  return adi_gpu_grid_after_stream(whole, s, ev);
}

int adi_gpu_take_level_part(adi_gpu_grid *blk, adi_gpu_grid *whole, int joff, int koff)
{
  int rc;
  adi_box b;
  if ((rc = adi_gpu_check_grid(blk, "adi_gpu_take_level_part")) != ADI_OK) return rc;
  if ((rc = adi_gpu_check_grid(whole, "adi_gpu_take_level_part")) != ADI_OK) return rc;
  if (blk->device != whole->device || blk->v.ni != whole->v.ni || joff < 0 || koff < 0 ||
      joff + blk->v.nj > whole->v.nj || koff + blk->v.nk > whole->v.nk)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_take_level_part: a %d x %d x %d block at j, k offsets %d, %d is "
                            "not inside the %d x %d x %d level on its GPU", blk->v.ni, blk->v.nj, blk->v.nk, joff, koff,
                            whole->v.ni, whole->v.nj, whole->v.nk);
  if ((rc = adi_gpu_order_after(blk, whole)) != ADI_OK) return rc;
  b.lo[0] = 1; b.lo[1] = 1; b.lo[2] = 1;
  b.hi[0] = blk->v.ni; b.hi[1] = blk->v.nj; b.hi[2] = blk->v.nk;
  level_take_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, blk->stream>>>(blk->v, whole->v, joff, koff, b);
  ADI_LAUNCH_CHECK("level_take_kernel");
  /* the whole level's next visit overwrites what this read */
  return adi_gpu_order_after(whole, blk);
}
