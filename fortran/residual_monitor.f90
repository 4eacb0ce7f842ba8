!> Residual monitor: the progress line on the terminal, residual.dat, and
!> the residual-history plot (gnuplot, when installed).
module residual_monitor
  use, intrinsic :: iso_fortran_env, only: output_unit
  use kinds, only: rk, ik8
  use history_log, only: history_t
  use convergence_rate, only: goal_tol, goal_max_iter
  use output_file, only: out_file_t, out_open, out_check, out_commit, remove_stale, commit_finished
  use sys_interface, only: run_gnuplot
  implicit none
  private
  public :: monitor_open, monitor_line, monitor_close, residual_drop, plot_residuals, eta_text

  type(history_t) :: dat      !< residual.dat
  integer :: n_lines = 0      !< residual lines written by this run

contains

  !> Open residual.dat: a fresh history, or (restart_iter >= 0) the old one
  !> kept up to the restart's iteration (fortran/history_log.f90).
  !> to_tol: the ETA estimates the time to the tolerance from the observed
  !> rate, else the time to max_iter; the run says how once.
  subroutine monitor_open(dir, restart_iter, to_tol)
    character(len=*), intent(in) :: dir
    integer(ik8), intent(in) :: restart_iter
    logical, intent(in) :: to_tol
    call dat%open(trim(dir)//'/residual.dat', '# iter  cfl  L2(rho)  L2(rho*u)  L2(rho*v)  '// &
      'L2(rho*w)  L2(E)  drop(orders)  s/iter  work'//new_line('a'), restart_iter)
    n_lines = 0
    write(output_unit, '(a)') '    iter     cfl     L2(rho)    L2(rho*u)  L2(rho*v)  L2(rho*w)  L2(E)'// &
      '       drop    s/iter  ETA                     work  factor'
    if (to_tol) write(output_unit, '(a)') '  (ETA: the time to tol at the rate of the last lines ("to tol"), or to '// &
      'max_iter where that comes first ("to max"); "--" while no rate is known or the residual rises)'
  end subroutine monitor_open

  !> Orders of magnitude the residual has dropped from the largest value
  !> seen (res0, per component): the worst component among those that are
  !> significant (a quasi-2D run keeps rho*w at round-off, say).
  pure function residual_drop(norms, res0) result(drop)
    real(rk), intent(in) :: norms(5), res0(5)
    real(rk) :: drop, ratio
    integer :: m
    ratio = 0.0_rk
    do m = 1, 5
      if (res0(m) > 1.0e-10_rk*maxval(res0)) ratio = max(ratio, norms(m)/res0(m))
    end do
    drop = 0.0_rk
    ! no drop yet is 0, never -0 (the first lines printed "-0.00")
    if (ratio > 0.0_rk .and. ratio < 1.0_rk) drop = -log10(ratio)
  end function residual_drop

  !> work: fine-grid work units this run has done (iterations for the
  !> single-grid solver; fortran/multigrid_cycle.f90 counts them for multigrid).
  !> iters_left, goal: what convergence_rate's iters_to_go estimates (the
  !> ETA shows "--" for goal_none); factor: the mean residual reduction per
  !> iteration lately, <= 0 when not known.
  subroutine monitor_line(it, cfl, norms, res0, sec_per_iter, iters_left, goal, work, factor)
    integer(ik8), intent(in) :: it
    real(rk), intent(in) :: cfl, norms(5), res0(5), sec_per_iter, work, factor
    integer(ik8), intent(in) :: iters_left
    integer, intent(in) :: goal
    character(len=16) :: facs
    character(len=256) :: line
    facs = '--'
    if (factor > 0.0_rk) write(facs, '(f7.4)') factor
    write(output_unit, '(i8,f9.2,5es11.3,f7.2,es10.2,2x,a20,f10.1,1x,a7)') it, cfl, norms, &
      residual_drop(norms, res0), sec_per_iter, eta_text(sec_per_iter, iters_left, goal), work, adjustr(facs(1:7))
    flush(output_unit)
    write(line, '(i9,f9.3,5es23.15,f8.3,es11.3,f14.3)') it, cfl, norms, residual_drop(norms, res0), &
      sec_per_iter, work
    call dat%append(trim(line))
    n_lines = n_lines + 1
  end subroutine monitor_line

  !> The ETA column: the time left and what it counts to ("7.2 s to tol",
  !> "3.1 min to max"), "--" when nothing is known; never negative or NaN.
  function eta_text(sec_per_iter, iters_left, goal) result(s)
    real(rk), intent(in) :: sec_per_iter
    integer(ik8), intent(in) :: iters_left
    integer, intent(in) :: goal
    character(len=20) :: s
    character(len=12) :: t
    real(rk) :: eta
    s = '--'
    if (iters_left < 0 .or. .not. (goal == goal_tol .or. goal == goal_max_iter)) return
    eta = sec_per_iter*real(iters_left, rk)
    if (.not. (eta >= 0.0_rk .and. eta <= huge(eta))) return
    if (eta >= 99999.0_rk*3600.0_rk) then
      t = '>99999 h'
    else if (eta >= 3600.0_rk) then
      write(t, '(f0.1,a)') eta/3600.0_rk, ' h'
    else if (eta >= 60.0_rk) then
      write(t, '(f0.1,a)') eta/60.0_rk, ' min'
    else
      write(t, '(f0.1,a)') eta, ' s'
    end if
    if (t(1:1) == '.') t = '0'//trim(t)
    s = trim(t)//merge(' to tol', ' to max', goal == goal_tol)
  end function eta_text

  subroutine monitor_close()
    if (dat%is_open()) call dat%close()
  end subroutine monitor_close

  !> residual.png from residual.dat through gnuplot, if gnuplot is there.
  !> gnuplot runs without a shell, and the title and paths reach its script
  !> as strings (ARG1..ARG3), never as code. A missing gnuplot is a note, not
  !> an error: the plot is optional.
  subroutine plot_residuals(dir, title)
    character(len=*), intent(in) :: dir, title
    type(out_file_t) :: of
    integer :: ios, st
    character(len=512) :: msg
    character(len=:), allocatable :: why
    if (n_lines == 0) then
      write(output_unit, '(a)') 'note: no residual was monitored, residual.png not drawn'
      return
    end if
    call out_open(of, trim(dir)//'/residual.gp')
    write(of%unit, '(a)', iostat=ios, iomsg=msg) &
      '# residual history: gnuplot -c residual.gp TITLE residual.dat residual.png'//new_line('a')// &
      'set terminal pngcairo size 900,600 noenhanced'//new_line('a')// &
      'set output ARG3'//new_line('a')// &
      'set title ARG1.": residual history"'//new_line('a')// &
      "set xlabel 'iteration'; set ylabel 'L2 residual'; set logscale y; set grid"//new_line('a')// &
      'f = ARG2'//new_line('a')// &
      "plot f u 1:3 w l t 'rho', f u 1:4 w l t 'rho u', f u 1:5 w l t 'rho v', "// &
      "f u 1:($6>0?$6:1/0) w l t 'rho w', f u 1:7 w l t 'E'"
    call out_check(of, ios, msg)
    call out_commit(of)
    ! gnuplot writes residual.png.tmp (made afresh: a planted link is
    ! removed first), renamed over residual.png once drawn
    call remove_stale(trim(dir)//'/residual.png.tmp')
    st = run_gnuplot(trim(dir)//'/residual.gp', trim(title), trim(dir)//'/residual.dat', &
      trim(dir)//'/residual.png.tmp', why)
    if (st == 0) then
      if (.not. commit_finished(trim(dir)//'/residual.png.tmp', trim(dir)//'/residual.png', why)) st = 2
    else
      call remove_stale(trim(dir)//'/residual.png.tmp')
    end if
    select case (st)
    case (1)
      write(output_unit, '(a)') 'note: plot skipped (gnuplot not found); residual.dat holds the history'
    case (2)
      write(output_unit, '(a)') 'note: residual.png not drawn: '//why
    end select
  end subroutine plot_residuals
end module residual_monitor
