/* The merged kernel family's iteration (kernels = 'merged'): the steps of
 * adi_merged_schedule (cuda/common/adiflow_merged.h) with per-kernel block
 * shapes, per-kernel CUDA-event timing with byte counts, the tune mode and
 * the CUDA graph of one iteration.
 *
 * The schedule a run takes is all techniques on, as the grid and the device
 * choose it (adi_merged_run_flags: ADI_line per direction; dependent
 * launches where the device has them), and at launch: a direction's lines
 * too long for ADI_line in three kernels (launch_adi_three), a direction a
 * block sweeps across the blocks in three kernels around the pipelined
 * sweep (launch_step), the fused flux marching where its blocks fill the
 * device (mlaunch_flux_march).
 *
 * Environment:
 *   ADIFLOW_MERGED_STEPS   (the merged_steps setting) which techniques are
 *                          on: "all" (default), "none", or a comma list of
 *                          align, sweep, tune, fuse, comp, graph, adi123,
 *                          pt, fmarch, tsweep, adi5f, adiline, dep;
 *                          "all,-graph" turns single ones off
 *                          (bench/device_merged.sh measures them). Only a
 *                          bench build (make BENCH_VARIANTS=1,
 *                          ADIFLOW_BENCH_VARIANTS) switches any off; other
 *                          builds take "all" and refuse the rest
 *   ADIFLOW_TUNE_TABLE=F   block-shape table to load (default: the first of
 *                          cuda/tune/sm_XY.txt found up to three folders
 *                          above the executable, XY the device's compute
 *                          capability; built-in shapes otherwise)
 *   ADIFLOW_TUNE=F         tune mode: at init time every candidate shape of
 *                          every tunable kernel is timed on this grid, the
 *                          best go to file F (the table format) and are used;
 *                          the state is restored afterwards
 *                          (with several merged grids in one process each
 *                          tunes at its own init; the last one's table is
 *                          the one left in F)
 * Per-kernel timing (ADIFLOW_GPU_TIMING=1) launches the kernels one by one
 * with events between them (no graph); without it the iteration is one
 * graph launch (MS_GRAPH; disabled at build time with -DADIFLOW_NO_GRAPHS,
 * and at run time when capturing fails).
 *
 * Everything here is per grid: struct merged_state (flags, shapes, steps,
 * events, graph, timing), one per adi_gpu_grid (cuda/api/grid.cu hangs it off
 * the grid), so grids of different sizes keep their own graphs and shapes.
 *
 * The CFL number lives on the device (d_cfl): the captured time-step kernel
 * reads it, so the graph stays valid while the CFL ramps. A one-thread
 * kernel on the grid's stream stores it when it changes: ordered with the
 * iterations around it and without waiting for the stream (a pinned copy
 * would have to wait until the previous one had left, which made the host
 * wait for every level at every cycle of a CFL ramp). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merged.cuh"

/* HIP: graphs stay off until the vendor header maps the cudaGraph* and
 * cudaStream*Capture names (then build with -DADIFLOW_HIP_GRAPHS) */
#if defined(ADI_GPU_HIP) && ADI_GPU_HIP && !defined(ADIFLOW_HIP_GRAPHS) && !defined(ADIFLOW_NO_GRAPHS)
#define ADIFLOW_NO_GRAPHS
#endif

struct merged_state {
  int ready, flags;
  const adi_block_hooks *block;          /* the grid's block hooks; NULL for one domain */
  int alone;                             /* one domain, or a block without halo neighbours (one rank) */
  adi_view v;
  cudaStream_t s;
  double *d_cfl;                         /* on the device, 1 double */
  double last_cfl;
  adi_mstep steps[ADI_MAX_MSTEPS];
  int nsteps;
  m_shape shape[MK_COUNT][4];            /* [kernel][d] */
  size_t adil_cap[4];                    /* ADI_line: shared memory per block at most, [d] */
  char table_from[512];
  int events_ready;
  cudaEvent_t ev[ADI_MAX_MSTEPS + 1];
  double ms[MK_COUNT][4], iter_ms;
#ifndef ADIFLOW_NO_GRAPHS
  cudaGraph_t graph;
  cudaGraphExec_t exec;
#endif
  int graph_ready, graph_failed;
};

static const struct { const char *name; int flag; } step_names[] = {
#define ADI_MERGED_STEP(name, bit, text) {text, MS_##name},
#include "adiflow_merged_steps.def"
#undef ADI_MERGED_STEP
};

/* The technique flags of a merged_steps text ("all", "none", names, "-name"
 * to switch one off, separated by commas or spaces; NULL or "" = all). 0 on
 * success; -1 with the first unknown name in bad. */
