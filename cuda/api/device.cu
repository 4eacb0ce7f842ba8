/* Device choice and checks: which GPU (ADIFLOW_DEVICE, or the rank's GPU in
 * block mode), whether it is there and can run this build's kernels with
 * their launch shapes, its context made early on a thread of its own
 * (adi_gpu_warm_start) and released on one at the run's end
 * (adi_gpu_release_start), and its description for the run's log. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grid.cuh"

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
  /* the chosen GPU made the process's only one (adi_gpu_narrow_visible) and
   * none left: the number names no GPU of this machine */
  if (adi_settings_narrowed() && (err == cudaErrorNoDevice || (err == cudaSuccess && n == 0))) {
    cudaGetLastError();
    adi_gpu_set_error("GPU %d (ADIFLOW_DEVICE or the &gpu group's device) is not on this machine: " ADI_GPU_SMI
                      " lists its GPUs, numbered from 0", adi_settings_device_label(NULL));
    return 0;
  }
  if (err != cudaSuccess) {
    adi_gpu_fail(err, "looking for a GPU (" ADI_GPU_API_PREFIX "GetDeviceCount)", __FILE__, __LINE__);
    cudaGetLastError();
    return 0;
  }
  if (n == 0) {
    adi_gpu_set_error("no " ADI_GPU_API_NAME " GPU is visible (" ADI_GPU_API_PREFIX "GetDeviceCount found "
                      "none): check " ADI_GPU_SMI " and " ADI_GPU_VISIBLE_ENV ", or run with backend = 'cpu'");
    return 0;
  }
  if (dev < 0 || dev >= n) {
    adi_gpu_set_error("ADIFLOW_DEVICE=%d, but the GPUs visible are 0 to %d", dev, n - 1);
    return 0;
  }
  err = cudaGetDeviceProperties(&prop, dev);
  if (err != cudaSuccess) {
    adi_gpu_fail(err, "reading the GPU's properties (" ADI_GPU_API_PREFIX "GetDeviceProperties)", __FILE__,
                 __LINE__);
    cudaGetLastError();
    return 0;
  }
  if (prop.major < 7) {
    adi_gpu_set_error("GPU %d (%s) has compute capability %d.%d; the " ADI_GPU_API_NAME " backend needs 7.0 or "
                      "newer: run with backend = 'cpu'", adi_device_label(dev), prop.name, prop.major, prop.minor);
    return 0;
  }
  return 1;
}

int adi_gpu_check_settings(const adi_gpu_settings *settings, char *msg, int msglen)
{
  const char *steps, *table;
  struct stat st;
  if (msg == NULL || msglen <= 0) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_check_settings: no buffer");
  msg[0] = '\0';
  if (settings == NULL) return ADI_OK;
  steps = adi_settings_text("ADIFLOW_MERGED_STEPS", settings->merged_steps);
  if (merged_check_steps(steps, msg, (size_t)msglen) != 0) return ADI_ERR_USAGE;
  table = adi_settings_text("ADIFLOW_TUNE_TABLE", settings->tuning_table);
  if (table && (stat(table, &st) != 0 || !S_ISREG(st.st_mode) || access(table, R_OK) != 0)) {
    snprintf(msg, (size_t)msglen, "tuning_table = \"%s\" is not a readable file (leave it empty for tune/sm_XY.txt "
             "beside the executable, else the built-in shapes)", table);
    return ADI_ERR_USAGE;
  }
  return ADI_OK;
}

int adi_gpu_available(const adi_gpu_settings *settings)
{
  return device_usable(adi_settings_device(settings));
}

/* The warm-up: the device looked for (device_usable), then its context
 * made, both on the thread; the answer to the first is posted as soon as
 * it is known, so the host can choose its backend while the context is
 * still in the making. */
