!> The coarse multigrid levels of a decomposed grid (adiflow_mpi) that are
!> small enough to run whole on every rank: levels W..nlev (W = first, the
!> first level of at most whole_cells cells, &parallel). On a coarse level a
!> block holds few cells, and what an iteration costs there is the latency
!> of its messages: the halo exchanges and, in exact mode, the pipelined
!> sweeps' hand-overs from rank to rank, which grow with the ranks along a
!> split direction (bench/log/2026-11-29-exact-pipeline.md, section 11).
!> Every rank iterates the whole level instead, the same arithmetic on the
!> same bits, so no message is needed below level W.
!>
!> Level W is kept twice: as this rank's block (dcl(W), so that the
!> restriction from level W-1 and the prolongation onto it stay the
!> blocks' own, halos included) and whole (serial%level(1)). After the
!> blocks restrict onto level W, share_state gives every rank every
!> block's state and forcing (MPI_Allgatherv of the interior cells); the
!> whole levels then run the serial code (fortran/backend_cpu.f90: build/
!> adiflow's levels of the whole grid, its metrics, its boundary fill);
!> before the blocks prolong level W's correction onto level W-1,
!> take_state copies this rank's part of the whole level's state into its
!> block. Copies change no bit: exact mode reproduces build/adiflow with the
!> same levels, and decoupled mode runs its coarse levels as one domain.
!> The GPU blocks do the same on the device (fortran/backend_mpi_gpu.f90).
!>
!> Where levels must be gathered anyway (a level the blocks cannot halve,
!> fortran/multigrid_gather.f90), whole levels are used only if they start
!> above it; otherwise the gathered path runs as before.
module multigrid_whole
  use mpi_f08
  use kinds, only: rk, ik8, ng, nvar
  use text_util, only: int_text
  use grid_layout, only: layout_t
  use case_config, only: case_t
  use solver_params, only: solver_params_t
  use boundary_patches, only: patch_set_t
  use multigrid_levels, only: coarse_nodes, init_level, level_weight
  use backend_cpu, only: cpu_backend_t
  use mpi_decomp, only: decomp_t, mpi_check
  use level_blocks, only: level_blocks_t
  implicit none
  private
  public :: whole_levels_t, first_whole_level, whole_text

  !> (level_blocks_t: every rank's block of level W)
  type, extends(level_blocks_t) :: whole_levels_t
    integer :: first = 0              !< W: the first whole level (0: none)
    type(cpu_backend_t) :: serial     !< level(n) = grid level W+n-1, whole, on every rank
  contains
    procedure :: start => whole_start
    procedure :: share_state
    procedure :: take_state
    procedure :: index_of
  end type whole_levels_t

contains

  !> The first level of the nlev planned (sizes(:, l): level l's cells)
  !> with at most whole_cells cells, from level 2 on; 0 where none, where
  !> whole_cells = 0, on one rank (nothing to save), or where a gathered
  !> level (gather_from > 0) comes first.
  pure integer function first_whole_level(nlev, sizes, whole_cells, nranks, gather_from) result(first)
    integer, intent(in) :: nlev, sizes(:,:), nranks, gather_from
    integer(ik8), intent(in) :: whole_cells
    integer :: l
    first = 0
    if (whole_cells <= 0 .or. nranks < 2) return
    do l = 2, nlev
      if (product(int(sizes(:, l), ik8)) <= whole_cells) then
        first = l
        exit
      end if
    end do
    if (gather_from > 0 .and. first >= gather_from) first = 0
  end function first_whole_level

  !> What the run does, for rank 0's line about the hierarchy.
  function whole_text(first, nlev, whole_cells) result(s)
    integer, intent(in) :: first, nlev
    integer(ik8), intent(in) :: whole_cells
    character(len=:), allocatable :: s
    if (first == nlev) then
      s = 'level '//int_text(first)
    else
      s = 'levels '//int_text(first)//'..'//int_text(nlev)
    end if
    s = s//' whole on every rank (at most '//int_text(whole_cells)//' cells, whole_cells; no messages there)'
  end function whole_text

  !> Levels first..nlev whole on every rank: dcw is level first's
  !> decomposition (this rank's block of it, the communicator); the levels
  !> from the whole grid's nodes xn_g, as build/adiflow builds them (sizes,
  !> ratios: the plan; ps_lev: each level's patches, when the grid has
  !> them; stage_work: the host iterates them). Collective.
  subroutine whole_start(self, dcw, cs, sp_g, xn_g, first, nlev, sizes, ratios, coarse_order, plain_roe, ps_lev, &
      stage_work)
    class(whole_levels_t), intent(inout) :: self
    type(decomp_t), intent(in) :: dcw
    type(case_t), intent(in) :: cs
    type(solver_params_t), intent(in) :: sp_g
    real(rk), intent(in) :: xn_g(:, -ng:, -ng:, -ng:)
    integer, intent(in) :: first, nlev, sizes(:,:), ratios(:,:), coarse_order
    logical, intent(in) :: plain_roe, stage_work
    type(patch_set_t), allocatable, intent(in) :: ps_lev(:)
    real(rk), allocatable :: xg(:,:,:,:), xc(:,:,:,:)
    integer :: l, n
    self%first = first
    call self%start_blocks(dcw, sizes(1, first), 'the first whole level')

    associate (s => self%serial)
      s%nlev = nlev - first + 1
      allocate(s%level(s%nlev), s%weight(s%nlev))
      ! the whole grid's nodes level by level, as build_coarse_levels makes
      ! them (level 2 from the fine nodes themselves: no copy of those)
      do l = 2, nlev
        if (l == 2) then
          call coarse_nodes(sp_g, xn_g, sizes(:, l), ratios(:, l), xc)
        else
          call coarse_nodes(sp_g, xg, sizes(:, l), ratios(:, l), xc)
        end if
        if (l >= first) then
          n = l - first + 1
          call init_level(s%level(n), cs, xc, sizes(:, l), ratios(:, l), coarse_order, plain_roe, &
            level_weight(sizes, l), stage_work)
          if (allocated(ps_lev)) s%level(n)%f%ps = ps_lev(l)
        end if
        call move_alloc(xc, xg)
      end do
      s%weight = s%level%weight
    end associate
  end subroutine whole_start

  !> The serial backend's level of grid level l (>= first).
  pure integer function index_of(self, l)
    class(whole_levels_t), intent(in) :: self
    integer, intent(in) :: l
    index_of = l - self%first + 1
  end function index_of

  !> The interior cells of q and forcing of every rank's block of level
  !> first (this rank's: layout lay) into the whole level's, on every rank.
  !> Collective.
  subroutine share_state(self, lay, q, forcing)
    class(whole_levels_t), intent(inout) :: self
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: q(-1:,-1:,-1:,:), forcing(-1:,-1:,-1:,:)
    real(rk), allocatable :: all(:)
    integer :: r, ierr
    allocate(all(2*nvar*sum(int(self%lines, ik8))*lay%ni))
    call MPI_Allgatherv(self%pack_pair(lay, q, forcing), 2*lay%nj*lay%nk*nvar, self%line, all, 2*nvar*self%lines, &
      2*nvar*self%at, self%line, self%comm, ierr)
    call mpi_check(ierr, 'MPI_Allgatherv (multigrid: a level to every rank)')
    associate (w => self%serial%level(1))
      do r = 1, size(self%lines)
        call self%put_pair(r, lay%ni, all, w%f%q, w%forcing)
      end do
    end associate
  end subroutine share_state

  !> This rank's part of the whole level's state into q of its block of
  !> level first (layout lay), interior cells.
  subroutine take_state(self, lay, q)
    class(whole_levels_t), intent(in) :: self
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    associate (e => self%ext(:, self%rank + 1), qw => self%serial%level(1)%f%q)
      q(1:lay%ni, 1:lay%nj, 1:lay%nk, 1:nvar) = qw(1:lay%ni, e(1)+1:e(1)+e(3), e(2)+1:e(2)+e(4), 1:nvar)
    end associate
  end subroutine take_state
end module multigrid_whole
