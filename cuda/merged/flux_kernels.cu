/* Merged family: point kernels of the primitives / time step / flux
 * stages and the fused flux of a direction (beyond the paper, (a)),
 * marching along d (MS_FMARCH) or in overlapping tiles.
 * Bodies: cuda/common/adiflow_merged.h, cuda/common/adiflow_stages.h. */
#include "merged.cuh"

/* one thread per cell of box b; blocks start at i = x0 (m_x0); the body of
 * kernel K is its body column in ADI_MERGED_KERNELS (launch FLUXPT). The
 * CFL number is read where the body uses it, from the device (cflp). */
#define ADI_MK_BODY_FLUXPT(id, body) if constexpr (K == MK_##id) { body; } else
#define ADI_MK_BODY_ADIPT(id, body)
#define ADI_MK_BODY_OWN(id, body)
template <int K>
__global__ void m_flux_point_kernel(adi_view view, int d, adi_box b, int x0, const double *cflp)
{
  const adi_view *v = &view;
  const double &cfl = *cflp;
  int i = x0 + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int j = b.lo[1] + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  int k = b.lo[2] + (int)blockIdx.z;
  (void)cfl;
  adi_dep_wait();
  if (i < b.lo[0] || i > b.hi[0] || j > b.hi[1] || k > b.hi[2]) return;
#define ADI_X(id, name, launch, use, box, body) ADI_MK_BODY_##launch(id, body)
  ADI_MERGED_KERNELS(ADI_X) {}
#undef ADI_X
}

template <int K>
static int launch_point(const adi_view *v, int d, adi_box b, m_shape sh, int align, const double *cfl, int dep,
                        cudaStream_t s)
{
  int x0 = m_x0(&b, align);
  dim3 grid((unsigned)m_div(b.hi[0] - x0 + 1, sh.x), (unsigned)m_div(b.hi[1] - b.lo[1] + 1, sh.y),
            (unsigned)(b.hi[2] - b.lo[2] + 1));
  ADI_GPU_CHECK(adi_launch_dep(dep, m_flux_point_kernel<K>, grid, dim3((unsigned)sh.x, (unsigned)sh.y, 1), 0, s, *v, d,
                               b, x0, cfl));
  ADI_LAUNCH_CHECK("merged point kernel (flux family)");
  return ADI_OK;
}

/* d = 0 for the undirected kinds (primitives, time step), as the schedule
 * gives them; the kinds this build holds (adi_merged_kernel_built) */
#define ADI_MK_CASE_FLUXPT(id, box) \
  case MK_##id: return launch_point<MK_##id>(v, d, box, sh, align, d_cfl, dep, s);
#define ADI_MK_CASE_ADIPT(id, box)
#define ADI_MK_CASE_OWN(id, box)
int mlaunch_flux_point(const adi_view *v, int kernel, int d, m_shape sh, int align, const double *d_cfl, int dep,
                       cudaStream_t s)
{
  switch (kernel) {
#define ADI_X(id, name, launch, use, box, body) ADI_MK_IF_##use(ADI_MK_CASE_##launch(id, box))
    ADI_MERGED_KERNELS(ADI_X)
#undef ADI_X
  default: return ADI_ERR_USAGE;
  }
}

/* ---- fused flux of direction D: the threads of a block compute
 * g = fc - fv at consecutive faces along D into shared memory, then every
 * thread but the last along D updates the cell between its face and the
 * next (res = res + (g(face+1) - g(face)), the CPU's order: res loaded by
 * flux_res_old before the barrier, stored by flux_res_store after it).
 * Blocks overlap by one face along D. Faces 1..n+1 along D, cells 1..n,
 * interior across. ---- */
