/* The split kernel family's schedule as the bridge (cuda/api/) sees it: one
 * state per grid, made after the grid's fields are on the device, driven
 * by adi_gpu_iterate, freed by adi_gpu_finalize (cuda/split/schedule.cu).
 * It takes the grid's view (device pointers, layout, parameters: copied),
 * its stream and its block hooks (NULL for one domain). */
#ifndef ADIFLOW_SPLIT_SCHEDULE_CUH
#define ADIFLOW_SPLIT_SCHEDULE_CUH

#include "adiflow_gpu_vendor.h"
#include "flow_fields.h"
#include "block_hooks.cuh"

typedef struct split_state split_state;
/* On success *ss is the new state; on failure NULL (nothing left to free). */
int split_init(split_state **ss, const adi_view *v, cudaStream_t s, const adi_block_hooks *block);
/* One iteration; timing: per-kernel events (launches one by one). */
int split_iterate(split_state *ss, double cfl, int timing);
/* the iteration's steps up to the residual (no update); one domain only */
int split_residual(split_state *ss, double cfl);
/* Timing switched on: the events (once) and, with reset, sums from zero. */
int split_timing_start(split_state *ss, int reset);
int split_timing_report(const split_state *ss, char *buf, int buflen, long long timed_iterations,
                        double norm_ms, long long norm_calls);
/* frees ss and everything it holds; nothing for NULL */
void split_finalize(split_state *ss);

#endif
