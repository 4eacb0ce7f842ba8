/* The grid handle (include/adiflow_bridge.h): adi_gpu_init checks the
 * parameters and the device, allocates every field, uploads the metrics and
 * the state and makes the kernel family's schedule; adi_gpu_iterate hands
 * an iteration to that schedule; adi_gpu_finalize frees it all.
 *
 * Environment:
 *   ADIFLOW_DEVICE=N       use GPU N (default 0; CUDA_VISIBLE_DEVICES or
 *                          HIP_VISIBLE_DEVICES applies)
 *   ADIFLOW_GPU_TIMING=1   time every kernel with events and print the
 *                          table at adi_gpu_finalize, one per grid (adi_gpu_set_timing and
 *                          adi_gpu_timing_report do the same through the API)
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.cuh"

/* a handle adi_gpu_finalize has freed is caught while its memory is not
 * reused: finalize overwrites the tag first */
int adi_gpu_check_grid(const adi_gpu_grid *g, const char *fn)
{
  if (g == NULL) {
    adi_gpu_set_error("%s called with a NULL grid handle: before adi_gpu_init, after a failed adi_gpu_init, or "
                      "after adi_gpu_finalize", fn);
    return ADI_ERR_USAGE;
  }
  if (g->magic != ADI_GRID_LIVE) {
    adi_gpu_set_error("%s called with a grid handle that is not live: already freed by adi_gpu_finalize, or not "
                      "one adi_gpu_init returned", fn);
    return ADI_ERR_USAGE;
  }
  return ADI_OK;
}

int adi_gpu_grid_block(adi_gpu_grid *g, const char *fn, const adi_block_hooks **hooks)
{
  if (hooks != NULL) *hooks = NULL;
  REQUIRE_INIT(fn);
  if (hooks != NULL) *hooks = g->block;
  return ADI_OK;
}

/* ---------------------------------------------------------------- memory */

/* Fields of npts points (alloc_bytes) start row_shift bytes into their
 * allocation: cell i = 1 of every i-line then sits on a 128-byte boundary
 * (a float field's on a 64-byte one: its rows are 64-byte multiples). The
 * leading dimension ldi is a multiple of 16 elements, and cell i = 1 is
 * element ADI_LAYOUT_GHOSTS of its line, so without the shift the first
 * interior cells of a line straddle one more 32-byte sector than they fill:
 * a warp's 32 cells of an i-line touch 9 sectors instead of 8, a row segment
 * of 8 cells (the line kernels along j and k) 3 instead of 2. */
static size_t row_shift(size_t es) { return 128 - (size_t)ADI_LAYOUT_GHOSTS*es; }

static void free_field(void *p, size_t es)
{
  if (p != NULL) cudaFree((char *)p - row_shift(es));
}

static void free_all(adi_gpu_grid *g)
{
  double **fields[] = {&g->v.q, &g->v.qp, &g->v.res, &g->v.dq, &g->v.dtv, &g->v.pce, &g->v.wk, &g->d_forcing,
                       &g->d_q0};
  double **scratch[] = {&g->d_plane, &g->d_norms, &g->d_mrows, &g->d_mplane};
  const double **cfields[] = {&g->v.sf, &g->v.sc, &g->v.vol};
  size_t a;
  for (a = 0; a < sizeof fields/sizeof fields[0]; ++a) {
    free_field(*fields[a], sizeof(double));
    *fields[a] = NULL;
  }
  for (a = 0; a < sizeof scratch/sizeof scratch[0]; ++a) {
    if (*scratch[a]) cudaFree(*scratch[a]);
    *scratch[a] = NULL;
  }
  for (a = 0; a < sizeof cfields/sizeof cfields[0]; ++a) {
    free_field((void *)*cfields[a], sizeof(double));
    *cfields[a] = NULL;
  }
  free_field(g->v.wkf, sizeof(float));
  g->v.wkf = NULL;
  if (g->d_halo) cudaFree(g->d_halo);
  g->d_halo = NULL;
  g->halo_cap = 0;
  if (g->d_patch) cudaFree(g->d_patch);
  if (g->d_patch_map) cudaFree(g->d_patch_map);
  g->d_patch = NULL;
  g->d_patch_map = NULL;
  g->v.patch = NULL;
  g->v.patch_map = NULL;
  if (g->h_norms) cudaFreeHost(g->h_norms);
  g->h_norms = NULL;
  g->v.forcing = NULL;
  if (g->mg_event_ready) cudaEventDestroy(g->mg_event);
  g->mg_event_ready = 0;
  if (g->events_ready) {
    cudaEventDestroy(g->ev_norm[0]);
    cudaEventDestroy(g->ev_norm[1]);
    g->events_ready = 0;
  }
  if (g->stream) cudaStreamDestroy(g->stream);
  g->stream = NULL;
  g->bytes = 0;
}

