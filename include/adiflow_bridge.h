/* The C bridge between the Fortran driver and the GPU backend.
 *
 * Fortran declares the same functions in fortran/gpu_bridge.f90 (bind(c))
 * and keeps a grid's handle in type(gpu_grid_t).
 * Every call returns ADI_OK (0) or an ADI_ERR_* code; the text of the last
 * failure (where it happened, which CUDA or HIP error, what the user can do) is
 * available from adi_gpu_error_message. The CPU-only build links
 * cuda/api/bridge_stub.c, whose adi_gpu_available() says no device.
 *
 * Fields cross the bridge in the shared layout of fortran/grid_layout.f90:
 * npts = ldi*ldj*ldk doubles per field, variable-major, no copies or
 * reordering on either side.
 */
#ifndef ADIFLOW_BRIDGE_H
#define ADIFLOW_BRIDGE_H

#include <stdint.h>
#include "adiflow_params.h"
#include "adiflow_gpu_settings.h"
#include "adiflow_patches.h"

#ifdef __cplusplus
extern "C" {
#endif

enum adi_status {
  ADI_OK = 0,
  ADI_ERR_NO_DEVICE = 1,   /* no usable GPU, or backend not built */
  ADI_ERR_MEMORY = 2,      /* the grid does not fit in device memory */
  ADI_ERR_CUDA = 3,        /* a GPU runtime call (CUDA or HIP) or kernel launch failed */
  ADI_ERR_USAGE = 4,       /* called in the wrong order or with bad arguments */
  ADI_ERR_CONFIG = 5       /* device limits cannot hold the chosen configuration */
};

enum adi_kernel_family {
#define ADI_KERNEL_FAMILY(name, value) ADI_KERNELS_##name = value,
#include "adiflow_kernel_families.def"
#undef ADI_KERNEL_FAMILY
};

/* The field layout of fortran/grid_layout.f90 (its own copy of this rule
 * is the reference): 2 ghost layers on each side, rows padded to a
 * multiple of 16 doubles (128 bytes), so that the same cell of every row
 * has the same alignment (on the device, the first interior cell is on a
 * 128-byte boundary: cuda/api/grid.cu).
 * adi_gpu_init refuses parameters whose ldi, ldj, ldk disagree. */
enum { ADI_LAYOUT_GHOSTS = 2, ADI_LAYOUT_ALIGN = 16 };

static inline int adi_layout_ldi(int ni)
{
  return ((ni + 2*ADI_LAYOUT_GHOSTS + ADI_LAYOUT_ALIGN - 1)/ADI_LAYOUT_ALIGN)*ADI_LAYOUT_ALIGN;
}

/* sp->ldi, ldj, ldk from sp->ni, nj, nk */
static inline void adi_layout_set(adi_solver_params *sp)
{
  sp->ldi = adi_layout_ldi(sp->ni);
  sp->ldj = sp->nj + 2*ADI_LAYOUT_GHOSTS;
  sp->ldk = sp->nk + 2*ADI_LAYOUT_GHOSTS;
}

/* settings: the case file's &gpu group (include/adiflow_gpu_settings.h);
 * NULL everywhere means the defaults (and the environment variables). */

/* 1 when a GPU backend is compiled in and the device chosen is usable, else 0. */
int adi_gpu_available(const adi_gpu_settings *settings);

/* For a process that uses one GPU, before its first GPU call: where the
 * user has not set CUDA_VISIBLE_DEVICES, set it to the chosen GPU, so that
 * the driver starts that GPU alone (on a host with several it otherwise
 * starts them all, 0.15-0.2 s more on a 2-GPU host). The chosen GPU is then
 * device 0 of the process; messages still name it by its number on the
 * host. Nothing on a HIP build (its variables are not checked there), in a
 * build without a GPU backend, or where the variable is set. */
void adi_gpu_narrow_visible(const adi_gpu_settings *settings);

/* The device looked for and its context made on a thread of its own while
 * the host goes on setting up (making the grid, its metrics and levels): a
 * run's first GPU calls otherwise wait for them (the driver's start alone
 * takes a tenth of a second or more). adi_gpu_warm_start starts it (*warm:
 * its handle, NULL where nothing was started); adi_gpu_warm_usable waits
 * for the look alone and answers as adi_gpu_available does (with its
 * reason for adi_gpu_error_message); adi_gpu_warm_finish waits for the
 * thread, frees the handle and returns the context's error, if any (none
 * where the device was not usable: no context was made). A process that
 * exits before the finish (bad input found later) waits for the thread
 * first. */
typedef struct adi_gpu_warm adi_gpu_warm;
int adi_gpu_warm_start(const adi_gpu_settings *settings, adi_gpu_warm **warm);
int adi_gpu_warm_usable(adi_gpu_warm *warm, const adi_gpu_settings *settings);
int adi_gpu_warm_finish(adi_gpu_warm *warm);

/* Describe the device chosen (name, memory) into buf. */
int adi_gpu_device_info(const adi_gpu_settings *settings, char *buf, int buflen);

/* Bad input in the settings (an unknown merged step, a tuning table that
 * cannot be read): ADI_ERR_USAGE with the key, the value and what is
 * allowed in msg. Allocates nothing; call it before adi_gpu_init. */
int adi_gpu_check_settings(const adi_gpu_settings *settings, char *msg, int msglen);

/* One grid on the device: its fields, stream, kernel schedule (split or
 * merged, with the merged family's block shapes, graph and events) and,
 * in block mode (include/adiflow_block.h), its halo and sweep state. Opaque;
 * a process may hold several (multigrid levels, grids of different sizes),
 * each from its own adi_gpu_init and freed by its own adi_gpu_finalize.
 * Calls on one grid run in that grid's stream, in call order. */
typedef struct adi_gpu_grid adi_gpu_grid;

/* Allocate device fields, upload metrics and the state q (5 fields); on
 * success *grid is the new grid's handle, on failure NULL.
 * Boundary patches (case key patch_file; include/adiflow_patches.h): a grid
 * whose faces are split into patches passes its npatch patches and the six
 * face maps one after another (face_maps), and every ghost fill of the grid
 * goes by them; they are checked (kinds, faces, every map entry a patch of
 * the list on that face) before anything is allocated. npatch = 0: the
 * box's one boundary type per face (sp->bc); patches and face_maps are not
 * read then (NULL is fine). */
int adi_gpu_init(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                 const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                 const double *q, int npatch, const adi_bc_patch *patches, const int *face_maps);

/* Every call below takes the handle adi_gpu_init returned; a NULL handle,
 * or one that adi_gpu_finalize has freed (as long as its memory has not been
 * reused), gives ADI_ERR_USAGE with a message. */

/* One iteration (BC, primitives, time step, residual, LU-ADI) on the device. */
int adi_gpu_iterate(adi_gpu_grid *grid, double cfl);

/* RMS residual per unit volume of the last iteration, 5 components. */
int adi_gpu_residual_norms(adi_gpu_grid *grid, double norms[5]);

/* plane[(m-1) + 5*(k-1)] += sum over the k-plane of (res_m/vol)^2, j then
 * i in order, continuing from the values passed in (plane: 5*nk doubles on
 * the host). The building block of residual norms over a decomposed grid. */
int adi_gpu_residual_plane_sums(adi_gpu_grid *grid, double *plane);

/* mass_fix (fortran/mass_constraint.f90), one call each per iteration:
 * plane[k-1] += the sum of vol*rho over k-plane k, in the Fortran's order
 * (row sums over i, then the rows in j order onto the value passed in;
 * plane: nk doubles on the host, zeros or the running sums of the j ranks
 * below). Synchronises. The host adds the planes in k order and computes
 * s = M0/M for adi_gpu_scale_state, which multiplies the five conservative
 * variables of every interior cell by s (asynchronous, in stream order). */
int adi_gpu_mass_plane_sums(adi_gpu_grid *grid, double *plane);
int adi_gpu_scale_state(adi_gpu_grid *grid, double s);

/* ---- FAS multigrid (fortran/multigrid_*.f90 is the reference; the cycle
 * runs in the driver, these are its level operations) ----
 * A coarse level: adi_gpu_init's grid plus its forcing P and the
 * restricted state q0 (5 fields each); its iterations (adi_gpu_iterate)
 * drive R(q) + P to zero. With boundary patches each level passes its own
 * (fortran/boundary_patches.f90's coarsen_patches), which its fills use. */
int adi_gpu_init_level(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                       const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                       const double *q, int npatch, const adi_bc_patch *patches, const int *face_maps);
/* The iteration's steps up to the residual (boundary fill, primitives,
 * time step, fluxes), no update; single-domain grids. */
int adi_gpu_residual(adi_gpu_grid *grid, double cfl);
/* From fine (after adi_gpu_residual) to coarse (an adi_gpu_init_level grid
 * of the fine sizes divided by ratio[d], 1 or 2): coarse q = volume-weighted
 * mean of the children, boundary-filled and kept as q0; coarse P = sum of
 * the children's residuals (plus the fine level's own P on a coarse fine
 * level). */
int adi_gpu_mg_restrict(adi_gpu_grid *fine, adi_gpu_grid *coarse, const int ratio[3]);
/* P = P - R(q) on a coarse level, after adi_gpu_residual of its restricted state. */
int adi_gpu_mg_forcing(adi_gpu_grid *coarse);
/* coarse boundary fill, dq = q - q0, fine q += trilinear interpolation of dq. */
int adi_gpu_mg_prolong(adi_gpu_grid *fine, adi_gpu_grid *coarse, const int ratio[3]);

/* ---- Multi-block sets on one GPU (fortran/backend_blocks_gpu.f90 is the
 * driver; fortran/backend_blocks.f90 the CPU reference) ----
 * A block of a set of blocks joined by 1-to-1 interfaces: adi_gpu_init's
 * grid (coarse_level 0) or adi_gpu_init_level's (1), whose faces with
 * phys[f] = 1 (imin, imax, jmin, jmax, kmin, kmax) take its boundary rules
 * and with 0 are joined to a block. Its iterations, residuals and
 * multigrid transfers fill none of its ghosts (and adi_gpu_mg_restrict
 * keeps no q0): the caller fills them, before each of those calls, over
 * the whole set direction by direction (fortran/backend_blocks.f90's
 * fill_set) with the two calls below, and keeps q0 after a restriction's
 * fill with adi_gpu_mg_keep_q0. */
int adi_gpu_init_member(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                        const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                        const double *q, int npatch, const adi_bc_patch *patches, const int *face_maps,
                        const int phys[6], int coarse_level);
/* The ghosts of the block's own faces of direction d (1..3) by its rules. */
int adi_gpu_fill_faces(adi_gpu_grid *grid, int d);
/* Cells lo..hi (the solver's numbering, ghosts -1, 0, n+1, n+2) of dst
 * take the cells of src that fortran/block_halos.f90's map gives:
 * from_beg, to_beg the interface's beginnings on dst's side and on src's,
 * t the transform from dst's side to src's (a signed permutation of 1, 2,
 * 3). Both blocks of one set on one device (dst == src for a block joined
 * to itself); every cell read or written inside its block. */
int adi_gpu_copy_halo(adi_gpu_grid *dst, adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3],
                      const int to_beg[3], const int t[3]);
