/* Merged family, LU-ADI: point kernels (ADI_kernel3, 5 as in the split
 * family; ADI_kernel12 = 1+2 merged with the eigenvalues in registers,
 * paper technique 1; ADI_kernel123 = 1+2+3; ADI_kernel5_123 = 5 of d with
 * 1+2+3 of d + 1, MS_ADI5F, adi5f_point) and the sweeps:
 *   MS_SWEEP off  one thread per line (per (line, component) with MS_COMP),
 *                 one point at a time: the split family's access pattern
 *                 (bench builds only, as the block-wide shared-memory
 *                 i-sweep of MS_TSWEEP off: ADIFLOW_BENCH_VARIANTS)
 *   MS_SWEEP on   i-sweeps (d = 1): the paper's coalesced shared-memory line
 *                 solver - the block's lines are read 16 points at a time,
 *                 16 consecutive threads on 16 consecutive i (128 bytes),
 *                 into tiles lines x 17 (res/wch, flmp, rdiag forwards;
 *                 wch, flmn backwards), then each thread sweeps its line in
 *                 shared memory (the ablation "all,-tsweep" runs it; with
 *                 MS_TSWEEP the warp-by-warp kernel below replaces it);
 *                 j/k sweeps (coalesced across i already):
 *                 loads batched ADI4_U points ahead in registers, so that
 *                 ADI4_U loads per array are in flight per thread
 *   MS_COMP       one thread per (line, characteristic component): grid z
 *                 runs over the 5 components (exact: the components'
 *                 recurrences are independent, the arithmetic unchanged)
 * Bodies: cuda/common/adiflow_merged.h (adi12_point) and adiflow_stages.h
 * (adi4x_fwd_first/fwd/bwd: the recurrences in double, or in float with
 * implicit_precision = 'single'). The sweep kernels take the precision of
 * their operations as SP, a constant of the instantiation that the
 * launcher picks from the grid's uniform flag, so the recurrences carry no
 * branch between their steps.
 *
 * Storage of the ADI work fields (adi_view's wkf): every kernel here is a
 * template on T, the type they are stored in, and takes its view as an
 * adi_view_wk<T> (cuda/common/lu_adi.h); each launcher picks the
 * instantiation from the grid's view (adi_storage_float, kernels.cuh).
 * T = double: the fields in wk (double mode, and single mode on a grid
 * without wkf), the code of the double-only storage; T = float: in wkf
 * (single mode), the float operations only, on floats loaded, kept in
 * float registers and stored (a float promoted and rounded back is the
 * same float, so no conversion is left): half the bytes per access, and
 * half the shared memory of the i-sweeps' tiles. */
#include "merged.cuh"

enum { ADI4_U = 8, ADI4_CH = 16, ADI4_PITCH = ADI4_CH + 1, ADI4_SMEM_MAX = 64*1024 };

/* component m (1-based) of the ADI work fields in the storage of v */
template <int PC>
__device__ static __forceinline__ double *adi_wk_field(const adi_view_wk<double, PC> *v, int m)
{
  return v->wk + (ptrdiff_t)(m - 1)*v->npts;
}

template <int PC>
__device__ static __forceinline__ float *adi_wk_field(const adi_view_wk<float, PC> *v, int m)
{
  return v->wkf + (ptrdiff_t)(m - 1)*v->npts;
}

/* one thread per cell of box b; blocks start at i = x0 (m_x0); the body of
 * kernel K is its body column in ADI_MERGED_KERNELS (launch ADIPT) */
#define ADI_MK_BODY_ADIPT(id, body) if constexpr (K == MK_##id) { body; } else
#define ADI_MK_BODY_FLUXPT(id, body)
#define ADI_MK_BODY_OWN(id, body)
template <int K, typename T, int PC = 0>
__global__ void m_adi_point_kernel(adi_view_wk<T, PC> view, int d, adi_box b, int x0)
{
  const adi_view_wk<T, PC> *v = &view;
  int i = x0 + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int j = b.lo[1] + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  int k = b.lo[2] + (int)blockIdx.z;
  if (i < b.lo[0] || i > b.hi[0] || j > b.hi[1] || k > b.hi[2]) return;
#define ADI_X(id, name, launch, use, box, body) ADI_MK_BODY_##launch(id, body)
  ADI_MERGED_KERNELS(ADI_X) {}
#undef ADI_X
}

