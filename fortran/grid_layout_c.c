/* The padded leading dimension, for fortran/grid_layout.f90: the bridge's
 * one formula (adi_layout_ldi in include/adiflow_bridge.h), so that the host
 * layout and the one the GPU backend checks cannot drift apart. */
#include "adiflow_bridge.h"

int adi_layout_leading_dim(int ni)
{
  return adi_layout_ldi(ni);
}
