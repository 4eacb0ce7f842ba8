/* Merged family, MS_ADIL: every ADI stage of one direction in one kernel,
 * ADI_line. A block owns L whole lines along d (consecutive b at one c,
 * cell_index order) and keeps, for each of their cells, the characteristic
 * increments (5) and the sweep coefficients flmp, flmn, rdiag (3 each) in
 * shared memory, so none of them goes through global memory:
 *   phase 1  per cell (all threads): the eigenvalue split, once - rdiag
 *            stored; with the neighbours' dtv, the next cell's flmp from
 *            lam+ and the previous cell's flmn up to its rdiag factor from
 *            lam- (stage 2; 0 at the line's ends); the right-hand side and
 *            its characteristic increments (stage 3)
 *   phase 2  per (line, component): the forward and backward recurrences
 *            (stage 4), in shared memory; the backward one completes flmn
 *   phase 3  per cell: the increments back to conservative ones, into dq
 *            (q = q + dq after d = 3) (stage 5)
 * The operations are those of adi_line (cuda/common/adiflow_merged.h), the
 * host emulation's body: adi_eig_split, adi2_*, adi_stage3_rhs/_ch,
 * adi4x_*, adi_stage5_from_ch/_store; only where the values live differs.
 * T: the storage of the shared arrays, double, or float in single mode
 * (every value there is a float then: the same bits as wkf holds). SP:
 * the precision of the operations, single mode or not, as a constant of
 * the instantiation (the launch reads the grid's uniform flag): the
 * recurrences of phase 2 then carry no branch between their steps.
 * Shared memory: 14 x L x (n + 1) x sizeof(T) bytes (pitch n + 1: the
 * sweep threads' rows fall in different banks). Along i a line is a row
 * of memory and the lines of a block share nothing: at most 64 KB, so that
 * three blocks share an SM. Along j and k the lines of a block are
 * consecutive i, so each plane of the block is one row segment of L cells:
 * up to the device's opt-in limit (CUDA 227 KB, HIP 64 KB): 8 lines of
 * doubles make 64-byte segments where 4 made 32-byte ones. A line too long
 * for the limit runs the three-kernel path (schedule.cu). */
#include <type_traits>
#include "merged.cuh"

enum { ADIL_NF = 14, ADIL_WCH = 0, ADIL_FP = 5, ADIL_FN = 8, ADIL_RD = 11, ADIL_U = 4, ADIL_MAXT = 512 };
/* the fast build's scan of the recurrences (adil_sweep_scan) runs on lines
 * of at least ADIL_SCAN_N cells: there the one thread per recurrence is
 * what a block waits on; on shorter lines the scan's extra work costs more
 * than its shorter chain saves (bench/log/2026-11-24-cfd.md) */
enum { ADIL_SCAN_N = 256 };
static const size_t ADIL_SMEM_I = 64*1024;   /* along i (see above) */
/* Along j and k: the shared-memory carveout preferred, in percent of the
 * most an SM has. Phase 1 reads the neighbours' dtv and phase 3 reads qp and
 * the metrics again, through L1: two blocks of 8 lines of 128 doubles
 * (115 KB each) would take nearly all of the SM's memory, and L1 with it.
 * At half, one such block holds the SM and L1 keeps the rest; blocks of
 * half that size (64-cell lines, or floats) still pair up. A block of more
 * than ADIL_SMEM_PAIR bytes, alone on its SM, takes twice the tuning
 * table's threads (up to ADIL_MAXT_ALONE): the SM keeps the warps that two
 * blocks would bring. */
enum { ADIL_CARVEOUT_JK = 50, ADIL_MAXT_ALONE = 1024 };
static const size_t ADIL_SMEM_PAIR = 64*1024;
#define ADIL_BOUND(D) ((D) == 1 ? ADIL_MAXT : ADIL_MAXT_ALONE)

static size_t madil_smem_bytes(int n, int lines, int single_storage)
{
  return (size_t)ADIL_NF*lines*(n + 1)*(single_storage ? sizeof(float) : sizeof(double));
}