/* The copy in two halves, for blocks on two processes (through host
 * memory, the caller moving buf): adi_gpu_pack_halo writes into buf the
 * cells of src that cells lo..hi of the receiving block take (the box in
 * its order, i fastest, five values a cell), adi_gpu_unpack_halo writes
 * buf into cells lo..hi of dst. Both return once buf is written or read. */
int adi_gpu_pack_halo(adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3], const int to_beg[3],
                      const int t[3], double *buf);
int adi_gpu_unpack_halo(adi_gpu_grid *dst, const int lo[3], const int hi[3], const double *buf);
/* q0 = q on a coarse level of a set (after the set's fill of it). */
int adi_gpu_mg_keep_q0(adi_gpu_grid *coarse);

/* Copy the device state q (5 fields, ghosts included) to the host / back. */
int adi_gpu_download_state(adi_gpu_grid *grid, double *q);
int adi_gpu_upload_state(adi_gpu_grid *grid, const double *q);
/* The residual res of the last adi_gpu_residual (5 fields, its forcing not
 * added) and a coarse level's forcing P (5 fields; ADI_ERR_USAGE on a grid
 * of adi_gpu_init, which has none) to the host: the host adds them as the
 * CPU's add_forcing does (adiflow_mpi's levels gathered onto rank 0). */