static int parse_steps(const char *s, int *flags_out, char *bad, size_t badlen)
{
  int flags = MS_ALL, f, neg;
  size_t a, n;
  char tok[32];
  *flags_out = MS_ALL;
  if (s == NULL || *s == '\0') return 0;
  flags = 0;
  while (*s) {
    n = strcspn(s, ", ");
    if (n > 0) {
      f = -1;
      if (n < sizeof tok) {
        memcpy(tok, s, n); tok[n] = '\0';
        neg = tok[0] == '-';
        if (strcmp(tok + neg, "all") == 0) f = MS_ALL;
        else if (strcmp(tok + neg, "none") == 0) f = 0;
        else
          for (a = 0; a < sizeof step_names/sizeof step_names[0]; ++a)
            if (strcmp(tok + neg, step_names[a].name) == 0) f = step_names[a].flag;
      }
      if (f < 0) {
        snprintf(bad, badlen, "%.*s", (int)n, s);
        return -1;
      }
      flags = neg ? (flags & ~f) : (flags | f);
    }
    s += n;
    while (*s == ',' || *s == ' ') ++s;
  }
  *flags_out = flags;
  return 0;
}

int merged_check_steps(const char *text, char *msg, size_t msglen)
{
  char bad[64], names[256];
  size_t a, pos = 0;
  int flags;
  if (parse_steps(text, &flags, bad, sizeof bad) == 0) {
#ifndef ADIFLOW_BENCH_VARIANTS
    if (flags != MS_ALL) {
      snprintf(msg, msglen, "merged_steps = \"%s\": switching merged techniques off is a measurement of a bench "
               "build (make BENCH_VARIANTS=1, see bench/README.md); this build runs them all (leave merged_steps "
               "empty, or \"all\")", text);
      return -1;
    }
#endif
    return 0;
  }
  names[0] = '\0';
  for (a = 0; a < sizeof step_names/sizeof step_names[0] && pos < sizeof names; ++a)
    pos += (size_t)snprintf(names + pos, sizeof names - pos, "%s%s", a ? " " : "", step_names[a].name);
  snprintf(msg, msglen, "merged_steps = \"%s\": unknown step \"%s\" (allowed: all, none, %s; -name switches one "
           "off)", text, bad, names);
  return -1;
}

static void steps_text(int flags, char *buf, size_t len)
{
  size_t a, pos = 0;
  buf[0] = '\0';
  for (a = 0; a < sizeof step_names/sizeof step_names[0]; ++a)
    if (flags & step_names[a].flag)
      pos += (size_t)snprintf(buf + pos, pos < len ? len - pos : 0, "%s%s", pos ? "," : "", step_names[a].name);
  if (pos == 0) snprintf(buf, len, "none");
}

/* ---------------------------------------------------------------- shapes */


static m_shape mk(int x, int y, int z) { m_shape s; s.x = x; s.y = y; s.z = z; return s; }

/* the shape without a table (and with MS_TUNE off): the split family's
 * 32 x 4 for point kernels and lines, tiles long enough along d for the
 * fused flux */
static m_shape default_shape(int k, int d)
{
  if (k == MK_FLUXF) return d == 1 ? mk(32, 4, 1) : (d == 2 ? mk(32, 8, 1) : mk(32, 1, 8));
  if (k == MK_ADIL) return mk(4, 256, 1);   /* lines per block at most, threads */
  return mk(32, 4, 1);
}

static int kernel_id(const char *name)
{
  int k;
  for (k = 0; k < MK_COUNT; ++k)
    if (strcmp(name, adi_merged_kernel_name(k)) == 0) return k;
  return -1;
}

static int shape_ok(const merged_state *m, int k, int d, m_shape s)
{
  int t = s.x*s.y*s.z;
  /* the line kernel's x is lines per block, y its threads */
  if (k == MK_ADIL) return s.x >= 1 && s.x <= 64 && s.y >= 32 && s.y <= 512 && s.y % 32 == 0 && s.z == 1;
  if (s.x < 1 || s.y < 1 || s.z < 1 || t > 1024) return 0;
  if (adi_merged_launch(k) != MKL_OWN || k == MK_ADI4) {
    if (s.z != 1) return 0;
    if (k == MK_ADI4 && d == 1) return madi4_smem_bytes(s) > 0;
    return 1;
  }
  /* the marching kernel (MS_FMARCH, i and j) takes at most 256 threads */
  if (k == MK_FLUXF && adi_merged_march(m->flags, d) && t > 256) return 0;
  if (k == MK_FLUXF) return (d == 1 ? s.x : (d == 2 ? s.y : s.z)) >= 2;
  return 1;
}