struct adi_gpu_warm {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t looked_cv;
  int device;
  int looked;          /* device_usable has answered (under lock) */
  int usable;          /* its answer */
  char why[ADI_ERRLEN];   /* its reason when not usable: messages are per thread */
  cudaError_t err;     /* the context's creation, read after the join */
};

static void *warm_body(void *arg)
{
  adi_gpu_warm *w = (adi_gpu_warm *)arg;
  int usable = device_usable(w->device);
  if (!usable) snprintf(w->why, sizeof w->why, "%s", adi_gpu_last_error());
  pthread_mutex_lock(&w->lock);
  w->usable = usable;
  w->looked = 1;
  pthread_cond_broadcast(&w->looked_cv);
  pthread_mutex_unlock(&w->lock);
  if (!usable) return NULL;
  w->err = cudaSetDevice(w->device);
  if (w->err == cudaSuccess) w->err = cudaFree(0);
  return NULL;
}

/* The warm-up still running, for the exit hook: a process may stop on bad
 * input while the thread is inside the runtime, and the runtime's own exit
 * handlers (registered before this hook, so run after it) must not tear it
 * down under the thread. Its one place outside a handle: an exit hook
 * takes no argument. */
static adi_gpu_warm *warm_pending;

static void warm_join_at_exit(void)
{
  if (warm_pending != NULL) {
    pthread_join(warm_pending->thread, NULL);
    warm_pending = NULL;
  }
}

static void warm_free(adi_gpu_warm *w)
{
  pthread_cond_destroy(&w->looked_cv);
  pthread_mutex_destroy(&w->lock);
  free(w);
}

