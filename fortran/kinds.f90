!> Working precision and small shared constants.
!> Everything in adiflow is double precision: the GPU port is judged
!> bit for bit against this reference, so there is one real kind only.
module kinds
  use, intrinsic :: iso_fortran_env, only: real64, int32, int64
  implicit none
  private
  public :: rk, ik8, ng, nvar, nprim

  integer, parameter :: rk = real64
  integer, parameter :: ik8 = int64
  integer, parameter :: ng = 2      !< ghost layers on every side (MUSCL needs two)
  integer, parameter :: nvar = 5    !< conservative variables rho, rho*u, rho*v, rho*w, E
  integer, parameter :: nprim = 6   !< primitive variables rho, u, v, w, p, T
end module kinds
