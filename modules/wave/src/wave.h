/* wave.h - shared declarations of the adiflow 2D acoustic wave module. */
#ifndef WAVE_H
#define WAVE_H

#include <stddef.h>
#include "stencil.h"  /* modules/common: real, MOD_HD, wave_update */
#include "guard.h"    /* modules/common: exit codes, mod_fail, safe output files, mkdir -p */
#include "output.h"   /* modules/common: PNG, hash, clock, mod_out_* */

#ifdef __cplusplus
extern "C" {
#endif

#define WAVE_STR 512
/* the one special value of the position keys (src_x, init_x, rec_y, ...): "choose for me" */
#define WAVE_AUTO (-1.0)

typedef struct WaveCase {
    /* grid: nx*ny points including the 4-point fixed (zero) frame */
    int nx, ny;
    double h;            /* grid spacing [m] */
    double dt;           /* time step [s]; 0 = automatic (cfl_target) */
    double cfl_target;   /* used when dt = 0 */
    long nt;             /* number of time steps */
    /* velocity model */
    char model[32];      /* constant | layered | file */
    double v0;
    char layers[WAVE_STR];   /* "depth:v, depth:v, ..." (m, m/s) */
    char velfile[WAVE_STR];  /* raw float32, nx*ny, x fastest */
    /* sponge */
    int sponge;          /* width in cells (0 = none, energy conserving) */
    double sponge_edge;  /* damping factor at the outermost cell */
    /* Ricker source */
    double src_x, src_y, f0, t0, amp;
    /* optional initial Gaussian pulse (at rest) */
    char init[32];
    double init_x, init_y, init_w, init_amp;
    /* receivers: a horizontal line */
    int rec_n, rec_every;
    double rec_y, rec_x0, rec_dx;
    /* output */
    char out[WAVE_STR];
    long snap_every, progress;
    int snap_png, snap_raw, write_final, traces;
    /* execution */
    char mode[32];       /* auto | cpu | gpu */
    char precision[32];  /* float | double */
    int gpus, parts, threads, chunk, no_peer, profile, quiet;
    char kernel[32];     /* tile | tile256 | tile64 | simple */
    /* derived by wave_case_finalize */
    int src_ix, src_iy;
    int *rec_ix, *rec_iy;
    double vmin, vmax, vsrc, cfl, cfl_max;
    long nsamp;
} WaveCase;

/* case.c */
void wave_case_defaults(WaveCase *c);
int  wave_case_set(WaveCase *c, const char *key, const char *val, char *err, size_t n);
int  wave_case_load(WaveCase *c, const char *path, char *err, size_t n);
int  wave_case_args(WaveCase *c, int argc, char **argv, char *err, size_t n);
int  wave_case_finalize(WaveCase *c, char *err, size_t n);
void wave_case_print(const WaveCase *c);
void wave_case_free(WaveCase *c);
void wave_usage(const char *prog);
/* host memory one process needs for the run (bytes, as a double so that no product overflows):
 * ranks = MPI processes, root = 1 on the process that gathers the field, gpu = 1 in GPU mode */
double wave_host_need(const WaveCase *c, int ranks, int root, int gpu);
double wave_ricker(const WaveCase *c, double t);
real wave_src_value(const WaveCase *c, long n);
/* k = (v dt / h)^2 for global rows [r_lo, r_hi) into k (row stride nx). */
int  wave_fill_k(const WaveCase *c, real *k, int r_lo, int r_hi, char *err, size_t n);
/* sponge profiles gx[nx], gy[ny] */
void wave_sponge(const WaveCase *c, real *gx, real *gy);
/* initial field for global rows [r_lo, r_hi) */
void wave_fill_init(const WaveCase *c, real *u, int r_lo, int r_hi);
/* Owned (updated) rows of part p of P: [r0, r1) within [4, ny-4). */
void wave_split(int ny, int P, int p, int *r0, int *r1);

/* Process environment given to the back ends (serial or MPI). */
typedef struct WaveComm {
    int rank, size, local_rank, local_size;
    void (*bcast)(void *buf, size_t bytes);            /* from rank 0 */
    /* gather owned rows [r0,r1) of every rank into full (rank 0 only) */
    void (*gather_rows)(real *full, const real *mine, int nx, int r0, int r1);
    void (*reduce_sum)(double *buf, long n);           /* to rank 0 */
    void (*barrier)(void);
    double (*max)(double x);                           /* largest x over all ranks, on every rank */
} WaveComm;

/* Back end = one way of advancing the field. */
typedef struct WaveBackend {
    char name[96];
    void *st;
    void (*step)(void *st, long n, real srcval);
    void (*record)(void *st, long sample);
    void (*sync)(void *st);
    void (*gather)(void *st, real *full);   /* full field on rank 0 */
    void (*traces)(void *st, real *tr);     /* nrec*nsamp on rank 0 */
    void (*report)(void *st, double seconds, long steps);
    void (*destroy)(void *st);
} WaveBackend;

int wave_cpu_backend(const WaveCase *c, const WaveComm *comm, WaveBackend *be,
                     char *err, size_t n);
/* Core CPU update of local rows [ra, rb) (local row index; local row 0 is
 * global row r0-4). gy points at the gy entry of local row 0. */
void wave_cpu_rows(int nx, real *un, const real *uc, const real *k,
                   const real *gx, const real *gy, int ra, int rb);

#ifdef WAVE_HAVE_CUDA
int wave_gpu_count(void);
int wave_gpu_backend(const WaveCase *c, const WaveComm *comm, WaveBackend *be,
                     char *err, size_t n);
#endif

#ifdef __cplusplus
}
#endif
#endif