template <int K, typename T, int PC>
static int launch_point(const adi_view *v, int d, adi_box b, m_shape sh, int align, int ilo, int ihi, cudaStream_t s)
{
  int x0;
  /* (ilo > ihi: the whole box) */
  if (ilo <= ihi) {
    if (ilo > b.lo[0]) b.lo[0] = ilo;
    if (ihi < b.hi[0]) b.hi[0] = ihi;
    if (b.lo[0] > b.hi[0]) return ADI_OK;
  }
  x0 = m_x0(&b, align);
  dim3 grid((unsigned)m_div(b.hi[0] - x0 + 1, sh.x), (unsigned)m_div(b.hi[1] - b.lo[1] + 1, sh.y),
            (unsigned)(b.hi[2] - b.lo[2] + 1));
  m_adi_point_kernel<K, T, PC><<<grid, dim3((unsigned)sh.x, (unsigned)sh.y, 1), 0, s>>>(adi_view_as<T, PC>(v), d, b, x0);
  ADI_LAUNCH_CHECK("merged point kernel (ADI family)");
  return ADI_OK;
}

#define ADI_MK_CASE_ADIPT(id, box) \
  case MK_##id: return launch_point<MK_##id, T, PC>(v, d, box, sh, align, ilo, ihi, s);
#define ADI_MK_CASE_FLUXPT(id, box)
#define ADI_MK_CASE_OWN(id, box)
/* the kinds this build holds (adi_merged_kernel_built) */
template <typename T, int PC>
static int launch_adi_point(const adi_view *v, int kernel, int d, m_shape sh, int align, int ilo, int ihi,
                            cudaStream_t s)
{
  switch (kernel) {
#define ADI_X(id, name, launch, use, box, body) ADI_MK_IF_##use(ADI_MK_CASE_##launch(id, box))
    ADI_MERGED_KERNELS(ADI_X)
#undef ADI_X
  default: return ADI_ERR_USAGE;
  }
}

int mlaunch_adi_point_irange(const adi_view *v, int kernel, int d, m_shape sh, int align, int ilo, int ihi,
                             cudaStream_t s)
{
  /* 5 of d with 1-3 of d + 1: d = 1, 2 only */
  if (kernel == MK_ADI5F && d >= 3) return ADI_ERR_USAGE;
  if (adi_storage_float(v)) return launch_adi_point<float, 0>(v, kernel, d, sh, align, ilo, ihi, s);
  if (adi_precond(v)) return launch_adi_point<double, 1>(v, kernel, d, sh, align, ilo, ihi, s);
  return launch_adi_point<double, 0>(v, kernel, d, sh, align, ilo, ihi, s);
}

int mlaunch_adi_point(const adi_view *v, int kernel, int d, m_shape sh, int align, cudaStream_t s)
{
  return mlaunch_adi_point_irange(v, kernel, d, sh, align, 1, 0, s);
}

/* ---- the preconditioner's eps across a block's faces of direction d ----
 * ADI stage 2 of a direction swept across the blocks reads the eigenvalues
 * of the cell across each face (launch_step), and with preconditioning they
 * take that cell's eps, which the time step stores for the block's own
 * cells only (pce). The two layers across the faces (0 and n + 1 along d,
 * the block's own range across) get it formed from their ghost primitives
 * and metrics as the CPU forms it there (adi_precond_eps of the plain view:
 * fortran/lu_adi.f90's eps_at), so the stage reads the CPU's value. */
__global__ void m_pce_faces_kernel(adi_view v, int d)
{
  int a = 1 + (int)(blockIdx.x*blockDim.x + threadIdx.x);   /* the first direction across d */
  int c = 1 + (int)(blockIdx.y*blockDim.y + threadIdx.y);   /* the second */
  int n[3] = {v.ni, v.nj, v.nk}, e = d == 1 ? 1 : 0, f = d == 3 ? 1 : 2, x[3];
  if (a > n[e] || c > n[f]) return;
  x[d - 1] = blockIdx.z == 0 ? 0 : n[d - 1] + 1;
  x[e] = a;
  x[f] = c;
  int p = adi_pt(&v, x[0], x[1], x[2]);
  v.pce[p] = adi_precond_eps(&v, p);
}