/* table lines: "kernel_name d x y z [comment]"; returns the entries read */
static int load_table(merged_state *m, const char *path)
{
  FILE *f = fopen(path, "r");
  char line[256], name[64];
  int d, x, y, z, k, n = 0;
  if (f == NULL) return -1;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || sscanf(line, "%63s %d %d %d %d", name, &d, &x, &y, &z) != 5) continue;
    k = kernel_id(name);
    if (k < 0 || d < 0 || d > 3 || !shape_ok(m, k, d, mk(x, y, z))) {
      fprintf(stderr, "adiflow: tuning table %s: entry '%s %d %d %d %d' ignored\n", path, name, d, x, y, z);
      continue;
    }
    m->shape[k][d] = mk(x, y, z);
    ++n;
  }
  fclose(f);
  snprintf(m->table_from, sizeof m->table_from, "%s (%d entries)", path, n);
  return n;
}

/* The tuning table, by the documented search path: the one the settings or
 * ADIFLOW_TUNE_TABLE name; else tune/sm_XY.txt beside the executable (make
 * puts build/tune/ there); else the built-in shapes. Never the source tree. */
static void find_table(merged_state *m, int major, int minor, const char *given)
{
  char exe[PATH_MAX], path[PATH_MAX + 64], *slash;
  ssize_t len;
  snprintf(m->table_from, sizeof m->table_from, "built-in shapes (no table found)");
  if (given) {
    if (load_table(m, given) < 0) fprintf(stderr, "adiflow: tuning table %s cannot be read; built-in shapes\n", given);
    return;
  }
  len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return;
  exe[len] = '\0';
  slash = strrchr(exe, '/');
  if (slash == NULL) return;
  *slash = '\0';
  snprintf(path, sizeof path, "%s/tune/sm_%d%d.txt", exe, major, minor);
  if (access(path, R_OK) == 0) load_table(m, path);
}

/* ---------------------------------------------------------------- bytes */

/* bytes a kernel must move by count: every field component it reads or
 * writes, once per point of its range (compulsory traffic; neighbours'
 * values and repeated reads count once). wkn of the per-point components
 * are ADI work fields: 4 bytes each where the grid stores them as floats
 * (v->wkf, implicit_precision = 'single'), 8 otherwise. */
static double kernel_bytes(const adi_view *v, int k, int d)
{
  double n = (double)v->ni*v->nj*v->nk, all = (double)(v->ni + 4)*(v->nj + 4)*(v->nk + 4), per, wkn = 0.0;
  double wsz = v->wkf != NULL ? 4.0 : 8.0;
  int nb = d == 1 ? v->nj : v->ni, nc = d == 3 ? v->nj : v->nk;
  switch (k) {
  case MK_BC: return 8.0*20.0*(nb + 4)*(nc + 4);
  case MK_WALLT: return 8.0*8.0*(nb + 4)*(nc + 4);
  case MK_PRIM: return 8.0*11.0*all;
  case MK_TSTEP: return 8.0*17.0*n;
  case MK_PT: return 8.0*(11.0*all + 11.0*n);
  case MK_RES_ZERO: return 8.0*5.0*(double)v->npts;
  case MK_FLUX1: per = 10; break;
  case MK_FLUX2: per = 20; break;
  case MK_FLUX3: per = 18; break;
  case MK_VISC: per = 19; break;
  case MK_FLUX4: per = 20; break;
  case MK_FLUXF: per = 16 + (d == 1 ? 5 : 10); break;   /* qp 6, sf 3, sc 6, vol; res */
  case MK_ADI12: per = 20; wkn = 9; break;               /* rdiag, flmp, flmn */
  case MK_ADI123: per = 30; wkn = 14; break;             /* + wch */
  case MK_ADI3: per = d == 1 ? 19 : 18; wkn = 5; break;  /* wch */
  case MK_ADI4: per = 19; wkn = 19; break;               /* wch r+w, flmp, rdiag, flmn */
  case MK_ADI5: per = d < 3 ? 18 : 23; wkn = 5; break;   /* wch */
  case MK_ADI5F: per = 33; wkn = 19; break;  /* qp 6, sc 3+3, vol, dtv, wch r+w; rdiag, flmp, flmn */
  case MK_ADIL: per = d < 3 ? 21 : 26; break; /* qp 6, sc 3, vol, dtv, res or dq 5; dq 5 or q r+w */
  default: per = 0;
  }
  return (8.0*(per - wkn) + wsz*wkn)*n;
}

/* ---------------------------------------------------------------- launch */

/* the shape a kernel of the merged family launches with along d */
static m_shape shape_of(const merged_state *m, int k, int d)
{
  return (m->flags & MS_TUNE) ? m->shape[k][d] : default_shape(k, d);
}

static int launch(merged_state *m, int k, int d);

/* MS_ADIL on a line too long for the line kernel's shared memory: the same
 * stages in three kernels (stage 5 writes dq, which the next direction's
 * stage 3 reads) */
static int launch_adi_three(merged_state *m, int d)
{
  int rc = launch(m, MK_ADI123, d);
  if (rc == ADI_OK) rc = launch(m, MK_ADI4, d);
  if (rc == ADI_OK) rc = launch(m, MK_ADI5, d);
  return rc;
}