int adi_gpu_warm_start(const adi_gpu_settings *settings, adi_gpu_warm **warm)
{
  static int hooked;
  adi_gpu_warm *w;
  if (warm == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_warm_start: no handle");
  *warm = NULL;
  w = (adi_gpu_warm *)calloc(1, sizeof *w);
  if (w == NULL) return ADI_OK;   /* no warm-up: the first GPU call makes the context */
  w->device = adi_settings_device(settings);
  if (pthread_mutex_init(&w->lock, NULL) != 0) {
    free(w);
    return ADI_OK;
  }
  if (pthread_cond_init(&w->looked_cv, NULL) != 0) {
    pthread_mutex_destroy(&w->lock);
    free(w);
    return ADI_OK;
  }
  if (!hooked) {
    if (atexit(warm_join_at_exit) != 0) {
      warm_free(w);
      return ADI_OK;
    }
    hooked = 1;
  }
  if (warm_pending != NULL || pthread_create(&w->thread, NULL, warm_body, w) != 0) {
    warm_free(w);
    return ADI_OK;
  }
  warm_pending = w;
  *warm = w;
  return ADI_OK;
}

int adi_gpu_warm_usable(adi_gpu_warm *warm, const adi_gpu_settings *settings)
{
  int usable;
  if (warm == NULL) return adi_gpu_available(settings);
  pthread_mutex_lock(&warm->lock);
  while (!warm->looked) pthread_cond_wait(&warm->looked_cv, &warm->lock);
  usable = warm->usable;
  pthread_mutex_unlock(&warm->lock);
  if (!usable) adi_gpu_set_error("%s", warm->why);
  return usable;
}

int adi_gpu_warm_finish(adi_gpu_warm *warm)
{
  cudaError_t err;
  if (warm == NULL) return ADI_OK;
  pthread_join(warm->thread, NULL);
  if (warm_pending == warm) warm_pending = NULL;
  err = warm->err;
  warm_free(warm);
  if (err != cudaSuccess)
    return adi_gpu_fail(err, "making the GPU's context (" ADI_GPU_API_PREFIX "SetDevice, " ADI_GPU_API_PREFIX "Free)",
                        __FILE__, __LINE__);
  return ADI_OK;
}

struct adi_gpu_release {
  pthread_t thread;
  adi_gpu_grid **grids;
  int n, device;
  int rc;              /* the first failure, read after the join */
  char msg[1024];      /* its text: messages are per thread */
};

static void *release_body(void *arg)
{
  adi_gpu_release *r = (adi_gpu_release *)arg;
  cudaError_t err;
  int i, rc;
  err = cudaSetDevice(r->device);   /* a new thread's current device is 0 */
  if (err != cudaSuccess) {
    r->rc = adi_gpu_fail(err, "releasing the GPU (" ADI_GPU_API_PREFIX "SetDevice)", __FILE__, __LINE__);
    adi_gpu_error_message(r->msg, (int)sizeof r->msg);
    return NULL;
  }
  for (i = 0; i < r->n; ++i) {
    rc = adi_gpu_finalize(r->grids[i]);
    if (rc != ADI_OK && r->rc == ADI_OK) {
      r->rc = rc;
      adi_gpu_error_message(r->msg, (int)sizeof r->msg);
    }
  }
  err = cudaDeviceReset();
  if (err != cudaSuccess && r->rc == ADI_OK) {
    r->rc = adi_gpu_fail(err, "releasing the GPU (" ADI_GPU_API_PREFIX "DeviceReset)", __FILE__, __LINE__);
    adi_gpu_error_message(r->msg, (int)sizeof r->msg);
  }
  return NULL;
}

/* The release still running, for the exit hook (as warm_pending: an exit
 * while the thread is inside the runtime waits for it first). */
static adi_gpu_release *release_pending;

static void release_join_at_exit(void)
{
  if (release_pending != NULL) {
    pthread_join(release_pending->thread, NULL);
    release_pending = NULL;
  }
}

int adi_gpu_release_start(adi_gpu_grid **grids, int n, adi_gpu_release **release)
{
  static int hooked;
  adi_gpu_release *r;
  int i;
  if (release == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_release_start: no handle");
  *release = NULL;
  if (grids == NULL || n <= 0 || release_pending != NULL) return ADI_OK;
  for (i = 0; i < n; ++i) {
    if (adi_gpu_check_grid(grids[i], "adi_gpu_release_start") != ADI_OK) return ADI_ERR_USAGE;
    /* a timing table would be printed from the thread, among the run's own lines; a
     * block's communicators are torn down with their peers: both keep the finalize */
    if ((grids[i]->timing_env && grids[i]->timed_iterations > 0) || grids[i]->block != NULL) return ADI_OK;
  }
  r = (adi_gpu_release *)calloc(1, sizeof *r);
  if (r != NULL) r->grids = (adi_gpu_grid **)malloc((size_t)n * sizeof *r->grids);
  if (r == NULL || r->grids == NULL) {
    if (r != NULL) free(r);
    return ADI_OK;   /* nothing started: the caller finalizes the grids itself */
  }
  memcpy(r->grids, grids, (size_t)n * sizeof *r->grids);
  r->n = n;
  r->device = grids[0]->device;
  if ((!hooked && atexit(release_join_at_exit) != 0) || pthread_create(&r->thread, NULL, release_body, r) != 0) {
    free(r->grids);
    free(r);
    return ADI_OK;
  }
  hooked = 1;
  release_pending = r;
  *release = r;
  return ADI_OK;
}

int adi_gpu_release_finish(adi_gpu_release *release)
{
  int rc;
  if (release == NULL) return ADI_OK;
  pthread_join(release->thread, NULL);
  if (release_pending == release) release_pending = NULL;
  rc = release->rc;
  if (rc != ADI_OK) adi_gpu_set_error("%s", release->msg);
  free(release->grids);
  free(release);
  return rc;
}

int adi_gpu_device_info(const adi_gpu_settings *settings, char *buf, int buflen)
{
  int dev = adi_settings_device(settings), drv = 0, rt = 0;
  struct cudaDeviceProp prop;
  if (buf == NULL || buflen <= 0) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_device_info: no buffer");
  ADI_GPU_CHECK(cudaGetDeviceProperties(&prop, dev));
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
#if ADI_GPU_HIP
  /* HIP versions read major*10^7 + minor*10^5 + patch */
  snprintf(buf, (size_t)buflen, "GPU %d, %s (%s, wavefront %d, %d CUs, %.1f GiB; driver HIP %d.%d, "
           "runtime %d.%d)", adi_settings_device_label(settings), prop.name, prop.gcnArchName, prop.warpSize,
           prop.multiProcessorCount,
           (double)prop.totalGlobalMem/GIB, drv/10000000, (drv/100000)%100, rt/10000000, (rt/100000)%100);
#else
  snprintf(buf, (size_t)buflen, "GPU %d, %s (compute capability %d.%d, %d SMs, %.1f GiB; driver CUDA %d.%d, "
           "runtime %d.%d)", adi_settings_device_label(settings), prop.name, prop.major, prop.minor,
           prop.multiProcessorCount,
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
    adi_gpu_set_error("GPU %d (%s) runs warps of %d threads (warpSize); adiflow's kernels need a power of two "
                      "up to %d (their lane masks have 64 bits): run with backend = 'cpu'", adi_device_label(dev),
                      prop->name, ws, ADI_WARP_SIZE_MAX);
    return ADI_ERR_CONFIG;
  }
  if (threads % ws != 0) {
    adi_gpu_set_error("the %s kernels' blocks of %d x %d = %d threads are not a whole number of warps on GPU %d "
                      "(%s), whose warps have %d threads (warpSize)", family, bx, by, threads, adi_device_label(dev),
                      prop->name, ws);
    return ADI_ERR_CONFIG;
  }
  if (threads > prop->maxThreadsPerBlock || bx > prop->maxThreadsDim[0] || by > prop->maxThreadsDim[1]) {
    adi_gpu_set_error("the %s kernels' blocks of %d x %d threads exceed the limits of GPU %d (%s): %d threads per "
                      "block (maxThreadsPerBlock), %d x %d (maxThreadsDim)", family, bx, by, adi_device_label(dev),
                      prop->name, prop->maxThreadsPerBlock, prop->maxThreadsDim[0], prop->maxThreadsDim[1]);
    return ADI_ERR_CONFIG;
  }
  if (shmem > (size_t)ADI_PROP_SHMEM_PER_BLOCK(*prop)) {
    adi_gpu_set_error("the %s kernels need %zu bytes of shared memory per block, but GPU %d (%s) offers %zu "
                      "(" ADI_PROP_SHMEM_PER_BLOCK_NAME ")", family, shmem, adi_device_label(dev), prop->name,
                      (size_t)ADI_PROP_SHMEM_PER_BLOCK(*prop));
    return ADI_ERR_CONFIG;
  }
  return ADI_OK;
}

int adi_gpu_select_device(int dev, const adi_solver_params *sp, struct cudaDeviceProp *prop)
{
  struct cudaFuncAttributes attr;
  if (!device_usable(dev)) return ADI_ERR_NO_DEVICE;
  ADI_GPU_CHECK(cudaSetDevice(dev));
  ADI_GPU_CHECK(cudaGetDeviceProperties(prop, dev));
  ADI_GPU_CHECK(cudaFuncGetAttributes(&attr, adi_probe_kernel));
  if ((unsigned)(sp->nk + 4) > (unsigned)prop->maxGridSize[2] ||
      (unsigned)((sp->nj + 4 + ADI_BLOCK_Y - 1)/ADI_BLOCK_Y) > (unsigned)prop->maxGridSize[1]) {
    adi_gpu_set_error("grid %d x %d x %d exceeds the launch grid limits of GPU %d (%s)", sp->ni, sp->nj, sp->nk,
                              adi_device_label(dev), prop->name);
    return ADI_ERR_CONFIG;
  }
  /* warp size, block size and shared memory (the split family has no tiles) */
  return check_launch_limits(prop, dev, "split", ADI_BLOCK_X, ADI_BLOCK_Y, 0);
}
