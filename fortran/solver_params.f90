!> Constants every stage needs, in one struct that C sees unchanged.
!>
!> The derived quantities (gm1, re_inv, ...) are computed once on the host
!> by make_solver_params and handed to the device as they are, so both
!> backends multiply by the very same doubles. Mirror: include/adiflow_params.h
module solver_params
  use, intrinsic :: iso_c_binding, only: c_double, c_int
  implicit none
  private
  public :: solver_params_t
  public :: BC_WALL, BC_LID, BC_PERIODIC
  public :: VISC_CONSTANT, VISC_SUTHERLAND, LIM_VANALBADA, LIM_MINMOD, LIM_VANLEER, LIM_VENKAT
  public :: WALL_ADIABATIC, WALL_ISOTHERMAL
  public :: ROE_LM_NONE, ROE_LM_RIEPER
  public :: IMPLICIT_DOUBLE, IMPLICIT_SINGLE

  integer(c_int), parameter :: BC_WALL = 0, BC_LID = 1, BC_PERIODIC = 2
  integer(c_int), parameter :: VISC_CONSTANT = 0, VISC_SUTHERLAND = 1
  !> limiter: van Albada, minmod, van Leer (all zero at an extremum), or
  !> Venkatakrishnan's (flow_math's venkat_slope) with the threshold
  !> eps^2 = (K/N)^3 (lim_eps2), which leaves differences below the
  !> threshold, smooth extrema among them, unlimited
  integer(c_int), parameter :: LIM_VANALBADA = 0, LIM_MINMOD = 1, LIM_VANLEER = 2, LIM_VENKAT = 3
  integer(c_int), parameter :: WALL_ADIABATIC = 0, WALL_ISOTHERMAL = 1
  !> roe_low_mach: the Roe dissipation as it is, or with Rieper's (2011)
  !> low-Mach scaling of the normal-velocity jump in the acoustic waves
  integer(c_int), parameter :: ROE_LM_NONE = 0, ROE_LM_RIEPER = 1
  !> implicit_precision: the LU-ADI operator (eigenvalues, sweep coefficients,
  !> characteristic increments, sweeps) in double, or in single precision
  !> (fortran/lu_adi.f90's header); the state and the residual stay double
  integer(c_int), parameter :: IMPLICIT_DOUBLE = 0, IMPLICIT_SINGLE = 1

  type, bind(c) :: solver_params_t
    real(c_double) :: gamma = 1.4d0
    real(c_double) :: gm1 = 0.4d0        !< gamma - 1
    real(c_double) :: ggm1 = 3.5d0       !< gamma / (gamma - 1)
    real(c_double) :: gm2 = 0.014d0      !< gamma * Mach^2: T = gm2 * p / rho
    real(c_double) :: re_inv = 1.0d-2    !< 1 / Re
    real(c_double) :: cond_coef = 0.0d0  !< 1 / (Re Pr (gamma-1) Mach^2)
    real(c_double) :: sutherland_s = 0.0d0
    real(c_double) :: efix = 0.1d0       !< Harten entropy-fix width, fraction of c
    real(c_double) :: vis_fac = 2.0d0    !< viscous spectral-radius factor
    real(c_double) :: t_wall = 1.0d0
    real(c_double) :: lid_u = 1.0d0, lid_v = 0.0d0, lid_w = 0.0d0
    integer(c_int) :: visc_law = 0
    integer(c_int) :: order = 2
    integer(c_int) :: limiter = 0
    integer(c_int) :: wall_thermal = 0
    integer(c_int) :: bc(6) = 0          !< imin, imax, jmin, jmax, kmin, kmax
    integer(c_int) :: ni = 0, nj = 0, nk = 0
    integer(c_int) :: ldi = 0, ldj = 0, ldk = 0
    integer(c_int) :: roe_low_mach = 0   !< ROE_LM_NONE or ROE_LM_RIEPER (appended: older members keep their offsets)
    integer(c_int) :: implicit_single = 0 !< IMPLICIT_DOUBLE or IMPLICIT_SINGLE (appended, as roe_low_mach)
    real(c_double) :: lim_eps2 = 0.0d0    !< LIM_VENKAT's eps^2 = (limiter_k / N)^3, N the largest cell count (appended)
  end type solver_params_t
end module solver_params