static int launch(merged_state *m, int k, int d)
{
  const adi_view *v = &m->v;
  m_shape sh = shape_of(m, k, d);
  int align = (m->flags & MS_ALIGN) != 0;
  int dep = (m->flags & MS_DEP) != 0;   /* launches that may overlap the kernel before (merged_setup) */
  switch (adi_merged_launch(k)) {   /* the launch column of ADI_MERGED_KERNELS */
  case MKL_FLUXPT: return mlaunch_flux_point(v, k, d, sh, align, m->d_cfl, dep, m->s);
  case MKL_ADIPT: return mlaunch_adi_point(v, k, d, sh, align, m->s);
  default: break;
  }
  switch (k) {
  case MK_BC: return launch_bc_kernel_dep(v, d, dep, m->s);
  case MK_WALLT: return launch_bc_temperature_kernel_dep(v, d, dep, m->s);
#ifdef ADIFLOW_BENCH_VARIANTS
  case MK_RES_ZERO: return launch_res_zero(v, m->s);
#endif
  case MK_FLUXF:
    if (adi_merged_march(m->flags, d)) return mlaunch_flux_march(v, d, sh, d == 1, dep, m->s);
    return mlaunch_flux_fused(v, d, sh, d == 1, dep, m->s);
  case MK_ADI4: return mlaunch_adi4(v, d, sh, m->flags, m->s);
  case MK_ADIL: {
    int lines = madil_lines(v, d, sh.x, m->adil_cap);
    return lines > 0 ? mlaunch_adi_line(v, d, lines, sh.y, m->adil_cap, dep, m->s) : launch_adi_three(m, d);
  }
  default:
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "internal error: merged kernel %d has no launcher", k);
  }
}

/* The staged sweep (block_hooks.cuh, sweep_staged): a block that sweeps j
 * alone and k across the blocks, ADI_line fitting its j lines. */
static int staged_jk(const merged_state *m)
{
  return m->block != NULL && m->block->staged && !m->block->across[2] && m->block->across[3] &&
         madil_lines(&m->v, 2, shape_of(m, MK_ADIL, 2).x, m->adil_cap) > 0;
}

/* its work around a chunk of i: ADI_line along j on the chunk's lines,
 * then stages 1-3 along k on its cells; afterwards stage 5 along k */
static int stage_local(void *ctx, int ilo, int ihi, cudaStream_t st)
{
  merged_state *m = (merged_state *)ctx;
  m_shape sh = shape_of(m, MK_ADIL, 2);
  int rc = mlaunch_adi_line_range(&m->v, 2, madil_lines(&m->v, 2, sh.x, m->adil_cap), sh.y, m->adil_cap, ilo, ihi,
                                  0, st);
  if (rc != ADI_OK) return rc;
  return mlaunch_adi_point_irange(&m->v, MK_ADI123, 3, shape_of(m, MK_ADI123, 3), (m->flags & MS_ALIGN) != 0, ilo,
                                  ihi, st);
}

static int stage_update(void *ctx, int ilo, int ihi, cudaStream_t st)
{
  merged_state *m = (merged_state *)ctx;
  return mlaunch_adi_point_irange(&m->v, MK_ADI5, 3, shape_of(m, MK_ADI5, 3), (m->flags & MS_ALIGN) != 0, ilo, ihi,
                                  st);
}

/* Step s of the schedule. Block mode (cuda/common/block_hooks.cuh): the
 * halo rows of d before its fill; in exact mode, for a direction swept
 * across the blocks, the pipelined sweep instead of ADI4, or, where k alone
 * is, j and k together in the staged sweep (staged_jk). No lam+- halo:
 * ADI stage 2 always runs fused (ADI12/ADI123/ADI5F), recomputing the
 * neighbour's eigenvalues from its ghost primitives, which the q halo
 * already brought (with preconditioning, their eps first: mlaunch_pce_faces) */
static int launch_step(merged_state *m, int s)
{
  int k = m->steps[s].kernel, d = m->steps[s].d, rc;
  if (m->block != NULL) {
    if (k == MK_BC && d >= 2 && (rc = m->block->exchange_q(m->block->ctx, &m->v, d, m->s)) != ADI_OK) return rc;
    if (k == MK_ADIL && d >= 2 && staged_jk(m)) {
      /* j and k together in the staged sweep, at j's step; nothing at k's
       * (with preconditioning k's stage 2 reads eps across the block faces:
       * formed first, from fields the ADI does not change) */
      adi_stage_work w = {m, stage_local, stage_update};
      if (d == 3) return ADI_OK;
      if ((rc = mlaunch_pce_faces(&m->v, 3, m->s)) != ADI_OK) return rc;
      return m->block->sweep_staged(m->block->ctx, &m->v, 3, m->s, &w);
    }
    if (k == MK_ADIL && m->block->across[d]) {
      /* a direction swept across the blocks has no whole lines: ADI_line's
       * stages as launch_adi_three runs them, the sweep pipelined */
      if ((rc = mlaunch_pce_faces(&m->v, d, m->s)) != ADI_OK) return rc;
      if ((rc = launch(m, MK_ADI123, d)) != ADI_OK) return rc;
      if ((rc = m->block->sweep(m->block->ctx, &m->v, d, m->s)) != ADI_OK) return rc;
      return launch(m, MK_ADI5, d);
    }
  }
  return launch(m, k, d);
}

