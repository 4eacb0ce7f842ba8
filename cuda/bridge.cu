/* The C bridge of the CUDA backend (include/adiflow_bridge.h): device
 * choice and checks, allocation and upload of every field, the iteration as
 * a sequence of kernel launches in solver_cpu's order, residual norms,
 * download, per-kernel timing with CUDA events, and error messages that say
 * where (file:line), which CUDA error, and what the user can do.
 *
 * Every grid is a handle (struct adi_gpu_grid, heap-allocated by
 * adi_gpu_init): its fields, stream, events, timing, the merged family's
 * state (cuda/merged_schedule.cu) and, in block mode, the block driver's
 * hooks (cuda/block_hooks.cuh) hang off it, so one process can hold several
 * grids of different sizes. The only process-wide mutable state is the
 * per-thread text of the last failure.
 *
 * Fields live on the device in the host's layout (fortran/grid_layout.f90):
 * one cudaMalloc per field group, npts = ldi*ldj*ldk doubles per component,
 * so uploads and downloads are plain copies.
 *
 * Environment:
 *   ADIFLOW_DEVICE=N       use GPU N (default 0; CUDA_VISIBLE_DEVICES applies)
 *   ADIFLOW_GPU_TIMING=1   time every kernel with CUDA events and print the
 *                          table at adi_gpu_finalize, one per grid (adi_gpu_set_timing and
 *                          adi_gpu_timing_report do the same through the API)
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adiflow_gpu_vendor.h"   /* the runtime: CUDA, or HIP (make hip) */

#include "adiflow_bridge.h"
#include "kernels.cuh"
#include "merged.cuh"
#include "block_hooks.cuh"

#define ADI_ERRLEN 2048
#define GIB (1024.0*1024.0*1024.0)

/* The text of the last failure, per thread (like errno): the one piece of
 * process-wide mutable state. Everything else belongs to a grid. */
static thread_local char g_err[ADI_ERRLEN];

/* tag of a live grid; adi_gpu_finalize overwrites it before the memory goes */
enum : unsigned { ADI_GRID_LIVE = 0x61646967u, ADI_GRID_DEAD = 0x64656164u };

/* One grid (include/adiflow_bridge.h): heap-allocated by adi_gpu_init, freed
 * by adi_gpu_finalize. In this file g is always the grid at hand. */
struct adi_gpu_grid {
  unsigned magic;                     /* ADI_GRID_LIVE while the handle is valid */
  const adi_block_hooks *block;       /* block mode's hooks (cuda/block_hooks.cuh); NULL for one domain */
  merged_state *merged;               /* the merged family's state (cuda/merged_schedule.cu); NULL for split */
  int device;
  cudaStream_t stream;
  adi_view v;                         /* device pointers, layout, parameters */
  double *d_plane, *d_norms;          /* residual-norm scratch: 5*nk, 5 */
  double *d_mrows, *d_mplane;         /* mass_fix scratch: row sums nj*nk, plane sums nk */
  double *h_norms;                    /* pinned, 5 */
  size_t bytes;                       /* device memory held */
  adi_step steps[ADI_MAX_STEPS];
  int nsteps;
  long long iterations;
  int kernels;                        /* ADI_KERNELS_SPLIT or ADI_KERNELS_MERGED */
  /* timing */
  int timing, timing_env;
  int events_ready;
  cudaEvent_t ev_start[ADI_MAX_STEPS + 1], ev_stop[ADI_MAX_STEPS + 1];
  double ms[ST_COUNT][4];             /* [stage][d], d = 0 for the undirected ones */
  double norm_ms, iter_ms;
  long long timed_iterations, norm_calls;
};

/* ---------------------------------------------------------------- errors */

static void set_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_err, sizeof g_err, fmt, ap);
  va_end(ap);
}

#if ADI_GPU_HIP
/* HIP (AMD, DCU): the same advice in ROCm's words; several CUDA codes have
 * no HIP twin, so this is a switch of its own. */
