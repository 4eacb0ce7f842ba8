/* The fields of one grid and their index space, as every stage body reads
 * them: the C twin of fortran/flow_fields.f90 (the set of fields, NWORK,
 * NMETRIC) and fortran/grid_layout.f90 (the layout), with the parameters of
 * fortran/solver_params.f90 (include/adiflow_params.h) copied in.
 *
 * Layout (fortran/grid_layout.f90): cell (i,j,k), i in -1..ldi-2, j in
 * -1..nj+2, k in -1..nk+2, is point (i+1) + ldi*((j+1) + ldj*(k+1)) of a
 * field; component m (1-based, as in the Fortran) of a multi-field array
 * starts at (m-1)*npts.
 *
 * The stage bodies that read a view, one header per Fortran module:
 * cuda/common/adiflow_stages.h lists them. */
#ifndef ADIFLOW_FLOW_FIELDS_H
#define ADIFLOW_FLOW_FIELDS_H

#include <stddef.h>

#include "adiflow_math.h"
#include "adiflow_patches.h"

enum { ADI_NVAR = 5, ADI_NPRIM = 6, ADI_NWORK = 25, ADI_NMETRIC = 9 };
/* fields of one run: q 5, qp 6, res 5, dq 5, dtv 1, wk 25, sf 9, sc 9, vol 1 */
enum { ADI_NFIELDS = 5 + 6 + 5 + 5 + 1 + 25 + 9 + 9 + 1 };

/* Everything a stage reads: the parameters, the layout and the fields
 * (device pointers in a kernel, host pointers in the emulation). */
typedef struct adi_view {
  adi_solver_params sp;
  int ni, nj, nk;
  int ldi, ldj, ldk;
  ptrdiff_t npts;              /* ldi*ldj*ldk points per field (< 2^31) */
  double *q, *qp, *res, *dq, *dtv, *wk;
  const double *sf, *sc, *vol;
  /* implicit_precision = 'single': the ADI work fields (ADI_NWORK_ADI
   * components, wk's offsets) stored as floats, half the bytes the ADI
   * stages move; every value there is a float anyway (adi_single). NULL:
   * they live in wk, as in double mode and on the grids that keep double
   * storage (the host emulation by default, the blocks of a decomposed
   * grid, cuda/api/grid.cu). Read and written only through adi_wk_get and
   * adi_wk_put (and the merged family's sweeps, cuda/merged/adi_kernels.cu). */
  float *wkf;
  /* precondition = 'turkel': the preconditioner's eps of each interior
   * cell, written by the time step with dtv (time_step_point) from the
   * primitives that the ADI stages of the same iteration read, so the
   * kernels' ADI stages read it (adi_precond_eps) instead of forming it
   * again, from all nine metrics, in each stage of each direction. NULL
   * without preconditioning and in the host emulation, which forms it. */
  double *pce;
  /* a coarse multigrid level's FAS forcing P (5 fields), NULL otherwise:
   * ADI stage 3 then drives res + P (solver_cpu.f90's add_forcing) */
  const double *forcing;
  /* A block of a decomposed grid (build/adiflow_mpi, fortran/mpi_decomp.f90);
   * a single domain has phys all 1, off 0 and nglob = (ni, nj, nk).
   * phys[f]: face f (imin, imax, jmin, jmax, kmin, kmax) gets the physical
   * boundary fill (0: the neighbour's rows arrive by halo exchange).
   * off, nglob: global index = local + off, global sizes; ADI stage 2 puts
   * its end conditions at the global faces (the exact cross-block mode). */
  int phys[6];
  int off[3], nglob[3];
  /* A grid whose faces are split into boundary patches
   * (fortran/boundary_patches.f90, include/adiflow_patches.h): the patches
   * and the six face maps one after another; the ghost fill then goes by
   * the patch of each boundary cell (cuda/common/boundary_patches.h).
   * NULL: the box's one type per face (sp.bc). */
  const adi_bc_patch *patch;
  const int *patch_map;
  /* 1: a block of a multi-block set on one GPU (fortran/backend_blocks_gpu.f90):
   * its ghosts are filled by the caller, direction by direction over the
   * whole set (adi_gpu_fill_faces, adi_gpu_copy_halo), so the fills inside
   * an iteration, a residual and the multigrid transfers launch nothing
   * (launch_bc_kernel_dep). The walls' ghost temperatures still follow the
   * primitives there, by phys. 0: the grid fills its own ghosts. */
  int ghosts_by_caller;
} adi_view;