/* ncomp fields of npts elements of es bytes each, row_shift bytes into an
 * allocation (aligned to 256 bytes at least) that free_field frees */
static int alloc_bytes(adi_gpu_grid *g, void **p, int ncomp, size_t es)
{
  size_t n = (size_t)g->v.npts*(size_t)ncomp*es;
  char *base = NULL;
  ADI_GPU_CHECK(cudaMalloc((void **)&base, n + row_shift(es)));
  *p = base + row_shift(es);
  g->bytes += n + row_shift(es);
  ADI_GPU_CHECK(cudaMemset(*p, 0, n));   /* defined values everywhere, as allocate_fields */
  return ADI_OK;
}

static int alloc_field(adi_gpu_grid *g, double **p, int ncomp)
{
  return alloc_bytes(g, (void **)p, ncomp, sizeof(double));
}

/* n bytes of host memory to the device. A large field is pinned for the
 * copy (registered, copied by DMA, released): from pageable memory the
 * runtime stages it through a small pinned buffer on one thread, which is
 * slower than pinning it first. Where pinning fails the plain copy does it. */
static int upload_bytes(void *dst, const void *src, size_t n, const char *what)
{
  const size_t pin_from = (size_t)32 << 20;
  int pinned = 0;
  if (n >= pin_from) {
    pinned = cudaHostRegister((void *)src, n, cudaHostRegisterDefault) == cudaSuccess;
    if (!pinned) cudaGetLastError();   /* not an error: the plain copy follows */
  }
  if (cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice) != cudaSuccess) {
    cudaError_t err = cudaGetLastError();
    if (pinned) cudaHostUnregister((void *)src);
    return adi_gpu_fail(err, what, __FILE__, __LINE__);
  }
  if (pinned && cudaHostUnregister((void *)src) != cudaSuccess)
    return adi_gpu_fail(cudaGetLastError(), "releasing pinned host memory after an upload", __FILE__, __LINE__);
  return ADI_OK;
}

static int upload_field(adi_gpu_grid *g, const double **dst, const double *src, int ncomp, const char *what)
{
  double *p = NULL;
  size_t n = (size_t)g->v.npts*(size_t)ncomp*sizeof(double);
  int rc = alloc_field(g, &p, ncomp);
  *dst = p;
  if (rc != ADI_OK) return rc;
  return upload_bytes(p, src, n, what);
}

/* ---------------------------------------------------------------- patches */

/* Boundary patches as adi_gpu_init takes them (include/adiflow_patches.h),
 * checked before anything is allocated: every patch of a kind and on a face
 * the fill knows, every entry of a face's map a patch of the list on that
 * face (but on a block's faces an interface joins, phys 0), a mirroring kind only along a direction of 2 cells or more (its
 * second ghost layer mirrors cell 2: with 1 cell that would be a ghost of
 * the other side). The driver builds them so (fortran/boundary_patches.f90's
 * build_face_maps, case_config's validate_case); the check keeps a kernel
 * from reading outside the lists whoever calls. ADI_OK or ADI_ERR_USAGE. */
