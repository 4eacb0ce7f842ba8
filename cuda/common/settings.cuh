/* The &gpu settings (include/adiflow_gpu_settings.h) as the backend reads
 * them: each one overridden by its environment variable when that is set.
 * Defined in cuda/api/device.cu. */
#ifndef ADIFLOW_SETTINGS_CUH
#define ADIFLOW_SETTINGS_CUH

#include "adiflow_gpu_settings.h"

/* the GPU index: ADIFLOW_DEVICE, else s->device if >= 0, else 0 */
int adi_settings_device(const adi_gpu_settings *s);
/* an on/off setting: the variable ("0" off, anything else on), else value if >= 0, else dflt */
int adi_settings_flag(const char *env, int value, int dflt);
/* a text setting: the variable, else value; NULL when neither is set */
const char *adi_settings_text(const char *env, const char *value);

#endif