int adi_gpu_download_residual(adi_gpu_grid *grid, double *res);
int adi_gpu_download_forcing(adi_gpu_grid *grid, double *forcing);

/* Per-kernel-family timing: enable collection, then read totals (ms). */
int adi_gpu_set_timing(adi_gpu_grid *grid, int enabled);
int adi_gpu_timing_report(adi_gpu_grid *grid, char *buf, int buflen);

/* Frees everything of the grid (device fields, stream, events, the merged
 * schedule's state and graph, the block state); the handle is invalid
 * afterwards. ADI_OK for NULL. Prints the timing table first under
 * ADIFLOW_GPU_TIMING. */
int adi_gpu_finalize(adi_gpu_grid *grid);

/* The end of a run's device work, while the host writes its outputs: the
 * n grids (each freed as adi_gpu_finalize frees it, in the order given)
 * and then the device's context (its reset, a twentieth of a second and
 * more) released on a thread of their own. adi_gpu_release_start starts it
 * (*release: its handle; NULL where nothing was started: with
 * ADIFLOW_GPU_TIMING's tables to print or a block grid, and the caller
 * then finalizes the grids itself); from then on the grids are the
 * thread's and no GPU call may follow. adi_gpu_release_finish waits for it,
 * frees the handle and returns the first failure, if any. A process that
 * exits before the finish waits for the thread first. */
typedef struct adi_gpu_release adi_gpu_release;
int adi_gpu_release_start(adi_gpu_grid **grids, int n, adi_gpu_release **release);
int adi_gpu_release_finish(adi_gpu_release *release);

/* Text of the last failure of any call made by this thread (like errno:
 * per thread, not per grid); empty when none. */
void adi_gpu_error_message(char *buf, int buflen);

#ifdef __cplusplus
}
#endif
#endif