int madil_lines(const adi_view *v, int d, int want, const size_t cap[4])
{
  int n = adi_ncells(v, d), l;
  for (l = want; l >= 1; --l)
    if (madil_smem_bytes(n, l, adi_storage_float(v)) <= cap[d]) return l;
  return 0;
}

/* cell a0 (0-based along d) of line l of the block: its point, for the
 * block's first line b0 and cross position c */
template <int D>
__device__ static __forceinline__ int adil_point(const adi_view *v, int b0, int c, int l, int a0)
{
  int pc[3];
  cell_index(D, a0 + 1, b0 + l, c, pc);
  return adi_pt(v, pc[0], pc[1], pc[2]);
}

/* the block's cell idx (0 .. nl*n - 1): along d first for i-lines (the
 * cells of a line are consecutive in memory), across the lines first
 * otherwise (consecutive lines are consecutive i) */
template <int D>
__device__ static __forceinline__ void adil_cell(int idx, int n, int nl, int *l, int *a0)
{
  if (D == 1) {
    *l = idx/n; *a0 = idx - *l*n;
  } else {
    *a0 = idx/nl; *l = idx - *a0*nl;
  }
}

#define ADIL_S(f, ll, aa) sm[((f)*L + (ll))*pitch + (aa)]

/* phase 2 in the CPU's order (the strict build): thread tid < 5*nl runs the
 * forward, then the backward recurrence of (line l, component m) alone,
 * ADIL_U steps' loads at a time. The flmn slots hold dtv*lam- (phase 1):
 * times rdiag (adi2_flmn_of) is flmn, the product adi2_flmn forms */
template <typename T, int SP>
__device__ static void adil_sweep_seq(T *sm, int L, int pitch, int n, int nl, int tid)
{
  const int single = SP;
  const int m = tid/nl, l = tid - m*nl, s = adi_eig_of_char(m + 1) - 1;
  T *W = &ADIL_S(ADIL_WCH + m, l, 0);
  const T *P = &ADIL_S(ADIL_FP + s, l, 0), *N = &ADIL_S(ADIL_FN + s, l, 0), *R = &ADIL_S(ADIL_RD + s, l, 0);
  int a, u;
  T x;
  x = (T)adi4x_fwd_first(single, (double)W[0], (double)R[0]);
  W[0] = x;
  for (a = 1; a + ADIL_U <= n; a += ADIL_U) {
    T w[ADIL_U], f[ADIL_U], g[ADIL_U];
#pragma unroll
    for (u = 0; u < ADIL_U; ++u) { w[u] = W[a + u]; f[u] = P[a + u]; g[u] = R[a + u]; }
#pragma unroll
    for (u = 0; u < ADIL_U; ++u) {
      x = (T)adi4x_fwd(single, (double)w[u], (double)f[u], (double)g[u], (double)x);
      W[a + u] = x;
    }
  }
  for (; a < n; ++a) {
    x = (T)adi4x_fwd(single, (double)W[a], (double)P[a], (double)R[a], (double)x);
    W[a] = x;
  }
  /* x is cell n's value */
  for (a = n - 2; a - ADIL_U + 1 >= 0; a -= ADIL_U) {
    T w[ADIL_U], f[ADIL_U];
#pragma unroll
    for (u = 0; u < ADIL_U; ++u) { w[u] = W[a - u]; f[u] = (T)adi2_flmn_of(single, (double)N[a - u], (double)R[a - u]); }
#pragma unroll
    for (u = 0; u < ADIL_U; ++u) {
      x = (T)adi4x_bwd(single, (double)w[u], (double)f[u], (double)x);
      W[a - u] = x;
    }
  }
  for (; a >= 0; --a) {
    x = (T)adi4x_bwd(single, (double)W[a], adi2_flmn_of(single, (double)N[a], (double)R[a]), (double)x);
    W[a] = x;
  }
}

