!> Working precision and small shared constants.
!> Everything in adiflow is double precision (rk): the GPU port is judged
!> bit for bit against this reference. The one exception is the implicit
!> operator with implicit_precision = 'single' (fortran/lu_adi.f90,
!> fortran/flow_math_sp.f90), which computes in sk and stores its results
!> promoted to rk.
module kinds
  use, intrinsic :: iso_fortran_env, only: real32, real64, int32, int64
  implicit none
  private
  public :: rk, sk, ik8, ng, nvar, nprim

  integer, parameter :: rk = real64
  integer, parameter :: sk = real32  !< implicit_precision = 'single' only
  integer, parameter :: ik8 = int64
  integer, parameter :: ng = 2      !< ghost layers on every side (MUSCL needs two)
  integer, parameter :: nvar = 5    !< conservative variables rho, rho*u, rho*v, rho*w, E
  integer, parameter :: nprim = 6   !< primitive variables rho, u, v, w, p, T
end module kinds