static int check_patches(const adi_solver_params *sp, int npatch, const adi_bc_patch *patches, const int *face_maps,
                         const int *phys)
{
  int f, n, nb, nc, id, kind;
  ptrdiff_t a, off;
  const int nd[3] = {sp->ni, sp->nj, sp->nk};
  if (npatch == 0) return ADI_OK;
  if (npatch < 0)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_init: a negative number of boundary patches (%d)", npatch);
  if (patches == NULL || face_maps == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_init: %d boundary patches but no patch list or no face maps "
                            "(a null argument)", npatch);
  for (n = 0; n < npatch; ++n)
    if (patches[n].kind < ADI_BC_WALL || patches[n].kind > ADI_BC_SUPERSONIC_OUTFLOW || patches[n].face < 1 ||
        patches[n].face > 6)
      return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_init: boundary patch %d has kind %d on face %d: not a "
                              "boundary kind (include/adiflow_params.def's BC_*) on a face 1..6", n + 1,
                              patches[n].kind, patches[n].face);
  for (f = 1; f <= 6; ++f) {
    /* a block's face that an interface joins: its map is all zero, and the
     * fill never reads it (phys 0, cuda/common/boundary_patches.h) */
    if (phys != NULL && !phys[f - 1]) continue;
    face_sizes(f, sp->ni, sp->nj, sp->nk, &nb, &nc);
    off = face_map_offset(f, sp->ni, sp->nj, sp->nk);
    for (a = 0; a < (ptrdiff_t)nb*nc; ++a) {
      id = face_maps[off + a];
      if (id < 1 || id > npatch || patches[id - 1].face != f)
        return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_init: face %d's map names patch %d at cell (%d,%d): not "
                                "a patch of the list (1..%d) on that face", f, id, (int)(a%nb) + 1,
                                (int)(a/nb) + 1, npatch);
      kind = patches[id - 1].kind;
      if (nd[(f - 1)/2] < 2 && (kind == ADI_BC_WALL || kind == ADI_BC_LID || kind == ADI_BC_SLIP ||
                                kind == ADI_BC_SYMMETRY))
        return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_init: patch %d mirrors the cells next to face %d, but the "
                                "grid has %d cell across it (a mirroring patch needs 2 at least)", id, f,
                                nd[(f - 1)/2]);
    }
  }
  return ADI_OK;
}

/* the checked patches and face maps to the device, the view pointing at them */
static int upload_patches(adi_gpu_grid *g, int npatch, const adi_bc_patch *patches, const int *face_maps)
{
  size_t pbytes = (size_t)npatch*sizeof(adi_bc_patch);
  size_t mbytes = (size_t)face_map_offset(7, g->v.ni, g->v.nj, g->v.nk)*sizeof(int);
  if (npatch == 0) return ADI_OK;
  ADI_GPU_CHECK(cudaMalloc((void **)&g->d_patch, pbytes));
  g->bytes += pbytes;
  ADI_GPU_CHECK(cudaMalloc((void **)&g->d_patch_map, mbytes));
  g->bytes += mbytes;
  ADI_GPU_CHECK(cudaMemcpy(g->d_patch, patches, pbytes, cudaMemcpyHostToDevice));
  ADI_GPU_CHECK(cudaMemcpy(g->d_patch_map, face_maps, mbytes, cudaMemcpyHostToDevice));
  g->v.patch = g->d_patch;
  g->v.patch_map = g->d_patch_map;
  return ADI_OK;
}

/* frees a grid that never reached the caller (a failed init): no message
 * of its own, the failure's stays */
static void discard(adi_gpu_grid *g)
{
  if (g == NULL) return;
  merged_finalize(g->merged);
  split_finalize(g->split);
  free_all(g);
  memset(g, 0, sizeof *g);
  free(g);
}

/* ---------------------------------------------------------------- init */

/* the boundary patches of a grid (none: npatch 0), as adi_gpu_init takes them */
typedef struct grid_patches {
  int npatch;
  const adi_bc_patch *patches;
  const int *face_maps;
} grid_patches;

static int init_grid(adi_gpu_grid **grid, const adi_block_hooks *hooks, const adi_solver_params *sp, int kernels,
                     const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                     const double *q, int coarse_level, grid_patches bp, const int *member_phys, int device);