template <int D>
__global__ void m_flux_fused_kernel(adi_view v, int first)
{
  extern __shared__ double sg[];
  const int t[3] = {(int)threadIdx.x, (int)threadIdx.y, (int)threadIdx.z};
  const int T[3] = {(int)blockDim.x, (int)blockDim.y, (int)blockDim.z};
  const int B[3] = {(int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z};
  const int N[3] = {v.ni, v.nj, v.nk};
  const int nt = T[0]*T[1]*T[2], tid = t[0] + T[0]*(t[1] + T[1]*t[2]);
  adi_dep_wait();
  const int bstride = D == 1 ? 1 : (D == 2 ? T[0] : T[0]*T[1]);
  int c[3], a, valid = 1, upd, m, p = 0;
  double g[5], gh[5], r0[5];
  for (a = 0; a < 3; ++a) {
    c[a] = 1 + B[a]*(T[a] - (a == D - 1 ? 1 : 0)) + t[a];
    if (c[a] > N[a] + (a == D - 1 ? 1 : 0)) valid = 0;
  }
  upd = valid && t[D - 1] < T[D - 1] - 1 && c[D - 1] <= N[D - 1];   /* the thread updates cell p */
  if (valid) {
    p = adi_pt(&v, c[0], c[1], c[2]);
    flux_face_g_dir(&v, D, p, g);
    for (m = 0; m < 5; ++m) sg[m*nt + tid] = g[m];
  }
  flux_res_old(&v, p, first || !upd, r0);
  __syncthreads();
  if (upd) {
    for (m = 0; m < 5; ++m) gh[m] = sg[m*nt + tid + bstride];
    flux_res_store(&v, p, r0, g, gh);
  }
}

int mlaunch_flux_fused(const adi_view *v, int d, m_shape sh, int first, int dep, cudaStream_t s)
{
  int T[3] = {sh.x, sh.y, sh.z}, N[3] = {v->ni, v->nj, v->nk}, G[3], a;
  size_t smem = (size_t)5*sh.x*sh.y*sh.z*sizeof(double);
  if (T[d - 1] < 2) return ADI_ERR_CONFIG;
  for (a = 0; a < 3; ++a) G[a] = a == d - 1 ? m_div(N[a], T[a] - 1) : m_div(N[a], T[a]);
  dim3 grid((unsigned)G[0], (unsigned)G[1], (unsigned)G[2]), block((unsigned)sh.x, (unsigned)sh.y, (unsigned)sh.z);
  switch (d) {
  case 1: ADI_GPU_CHECK(adi_launch_dep(dep, m_flux_fused_kernel<1>, grid, block, smem, s, *v, first)); break;
  case 2: ADI_GPU_CHECK(adi_launch_dep(dep, m_flux_fused_kernel<2>, grid, block, smem, s, *v, first)); break;
  default: ADI_GPU_CHECK(adi_launch_dep(dep, m_flux_fused_kernel<3>, grid, block, smem, s, *v, first)); break;
  }
  ADI_LAUNCH_CHECK("flux_fused");
  return ADI_OK;
}

/* ---- fused flux, marching (MS_FMARCH): the block owns a cross-section
 * tile (its extents across D) and marches along D over cells 1..n in
 * chunks of T_D cells. Two buffers of slots per column, slot s standing for
 * cell (or face) c0 - 1 + s of the chunk that starts at cell c0:
 *  - slopes (order 2): each thread computes the limited slope of one cell
 *    (muscl_cell_slope, cells 0..n+1), once; slot 0 is the previous
 *    chunk's last slope, carried. Its operands are loaded one chunk ahead
 *    (muscl_cell_loads after the residual update, muscl_slope_of at the
 *    top of the next chunk), in flight across the chunk's last barrier;
 *  - faces: each thread computes g = fc - fv at one face from the two
 *    cells' slopes (faces 1..n+1), exactly once; slot 0 carried likewise.
 *    The convective part is stored first, the viscous part subtracted by
 *    the same thread (the registers of the two parts are not live
 *    together).
 * The chunk c0 = 1 - T_D only computes the slopes of cells 0 and 1 and face
 * 1 (its last threads): one call site of each body. Residual update:
 * flux_res_old before the faces' barrier, flux_res_store(gl = slot t, gh =
 * slot t + 1) after it, the CPU's order. Three block barriers per chunk
 * (two at order 1). ---- */
enum { FM_MAXT = 256, FM_MAXT3 = 192, FM_MINB = 2 };
/* threads per block at most: 256 (<= 128 registers), 192 along k (<= 168
 * registers: at 128 the k kernel spills) */
#define FM_BOUND(D) ((D) == 3 ? FM_MAXT3 : FM_MAXT)

/* buffers of 5 x (column slots) doubles in shared memory: the faces', and
 * the slopes' at order 2 */
static inline int fm_buffers(const adi_view *v) { return v->sp.order == 2 ? 2 : 1; }

template <int D>
__device__ ADI_FORCEINLINE void fm_face(const adi_view *v, int p, double *sc, const double *ss, int slot,
                                        int stride)
{
  double f[5], sl[5], sr[5];
  int m;
  if (ss != NULL) {
    for (m = 0; m < 5; ++m) {
      sl[m] = ss[m*stride + slot - 1];
      sr[m] = ss[m*stride + slot];
    }
    flux_face_conv_slopes(v, D, p, sl, sr, f);
  } else {
    flux_face_conv_dir(v, D, p, f);
  }
  for (m = 0; m < 5; ++m) sc[m*stride + slot] = f[m];
  flux_face_visc_dir(v, D, p, f);
  for (m = 0; m < 5; ++m) sc[m*stride + slot] = sc[m*stride + slot] - f[m];
}

/* a thread of a valid column computes the slope of cell cd at order 2,
 * cells 0..n+1 (cd = -1 .. nd: cell cd + 1) */
static __device__ ADI_FORCEINLINE bool fm_slope_cell(int o2, int valid, int cd, int nd)
{
  return o2 && valid && cd >= -1 && cd <= nd;
}

template <int D>
__global__ void __launch_bounds__(FM_BOUND(D), FM_MINB) m_flux_march_kernel(adi_view v, int first)
{
  extern __shared__ double sg[];
  const int t[3] = {(int)threadIdx.x, (int)threadIdx.y, (int)threadIdx.z};
  const int T[3] = {(int)blockDim.x, (int)blockDim.y, (int)blockDim.z};
  const int B[3] = {(int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z};
  const int N[3] = {v.ni, v.nj, v.nk};
  const int TD = T[D - 1], td = t[D - 1], nd = N[D - 1];
  /* the thread's column within the block (its coordinates across D) */
  const int a1 = D == 1 ? 1 : 0, a2 = D == 3 ? 1 : 2;
  const int ncol = T[a1]*T[a2], col = t[a1] + T[a1]*t[a2];
  const int stride = ncol*(TD + 1);          /* doubles per component of a buffer */
  const int o2 = v.sp.order == 2;
  double *sc = sg + col*(TD + 1);            /* the column's face slots 0..TD */
  double *ss = o2 ? sg + 5*stride + col*(TD + 1) : NULL;   /* its slope slots */
  int c[3], a, valid = 1, m, p, e, c0, cd;
  double carry[5], scarry[5], gl[5], gh[5], sl[5], r0[5], qn[15];
  adi_dep_wait();
  for (a = 0; a < 3; ++a) {
    c[a] = 1 + B[a]*T[a] + t[a];
    if (a != D - 1 && c[a] > N[a]) valid = 0;
  }
  c[D - 1] = 1;
  e = adi_stride(&v, D);
  p = adi_pt(&v, c[0], c[1], c[2]);          /* cell 1 of the column along D */
  cd = 1 - TD + td;
  if (fm_slope_cell(o2, valid, cd, nd)) muscl_cell_loads(&v, D, p + cd*e, qn);
#pragma unroll 1
  for (c0 = 1 - TD; c0 <= nd; c0 += TD) {
    cd = c0 + td;                            /* the thread's cell cd + 1 and face cd + 1 */
    if (o2) {
      if (fm_slope_cell(o2, valid, cd, nd)) {
        muscl_slope_of(&v, qn, sl);          /* its operands were loaded before the last barrier */
        for (m = 0; m < 5; ++m) ss[m*stride + td + 1] = sl[m];
      }
      __syncthreads();
    }
    if (valid && cd >= 0 && cd <= nd) fm_face<D>(&v, p + cd*e, sc, ss, td + 1, stride);
    flux_res_old(&v, p + (cd - 1)*e, first || !(valid && cd >= 1 && cd <= nd), r0);
    __syncthreads();
    if (valid && cd >= 1 && cd <= nd) {
      for (m = 0; m < 5; ++m) {
        gl[m] = sc[m*stride + td];
        gh[m] = sc[m*stride + td + 1];
      }
      flux_res_store(&v, p + (cd - 1)*e, r0, gl, gh);
    }
    /* the next chunk's slope operands, in flight across the barrier below
     * (set on every path, so that qn is not live through the face phase) */
    if (fm_slope_cell(o2, valid, cd + TD, nd)) {
      muscl_cell_loads(&v, D, p + (cd + TD)*e, qn);
    } else {
      for (m = 0; m < 15; ++m) qn[m] = 0.0;
    }
    if (valid && td == 0)
      for (m = 0; m < 5; ++m) {
        carry[m] = sc[m*stride + TD];
        if (o2) scarry[m] = ss[m*stride + TD];
      }
    __syncthreads();
    if (valid && td == 0)
      for (m = 0; m < 5; ++m) {
        sc[m*stride] = carry[m];
        if (o2) ss[m*stride] = scarry[m];
      }
  }
}

/* blocks of the marching kernel of direction d (nt threads, smem bytes
 * each) that the device runs at once, over all its SMs */
static int march_capacity(int d, int nt, size_t smem, int *cap)
{
  int dev = 0, sms = 0, per = 0;
  ADI_GPU_CHECK(cudaGetDevice(&dev));
  ADI_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  switch (d) {
  case 1: ADI_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, m_flux_march_kernel<1>, nt, smem)); break;
  case 2: ADI_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, m_flux_march_kernel<2>, nt, smem)); break;
  default: ADI_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, m_flux_march_kernel<3>, nt, smem)); break;
  }
  *cap = per*sms;
  return ADI_OK;
}

