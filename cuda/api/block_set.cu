/* The blocks of a multi-block set on one GPU (fortran/backend_blocks_gpu.f90;
 * include/adiflow_bridge.h's "multi-block sets"): each block a grid made by
 * adi_gpu_init_member, whose own fills launch nothing (adi_view's
 * ghosts_by_caller), and the two operations from which the caller builds
 * the set's fill in fortran/backend_blocks.f90's order:
 *   adi_gpu_fill_faces  the block's own faces of one direction, by its
 *                       boundary rules (the faces an interface joins are
 *                       left alone: phys 0)
 *   adi_gpu_copy_halo   a box of a block's ghost cells from another block's
 *                       cells through an interface's map
 *                       (cuda/common/block_halos.h, the twin of
 *                       fortran/block_halos.f90)
 *   adi_gpu_pack_halo, adi_gpu_unpack_halo
 *                       the same copy in two halves through host memory,
 *                       for blocks on two processes (the box in its order,
 *                       i fastest, five values a cell: fortran/block_halos.f90's
 *                       pack_cells and unpack_cells)
 *   adi_gpu_pack_halo_on, adi_gpu_unpack_halo_on
 *                       the same halves into and out of a device buffer on
 *                       another stream (cuda/api/set_halo.cuh: the halos
 *                       that go GPU to GPU between ranks)
 * Every grid has its own stream: a copy runs on the receiving block's,
 * after the work queued on the sending block's, and the sending block's
 * later work waits for it, so nothing synchronises with the host. */
#include "grid.cuh"
#include "block_halos.h"
#include "set_halo.cuh"

__global__ void halo_copy_kernel(adi_view dst, adi_view src, adi_halo_map m, adi_box b)
{
  int i, j, k, c[3], pd, ps, n;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_halo_source_cell(&m, i, j, k, c);
  pd = adi_pt(&dst, i, j, k);
  ps = adi_pt(&src, c[0], c[1], c[2]);
  for (n = 1; n <= ADI_NVAR; ++n) ADI_F(&dst, q, n, pd) = ADI_F(&src, q, n, ps);
}

/* buf[5*n + m - 1] = q(c, m) of the source cell c of box cell n */
__global__ void halo_pack_kernel(adi_view src, adi_halo_map m, adi_box b, double *buf)
{
  int i, j, k, c[3], ps, v;
  long long n;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_halo_source_cell(&m, i, j, k, c);
  ps = adi_pt(&src, c[0], c[1], c[2]);
  n = (long long)(i - b.lo[0]) + (long long)(b.hi[0] - b.lo[0] + 1)*((j - b.lo[1]) +
      (long long)(b.hi[1] - b.lo[1] + 1)*(k - b.lo[2]));
  for (v = 1; v <= ADI_NVAR; ++v) buf[5*n + v - 1] = ADI_F(&src, q, v, ps);
}

__global__ void halo_unpack_kernel(adi_view dst, adi_box b, const double *buf)
{
  int i, j, k, pd, v;
  long long n;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  pd = adi_pt(&dst, i, j, k);
  n = (long long)(i - b.lo[0]) + (long long)(b.hi[0] - b.lo[0] + 1)*((j - b.lo[1]) +
      (long long)(b.hi[1] - b.lo[1] + 1)*(k - b.lo[2]));
  for (v = 1; v <= ADI_NVAR; ++v) ADI_F(&dst, q, v, pd) = buf[5*n + v - 1];
}

/* room for n doubles in the grid's halo scratch */
static int halo_scratch(adi_gpu_grid *g, size_t n)
{
  if (n <= g->halo_cap) return ADI_OK;
  if (g->d_halo != NULL) cudaFree(g->d_halo);
  g->d_halo = NULL;
  g->halo_cap = 0;
  ADI_GPU_CHECK(cudaMalloc((void **)&g->d_halo, n*sizeof(double)));
  g->halo_cap = n;
  return ADI_OK;
}

int adi_gpu_fill_faces(adi_gpu_grid *g, int d)
{
  adi_view v;
  REQUIRE_INIT("adi_gpu_fill_faces");
  if (d < 1 || d > 3) return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_fill_faces: direction %d; 1, 2 or 3 allowed", d);
  if (!g->v.ghosts_by_caller)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_fill_faces: the grid fills its own ghosts (it was not made "
                            "by adi_gpu_init_member)");
  v = g->v;
  v.ghosts_by_caller = 0;
  return launch_bc_kernel(&v, d, g->stream);
}

/* whether cell c lies in n's cells and two ghost layers */
static int in_cells(const int n[3], const int c[3])
{
  int e;
  for (e = 0; e < 3; ++e)
    if (c[e] < -1 || c[e] > n[e] + 2) return 0;
  return 1;
}