static const char *advice_for(hipError_t err)
{
  switch (err) {
  case hipErrorOutOfMemory:
    return "the GPU ran out of memory: use a smaller grid, free the GPU (rocm-smi --showpids lists the "
           "processes using it), or run with backend = 'cpu'";
  case hipErrorNoBinaryForGpu:
  case hipErrorInvalidDeviceFunction:
  case hipErrorInvalidImage:
  case hipErrorInvalidKernelFile:
    return "this build holds no code this GPU can run: rebuild for it with make hip HIP_ARCH=gfxNNN "
           "(the gfx name rocminfo shows), or run with backend = 'cpu'";
  case hipErrorInsufficientDriver:
  case hipErrorNotInitialized:
    return "the ROCm driver (amdgpu kernel module, /dev/kfd) is missing or older than the HIP runtime "
           "this binary uses: on a machine without a GPU run with backend = 'cpu'; otherwise update "
           "ROCm (or the DTK of a DCU) so that driver and runtime match";
  case hipErrorNoDevice:
  case hipErrorInvalidDevice:
    return "no usable GPU: check rocm-smi, that this user may open /dev/kfd and /dev/dri (groups "
           "render and video), HIP_VISIBLE_DEVICES and ADIFLOW_DEVICE, or run with backend = 'cpu'";
  case hipErrorIllegalAddress:
  case hipErrorLaunchFailure:
  case hipErrorAssert:
    return "a kernel faulted, which is a bug in adiflow's GPU backend: please report it with the "
           "case file; AMD_SERIALIZE_KERNEL=3 makes the failing kernel report itself (kernel faults "
           "otherwise surface at the next synchronising call); backend = 'cpu' gives the answer meanwhile";
  case hipErrorLaunchOutOfResources:
    return "a kernel needs more registers or shared memory than its launch allows on this GPU: "
           "please report it; backend = 'cpu' works meanwhile";
  case hipErrorLaunchTimeOut:
    return "a kernel ran into the display watchdog: use a GPU that drives no display, or a smaller grid";
  case hipErrorECCNotCorrectable:
    return "the GPU reported an uncorrectable memory error: check the GPU (rocm-smi --showrasinfo) "
           "and run again";
  default:
    return "check the GPU with rocm-smi; AMD_SERIALIZE_KERNEL=3 names a failing kernel; "
           "backend = 'cpu' runs the same case on the CPU";
  }
}
#else
static const char *advice_for(cudaError_t err)
{
  switch (err) {
  case cudaErrorMemoryAllocation:
    return "the GPU ran out of memory: use a smaller grid, free the GPU (nvidia-smi lists the "
           "processes using it), or run with backend = 'cpu'";
  case cudaErrorNoKernelImageForDevice:
  case cudaErrorInvalidDeviceFunction:
  case cudaErrorUnsupportedPtxVersion:
    return "this build holds no code this GPU can run: rebuild for it with "
           "make CUDA_ARCH=sm_XY (XY from nvidia-smi --query-gpu=compute_cap --format=csv), "
           "or run with backend = 'cpu'";
  case cudaErrorInsufficientDriver:
  case cudaErrorSystemDriverMismatch:
  case cudaErrorCompatNotSupportedOnDevice:
    return "no NVIDIA driver was found, or it is older than the CUDA runtime this binary was built "
           "with: on a machine without a GPU run with backend = 'cpu'; otherwise update the driver, or "
           "rebuild with the CUDA toolkit that matches it (nvidia-smi shows its CUDA version)";
  case cudaErrorNoDevice:
  case cudaErrorDevicesUnavailable:
  case cudaErrorInvalidDevice:
    return "no usable GPU: check nvidia-smi, CUDA_VISIBLE_DEVICES and ADIFLOW_DEVICE, "
           "or run with backend = 'cpu'";
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchFailure:
  case cudaErrorMisalignedAddress:
  case cudaErrorIllegalInstruction:
  case cudaErrorInvalidPc:
  case cudaErrorHardwareStackError:
    return "a kernel faulted, which is a bug in adiflow's CUDA backend: please report it with the "
           "case file; `compute-sanitizer build/adiflow CASE --backend cuda --max-iter 2` locates it, "
           "and CUDA_LAUNCH_BLOCKING=1 makes the failing kernel report itself (kernel faults "
           "otherwise surface at the next synchronising call); backend = 'cpu' gives the answer meanwhile";
  case cudaErrorLaunchOutOfResources:
    return "a kernel needs more registers or shared memory than its launch allows on this GPU: "
           "please report it; backend = 'cpu' works meanwhile";
  case cudaErrorLaunchTimeout:
    return "a kernel ran into the display watchdog: use a GPU that drives no display, or a smaller grid";
  case cudaErrorECCUncorrectable:
    return "the GPU reported an uncorrectable memory error: check the GPU (nvidia-smi -q) and run again";
  default:
    return "check the GPU with nvidia-smi; CUDA_LAUNCH_BLOCKING=1 names a failing kernel; "
           "backend = 'cpu' runs the same case on the CPU";
  }
}
#endif

int adi_cuda_fail(cudaError_t err, const char *what, const char *file, int line)
{
  set_error("%s:%d: %s failed with " ADI_GPU_API_NAME " error %d %s (%s); %s", file, line, what, (int)err,
            cudaGetErrorName(err), cudaGetErrorString(err), advice_for(err));
  return err == cudaErrorMemoryAllocation ? ADI_ERR_MEMORY : ADI_ERR_CUDA;
}

int adi_gpu_fail_msg(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_err, sizeof g_err, fmt, ap);
  va_end(ap);
  return status;
}

void adi_gpu_error_message(char *buf, int buflen)
{
  if (buf == NULL || buflen <= 0) return;
  snprintf(buf, (size_t)buflen, "%s", g_err);
}

static int usage(const char *what)
{
  set_error("%s", what);
  return ADI_ERR_USAGE;
}

/* ADI_OK for a live grid; ADI_ERR_USAGE with a message for NULL, or for a
 * handle adi_gpu_finalize has freed (caught while its memory is not reused:
 * finalize overwrites the tag first) */
static int check_grid(const adi_gpu_grid *g, const char *fn)
{
  if (g == NULL) {
    set_error("%s called with a NULL grid handle: before adi_gpu_init, after a failed adi_gpu_init, or "
              "after adi_gpu_finalize", fn);
    return ADI_ERR_USAGE;
  }
  if (g->magic != ADI_GRID_LIVE) {
    set_error("%s called with a grid handle that is not live: already freed by adi_gpu_finalize, or not "
              "one adi_gpu_init returned", fn);
    return ADI_ERR_USAGE;
  }
  return ADI_OK;
}

#define REQUIRE_INIT(fn)                                                        \
  do {                                                                          \
    int rq_ = check_grid(g, fn);                                                \
    if (rq_ != ADI_OK) return rq_;                                              \
  } while (0)

int adi_gpu_grid_block(adi_gpu_grid *g, const char *fn, const adi_block_hooks **hooks)
{
  if (hooks != NULL) *hooks = NULL;
  REQUIRE_INIT(fn);
  if (hooks != NULL) *hooks = g->block;
  return ADI_OK;
}

/* ---------------------------------------------------------------- device */

/* ADIFLOW_DEVICE, 0 without it; a block grid uses its rank's GPU instead
 * (hooks->device, chosen by the driver) */
static int env_device(void)
{
  const char *s = getenv("ADIFLOW_DEVICE");
  return s && *s ? atoi(s) : 0;
}

/* A kernel that does nothing: asking for its attributes tells whether this
 * binary holds code for the device. */
__global__ void adi_probe_kernel(void) {}

/* 1 when GPU dev is there and can run this binary's kernels; otherwise 0
 * with the reason for adi_gpu_error_message */