int mlaunch_pce_faces(const adi_view *v, int d, cudaStream_t s)
{
  int n[3] = {v->ni, v->nj, v->nk}, e = d == 1 ? 1 : 0, f = d == 3 ? 1 : 2;
  if (v->pce == NULL) return ADI_OK;
  m_pce_faces_kernel<<<dim3((unsigned)m_div(n[e], 32), (unsigned)m_div(n[f], 4), 2), dim3(32, 4, 1), 0, s>>>(*v, d);
  ADI_LAUNCH_CHECK("preconditioner eps across the block faces");
  return ADI_OK;
}

/* ---- sweeps, one thread per line (b, c) and per component group; U
 * points' loads issued before their recurrence steps ---- */
template <int U, typename T, int SP>
__global__ void m_adi4_reg_kernel(adi_view_wk<T> v, int d, int nb, int nc, int mper)
{
  int b = 1 + (int)(blockIdx.x*blockDim.x + threadIdx.x), c = 1 + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  int m0 = 1 + (int)blockIdx.z*mper, m1 = m0 + mper - 1, n, e, p1, pa, a, m, u, sx;
  const int single = SP;
  int pc[3];
  T x;
  if (b > nb || c > nc) return;
  if (m1 > 5) m1 = 5;
  n = adi_ncells(&v, d);
  e = adi_stride(&v, d);
  cell_index(d, 1, b, c, pc);
  p1 = adi_pt(&v, pc[0], pc[1], pc[2]);
  for (m = m0; m <= m1; ++m) {
    sx = adi_eig_of_char(m);
    T *W = adi_wk_field(&v, WK_WCH + m);
    const T *P = adi_wk_field(&v, WK_FLMP + sx);
    const T *Rd = adi_wk_field(&v, WK_RDIAG + sx);
    const T *Nn = adi_wk_field(&v, WK_FLMN + sx);
    x = adi4x_fwd_first(single, W[p1], Rd[p1]);
    W[p1] = x;
    pa = p1;
    a = 2;
    for (; a + U - 1 <= n; a += U) {
      T w[U], f[U], g[U];
#pragma unroll
      for (u = 0; u < U; ++u) {
        w[u] = W[pa + (u + 1)*e]; f[u] = P[pa + (u + 1)*e]; g[u] = Rd[pa + (u + 1)*e];
      }
#pragma unroll
      for (u = 0; u < U; ++u) {
        x = adi4x_fwd(single, w[u], f[u], g[u], x);
        W[pa + (u + 1)*e] = x;
      }
      pa += U*e;
    }
    for (; a <= n; ++a) {
      pa += e;
      x = adi4x_fwd(single, W[pa], P[pa], Rd[pa], x);
      W[pa] = x;
    }
    /* pa is cell n; x its value */
    a = n - 1;
    for (; a - U + 1 >= 1; a -= U) {
      T w[U], f[U];
#pragma unroll
      for (u = 0; u < U; ++u) {
        w[u] = W[pa - (u + 1)*e]; f[u] = Nn[pa - (u + 1)*e];
      }
#pragma unroll
      for (u = 0; u < U; ++u) {
        x = adi4x_bwd(single, w[u], f[u], x);
        W[pa - (u + 1)*e] = x;
      }
      pa -= U*e;
    }
    for (; a >= 1; --a) {
      pa -= e;
      x = adi4x_bwd(single, W[pa], Nn[pa], x);
      W[pa] = x;
    }
  }
}

#ifdef ADIFLOW_BENCH_VARIANTS
/* ---- i-sweeps through shared memory. Lines (j, k): j along x, k along y
 * of the block; line l = threadIdx.x + blockDim.x*threadIdx.y is thread
 * l's. Chunk ch holds row offsets ch*16 .. ch*16+15 (i = offset - 1); only
 * i in 1..ni is read or written. ---- */
