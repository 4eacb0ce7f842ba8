/* Boundary conditions at one ghost cell: the loop bodies of
 * fortran/boundary_conditions.f90 (apply_boundary_conditions,
 * apply_wall_temperature), with its ghost and mirror cells and the same
 * arithmetic (wall_ghost_state, wall_ghost_temperature of adiflow_math.h). */
#ifndef ADIFLOW_BOUNDARY_CONDITIONS_H
#define ADIFLOW_BOUNDARY_CONDITIONS_H

#include "flow_fields.h"

/* Fortran's modulo(a, n) for n > 0: the result lies in 0..n-1. */
ADI_HD static inline int adi_modulo(int a, int n)
{
  int r = a % n;
  return r < 0 ? r + n : r;
}

/* ---- boundary conditions: ghost layer `layer` (1, 2) on side `side`
 * (1: below cell 1, 2: above cell n) of the line (b, c) across direction d;
 * b in -1..nb+2, c in -1..nc+2. A ghost reads only cells 1..n along d (its
 * mirror, or its periodic image; walls need n >= 2) and writes only itself,
 * so the four ghosts of a line are independent: the GPU fills them in
 * parallel (cuda/common/bc_kernels.cu) ---- */
/* the ghost g and its mirror cell m along a line of n cells: ghost layer
 * `layer` (1, 2) on side `side` (1: below cell 1, 2: above cell n) */
ADI_HD static inline void ghost_and_mirror(int n, int side, int layer, int *g, int *m)
{
  if (side == 1) {
    *g = 1 - layer;           /* ghosts 0, -1 */
    *m = layer;               /* mirror cells 1, 2 */
  } else {
    *g = n + layer;           /* ghosts n+1, n+2 */
    *m = n + 1 - layer;       /* mirror cells n, n-1 */
  }
}

ADI_HD static inline void bc_fill_ghost(const adi_view *v, int d, int b, int c, int side, int layer)
{
  int n, g, m, bc, pg[3], pm[3], ig, im, comp;
  double uw, vw, ww, qm[5], qg[5];
  if (!v->phys[2*d - 2 + side - 1]) return;   /* filled by the halo exchange */
  n = adi_ncells(v, d);
  bc = v->sp.bc[2*d - 2 + side - 1];
  uw = 0.0; vw = 0.0; ww = 0.0;
  if (bc == ADI_BC_LID) {
    uw = v->sp.lid_u; vw = v->sp.lid_v; ww = v->sp.lid_w;
  }
  ghost_and_mirror(n, side, layer, &g, &m);
  if (bc == ADI_BC_PERIODIC) m = 1 + adi_modulo(g - 1, n);
  cell_index(d, g, b, c, pg);
  cell_index(d, m, b, c, pm);
  ig = adi_pt(v, pg[0], pg[1], pg[2]);
  im = adi_pt(v, pm[0], pm[1], pm[2]);
  for (comp = 1; comp <= 5; ++comp) qm[comp - 1] = ADI_F(v, q, comp, im);
  if (bc == ADI_BC_PERIODIC) {
    for (comp = 0; comp < 5; ++comp) qg[comp] = qm[comp];
  } else {
    wall_ghost_state(&v->sp, uw, vw, ww, qm, qg);
  }
  for (comp = 1; comp <= 5; ++comp) ADI_F(v, q, comp, ig) = qg[comp - 1];
}

/* the line's four ghosts in the CPU's order: both layers of side 1, then of side 2 */
ADI_HD static inline void bc_fill_line(const adi_view *v, int d, int b, int c)
{
  int side, layer;
  for (side = 1; side <= 2; ++side)
    for (layer = 1; layer <= 2; ++layer) bc_fill_ghost(v, d, b, c, side, layer);
}

/* ---- isothermal walls: the ghost temperature qp(6) of ghost layer
 * `layer` on side `side` of the line (b, c) across direction d, reflected
 * about t_wall (after the primitives; only the viscous flux reads ghost
 * temperatures). Independent between the four ghosts, as bc_fill_ghost ---- */
ADI_HD static inline void wall_temperature_ghost(const adi_view *v, int d, int b, int c, int side, int layer)
{
  int n, g, m, bc, pg[3], pm[3];
  bc = v->sp.bc[2*d - 2 + side - 1];
  if (!v->phys[2*d - 2 + side - 1] || bc == ADI_BC_PERIODIC) return;
  n = adi_ncells(v, d);
  ghost_and_mirror(n, side, layer, &g, &m);
  cell_index(d, g, b, c, pg);
  cell_index(d, m, b, c, pm);
  ADI_F(v, qp, 6, adi_pt(v, pg[0], pg[1], pg[2])) =
    wall_ghost_temperature(&v->sp, ADI_F(v, qp, 6, adi_pt(v, pm[0], pm[1], pm[2])));
}

ADI_HD static inline void wall_temperature_line(const adi_view *v, int d, int b, int c)
{
  int side, layer;
  for (side = 1; side <= 2; ++side)
    for (layer = 1; layer <= 2; ++layer) wall_temperature_ghost(v, d, b, c, side, layer);
}
#endif