static int device_usable(int dev)
{
  int n = 0;
  struct cudaDeviceProp prop;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    adi_cuda_fail(err, "looking for a GPU (cudaGetDeviceCount)", __FILE__, __LINE__);
    cudaGetLastError();
    return 0;
  }
  if (n == 0) {
    set_error("no " ADI_GPU_API_NAME " GPU is visible (" ADI_GPU_API_PREFIX "GetDeviceCount found none): "
              "check " ADI_GPU_SMI " and " ADI_GPU_VISIBLE_ENV ", or run with backend = 'cpu'");
    return 0;
  }
  if (dev < 0 || dev >= n) {
    set_error("ADIFLOW_DEVICE=%d, but the GPUs visible are 0 to %d", dev, n - 1);
    return 0;
  }
  err = cudaGetDeviceProperties(&prop, dev);
  if (err != cudaSuccess) {
    adi_cuda_fail(err, "reading the GPU's properties (cudaGetDeviceProperties)", __FILE__, __LINE__);
    cudaGetLastError();
    return 0;
  }
  if (prop.major < 7) {
    set_error("GPU %d (%s) has compute capability %d.%d; the CUDA backend needs 7.0 or newer: "
              "run with backend = 'cpu'", dev, prop.name, prop.major, prop.minor);
    return 0;
  }
  return 1;
}

int adi_gpu_available(void)
{
  return device_usable(env_device());
}

int adi_gpu_device_info(char *buf, int buflen)
{
  int dev = env_device(), drv = 0, rt = 0;
  struct cudaDeviceProp prop;
  if (buf == NULL || buflen <= 0) return usage("adi_gpu_device_info: no buffer");
  ADI_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
#if ADI_GPU_HIP
  /* HIP versions read major*10^7 + minor*10^5 + patch */
  snprintf(buf, (size_t)buflen, "GPU %d, %s (%s, wavefront %d, %d CUs, %.1f GiB; driver HIP %d.%d, "
           "runtime %d.%d)", dev, prop.name, prop.gcnArchName, prop.warpSize, prop.multiProcessorCount,
           (double)prop.totalGlobalMem/GIB, drv/10000000, (drv/100000)%100, rt/10000000, (rt/100000)%100);
#else
  snprintf(buf, (size_t)buflen, "GPU %d, %s (compute capability %d.%d, %d SMs, %.1f GiB; driver CUDA %d.%d, "
           "runtime %d.%d)", dev, prop.name, prop.major, prop.minor, prop.multiProcessorCount,
           (double)prop.totalGlobalMem/GIB, drv/1000, (drv%1000)/10, rt/1000, (rt%1000)/10);
#endif
  return ADI_OK;
}

/* A kernel family's launch configuration against the device: warp size,
 * threads per block, shared memory per block (shmem: its largest block's
 * bytes, 0 for none). A failure names the limit (the device-property field)
 * and both numbers; ADI_ERR_CONFIG. */
static int check_launch_limits(const struct cudaDeviceProp *prop, int dev, const char *family, int bx,
                               int by, size_t shmem)
{
  int threads = bx*by, ws = prop->warpSize;
  if (ws < 1 || ws > ADI_WARP_SIZE_MAX || (ws & (ws - 1)) != 0) {
    set_error("GPU %d (%s) runs warps of %d threads (warpSize); adiflow's kernels need a power of two "
              "up to %d (their lane masks have 64 bits): run with backend = 'cpu'", dev, prop->name, ws,
              ADI_WARP_SIZE_MAX);
    return ADI_ERR_CONFIG;
  }
  if (threads % ws != 0) {
    set_error("the %s kernels' blocks of %d x %d = %d threads are not a whole number of warps on GPU %d "
              "(%s), whose warps have %d threads (warpSize)", family, bx, by, threads, dev, prop->name, ws);
    return ADI_ERR_CONFIG;
  }
  if (threads > prop->maxThreadsPerBlock || bx > prop->maxThreadsDim[0] || by > prop->maxThreadsDim[1]) {
    set_error("the %s kernels' blocks of %d x %d threads exceed the limits of GPU %d (%s): %d threads per "
              "block (maxThreadsPerBlock), %d x %d (maxThreadsDim)", family, bx, by, dev, prop->name,
              prop->maxThreadsPerBlock, prop->maxThreadsDim[0], prop->maxThreadsDim[1]);
    return ADI_ERR_CONFIG;
  }
  if (shmem > (size_t)ADI_PROP_SHMEM_PER_BLOCK(*prop)) {
    set_error("the %s kernels need %zu bytes of shared memory per block, but GPU %d (%s) offers %zu "
              "(" ADI_PROP_SHMEM_PER_BLOCK_NAME ")", family, shmem, dev, prop->name,
              (size_t)ADI_PROP_SHMEM_PER_BLOCK(*prop));
    return ADI_ERR_CONFIG;
  }
  return ADI_OK;
}

/* ---------------------------------------------------------------- memory */

static void free_all(adi_gpu_grid *g)
{
  double **fields[] = {&g->v.q, &g->v.qp, &g->v.res, &g->v.dq, &g->v.dtv, &g->v.wk, &g->d_plane, &g->d_norms,
                        &g->d_mrows, &g->d_mplane};
  const double **cfields[] = {&g->v.sf, &g->v.sc, &g->v.vol};
  size_t a;
  for (a = 0; a < sizeof fields/sizeof fields[0]; ++a) {
    if (*fields[a]) cudaFree(*fields[a]);
    *fields[a] = NULL;
  }
  for (a = 0; a < sizeof cfields/sizeof cfields[0]; ++a) {
    if (*cfields[a]) cudaFree((void *)*cfields[a]);
    *cfields[a] = NULL;
  }
  if (g->h_norms) cudaFreeHost(g->h_norms);
  g->h_norms = NULL;
  if (g->events_ready) {
    int s;
    for (s = 0; s <= ADI_MAX_STEPS; ++s) {
      cudaEventDestroy(g->ev_start[s]);
      cudaEventDestroy(g->ev_stop[s]);
    }
    g->events_ready = 0;
  }
  if (g->stream) cudaStreamDestroy(g->stream);
  g->stream = NULL;
  g->bytes = 0;
}

