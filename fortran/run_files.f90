!> The files of a run besides the histories (residual.dat, forces.dat,
!> which the loop writes): its restart, the snapshots and
!> the final outputs (field.dump, flow.vts, flow.pvd, flow.dat, the
!> centreline profiles). run_files_t writes those of a run on one grid, on
!> either backend (the state comes through fortran/backend.f90's
!> host_state); a decomposed run extends it with its restart set and block
!> files (fortran/run_files_mpi.f90). Every writer is collective in a
!> decomposed run: all ranks call it.
module run_files
  use, intrinsic :: iso_fortran_env, only: output_unit
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr
  use kinds, only: rk, ik8, ng
  use case_config, only: case_t
  use grid_layout, only: layout_t
  use solver_params, only: solver_params_t
  use backend, only: backend_t
  use field_io, only: write_field_dump, start_field_dump, finish_field_dump, read_field_dump
  use output_file, only: copy_output
  use output_vtk, only: write_vts, snapshot_stem, vtk_series_t, series_start, series_snapshot, series_final
  use output_tecplot, only: write_tecplot
  use cgns_output, only: write_cgns_solution
  use plot3d_output, only: write_plot3d_solution
  use output_profiles, only: write_profiles
  use output_wall_loads, only: write_wall_loads, forces_history_name, wall_patch_loads
  use wall_loads, only: has_wall_patches, patch_load_t
  use boundary_patches, only: patch_set_t
  implicit none
  private
  public :: run_files_t, finite_state_fetched, old_restart_note

  type :: run_files_t
    type(case_t) :: cs
    character(len=:), allocatable :: prog          !< 'adiflow' or 'adiflow_mpi', for messages
    character(len=:), allocatable :: dir           !< the run folder
    character(len=:), allocatable :: restart_name  !< the restart as messages name it
    logical :: root = .true.                       !< this process speaks and writes the shared files
    character(len=5) :: vts_ext = '.vts'           !< what flow.pvd lists
    logical :: write_series = .false.              !< flow.pvd of the snapshots (output_interval > 0)
    type(vtk_series_t) :: series
    !> system_clock count at the program's start, the run's start for the
    !> time summary (fortran/driver_loop.f90): set-up is what comes before
    !> the loop, the case and the grid's nodes included
    integer(ik8) :: clock0 = 0
    !> the iteration of the restart this run wrote last (-1: none yet); the
    !> final field.dump of the same iteration is a second name of its file
    integer(ik8) :: restart_iteration = -1
    !> the final restart being written on its own thread (save_final_restart),
    !> and its iteration; write_outputs waits for it
    type(c_ptr) :: restart_job = c_null_ptr
    integer(ik8) :: restart_job_iteration = -1
  contains
    procedure :: init => files_init
    procedure :: start_series
    procedure :: nothing_left
    procedure :: writes_forces
    procedure :: grid_patches
    procedure :: patch_forces
    procedure :: read_restart => read_grid_restart
    procedure :: save_restart => save_grid_restart
    procedure, non_overridable :: save_final_restart
    procedure :: write_snapshot
    procedure :: write_outputs => write_grid_outputs
    procedure :: write_flow_vts => write_grid_vts
    procedure, non_overridable :: write_whole_grid
  end type run_files_t

