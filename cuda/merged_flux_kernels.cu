/* Merged family: point kernels of the primitives / time step / flux
 * stages, the fused flux of a direction (beyond the paper, (a)) and
 * flux_kernel1 through a shared-memory tile (paper technique 4).
 * Bodies: include/adiflow_merged.h, include/adiflow_stages.h. */
#include "merged.cuh"

/* one thread per cell of box b; blocks start at i = x0 (m_x0) */
template <int K>
__global__ void m_flux_point_kernel(adi_view v, int d, adi_box b, int x0, const double *cfl)
{
  int i = x0 + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int j = b.lo[1] + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  int k = b.lo[2] + (int)blockIdx.z;
  if (i < b.lo[0] || i > b.hi[0] || j > b.hi[1] || k > b.hi[2]) return;
  if constexpr (K == MK_PRIM) {
    primitives_point(&v, i, j, k);
  } else if constexpr (K == MK_TSTEP) {
    time_step_point(&v, *cfl, i, j, k);
  } else if constexpr (K == MK_PT) {
    /* the same thread reads back the qp it wrote */
    primitives_point(&v, i, j, k);
    if (i >= 1 && i <= v.ni && j >= 1 && j <= v.nj && k >= 1 && k <= v.nk) time_step_point(&v, *cfl, i, j, k);
  } else if constexpr (K == MK_FLUX1) {
    flux_stage1_point(&v, d, i, j, k);
  } else if constexpr (K == MK_FLUX2) {
    flux_stage2_point(&v, d, i, j, k);
  } else if constexpr (K == MK_FLUX3) {
    flux_stage3_point(&v, d, i, j, k);
  } else if constexpr (K == MK_VISC) {
    viscous_flux_point(&v, d, i, j, k);
  } else {
    flux_stage4_point(&v, d, i, j, k);
  }
}

template <int K>
static int launch_point(const adi_view *v, int d, adi_box b, m_shape sh, int align, const double *cfl,
                        cudaStream_t s)
{
  int x0 = m_x0(&b, align);
  dim3 grid((unsigned)m_div(b.hi[0] - x0 + 1, sh.x), (unsigned)m_div(b.hi[1] - b.lo[1] + 1, sh.y),
            (unsigned)(b.hi[2] - b.lo[2] + 1));
  m_flux_point_kernel<K><<<grid, dim3((unsigned)sh.x, (unsigned)sh.y, 1), 0, s>>>(*v, d, b, x0, cfl);
  ADI_LAUNCH_CHECK("merged point kernel (flux family)");
  return ADI_OK;
}

int mlaunch_flux_point(const adi_view *v, int kernel, int d, m_shape sh, int align, const double *d_cfl,
                       cudaStream_t s)
{
  switch (kernel) {
  case MK_PRIM: return launch_point<MK_PRIM>(v, 0, adi_stage_box(v, ST_PRIM, 0), sh, align, d_cfl, s);
  case MK_TSTEP: return launch_point<MK_TSTEP>(v, 0, adi_stage_box(v, ST_TSTEP, 0), sh, align, d_cfl, s);
  case MK_PT: return launch_point<MK_PT>(v, 0, adi_stage_box(v, ST_PRIM, 0), sh, align, d_cfl, s);
  case MK_FLUX1: return launch_point<MK_FLUX1>(v, d, adi_stage_box(v, ST_FLUX1, d), sh, align, d_cfl, s);
  case MK_FLUX2: return launch_point<MK_FLUX2>(v, d, adi_stage_box(v, ST_FLUX2, d), sh, align, d_cfl, s);
  case MK_FLUX3: return launch_point<MK_FLUX3>(v, d, adi_stage_box(v, ST_FLUX3, d), sh, align, d_cfl, s);
  case MK_VISC: return launch_point<MK_VISC>(v, d, adi_stage_box(v, ST_VISC, d), sh, align, d_cfl, s);
  case MK_FLUX4: return launch_point<MK_FLUX4>(v, d, adi_stage_box(v, ST_FLUX4, d), sh, align, d_cfl, s);
  default: return ADI_ERR_USAGE;
  }
}