static int launch_all(merged_state *m, int timing)
{
  int s, rc;
  for (s = 0; s < m->nsteps; ++s) {
    if (timing) ADI_GPU_CHECK(cudaEventRecord(m->ev[s], m->s));
    if ((rc = launch_step(m, s)) != ADI_OK) return rc;
  }
  if (timing) ADI_GPU_CHECK(cudaEventRecord(m->ev[m->nsteps], m->s));
  return ADI_OK;
}

static int create_events(merged_state *m)
{
  int s;
  if (m->events_ready) return ADI_OK;
  for (s = 0; s <= ADI_MAX_MSTEPS; ++s) ADI_GPU_CHECK(cudaEventCreate(&m->ev[s]));
  m->events_ready = 1;
  return ADI_OK;
}

/* ---------------------------------------------------------------- tune */

static int tune(merged_state *m, const char *out_path, const double *q_host)
{
  static const m_shape pt[] = {{32, 1, 1}, {32, 2, 1}, {32, 4, 1}, {32, 8, 1}, {64, 1, 1}, {64, 2, 1},
                               {64, 4, 1}, {128, 1, 1}, {128, 2, 1}, {16, 8, 1}, {16, 16, 1}, {256, 1, 1}};
  static const m_shape fx[] = {{32, 4, 1}, {32, 8, 1}, {64, 2, 1}, {64, 4, 1}, {128, 1, 1}, {128, 2, 1},
                               {16, 8, 1}, {16, 4, 2}, {32, 16, 1}, {16, 16, 1}, {32, 4, 2}, {32, 1, 4},
                               {32, 1, 8}, {16, 1, 8}, {32, 2, 4}, {64, 1, 4}, {32, 1, 16}, {16, 2, 8}};
  static const m_shape ln[] = {{32, 1, 1}, {32, 2, 1}, {32, 4, 1}, {64, 1, 1}, {64, 2, 1}, {16, 4, 1},
                               {16, 8, 1}, {128, 1, 1}, {8, 8, 1}, {16, 2, 1}, {8, 4, 1}};
  /* the line kernel: lines per block at most (fewer where its shared memory cannot hold them), threads */
  static const m_shape al[] = {{1, 64, 1}, {1, 128, 1}, {2, 128, 1}, {2, 256, 1}, {2, 512, 1}, {4, 128, 1},
                               {4, 256, 1}, {4, 384, 1}, {4, 512, 1}, {8, 256, 1}, {8, 512, 1}};
  const int reps = 5;
  FILE *f = fopen(out_path, "w");
  cudaDeviceProp prop;
  int k, d, c, r, ncand, saved = m->flags, rc, best_c, dev = 0;
  float t, best;
  const m_shape *cand;
  if (f == NULL) {
    fprintf(stderr, "adiflow: tune mode: cannot write %s\n", out_path);
    return ADI_ERR_USAGE;
  }
  ADI_GPU_CHECK(cudaGetDevice(&dev));
  ADI_GPU_CHECK(cudaGetDeviceProperties(&prop, dev));
  rc = create_events(m);
  if (rc != ADI_OK) { fclose(f); return rc; }
  fprintf(f, "# adiflow merged kernels: block shapes tuned on %s (sm_%d%d), grid %d x %d x %d\n"
          "# written by ADIFLOW_TUNE (cuda/merged/schedule.cu); kernel d x y z  best-ms (mean of %d)\n",
          prop.name, prop.major, prop.minor, m->v.ni, m->v.nj, m->v.nk, reps);
  /* realistic fields first: one iteration */
  m->flags = saved & ~MS_GRAPH;
  rc = launch_all(m, 0);
  for (k = 0; k < MK_COUNT && rc == ADI_OK; ++k) {
    /* the kernels with a shape, this build's (a bench build's table has them all) */
    if (k == MK_BC || k == MK_WALLT || k == MK_RES_ZERO || !adi_merged_kernel_built(k)) continue;
    cand = k == MK_FLUXF ? fx : (k == MK_ADI4 ? ln : (k == MK_ADIL ? al : pt));
    ncand = k == MK_FLUXF ? (int)(sizeof fx/sizeof fx[0])
          : (k == MK_ADI4 ? (int)(sizeof ln/sizeof ln[0])
          : (k == MK_ADIL ? (int)(sizeof al/sizeof al[0]) : (int)(sizeof pt/sizeof pt[0])));
    for (d = 0; d <= 3; ++d) {
      int undirected = k == MK_PRIM || k == MK_TSTEP || k == MK_PT;
      if (undirected != (d == 0)) continue;
      if (k == MK_FLUX1 && m->v.sp.order != 2) continue;
      if (k == MK_ADI5F && d == 3) continue;                  /* 5 of d with 1-3 of d + 1: d = 1, 2 */
      best = 1e30f; best_c = -1;
      for (c = 0; c < ncand; ++c) {
        if (!shape_ok(m, k, d, cand[c])) continue;
        m->shape[k][d] = cand[c];
        m->flags = (saved | MS_TUNE | MS_SWEEP) & ~MS_GRAPH;   /* the tuned kernels are the MS_SWEEP ones */
        if (launch(m, k, d) != ADI_OK) { cudaGetLastError(); continue; }
        ADI_GPU_CHECK(cudaEventRecord(m->ev[0], m->s));
        for (r = 0; r < reps; ++r) launch(m, k, d);
        ADI_GPU_CHECK(cudaEventRecord(m->ev[1], m->s));
        if (cudaEventSynchronize(m->ev[1]) != cudaSuccess) { cudaGetLastError(); continue; }
        ADI_GPU_CHECK(cudaEventElapsedTime(&t, m->ev[0], m->ev[1]));
        t /= (float)reps;
        if (t < best) { best = t; best_c = c; }
      }
      m->shape[k][d] = best_c >= 0 ? cand[best_c] : default_shape(k, d);
      fprintf(f, "%-18s %d %4d %4d %4d   %.5f\n", adi_merged_kernel_name(k), d, m->shape[k][d].x,
              m->shape[k][d].y, m->shape[k][d].z, best_c >= 0 ? best : -1.0f);
    }
  }
  fclose(f);
  m->flags = saved;
  if (rc != ADI_OK) return rc;
  snprintf(m->table_from, sizeof m->table_from, "tuned now, written to %s", out_path);
  /* restore the state the run starts from */
  ADI_GPU_CHECK(cudaStreamSynchronize(m->s));
  ADI_GPU_CHECK(cudaMemcpy(m->v.q, q_host, (size_t)m->v.npts*ADI_NVAR*sizeof(double), cudaMemcpyHostToDevice));
  printf("adiflow: tune mode: block shapes written to %s\n", out_path);
  return ADI_OK;
}

