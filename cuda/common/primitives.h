/* Primitive variables at one cell: the loop body of fortran/primitives.f90
 * (compute_primitives), through cons_to_prim of adiflow_math.h. */
#ifndef ADIFLOW_PRIMITIVES_H
#define ADIFLOW_PRIMITIVES_H

#include "flow_fields.h"

/* ---- primitives on every cell, ghosts included ---- */
ADI_HD static inline void primitives_point(const adi_view *v, int i, int j, int k)
{
  int p = adi_pt(v, i, j, k);
  cons_to_prim(&v->sp, ADI_F(v, q, 1, p), ADI_F(v, q, 2, p), ADI_F(v, q, 3, p), ADI_F(v, q, 4, p),
               ADI_F(v, q, 5, p), &ADI_F(v, qp, 1, p), &ADI_F(v, qp, 2, p), &ADI_F(v, qp, 3, p),
               &ADI_F(v, qp, 4, p), &ADI_F(v, qp, 5, p), &ADI_F(v, qp, 6, p));
}

#endif