/* ---- fused flux of direction D: the threads of a block compute
 * g = fc - fv at consecutive faces along D into shared memory, then every
 * thread but the last along D updates the cell between its face and the
 * next (flux_res_update: res = res + (g(face+1) - g(face)), the CPU's
 * order). Blocks overlap by one face along D. Faces 1..n+1 along D, cells
 * 1..n, interior across. ---- */
template <int D>
__global__ void m_flux_fused_kernel(adi_view v, int first)
{
  extern __shared__ double sg[];
  const int t[3] = {(int)threadIdx.x, (int)threadIdx.y, (int)threadIdx.z};
  const int T[3] = {(int)blockDim.x, (int)blockDim.y, (int)blockDim.z};
  const int B[3] = {(int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z};
  const int N[3] = {v.ni, v.nj, v.nk};
  const int nt = T[0]*T[1]*T[2], tid = t[0] + T[0]*(t[1] + T[1]*t[2]);
  const int bstride = D == 1 ? 1 : (D == 2 ? T[0] : T[0]*T[1]);
  int c[3], a, valid = 1, m, p = 0;
  double g[5], gh[5];
  for (a = 0; a < 3; ++a) {
    c[a] = 1 + B[a]*(T[a] - (a == D - 1 ? 1 : 0)) + t[a];
    if (c[a] > N[a] + (a == D - 1 ? 1 : 0)) valid = 0;
  }
  if (valid) {
    p = adi_pt(&v, c[0], c[1], c[2]);
    flux_face_g_dir(&v, D, p, g);
    for (m = 0; m < 5; ++m) sg[m*nt + tid] = g[m];
  }
  __syncthreads();
  if (valid && t[D - 1] < T[D - 1] - 1 && c[D - 1] <= N[D - 1]) {
    for (m = 0; m < 5; ++m) gh[m] = sg[m*nt + tid + bstride];
    flux_res_update(&v, p, first, g, gh);
  }
}

int mlaunch_flux_fused(const adi_view *v, int d, m_shape sh, int first, cudaStream_t s)
{
  int T[3] = {sh.x, sh.y, sh.z}, N[3] = {v->ni, v->nj, v->nk}, G[3], a;
  size_t smem = (size_t)5*sh.x*sh.y*sh.z*sizeof(double);
  if (T[d - 1] < 2) return ADI_ERR_CONFIG;
  for (a = 0; a < 3; ++a) G[a] = a == d - 1 ? m_div(N[a], T[a] - 1) : m_div(N[a], T[a]);
  dim3 grid((unsigned)G[0], (unsigned)G[1], (unsigned)G[2]), block((unsigned)sh.x, (unsigned)sh.y, (unsigned)sh.z);
  switch (d) {
  case 1: m_flux_fused_kernel<1><<<grid, block, smem, s>>>(*v, first); break;
  case 2: m_flux_fused_kernel<2><<<grid, block, smem, s>>>(*v, first); break;
  default: m_flux_fused_kernel<3><<<grid, block, smem, s>>>(*v, first); break;
  }
  ADI_LAUNCH_CHECK("flux_fused");
  return ADI_OK;
}

/* ---- fused flux, marching (MS_FMARCH): the block owns a cross-section
 * tile (its extents across D) and marches along D over cells 1..n in
 * chunks of T_D cells. Slot 0 of the block's face buffer holds the face
 * below the chunk (face 1 before the first chunk, computed by the threads
 * with t_D = 0; afterwards the previous chunk's last face, carried), slots
 * 1..T_D the faces computed by the chunk's threads: each face's g exactly
 * once. g = fc - fv: the convective part is stored first, the viscous part
 * subtracted by the same thread (the registers of the two parts are not
 * live together). Residual update: flux_res_update(gl = slot t, gh = slot
 * t + 1), the CPU's order. Two block barriers per chunk. ---- */
#ifndef FM_NOINLINE_
#define FM_NOINLINE_ 0
#endif
#ifndef FM_MINB_
#define FM_MINB_ 2
#endif
enum { FM_MAXT = 256, FM_MAXT3 = 192, FM_MINB = FM_MINB_ };
/* threads per block at most: 256 (<= 128 registers), 192 along k (<= 168
 * registers: at 128 the k kernel spills) */
#define FM_BOUND(D) ((D) == 3 ? FM_MAXT3 : FM_MAXT)

/* the two parts as separate (not inlined) functions: each gets its own
 * register allocation, the kernel keeps little live across the calls */
template <int D>
__device__ __noinline__ void fm_conv(const adi_view *v, int p, double *sg, int slot, int stride)
{
  double f[5];
  int m;
  flux_face_conv_dir(v, D, p, f);
  for (m = 0; m < 5; ++m) sg[m*stride + slot] = f[m];
}

template <int D>
__device__ __noinline__ void fm_visc(const adi_view *v, int p, double *sg, int slot, int stride)
{
  double f[5];
  int m;
  flux_face_visc_dir(v, D, p, f);
  for (m = 0; m < 5; ++m) sg[m*stride + slot] = sg[m*stride + slot] - f[m];
}

template <int D>
__device__ ADI_FORCEINLINE void fm_face(const adi_view *v, int p, double *sg, int slot, int stride)
{
#if FM_NOINLINE_
  fm_conv<D>(v, p, sg, slot, stride);
  fm_visc<D>(v, p, sg, slot, stride);
#else
  double f[5];
  int m;
  flux_face_conv_dir(v, D, p, f);
  for (m = 0; m < 5; ++m) sg[m*stride + slot] = f[m];
  flux_face_visc_dir(v, D, p, f);
  for (m = 0; m < 5; ++m) sg[m*stride + slot] = sg[m*stride + slot] - f[m];
#endif
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
  const int stride = ncol*(TD + 1);          /* doubles per component */
  double *sc = sg + col*(TD + 1);            /* the column's face slots 0..TD */
  int c[3], a, valid = 1, m, p, e, c0, cd;
  double carry[5], gl[5], gh[5];
  for (a = 0; a < 3; ++a) {
    c[a] = 1 + B[a]*T[a] + t[a];
    if (a != D - 1 && c[a] > N[a]) valid = 0;
  }
  c[D - 1] = 1;
  e = adi_stride(&v, D);
  p = adi_pt(&v, c[0], c[1], c[2]);          /* cell 1 of the column along D */
  /* chunk c0 = 1 - TD only computes face 1 (its last thread), carried to
   * slot 0: one call site of the face body */
#pragma unroll 1
  for (c0 = 1 - TD; c0 <= nd; c0 += TD) {
    cd = c0 + td;                            /* the thread's cell; its face cd + 1 */
    if (valid && cd >= 0 && cd <= nd) fm_face<D>(&v, p + cd*e, sc, td + 1, stride);
    __syncthreads();
    if (valid && cd >= 1 && cd <= nd) {
      for (m = 0; m < 5; ++m) {
        gl[m] = sc[m*stride + td];
        gh[m] = sc[m*stride + td + 1];
      }
      flux_res_update(&v, p + (cd - 1)*e, first, gl, gh);
    }
    if (valid && td == 0)
      for (m = 0; m < 5; ++m) carry[m] = sc[m*stride + TD];
    __syncthreads();
    if (valid && td == 0)
      for (m = 0; m < 5; ++m) sc[m*stride] = carry[m];
  }
}

int mlaunch_flux_march(const adi_view *v, int d, m_shape sh, int first, cudaStream_t s)
{
  int T[3] = {sh.x, sh.y, sh.z}, N[3] = {v->ni, v->nj, v->nk}, G[3], a, nt = sh.x*sh.y*sh.z;
  size_t smem = (size_t)5*(nt/T[d - 1])*(T[d - 1] + 1)*sizeof(double);
  /* a shape the marching kernel cannot take: the fused kernel instead */
  if (nt > FM_BOUND(d) || smem > 48*1024) return mlaunch_flux_fused(v, d, sh, first, s);
  for (a = 0; a < 3; ++a) G[a] = a == d - 1 ? 1 : m_div(N[a], T[a]);
  dim3 grid((unsigned)G[0], (unsigned)G[1], (unsigned)G[2]), block((unsigned)sh.x, (unsigned)sh.y, (unsigned)sh.z);
  switch (d) {
  case 1: m_flux_march_kernel<1><<<grid, block, smem, s>>>(*v, first); break;
  case 2: m_flux_march_kernel<2><<<grid, block, smem, s>>>(*v, first); break;
  default: m_flux_march_kernel<3><<<grid, block, smem, s>>>(*v, first); break;
  }
  ADI_LAUNCH_CHECK("flux_fused (marching)");
  return ADI_OK;
}

/* ---- flux_kernel1 through a shared-memory tile (the paper's 4x8x33 for
 * the direction along which the tile is 32 + 1 long): each thread loads
 * qp at its cell, the first along D also the cell before the tile, then
 * du = tile(t) - tile(t-1), one component at a time. Cells 0..n+2 along D,
 * interior across (flux_stage1_point). ---- */
template <int D>
__global__ void m_flux1_smem_kernel(adi_view v, adi_box b)
{
  extern __shared__ double st[];
  const int t[3] = {(int)threadIdx.x, (int)threadIdx.y, (int)threadIdx.z};
  const int T[3] = {(int)blockDim.x, (int)blockDim.y, (int)blockDim.z};
  const int B[3] = {(int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z};
  const int E0 = T[0] + (D == 1 ? 1 : 0), E1 = T[1] + (D == 2 ? 1 : 0);
  const int es = D == 1 ? 1 : (D == 2 ? E0 : E0*E1);
  int c[3], a, valid = 1, m, p = 0, s, ts[3], idx;
  for (a = 0; a < 3; ++a) {
    c[a] = b.lo[a] + B[a]*T[a] + t[a];
    if (c[a] > b.hi[a]) valid = 0;
    ts[a] = t[a] + (a == D - 1 ? 1 : 0);
  }
  idx = ts[0] + E0*(ts[1] + E1*ts[2]);
  s = adi_stride(&v, D);
  if (valid) p = adi_pt(&v, c[0], c[1], c[2]);
  for (m = 1; m <= 5; ++m) {
    if (valid) {
      st[idx] = ADI_F(&v, qp, m, p);
      if (t[D - 1] == 0) st[idx - es] = ADI_F(&v, qp, m, p - s);
    }
    __syncthreads();
    if (valid) ADI_F(&v, wk, WK_DU + m, p) = st[idx] - st[idx - es];
    __syncthreads();
  }
}

int mlaunch_flux1_smem(const adi_view *v, int d, m_shape sh, cudaStream_t s)
{
  adi_box b = adi_stage_box(v, ST_FLUX1, d);
  size_t smem = (size_t)(sh.x + (d == 1)) * (sh.y + (d == 2)) * (sh.z + (d == 3)) * sizeof(double);
  dim3 grid((unsigned)m_div(b.hi[0] - b.lo[0] + 1, sh.x), (unsigned)m_div(b.hi[1] - b.lo[1] + 1, sh.y),
            (unsigned)m_div(b.hi[2] - b.lo[2] + 1, sh.z));
  dim3 block((unsigned)sh.x, (unsigned)sh.y, (unsigned)sh.z);
  switch (d) {
  case 1: m_flux1_smem_kernel<1><<<grid, block, smem, s>>>(*v, b); break;
  case 2: m_flux1_smem_kernel<2><<<grid, block, smem, s>>>(*v, b); break;
  default: m_flux1_smem_kernel<3><<<grid, block, smem, s>>>(*v, b); break;
  }
  ADI_LAUNCH_CHECK("flux_kernel1_smem");
  return ADI_OK;
}