/* A view of the fields of one grid (host or device pointers). */
static inline adi_view adi_make_view(const adi_solver_params *sp, double *q, double *qp, double *res,
                                     double *dq, double *dtv, double *wk, const double *sf,
                                     const double *sc, const double *vol)
{
  adi_view v;
  v.sp = *sp;
  v.ni = sp->ni; v.nj = sp->nj; v.nk = sp->nk;
  v.ldi = sp->ldi; v.ldj = sp->ldj; v.ldk = sp->ldk;
  v.npts = (ptrdiff_t)sp->ldi*sp->ldj*sp->ldk;
  v.q = q; v.qp = qp; v.res = res; v.dq = dq; v.dtv = dtv; v.wk = wk;
  v.sf = sf; v.sc = sc; v.vol = vol;
  v.wkf = NULL;
  v.pce = NULL;
  v.forcing = NULL;
  for (int f = 0; f < 6; ++f) v.phys[f] = 1;
  v.off[0] = 0; v.off[1] = 0; v.off[2] = 0;
  v.nglob[0] = sp->ni; v.nglob[1] = sp->nj; v.nglob[2] = sp->nk;
  v.patch = NULL;
  v.patch_map = NULL;
  v.ghosts_by_caller = 0;
  return v;
}

/* a(i,j,k,m) of the Fortran for a field array a of the view, point p */
#define ADI_F(v, a, m, p) ((v)->a[(ptrdiff_t)((m) - 1)*(v)->npts + (p)])
/* The same element, read where no kernel that reads it this way writes the
 * field (the implicit operator's reads of qp, sc and vol: only the
 * primitives and the grid set them, in other launches): on the device
 * through the read-only data cache (__ldg); the same value. */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define ADI_RO(x) __ldg(&(x))
#else
#define ADI_RO(x) (x)
#endif
#define ADI_FR(v, a, m, p) ADI_RO(ADI_F(v, a, m, p))

/* [lo, hi] box of a stage, the Fortran's stage_bounds */
typedef struct adi_box {
  int lo[3], hi[3];
} adi_box;

ADI_HD static inline int adi_pt(const adi_view *v, int i, int j, int k)
{
  return (i + 1) + v->ldi*((j + 1) + v->ldj*(k + 1));
}

/* distance between neighbours along direction d */
ADI_HD static inline int adi_stride(const adi_view *v, int d)
{
  return d == 1 ? 1 : (d == 2 ? v->ldi : v->ldi*v->ldj);
}

ADI_HD static inline int adi_ncells(const adi_view *v, int d)
{
  return d == 1 ? v->ni : (d == 2 ? v->nj : v->nk);
}

/* Cell (i,j,k) from a position a along direction d and b, c across it
 * (the two other directions in increasing order): boundary_conditions.f90's
 * cell_index, which the line stages of every module use. */
ADI_HD static inline void cell_index(int d, int a, int b, int c, int p[3])
{
  if (d == 1) {
    p[0] = a; p[1] = b; p[2] = c;
  } else if (d == 2) {
    p[0] = b; p[1] = a; p[2] = c;
  } else {
    p[0] = b; p[1] = c; p[2] = a;
  }
}

/* ---- index boxes of the stages (the Fortran's loop ranges). Line stages:
 * lo/hi[0..1] are the (b, c) of cell_index across d, lo/hi[2] = 0. ---- */

/* the lines across d: the full cross-section, ghosts included (ghosts = 1),
 * or the interior ones (ghosts = 0) */
ADI_HD static inline adi_box adi_box_lines(const adi_view *v, int d, int ghosts)
{
  adi_box b;
  int nb = d == 1 ? v->nj : v->ni, nc = d == 3 ? v->nj : v->nk;
  if (ghosts) {
    b.lo[0] = -1; b.hi[0] = nb + 2; b.lo[1] = -1; b.hi[1] = nc + 2;
  } else {
    b.lo[0] = 1; b.hi[0] = nb; b.lo[1] = 1; b.hi[1] = nc;
  }
  b.lo[2] = 0; b.hi[2] = 0;
  return b;
}

/* every cell, ghosts included */
ADI_HD static inline adi_box adi_box_all(const adi_view *v)
{
  adi_box b;
  b.lo[0] = -1; b.lo[1] = -1; b.lo[2] = -1;
  b.hi[0] = v->ni + 2; b.hi[1] = v->nj + 2; b.hi[2] = v->nk + 2;
  return b;
}

ADI_HD static inline adi_box adi_box_interior(const adi_view *v)
{
  adi_box b;
  b.lo[0] = 1; b.lo[1] = 1; b.lo[2] = 1;
  b.hi[0] = v->ni; b.hi[1] = v->nj; b.hi[2] = v->nk;
  return b;
}

#endif