static int alloc_field(adi_gpu_grid *g, double **p, int ncomp)
{
  size_t n = (size_t)g->v.npts*(size_t)ncomp*sizeof(double);
  ADI_CUDA_CHECK(cudaMalloc((void **)p, n));
  g->bytes += n;
  ADI_CUDA_CHECK(cudaMemset(*p, 0, n));   /* defined values everywhere, as allocate_fields */
  return ADI_OK;
}

static int upload_field(adi_gpu_grid *g, const double **dst, const double *src, int ncomp)
{
  double *p = NULL;
  size_t n = (size_t)g->v.npts*(size_t)ncomp*sizeof(double);
  int rc = alloc_field(g, &p, ncomp);
  *dst = p;
  if (rc != ADI_OK) return rc;
  ADI_CUDA_CHECK(cudaMemcpy(p, src, n, cudaMemcpyHostToDevice));
  return ADI_OK;
}

static int create_events(adi_gpu_grid *g)
{
  int s;
  if (g->events_ready) return ADI_OK;
  for (s = 0; s <= ADI_MAX_STEPS; ++s) {
    ADI_CUDA_CHECK(cudaEventCreate(&g->ev_start[s]));
    ADI_CUDA_CHECK(cudaEventCreate(&g->ev_stop[s]));
  }
  g->events_ready = 1;
  return ADI_OK;
}

static void reset_timing(adi_gpu_grid *g)
{
  memset(g->ms, 0, sizeof g->ms);
  g->norm_ms = 0.0;
  g->iter_ms = 0.0;
  g->timed_iterations = 0;
  g->norm_calls = 0;
}

/* frees a grid that never reached the caller (a failed init): no message
 * of its own, the failure's stays */
static void discard(adi_gpu_grid *g)
{
  if (g == NULL) return;
  merged_finalize(g->merged);
  free_all(g);
  memset(g, 0, sizeof *g);
  free(g);
}

int adi_gpu_init(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels, const double *sf,
                 const double *sc, const double *vol, const double *q)
{
  return adi_gpu_init_block(grid, NULL, sp, kernels, sf, sc, vol, q);
}