template <typename T, int SP>
__global__ void m_adi4_smem_i_kernel(adi_view_wk<T> v, int mper)
{
  extern __shared__ double sm[];
  const int L = (int)(blockDim.x*blockDim.y), tid = (int)(threadIdx.x + blockDim.x*threadIdx.y);
  const int j0 = 1 + (int)(blockIdx.x*blockDim.x), k0 = 1 + (int)(blockIdx.y*blockDim.y);
  const int ni = v.ni, nch = (ni + 2 + ADI4_CH - 1)/ADI4_CH;
  const int active = j0 + (int)threadIdx.x <= v.nj && k0 + (int)threadIdx.y <= v.nk;
  const int single = SP;
  T *s0 = reinterpret_cast<T *>(sm), *s1 = s0 + L*ADI4_PITCH, *s2 = s0 + 2*L*ADI4_PITCH;
  int m0 = 1 + (int)blockIdx.z*mper, m1 = m0 + mper - 1, m, sx, ch, e, l, ii, i, jl, kl, idx;
  T x = 0;
  if (m1 > 5) m1 = 5;
  for (m = m0; m <= m1; ++m) {
    sx = adi_eig_of_char(m);
    T *W = adi_wk_field(&v, WK_WCH + m);
    const T *P = adi_wk_field(&v, WK_FLMP + sx);
    const T *Rd = adi_wk_field(&v, WK_RDIAG + sx);
    const T *Nn = adi_wk_field(&v, WK_FLMN + sx);
    /* forward */
    for (ch = 0; ch < nch; ++ch) {
      for (e = tid; e < L*ADI4_CH; e += L) {
        l = e/ADI4_CH; ii = e - l*ADI4_CH; i = ch*ADI4_CH + ii - 1;
        jl = j0 + l%(int)blockDim.x; kl = k0 + l/(int)blockDim.x;
        if (i >= 1 && i <= ni && jl <= v.nj && kl <= v.nk) {
          int p = adi_pt(&v, i, jl, kl);
          s0[l*ADI4_PITCH + ii] = W[p]; s1[l*ADI4_PITCH + ii] = P[p]; s2[l*ADI4_PITCH + ii] = Rd[p];
        }
      }
      __syncthreads();
      if (active) {
        for (ii = 0; ii < ADI4_CH; ++ii) {
          i = ch*ADI4_CH + ii - 1;
          if (i < 1 || i > ni) continue;
          idx = tid*ADI4_PITCH + ii;
          x = i == 1 ? adi4x_fwd_first(single, s0[idx], s2[idx]) : adi4x_fwd(single, s0[idx], s1[idx], s2[idx], x);
          s0[idx] = x;
        }
      }
      __syncthreads();
      for (e = tid; e < L*ADI4_CH; e += L) {
        l = e/ADI4_CH; ii = e - l*ADI4_CH; i = ch*ADI4_CH + ii - 1;
        jl = j0 + l%(int)blockDim.x; kl = k0 + l/(int)blockDim.x;
        if (i >= 1 && i <= ni && jl <= v.nj && kl <= v.nk) W[adi_pt(&v, i, jl, kl)] = s0[l*ADI4_PITCH + ii];
      }
      __syncthreads();
    }
    /* backward; x holds cell ni's value */
    for (ch = nch - 1; ch >= 0; --ch) {
      for (e = tid; e < L*ADI4_CH; e += L) {
        l = e/ADI4_CH; ii = e - l*ADI4_CH; i = ch*ADI4_CH + ii - 1;
        jl = j0 + l%(int)blockDim.x; kl = k0 + l/(int)blockDim.x;
        if (i >= 1 && i < ni && jl <= v.nj && kl <= v.nk) {
          int p = adi_pt(&v, i, jl, kl);
          s0[l*ADI4_PITCH + ii] = W[p]; s1[l*ADI4_PITCH + ii] = Nn[p];
        }
      }
      __syncthreads();
      if (active) {
        for (ii = ADI4_CH - 1; ii >= 0; --ii) {
          i = ch*ADI4_CH + ii - 1;
          if (i < 1 || i >= ni) continue;
          idx = tid*ADI4_PITCH + ii;
          x = adi4x_bwd(single, s0[idx], s1[idx], x);
          s0[idx] = x;
        }
      }
      __syncthreads();
      for (e = tid; e < L*ADI4_CH; e += L) {
        l = e/ADI4_CH; ii = e - l*ADI4_CH; i = ch*ADI4_CH + ii - 1;
        jl = j0 + l%(int)blockDim.x; kl = k0 + l/(int)blockDim.x;
        if (i >= 1 && i < ni && jl <= v.nj && kl <= v.nk) W[adi_pt(&v, i, jl, kl)] = s0[l*ADI4_PITCH + ii];
      }
      __syncthreads();
    }
  }
}
#endif