int adi_gpu_init(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                 const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                 const double *q, int npatch, const adi_bc_patch *patches, const int *face_maps)
{
  grid_patches bp = {npatch, patches, face_maps};
  return init_grid(grid, NULL, sp, kernels, settings, sf, sc, vol, q, 0, bp, NULL, -1);
}

int adi_gpu_init_level(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                       const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                       const double *q, int npatch, const adi_bc_patch *patches, const int *face_maps)
{
  grid_patches bp = {npatch, patches, face_maps};
  return init_grid(grid, NULL, sp, kernels, settings, sf, sc, vol, q, 1, bp, NULL, -1);
}

/* a block of a decomposed grid: the box's boundary types (the GPU blocks of
 * build/adiflow_mpi take no patches) */
int adi_gpu_init_block(adi_gpu_grid **grid, const adi_block_hooks *hooks, const adi_solver_params *sp,
                       int kernels, const adi_gpu_settings *settings, const double *sf, const double *sc,
                       const double *vol, const double *q, int coarse_level)
{
  grid_patches none = {0, NULL, NULL};
  return init_grid(grid, hooks, sp, kernels, settings, sf, sc, vol, q, coarse_level, none, NULL, -1);
}

/* a coarse level of a decomposed grid whole on the GPU of a rank (the box's
 * boundary types, device the rank's): adi_gpu_init_level's grid */
int adi_gpu_init_whole_level(adi_gpu_grid **grid, int device, const adi_solver_params *sp, int kernels,
                             const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                             const double *q)
{
  grid_patches none = {0, NULL, NULL};
  if (device < 0) return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_init_whole_level: device %d", device);
  return init_grid(grid, NULL, sp, kernels, settings, sf, sc, vol, q, 1, none, NULL, device);
}

/* a block of a multi-block set on one GPU: its boundary patches, which of
 * its faces they fill (phys), and its ghosts filled by the caller */
