/* The services every part of the GPU backend uses: the bridge (cuda/api/),
 * the kernel families (cuda/split/, cuda/merged/), the shared kernels
 * (cuda/common/) and the block driver (cuda/multi/). All are defined in
 * cuda/common/runtime.cu, which calls nothing of those parts.
 *   errors    the text of the last failure (per thread, like errno: the
 *             one piece of process-wide mutable state); for a runtime error
 *             where it happened (file:line), which error, and what the user
 *             can do about it, in the words of the runtime in use (CUDA, or
 *             HIP). The check macros that feed it: gpu_check.cuh.
 *   settings  the &gpu settings (include/adiflow_gpu_settings.h) as the
 *             backend reads them: each one overridden by its environment
 *             variable when that is set
 *   reports   the text of the timing reports */
#ifndef ADIFLOW_RUNTIME_CUH
#define ADIFLOW_RUNTIME_CUH

#include "adiflow_gpu_vendor.h"
#include "adiflow_bridge.h"
#include "adiflow_gpu_settings.h"

#define ADI_ERRLEN 2048

/* ---- errors ---- */
/* Records a runtime failure (what was being done, at file:line) for
 * adi_gpu_error_message; returns the status code (ADI_ERR_MEMORY for an
 * allocation that did not fit, ADI_ERR_CUDA otherwise). */
int adi_gpu_fail(adi_gpu_error_t err, const char *what, const char *file, int line);
/* Records a failure in words (not a runtime error code); returns status. */
int adi_gpu_fail_msg(int status, const char *fmt, ...);
/* Records a failure in words, for a caller that returns its own status. */
void adi_gpu_set_error(const char *fmt, ...);
/* The text of this thread's last failure ("" before the first). */
const char *adi_gpu_last_error(void);

/* ---- settings ---- */
/* the GPU index: ADIFLOW_DEVICE, else s->device if >= 0, else 0 */
int adi_settings_device(const adi_gpu_settings *s);
/* the chosen GPU's number on the host (adi_settings_device's differs once
 * adi_gpu_narrow_visible made it the process's only GPU), and whether it did */
int adi_settings_device_label(const adi_gpu_settings *s);
int adi_settings_narrowed(void);
/* a process GPU number as the host numbers it, for messages */
int adi_device_label(int dev);
/* an on/off setting: the variable ("0" off, anything else on), else value if >= 0, else dflt */
int adi_settings_flag(const char *env, int value, int dflt);
/* a text setting: the variable, else value; NULL when neither is set */
const char *adi_settings_text(const char *env, const char *value);

/* ---- reports ---- */
/* append to buf at *pos, never past buflen */
void adi_gpu_put(char *buf, int buflen, int *pos, const char *fmt, ...);

#endif