/* ---------------------------------------------------------------- API */

__global__ void store_cfl_kernel(double *d_cfl, double cfl) { *d_cfl = cfl; }

/* the CFL the time-step kernels read from device memory */
static int set_cfl(merged_state *m, double cfl)
{
  if (cfl != m->last_cfl) {
    store_cfl_kernel<<<1, 1, 0, m->s>>>(m->d_cfl, cfl);
    ADI_LAUNCH_CHECK("store_cfl_kernel");
    m->last_cfl = cfl;
  }
  return ADI_OK;
}

static int merged_setup(merged_state *m, const adi_view *v, cudaStream_t s, const double *q_host,
                        const adi_block_hooks *block, const adi_gpu_settings *settings)
{
  cudaDeviceProp prop;
  int k, d, dev = 0, rc, requested, dependent;
  char msg[512];
  const char *tune_out = getenv("ADIFLOW_TUNE");
  const char *steps = adi_settings_text("ADIFLOW_MERGED_STEPS", settings ? settings->merged_steps : NULL);
  m->v = *v;
  m->s = s;
  m->block = block;
  if (merged_check_steps(steps, msg, sizeof msg) != 0) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", msg);
  parse_steps(steps, &requested, msg, sizeof msg);
  m->last_cfl = -1.0;
  for (k = 0; k < MK_COUNT; ++k)
    for (d = 0; d < 4; ++d) m->shape[k][d] = default_shape(k, d);
  ADI_GPU_CHECK(cudaGetDevice(&dev));
  ADI_GPU_CHECK(cudaGetDeviceProperties(&prop, dev));
  /* the schedule: ADI_line for every direction a block sweeps alone (all
   * of them in decoupled mode, where its lines end at its faces: off 0 and
   * nglob its own sizes; i and any unsplit direction in exact mode); a
   * direction swept across the blocks runs its stages in three kernels
   * around the pipelined sweep (launch_step). Programmatic dependent launch
   * and the graph from compute capability 9.0 on, and not on a block with
   * halo neighbours, whose exchanges run between the kernels */
  m->alone = block == NULL || (!block->has_halo[2] && !block->has_halo[3] && !block->across[2] &&
                               !block->across[3]);
  dependent = m->alone && prop.major >= 9 && !ADI_GPU_HIP;
  m->flags = requested & adi_merged_run_flags(dependent);
  find_table(m, prop.major, prop.minor,
             adi_settings_text("ADIFLOW_TUNE_TABLE", settings ? settings->tuning_table : NULL));
  rc = mkernels_setup(m->adil_cap);
  if (rc != ADI_OK) return rc;
  ADI_GPU_CHECK(cudaMalloc((void **)&m->d_cfl, sizeof(double)));
  m->nsteps = adi_merged_schedule(m->flags, v->sp.order, v->sp.wall_thermal == ADI_WALL_ISOTHERMAL, m->steps);
  m->ready = 1;
  if (tune_out && *tune_out) {
    if ((rc = set_cfl(m, 1.0)) != ADI_OK) return rc;
    rc = tune(m, tune_out, q_host);
    if (rc != ADI_OK) return rc;
    m->flags |= MS_TUNE;
  }
  return ADI_OK;
}