/* ---- i-sweeps warp by warp (MS_TSWEEP). One thread per line (j, k),
 * line L = j - 1 + nj*(k - 1); a warp's lines are its own lanes', so a
 * warp needs no other warp: adi_syncwarp only, no block barrier. Chunk ch
 * holds row offsets ch*TW_CH .. ch*TW_CH + TW_CH - 1 (i = offset - 1; rows
 * start on 128-byte boundaries). A chunk's loads: element e = lane +
 * ADI_WARP_SIZE*r (r < TW_CH) is offset e % TW_CH of the warp's line
 * e / TW_CH (that line's base by a shuffle, once per kernel), so one load
 * instruction covers whole rows of the chunk (TW_CH elements: 128 bytes of
 * doubles, 32 of floats); all TW_CH x 3 loads of a lane
 * are issued before the first is stored to shared memory (register
 * staging). Then each lane runs its line's recurrence through the tile
 * (adi4x_fwd_first / adi4x_fwd / adi4x_bwd, the order of adi_stage4_line)
 * and the warp writes the chunk back the way it loaded it. Tiles:
 * lines x (TW_CH + 1) elements of T, three of them (wch, flmp/flmn,
 * rdiag). ---- */
/* TW_CH per storage type: 16 rows of doubles, 8 of floats (a float chunk of
 * 16 halves the bytes but not the time: bench/log/2026-11-23-cfd.md) */
template <typename T> struct tw_chunk {
  enum { CH = sizeof(T) == sizeof(double) ? 16 : 8, PITCH = CH + 1 };
};

