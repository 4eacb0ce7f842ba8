/* Per-kernel timing of a grid: on and off (adi_gpu_set_timing, or
 * ADIFLOW_GPU_TIMING=1 at init), and the report, whose kernel table is the
 * kernel family's (each schedule times its own launches with events) and
 * whose residual-norm line is the bridge's. */
#include <stdio.h>

#include "grid.cuh"

int adi_gpu_timing_events(adi_gpu_grid *g)
{
  if (g->events_ready) return ADI_OK;
  ADI_GPU_CHECK(cudaEventCreate(&g->ev_norm[0]));
  ADI_GPU_CHECK(cudaEventCreate(&g->ev_norm[1]));
  g->events_ready = 1;
  return ADI_OK;
}

int adi_gpu_set_timing(adi_gpu_grid *g, int enabled)
{
  int rc, reset;
  REQUIRE_INIT("adi_gpu_set_timing");
  if (enabled) {
    reset = !g->timing;
    rc = adi_gpu_timing_events(g);
    if (rc == ADI_OK && g->split != NULL) rc = split_timing_start(g->split, reset);
    if (rc != ADI_OK) return rc;
    if (reset) {
      g->norm_ms = 0.0;
      g->timed_iterations = 0;
      g->norm_calls = 0;
    }
  }
  g->timing = enabled ? 1 : 0;
  return ADI_OK;
}

int adi_gpu_timing_report(adi_gpu_grid *g, char *buf, int buflen)
{
  int pos = 0;
  if (buf == NULL || buflen <= 0) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_timing_report: no buffer");
  buf[0] = '\0';
  REQUIRE_INIT("adi_gpu_timing_report");
  if (g->timed_iterations == 0) {
    adi_gpu_put(buf, buflen, &pos, "GPU timing: no timed iterations (enable with adi_gpu_set_timing(1) or "
                "ADIFLOW_GPU_TIMING=1)");
    return ADI_OK;
  }
  if (g->kernels == ADI_KERNELS_MERGED)
    return merged_timing_report(g->merged, buf, buflen, g->timed_iterations, g->norm_ms, g->norm_calls);
  return split_timing_report(g->split, buf, buflen, g->timed_iterations, g->norm_ms, g->norm_calls);
}