int adi_gpu_init_member(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                        const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                        const double *q, int npatch, const adi_bc_patch *patches, const int *face_maps,
                        const int phys[6], int coarse_level)
{
  grid_patches bp = {npatch, patches, face_maps};
  int f;
  if (phys == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_init_member: a null phys argument");
  for (f = 0; f < 6; ++f)
    if (phys[f] != 0 && phys[f] != 1)
      return adi_gpu_fail_msg(ADI_ERR_USAGE, "adi_gpu_init_member: phys[%d] is %d; 1 (the block's own boundary) "
                              "or 0 (an interface) allowed", f, phys[f]);
  return init_grid(grid, NULL, sp, kernels, settings, sf, sc, vol, q, coarse_level != 0, bp, phys, -1);
}

/* coarse_level: also the forcing and q0 fields; bp: the boundary patches;
 * member_phys: a block of a set (adi_gpu_init_member), NULL otherwise. All
 * before the schedule is made: the merged family's graph captures the
 * view, forcing, patches and flags included */
static int init_grid(adi_gpu_grid **grid, const adi_block_hooks *hooks, const adi_solver_params *sp, int kernels,
                     const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                     const double *q, int coarse_level, grid_patches bp, const int *member_phys, int device)
{
  int dev, rc, ldi_expected, float_wk, precond;
  size_t free_b = 0, total_b = 0, need;
  long long npts;
  struct cudaDeviceProp prop;
  adi_gpu_grid *g;

  if (grid == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_init: no place for the grid handle (a null first argument)");
  *grid = NULL;
  if (sp == NULL || sf == NULL || sc == NULL || vol == NULL || q == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_init: a null argument");
  if (kernels != ADI_KERNELS_SPLIT && kernels != ADI_KERNELS_MERGED) {
    adi_gpu_set_error("adi_gpu_init: unknown kernel family %d", kernels);
    return ADI_ERR_USAGE;
  }
  ldi_expected = adi_layout_ldi(sp->ni);
  if (sp->ni < 1 || sp->nj < 1 || sp->nk < 1 || sp->ldi != ldi_expected ||
      sp->ldj != sp->nj + 2*ADI_LAYOUT_GHOSTS || sp->ldk != sp->nk + 2*ADI_LAYOUT_GHOSTS ||
      (sp->order != 1 && sp->order != 2)) {
    adi_gpu_set_error("adi_gpu_init: parameters do not describe the layout of fortran/grid_layout.f90 "
                      "(ni %d nj %d nk %d, ldi %d ldj %d ldk %d, order %d)", sp->ni, sp->nj, sp->nk, sp->ldi,
                      sp->ldj, sp->ldk, sp->order);
    return ADI_ERR_USAGE;
  }
  if ((rc = check_patches(sp, bp.npatch, bp.patches, bp.face_maps, member_phys)) != ADI_OK) return rc;
  npts = (long long)sp->ldi*sp->ldj*sp->ldk;
  if (npts > (long long)INT_MAX) {
    adi_gpu_set_error("grid %d x %d x %d has %lld points per field with ghosts and padding; the GPU backend "
                      "indexes a field with 32-bit integers (at most %d): use a smaller grid",
                      sp->ni, sp->nj, sp->nk, npts, INT_MAX);
    return ADI_ERR_CONFIG;
  }

  /* block mode: one GPU per rank, chosen by the driver (also for the whole
   * coarse levels of its grid: device) */
  dev = hooks != NULL ? hooks->device : device >= 0 ? device : adi_settings_device(settings);
  rc = adi_gpu_select_device(dev, sp, &prop);
  if (rc != ADI_OK) return rc;

  /* implicit_precision = 'single': the ADI work fields as floats too (the
   * view's wkf; the flux stages keep using wk). Not on a block of a
   * decomposed grid: its halo exchanges and pipelined sweeps
   * (cuda/multi/block_driver.cu) move those fields as doubles in wk. */
  float_wk = sp->implicit_single == ADI_IMPLICIT_SINGLE && hooks == NULL;
  /* low-Mach preconditioning: the time step's eps for the ADI stages (the
   * view's pce) */
  precond = sp->precondition == ADI_PRECOND_TURKEL;

  /* memory: every field of the host set but the cell centres, plus scratch */
  need = (size_t)npts*(ADI_NFIELDS + (coarse_level ? 2*ADI_NVAR : 0) + precond)*sizeof(double)
       + (float_wk ? (size_t)npts*ADI_NWORK_ADI*sizeof(float) : 0)
       + (size_t)(5*sp->nk + 5)*sizeof(double)
       + (size_t)(sp->nj + 1)*(size_t)sp->nk*sizeof(double)
       + (bp.npatch > 0 ? (size_t)bp.npatch*sizeof(adi_bc_patch)
                          + (size_t)face_map_offset(7, sp->ni, sp->nj, sp->nk)*sizeof(int) : 0);
  ADI_GPU_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (need + ((size_t)64 << 20) > free_b) {
    adi_gpu_set_error("grid %d x %d x %d needs %.2f GiB of GPU memory (%d fields of %lld points%s), but GPU %d "
                      "(%s) has %.2f GiB free of %.2f GiB: use a smaller grid, a GPU with more memory, "
                      "or backend = 'cpu'", sp->ni, sp->nj, sp->nk, (double)need/GIB, (int)ADI_NFIELDS + precond, npts,
                      float_wk ? ", and the ADI work fields in single precision" : "", adi_device_label(dev), prop.name,
                      (double)free_b/GIB, (double)total_b/GIB);
    return ADI_ERR_MEMORY;
  }

  g = (adi_gpu_grid *)calloc(1, sizeof *g);
  if (g == NULL)
    return adi_gpu_fail_msg(ADI_ERR_MEMORY, "out of host memory for the state of grid %d x %d x %d (%zu bytes)",
                            sp->ni, sp->nj, sp->nk, sizeof *g);
  g->block = hooks;
  g->device = dev;
  g->v.sp = *sp;
  g->v.ni = sp->ni; g->v.nj = sp->nj; g->v.nk = sp->nk;
  g->v.ldi = sp->ldi; g->v.ldj = sp->ldj; g->v.ldk = sp->ldk;
  g->v.npts = (ptrdiff_t)npts;
  {
    int f;
    for (f = 0; f < 6; ++f) g->v.phys[f] = hooks ? hooks->phys[f] : (member_phys ? member_phys[f] : 1);
    g->v.ghosts_by_caller = member_phys != NULL;
    for (f = 0; f < 3; ++f) {
      g->v.off[f] = hooks ? hooks->off[f] : 0;
      g->v.nglob[f] = hooks ? hooks->nglob[f] : (f == 0 ? sp->ni : (f == 1 ? sp->nj : sp->nk));
    }
  }

  rc = ADI_OK;
  /* a blocking stream: it orders itself after the synchronous copies and
   * memsets of the legacy default stream (init, upload) */
  if (cudaStreamCreateWithFlags(&g->stream, cudaStreamDefault) != cudaSuccess) {
    rc = adi_gpu_fail(cudaGetLastError(), "creating the " ADI_GPU_API_NAME " stream", __FILE__, __LINE__);
    g->stream = NULL;
  }
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.q, ADI_NVAR);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.qp, ADI_NPRIM);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.res, ADI_NVAR);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.dq, ADI_NVAR);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.dtv, 1);
  if (rc == ADI_OK && precond) rc = alloc_field(g, &g->v.pce, 1);
  if (rc == ADI_OK) rc = alloc_field(g, &g->v.wk, ADI_NWORK);
  if (rc == ADI_OK && float_wk) rc = alloc_bytes(g, (void **)&g->v.wkf, ADI_NWORK_ADI, sizeof(float));
  if (rc == ADI_OK) rc = upload_field(g, &g->v.sf, sf, ADI_NMETRIC, "uploading the face metrics sf");
  if (rc == ADI_OK) rc = upload_field(g, &g->v.sc, sc, ADI_NMETRIC, "uploading the cell metrics sc");
  if (rc == ADI_OK) rc = upload_field(g, &g->v.vol, vol, 1, "uploading the cell volumes");
  if (rc == ADI_OK) rc = upload_bytes(g->v.q, q, (size_t)npts*ADI_NVAR*sizeof(double), "uploading the state q");
  if (rc == ADI_OK && coarse_level) rc = alloc_field(g, &g->d_forcing, ADI_NVAR);
  if (rc == ADI_OK && coarse_level) rc = alloc_field(g, &g->d_q0, ADI_NVAR);
  if (rc == ADI_OK && coarse_level) g->v.forcing = g->d_forcing;
  if (rc == ADI_OK) rc = upload_patches(g, bp.npatch, bp.patches, bp.face_maps);
  if (rc == ADI_OK && cudaMalloc((void **)&g->d_plane, (size_t)(5*sp->nk)*sizeof(double)) != cudaSuccess)
    rc = adi_gpu_fail(cudaGetLastError(), ADI_GPU_API_PREFIX "Malloc of the residual-norm planes", __FILE__, __LINE__);
  /* mass_fix scratch, small (nj*nk + nk doubles): held by every run, so a
   * mass_fix run cannot fail for memory half way */
  if (rc == ADI_OK && cudaMalloc((void **)&g->d_mrows, (size_t)sp->nj*(size_t)sp->nk*sizeof(double)) != cudaSuccess)
    rc = adi_gpu_fail(cudaGetLastError(), ADI_GPU_API_PREFIX "Malloc of the mass row sums", __FILE__, __LINE__);
  if (rc == ADI_OK && cudaMalloc((void **)&g->d_mplane, (size_t)sp->nk*sizeof(double)) != cudaSuccess)
    rc = adi_gpu_fail(cudaGetLastError(), ADI_GPU_API_PREFIX "Malloc of the mass plane sums", __FILE__, __LINE__);
  if (rc == ADI_OK && cudaMalloc((void **)&g->d_norms, 5*sizeof(double)) != cudaSuccess)
    rc = adi_gpu_fail(cudaGetLastError(), ADI_GPU_API_PREFIX "Malloc of the residual norms", __FILE__, __LINE__);
  if (rc == ADI_OK && cudaMallocHost((void **)&g->h_norms, 5*sizeof(double)) != cudaSuccess)
    rc = adi_gpu_fail(cudaGetLastError(), "allocating pinned host memory for the residual norms", __FILE__, __LINE__);
  if (rc == ADI_OK && cudaMemsetAsync(g->d_norms, 0, 5*sizeof(double), g->stream) != cudaSuccess)
    rc = adi_gpu_fail(cudaGetLastError(), "clearing the residual norms", __FILE__, __LINE__);
  if (rc != ADI_OK) {
    if (rc == ADI_ERR_MEMORY) {
      char first[ADI_ERRLEN];
      adi_gpu_error_message(first, (int)sizeof first);
      adi_gpu_set_error("grid %d x %d x %d needs %.2f GiB of GPU memory; allocating it on GPU %d (%s) failed: %s",
                        sp->ni, sp->nj, sp->nk, (double)need/GIB, adi_device_label(dev), prop.name, first);
    }
    discard(g);
    return rc;
  }
  if (rc == ADI_OK && cudaDeviceSynchronize() != cudaSuccess)
    rc = adi_gpu_fail(cudaGetLastError(), "finishing the uploads (" ADI_GPU_API_PREFIX "DeviceSynchronize)", __FILE__,
                      __LINE__);
  if (rc != ADI_OK) {
    discard(g);
    return rc;
  }
  g->kernels = kernels;
  if (kernels == ADI_KERNELS_MERGED)
    rc = merged_init(&g->merged, &g->v, g->stream, q, hooks, settings);
  else
    rc = split_init(&g->split, &g->v, g->stream, hooks);
  if (rc != ADI_OK) {
    discard(g);
    return rc;
  }
  g->magic = ADI_GRID_LIVE;

  if (adi_settings_flag("ADIFLOW_GPU_TIMING", settings ? settings->timing : -1, 0)) {
    g->timing_env = 1;
    rc = adi_gpu_set_timing(g, 1);
    if (rc != ADI_OK) {
      discard(g);
      return rc;
    }
  }
  adi_gpu_set_error("%s", "");
  *grid = g;
  return ADI_OK;
}