int adi_gpu_init_block(adi_gpu_grid **grid, const adi_block_hooks *hooks, const adi_solver_params *sp,
                       int kernels, const double *sf, const double *sc, const double *vol, const double *q)
{
  int dev, rc, ldi_expected;
  size_t free_b = 0, total_b = 0, need;
  long long npts;
  struct cudaDeviceProp prop;
  struct cudaFuncAttributes attr;
  const char *tenv;
  adi_gpu_grid *g;

  if (grid == NULL) return usage("adi_gpu_init: no place for the grid handle (a null first argument)");
  *grid = NULL;
  if (sp == NULL || sf == NULL || sc == NULL || vol == NULL || q == NULL)
    return usage("adi_gpu_init: a null argument");
  if (kernels != ADI_KERNELS_SPLIT && kernels != ADI_KERNELS_MERGED) {
    set_error("adi_gpu_init: unknown kernel family %d", kernels);
    return ADI_ERR_USAGE;
  }
  ldi_expected = ((sp->ni + 4 + 15)/16)*16;
  if (sp->ni < 1 || sp->nj < 1 || sp->nk < 1 || sp->ldi != ldi_expected || sp->ldj != sp->nj + 4 ||
      sp->ldk != sp->nk + 4 || (sp->order != 1 && sp->order != 2)) {
    set_error("adi_gpu_init: parameters do not describe the layout of fortran/grid_layout.f90 "
              "(ni %d nj %d nk %d, ldi %d ldj %d ldk %d, order %d)", sp->ni, sp->nj, sp->nk, sp->ldi,
              sp->ldj, sp->ldk, sp->order);
    return ADI_ERR_USAGE;
  }
  npts = (long long)sp->ldi*sp->ldj*sp->ldk;
  if (npts > (long long)INT_MAX) {
    set_error("grid %d x %d x %d has %lld points per field with ghosts and padding; the CUDA backend "
              "indexes a field with 32-bit integers (at most %d): use a smaller grid",
              sp->ni, sp->nj, sp->nk, npts, INT_MAX);
    return ADI_ERR_CONFIG;
  }

  dev = hooks != NULL ? hooks->device : env_device();   /* block mode: one GPU per rank, chosen by the driver */
  if (!device_usable(dev)) return ADI_ERR_NO_DEVICE;
  ADI_CUDA_CHECK(cudaSetDevice(dev));
  ADI_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  ADI_CUDA_CHECK(cudaFuncGetAttributes(&attr, adi_probe_kernel));
  if ((unsigned)(sp->nk + 4) > (unsigned)prop.maxGridSize[2] ||
      (unsigned)((sp->nj + 4 + ADI_BLOCK_Y - 1)/ADI_BLOCK_Y) > (unsigned)prop.maxGridSize[1]) {
    set_error("grid %d x %d x %d exceeds the launch grid limits of GPU %d (%s)", sp->ni, sp->nj, sp->nk,
              dev, prop.name);
    return ADI_ERR_CONFIG;
  }
  /* warp size, block size and shared memory (the split family has no tiles) */
  rc = check_launch_limits(&prop, dev, "split", ADI_BLOCK_X, ADI_BLOCK_Y, 0);
  if (rc != ADI_OK) return rc;

  /* memory: every field of the host set but the cell centres, plus scratch */
  need = (size_t)npts*ADI_NFIELDS*sizeof(double) + (size_t)(5*sp->nk + 5)*sizeof(double)
       + (size_t)(sp->nj + 1)*(size_t)sp->nk*sizeof(double);
  ADI_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (need + ((size_t)64 << 20) > free_b) {
    set_error("grid %d x %d x %d needs %.2f GiB of GPU memory (%d fields of %lld points), but GPU %d "
              "(%s) has %.2f GiB free of %.2f GiB: use a smaller grid, a GPU with more memory, "
              "or backend = 'cpu'", sp->ni, sp->nj, sp->nk, (double)need/GIB, (int)ADI_NFIELDS, npts,
              dev, prop.name, (double)free_b/GIB, (double)total_b/GIB);
    return ADI_ERR_MEMORY;
  }

  g = (adi_gpu_grid *)calloc(1, sizeof *g);
  if (g == NULL)
    return adi_gpu_fail_msg(ADI_ERR_MEMORY, "out of host memory for the state of grid %d x %d x %d (%zu bytes)",
                            sp->ni, sp->nj, sp->nk, sizeof *g);
  g->block = hooks;
  g->device = dev;
  g->v.sp = *sp;
  g->v.ni = sp->ni; g->v.nj = sp->nj; g->v.nk = sp->nk;
  g->v.ldi = sp->ldi; g->v.ldj = sp->ldj; g->v.ldk = sp->ldk;
  g->v.npts = (ptrdiff_t)npts;
  {
    int f;
    for (f = 0; f < 6; ++f) g->v.phys[f] = hooks ? hooks->phys[f] : 1;
    for (f = 0; f < 3; ++f) {
      g->v.off[f] = hooks ? hooks->off[f] : 0;
      g->v.nglob[f] = hooks ? hooks->nglob[f] : (f == 0 ? sp->ni : (f == 1 ? sp->nj : sp->nk));
    }
  }

  rc = ADI_OK;
  /* a blocking stream: it orders itself after the synchronous copies and
   * memsets of the legacy default stream (init, upload) */
  if (cudaStreamCreateWithFlags(&g->stream, cudaStreamDefault) != cudaSuccess) {
    rc = adi_cuda_fail(cudaGetLastError(), "creating the CUDA stream", __FILE__, __LINE__);
    g->stream = NULL;
  }
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.q, ADI_NVAR);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.qp, ADI_NPRIM);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.res, ADI_NVAR);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.dq, ADI_NVAR);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.dtv, 1);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.wk, ADI_NWORK);
  if (rc == ADI_OK) rc = upload_field(g, &g->v.sf, sf, ADI_NMETRIC);
  if (rc == ADI_OK) rc = upload_field(g, &g->v.sc, sc, ADI_NMETRIC);
  if (rc == ADI_OK) rc = upload_field(g, &g->v.vol, vol, 1);
  if (rc == ADI_OK && cudaMemcpy(g->v.q, q, (size_t)npts*ADI_NVAR*sizeof(double), cudaMemcpyHostToDevice)
      != cudaSuccess)
    rc = adi_cuda_fail(cudaGetLastError(), "uploading the state q", __FILE__, __LINE__);
  if (rc == ADI_OK && cudaMalloc((void **)&g->d_plane, (size_t)(5*sp->nk)*sizeof(double)) != cudaSuccess)
    rc = adi_cuda_fail(cudaGetLastError(), "cudaMalloc of the residual-norm planes", __FILE__, __LINE__);
  /* mass_fix scratch, small (nj*nk + nk doubles): held by every run, so a
   * mass_fix run cannot fail for memory half way */
  if (rc == ADI_OK && cudaMalloc((void **)&g->d_mrows, (size_t)sp->nj*(size_t)sp->nk*sizeof(double)) != cudaSuccess)
    rc = adi_cuda_fail(cudaGetLastError(), "cudaMalloc of the mass row sums", __FILE__, __LINE__);
  if (rc == ADI_OK && cudaMalloc((void **)&g->d_mplane, (size_t)sp->nk*sizeof(double)) != cudaSuccess)
    rc = adi_cuda_fail(cudaGetLastError(), "cudaMalloc of the mass plane sums", __FILE__, __LINE__);
  if (rc == ADI_OK && cudaMalloc((void **)&g->d_norms, 5*sizeof(double)) != cudaSuccess)
    rc = adi_cuda_fail(cudaGetLastError(), "cudaMalloc of the residual norms", __FILE__, __LINE__);
  if (rc == ADI_OK && cudaMallocHost((void **)&g->h_norms, 5*sizeof(double)) != cudaSuccess)
    rc = adi_cuda_fail(cudaGetLastError(), "cudaMallocHost of the residual norms", __FILE__, __LINE__);
  if (rc == ADI_OK && cudaMemsetAsync(g->d_norms, 0, 5*sizeof(double), g->stream) != cudaSuccess)
    rc = adi_cuda_fail(cudaGetLastError(), "clearing the residual norms", __FILE__, __LINE__);
  if (rc != ADI_OK) {
    if (rc == ADI_ERR_MEMORY) {
      char first[ADI_ERRLEN];
      snprintf(first, sizeof first, "%s", g_err);
      set_error("grid %d x %d x %d needs %.2f GiB of GPU memory; allocating it on GPU %d (%s) failed: %s",
                sp->ni, sp->nj, sp->nk, (double)need/GIB, dev, prop.name, first);
    }
    discard(g);
    return rc;
  }
  if (rc == ADI_OK && cudaDeviceSynchronize() != cudaSuccess)
    rc = adi_cuda_fail(cudaGetLastError(), "finishing the uploads (cudaDeviceSynchronize)", __FILE__, __LINE__);
  if (rc != ADI_OK) {
    discard(g);
    return rc;
  }
  g->nsteps = adi_iteration_schedule(sp, g->steps);
  g->kernels = kernels;
  if (kernels == ADI_KERNELS_MERGED) {   /* cuda/merged_schedule.cu */
    rc = merged_init(&g->merged, &g->v, g->stream, q, hooks);
    if (rc != ADI_OK) {
      discard(g);
      return rc;
    }
  }
  g->magic = ADI_GRID_LIVE;

  tenv = getenv("ADIFLOW_GPU_TIMING");
  if (tenv && *tenv && strcmp(tenv, "0") != 0) {
    g->timing_env = 1;
    rc = adi_gpu_set_timing(g, 1);
    if (rc != ADI_OK) {
      discard(g);
      return rc;
    }
  }
  g_err[0] = '\0';
  *grid = g;
  return ADI_OK;
}

