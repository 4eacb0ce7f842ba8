/* ooc.h - out-of-core explicit solvers by the method of pyramids (seed 004,
 * Golovashkin & Kochurov): the field lives in (pinned) host memory, slabs of
 * rows go to the device, n time steps are computed per transfer on a shrinking
 * trapezoid (the overlaps are recomputed, never exchanged), and transfers
 * overlap compute on streams with two buffer slots. */
#ifndef OOC_H
#define OOC_H

#include <stddef.h>
#include "ooc_stencil.h"
#include "guard.h"     /* modules/common: exit codes, mod_fail, safe output files */

#ifdef __cplusplus
extern "C" {
#endif

#define OOC_STR 512

typedef struct OocCase {
    char eq[16];             /* heat | wave */
    int nx, ny;              /* grid points, frame included */
    long nt;
    double r;                /* heat: alpha dt / h^2 */
    double courant;          /* wave: v dt / h */
    long device_mem;         /* device memory budget in bytes (0 = 1/8 of the field, at least twice the minimum) */
    int rows;                /* slab buffer rows (0 = as many as the budget allows) */
    int n;                   /* pyramid height (0 = from the cost model) */
    char method[16];         /* all | pyramid | trivial | incore */
    char check[16];          /* reference for the identity check: auto | cpu | gpu | none */
    char mode[16];           /* auto | cpu | gpu */
    int overlap;             /* 1: streams + double buffering; 0: one stream (the paper's setting) */
    char init[16];           /* gauss | noise */
    int sched_seed;          /* CPU stand-in: 0 = ops in issue order, else random legal interleaving */
    int poison;              /* CPU stand-in: NaN-fill the device buffers before every slab */
    int threads, quiet;
    char out[OOC_STR];
    int write_final;
    int debug_break;         /* tests only: 1 = drop the wait that protects a reused buffer slot */
    /* derived */
    int eq_id, rad, levels;
    real coef;
} OocCase;

/* ---- devices ---------------------------------------------------------- */
enum { OOC_S_UP = 0, OOC_S_COMP = 1, OOC_S_DOWN = 2, OOC_NSTREAMS = 3 };
/* events: up/comp/down done, per buffer slot */
enum { OOC_E_UP = 0, OOC_E_COMP = 2, OOC_E_DOWN = 4, OOC_NEVENTS = 6 };

/* One time step of global rows [ya, yb) in a buffer whose row 0 is global row lo. */
typedef struct OocStep {
    int eq, nx, ny, lo, ya, yb;
    real coef;
    const real *a;          /* current level */
    real *b;                /* previous level (wave) -> new level */
} OocStep;

typedef struct OocDev {
    char name[64];
    void *st;
    void *(*alloc)(void *st, size_t bytes);                        /* device buffer */
    void  (*release)(void *st, void *p);
    void *(*host_alloc)(void *st, size_t bytes);                   /* field memory: pinned on CUDA */
    void  (*host_release)(void *st, void *p);
    void  (*copy)(void *st, int stream, void *dst, const void *src, size_t bytes, int to_device);
    void  (*step)(void *st, int stream, const OocStep *s);
    void  (*record)(void *st, int stream, int ev);
    void  (*wait)(void *st, int stream, int ev);
    void  (*poison)(void *st, int stream, void *p, size_t bytes);  /* may be NULL */
    void  (*sync)(void *st);
    void  (*destroy)(void *st);
    size_t free_mem;                                               /* device memory free at start */
} OocDev;

int ooc_cpu_device(OocDev *d, unsigned sched_seed, int poison, char *err, size_t n);
#ifdef OOC_HAVE_CUDA
int ooc_cuda_device(OocDev *d, char *err, size_t n);
#endif

/* ---- geometry, cost model, driver -------------------------------------- */
typedef struct OocGeom {
    int eq, nx, ny, rad, levels;
    long nt;
    int cap;                 /* buffer rows per slot (each slot: 2 buffers) */
} OocGeom;

/* measured at start-up, seconds */
typedef struct OocTau {
    double d, h;             /* per value host->device, device->host, one direction alone */
    double d2, h2;           /* the same while both directions run */
    double a;                /* per cell and step */
    double launch;           /* per step launch */
} OocTau;

typedef struct OocStats {
    double up_values, down_values, cells;
    long launches, passes, slabs;
} OocStats;

/* result rows per slab for height n, or <= 0 if n does not fit */
int    ooc_res_rows(const OocGeom *g, int n);
int    ooc_max_n(const OocGeom *g);
/* predicted seconds: *serial = sum of all transfers and computes (the paper's
 * model), *overlapped = 3-engine schedule of the streamed driver */
void   ooc_model(const OocGeom *g, int n, const OocTau *t, double *serial, double *overlapped, OocStats *st);
int    ooc_best_n(const OocGeom *g, const OocTau *t, int overlap, double *pred);
/* The paper's closed forms (1D decomposition of a 2D grid, K steps, `cells`
 * = (I-1)^2 updated points, R rows in device memory, tau_c per transferred
 * value): eq. (4) for the pyramid of height n, and the trivial method. */
double ooc_paper_eq4(double K, double cells, double R, double n, double tau_c, double tau_a);
double ooc_paper_trivial(double K, double cells, double R, double tau_c, double tau_a);
void   ooc_calibrate(OocDev *d, const OocGeom *g, real coef, OocTau *t);
/* the method of pyramids with height n (n = 1: the trivial method); u, v: host
 * fields (v: wave u^{t-1}); returns seconds */
double ooc_run(OocDev *d, const OocGeom *g, int n, int overlap, real coef, real *u, real *v, int debug_break);
/* the whole field on the device, nt steps */
double ooc_incore(OocDev *d, const OocGeom *g, real coef, real *u, real *v);

/* case.c */
void ooc_case_defaults(OocCase *c);
int  ooc_case_args(OocCase *c, int argc, char **argv, char *err, size_t n);
int  ooc_case_finalize(OocCase *c, char *err, size_t n);
void ooc_usage(const char *prog);
void ooc_init_field(const OocCase *c, real *u);
unsigned long long ooc_checksum(const real *u, int nx, int ny);   /* FNV-1a of the per-row FNV-1a hashes */

#ifdef __cplusplus
}
#endif
#endif
