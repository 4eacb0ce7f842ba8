!> Constants every stage needs, in one struct that C sees unchanged.
!>
!> The derived quantities (gm1, re_inv, ...) are computed once on the host
!> by make_solver_params and handed to the device as they are, so both
!> backends multiply by the very same doubles. The members and the codes of
!> the int members (BC_WALL, LIM_VENKAT, ...) are the rows of
!> include/adiflow_params.def, from which include/adiflow_params.h makes C's
!> adi_solver_params too.
module solver_params
  use, intrinsic :: iso_c_binding, only: c_double, c_int
  implicit none
  private
  public :: solver_params_t

#define ADI_PARAM_CODE(name, value) integer(c_int), parameter, public :: name = value
#define ADI_PARAM_REAL(name, init)
#define ADI_PARAM_INT(name, init)
#define ADI_PARAM_INTS(name, count, init)
#include "adiflow_params.def"
#undef ADI_PARAM_CODE
#undef ADI_PARAM_REAL
#undef ADI_PARAM_INT
#undef ADI_PARAM_INTS

  type, bind(c) :: solver_params_t
#define ADI_PARAM_CODE(name, value)
#define ADI_PARAM_REAL(name, init) real(c_double) :: name = init/**/_c_double
#define ADI_PARAM_INT(name, init) integer(c_int) :: name = init
#define ADI_PARAM_INTS(name, count, init) integer(c_int) :: name(count) = init
#include "adiflow_params.def"
#undef ADI_PARAM_CODE
#undef ADI_PARAM_REAL
#undef ADI_PARAM_INT
#undef ADI_PARAM_INTS
  end type solver_params_t
end module solver_params
