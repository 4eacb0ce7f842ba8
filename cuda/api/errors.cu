/* The bridge's error text (include/adiflow_bridge.h): the last failure
 * recorded on this thread by the runtime (cuda/common/runtime.cu, where the
 * check macros of cuda/common/gpu_check.cuh send every failure). */
#include <stdio.h>

#include "grid.cuh"

void adi_gpu_error_message(char *buf, int buflen)
{
  if (buf == NULL || buflen <= 0) return;
  snprintf(buf, (size_t)buflen, "%s", adi_gpu_last_error());
}
