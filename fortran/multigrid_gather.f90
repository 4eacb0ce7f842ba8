!> The coarse multigrid levels of a decomposed grid (adiflow_mpi) that
!> cannot be split over the blocks: they run whole on rank 0, as
!> build/adiflow runs them, and the other ranks skip them.
!>
!> A block of level l-1 halves into a block of level l only where its cell
!> count in each split direction that coarsens is even, at an even offset,
!> and keeps the halo's depth after halving. first_gathered_level finds
!> the first level G where some block does not; levels 1..G-1 stay
!> decomposed, levels G..nlev are gathered.
!>
!> Between level G-1 (decomposed) and level G (whole) stands the shadow: a
!> whole-grid copy of level G-1 on rank 0 holding only what the transfers
!> of fortran/multigrid_transfer.f90 read and write of the fine level: its
!> layout, cell volumes (the whole grid's metrics, as build/adiflow has
!> them), and the interior cells of q and res. Restricting level G-1: each
!> block has computed its residual (forcing included); gather_state copies
!> the interiors of q and res into the shadow, and rank 0 restricts the
!> shadow onto level G by the serial code (backend_cpu's restrict_onto).
!> Prolonging onto level G-1: rank 0 adds level G's correction to the
!> shadow's q (the gathered state, which nothing changed since), and
!> scatter_state hands each block its part of it back. Copies change no
!> bit, so exact mode reproduces build/adiflow with the same levels.
!>
!> The handle keeps the gathered levels as a serial CPU backend of their
!> own (serial): level(1) is the shadow, level(n), n >= 2, is level G+n-2
!> of the grid, each with the whole grid's layout, parameters, metrics and
!> patches; its smooth, restrict and prolong are the CPU reference's with
!> the serial boundary fill. Only rank 0 holds them.
module multigrid_gather
  use mpi_f08
  use kinds, only: rk, ik8, ng, nvar
  use text_util, only: int_text
  use grid_layout, only: layout_t, make_layout
  use case_config, only: case_t
  use solver_params, only: solver_params_t
  use boundary_patches, only: patch_set_t
  use metrics, only: compute_metrics
  use flow_fields, only: NMETRIC
  use multigrid_levels, only: mg_level_t, coarse_nodes, init_level, level_weight
  use backend_cpu, only: cpu_backend_t
  use mpi_decomp, only: decomp_t, block_range, mpi_check
  use level_blocks, only: level_blocks_t
  implicit none
  private
  public :: gathered_levels_t, first_gathered_level, gathered_text

  !> (level_blocks_t: every rank's block of level G-1)
  type, extends(level_blocks_t) :: gathered_levels_t
    integer :: first = 0              !< G: the first gathered level (0: none, every level decomposed)
    type(cpu_backend_t) :: serial     !< rank 0: the shadow (level 1) and levels G..nlev (2..)
  contains
    procedure :: start => gathered_start
    procedure :: gather_state
    procedure :: scatter_state
    procedure :: index_of
  end type gathered_levels_t

contains

  !> The first level of the nlev planned (ratios(:, l): level l's
  !> coarsening) that the blocks of dc cannot carry: the first whose
  !> coarsening of a split direction meets a block of the level above of an
  !> odd cell count, at an odd offset, or that would keep fewer cells than
  !> the halo's depth. 0 when every level splits. why: the first such block.
  !> Every rank finds the same from the decomposition alone (block_range).
  subroutine first_gathered_level(dc, nlev, ratios, first, why)
    type(decomp_t), intent(in) :: dc
    integer, intent(in) :: nlev, ratios(:,:)
    integer, intent(out) :: first
    character(len=:), allocatable, intent(out) :: why
    character(len=1), parameter :: dn(3) = ['i', 'j', 'k']
    integer :: l, d, r, cr(3), nl(3), of(3), n, o
    first = 0
    why = ''
    cr = 1
    do l = 2, nlev
      do d = 2, 3
        if (ratios(d, l) == 1 .or. merge(dc%npj, dc%npk, d == 2) == 1) cycle
        do r = 0, dc%nranks - 1
          ! rank r's block on level l-1 (the levels above split evenly)
          call block_range(dc, r, nl, of)
          n = nl(d)/cr(d)
          o = of(d)/cr(d)
          if (mod(n, 2) /= 0) then
            why = 'rank '//int_text(r)//'''s block has '//int_text(n)//' cells in '//dn(d)//' (odd)'
          else if (mod(o, 2) /= 0) then
            why = 'rank '//int_text(r)//'''s block starts at an odd '//dn(d)//' offset ('//int_text(o)//')'
          else if (n/2 < ng) then
            why = 'rank '//int_text(r)//'''s block has '//int_text(n)//' cells in '//dn(d)//', '// &
              int_text(n/2)//' after halving (the halo needs '//int_text(ng)//')'
          end if
          if (len(why) > 0) then
            first = l
            return
          end if
        end do
      end do
      cr = cr*ratios(:, l)
    end do
  end subroutine first_gathered_level

  !> What the run does, for rank 0's line about the hierarchy.
  function gathered_text(first, nlev, why) result(s)
    integer, intent(in) :: first, nlev
    character(len=*), intent(in) :: why
    character(len=:), allocatable :: s
    if (first == nlev) then
      s = 'level '//int_text(first)//' gathered onto rank 0'
    else
      s = 'levels '//int_text(first)//'..'//int_text(nlev)//' gathered onto rank 0'
    end if
    s = s//' (the blocks of level '//int_text(first - 1)//' cannot be halved: '//why//')'
    if (first == 2) s = s//'; the fine level''s state and residual go to rank 0 and its corrected '// &
      'state comes back every cycle (a gather and a scatter of the whole grid)'
  end function gathered_text

  !> Levels first..nlev gathered: dcp is level first-1's decomposition (this
  !> rank's block of it, the communicator); on rank 0 the shadow of that
  !> level and the gathered levels from the whole grid's nodes xn_g, as
  !> build/adiflow builds them (sizes, ratios: the plan; ps_lev: each
  !> level's patches, when the grid has them). Collective.
  subroutine gathered_start(self, dcp, cs, sp_g, xn_g, first, nlev, sizes, ratios, coarse_order, plain_roe, ps_lev)
    class(gathered_levels_t), intent(inout) :: self
    type(decomp_t), intent(in) :: dcp
    type(case_t), intent(in) :: cs
    type(solver_params_t), intent(in) :: sp_g
    real(rk), intent(in) :: xn_g(:, -ng:, -ng:, -ng:)
    integer, intent(in) :: first, nlev, sizes(:,:), ratios(:,:), coarse_order
    logical, intent(in) :: plain_roe
    type(patch_set_t), allocatable, intent(in) :: ps_lev(:)
    real(rk), allocatable :: xg(:,:,:,:), xc(:,:,:,:)
    integer :: l, n
    self%first = first
    call self%start_blocks(dcp, sizes(1, first - 1), 'the last decomposed level')
    if (self%rank /= 0) return

    associate (s => self%serial)
      s%nlev = nlev - first + 2
      allocate(s%level(s%nlev), s%weight(s%nlev))
      ! the whole grid's nodes of level first-1, as build_coarse_levels makes them
      xg = xn_g
      do l = 2, first - 1
        call coarse_nodes(sp_g, xg, sizes(:, l), ratios(:, l), xc)
        call move_alloc(xc, xg)
      end do
      call start_shadow(s%level(1), xg, sizes(:, first - 1))
      do l = first, nlev
        n = l - first + 2
        call coarse_nodes(sp_g, xg, sizes(:, l), ratios(:, l), xc)
        call init_level(s%level(n), cs, xc, sizes(:, l), ratios(:, l), coarse_order, plain_roe, &
          level_weight(sizes, l))
        if (allocated(ps_lev)) s%level(n)%f%ps = ps_lev(l)
        call move_alloc(xc, xg)
      end do
      s%weight = s%level%weight
    end associate
  end subroutine gathered_start

  !> The shadow of a level of n cells over the nodes xn: its layout, its
  !> cell volumes (metrics.f90's formula, the other metrics dropped), q and
  !> res; nothing else of it is read.
  subroutine start_shadow(lv, xn, n)
    type(mg_level_t), intent(inout) :: lv
    real(rk), intent(in) :: xn(:, -ng:, -ng:, -ng:)
    integer, intent(in) :: n(3)
    real(rk), allocatable :: sf(:,:,:,:), sc(:,:,:,:), xc(:,:,:,:)
    integer :: ih, jh, kh
    lv%lay = make_layout(n(1), n(2), n(3))
    ! the shape of every field (fortran/flow_fields.f90)
    ih = lv%lay%ldi - 2; jh = n(2) + 2; kh = n(3) + 2
    allocate(lv%f%q(-1:ih, -1:jh, -1:kh, nvar), lv%f%res(-1:ih, -1:jh, -1:kh, nvar), lv%f%vol(-1:ih, -1:jh, -1:kh))
    allocate(sf(-1:ih, -1:jh, -1:kh, NMETRIC), sc(-1:ih, -1:jh, -1:kh, NMETRIC), xc(-1:ih, -1:jh, -1:kh, 3))
    lv%f%q = 0.0_rk
    lv%f%res = 0.0_rk
    call compute_metrics(lv%lay, xn, sf, sc, lv%f%vol, xc)
  end subroutine start_shadow

  !> The serial backend's level of grid level l (first - 1: the shadow).
  pure integer function index_of(self, l)
    class(gathered_levels_t), intent(in) :: self
    integer, intent(in) :: l
    index_of = l - self%first + 2
  end function index_of

  !> The interior cells of q and res of this rank's block of level first-1
  !> (layout lay) into the shadow's on rank 0. Collective.
  subroutine gather_state(self, lay, q, res)
    class(gathered_levels_t), intent(inout) :: self
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: q(-1:,-1:,-1:,:), res(-1:,-1:,-1:,:)
    real(rk), allocatable :: all(:)
    integer :: r, ierr
    allocate(all(merge(2*nvar*sum(int(self%lines, ik8))*lay%ni, 0_ik8, self%rank == 0)))
    call MPI_Gatherv(self%pack_pair(lay, q, res), 2*lay%nj*lay%nk*nvar, self%line, all, 2*nvar*self%lines, &
      2*nvar*self%at, self%line, 0, self%comm, ierr)
    call mpi_check(ierr, 'MPI_Gatherv (multigrid: a level to rank 0)')
    if (self%rank /= 0) return
    associate (f => self%serial%level(1)%f)
      do r = 1, size(self%lines)
        call self%put_pair(r, lay%ni, all, f%q, f%res)
      end do
    end associate
  end subroutine gather_state

  !> The interior cells of the shadow's q on rank 0 into q of every rank's
  !> block of level first-1 (layout lay). Collective.
  subroutine scatter_state(self, lay, q)
    class(gathered_levels_t), intent(inout) :: self
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    real(rk), allocatable :: mine(:), all(:)
    integer(ik8) :: at, n
    integer :: r, ierr
    allocate(mine(int(lay%nj*lay%nk*nvar, ik8)*lay%ni))
    allocate(all(merge(nvar*sum(int(self%lines, ik8))*lay%ni, 0_ik8, self%rank == 0)))
    if (self%rank == 0) then
      associate (qs => self%serial%level(1)%f%q)
        do r = 1, size(self%lines)
          associate (e => self%ext(:, r))
            at = nvar*int(self%at(r), ik8)*lay%ni
            n = int(nvar*self%lines(r), ik8)*lay%ni
            all(at+1:at+n) = reshape(qs(1:lay%ni, e(1)+1:e(1)+e(3), e(2)+1:e(2)+e(4), 1:nvar), [n])
          end associate
        end do
      end associate
    end if
    call MPI_Scatterv(all, nvar*self%lines, nvar*self%at, self%line, mine, lay%nj*lay%nk*nvar, self%line, 0, &
      self%comm, ierr)
    call mpi_check(ierr, 'MPI_Scatterv (multigrid: a level from rank 0)')
    q(1:lay%ni, 1:lay%nj, 1:lay%nk, 1:nvar) = reshape(mine, [lay%ni, lay%nj, lay%nk, nvar])
  end subroutine scatter_state
end module multigrid_gather
