/* Boundary patches at one ghost cell: the loop bodies of
 * fortran/boundary_conditions.f90's fill_patch_direction and
 * apply_patch_wall_temperature, for a grid whose view carries patches
 * (adi_view's patch and patch_map; include/adiflow_patches.h). The same
 * ghost and mirror cells, the same kind and normal for the ghost rows
 * across the face (those of the nearest boundary cell), the same normal
 * (the face's area vector over its length, reversed on side 1, in the
 * Fortran's order of operations) and the same states (wall_ghost_state and
 * prim_to_cons of adiflow_math.h, boundary_states.h), so the strict build
 * fills the very bits of the CPU.
 *
 * As in the box's fill (boundary_conditions.h) a ghost reads only cells
 * 1..n along d (its mirror, its periodic image, or the interior cell next
 * to the face) and writes only itself, so the four ghosts of a line are
 * independent: the GPU fills them in parallel (cuda/common/bc_kernels.cu).
 * Directions are filled one after another, d = 1, 2, 3, by the launches,
 * so that edge and corner ghosts get the CPU's values. */
#ifndef ADIFLOW_BOUNDARY_PATCHES_H
#define ADIFLOW_BOUNDARY_PATCHES_H

#include "flow_fields.h"
#include "boundary_conditions.h"
#include "boundary_states.h"

/* Cell counts of a face's two directions (cell_index order):
 * boundary_patches.f90's face_sizes. */
ADI_HD static inline void face_sizes(int face, int ni, int nj, int nk, int *nb, int *nc)
{
  switch ((face + 1)/2) {
  case 1: *nb = nj; *nc = nk; break;
  case 2: *nb = ni; *nc = nk; break;
  default: *nb = ni; *nc = nj; break;
  }
}

/* Where face `face`'s map starts in a grid's patch_map: after the maps of
 * the faces before it; face 7 gives the length of all six. */
ADI_HD static inline ptrdiff_t face_map_offset(int face, int ni, int nj, int nk)
{
  ptrdiff_t off = 0;
  int f, nb, nc;
  for (f = 1; f < face; ++f) {
    face_sizes(f, ni, nj, nk, &nb, &nc);
    off += (ptrdiff_t)nb*nc;
  }
  return off;
}

/* ps%face(face)%id(b, c): the patch (1-based) of boundary cell (b, c) of the face */
ADI_HD static inline int patch_id(const adi_view *v, int face, int b, int c)
{
  int nb, nc;
  face_sizes(face, v->ni, v->nj, v->nk, &nb, &nc);
  return v->patch_map[face_map_offset(face, v->ni, v->nj, v->nk) + (b - 1) + (ptrdiff_t)nb*(c - 1)];
}

/* the boundary cell whose patch a ghost row takes: b clamped to 1..nb */
ADI_HD static inline int patch_row(int b, int nb)
{
  return b < 1 ? 1 : (b > nb ? nb : b);
}

/* ---- the state of ghost layer `layer` (1, 2) on side `side` (1: below
 * cell 1, 2: above cell n) of the line (b, c) across direction d, by the
 * kind of its patch ---- */
