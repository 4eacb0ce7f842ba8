!> The backend of a run: what the iteration loop (fortran/driver_loop.f90),
!> the multigrid cycle (fortran/multigrid_cycle.f90) and the run's files
!> (fortran/run_files.f90) ask of the machine the solver runs on.
!> Extensions, one file each: the CPU reference (backend_cpu.f90), one GPU
!> (backend_gpu.f90), a block of a decomposed grid on a CPU
!> (backend_mpi_block.f90) or on a GPU (backend_mpi_gpu.f90).
!>
!> The host always holds the grid: level(1) is the grid (or this rank's
!> block of it) that the backend iterates, with its parameters, layout,
!> fields and nodes; level(2..nlev) are the coarse multigrid levels
!> (fortran/multigrid_levels.f90). A GPU backend keeps the state on the
!> device and brings it to level(1)%f%q when fetch_state is called.
!>
!> Adding an operation: a deferred binding here (or a concrete one with the
!> single-grid rule, overridden where a block differs), its body in each
!> extension that does it differently, and its call in the loop or the
!> cycle.
module backend
  use kinds, only: rk, ik8
  use omp_policy, only: team_for_cells
  use first_touch, only: fill_components
  use multigrid_cycle, only: mg_levels_t
  use multigrid_levels, only: mg_level_t
  use grid_layout, only: layout_t
  use solver_params, only: solver_params_t
  use flow_fields, only: allocate_fields
  use metrics, only: compute_metrics
  use flow_math, only: rest_pressure, prim_to_cons
  use patch_file, only: freestream_state
  use ghost_fill, only: fill_ghosts, fill_wall_temperatures
  use primitives, only: compute_primitives
  implicit none
  private
  public :: backend_t, rest_state, free_stream_state

  type, abstract, extends(mg_levels_t) :: backend_t
    !> level(1): the grid the backend iterates; 2..nlev: the coarse levels
    type(mg_level_t), allocatable :: level(:)
    !> faces of level 1 on the domain's boundary (all but a block's internal ones)
    logical :: phys(6) = .true.
    !> case key mass_fix: after every iteration (or cycle) the state is
    !> scaled back to the total mass mass0 (fortran/mass_constraint.f90)
    logical :: mass_fix = .false.
    real(rk) :: mass0 = 0.0_rk
  contains
    procedure, non_overridable :: iterate
    procedure, non_overridable :: set_grid
    !> the three below work on level 1; a set of blocks (backend_blocks.f90) does them on each block
    procedure :: start_at_rest
    procedure :: start_in_free_stream
    procedure :: host_state
    procedure :: fill_boundary => fill_serial
    procedure :: any_process => any_serial
    !> .true. where the host runs the stages on the levels' fields (so
    !> their work fields must hold defined values); a GPU backend's .false.
    procedure, nopass :: host_iterates => host_iterates_yes
    !> the backend takes over the host's levels and state, once, before the
    !> first iteration (a GPU copies them to the device)
    procedure(backend_op), deferred :: start
    !> scale the state back to mass0
    procedure(backend_op), deferred :: fix_mass
    !> RMS residual norms of the last iteration over the whole grid
    procedure(norms_op), deferred :: norms
    !> the state of level 1 into level(1)%f%q (nothing to do on the CPU)
    procedure(backend_op), deferred :: fetch_state
    !> the run's last device work is done (its final restart fetched): a
    !> GPU fetches the state (unless state_on_host: fetched since the last
    !> iteration) and starts releasing itself while the host writes the
    !> outputs (only host_state and finalize may follow); nothing to do
    !> elsewhere
    procedure :: release_device => release_nothing
    !> release what the backend holds outside the host's fields
    procedure(backend_op), deferred :: finalize
  end type backend_t

  abstract interface
    subroutine backend_op(self)
      import :: backend_t
      class(backend_t), intent(inout) :: self
    end subroutine
    subroutine norms_op(self, nrm)
      import :: backend_t, rk
      class(backend_t), intent(inout) :: self
      real(rk), intent(out) :: nrm(5)
    end subroutine
  end interface