int merged_init(merged_state **ms, const adi_view *v, cudaStream_t s, const double *q_host,
                const adi_block_hooks *block, const adi_gpu_settings *settings)
{
  merged_state *m;
  int rc;
  if (ms == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "internal error: merged_init without a state pointer");
  *ms = NULL;
  m = (merged_state *)calloc(1, sizeof *m);
  if (m == NULL)
    return adi_gpu_fail_msg(ADI_ERR_MEMORY, "out of host memory for the merged schedule's state (%zu bytes)",
                            sizeof *m);
  rc = merged_setup(m, v, s, q_host, block, settings);
  if (rc != ADI_OK) {
    merged_finalize(m);
    return rc;
  }
  *ms = m;
  return ADI_OK;
}

#ifndef ADIFLOW_NO_GRAPHS
static int capture_graph(merged_state *m)
{
  cudaError_t err;
  int rc;
  err = cudaStreamBeginCapture(m->s, cudaStreamCaptureModeThreadLocal);
  if (err != cudaSuccess) { cudaGetLastError(); return 0; }
  rc = launch_all(m, 0);
  err = cudaStreamEndCapture(m->s, &m->graph);
  if (rc != ADI_OK || err != cudaSuccess) { cudaGetLastError(); m->graph = NULL; return 0; }
  /* the kernels keep their streams' priorities (the staged sweep's pipe
   * before its local work) */
  err = cudaGraphInstantiate(&m->exec, m->graph, cudaGraphInstantiateFlagUseNodePriority);
  if (err != cudaSuccess) {
    cudaGetLastError();
    cudaGraphDestroy(m->graph);
    m->graph = NULL;
    return 0;
  }
  return 1;
}
#endif


/* Everything of an iteration up to the residual: the steps before the
 * first ADI kernel, launched one by one (no graph), for the multigrid
 * transfers (cuda/api/multigrid.cu); on a block with its halo rows. */
int merged_residual(merged_state *m, double cfl)
{
  int rc, s, k;
  if (m == NULL || !m->ready)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "internal error: merged_residual on a grid without a merged schedule");
  rc = set_cfl(m, cfl);
  if (rc != ADI_OK) return rc;
  for (s = 0; s < m->nsteps; ++s) {
    k = m->steps[s].kernel;
    if (k == MK_ADI12 || k == MK_ADI123 || k == MK_ADI3 || k == MK_ADI4 || k == MK_ADI5 || k == MK_ADI5F ||
        k == MK_ADIL)
      break;
    if ((rc = launch_step(m, s)) != ADI_OK) return rc;
  }
  return ADI_OK;
}

int merged_iterate(merged_state *m, double cfl, int timing)
{
  int rc, s;
  if (m == NULL || !m->ready)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "internal error: merged_iterate on a grid without a merged schedule");
  rc = set_cfl(m, cfl);
  if (rc != ADI_OK) return rc;
  if (timing) {
    float t;
    rc = create_events(m);
    if (rc != ADI_OK) return rc;
    rc = launch_all(m, 1);
    if (rc != ADI_OK) return rc;
    ADI_GPU_CHECK(cudaEventSynchronize(m->ev[m->nsteps]));
    for (s = 0; s < m->nsteps; ++s) {
      ADI_GPU_CHECK(cudaEventElapsedTime(&t, m->ev[s], m->ev[s + 1]));
      m->ms[m->steps[s].kernel][m->steps[s].d] += (double)t;
    }
    ADI_GPU_CHECK(cudaEventElapsedTime(&t, m->ev[0], m->ev[m->nsteps]));
    m->iter_ms += (double)t;
    return ADI_OK;
  }
#ifndef ADIFLOW_NO_GRAPHS
  /* a block with neighbours is captured with its exchanges where they only
   * queue on the stream (NCCL's; MPI's block the host): hooks.capturable */
  if ((m->flags & MS_GRAPH) && !m->graph_failed && (m->alone || m->block->capturable)) {
    if (!m->graph_ready) {
      m->graph_ready = capture_graph(m);
      if (!m->graph_ready) {
        m->graph_failed = 1;
        fprintf(stderr, "adiflow: capturing the merged iteration in a " ADI_GPU_API_NAME " graph failed; launching kernels "
                "one by one\n");
      }
    }
    if (m->graph_ready) {
      ADI_GPU_CHECK(cudaGraphLaunch(m->exec, m->s));
      return ADI_OK;
    }
  }
