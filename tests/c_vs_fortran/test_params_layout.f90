!> The bind(c) type solver_params_t (fortran/solver_params.f90) and its C
!> mirror adi_solver_params (include/adiflow_params.h) must agree byte for
!> byte: the same size and every member at the same offset. Otherwise the
!> GPU backend would read one constant where the Fortran wrote another. The
!> same for gpu_settings_t (fortran/gpu_settings.f90) and adi_gpu_settings
!> (include/adiflow_gpu_settings.h), the &gpu group's settings.
program test_params_layout
  use, intrinsic :: iso_c_binding
  use solver_params, only: solver_params_t
  use gpu_settings, only: gpu_settings_t
  use test_util
  implicit none
  interface
    integer(c_int) function adi_params_layout(out, nmax) bind(c, name='adi_params_layout')
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: out(*)
      integer(c_int), value :: nmax
    end function
    integer(c_int) function adi_gpu_settings_layout(out, nmax) bind(c, name='adi_gpu_settings_layout')
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: out(*)
      integer(c_int), value :: nmax
    end function
  end interface
  character(len=15), parameter :: names(27) = [character(len=15) :: 'gamma', 'gm1', 'ggm1', 'gm2', &
    're_inv', 'cond_coef', 'sutherland_s', 'efix', 'vis_fac', 't_wall', 'lid_u', 'lid_v', 'lid_w', &
    'visc_law', 'order', 'limiter', 'wall_thermal', 'bc', 'ni', 'nj', 'nk', 'ldi', 'ldj', 'ldk', &
    'roe_low_mach', 'implicit_single', 'lim_eps2']
  character(len=15), parameter :: gnames(5) = [character(len=15) :: 'device', 'timing', 'overlap', &
    'merged_steps', 'tuning_table']
  type(solver_params_t), target :: sp
  type(gpu_settings_t), target :: gs
  integer(c_int64_t) :: c_side(28), f_off(27), g_side(6), g_off(5)
  integer(c_intptr_t) :: base
  integer :: n, m

  base = transfer(c_loc(sp), base)
  f_off = [at(c_loc(sp%gamma)), at(c_loc(sp%gm1)), at(c_loc(sp%ggm1)), at(c_loc(sp%gm2)), &
    at(c_loc(sp%re_inv)), at(c_loc(sp%cond_coef)), at(c_loc(sp%sutherland_s)), at(c_loc(sp%efix)), &
    at(c_loc(sp%vis_fac)), at(c_loc(sp%t_wall)), at(c_loc(sp%lid_u)), at(c_loc(sp%lid_v)), &
    at(c_loc(sp%lid_w)), at(c_loc(sp%visc_law)), at(c_loc(sp%order)), at(c_loc(sp%limiter)), &
    at(c_loc(sp%wall_thermal)), at(c_loc(sp%bc)), at(c_loc(sp%ni)), at(c_loc(sp%nj)), at(c_loc(sp%nk)), &
    at(c_loc(sp%ldi)), at(c_loc(sp%ldj)), at(c_loc(sp%ldk)), at(c_loc(sp%roe_low_mach)), &
    at(c_loc(sp%implicit_single)), at(c_loc(sp%lim_eps2))]
  n = adi_params_layout(c_side, size(c_side, kind=c_int))
  call check(n == size(names), 'the C mirror lists as many members as the Fortran type')
  call check(c_side(1) == c_sizeof(sp), 'sizeof(adi_solver_params) == c_sizeof(solver_params_t)')
  do m = 1, min(n, size(names))
    call check(c_side(m + 1) == f_off(m), 'member '//trim(names(m))//' at the same offset in C and Fortran')
  end do
  ! one member more on either side would go unseen by the offsets alone: the
  ! last member must end where the struct does (up to its alignment padding)
  call check(c_sizeof(sp) - f_off(size(f_off)) == 8, 'lim_eps2 is the last member of solver_params_t')

  base = transfer(c_loc(gs), base)
  g_off = [at(c_loc(gs%device)), at(c_loc(gs%timing)), at(c_loc(gs%overlap)), at(c_loc(gs%merged_steps)), &
    at(c_loc(gs%tuning_table))]
  n = adi_gpu_settings_layout(g_side, size(g_side, kind=c_int))
  call check(n == size(gnames), 'the C mirror of gpu_settings_t lists as many members as the Fortran type')
  call check(g_side(1) == c_sizeof(gs), 'sizeof(adi_gpu_settings) == c_sizeof(gpu_settings_t)')
  do m = 1, min(n, size(gnames))
    call check(g_side(m + 1) == g_off(m), 'gpu settings member '//trim(gnames(m))// &
      ' at the same offset in C and Fortran')
  end do
  call test_summary()

contains

  integer(c_int64_t) function at(p)
    type(c_ptr), intent(in) :: p
    at = int(transfer(p, base) - base, c_int64_t)
  end function at
end program test_params_layout
