!> The iteration loop that build/adiflow and build/adiflow_mpi share: the
!> CFL schedule, the progress line, residual.dat and forces.dat, the verdict
!> (diverged, converged, interrupted, done), periodic restarts and
!> snapshots, and the final restart, outputs and plot. The driver hands in
!> its backend (fortran/backend.f90: the iteration, the residual norms over
!> all blocks, the interrupt agreement of all ranks, the work done) and its
!> files (fortran/run_files.f90: restarts and outputs). Every call on either
!> is collective in the MPI driver, so all ranks take the same path through
!> the loop.
module driver_loop
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit
  use kinds, only: rk, ik8
  use case_config, only: case_t, cfl_at
  use residual_monitor, only: monitor_open, monitor_line, monitor_close, residual_drop, plot_residuals
  use sys_interface, only: signal_text, adi_interrupt_requested
  use convergence_rate, only: drop_rate_t, iters_to_go
  use forces_monitor, only: forces_monitor_t
  use wall_loads, only: patch_load_t
  use backend, only: backend_t
  use run_files, only: run_files_t
  implicit none
  private
  public :: run_iterations

contains

  !> Iterations it0+1 .. cs%max_iter from the state the backend holds.
  !> files%root: this process writes the terminal lines, residual.dat and
  !> forces.dat (when files%writes_forces: a run with wall patches).
  !> exit_code: what the driver stops with once it has released the
  !> backend: 0 done (converged or max_iter), 3 diverged, 130 interrupted.
  subroutine run_iterations(cs, it0, res0_in, be, files, exit_code)
    type(case_t), intent(in) :: cs
    integer(ik8), intent(in) :: it0
    real(rk), intent(in) :: res0_in(5)
    class(backend_t), intent(inout) :: be
    class(run_files_t), intent(inout) :: files
    integer, intent(out) :: exit_code
    integer(ik8) :: it, it_last_restart, t_start, t_first, t_now, t_rate, t_loop_end
    real(rk) :: norms(5), res0(5), cfl, sec_per_iter, work
    logical :: diverged, converged, stop_now, root, forces_on, fetched
    integer :: goal
    type(drop_rate_t) :: rate
    type(forces_monitor_t) :: forces
    type(patch_load_t), allocatable :: loads(:)

    root = files%root
    res0 = res0_in
    work = 0.0_rk
    forces_on = files%writes_forces(be)
    if (root) call monitor_open(files%dir, merge(it0, -1_ik8, cs%restart), cs%tol > 0.0_rk)
    if (root .and. forces_on) call forces%open(files%dir, files%grid_patches(be), merge(it0, -1_ik8, cs%restart), &
      cs%monitor_forces)
    call system_clock(t_start, t_rate)
    t_first = t_start
    it_last_restart = it0
    diverged = .false.
    converged = .false.

    do it = it0 + 1, cs%max_iter
      cfl = cfl_at(cs, it)
      call be%iterate(cfl)
      stop_now = be%any_process(adi_interrupt_requested() /= 0)

      ! res0_in all zero after a restart: the file's reference residual was not
      ! used (a version-1 file's unprotected header), so the reference starts
      ! again from the residual of the first iteration after the restart
      if (it == 1 .or. mod(it, int(cs%monitor_interval, ik8)) == 0 .or. it == cs%max_iter .or. stop_now .or. &
          (it == it0 + 1 .and. all(res0_in == 0.0_rk))) then
        call be%norms(norms)
        res0 = max(res0, norms)
        call system_clock(t_now)
        if (it0 > 0) then            ! a restart: from the loop's start
          sec_per_iter = real(t_now - t_start, rk)/real(t_rate, rk)/real(max(it - it0, 1_ik8), rk)
        else if (it == 1) then       ! the first iteration carries the start-up (a GPU's, say)
          t_first = t_now
          sec_per_iter = real(t_now - t_start, rk)/real(t_rate, rk)
          if (root) write(output_unit, '(a,a,a)') '  first iteration: ', seconds_text(sec_per_iter), &
            ' s (start-up included; the s/iter column counts from its end)'
        else
          sec_per_iter = real(t_now - t_first, rk)/real(t_rate, rk)/real(it - 1_ik8, rk)
        end if
        work = be%work_units
        call rate%add(it, residual_drop(norms, res0))
        if (root) call monitor_line(it, cfl, norms, res0, sec_per_iter, iters_to_go(cs, it, rate, goal), goal, &
          work, rate%factor())
        ! the loads from the host's fields: a GPU's state is fetched here, at
        ! the monitor lines only (a diverged state has none worth the copy)
        if (forces_on .and. all(abs(norms) <= huge(1.0_rk))) then
          call be%host_state()
          call files%patch_forces(be, loads)   ! collective: a decomposed run sums its blocks
          if (root) call forces%record(it, work, loads)
        end if
        if (.not. all(abs(norms) <= huge(1.0_rk))) then
          diverged = .true.
          exit
        end if
        if (cs%tol > 0.0_rk .and. residual_drop(norms, res0) >= -log10(cs%tol)) then
          converged = .true.
          exit
        end if
      end if

      if (cs%restart_interval > 0) then
        if (mod(it, int(cs%restart_interval, ik8)) == 0) then
          if (files%save_restart(be, it, res0)) it_last_restart = it
        end if
      end if
      if (cs%output_interval > 0) then
        if (mod(it, int(cs%output_interval, ik8)) == 0 .and. it /= cs%max_iter) call files%write_snapshot(be, it)
      end if
      if (stop_now) then
        associate (prog => files%prog, dir => files%dir)
          if (root) write(output_unit, '(a,i0,a)') prog//': '//signal_text()//' at iteration ', it, &
            '; writing the restart and outputs before stopping'
          if (files%save_restart(be, it, res0)) it_last_restart = it
          call files%write_outputs(be, it, res0)
          if (root) call close_histories()
          if (root) then
            if (it_last_restart > 0) then
              write(output_unit, '(a,i0,a,i0,a)') prog//': stopped at iteration ', it, '; written: '// &
                files%restart_name//' (iteration ', it_last_restart, ') and the outputs in '//dir//'/'
              write(output_unit, '(a)') '  to continue: '//continue_command(prog)
            else
              write(output_unit, '(a)') prog//': stopped; no restart could be written (the state was not finite)'
            end if
          end if
        end associate
        exit_code = 130
        return
      end if
    end do
    if (it > cs%max_iter) it = cs%max_iter
    if (root) call close_histories()

    associate (prog => files%prog, dir => files%dir)
      if (diverged) then
        if (root) then
          write(error_unit, '(a,i0,a)') prog//': error: the solution diverged at iteration ', it, &
            ' (NaN or Inf in the residual).'
          if (it_last_restart > 0) then
            write(error_unit, '(a,i0,a)') '  the last good restart is '//files%restart_name//' (iteration ', &
              it_last_restart, '); it was not overwritten.'
          else
            write(error_unit, '(a)') '  no restart had been written yet (set restart_interval to keep one).'
          end if
          write(error_unit, '(a)') '  try a smaller cfl or a longer cfl_ramp_iters, or order = 1 to start.'
        end if
        exit_code = 3
        return
      end if

      if (converged .and. root) write(output_unit, '(a,i0,a,es9.2,a,f0.1,a)') prog//': converged at iteration ', &
        it, ': residual dropped below tol = ', cs%tol, ' (', work, ' fine-grid work units)'
      call system_clock(t_loop_end)
      ! the final restart is written (on a thread where it can be) while the
      ! device releases itself and the host writes the other outputs
      fetched = files%save_final_restart(be, it, res0)
      if (fetched) it_last_restart = it
      call be%release_device(fetched)
      call files%write_outputs(be, it, res0)
      if (cs%write_plot .and. root) call plot_residuals(dir, cs%title)
      call system_clock(t_now)
      ! where a run's time goes: a large grid's set-up on the host and its
      ! outputs can rival the iterations themselves
      if (root) write(output_unit, '(a)') '  time: set-up '//seconds_text(real(t_start - files%clock0, rk)/ &
        real(t_rate, rk))//' s, iterations '//seconds_text(real(t_loop_end - t_start, rk)/real(t_rate, rk))// &
        ' s, restart and outputs '//seconds_text(real(t_now - t_loop_end, rk)/real(t_rate, rk))//' s'
      if (root) write(output_unit, '(a)') prog//': done; outputs in '//dir//'/'
    end associate
    exit_code = 0

  contains

    subroutine close_histories()
      call monitor_close()
      call forces%close()
    end subroutine close_histories
  end subroutine run_iterations

  !> The command that continues this run: its own command line with
  !> --restart added (arguments quoted for a POSIX shell where needed). It is
  !> only printed, never run.
  function continue_command(prog) result(cmd)
    character(len=*), intent(in) :: prog
    character(len=:), allocatable :: cmd, arg
    integer :: n, length
    logical :: has_restart
    cmd = ''
    has_restart = .false.
    do n = 0, command_argument_count()
      call get_command_argument(n, length=length)
      allocate(character(len=length) :: arg)
      if (length > 0) call get_command_argument(n, arg)
      if (arg == '--restart') has_restart = .true.
      if (n > 0) cmd = cmd//' '
      cmd = cmd//shell_quoted(arg)
      deallocate(arg)
    end do
    if (.not. has_restart) cmd = cmd//' --restart'
    if (prog == 'adiflow_mpi') cmd = 'mpirun -np <the same ranks> '//cmd
  end function continue_command

  !> s as one word for a POSIX shell: as it is when it holds only safe
  !> characters, else in single quotes (a quote inside as '\'').
  function shell_quoted(s) result(q)
    character(len=*), intent(in) :: s
    character(len=:), allocatable :: q
    character(len=*), parameter :: safe = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=+,:@%'
    integer :: i
    if (len(s) > 0 .and. verify(s, safe) == 0) then
      q = s
      return
    end if
    q = "'"
    do i = 1, len(s)
      if (s(i:i) == "'") then
        q = q//"'\''"
      else
        q = q//s(i:i)
      end if
    end do
    q = q//"'"
  end function shell_quoted

  !> Seconds with three decimals and a leading zero ("0.011", not ".011").
  function seconds_text(t) result(s)
    real(rk), intent(in) :: t
    character(len=:), allocatable :: s
    character(len=32) :: buf
    write(buf, '(f0.3)') t
    s = trim(adjustl(buf))
    if (s(1:1) == '.') s = '0'//s
  end function seconds_text
end module driver_loop
