!> The CPU reference over several blocks joined by 1-to-1 interfaces (a
!> multi-block grid: grid_blocks' grid_block_set_t): each block its own
!> layout, parameters, nodes, metrics and fields; one iteration of the set
!> fills every block's ghosts, computes every block's residual from the same
!> state, then runs each block's LU-ADI sweeps on its own lines, the
!> interface increments held at zero as adiflow_mpi's decoupled mode holds
!> them, and updates (optionally rescaling the set to a total mass, the
!> case's mass_fix: the zero increments let the mass drift).
!>
!> Ghosts, nodes once and the state at every iteration, are filled direction
!> by direction as a single grid fills them (i, then j, then k): in the step
!> of direction d, first the ghosts across the interfaces of the d faces
!> (fortran/block_halos.f90), then each block's own d faces
!> (fill_ghost_nodes_direction, fill_ghosts_direction), so that the edges
!> beyond an interface come from its ghosts. Where the interfaces join faces
!> of the same direction, a block's residual is then the whole grid's
!> (tests/unit/test_block_residual.f90). Not yet: interfaces over part of a
!> face, interfaces joining faces of different directions (their edge
!> ghosts would need another order), 2D blocks, multigrid over the set, the
!> GPU: init refuses what it cannot run, saying why.
module block_set_solver
  use kinds, only: rk, ng
  use grid_layout, only: layout_t, make_layout
  use solver_params, only: solver_params_t, BC_PERIODIC
  use case_config, only: case_t, make_solver_params
  use flow_fields, only: fields_t, allocate_fields
  use grid_generation, only: fill_ghost_nodes_direction
  use grid_blocks, only: grid_block_set_t, block_interface_t, face_range_t, range_text, block_label
  use block_halos, only: fill_interface_cells, fill_interface_nodes
  use metrics, only: compute_metrics
  use ghost_fill, only: fill_ghosts_direction
  use solver_cpu, only: residual_of_filled_state, cpu_adi_update
  use mass_constraint, only: total_mass, rescale_to_mass
  use residual_norms, only: add_residual_plane_sums
  implicit none
  private
  public :: solver_block_t, block_set_solver_t

  type :: solver_block_t
    type(layout_t) :: lay
    type(solver_params_t) :: sp
    type(fields_t) :: f
    real(rk), allocatable :: xn(:,:,:,:)   !< nodes xn(3, -ng:ni+ng, ...), ghost nodes included
    integer :: n(3) = 0                    !< nodes in i, j, k
    logical :: phys(6) = .true.            !< faces filled by the block's own boundary conditions
  end type solver_block_t

  type :: block_set_solver_t
    type(solver_block_t), allocatable :: b(:)
    type(block_interface_t), allocatable :: itf(:)
  contains
    procedure :: init => set_init
    procedure :: fill => set_fill
    procedure :: iterate => set_iterate
    procedure :: residual_l2 => set_residual_l2
    procedure :: mass => set_mass
  end type block_set_solver_t

contains

  !> The solver over the blocks of set, block b with the case cs(b) (its
  !> faces' boundary conditions; an interface face's own is not used).
  !> why: '' or the reason the set cannot run yet.
  subroutine set_init(self, set, cs, why)
    class(block_set_solver_t), intent(inout) :: self
    type(grid_block_set_t), intent(in) :: set
    type(case_t), intent(in) :: cs(:)
    character(len=:), allocatable, intent(out) :: why
    type(face_range_t) :: r
    integer :: b, q, s, d
    why = ''
    self%itf = set%interfaces
    allocate(self%b(set%nblocks))
    do b = 1, set%nblocks
      if (set%blocks(b)%n(3) == 1) then
        why = block_label(set, b)//' is 2D (one plane of nodes); the solver over blocks takes 3D blocks so far'
        return
      end if
    end do
    do q = 1, size(self%itf)
      if (self%itf(q)%a%face/2 /= self%itf(q)%b%face/2) then
        why = range_text(set, self%itf(q)%a)//' = '//range_text(set, self%itf(q)%b)//': an interface between '// &
          'faces of different directions; the solver over blocks takes interfaces within one direction so far'
        return
      end if
      do s = 1, 2
        r = self%itf(q)%a
        if (s == 2) r = self%itf(q)%b
        if (.not. whole_face(r, set%blocks(r%block)%n)) then
          why = range_text(set, r)//': an interface over part of a face; the solver over blocks takes whole '// &
            'faces so far'
          return
        end if
        self%b(r%block)%phys(r%face + 1) = .false.
      end do
    end do
    do b = 1, set%nblocks
      associate (blk => self%b(b), n => set%blocks(b)%n)
        blk%n = n
        blk%lay = make_layout(n(1) - 1, n(2) - 1, n(3) - 1)
        blk%sp = make_solver_params(cs(b), blk%lay)
        call allocate_fields(blk%lay, blk%f)
        allocate(blk%xn(3, -ng:n(1)-1+ng, -ng:n(2)-1+ng, -ng:n(3)-1+ng))
        blk%xn = 0.0_rk
        blk%xn(:, 0:n(1)-1, 0:n(2)-1, 0:n(3)-1) = set%blocks(b)%xyz
      end associate
    end do
    ! ghost nodes direction by direction: the extrapolation fills both faces
    ! of direction d, then the interfaces' ghosts replace it on their faces
    do d = 1, 3
      do b = 1, size(self%b)
        associate (blk => self%b(b))
          call fill_ghost_nodes_direction(blk%xn, blk%lay%ni, blk%lay%nj, blk%lay%nk, &
            blk%sp%bc(2*d - 1) == BC_PERIODIC, d)
        end associate
      end do
      call across(d)
    end do
    do b = 1, size(self%b)
      associate (blk => self%b(b))
        call compute_metrics(blk%lay, blk%xn, blk%f%sf, blk%f%sc, blk%f%vol, blk%f%xc)
      end associate
    end do
  contains
    !> Whether r covers its face whole.
    logical function whole_face(r, n)
      type(face_range_t), intent(in) :: r
      integer, intent(in) :: n(3)
      integer :: e
      whole_face = .true.
      do e = 1, 3
        if (e == r%face/2 + 1) cycle
        whole_face = whole_face .and. min(r%beg(e), r%end(e)) == 1 .and. max(r%beg(e), r%end(e)) == n(e)
      end do
    end function whole_face

    subroutine across(d)
      integer, intent(in) :: d
      integer :: q
      do q = 1, size(self%itf)
        associate (t => self%itf(q), ba => self%b(self%itf(q)%a%block), bb => self%b(self%itf(q)%b%block))
          if (t%a%face/2 + 1 == d) call fill_interface_nodes(t, .true., ba%n, ba%xn, bb%xn)
          if (t%b%face/2 + 1 == d) call fill_interface_nodes(t, .false., bb%n, bb%xn, ba%xn)
        end associate
      end do
    end subroutine across
  end subroutine set_init

  !> Every block's ghost cells: direction by direction, the interfaces'
  !> first (from the neighbours' interior), then the block's own faces.
  subroutine set_fill(self)
    class(block_set_solver_t), intent(inout) :: self
    integer :: d, q, b
    do d = 1, 3
      do q = 1, size(self%itf)
        associate (t => self%itf(q), ba => self%b(self%itf(q)%a%block), bb => self%b(self%itf(q)%b%block))
          if (t%a%face/2 + 1 == d) call fill_interface_cells(t, .true., ba%n, ba%f%q, bb%f%q)
          if (t%b%face/2 + 1 == d) call fill_interface_cells(t, .false., bb%n, bb%f%q, ba%f%q)
        end associate
      end do
      do b = 1, size(self%b)
        associate (blk => self%b(b))
          call fill_ghosts_direction(blk%sp, blk%lay, d, blk%f, blk%phys)
        end associate
      end do
    end do
  end subroutine set_fill

  !> One iteration of every block (see the module's header); mass0 present:
  !> the set rescaled to that total mass afterwards, every block by the
  !> same factor.
  subroutine set_iterate(self, cfl, mass0)
    class(block_set_solver_t), intent(inout) :: self
    real(rk), intent(in) :: cfl
    real(rk), intent(in), optional :: mass0
    integer :: b
    real(rk) :: m
    call self%fill()
    do b = 1, size(self%b)
      associate (blk => self%b(b))
        call residual_of_filled_state(blk%sp, blk%lay, cfl, blk%f, blk%phys)
      end associate
    end do
    do b = 1, size(self%b)
      call cpu_adi_update(self%b(b)%sp, self%b(b)%lay, self%b(b)%f)
    end do
    if (present(mass0)) then
      m = self%mass()
      do b = 1, size(self%b)
        call rescale_to_mass(self%b(b)%lay, self%b(b)%f%q, mass0, m)
      end do
    end if
  end subroutine set_iterate

  !> The L2 norms of the last residual over all cells of the set (as
  !> residual_norms computes them for one grid: res/vol, squared, averaged).
  function set_residual_l2(self) result(norms)
    class(block_set_solver_t), intent(in) :: self
    real(rk) :: norms(5)
    real(rk), allocatable :: plane(:,:)
    real(rk) :: cells
    integer :: b
    norms = 0.0_rk
    cells = 0.0_rk
    do b = 1, size(self%b)
      associate (lay => self%b(b)%lay)
        allocate(plane(5, lay%nk))
        plane = 0.0_rk
        call add_residual_plane_sums(lay, self%b(b)%f%res, self%b(b)%f%vol, plane)
        norms = norms + sum(plane, dim=2)
        cells = cells + real(lay%ni, rk)*real(lay%nj, rk)*real(lay%nk, rk)
        deallocate(plane)
      end associate
    end do
    norms = sqrt(norms/cells)
  end function set_residual_l2

  !> The total mass of the set's interior (the sum of the blocks').
  function set_mass(self) result(m)
    class(block_set_solver_t), intent(in) :: self
    real(rk) :: m
    integer :: b
    m = 0.0_rk
    do b = 1, size(self%b)
      m = m + total_mass(self%b(b)%lay, self%b(b)%f%vol, self%b(b)%f%q)
    end do
  end function set_mass
end module block_set_solver