template <typename T, int SP>
__global__ void __launch_bounds__(128) m_adi4_warp_i_kernel(adi_view_wk<T> v, int mper)
{
  constexpr int TW_CH = tw_chunk<T>::CH, TW_PITCH = tw_chunk<T>::PITCH;
  extern __shared__ double sm[];
  const int nt = (int)blockDim.x, tid = (int)threadIdx.x, lane = tid % ADI_WARP_SIZE;
  const int wbase = tid - lane;              /* the warp's first thread = its first line's tile row */
  const int nl = v.nj*v.nk, L = (int)blockIdx.x*nt + tid, ni = v.ni;
  const int nch = (ni + 2 + TW_CH - 1)/TW_CH;
  const int active = L < nl;
  const int single = SP;
  T *s0 = reinterpret_cast<T *>(sm), *s1 = s0 + nt*TW_PITCH, *s2 = s0 + 2*nt*TW_PITCH;
  int m0 = 1 + (int)blockIdx.y*mper, m1 = m0 + mper - 1, m, sx, ch, r, ii, i, off, idx;
  int base = -1, bb[TW_CH];
  T x = 0;
  T a0[TW_CH], a1[TW_CH], a2[TW_CH];
  if (active) base = adi_pt(&v, -1, 1 + L % v.nj, 1 + L / v.nj);
#pragma unroll
  for (r = 0; r < TW_CH; ++r) bb[r] = adi_shfl(base, (lane + ADI_WARP_SIZE*r)/TW_CH);
  if (m1 > 5) m1 = 5;
  for (m = m0; m <= m1; ++m) {
    sx = adi_eig_of_char(m);
    T *W = adi_wk_field(&v, WK_WCH + m);
    const T *P = adi_wk_field(&v, WK_FLMP + sx);
    const T *Rd = adi_wk_field(&v, WK_RDIAG + sx);
    const T *Nn = adi_wk_field(&v, WK_FLMN + sx);
    /* forward: cells 1..ni */
    for (ch = 0; ch < nch; ++ch) {
#pragma unroll
      for (r = 0; r < TW_CH; ++r) {
        ii = (lane + ADI_WARP_SIZE*r) % TW_CH; i = ch*TW_CH + ii - 1;
        if (bb[r] >= 0 && i >= 1 && i <= ni) {
          off = bb[r] + ch*TW_CH + ii;
          a0[r] = W[off]; a1[r] = P[off]; a2[r] = Rd[off];
        }
      }
#pragma unroll
      for (r = 0; r < TW_CH; ++r) {
        ii = (lane + ADI_WARP_SIZE*r) % TW_CH; i = ch*TW_CH + ii - 1;
        idx = (wbase + (lane + ADI_WARP_SIZE*r)/TW_CH)*TW_PITCH + ii;
        if (bb[r] >= 0 && i >= 1 && i <= ni) { s0[idx] = a0[r]; s1[idx] = a1[r]; s2[idx] = a2[r]; }
      }
      adi_syncwarp();
      if (active) {
        for (ii = 0; ii < TW_CH; ++ii) {
          i = ch*TW_CH + ii - 1;
          if (i < 1 || i > ni) continue;
          idx = tid*TW_PITCH + ii;
          x = i == 1 ? adi4x_fwd_first(single, s0[idx], s2[idx]) : adi4x_fwd(single, s0[idx], s1[idx], s2[idx], x);
          s0[idx] = x;
        }
      }
      adi_syncwarp();
#pragma unroll
      for (r = 0; r < TW_CH; ++r) {
        ii = (lane + ADI_WARP_SIZE*r) % TW_CH; i = ch*TW_CH + ii - 1;
        idx = (wbase + (lane + ADI_WARP_SIZE*r)/TW_CH)*TW_PITCH + ii;
        if (bb[r] >= 0 && i >= 1 && i <= ni) W[bb[r] + ch*TW_CH + ii] = s0[idx];
      }
      adi_syncwarp();
    }
    /* backward: cells ni-1..1; x holds cell ni's value */
    for (ch = nch - 1; ch >= 0; --ch) {
#pragma unroll
      for (r = 0; r < TW_CH; ++r) {
        ii = (lane + ADI_WARP_SIZE*r) % TW_CH; i = ch*TW_CH + ii - 1;
        if (bb[r] >= 0 && i >= 1 && i < ni) {
          off = bb[r] + ch*TW_CH + ii;
          a0[r] = W[off]; a1[r] = Nn[off];
        }
      }
#pragma unroll
      for (r = 0; r < TW_CH; ++r) {
        ii = (lane + ADI_WARP_SIZE*r) % TW_CH; i = ch*TW_CH + ii - 1;
        idx = (wbase + (lane + ADI_WARP_SIZE*r)/TW_CH)*TW_PITCH + ii;
        if (bb[r] >= 0 && i >= 1 && i < ni) { s0[idx] = a0[r]; s1[idx] = a1[r]; }
      }
      adi_syncwarp();
      if (active) {
        for (ii = TW_CH - 1; ii >= 0; --ii) {
          i = ch*TW_CH + ii - 1;
          if (i < 1 || i >= ni) continue;
          idx = tid*TW_PITCH + ii;
          x = adi4x_bwd(single, s0[idx], s1[idx], x);
          s0[idx] = x;
        }
      }
      adi_syncwarp();
#pragma unroll
      for (r = 0; r < TW_CH; ++r) {
        ii = (lane + ADI_WARP_SIZE*r) % TW_CH; i = ch*TW_CH + ii - 1;
        idx = (wbase + (lane + ADI_WARP_SIZE*r)/TW_CH)*TW_PITCH + ii;
        if (bb[r] >= 0 && i >= 1 && i < ni) W[bb[r] + ch*TW_CH + ii] = s0[idx];
      }
      adi_syncwarp();
    }
  }
}

