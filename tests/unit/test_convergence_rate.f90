!> The progress line's rate of fall and ETA to tol (fortran/convergence_rate.f90)
!> on synthetic residual histories of known rate: a residual falling by a
!> factor 0.98 per cycle gives that factor and, at a drop of d orders, exactly
!> ceil((7 - d)/(-log10 0.98)) cycles to a 7-order tolerance; the window
!> follows a rate that changes; no rate is claimed from too few lines or from
!> a residual that does not fall; without tol the ETA counts to max_iter.
program test_convergence_rate
  use kinds, only: rk, ik8
  use case_config, only: case_t
  use convergence_rate, only: drop_rate_t, iters_to_go
  use test_util
  implicit none
  type(case_t) :: cs
  type(drop_rate_t) :: rate, flat, changing, few
  real(rk) :: r
  integer(ik8) :: it, want

  cs%max_iter = 100000
  cs%tol = 1.0e-7_rk
  r = -log10(0.98_rk)            ! orders per cycle
  do it = 10, 300, 10
    call rate%add(it, r*real(it, rk))
  end do
  call check_close(rate%factor(), 0.98_rk, 1.0e-12_rk, 'factor of a residual falling 2 % per cycle')
  want = ceiling((7.0_rk - r*300.0_rk)/r, ik8)
  call check(iters_to_go(cs, 300_ik8, rate) == want, 'cycles to a 7-order drop from the observed rate')
  cs%max_iter = 350
  call check(iters_to_go(cs, 300_ik8, rate) == 50_ik8, 'the ETA to tol never exceeds max_iter')
  cs%max_iter = 100000
  cs%tol = 0.0_rk
  call check(iters_to_go(cs, 300_ik8, rate) == 100000_ik8 - 300_ik8, 'without tol the ETA counts to max_iter')
  cs%tol = 1.0e-7_rk

  ! a rate that rises from 0.99 to 0.9 per cycle: the estimate follows the recent lines
  do it = 10, 200, 10
    call changing%add(it, -log10(0.99_rk)*real(it, rk))
  end do
  do it = 210, 400, 10
    call changing%add(it, -log10(0.99_rk)*200.0_rk - log10(0.9_rk)*real(it - 200, rk))
  end do
  call check_close(changing%factor(), 0.9_rk, 1.0e-12_rk, 'the window follows a faster rate late in the run')

  ! a residual that has not fallen, and too few lines: no rate, no ETA to tol
  do it = 10, 100, 10
    call flat%add(it, 0.0_rk)
  end do
  call check(flat%factor() == 0.0_rk .and. iters_to_go(cs, 100_ik8, flat) == -1_ik8, &
    'a residual that does not fall gives no rate and no ETA')
  call few%add(10_ik8, 0.1_rk)
  call few%add(20_ik8, 0.2_rk)
  call check(few%factor() == 0.0_rk .and. iters_to_go(cs, 20_ik8, few) == -1_ik8, &
    'two lines are not enough for a rate')
  call test_summary()
end program test_convergence_rate