/* ---------------------------------------------------------------- iteration */

static int run_step(adi_gpu_grid *g, const adi_step *st, double cfl)
{
  const adi_view *v = &g->v;
  int rc;
  switch (st->stage) {
  case ST_BC:
    if (g->block != NULL && st->d >= 2) {
      rc = g->block->exchange_q(g->block->ctx, v, st->d, g->stream);
      if (rc != ADI_OK) return rc;
    }
    return launch_bc_kernel(v, st->d, g->stream);
  case ST_WALLT: return launch_bc_temperature_kernel(v, st->d, g->stream);
  case ST_PRIM: return launch_primitives_kernel(v, g->stream);
  case ST_TSTEP: return launch_time_step_kernel(v, cfl, g->stream);
  case ST_RES_ZERO:
    ADI_CUDA_CHECK(cudaMemsetAsync(v->res, 0, (size_t)v->npts*ADI_NVAR*sizeof(double), g->stream));
    return ADI_OK;
  case ST_FLUX1: return launch_flux_kernel1(v, st->d, g->stream);
  case ST_FLUX2: return launch_flux_kernel2(v, st->d, g->stream);
  case ST_FLUX3: return launch_flux_kernel3(v, st->d, g->stream);
  case ST_VISC: return launch_viscous_kernel(v, st->d, g->stream);
  case ST_FLUX4: return launch_flux_kernel4(v, st->d, g->stream);
  case ST_ADI1: return launch_ADI_kernel1(v, st->d, g->stream);
  case ST_ADI2:
    if (g->block != NULL && g->block->across[st->d]) {
      rc = g->block->exchange_lam(g->block->ctx, v, st->d, g->stream);
      if (rc != ADI_OK) return rc;
    }
    return launch_ADI_kernel2(v, st->d, g->stream);
  case ST_ADI3: return launch_ADI_kernel3(v, st->d, g->stream);
  case ST_ADI4:
    if (g->block != NULL && g->block->across[st->d]) return g->block->sweep(g->block->ctx, v, st->d, g->stream);
    return launch_ADI_kernel4(v, st->d, g->stream);
  case ST_ADI5: return launch_ADI_kernel5(v, st->d, g->stream);
  default:
    set_error("internal error: unknown stage %d in the iteration schedule", st->stage);
    return ADI_ERR_USAGE;
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
static int iterate_block_overlapped(adi_gpu_grid *g, double cfl)
{
  const adi_view *v = &g->v;
  const adi_block_hooks *b = g->block;
  int s, rc, first = b->has_halo[2] ? 2 : 3;
  if ((rc = launch_bc_kernel(v, 1, g->stream)) != ADI_OK) return rc;
  if (first == 3 && (rc = launch_bc_kernel(v, 2, g->stream)) != ADI_OK) return rc;
  if ((rc = b->exchange_begin(b->ctx, v, 0, first, g->stream)) != ADI_OK) return rc;
  if ((rc = launch_primitives_part(v, 1, g->stream)) != ADI_OK) return rc;
  if ((rc = launch_time_step_kernel(v, cfl, g->stream)) != ADI_OK) return rc;
  if ((rc = b->exchange_end(b->ctx, v, 0, first, g->stream)) != ADI_OK) return rc;
  if (first == 2) {
    if ((rc = launch_bc_kernel(v, 2, g->stream)) != ADI_OK) return rc;
    if ((rc = b->exchange_q(b->ctx, v, 3, g->stream)) != ADI_OK) return rc;
  }
  if ((rc = launch_bc_kernel(v, 3, g->stream)) != ADI_OK) return rc;
  if ((rc = launch_primitives_part(v, 2, g->stream)) != ADI_OK) return rc;
  for (s = 0; s < g->nsteps; ++s) {
    const adi_step *st = &g->steps[s];
    if (st->stage == ST_BC || st->stage == ST_PRIM || st->stage == ST_TSTEP) continue;
    if (st->stage == ST_ADI2 && b->across[st->d]) {
      rc = b->exchange_begin(b->ctx, v, 1, st->d, g->stream);
    } else if (st->stage == ST_ADI3 && b->across[st->d]) {
      rc = launch_ADI_kernel3(v, st->d, g->stream);
      if (rc == ADI_OK) rc = b->exchange_end(b->ctx, v, 1, st->d, g->stream);
      if (rc == ADI_OK) rc = launch_ADI_kernel2(v, st->d, g->stream);
    } else {
      rc = run_step(g, st, cfl);
    }
    if (rc != ADI_OK) return rc;
  }
  return ADI_OK;
}

/* One iteration: the steps of adi_iteration_schedule, i.e. solver_cpu's
 * cpu_iteration: boundary fill i, j, k; primitives; time step; res = 0;
 * flux_kernel1-3 + viscous + flux_kernel4 for i, j, k; ADI_kernel1-5 for
 * i, j, k. Asynchronous; failures inside kernels surface at the next
 * synchronising call (norms, download, finalize). */
int adi_gpu_iterate(adi_gpu_grid *g, double cfl)
{
  int s, rc;
  REQUIRE_INIT("adi_gpu_iterate");
  if (g->kernels == ADI_KERNELS_MERGED) {
    rc = merged_iterate(g->merged, cfl, g->timing);
    if (rc != ADI_OK) return rc;
    if (g->timing) g->timed_iterations++;
    g->iterations++;
    return ADI_OK;
  }
  if (g->block != NULL && g->block->overlap && !g->timing) {
    rc = iterate_block_overlapped(g, cfl);
    if (rc != ADI_OK) return rc;
    g->iterations++;
    return ADI_OK;
  }
  for (s = 0; s < g->nsteps; ++s) {
    if (g->timing) ADI_CUDA_CHECK(cudaEventRecord(g->ev_start[s], g->stream));
    rc = run_step(g, &g->steps[s], cfl);
    if (rc != ADI_OK) return rc;
    if (g->timing) ADI_CUDA_CHECK(cudaEventRecord(g->ev_stop[s], g->stream));
  }
  if (g->timing) {
    float t;
    ADI_CUDA_CHECK(cudaEventSynchronize(g->ev_stop[g->nsteps - 1]));
    for (s = 0; s < g->nsteps; ++s) {
      ADI_CUDA_CHECK(cudaEventElapsedTime(&t, g->ev_start[s], g->ev_stop[s]));
      g->ms[g->steps[s].stage][g->steps[s].d] += (double)t;
    }
    ADI_CUDA_CHECK(cudaEventElapsedTime(&t, g->ev_start[0], g->ev_stop[g->nsteps - 1]));
    g->iter_ms += (double)t;
    g->timed_iterations++;
  }
  g->iterations++;
  return ADI_OK;
}

#define SYNC_WHAT "waiting for the GPU to finish the iterations' kernels (an earlier, asynchronous " \
                  "kernel failed if this fails; CUDA_LAUNCH_BLOCKING=1 names it)"

int adi_gpu_residual_norms(adi_gpu_grid *g, double norms[5])
{
  int rc, m;
  REQUIRE_INIT("adi_gpu_residual_norms");
  if (norms == NULL) return usage("adi_gpu_residual_norms: null argument");
  if (g->timing) ADI_CUDA_CHECK(cudaEventRecord(g->ev_start[ADI_MAX_STEPS], g->stream));
  rc = launch_norm_kernels(&g->v, g->d_plane, g->d_norms, g->stream);
  if (rc != ADI_OK) return rc;
  if (g->timing) ADI_CUDA_CHECK(cudaEventRecord(g->ev_stop[ADI_MAX_STEPS], g->stream));
  ADI_CUDA_CHECK(cudaMemcpyAsync(g->h_norms, g->d_norms, 5*sizeof(double), cudaMemcpyDeviceToHost, g->stream));
  {
    cudaError_t err = cudaStreamSynchronize(g->stream);
    if (err != cudaSuccess) return adi_cuda_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  }
  if (g->timing) {
    float t;
    ADI_CUDA_CHECK(cudaEventElapsedTime(&t, g->ev_start[ADI_MAX_STEPS], g->ev_stop[ADI_MAX_STEPS]));
    g->norm_ms += (double)t;
    g->norm_calls++;
  }
  for (m = 0; m < 5; ++m) norms[m] = g->h_norms[m];
  return ADI_OK;
}

int adi_gpu_residual_plane_sums(adi_gpu_grid *g, double *plane)
{
  cudaError_t err;
  int rc;
  REQUIRE_INIT("adi_gpu_residual_plane_sums");
  if (plane == NULL) return usage("adi_gpu_residual_plane_sums: null argument");
  ADI_CUDA_CHECK(cudaMemcpyAsync(g->d_plane, plane, (size_t)(5*g->v.nk)*sizeof(double), cudaMemcpyHostToDevice,
                                 g->stream));
  rc = launch_norm_plane_add(&g->v, g->d_plane, g->stream);
  if (rc != ADI_OK) return rc;
  ADI_CUDA_CHECK(cudaMemcpyAsync(plane, g->d_plane, (size_t)(5*g->v.nk)*sizeof(double), cudaMemcpyDeviceToHost,
                                 g->stream));
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) return adi_cuda_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  return ADI_OK;
}

/* mass_fix: the host's plane sums (zeros, or the j ranks' running sums) go
 * up, the row kernel and the plane kernel add this grid's mass in the
 * Fortran's order, the plane sums come back. Runs after the iteration's
 * kernels in stream order; the synchronisation at the end also reports a
 * fault of those. */
int adi_gpu_mass_plane_sums(adi_gpu_grid *g, double *plane)
{
  cudaError_t err;
  int rc;
  REQUIRE_INIT("adi_gpu_mass_plane_sums");
  if (plane == NULL) return usage("adi_gpu_mass_plane_sums: null argument");
  ADI_CUDA_CHECK(cudaMemcpyAsync(g->d_mplane, plane, (size_t)g->v.nk*sizeof(double), cudaMemcpyHostToDevice,
                                 g->stream));
  rc = launch_mass_plane_sums(&g->v, g->d_mrows, g->d_mplane, g->stream);
  if (rc != ADI_OK) return rc;
  ADI_CUDA_CHECK(cudaMemcpyAsync(plane, g->d_mplane, (size_t)g->v.nk*sizeof(double), cudaMemcpyDeviceToHost,
                                 g->stream));
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) return adi_cuda_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  return ADI_OK;
}