/* phase 2 of the fast build: each recurrence cut into C chunks of K
 * consecutive cells, one lane each (the C lanes of a recurrence are in one
 * warp). Forward, x(a) = (w(a) - flmp(a)*x(a-1))*rdiag(a), is affine in
 * x(a-1): a lane composes its chunk's map x_out = A + B*x_in, the lanes
 * combine their maps by a shuffle scan, and each lane runs its chunk again
 * from its true entry value, storing. The backward recurrence, x(a) = w(a)
 * - flmn(a)*x(a+1), the same from the other end. flmp = 0 at the first
 * cell and flmn = 0 at the last (phase 1) make the ends need no case of
 * their own. The same recurrences summed in another order: the strict
 * build keeps adil_sweep_seq, the CPU's order. Precision of the operations:
 * float in single mode (SP), as in adil_sweep_seq. */
template <typename T, int SP>
__device__ static void adil_sweep_scan(T *sm, int L, int pitch, int n, int nl, int tid, int nt)
{
  typedef typename std::conditional<SP == 1, float, double>::type S;
  const int nrec = 5*nl;
  const int wpc = (int)(sizeof(T)/4);       /* 4-byte bank words per value */
  int C = 16, K, o;
  /* lanes per recurrence: a power of two up to 16 that the block's threads
   * cover, chunks of 4 cells at least */
  while (C > 1 && (C*nrec > nt || 4*C > n)) C >>= 1;
  /* chunk length: n/C rounded up, then up to K*wpc = 32/C modulo 64/C, so
   * that the C lanes of a recurrence start their chunks in different
   * shared-memory banks (chunks of 16 doubles put all 8 lanes in one) */
  K = (n + C - 1)/C;
  if (C > 1)
    while ((K*wpc) % (64/C) != 32/C) ++K;
  const int nscan = ((C*nrec + ADI_WARP_SIZE - 1)/ADI_WARP_SIZE)*ADI_WARP_SIZE;
  if (tid >= nscan) return;                 /* whole warps from here on */
  const int rec = tid/C, q = tid - rec*C;
  const int a0 = min(n, q*K), a1 = min(n, a0 + K);
  const int valid = rec < nrec;
  const int m = valid ? rec/nl : 0, l = valid ? rec - m*nl : 0, s = adi_eig_of_char(m + 1) - 1;
  T *W = &ADIL_S(ADIL_WCH + m, l, 0);
  const T *P = &ADIL_S(ADIL_FP + s, l, 0), *N = &ADIL_S(ADIL_FN + s, l, 0), *R = &ADIL_S(ADIL_RD + s, l, 0);
  int a;
  S A = 0, B = 1, Ao, Bo, x;
  /* forward: the chunk's map, the scan, the chunk again */
  if (valid)
    for (a = a0; a < a1; ++a) {
      const S f = (S)P[a], r = (S)R[a];
      A = ((S)W[a] - f*A)*r;
      B = (-(f*B))*r;
    }
  for (o = 1; o < C; o <<= 1) {
    Ao = adi_shfl_up(A, o, C);
    Bo = adi_shfl_up(B, o, C);
    if (q >= o) {
      A = A + B*Ao;
      B = B*Bo;
    }
  }
  x = adi_shfl_up(A, 1, C);
  if (q == 0) x = 0;
  if (valid)
    for (a = a0; a < a1; ++a) {
      x = ((S)W[a] - (S)P[a]*x)*(S)R[a];
      W[a] = (T)x;
    }
  /* backward */
  A = 0;
  B = 1;
  if (valid)
    for (a = a1 - 1; a >= a0; --a) {
      const S f = (S)adi2_flmn_of(SP, (double)N[a], (double)R[a]);
      A = (S)W[a] - f*A;
      B = -(f*B);
    }
  for (o = 1; o < C; o <<= 1) {
    Ao = adi_shfl_down(A, o, C);
    Bo = adi_shfl_down(B, o, C);
    if (q + o < C) {
      A = A + B*Ao;
      B = B*Bo;
    }
  }
  x = adi_shfl_down(A, 1, C);
  if (q == C - 1) x = 0;
  if (valid)
    for (a = a1 - 1; a >= a0; --a) {
      x = (S)W[a] - (S)adi2_flmn_of(SP, (double)N[a], (double)R[a])*x;
      W[a] = (T)x;
    }
}