#endif
  return launch_all(m, 0);
}

/* The per-kernel table (i, j, k, sum in ms per iteration; bytes by count;
 * GB/s) and, for scripts, one "MERGEDK name d ms bytes" line per launch. */
int merged_timing_report(const merged_state *m, char *buf, int buflen, long long timed_iterations,
                         double norm_ms, long long norm_calls)
{
  int pos = 0, k, d, s, used[MK_COUNT] = {0};
  double n = (double)timed_iterations, total = 0.0, bytes_total = 0.0;
  char st[256];
  if (timed_iterations <= 0) {
    adi_gpu_put(buf, buflen, &pos, "GPU timing: no timed iterations (enable with adi_gpu_set_timing(1) or "
                "ADIFLOW_GPU_TIMING=1)");
    return ADI_OK;
  }
  for (s = 0; s < m->nsteps; ++s) used[m->steps[s].kernel] = 1;
  steps_text(m->flags, st, sizeof st);
  adi_gpu_put(buf, buflen, &pos, "GPU kernel times (" ADI_GPU_API_NAME " events), merged kernels [steps %s], "
              "grid %d x %d x %d, mean of %lld iterations, ms per iteration:\n", st, m->v.ni, m->v.nj, m->v.nk,
              timed_iterations);
  adi_gpu_put(buf, buflen, &pos, "  block shapes: %s\n", (m->flags & MS_TUNE) ? m->table_from : "built-in (tune step off)");
  adi_gpu_put(buf, buflen, &pos, "  %-18s %10s %10s %10s %10s %10s %9s\n", "kernel", "i", "j", "k", "sum", "MB", "GB/s");
  for (k = 0; k < MK_COUNT; ++k) {
    double sum = 0.0, by = 0.0;
    if (!used[k]) continue;
    for (s = 0; s < m->nsteps; ++s)
      if (m->steps[s].kernel == k) by += kernel_bytes(&m->v, k, m->steps[s].d);
    for (d = 0; d < 4; ++d) sum += m->ms[k][d];
    if (k == MK_PRIM || k == MK_TSTEP || k == MK_PT || k == MK_RES_ZERO)
      adi_gpu_put(buf, buflen, &pos, "  %-18s %10s %10s %10s %10.4f", adi_merged_kernel_name(k), "", "", "", sum/n);
    else
      adi_gpu_put(buf, buflen, &pos, "  %-18s %10.4f %10.4f %10.4f %10.4f", adi_merged_kernel_name(k), m->ms[k][1]/n,
                  m->ms[k][2]/n, m->ms[k][3]/n, sum/n);
    adi_gpu_put(buf, buflen, &pos, " %10.1f %9.1f\n", by/1e6, sum > 0.0 ? by/(sum/n*1e-3)/1e9 : 0.0);
    total += sum;
    bytes_total += by;
  }
  adi_gpu_put(buf, buflen, &pos, "    %-24s %10.4f ms  %.1f MB  %.1f GB/s\n", "all kernels", total/n, bytes_total/1e6,
              total > 0.0 ? bytes_total/(total/n*1e-3)/1e9 : 0.0);
  adi_gpu_put(buf, buflen, &pos, "    %-24s %10.4f ms  (first launch to last, gaps included)\n", "iteration", m->iter_ms/n);
  if (norm_calls > 0)
    adi_gpu_put(buf, buflen, &pos, "    %-24s %10.4f ms per call, %lld calls\n", "residual norms", norm_ms/(double)norm_calls,
                norm_calls);
  for (k = 0; k < MK_COUNT; ++k) {
    if (!used[k]) continue;
    for (d = 0; d < 4; ++d) {
      double by = 0.0;
      for (s = 0; s < m->nsteps; ++s)
        if (m->steps[s].kernel == k && m->steps[s].d == d) by += kernel_bytes(&m->v, k, d);
      if (by > 0.0)
        adi_gpu_put(buf, buflen, &pos, "MERGEDK %s %d %.6f %.0f\n", adi_merged_kernel_name(k), d, m->ms[k][d]/n, by);
    }
  }
  return ADI_OK;
}

void merged_finalize(merged_state *m)
{
  int s;
  if (m == NULL) return;
#ifndef ADIFLOW_NO_GRAPHS
  if (m->exec) cudaGraphExecDestroy(m->exec);
  if (m->graph) cudaGraphDestroy(m->graph);
#endif
  if (m->events_ready)
    for (s = 0; s <= ADI_MAX_MSTEPS; ++s) cudaEventDestroy(m->ev[s]);
  if (m->d_cfl) cudaFree(m->d_cfl);
  memset(m, 0, sizeof *m);
  free(m);
}