/* mass_fix: q(1:5) *= s over the interior, in stream order before the next
 * iteration (s a kernel argument: nothing to copy, nothing to wait for).
 * s is not checked: a NaN from a diverged state goes on into q as on the
 * CPU, and the driver's divergence check reports it the same way. */
int adi_gpu_scale_state(adi_gpu_grid *g, double s)
{
  REQUIRE_INIT("adi_gpu_scale_state");
  return launch_mass_scale(&g->v, s, g->stream);
}

int adi_gpu_download_state(adi_gpu_grid *g, double *q)
{
  cudaError_t err;
  REQUIRE_INIT("adi_gpu_download_state");
  if (q == NULL) return usage("adi_gpu_download_state: null argument");
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) return adi_cuda_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  ADI_CUDA_CHECK(cudaMemcpy(q, g->v.q, (size_t)g->v.npts*ADI_NVAR*sizeof(double), cudaMemcpyDeviceToHost));
  return ADI_OK;
}

int adi_gpu_upload_state(adi_gpu_grid *g, const double *q)
{
  cudaError_t err;
  REQUIRE_INIT("adi_gpu_upload_state");
  if (q == NULL) return usage("adi_gpu_upload_state: null argument");
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) return adi_cuda_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  ADI_CUDA_CHECK(cudaMemcpy(g->v.q, q, (size_t)g->v.npts*ADI_NVAR*sizeof(double), cudaMemcpyHostToDevice));
  ADI_CUDA_CHECK(cudaDeviceSynchronize());
  return ADI_OK;
}