contains

  subroutine files_init(self, cs, prog, dir, restart_name, root, started)
    class(run_files_t), intent(inout) :: self
    type(case_t), intent(in) :: cs
    character(len=*), intent(in) :: prog, dir, restart_name
    logical, intent(in) :: root
    integer(ik8), intent(in) :: started   !< system_clock count at the program's start
    self%cs = cs
    self%prog = prog
    self%dir = dir
    self%restart_name = restart_name
    self%root = root
    self%write_series = cs%write_vtk .and. cs%output_interval > 0
    self%clock0 = started
  end subroutine files_init

  !> flow.pvd's list from it0 on (a restarted run keeps its earlier snapshots).
  subroutine start_series(self, it0)
    class(run_files_t), intent(inout) :: self
    integer(ik8), intent(in) :: it0
    if (self%write_series .and. self%root) call series_start(self%series, self%dir, trim(self%vts_ext), &
      int(self%cs%max_iter, ik8), it0, self%cs%output_interval)
  end subroutine start_series

  !> A restart at or past max_iter: says so, and the run stops (exit code 0).
  logical function nothing_left(self, it0)
    class(run_files_t), intent(in) :: self
    integer(ik8), intent(in) :: it0
    nothing_left = it0 >= self%cs%max_iter
    if (nothing_left .and. self%root) write(output_unit, '(a,i0,a,i0,a)') self%prog//': nothing left to do: '// &
      'the restart is at iteration ', it0, ', max_iter is ', self%cs%max_iter, '; raise max_iter (or --max-iter) '// &
      'to continue. No file was changed.'
  end function nothing_left

  !> Whether the loop writes the force history (forces.dat): a run whose
  !> grid has wall or lid patches. monitor_forces on a run without one is
  !> said, once.
  logical function writes_forces(self, be)
    class(run_files_t), intent(in) :: self
    class(backend_t), intent(in) :: be
    writes_forces = has_wall_patches(be%level(1)%f%ps)
    if (self%cs%monitor_forces .and. .not. writes_forces .and. self%root) write(output_unit, '(a)') &
      '  note: monitor_forces: this run has no wall or lid patch (patch_file), so there are no forces to show '// &
      'and no '//forces_history_name
  end function writes_forces

  !> The whole grid's patches (forces.dat's header): level 1's here.
  function grid_patches(self, be) result(ps)
    class(run_files_t), intent(in) :: self
    class(backend_t), intent(in) :: be
    type(patch_set_t) :: ps
    ps = be%level(1)%f%ps
  end function grid_patches

  !> The force coefficients of every wall or lid patch, by patch number
  !> (forces.dat's row), from level 1's host state (host_state done).
  subroutine patch_forces(self, be, loads)
    class(run_files_t), intent(in) :: self
    class(backend_t), intent(in) :: be
    type(patch_load_t), allocatable, intent(out) :: loads(:)
    associate (g => be%level(1))
      loads = wall_patch_loads(g%sp, g%lay, g%f%ps, g%f)
    end associate
  end subroutine patch_forces

  !> The state, iteration and reference residual of the restart into level
  !> 1. why: what stops the run with exit code 2 ('' if nothing does; a bad
  !> file stops it in read_field_dump already).
  subroutine read_grid_restart(self, be, it0, res0, why)
    class(run_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(out) :: it0
    real(rk), intent(out) :: res0(5)
    character(len=:), allocatable, intent(out) :: why
    integer :: version
    why = ''
    call read_field_dump(self%restart_name, be%level(1)%lay, be%level(1)%f%q, it0, res0, &
      self%cs%accept_old_restart, version)
    write(output_unit, '(a,i0)') '  restarting from '//self%restart_name//' at iteration ', it0
    call old_restart_note(output_unit, self%restart_name, version, it0)
  end subroutine read_grid_restart

  !> Norms of the last iteration finite: the state fetched to the host, .true.
  !> Otherwise .false.: a diverging run keeps its last good restart.
  logical function finite_state_fetched(be) result(finite)
    class(backend_t), intent(inout) :: be
    real(rk) :: nrm(5)
    call be%norms(nrm)
    finite = all(abs(nrm) <= huge(1.0_rk))
    if (finite) call be%fetch_state()
  end function finite_state_fetched

  !> The restart of iteration iter, only from a finite state; .true. if written.
  logical function save_grid_restart(self, be, iter, ref) result(saved)
    class(run_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    saved = finite_state_fetched(be)
    if (.not. saved) return
    call write_field_dump(self%restart_name, be%level(1)%lay, be%level(1)%f%q, iter, ref)
    self%restart_iteration = iter
  end function save_grid_restart

  !> The run's last restart (iteration iter, after its last iteration). A
  !> run on one grid (this exact type) writes it on a thread of its own
  !> (field_io's start_field_dump) while write_outputs makes the other files
  !> from the same host state; write_outputs waits for it before field.dump,
  !> which names its file. Every other kind of run (restart sets, blocks)
  !> writes it at once through its save_restart. .false.: the state was not
  !> finite, nothing written.
  logical function save_final_restart(self, be, iter, ref) result(saved)
    class(run_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    select type (self)
    type is (run_files_t)
      saved = finite_state_fetched(be)
      if (.not. saved) return
      ! the level's q is an allocatable component: its address stays until
      ! the backend is finalised, after the outputs
      call start_field_dump(self%restart_name, be%level(1)%lay, be%level(1)%f%q, iter, ref, self%restart_job)
      self%restart_job_iteration = iter
    class default
      saved = self%save_restart(be, iter, ref)
    end select
  end function save_final_restart

  !> Wait for save_final_restart's file; from then on it is the restart of
  !> restart_job_iteration.
  subroutine finish_final_restart(self)
    class(run_files_t), intent(inout) :: self
    if (self%restart_job_iteration < 0) return
    call finish_field_dump(self%restart_job)
    self%restart_iteration = self%restart_job_iteration
    self%restart_job_iteration = -1
  end subroutine finish_final_restart

  !> The snapshot of iteration iter (write_vtk), listed in flow.pvd.
  subroutine write_snapshot(self, be, iter)
    class(run_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    if (.not. self%cs%write_vtk) return
    call be%host_state()
    call self%write_flow_vts(be, snapshot_stem(iter, int(self%cs%max_iter, ik8)))
    if (self%write_series .and. self%root) call series_snapshot(self%series, iter)
  end subroutine write_snapshot

  !> dir/stem.vts of the grid, from level 1's host state and primitives.
  subroutine write_grid_vts(self, be, stem)
    class(run_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    character(len=*), intent(in) :: stem
    associate (g => be%level(1))
      call write_vts(self%dir//'/'//stem//'.vts', g%lay, g%sp, g%xn, g%f%qp, g%f%sf, g%f%vol)
    end associate
  end subroutine write_grid_vts

  !> The outputs of iteration iter (ref: the reference residual the dump keeps).
  subroutine write_grid_outputs(self, be, iter, ref)
    class(run_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    call be%host_state()
    associate (g => be%level(1), cs => self%cs)
      if (cs%write_vtk) call self%write_flow_vts(be, 'flow')
      if (self%write_series) call series_final(self%series, iter)
      call self%write_whole_grid(g%lay, g%sp, g%xn, g%f%qp, g%f%sf, g%f%vol, g%f%xc, g%f%ps)
      call write_wall_loads(self%dir, g%sp, g%lay, g%f)
      ! last, once the final restart (written meanwhile) is there: the restart
      ! of this iteration holds the same bytes (state, iteration, reference
      ! residual), written and read back: a second name of that file (a copy
      ! where the file system has no hard links) spares a second pass of
      ! writes and checks
      call finish_final_restart(self)
      if (cs%write_dump .and. self%restart_iteration == iter) then
        call copy_output(self%restart_name, self%dir//'/field.dump')
      else if (cs%write_dump) then
        call write_field_dump(self%dir//'/field.dump', g%lay, g%f%q, iter, ref)
      end if
    end associate
  end subroutine write_grid_outputs

  !> flow.dat, the centreline profiles, the Plot3D files and flow.cgns of the
  !> whole grid (its nodes xn, primitives qp, face vectors sf, volumes vol,
  !> cell centres xc, patches ps), the files both drivers write alike.
  subroutine write_whole_grid(self, lay, sp, xn, qp, sf, vol, xc, ps)
    class(run_files_t), intent(in) :: self
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:), sf(-1:,-1:,-1:,:), vol(-1:,-1:,-1:), xc(-1:,-1:,-1:,:)
    type(patch_set_t), intent(in) :: ps
    associate (cs => self%cs)
      if (cs%write_tecplot) call write_tecplot(self%dir//'/flow.dat', cs%title, lay, sp, xn, qp, sf, vol)
      if (cs%write_profiles) call write_profiles(self%dir, lay, sp, cs%lx, cs%ly, cs%lz, xc, qp)
      if (cs%write_plot3d) call write_plot3d_solution(self%dir, lay, sp, xn, qp, cs%mach, cs%freestream_alpha, &
        cs%reynolds)
      if (cs%write_cgns) call write_cgns_solution(self%dir//'/flow.cgns', cs%title, lay, sp, xn, qp, ps)
    end associate
  end subroutine write_whole_grid

  !> What a restart of an older format means for this run (version: the
  !> file's, from read_field_dump); nothing for the current version.
  subroutine old_restart_note(unit, name, version, it0)
    integer, intent(in) :: unit, version
    character(len=*), intent(in) :: name
    integer(ik8), intent(in) :: it0
    if (version == 1) then
      write(unit, '(a,i0,a)') '  note: '//name//' is of format version 1 (read with --accept-old-restart): '// &
        'nothing protected its header, so its reference residual is not used; the convergence reference '// &
        'starts again from the residual of iteration ', it0 + 1, ' (the drop and tol count from there)'
    else if (version == 2) then
      write(unit, '(a)') '  note: '//name//' is of format version 2 (Fletcher-64 checksum); '// &
        'the restarts of this run are written as version 3 (CRC-64)'
    end if
  end subroutine old_restart_note
end module run_files
