!> The progress line's rate of fall and ETA to tol (fortran/convergence_rate.f90)
!> on synthetic residual histories of known rate: a residual falling by a
!> factor 0.98 per cycle gives that factor and, at a drop of d orders, exactly
!> ceil((7 - d)/(-log10 0.98)) cycles to a 7-order tolerance, counted to tol;
!> the estimate is capped at max_iter and then says so; the window follows a
!> rate that changes; no rate or estimate is claimed from too few lines, from
!> a residual that does not fall, from one that rises now after falling, or
!> from a NaN; without tol the ETA counts to max_iter.
program test_convergence_rate
  use kinds, only: rk, ik8
  use case_config, only: case_t
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use convergence_rate, only: drop_rate_t, iters_to_go, goal_none, goal_tol, goal_max_iter
  use residual_monitor, only: eta_text
  use test_util
  implicit none
  type(case_t) :: cs
  type(drop_rate_t) :: rate, flat, changing, few, rising, nan_line, reached
  real(rk) :: r, nan
  integer(ik8) :: it, want, left
  integer :: goal

  cs%max_iter = 100000
  cs%tol = 1.0e-7_rk
  r = -log10(0.98_rk)            ! orders per cycle
  do it = 10, 300, 10
    call rate%add(it, r*real(it, rk))
  end do
  call check_close(rate%factor(), 0.98_rk, 1.0e-12_rk, 'factor of a residual falling 2 % per cycle')
  want = ceiling((7.0_rk - r*300.0_rk)/r, ik8)
  left = iters_to_go(cs, 300_ik8, rate, goal)
  call check(left == want .and. goal == goal_tol, 'cycles to a 7-order drop from the observed rate, counted to tol')
  cs%max_iter = 350
  left = iters_to_go(cs, 300_ik8, rate, goal)
  call check(left == 50_ik8 .and. goal == goal_max_iter, 'the ETA to tol never exceeds max_iter, and then counts to it')
  cs%max_iter = 300 + int(want)
  left = iters_to_go(cs, 300_ik8, rate, goal)
  call check(left == want .and. goal == goal_tol, 'tol reached exactly at max_iter still counts to tol')
  cs%max_iter = 100000
  cs%tol = 0.0_rk
  left = iters_to_go(cs, 300_ik8, rate, goal)
  call check(left == 100000_ik8 - 300_ik8 .and. goal == goal_max_iter, 'without tol the ETA counts to max_iter')
  cs%tol = 1.0e-7_rk

  ! a drop past tol already: nothing left, never negative
  do it = 10, 50, 10
    call reached%add(it, 2.0_rk*real(it, rk))
  end do
  left = iters_to_go(cs, 50_ik8, reached, goal)
  call check(left == 0_ik8 .and. goal == goal_tol, 'a residual below tol already leaves 0 iterations, not fewer')

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
  left = iters_to_go(cs, 100_ik8, flat, goal)
  call check(flat%factor() == 0.0_rk .and. left == -1_ik8 .and. goal == goal_none, &
    'a residual that does not fall gives no rate and no ETA')
  call few%add(10_ik8, 0.1_rk)
  call few%add(20_ik8, 0.2_rk)
  left = iters_to_go(cs, 20_ik8, few, goal)
  call check(few%factor() == 0.0_rk .and. left == -1_ik8 .and. goal == goal_none, 'two lines are not enough for a rate')

  ! falling for 100 cycles, then rising on the newest line: the window's
  ! mean still falls, but no time is claimed while the residual rises
  do it = 10, 100, 10
    call rising%add(it, r*real(it, rk))
  end do
  call rising%add(110_ik8, r*90.0_rk)
  left = iters_to_go(cs, 110_ik8, rising, goal)
  call check(rising%orders_per_iter() > 0.0_rk .and. left == -1_ik8 .and. goal == goal_none, &
    'a residual rising on the newest line gives no ETA')
  call rising%add(120_ik8, r*120.0_rk)
  left = iters_to_go(cs, 120_ik8, rising, goal)
  call check(left > 0_ik8 .and. goal == goal_tol, 'falling again, the ETA comes back')

  ! a NaN drop (a diverging run's last line): no rate, no estimate
  nan = ieee_value(nan, ieee_quiet_nan)
  do it = 10, 40, 10
    call nan_line%add(it, r*real(it, rk))
  end do
  call nan_line%add(50_ik8, nan)
  left = iters_to_go(cs, 50_ik8, nan_line, goal)
  call check(nan_line%factor() == 0.0_rk .and. left == -1_ik8 .and. goal == goal_none, 'a NaN drop gives no rate and no ETA')

  ! the progress line's ETA text: the time and what it counts to, "--"
  ! for no estimate, never a negative or NaN time
  call check(eta_text(0.5_rk, 20_ik8, goal_tol) == '10.0 s to tol', 'ETA text: 20 iterations at 0.5 s to tol')
  call check(eta_text(3.0_rk, 100_ik8, goal_max_iter) == '5.0 min to max', 'ETA text: 300 s to max_iter in minutes')
  call check(eta_text(0.01_rk, 5_ik8, goal_tol) == '0.1 s to tol', 'ETA text: a leading zero')
  call check(eta_text(1.0_rk, -1_ik8, goal_none) == '--' .and. eta_text(1.0_rk, 10_ik8, goal_none) == '--', &
    'ETA text: no estimate is "--"')
  call check(eta_text(nan, 10_ik8, goal_tol) == '--' .and. eta_text(-1.0_rk, 10_ik8, goal_tol) == '--', &
    'ETA text: a NaN or negative time is "--"')
  call check(eta_text(1.0e9_rk, 10_ik8, goal_max_iter) == '>99999 h to max', 'ETA text: a time too long for the column is capped')
  call test_summary()
end program test_convergence_rate