/* ---------------------------------------------------------------- iterate */

/* One iteration, solver_cpu's cpu_iteration, by the grid's kernel family.
 * Asynchronous; failures inside kernels surface at the next synchronising
 * call (norms, download, finalize). */
int adi_gpu_iterate(adi_gpu_grid *g, double cfl)
{
  int rc;
  REQUIRE_INIT("adi_gpu_iterate");
  if (g->kernels == ADI_KERNELS_MERGED)
    rc = merged_iterate(g->merged, cfl, g->timing);
  else
    rc = split_iterate(g->split, cfl, g->timing);
  if (rc != ADI_OK) return rc;
  if (g->timing) g->timed_iterations++;
  g->iterations++;
  return ADI_OK;
}

/* ---------------------------------------------------------------- end */

int adi_gpu_finalize(adi_gpu_grid *g)
{
  cudaError_t err;
  int rc = ADI_OK;
  const adi_block_hooks *block;
  if (g == NULL) return ADI_OK;
  REQUIRE_INIT("adi_gpu_finalize");
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) rc = adi_gpu_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  if (rc == ADI_OK && g->timing_env && g->timed_iterations > 0) {
    char report[8192];
    adi_gpu_timing_report(g, report, (int)sizeof report);
    printf("%s", report);
    fflush(stdout);
  }
  block = g->block;
  g->magic = ADI_GRID_DEAD;        /* a later call with this handle is refused (while the memory is not reused) */
  merged_finalize(g->merged);
  g->merged = NULL;
  split_finalize(g->split);
  g->split = NULL;
  free_all(g);
  free(g);
  /* block mode: the halo buffers, streams and communicators last, as before */
  if (block != NULL && block->destroy != NULL) block->destroy(block->ctx);
  return rc;
}