template <int D, typename T, int SP, int PC = 0>
__global__ void __launch_bounds__(ADIL_BOUND(D)) m_adi_line_kernel(adi_view_wk<T, PC> view, int L, int blo, int bhi)
{
  static_assert(SP == 1 || sizeof(T) == sizeof(double), "float storage is single mode");
  extern __shared__ __align__(16) unsigned char adil_raw[];
  T *sm = reinterpret_cast<T *>(adil_raw);
  const adi_view_wk<T, PC> *v = &view;
  const int single = SP;
  const int n = adi_ncells(v, D), pitch = n + 1;
  const int b0 = blo + (int)blockIdx.x*L, c = 1 + (int)blockIdx.y;
  const int nl = min(L, bhi - b0 + 1), ncell = nl*n, tid = (int)threadIdx.x, nt = (int)blockDim.x;
  const int e = adi_stride(v, D);
  int idx, l, a0, p, s, m;
  double lp[3], ln[3], lv[3], r[5], ch[5], dt;
  adi_dep_wait();
  /* phase 1: eigenvalue split once per cell; rdiag; with the neighbours'
   * dtv, flmp of the next cell (from lam+) and the first product of flmn
   * of the previous one (dtv*lam-: its rdiag is that cell's, phase 2
   * multiplies); 0 at the line's ends; stage 3. The right-hand side (res or
   * dq, and dtv) is read first, so that its loads are in flight during the
   * split */
  for (idx = tid; idx < ncell; idx += nt) {
    double dtn, dtp;
    adil_cell<D>(idx, n, nl, &l, &a0);
    p = adil_point<D>(v, b0, c, l, a0);
    adi_stage3_rhs(v, D, p, r);
    dt = v->dtv[p];
    dtn = a0 + 1 < n ? v->dtv[p + e] : 0.0;
    dtp = a0 > 0 ? v->dtv[p - e] : 0.0;
    adi_eig_split(v, D, p, lp, ln, lv);
    for (s = 0; s < 3; ++s) {
      ADIL_S(ADIL_RD + s, l, a0) = (T)adi2_rdiag(single, dt, lv[s]);
      if (a0 + 1 < n) ADIL_S(ADIL_FP + s, l, a0 + 1) = (T)adi2_flmp(single, dtn, lp[s]);
      if (a0 == 0) ADIL_S(ADIL_FP + s, l, 0) = (T)0.0;
      if (a0 > 0) ADIL_S(ADIL_FN + s, l, a0 - 1) = (T)adi2_flmn_part(single, dtp, ln[s]);
      if (a0 + 1 == n) ADIL_S(ADIL_FN + s, l, a0) = (T)0.0;
    }
    adi_stage3_ch(v, D, p, r, ch);
    for (m = 0; m < 5; ++m) ADIL_S(ADIL_WCH + m, l, a0) = (T)ch[m];
  }
  __syncthreads();
  /* phase 2: the recurrences of every (line l, component m) */
#ifndef ADIFLOW_STRICT
  if (n >= ADIL_SCAN_N)
    adil_sweep_scan<T, SP>(sm, L, pitch, n, nl, tid, nt);
  else
#endif
  if (tid < 5*nl)
    adil_sweep_seq<T, SP>(sm, L, pitch, n, nl, tid);
  __syncthreads();
  /* phase 3: stage 5. Along k it ends in q = q + dq: q is loaded first
   * (adi_stage5_old), so that its loads are in flight while the increments
   * are formed (left to the compiler, they waited until after) */
  for (idx = tid; idx < ncell; idx += nt) {
    double q0[5];
    adil_cell<D>(idx, n, nl, &l, &a0);
    p = adil_point<D>(v, b0, c, l, a0);
    adi_stage5_old(v, D, p, q0);
    for (m = 0; m < 5; ++m) ch[m] = (double)ADIL_S(ADIL_WCH + m, l, a0);
    adi_stage5_from_ch(v, D, p, ch, r);
    adi_stage5_store_to(v, D, p, q0, r);
  }
#undef ADIL_S
}

