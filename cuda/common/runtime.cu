/* The runtime services of the GPU backend (cuda/common/runtime.cuh): the
 * error record and its advice, the &gpu settings with their environment
 * variables, the text of the timing reports. Everything in cuda/ links
 * these; they call nothing outside this file but the runtime (CUDA, or HIP
 * through adiflow_gpu_vendor.h) and the C library. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.cuh"

/* ---- errors ---- */

static thread_local char g_err[ADI_ERRLEN];

void adi_gpu_set_error(const char *fmt, ...)
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

int adi_gpu_fail(cudaError_t err, const char *what, const char *file, int line)
{
  adi_gpu_set_error("%s:%d: %s failed with " ADI_GPU_API_NAME " error %d %s (%s); %s", file, line, what, (int)err,
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

const char *adi_gpu_last_error(void)
{
  return g_err;
}

/* ---- the &gpu settings, each overridden by its environment variable when
 * that is set (include/adiflow_gpu_settings.h) ---- */

static const char *env_set(const char *name)
{
  const char *s = getenv(name);
  return s && *s ? s : NULL;
}

/* The GPU the user chose, where adi_gpu_narrow_visible left it the only
 * one visible to the process (-1: not narrowed). Process-wide, as the
 * environment variable it mirrors is. */
static int g_narrowed = -1;

/* ADIFLOW_DEVICE, else the settings' device, else 0: the GPU's number on
 * the host */
int adi_settings_device_label(const adi_gpu_settings *s)
{
  const char *e;
  if (g_narrowed >= 0) return g_narrowed;
  e = env_set("ADIFLOW_DEVICE");
  if (e) return atoi(e);
  return s && s->device >= 0 ? s->device : 0;
}

/* the same as the process numbers it (0 once narrowed); a block grid uses
 * its rank's GPU instead (hooks->device, chosen by the driver) */
int adi_settings_device(const adi_gpu_settings *s)
{
  return g_narrowed >= 0 ? 0 : adi_settings_device_label(s);
}

int adi_settings_narrowed(void) { return g_narrowed >= 0; }

int adi_device_label(int dev) { return g_narrowed >= 0 && dev == 0 ? g_narrowed : dev; }

void adi_gpu_narrow_visible(const adi_gpu_settings *s)
{
#if !ADI_GPU_HIP
  char v[16];
  int dev = adi_settings_device_label(s);
  /* a variable set, even empty (no GPU), is the user's choice */
  if (g_narrowed >= 0 || dev < 0 || getenv(ADI_GPU_VISIBLE_ENV) != NULL) return;
  snprintf(v, sizeof v, "%d", dev);
  if (setenv(ADI_GPU_VISIBLE_ENV, v, 0) == 0) g_narrowed = dev;
#else
  (void)s;
#endif
}

/* an on/off setting: the variable ("0" off, anything else on), else the
 * settings' value, else dflt */
int adi_settings_flag(const char *env, int value, int dflt)
{
  const char *e = env_set(env);
  if (e) return strcmp(e, "0") != 0;
  return value >= 0 ? value != 0 : dflt;
}

/* a text setting: the variable, else the settings' text (NULL when neither) */
const char *adi_settings_text(const char *env, const char *value)
{
  const char *e = env_set(env);
  if (e) return e;
  return value && *value ? value : NULL;
}

/* ---- reports ---- */

void adi_gpu_put(char *buf, int buflen, int *pos, const char *fmt, ...)
{
  va_list ap;
  int n;
  if (*pos >= buflen - 1) return;
  va_start(ap, fmt);
  n = vsnprintf(buf + *pos, (size_t)(buflen - *pos), fmt, ap);
  va_end(ap);
  if (n > 0) *pos = *pos + n < buflen - 1 ? *pos + n : buflen - 1;
}
