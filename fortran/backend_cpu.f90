!> The CPU reference backend: fortran/solver_cpu.f90's iteration on the
!> host's fields, and the host's multigrid level operations. A block of a
!> decomposed grid (fortran/backend_mpi_block.f90) extends it with its own
!> boundary fill (halos), iteration, sums and agreement; restrict and
!> prolong serve its decomposed levels unchanged (it calls cpu_restrict and
!> cpu_prolong on itself, so their fill and residual are the block's), and
!> restrict_onto (restrict without the fine level's residual) serves the
!> levels it gathers onto rank 0 (fortran/multigrid_gather.f90). Mirror of
!> the level operations on the GPU: cuda/api/multigrid.cu.
module backend_cpu
  use kinds, only: rk
  use backend, only: backend_t
  use flow_fields, only: zero_stage_work
  use solver_cpu, only: cpu_iteration, residual_of_filled_state, add_forcing
  use residual_norms, only: compute_residual_norms
  use mass_constraint, only: total_mass, rescale_to_mass
  use multigrid_transfer, only: restrict_level, subtract_residual, coarse_correction, prolong_correction
  implicit none
  private
  public :: cpu_backend_t, cpu_restrict, cpu_prolong, restrict_onto, residual_with_forcing, to_cpu_backend

  type, extends(backend_t) :: cpu_backend_t
  contains
    procedure :: smooth => cpu_smooth
    procedure :: restrict => cpu_restrict
    procedure :: prolong => cpu_prolong
    procedure :: residual => cpu_residual
    procedure :: norms => cpu_norms
    procedure :: fix_mass => cpu_fix_mass
    procedure :: start => cpu_nothing
    procedure :: fetch_state => cpu_nothing
    procedure :: finalize => cpu_nothing
  end type cpu_backend_t

contains

  !> be, whose grid was set (set_grid) for a backend that iterates elsewhere,
  !> as the CPU reference with the same level 1 (its stage work fields
  !> zeroed now, as allocate_fields zeroes them on the host); before the
  !> coarse levels. A run that looked for a GPU while it made its grid and
  !> found none.
  subroutine to_cpu_backend(be)
    class(backend_t), allocatable, intent(inout) :: be
    class(backend_t), allocatable :: c
    allocate(cpu_backend_t :: c)
    c%mg = be%mg
    c%nlev = be%nlev
    call move_alloc(be%level, c%level)
    call move_alloc(be%weight, c%weight)
    call zero_stage_work(c%level(1)%lay, c%level(1)%f)
    call move_alloc(c, be)
  end subroutine to_cpu_backend

  !> One iteration of level l; a coarse level's forcing is allocated and
  !> enters as the optional argument, level 1's is not and stays absent.
  subroutine cpu_smooth(self, l, cfl)
    class(cpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    associate (g => self%level(l))
      call cpu_iteration(g%sp, g%lay, cfl, g%f, forcing=g%forcing)
    end associate
  end subroutine cpu_smooth

  !> The boundary fill and residual R(q) of level l (its forcing not added).
  subroutine cpu_residual(self, l, cfl)
    class(cpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    call self%fill_boundary(l)
    associate (g => self%level(l))
      call residual_of_filled_state(g%sp, g%lay, cfl, g%f, self%phys)
    end associate
  end subroutine cpu_residual

  !> Residual of level l (forcing included), its state and residual to
  !> level l+1 (boundary-filled, kept as q0), and level l+1's forcing.
  subroutine cpu_restrict(self, l, cfl)
    class(cpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    call residual_with_forcing(self, l, cfl)
    call restrict_onto(self, l, cfl)
  end subroutine cpu_restrict

  !> Level l's residual with its forcing added (a coarse level's): what
  !> the restriction reads of it, in level(l)%f%res.
  subroutine residual_with_forcing(self, l, cfl)
    class(cpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    call self%residual(l, cfl)
    associate (g => self%level(l))
      ! a coarse level's (level 1 of the whole levels of fortran/multigrid_whole.f90 is one too)
      if (allocated(g%forcing)) call add_forcing(g%lay, g%forcing, g%f%res)
    end associate
  end subroutine residual_with_forcing

  !> The rest of cpu_restrict once level l's state and residual (forcing
  !> included) stand in level(l)%f%q and %res. Of level l it reads only the
  !> interior cells of q, res and vol, so a level gathered from the blocks
  !> of a decomposed grid can stand there (fortran/multigrid_gather.f90).
  subroutine restrict_onto(self, l, cfl)
    class(cpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    associate (g => self%level(l), c => self%level(l + 1))
      call restrict_level(c%lay, c%ratio, g%f%vol, g%f%q, g%f%res, c%f%q, c%forcing)
      call self%fill_boundary(l + 1)
      c%q0 = c%f%q
      call self%residual(l + 1, cfl)
      call subtract_residual(c%lay, c%f%res, c%forcing)
    end associate
  end subroutine restrict_onto

  !> Level l += the interpolated correction of level l+1 (its interior
  !> cells: level l's q is all it reads and writes of level l).
  subroutine cpu_prolong(self, l)
    class(cpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    call self%fill_boundary(l + 1)
    associate (g => self%level(l), c => self%level(l + 1))
      call coarse_correction(c%lay, c%f%q, c%q0, c%f%dq)
      call prolong_correction(g%lay, c%ratio, c%f%dq, g%f%q)
    end associate
  end subroutine cpu_prolong

  subroutine cpu_norms(self, nrm)
    class(cpu_backend_t), intent(inout) :: self
    real(rk), intent(out) :: nrm(5)
    associate (g => self%level(1))
      call compute_residual_norms(g%lay, g%f%res, g%f%vol, nrm)
    end associate
  end subroutine cpu_norms

  subroutine cpu_fix_mass(self)
    class(cpu_backend_t), intent(inout) :: self
    associate (g => self%level(1))
      call rescale_to_mass(g%lay, g%f%q, self%mass0, total_mass(g%lay, g%f%vol, g%f%q))
    end associate
  end subroutine cpu_fix_mass

  !> The state is the host's already, and nothing else is held.
  subroutine cpu_nothing(self)
    class(cpu_backend_t), intent(inout) :: self
  end subroutine cpu_nothing
end module backend_cpu
