/* The two kernel families' iteration schedules, as the bridge (cuda/api/)
 * sees them: one state per grid, made after the grid's fields are on the
 * device, driven by adi_gpu_iterate, freed by adi_gpu_finalize.
 *   split   cuda/split/schedule.cu   one kernel per stage and direction
 *   merged  cuda/merged/schedule.cu  the optimised family (techniques,
 *                                    block shapes, the iteration's graph)
 * Both take the grid's view (device pointers, layout, parameters: copied),
 * its stream and its block hooks (NULL for one domain). */
#ifndef ADIFLOW_SCHEDULES_CUH
#define ADIFLOW_SCHEDULES_CUH

#include "settings.cuh"
#include "adiflow_gpu_vendor.h"
#include "adiflow_stages.h"
#include "block_hooks.cuh"

/* ---- split family ---- */
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

/* ---- merged family ---- */
/* The merged family's state of one grid (flags, block shapes, steps, CUDA
 * graph, events, timing). q_host: the host state, for the tune mode, which
 * restores it; reads ADIFLOW_MERGED_STEPS, the tuning table, ADIFLOW_TUNE. */
typedef struct merged_state merged_state;
int merged_init(merged_state **ms, const adi_view *v, cudaStream_t s, const double *q_host,
                const adi_block_hooks *block, const adi_gpu_settings *settings);
/* 0 if text is a valid merged_steps text; else -1 and the message */
int merged_check_steps(const char *text, char *msg, size_t msglen);

int merged_iterate(merged_state *ms, double cfl, int timing);
/* the iteration's steps up to the residual (no update, no graph); one domain only */
int merged_residual(merged_state *ms, double cfl);
int merged_timing_report(const merged_state *ms, char *buf, int buflen, long long timed_iterations,
                         double norm_ms, long long norm_calls);
void merged_finalize(merged_state *ms);

/* ---- text of the timing reports (cuda/api/timing.cu) ---- */
/* append to buf at *pos, never past buflen */
void adi_gpu_put(char *buf, int buflen, int *pos, const char *fmt, ...);

#endif