static int in_grid(const adi_view *v, const int c[3])
{
  const int n[3] = {v->ni, v->nj, v->nk};
  return in_cells(n, c);
}

/* m and b from the arguments, checked: the transform a signed permutation,
 * the box inside the receiving block (n_dst: its cells; NULL: not checked)
 * and its source cells inside src. *empty: nothing to copy. */
static int halo_args(const adi_gpu_grid *src, const int *n_dst, const int lo[3], const int hi[3],
                     const int from_beg[3], const int to_beg[3], const int t[3], const char *fn, adi_halo_map *m,
                     adi_box *b, int *empty)
{
  int e, seen[3] = {0, 0, 0}, c0[3], c1[3];
  *empty = 0;
  if (lo == NULL || hi == NULL || from_beg == NULL || to_beg == NULL || t == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: a null argument", fn);
  for (e = 0; e < 3; ++e) {
    int a = t[e] < 0 ? -t[e] : t[e];
    if (a < 1 || a > 3 || seen[a - 1])
      return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: transform (%d, %d, %d) is not a signed permutation of 1, 2, 3", fn,
                              t[0], t[1], t[2]);
    seen[a - 1] = 1;
    m->from_beg[e] = from_beg[e];
    m->to_beg[e] = to_beg[e];
    m->t[e] = t[e];
    b->lo[e] = lo[e];
    b->hi[e] = hi[e];
    if (lo[e] > hi[e]) *empty = 1;
  }
  if (*empty) return ADI_OK;
  /* the map is affine: the box's two corners bound the cells it reads */
  adi_halo_source_cell(m, lo[0], lo[1], lo[2], c0);
  adi_halo_source_cell(m, hi[0], hi[1], hi[2], c1);
  if ((n_dst != NULL && (!in_cells(n_dst, lo) || !in_cells(n_dst, hi))) || !in_grid(&src->v, c0) ||
      !in_grid(&src->v, c1))
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s: cells (%d, %d, %d)..(%d, %d, %d) from cells (%d, %d, %d)..(%d, %d, %d) "
                            "of a %d x %d x %d block: outside a block's cells and two ghost layers", fn, lo[0], lo[1],
                            lo[2], hi[0], hi[1], hi[2], c0[0], c0[1], c0[2], c1[0], c1[1], c1[2], src->v.ni, src->v.nj,
                            src->v.nk);
  return ADI_OK;
}

int adi_gpu_pack_halo(adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3], const int to_beg[3],
                      const int t[3], double *buf)
{
  adi_halo_map m;
  adi_box b;
  int rc, empty;
  size_t n;
  if ((rc = adi_gpu_check_grid(src, "adi_gpu_pack_halo")) != ADI_OK) return rc;
  if ((rc = halo_args(src, NULL, lo, hi, from_beg, to_beg, t, "adi_gpu_pack_halo", &m, &b, &empty)) != ADI_OK)
    return rc;
  if (empty) return ADI_OK;
  if (buf == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_pack_halo: a null buffer");
  n = (size_t)5*(size_t)(hi[0] - lo[0] + 1)*(size_t)(hi[1] - lo[1] + 1)*(size_t)(hi[2] - lo[2] + 1);
  if ((rc = halo_scratch(src, n)) != ADI_OK) return rc;
  halo_pack_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, src->stream>>>(src->v, m, b, src->d_halo);
  ADI_LAUNCH_CHECK("halo_pack_kernel");
  ADI_GPU_CHECK(cudaMemcpyAsync(buf, src->d_halo, n*sizeof(double), cudaMemcpyDeviceToHost, src->stream));
  ADI_GPU_CHECK(cudaStreamSynchronize(src->stream));
  return ADI_OK;
}

int adi_gpu_pack_halo_on(adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3],
                         const int to_beg[3], const int t[3], double *dbuf, cudaStream_t s, cudaEvent_t ev)
{
  adi_halo_map m;
  adi_box b;
  int rc, empty;
  if ((rc = adi_gpu_check_grid(src, "adi_gpu_pack_halo_on")) != ADI_OK) return rc;
  if ((rc = halo_args(src, NULL, lo, hi, from_beg, to_beg, t, "adi_gpu_pack_halo_on", &m, &b, &empty)) != ADI_OK)
    return rc;
  if (empty) return ADI_OK;
  if (dbuf == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_pack_halo_on: a null buffer");
  if ((rc = adi_gpu_stream_after_grid(s, src)) != ADI_OK) return rc;
  halo_pack_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(src->v, m, b, dbuf);
  ADI_LAUNCH_CHECK("halo_pack_kernel");
  /* the sending block's next update overwrites the cells this read */
  return adi_gpu_grid_after_stream(src, s, ev);
}

int adi_gpu_unpack_halo_on(adi_gpu_grid *dst, const int lo[3], const int hi[3], const double *dbuf, cudaStream_t s,
                           cudaEvent_t ev)
{
  adi_box b;
  int rc, e;
  const int n_dst[3] = {dst ? dst->v.ni : 0, dst ? dst->v.nj : 0, dst ? dst->v.nk : 0};
  if ((rc = adi_gpu_check_grid(dst, "adi_gpu_unpack_halo_on")) != ADI_OK) return rc;
  if (lo == NULL || hi == NULL || dbuf == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_unpack_halo_on: a null argument");
  for (e = 0; e < 3; ++e) {
    if (lo[e] > hi[e]) return ADI_OK;
    b.lo[e] = lo[e];
    b.hi[e] = hi[e];
  }
  if (!in_cells(n_dst, lo) || !in_cells(n_dst, hi))
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_unpack_halo_on: cells (%d, %d, %d)..(%d, %d, %d) outside a %d x %d x "
                            "%d block's cells and two ghost layers", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2],
                            n_dst[0], n_dst[1], n_dst[2]);
  /* the receiving block's work so far may still read the ghosts this writes */
  if ((rc = adi_gpu_stream_after_grid(s, dst)) != ADI_OK) return rc;
  halo_unpack_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(dst->v, b, dbuf);
  ADI_LAUNCH_CHECK("halo_unpack_kernel");
  return adi_gpu_grid_after_stream(dst, s, ev);
}

