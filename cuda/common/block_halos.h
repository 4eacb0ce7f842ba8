/* The halo copy across a 1-to-1 block interface: the C twin of
 * fortran/block_halos.f90 (its interface_image and the cell rule of its
 * fill_interface_cells), read by cuda/api/block_set.cu's copy kernel.
 *
 * Node p of the receiving side is node q of the sending side,
 * q(|t(d)|) = to_beg(|t(d)|) + sign(t(d))*(p(d) - from_beg(d)) for each
 * direction d (1-based transform entries, as the Fortran's); a cell maps to
 * the cell between the images of its lowest and highest node. Cell c of
 * the solver's numbering spans the interface's nodes c and c + 1. */
#ifndef ADIFLOW_BLOCK_HALOS_H
#define ADIFLOW_BLOCK_HALOS_H

#include "adiflow_math.h"

/* the receiving side's beginning, the sending side's, the transform from
 * the receiving side to the sending one */
typedef struct adi_halo_map {
  int from_beg[3], to_beg[3], t[3];
} adi_halo_map;

/* node p of the receiving side on the sending side: interface_image */
ADI_HD static inline void adi_interface_image(const adi_halo_map *m, const int p[3], int q[3])
{
  int d, e;
  for (d = 0; d < 3; ++d) {
    e = (m->t[d] < 0 ? -m->t[d] : m->t[d]) - 1;
    q[e] = m->to_beg[e] + (m->t[d] < 0 ? -1 : 1)*(p[d] - m->from_beg[d]);
  }
}

/* the sending cell c of receiving cell (i, j, k): min of the images of its
 * lowest and highest node, direction by direction */
ADI_HD static inline void adi_halo_source_cell(const adi_halo_map *m, int i, int j, int k, int c[3])
{
  const int lo[3] = {i, j, k}, hi[3] = {i + 1, j + 1, k + 1};
  int a[3], b[3], e;
  adi_interface_image(m, lo, a);
  adi_interface_image(m, hi, b);
  for (e = 0; e < 3; ++e) c[e] = a[e] < b[e] ? a[e] : b[e];
}

#endif
