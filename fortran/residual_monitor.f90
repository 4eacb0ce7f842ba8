!> Residual monitor: the progress line on the terminal, residual.dat, and
!> the residual-history plot (gnuplot, when installed).
module residual_monitor
  use, intrinsic :: iso_fortran_env, only: output_unit
  use kinds, only: rk, ik8
  use case_config, only: case_error, io_error
  use output_file, only: out_file_t, out_open, out_check, out_commit
  use sys_interface, only: run_gnuplot, c_string
  use, intrinsic :: iso_c_binding, only: c_char, c_long_long
  implicit none
  private
  public :: monitor_open, monitor_line, monitor_close, residual_drop, plot_residuals

  integer :: unit_dat = -1
  character(len=:), allocatable :: dat_path
  integer :: n_lines = 0     !< residual lines written by this run

  interface
    integer(c_long_long) function adi_file_size(path) bind(c, name='adi_file_size')
      import :: c_char, c_long_long
      character(kind=c_char), intent(in) :: path(*)
    end function
  end interface

contains

  subroutine monitor_open(dir, append)
    character(len=*), intent(in) :: dir
    logical, intent(in) :: append
    integer :: ios
    character(len=512) :: msg
    logical :: exists
    ! formatted stream: its position is checked against the size on disk
    ! after every line (written_in_full), since gfortran does not report a
    ! failed buffered write
    dat_path = trim(dir)//'/residual.dat'
    inquire(file=dat_path, exist=exists)
    if (append .and. exists) then
      open(newunit=unit_dat, file=dat_path, access='stream', form='formatted', status='old', &
        position='append', action='write', iostat=ios, iomsg=msg)
    else
      open(newunit=unit_dat, file=dat_path, access='stream', form='formatted', status='replace', &
        action='write', iostat=ios, iomsg=msg)
      if (ios == 0) write(unit_dat, '(a)') '# iter  cfl  L2(rho)  L2(rho*u)  L2(rho*v)  L2(rho*w)  L2(E)'// &
        '  drop(orders)  s/iter  work'
    end if
    if (ios /= 0) call io_error('cannot write residual.dat in "'//trim(dir)//'": '//trim(msg))
    n_lines = 0
    write(output_unit, '(a)') '    iter     cfl     L2(rho)    L2(rho*u)  L2(rho*v)  L2(rho*w)  L2(E)'// &
      '       drop   s/iter      ETA        work'
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
  subroutine monitor_line(it, cfl, norms, res0, sec_per_iter, iters_left, work)
    integer(ik8), intent(in) :: it
    real(rk), intent(in) :: cfl, norms(5), res0(5), sec_per_iter, work
    integer(ik8), intent(in) :: iters_left
    real(rk) :: eta
    character(len=16) :: etas
    integer :: ios
    character(len=512) :: msg
    eta = sec_per_iter*real(iters_left, rk)
    if (eta >= 3600.0_rk) then
      write(etas, '(f6.1,a)') eta/3600.0_rk, ' h'
    else if (eta >= 60.0_rk) then
      write(etas, '(f6.1,a)') eta/60.0_rk, ' min'
    else
      write(etas, '(f6.1,a)') eta, ' s'
    end if
    write(output_unit, '(i8,f9.2,5es11.3,f7.2,es10.2,1x,a10,f12.1)') it, cfl, norms, &
      residual_drop(norms, res0), sec_per_iter, adjustl(etas(1:10)), work
    flush(output_unit)
    write(unit_dat, '(i9,f9.3,5es23.15,f8.3,es11.3,f14.3)', iostat=ios, iomsg=msg) it, cfl, norms, &
      residual_drop(norms, res0), sec_per_iter, work
    if (ios == 0) flush(unit_dat, iostat=ios, iomsg=msg)
    if (ios == 0 .and. .not. written_in_full()) then
      ios = 1
      msg = 'not every byte reached the disk'
    end if
    if (ios /= 0) call io_error('writing residual.dat failed: '//trim(msg)// &
      ' (disk full or a file-size limit?); the last restart is kept')
    n_lines = n_lines + 1
  end subroutine monitor_line

  !> The bytes handed to the library all on disk (the position of the
  !> stream against the file's size).
  logical function written_in_full()
    integer(c_long_long) :: pos
    integer :: ios
    inquire(unit=unit_dat, pos=pos, iostat=ios)
    written_in_full = ios == 0 .and. adi_file_size(c_string(dat_path)) == pos - 1
  end function written_in_full

  subroutine monitor_close()
    integer :: ios
    character(len=512) :: msg
    if (unit_dat >= 0) then
      close(unit_dat, iostat=ios, iomsg=msg)
      if (ios /= 0) call io_error('writing residual.dat failed: '//trim(msg)// &
        ' (disk full or a file-size limit?); the last restart is kept')
    end if
    unit_dat = -1
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
    st = run_gnuplot(trim(dir)//'/residual.gp', trim(title), trim(dir)//'/residual.dat', &
      trim(dir)//'/residual.png', why)
    select case (st)
    case (1)
      write(output_unit, '(a)') 'note: plot skipped (gnuplot not found); residual.dat holds the history'
    case (2)
      write(output_unit, '(a)') 'note: residual.png not drawn: '//why
    end select
  end subroutine plot_residuals
end module residual_monitor