contains

  !> One step of the run: a multigrid cycle over the levels, or one
  !> iteration of the grid; then the mass constraint.
  subroutine iterate(self, cfl)
    class(backend_t), intent(inout) :: self
    real(rk), intent(in) :: cfl
    if (self%nlev > 1) then
      call self%run_cycle(cfl)
    else
      self%work_units = self%work_units + 1.0_rk
      call self%smooth(1, cfl)
    end if
    if (self%mass_fix) call self%fix_mass()
  end subroutine iterate

  !> Level 1 from its parameters, layout and nodes (xn, moved in: its
  !> cells and two ghost layers), its fields allocated and its metrics
  !> computed; room for nlev levels (the coarse ones: build_coarse_levels,
  !> then weight = level%weight).
  subroutine set_grid(self, sp, lay, xn, nlev)
    class(backend_t), intent(inout) :: self
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    real(rk), allocatable, intent(inout) :: xn(:,:,:,:)
    integer, intent(in) :: nlev
    allocate(self%level(nlev), self%weight(nlev))
    self%nlev = nlev
    self%weight = 1.0_rk
    self%level(1)%sp = sp
    self%level(1)%lay = lay
    call move_alloc(xn, self%level(1)%xn)
    associate (g => self%level(1))
      call allocate_fields(lay, g%f, self%host_iterates())
      call compute_metrics(lay, g%xn, g%f%sf, g%f%sc, g%f%vol, g%f%xc)
    end associate
  end subroutine set_grid

  !> The state of a run that does not restart: fluid at rest, rho = 1,
  !> T = 1, p = 1 / (gamma Mach^2).
  subroutine start_at_rest(self)
    class(backend_t), intent(inout) :: self
    call rest_state(self%level(1)%sp, self%level(1)%f%q)
  end subroutine start_at_rest

  !> q: fluid at rest, rho = 1, T = 1, p = 1 / (gamma Mach^2).
  subroutine rest_state(sp, q)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(inout) :: q(:,:,:,:)
    call fill_components(q, [1.0_rk, 0.0_rk, 0.0_rk, 0.0_rk, rest_pressure(sp)/sp%gm1], team_of(q))
  end subroutine rest_state

  !> The thread team for a field's planes (omp_policy's rule by cell count).
  integer function team_of(q)
    real(rk), intent(in) :: q(:,:,:,:)
    team_of = team_for_cells(int(size(q, 1), ik8)*size(q, 2)*size(q, 3))
  end function team_of

  !> The state of an external flow that does not restart (a grid with open
  !> patches): the free stream everywhere, density 1, speed 1 along alpha
  !> and beta (degrees: patch_file's freestream_state), T = 1.
  subroutine start_in_free_stream(self, alpha, beta)
    class(backend_t), intent(inout) :: self
    real(rk), intent(in) :: alpha, beta
    call free_stream_state(self%level(1)%sp, alpha, beta, self%level(1)%f%q)
  end subroutine start_in_free_stream

  !> q: the free stream, density 1, speed 1 along alpha and beta (degrees), T = 1.
  subroutine free_stream_state(sp, alpha, beta, q)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: alpha, beta
    real(rk), intent(inout) :: q(:,:,:,:)
    real(rk) :: fs(5), qf(5)
    fs = freestream_state(sp, alpha, beta)
    call prim_to_cons(sp, fs(1), fs(2), fs(3), fs(4), fs(5), qf)
    call fill_components(q, qf, team_of(q))
  end subroutine free_stream_state

  !> The state on the host for the outputs: fetched, its boundary fill and
  !> primitives (the wall temperature's ghosts included: the outputs' wall
  !> nodes read them).
  subroutine host_state(self)
    class(backend_t), intent(inout) :: self
    call self%fetch_state()
    call self%fill_boundary(1)
    associate (g => self%level(1))
      call compute_primitives(g%sp, g%lay, g%f%q, g%f%qp)
      call fill_wall_temperatures(g%sp, g%lay, g%f, self%phys)
    end associate
  end subroutine host_state

  !> The ghosts of level l's host state, by the boundary rules of the
  !> whole grid's faces.
  subroutine fill_serial(self, l)
    class(backend_t), intent(inout) :: self
    integer, intent(in) :: l
    associate (g => self%level(l))
      call fill_ghosts(g%sp, g%lay, g%f)
    end associate
  end subroutine fill_serial

  subroutine release_nothing(self, state_on_host)
    class(backend_t), intent(inout) :: self
    logical, intent(in) :: state_on_host
  end subroutine release_nothing

  logical function host_iterates_yes()
    host_iterates_yes = .true.
  end function host_iterates_yes

  !> .true. when flag is .true. on any process of the run: one here.
  logical function any_serial(self, flag)
    class(backend_t), intent(in) :: self
    logical, intent(in) :: flag
    any_serial = flag
  end function any_serial
end module backend