int adi_gpu_unpack_halo(adi_gpu_grid *dst, const int lo[3], const int hi[3], const double *buf)
{
  adi_box b;
  int rc, e;
  const int n_dst[3] = {dst ? dst->v.ni : 0, dst ? dst->v.nj : 0, dst ? dst->v.nk : 0};
  size_t n;
  if ((rc = adi_gpu_check_grid(dst, "adi_gpu_unpack_halo")) != ADI_OK) return rc;
  if (lo == NULL || hi == NULL || buf == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_unpack_halo: a null argument");
  for (e = 0; e < 3; ++e) {
    if (lo[e] > hi[e]) return ADI_OK;
    b.lo[e] = lo[e];
    b.hi[e] = hi[e];
  }
  if (!in_cells(n_dst, lo) || !in_cells(n_dst, hi))
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_unpack_halo: cells (%d, %d, %d)..(%d, %d, %d) outside a %d x %d x %d "
                            "block's cells and two ghost layers", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], n_dst[0],
                            n_dst[1], n_dst[2]);
  n = (size_t)5*(size_t)(hi[0] - lo[0] + 1)*(size_t)(hi[1] - lo[1] + 1)*(size_t)(hi[2] - lo[2] + 1);
  if ((rc = halo_scratch(dst, n)) != ADI_OK) return rc;
  ADI_GPU_CHECK(cudaMemcpyAsync(dst->d_halo, buf, n*sizeof(double), cudaMemcpyHostToDevice, dst->stream));
  halo_unpack_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, dst->stream>>>(dst->v, b, dst->d_halo);
  ADI_LAUNCH_CHECK("halo_unpack_kernel");
  /* buf is the caller's, free to go once this returns */
  ADI_GPU_CHECK(cudaStreamSynchronize(dst->stream));
  return ADI_OK;
}

int adi_gpu_copy_halo(adi_gpu_grid *dst, adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3],
                      const int to_beg[3], const int t[3])
{
  adi_halo_map m;
  adi_box b;
  int rc, empty;
  if ((rc = adi_gpu_check_grid(dst, "adi_gpu_copy_halo")) != ADI_OK) return rc;
  if ((rc = adi_gpu_check_grid(src, "adi_gpu_copy_halo")) != ADI_OK) return rc;
  if (dst->device != src->device || !dst->v.ghosts_by_caller || !src->v.ghosts_by_caller)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_copy_halo: both grids must be blocks of one set "
                            "(adi_gpu_init_member) on one device");
  {
    const int n_dst[3] = {dst->v.ni, dst->v.nj, dst->v.nk};
    if ((rc = halo_args(src, n_dst, lo, hi, from_beg, to_beg, t, "adi_gpu_copy_halo", &m, &b, &empty)) != ADI_OK)
      return rc;
  }
  if (empty) return ADI_OK;
  if (dst != src && (rc = adi_gpu_order_after(dst, src)) != ADI_OK) return rc;
  halo_copy_kernel<<<adi_grid_dim(&b), adi_block_dim(), 0, dst->stream>>>(dst->v, src->v, m, b);
  ADI_LAUNCH_CHECK("halo_copy_kernel");
  /* the sending block's next update overwrites the cells this read */
  if (dst != src) return adi_gpu_order_after(src, dst);
  return ADI_OK;
}