template <typename T, int SP, int PC = 0>
static int launch_line(const adi_view *v, int d, int lines, int threads, int blo, int bhi, int dep, cudaStream_t s)
{
  int nc = d == 3 ? v->nj : v->nk;
  size_t smem = madil_smem_bytes(adi_ncells(v, d), lines, sizeof(T) == sizeof(float));
  dim3 grid((unsigned)m_div(bhi - blo + 1, lines), (unsigned)nc, 1), block((unsigned)threads, 1, 1);
  switch (d) {
  case 1: ADI_GPU_CHECK(adi_launch_dep(dep, m_adi_line_kernel<1, T, SP, PC>, grid, block, smem, s, adi_view_as<T, PC>(v), lines, blo, bhi)); break;
  case 2: ADI_GPU_CHECK(adi_launch_dep(dep, m_adi_line_kernel<2, T, SP, PC>, grid, block, smem, s, adi_view_as<T, PC>(v), lines, blo, bhi)); break;
  default: ADI_GPU_CHECK(adi_launch_dep(dep, m_adi_line_kernel<3, T, SP, PC>, grid, block, smem, s, adi_view_as<T, PC>(v), lines, blo, bhi)); break;
  }
  ADI_LAUNCH_CHECK("ADI_line");
  return ADI_OK;
}

int mlaunch_adi_line_range(const adi_view *v, int d, int lines, int threads, const size_t cap[4], int blo, int bhi,
                           int dep, cudaStream_t s)
{
  size_t smem = madil_smem_bytes(adi_ncells(v, d), lines, adi_storage_float(v));
  int nb = d == 1 ? v->nj : v->ni;
  if (lines < 1 || smem > cap[d] || threads < 1 || threads > ADIL_MAXT || blo < 1 || bhi > nb || blo > bhi)
    return ADI_ERR_CONFIG;
  if (d > 1 && smem > ADIL_SMEM_PAIR) threads = 2*threads;
  if (adi_storage_float(v)) return launch_line<float, 1>(v, d, lines, threads, blo, bhi, dep, s);
  if (adi_single(v)) return launch_line<double, 1>(v, d, lines, threads, blo, bhi, dep, s);
  if (adi_precond(v)) return launch_line<double, 0, 1>(v, d, lines, threads, blo, bhi, dep, s);
  return launch_line<double, 0>(v, d, lines, threads, blo, bhi, dep, s);
}

int mlaunch_adi_line(const adi_view *v, int d, int lines, int threads, const size_t cap[4], int dep, cudaStream_t s)
{
  return mlaunch_adi_line_range(v, d, lines, threads, cap, 1, d == 1 ? v->nj : v->ni, dep, s);
}

template <typename T, int SP, int PC = 0>
static int setup_line(const size_t cap[4])
{
  ADI_GPU_CHECK(cudaFuncSetAttribute(m_adi_line_kernel<1, T, SP, PC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)cap[1]));
  ADI_GPU_CHECK(cudaFuncSetAttribute(m_adi_line_kernel<2, T, SP, PC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)cap[2]));
  ADI_GPU_CHECK(cudaFuncSetAttribute(m_adi_line_kernel<3, T, SP, PC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)cap[3]));
  ADI_GPU_CHECK(cudaFuncSetAttribute(m_adi_line_kernel<2, T, SP, PC>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      ADIL_CARVEOUT_JK));
  ADI_GPU_CHECK(cudaFuncSetAttribute(m_adi_line_kernel<3, T, SP, PC>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      ADIL_CARVEOUT_JK));
  return ADI_OK;
}

int madil_setup(size_t cap[4])
{
  int dev = 0, optin = 0, rc;
  ADI_GPU_CHECK(cudaGetDevice(&dev));
  ADI_GPU_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  cap[0] = 0;
  cap[1] = (size_t)optin < ADIL_SMEM_I ? (size_t)optin : ADIL_SMEM_I;
  cap[2] = cap[3] = (size_t)optin;
  rc = setup_line<double, 0>(cap);
  if (rc == ADI_OK) rc = setup_line<double, 0, 1>(cap);
  if (rc == ADI_OK) rc = setup_line<double, 1>(cap);
  return rc != ADI_OK ? rc : setup_line<float, 1>(cap);
}