ADI_HD static inline void fill_patch_ghost(const adi_view *v, int d, int b, int c, int side, int layer)
{
  int face = 2*d - 2 + side, n, nb, nc, bb, cc, id, kind, g, m, pg[3], pm[3], pf[3], ip, comp;
  double qm[5], qg[5], s[3], rs, nx, ny, nz;
  const double *pv;
  if (!v->phys[face - 1]) return;   /* filled by the halo exchange */
  n = adi_ncells(v, d);
  face_sizes(face, v->ni, v->nj, v->nk, &nb, &nc);
  bb = patch_row(b, nb);
  cc = patch_row(c, nc);
  id = patch_id(v, face, bb, cc);
  kind = v->patch[id - 1].kind;
  pv = v->patch[id - 1].v;
  /* the boundary face is the low face of cell 1 (side 1) or of cell n+1 (side 2);
   * its area vector points towards increasing index, so out of the domain on side 2 */
  cell_index(d, side == 1 ? 1 : n + 1, bb, cc, pf);
  ip = adi_pt(v, pf[0], pf[1], pf[2]);
  for (comp = 0; comp < 3; ++comp) s[comp] = ADI_F(v, sf, 3*d - 2 + comp, ip);
  rs = 1.0/sqrt(s[0]*s[0] + s[1]*s[1] + s[2]*s[2]);
  if (side == 1) rs = -rs;
  nx = s[0]*rs;
  ny = s[1]*rs;
  nz = s[2]*rs;
  ghost_and_mirror(n, side, layer, &g, &m);
  if (kind == ADI_BC_PERIODIC) m = 1 + adi_modulo(g - 1, n);
  cell_index(d, g, b, c, pg);
  if (kind == ADI_BC_PERIODIC || kind == ADI_BC_WALL || kind == ADI_BC_LID || kind == ADI_BC_SLIP ||
      kind == ADI_BC_SYMMETRY) {
    cell_index(d, m, b, c, pm);
  } else {
    cell_index(d, side == 1 ? 1 : n, b, c, pm);
  }
  ip = adi_pt(v, pm[0], pm[1], pm[2]);
  for (comp = 1; comp <= 5; ++comp) qm[comp - 1] = ADI_F(v, q, comp, ip);
  switch (kind) {
  case ADI_BC_PERIODIC:
  case ADI_BC_SUPERSONIC_OUTFLOW:
    for (comp = 0; comp < 5; ++comp) qg[comp] = qm[comp];
    break;
  case ADI_BC_WALL:
    wall_ghost_state(&v->sp, 0.0, 0.0, 0.0, qm, qg);
    break;
  case ADI_BC_LID:
    wall_ghost_state(&v->sp, pv[0], pv[1], pv[2], qm, qg);
    break;
  case ADI_BC_SLIP:
  case ADI_BC_SYMMETRY:
    slip_ghost_state(nx, ny, nz, qm, qg);
    break;
  case ADI_BC_FARFIELD:
    farfield_ghost_state(&v->sp, pv[0], pv[1], pv[2], pv[3], pv[4], nx, ny, nz, qm, qg);
    break;
  case ADI_BC_INFLOW:
    subsonic_inflow_ghost_state(&v->sp, pv[0], pv[1], pv[2], pv[3], pv[4], nx, ny, nz, qm, qg);
    break;
  case ADI_BC_OUTFLOW:
    subsonic_outflow_ghost_state(&v->sp, pv[0], qm, qg);
    break;
  default:   /* ADI_BC_SUPERSONIC_INFLOW */
    prim_to_cons(&v->sp, pv[0], pv[1], pv[2], pv[3], pv[4], qg);
    break;
  }
  ip = adi_pt(v, pg[0], pg[1], pg[2]);
  for (comp = 1; comp <= 5; ++comp) ADI_F(v, q, comp, ip) = qg[comp - 1];
}

/* the line's four ghosts in the CPU's order: both layers of side 1, then of side 2 */
ADI_HD static inline void fill_patch_line(const adi_view *v, int d, int b, int c)
{
  int side, layer;
  for (side = 1; side <= 2; ++side)
    for (layer = 1; layer <= 2; ++layer) fill_patch_ghost(v, d, b, c, side, layer);
}

/* ---- isothermal walls of a patched grid: the ghost temperature qp(6) of
 * ghost layer `layer` on side `side` of the line (b, c) across d, reflected
 * about t_wall where the patch is a wall or the lid (the other kinds carry
 * their temperature in their state). After the primitives, as
 * wall_temperature_ghost; independent between the four ghosts ---- */
ADI_HD static inline void patch_wall_temperature_ghost(const adi_view *v, int d, int b, int c, int side, int layer)
{
  int face = 2*d - 2 + side, n, nb, nc, kind, g, m, pg[3], pm[3];
  if (!v->phys[face - 1]) return;
  n = adi_ncells(v, d);
  face_sizes(face, v->ni, v->nj, v->nk, &nb, &nc);
  kind = v->patch[patch_id(v, face, patch_row(b, nb), patch_row(c, nc)) - 1].kind;
  if (kind != ADI_BC_WALL && kind != ADI_BC_LID) return;
  ghost_and_mirror(n, side, layer, &g, &m);
  cell_index(d, g, b, c, pg);
  cell_index(d, m, b, c, pm);
  ADI_F(v, qp, 6, adi_pt(v, pg[0], pg[1], pg[2])) =
    wall_ghost_temperature(&v->sp, ADI_F(v, qp, 6, adi_pt(v, pm[0], pm[1], pm[2])));
}

ADI_HD static inline void patch_wall_temperature_line(const adi_view *v, int d, int b, int c)
{
  int side, layer;
  for (side = 1; side <= 2; ++side)
    for (layer = 1; layer <= 2; ++layer) patch_wall_temperature_ghost(v, d, b, c, side, layer);
}
#endif
