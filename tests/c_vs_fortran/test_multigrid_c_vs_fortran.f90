!> The GPU's multigrid transfers (cuda/common/adiflow_multigrid.h, run on
!> the host through tests/c_vs_fortran/multigrid_c_shim.c) against the Fortran reference
!> (fortran/multigrid_transfer.f90), bit for bit, on random data over a fine
!> level 8x6x4 and its coarse level 4x3x4 (k does not coarsen), with and
!> without a fine-level forcing; plus what the transfers must conserve.
program test_multigrid_c_vs_fortran
  use, intrinsic :: iso_c_binding
  use kinds, only: rk
  use grid_layout
  use solver_params
  use multigrid_transfer
  use solver_cpu, only: add_forcing
  use test_util
  implicit none

  interface
    subroutine c_mg_restrict(spf, spc, r, q_f, res_f, forcing_f, vol_f, q_c, p_c) bind(c, name='c_mg_restrict')
      import :: solver_params_t, c_int, c_double
      type(solver_params_t), intent(in) :: spf, spc
      integer(c_int), intent(in) :: r(3)
      real(c_double) :: q_f(*), res_f(*), vol_f(*), q_c(*), p_c(*)
      real(c_double), optional :: forcing_f(*)
    end subroutine
    subroutine c_mg_subtract(spc, res_c, p_c) bind(c, name='c_mg_subtract')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: spc
      real(c_double) :: res_c(*), p_c(*)
    end subroutine
    subroutine c_mg_correction(spc, q_c, q0, dq_c) bind(c, name='c_mg_correction')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: spc
      real(c_double) :: q_c(*), q0(*), dq_c(*)
    end subroutine
    subroutine c_mg_prolong(spf, spc, r, dq_c, q_f) bind(c, name='c_mg_prolong')
      import :: solver_params_t, c_int, c_double
      type(solver_params_t), intent(in) :: spf, spc
      integer(c_int), intent(in) :: r(3)
      real(c_double) :: dq_c(*), q_f(*)
    end subroutine
  end interface

  type(layout_t) :: lf, lc
  type(solver_params_t) :: spf, spc
  integer(c_int) :: r(3) = [2, 2, 1]
  real(rk), allocatable :: qf(:,:,:,:), resf(:,:,:,:), ff(:,:,:,:), volf(:,:,:)
  real(rk), allocatable :: qc_f(:,:,:,:), pc_f(:,:,:,:), qc_c(:,:,:,:), pc_c(:,:,:,:)
  real(rk), allocatable :: resc(:,:,:,:), q0(:,:,:,:), dq_f(:,:,:,:), dq_c(:,:,:,:), qf2(:,:,:,:), tmp(:,:,:,:)
  real(rk) :: sum_f, sum_c
  integer :: m

  lf = make_layout(8, 6, 4)
  lc = make_layout(4, 3, 4)
  spf = params_of(lf)
  spc = params_of(lc)
  call random_seed(put=[(12345 + m, m = 1, 64)])
  allocate(qf(-1:lf%ldi-2, -1:lf%nj+2, -1:lf%nk+2, 5), volf(-1:lf%ldi-2, -1:lf%nj+2, -1:lf%nk+2))
  allocate(resf, ff, qf2, mold=qf)
  allocate(qc_f(-1:lc%ldi-2, -1:lc%nj+2, -1:lc%nk+2, 5))
  allocate(pc_f, qc_c, pc_c, resc, q0, dq_f, dq_c, mold=qc_f)
  call random_number(qf); call random_number(resf); call random_number(ff); call random_number(volf)
  qf = qf + 0.5_rk; resf = resf - 0.5_rk; ff = 1.0e-3_rk*(ff - 0.5_rk); volf = volf + 0.1_rk
  qc_f = 0.0_rk; pc_f = 0.0_rk; qc_c = 0.0_rk; pc_c = 0.0_rk

  ! restriction from the finest level (no forcing)
  call restrict_level(lc, r, volf, qf, resf, qc_f, pc_f)
  call c_mg_restrict(spf, spc, r, qf, resf, vol_f=volf, q_c=qc_c, p_c=pc_c)
  call check(all(same(qc_f, qc_c)), 'restricted state: C == Fortran, every bit')
  call check(all(same(pc_f, pc_c)), 'restricted residual: C == Fortran, every bit')
  sum_f = sum(resf(1:8, 1:6, 1:4, :)); sum_c = sum(pc_f(1:4, 1:3, 1:4, :))
  call check_close(sum_c, sum_f, 1.0e-13_rk, 'restricted residual keeps the total net flux')

  ! restriction from a coarse level: its residual plus its forcing
  tmp = resf
  call add_forcing(lf, ff, tmp)
  call restrict_level(lc, r, volf, qf, tmp, qc_f, pc_f)
  pc_c = 0.0_rk
  call c_mg_restrict(spf, spc, r, qf, resf, ff, volf, qc_c, pc_c)
  call check(all(same(pc_f, pc_c)), 'restricted residual + forcing: C == Fortran, every bit')

  ! forcing P = P - R(q_c)
  call random_number(resc)
  pc_c = pc_f
  call subtract_residual(lc, resc, pc_f)
  call c_mg_subtract(spc, resc, pc_c)
  call check(all(same(pc_f, pc_c)), 'forcing P - R: C == Fortran, every bit')

  ! correction and prolongation
  call random_number(q0)
  dq_f = 0.0_rk; dq_c = 0.0_rk
  call coarse_correction(lc, qc_f, q0, dq_f)
  call c_mg_correction(spc, qc_f, q0, dq_c)
  call check(all(same(dq_f, dq_c)), 'coarse correction q - q0 (ghosts included): C == Fortran, every bit')
  qf2 = qf
  call prolong_correction(lf, r, dq_f, qf)
  call c_mg_prolong(spf, spc, r, dq_c, qf2)
  call check(all(same(qf, qf2)), 'prolongation: C == Fortran, every bit')

  ! a uniform correction is added unchanged (the weights sum to 1)
  dq_f = 0.25_rk
  qf2 = qf
  call prolong_correction(lf, r, dq_f, qf2)
  call check(maxval(abs(qf2(1:8, 1:6, 1:4, :) - qf(1:8, 1:6, 1:4, :) - 0.25_rk)) <= 1.0e-15_rk, &
    'prolongation of a uniform correction adds it everywhere')
  ! a uniform state restricts to itself
  qf = 1.75_rk
  call restrict_level(lc, r, volf, qf, resf, qc_f, pc_f)
  call check(maxval(abs(qc_f(1:4, 1:3, 1:4, :) - 1.75_rk)) <= 4.0e-15_rk, 'restriction of a uniform state keeps it')

  call test_summary()

contains

  function params_of(l) result(sp)
    type(layout_t), intent(in) :: l
    type(solver_params_t) :: sp
    sp%ni = l%ni; sp%nj = l%nj; sp%nk = l%nk
    sp%ldi = l%ldi; sp%ldj = l%ldj; sp%ldk = l%ldk
  end function params_of

  elemental logical function same(a, b)
    real(rk), intent(in) :: a, b
    same = transfer(a, 1_c_int64_t) == transfer(b, 1_c_int64_t)
  end function same
end program test_multigrid_c_vs_fortran