int mlaunch_flux_march(const adi_view *v, int d, m_shape sh, int first, int dep, cudaStream_t s)
{
  int T[3] = {sh.x, sh.y, sh.z}, N[3] = {v->ni, v->nj, v->nk}, G[3], a, nt = sh.x*sh.y*sh.z, cap = 0, rc;
  size_t smem = (size_t)5*fm_buffers(v)*(nt/T[d - 1])*(T[d - 1] + 1)*sizeof(double);
  /* a shape the marching kernel cannot take: the fused kernel instead */
  if (nt > FM_BOUND(d) || smem > 48*1024) return mlaunch_flux_fused(v, d, sh, first, dep, s);
  for (a = 0; a < 3; ++a) G[a] = a == d - 1 ? 1 : m_div(N[a], T[a]);
  /* One block per column tile: a small grid gives too few blocks to fill
   * the device (at 64^3 along j, 128 blocks for 132 SMs), and the fused
   * kernel, one block per tile of cells, has more. Under half of what the
   * device holds at once, the fused kernel runs instead (the same numbers). */
  rc = march_capacity(d, nt, smem, &cap);
  if (rc != ADI_OK) return rc;
  if (2*G[0]*G[1]*G[2] < cap) return mlaunch_flux_fused(v, d, sh, first, dep, s);
  dim3 grid((unsigned)G[0], (unsigned)G[1], (unsigned)G[2]), block((unsigned)sh.x, (unsigned)sh.y, (unsigned)sh.z);
  switch (d) {
  case 1: ADI_GPU_CHECK(adi_launch_dep(dep, m_flux_march_kernel<1>, grid, block, smem, s, *v, first)); break;
  case 2: ADI_GPU_CHECK(adi_launch_dep(dep, m_flux_march_kernel<2>, grid, block, smem, s, *v, first)); break;
  default: ADI_GPU_CHECK(adi_launch_dep(dep, m_flux_march_kernel<3>, grid, block, smem, s, *v, first)); break;
  }
  ADI_LAUNCH_CHECK("flux_fused (marching)");
  return ADI_OK;
}