/* ---------------------------------------------------------------- timing */

int adi_gpu_set_timing(adi_gpu_grid *g, int enabled)
{
  int rc;
  REQUIRE_INIT("adi_gpu_set_timing");
  if (enabled) {
    rc = create_events(g);
    if (rc != ADI_OK) return rc;
    if (!g->timing) reset_timing(g);
  }
  g->timing = enabled ? 1 : 0;
  return ADI_OK;
}

/* append to buf at *pos, never past buflen */
static void put(char *buf, int buflen, int *pos, const char *fmt, ...)
{
  va_list ap;
  int n;
  if (*pos >= buflen - 1) return;
  va_start(ap, fmt);
  n = vsnprintf(buf + *pos, (size_t)(buflen - *pos), fmt, ap);
  va_end(ap);
  if (n > 0) *pos = *pos + n < buflen - 1 ? *pos + n : buflen - 1;
}

int adi_gpu_timing_report(adi_gpu_grid *g, char *buf, int buflen)
{
  /* kernel families; members end at -1 (the viscous kernel sits between
   * flux_kernel3 and flux_kernel4 in the stage order but is its own family) */
  static const struct { const char *name; int members[5]; } families[] = {
    {"boundary conditions", {ST_BC, ST_WALLT, -1}},
    {"primitives", {ST_PRIM, -1}},
    {"local time step", {ST_TSTEP, -1}},
    {"residual reset", {ST_RES_ZERO, -1}},
    {"flux (flux_kernel1-4)", {ST_FLUX1, ST_FLUX2, ST_FLUX3, ST_FLUX4, -1}},
    {"viscous", {ST_VISC, -1}},
    {"lu_adi (ADI_kernel1-5)", {ST_ADI1, ST_ADI2, ST_ADI3, ST_ADI4, ST_ADI5}},
  };
  int pos = 0, st, d, f, mi;
  double n, total = 0.0, fam;
  if (buf == NULL || buflen <= 0) return usage("adi_gpu_timing_report: no buffer");
  buf[0] = '\0';
  REQUIRE_INIT("adi_gpu_timing_report");
  if (g->timed_iterations == 0) {
    put(buf, buflen, &pos, "GPU timing: no timed iterations (enable with adi_gpu_set_timing(1) or "
        "ADIFLOW_GPU_TIMING=1)");
    return ADI_OK;
  }
  if (g->kernels == ADI_KERNELS_MERGED)
    return merged_timing_report(g->merged, buf, buflen, g->timed_iterations, g->norm_ms, g->norm_calls);
  n = (double)g->timed_iterations;
  put(buf, buflen, &pos, "GPU kernel times (" ADI_GPU_API_NAME " events), split kernels, grid %d x %d x %d, "
      "mean of %lld iterations, ms per iteration:\n", g->v.ni, g->v.nj, g->v.nk, g->timed_iterations);
  put(buf, buflen, &pos, "  %-18s %10s %10s %10s %10s\n", "kernel", "i", "j", "k", "sum");
  for (st = 0; st < ST_COUNT; ++st) {
    double sum = 0.0;
    int directed = st != ST_PRIM && st != ST_TSTEP && st != ST_RES_ZERO;
    if (st == ST_FLUX1 && g->v.sp.order != 2) continue;
    for (d = 0; d < 4; ++d) sum += g->ms[st][d];
    if (directed)
      put(buf, buflen, &pos, "  %-18s %10.4f %10.4f %10.4f %10.4f\n", adi_stage_name(st), g->ms[st][1]/n,
          g->ms[st][2]/n, g->ms[st][3]/n, sum/n);
    else
      put(buf, buflen, &pos, "  %-18s %10s %10s %10s %10.4f\n", adi_stage_name(st), "", "", "", sum/n);
    total += sum;
  }
  put(buf, buflen, &pos, "  families:\n");
  for (f = 0; f < (int)(sizeof families/sizeof families[0]); ++f) {
    fam = 0.0;
    for (mi = 0; mi < 5 && families[f].members[mi] >= 0; ++mi)
      for (d = 0; d < 4; ++d) fam += g->ms[families[f].members[mi]][d];
    put(buf, buflen, &pos, "    %-24s %10.4f ms  %5.1f %%\n", families[f].name, fam/n,
        total > 0.0 ? 100.0*fam/total : 0.0);
  }
  put(buf, buflen, &pos, "    %-24s %10.4f ms\n", "all kernels", total/n);
  put(buf, buflen, &pos, "    %-24s %10.4f ms  (first launch to last, gaps included)\n", "iteration", g->iter_ms/n);
  if (g->norm_calls > 0)
    put(buf, buflen, &pos, "    %-24s %10.4f ms per call, %lld calls\n", "residual norms", g->norm_ms/(double)g->norm_calls,
        g->norm_calls);
  return ADI_OK;
}

/* ---------------------------------------------------------------- end */

int adi_gpu_finalize(adi_gpu_grid *g)
{
  cudaError_t err;
  int rc = ADI_OK;
  const adi_block_hooks *block;
  if (g == NULL) return ADI_OK;
  REQUIRE_INIT("adi_gpu_finalize");
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) rc = adi_cuda_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  if (rc == ADI_OK && g->timing_env && g->timed_iterations > 0) {
    char report[8192];
    adi_gpu_timing_report(g, report, (int)sizeof report);
    printf("%s", report);
    fflush(stdout);
  }
  block = g->block;
  g->magic = ADI_GRID_DEAD;        /* a later call with this handle is refused (while the memory is not reused) */
  merged_finalize(g->merged);
  g->merged = NULL;
  free_all(g);
  free(g);
  /* block mode: the halo buffers, streams and communicators last, as before */
  if (block != NULL && block->destroy != NULL) block->destroy(block->ctx);
  return rc;
}