/* lines (threads) per block of the warp-by-warp i-sweep: the shape's
 * x*y rounded to whole 64-lane wavefronts, 64 or 128 (tiles <= 52 KB) */
static int tw_lines(m_shape sh)
{
  int t = sh.x*sh.y;
  return t > 64 ? 128 : 64;
}

/* the shared-memory i-sweep's three tiles for shape sh, elements of es bytes */
static size_t adi4_tiles_bytes(m_shape sh, size_t es)
{
  return (size_t)3*sh.x*sh.y*ADI4_PITCH*es;
}

/* the double tiles, the larger: a shape allowed here runs with either storage */
size_t madi4_smem_bytes(m_shape sh)
{
  size_t b = adi4_tiles_bytes(sh, sizeof(double));
  return b <= ADI4_SMEM_MAX ? b : 0;
}

template <typename T, int SP>
static int setup_storage(void)
{
#ifdef ADIFLOW_BENCH_VARIANTS
  ADI_GPU_CHECK(cudaFuncSetAttribute(m_adi4_smem_i_kernel<T, SP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      ADI4_SMEM_MAX));
#endif
  ADI_GPU_CHECK(cudaFuncSetAttribute(m_adi4_warp_i_kernel<T, SP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      ADI4_SMEM_MAX));
  return ADI_OK;
}

int mkernels_setup(size_t adil_cap[4])
{
  int rc = setup_storage<double, 0>();
  if (rc == ADI_OK) rc = setup_storage<double, 1>();
  if (rc == ADI_OK) rc = setup_storage<float, 1>();
  return rc != ADI_OK ? rc : madil_setup(adil_cap);
}

template <typename T, int SP>
static int launch_adi4(const adi_view *v, int d, m_shape sh, int flags, cudaStream_t s)
{
  static_assert(SP == 1 || sizeof(T) == sizeof(double), "float storage is single mode");
  int nb = d == 1 ? v->nj : v->ni, nc = d == 3 ? v->nj : v->nk;
  int mper = (flags & MS_COMP) ? 1 : 5;
  dim3 grid((unsigned)m_div(nb, sh.x), (unsigned)m_div(nc, sh.y), (unsigned)(5/mper));
  dim3 block((unsigned)sh.x, (unsigned)sh.y, 1);
  if ((flags & MS_SWEEP) && (flags & MS_TSWEEP) && d == 1) {
    int nt = tw_lines(sh);
    size_t smem = (size_t)3*nt*tw_chunk<T>::PITCH*sizeof(T);
    dim3 g2((unsigned)m_div(v->nj*v->nk, nt), (unsigned)(5/mper), 1);
    m_adi4_warp_i_kernel<T, SP><<<g2, dim3((unsigned)nt, 1, 1), smem, s>>>(adi_view_as<T>(v), mper);
#ifdef ADIFLOW_BENCH_VARIANTS
  } else if ((flags & MS_SWEEP) && d == 1) {
    if (madi4_smem_bytes(sh) == 0) return ADI_ERR_CONFIG;
    m_adi4_smem_i_kernel<T, SP><<<grid, block, adi4_tiles_bytes(sh, sizeof(T)), s>>>(adi_view_as<T>(v), mper);
  } else if (!(flags & MS_SWEEP)) {
    m_adi4_reg_kernel<1, T, SP><<<grid, block, 0, s>>>(adi_view_as<T>(v), d, nb, nc, mper);
#endif
  } else {
    /* MS_SWEEP along j and k (a run's only sweep there) */
    m_adi4_reg_kernel<ADI4_U, T, SP><<<grid, block, 0, s>>>(adi_view_as<T>(v), d, nb, nc, mper);
  }
  ADI_LAUNCH_CHECK("ADI_kernel4 (merged)");
  return ADI_OK;
}

int mlaunch_adi4(const adi_view *v, int d, m_shape sh, int flags, cudaStream_t s)
{
  if (adi_storage_float(v)) return launch_adi4<float, 1>(v, d, sh, flags, s);
  if (adi_single(v)) return launch_adi4<double, 1>(v, d, sh, flags, s);
  return launch_adi4<double, 0>(v, d, sh, flags, s);
}
