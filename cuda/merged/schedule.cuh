/* The merged kernel family's schedule as the bridge (cuda/api/) sees it:
 * one state per grid (flags, block shapes, steps, CUDA graph, events,
 * timing), made after the grid's fields are on the device, driven by
 * adi_gpu_iterate, freed by adi_gpu_finalize (cuda/merged/schedule.cu).
 * It takes the grid's view (device pointers, layout, parameters: copied),
 * its stream and its block hooks (NULL for one domain). */
#ifndef ADIFLOW_MERGED_SCHEDULE_CUH
#define ADIFLOW_MERGED_SCHEDULE_CUH

#include <stddef.h>

#include "adiflow_gpu_vendor.h"
#include "adiflow_gpu_settings.h"
#include "flow_fields.h"
#include "block_hooks.cuh"

typedef struct merged_state merged_state;
/* q_host: the host state, for the tune mode, which restores it; reads the
 * merged_steps setting (ADIFLOW_MERGED_STEPS), the tuning table,
 * ADIFLOW_TUNE. On failure *ms is NULL (nothing left to free). */
int merged_init(merged_state **ms, const adi_view *v, cudaStream_t s, const double *q_host,
                const adi_block_hooks *block, const adi_gpu_settings *settings);
/* 0 if text is a merged_steps text this build runs; else -1 and the message */
int merged_check_steps(const char *text, char *msg, size_t msglen);

int merged_iterate(merged_state *ms, double cfl, int timing);
/* the iteration's steps up to the residual (no update, no graph); one domain only */
int merged_residual(merged_state *ms, double cfl);
int merged_timing_report(const merged_state *ms, char *buf, int buflen, long long timed_iterations,
                         double norm_ms, long long norm_calls);
void merged_finalize(merged_state *ms);

#endif
