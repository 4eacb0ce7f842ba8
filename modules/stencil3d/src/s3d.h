/* s3d.h - declarations of the stencil3d module (3D wave / heat solver with a
 * circular-queue GPU kernel, see README.md). */
#ifndef S3D_H
#define S3D_H

#include <stddef.h>
#include "s3_stencil.h"
#include "guard.h"     /* modules/common: exit codes, mod_fail, safe output files */

#ifdef __cplusplus
extern "C" {
#endif

#define S3_STR 512

/* Padded array: interior cells (i, j, k), 0 <= i < nx etc., plus S3_H halo
 * cells on each side, which hold the Dirichlet boundary value 0 and are never
 * written. The index of (i, j, k) relative to the origin pointer is
 * k*pxy + j*px + i; the origin lies org elements into the allocation. */
typedef struct S3Grid {
    int nx, ny, nz;
    int px;          /* row pitch in elements (a multiple of S3_ALIGN) */
    long pxy;        /* plane pitch = px * (ny + 2*S3_H) */
    long org;        /* offset of cell (0,0,0) from the start of the allocation */
    size_t total;    /* elements in the allocation */
} S3Grid;

void  s3_grid_init(S3Grid *g, int nx, int ny, int nz);
real *s3_alloc(const S3Grid *g, const char *what);           /* zeroed; dies with a message on failure */
static inline long s3_idx(const S3Grid *g, int i, int j, int k)
{ return (long)k * g->pxy + (long)j * g->px + i; }

typedef struct S3Case {
    int n, nx, ny, nz;       /* n > 0 sets a cube */
    char eq[16];             /* wave | heat */
    char stencil[16];        /* star | box */
    long nt;
    double courant;          /* wave: v dt / h */
    double fo;               /* heat: alpha dt / h^2 */
    char init[16];           /* gauss | sine | noise */
    double init_w;           /* gauss: half-width in cells (0 = n/10) */
    char mode[16];           /* cpu | emu | gpu | verify | bench */
    char kernel[16];         /* naive | regq | cq | cqa | cqas | cqt | cqts */
    char tile[16];           /* BXxBY, e.g. 32x16; "" = default of the kernel */
    int zchunk;              /* planes per thread block (0 = automatic) */
    char emu[16];            /* emulation: phase (region by region) | fiber (thread by thread) */
    int emu_seed;            /* fiber: 0 = forward thread order, else a shuffle per barrier */
    int threads;
    char out[S3_STR];
    int write_final, snap_png, quiet;
    long progress;
    int reps;                /* bench: timed steps per kernel */
    char bench_only[256];    /* bench: "" = every kernel, else a comma list of kind or kind:tile [@star|@box] */
    /* derived by s3_case_finalize */
    int eq_id, st_id, rad;
    double lap_max, limit;   /* |eigenvalue| bound of L (times h^2), stability limit */
    real k;                  /* coefficient of L u in the update */
} S3Case;

/* case.c */
void s3_case_defaults(S3Case *c);
int  s3_case_args(S3Case *c, int argc, char **argv, char *err, size_t n);
int  s3_case_finalize(S3Case *c, char *err, size_t n);
void s3_usage(const char *prog);
double s3_lap_max(int stencil);            /* max |symbol| of L h^2 over the grid frequencies */
const char *s3_eq_name(int eq);
const char *s3_stencil_name(int st);
/* bench filter: 1 if list is empty or names kind (any tile) or kind:tile, either
 * optionally followed by @star or @box (then only that stencil) */
int s3_bench_wants(const char *list, const char *kind, const char *tile, const char *stencil);
/* 1 if the kernel kind indexes a plane with 32-bit integers (cqa, cqas, cqt, cqts) */
int s3_kind_plane32(const char *kind);

/* cpu.c: CPU reference (OpenMP) and field helpers. Pointers are origin pointers. */
/* initial field; noise also fills the boundary halo (fixed boundary values) */
void s3_init_field(const S3Grid *g, const S3Case *c, real *u);
/* one step: out = update(u, pv) on every interior cell; wave: pv = u^{n-1}
 * (may equal out: in-place), heat: pv unused. */
void s3_cpu_step(const S3Grid *g, int eq, int stencil, real k, const real *u, const real *pv, real *out);
void s3_gather(const S3Grid *g, const real *u, real *dense);   /* interior -> nx*ny*nz, x fastest */
unsigned long long s3_checksum(const S3Grid *g, const real *u, double *umax);
/* number of interior cells whose bits differ; the largest |a-b| and the first such cell */
long s3_compare(const S3Grid *g, const real *a, const real *b, double *maxdiff, int *fi, int *fj, int *fk);
int  s3_write_outputs(const S3Grid *g, const S3Case *c, const real *u, unsigned long long hsh, const char *modename);

/* Kernel variants: the same table in the CUDA build and the CPU emulation. */
typedef struct S3KInfo {
    const char *kind;        /* naive | regq | cq | cqa | cqas | cqt | cqts */
    const char *tile;        /* "BXxBY" */
    int stencil, eq;
    int bx, by, nthreads, rad;
    size_t smem;             /* dynamic shared memory per block, bytes */
} S3KInfo;

/* emu.c: the GPU kernels executed block by block on the CPU (same source). */
int  s3_emu_count(void);
const S3KInfo *s3_emu_info(int i);
void s3_emu_step(int i, const S3Grid *g, real k, const real *u, const real *pv, real *out, int zchunk);
/* the z chunk (returned) and grid of blocks of an emulated launch; dies on planes too large for the kernel */
int  s3_emu_grid(const S3KInfo *ki, const S3Grid *g, int zchunk, int grid[3]);
/* emu_fiber.c: the same, one coroutine per GPU thread, each running to its next
 * barrier before the next thread runs (seed 0: forward order, else shuffled) */
void s3_emu_fiber_step(int i, const S3Grid *g, real k, const real *u, const real *pv, real *out, int zchunk, unsigned seed);
/* index of the kernel of this kind/stencil/eq/tile in a table, or -1 (tile "" = the first one) */
int  s3_find_kernel(const S3KInfo *(*info)(int), int count, const char *kind, int stencil, int eq, const char *tile);

#ifdef S3_HAVE_CUDA
int  s3_gpu_count(void);
int  s3_gpu_kernel_count(void);
const S3KInfo *s3_gpu_info(int i);
/* nt steps of kernel i on the GPU; u/um hold the initial fields and receive the results.
 * Returns seconds of the time loop (device time, events). */
double s3_gpu_run(int ki, const S3Grid *g, const S3Case *c, real *u, real *um, int verbose);
/* benchmark: copy bandwidth, then every kernel of this equation; prints "bench:" lines */
void s3_gpu_bench(const S3Grid *g, const S3Case *c);
#endif

#ifdef __cplusplus
}
#endif
#endif
