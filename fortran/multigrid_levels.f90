!> The grid levels of the FAS multigrid cycle: which directions coarsen,
!> the coarse grids' nodes and metrics, and each coarse level's own fields.
!>
!> Level 1 is the grid the backend iterates (fortran/backend.f90: a whole
!> grid, or this rank's block of one), the same type without forcing and q0.
!> Level l+1 takes every second node of
!> level l in each direction that can coarsen: an even cell count that
!> leaves at least 2 cells (a direction of 1 cell, as in the quasi-2D
!> cases, or an odd count stays as it is: semi-coarsening). When no
!> direction can coarsen, the hierarchy stops there and says why. The
!> metrics come from the coarse nodes by the fine grid's own formulas
!> (fortran/metrics.f90), ghost nodes by fill_ghost_nodes.
module multigrid_levels
  use kinds, only: rk, ik8, ng, nvar
  use text_util, only: int_text
  use grid_layout, only: layout_t, make_layout, field_bytes
  use solver_params, only: solver_params_t, BC_PERIODIC
  use case_config, only: case_t, make_solver_params
  use flow_fields, only: fields_t, allocate_fields, host_field_count
  use grid_generation, only: fill_ghost_nodes
  use metrics, only: compute_metrics
  use omp_policy, only: team_for
  use first_touch, only: zero_field
  implicit none
  private
  public :: mg_level_t, plan_levels, build_coarse_levels, level_sizes_text, coarse_bytes
  public :: coarse_nodes, init_level, level_weight

  !> One level: the grid (1) or a coarse level (2..n). ratio: the
  !> coarsening factor (1 or 2) per direction from the next finer level;
  !> weight: its cells over the fine grid's, the cost of one of its
  !> iterations in fine-grid work units.
  type :: mg_level_t
    type(layout_t) :: lay
    type(solver_params_t) :: sp
    type(fields_t) :: f
    real(rk), allocatable :: forcing(:,:,:,:)  !< FAS forcing term P (5); coarse levels only
    real(rk), allocatable :: q0(:,:,:,:)       !< the restricted state, before the coarse iterations (5); coarse levels only
    real(rk), allocatable :: xn(:,:,:,:)       !< nodes, ghosts included
    integer :: ratio(3) = 1
    real(rk) :: weight = 1.0_rk
  end type mg_level_t

contains

  !> Cell counts of each level for up to `requested` levels; nlev the number
  !> the grid allows, why the reason for stopping early ('' if none).
  subroutine plan_levels(n1, periodic, requested, nlev, sizes, ratios, why)
    integer, intent(in) :: n1(3), requested
    logical, intent(in) :: periodic(3)
    integer, intent(out) :: nlev
    integer, allocatable, intent(out) :: sizes(:,:), ratios(:,:)
    character(len=:), allocatable, intent(out) :: why
    integer :: l, d, r(3)
    character(len=1), parameter :: dn(3) = ['i', 'j', 'k']
    allocate(sizes(3, requested), ratios(3, requested))
    sizes(:, 1) = n1
    ratios = 1
    nlev = 1
    why = ''
    do l = 2, requested
      do d = 1, 3
        r(d) = 1
        if (mod(sizes(d, l-1), 2) == 0 .and. sizes(d, l-1)/2 >= merge(1, 2, periodic(d))) r(d) = 2
        if (sizes(d, l-1) == 1) r(d) = 1
      end do
      if (all(r == 1)) then
        why = 'no direction of the '//size_text(sizes(:, l-1))//' level has an even cell count that '// &
          'halves to at least 2 cells'
        exit
      end if
      do d = 1, 3
        ratios(d, l) = r(d)
        sizes(d, l) = sizes(d, l-1)/r(d)
      end do
      nlev = l
    end do
    if (nlev < requested .and. len(why) > 0) return
    ! directions that stopped coarsening on the way are worth a word too,
    ! with the rule that stopped them: an odd count, or an even one whose
    ! half would fall below the smallest size a level may have
    do d = 1, 3
      if (nlev > 1 .and. sizes(d, nlev) > 1 .and. any(ratios(d, 2:nlev) == 1)) then
        if (len(why) > 0) why = why//'; '
        if (mod(sizes(d, nlev), 2) /= 0) then
          why = why//dn(d)//' stops coarsening at '//int_text(sizes(d, nlev))//' cells (odd count)'
        else
          why = why//dn(d)//' stops coarsening at '//int_text(sizes(d, nlev))//' cells (the smallest size: '// &
            'halving would leave '//int_text(sizes(d, nlev)/2)//' cell, and a direction bounded by walls keeps '// &
            'at least 2)'
        end if
      end if
    end do
  end subroutine plan_levels

  !> Levels 2..nlev of levels(1:nlev) from level 1's nodes (coarse levels:
  !> order coarse_order, their own sizes and layout); stage_work as
  !> allocate_fields takes it.
  subroutine build_coarse_levels(cs, nlev, sizes, ratios, coarse_order, plain_roe, levels, stage_work)
    type(case_t), intent(in) :: cs
    integer, intent(in) :: nlev, sizes(:,:), ratios(:,:), coarse_order
    logical, intent(in) :: plain_roe
    type(mg_level_t), intent(inout) :: levels(:)
    logical, intent(in), optional :: stage_work
    integer :: l
    real(rk), allocatable :: xc(:,:,:,:)
    ! each level's nodes from the next finer level's own (no copy of the fine grid's)
    do l = 2, nlev
      call coarse_nodes(levels(1)%sp, levels(l-1)%xn, sizes(:, l), ratios(:, l), xc)
      call init_level(levels(l), cs, xc, sizes(:, l), ratios(:, l), coarse_order, plain_roe, &
        level_weight(sizes, l), stage_work)
    end do
  end subroutine build_coarse_levels

  !> Level l's weight in fine-grid work units an iteration: its cells over
  !> the fine grid's (sizes(:, l): the plan's cells of each level).
  pure real(rk) function level_weight(sizes, l)
    integer, intent(in) :: sizes(:,:), l
    level_weight = real(product(int(sizes(:, l), ik8)), rk)/real(product(int(sizes(:, 1), ik8)), rk)
  end function level_weight

  !> The nodes of a level of n cells: every ratio-th node of the finer
  !> level's nodes xf, ghost nodes by the boundary rules of sp's faces.
  subroutine coarse_nodes(sp, xf, n, ratio, xc)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xf(:, -ng:, -ng:, -ng:)
    integer, intent(in) :: n(3), ratio(3)
    real(rk), allocatable, intent(out) :: xc(:,:,:,:)
    integer :: i, j, k
    allocate(xc(3, -ng:n(1)+ng, -ng:n(2)+ng, -ng:n(3)+ng))
    !$omp parallel do private(i, j)
    do k = -ng, n(3) + ng
      xc(:, :, :, k) = 0.0_rk
      if (k < 0 .or. k > n(3)) cycle
      do j = 0, n(2)
        do i = 0, n(1)
          xc(:, i, j, k) = xf(:, ratio(1)*i, ratio(2)*j, ratio(3)*k)
        end do
      end do
    end do
    !$omp end parallel do
    call fill_ghost_nodes(xc, n(1), n(2), n(3), [sp%bc(1) == BC_PERIODIC, sp%bc(3) == BC_PERIODIC, &
      sp%bc(5) == BC_PERIODIC])
  end subroutine coarse_nodes

  !> One coarse level over the nodes xn (n cells, ghosts included: a whole
  !> grid, or a block's window of one): its parameters (the case's with
  !> the coarse sizes and order), layout, fields, metrics, forcing and q0;
  !> stage_work as allocate_fields takes it.
  subroutine init_level(lv, cs, xn, n, ratio, coarse_order, plain_roe, weight, stage_work)
    type(mg_level_t), intent(inout) :: lv
    type(case_t), intent(in) :: cs
    real(rk), intent(in) :: xn(:, -ng:, -ng:, -ng:)
    integer, intent(in) :: n(3), ratio(3), coarse_order
    logical, intent(in) :: plain_roe
    real(rk), intent(in) :: weight
    logical, intent(in), optional :: stage_work
    lv%xn = xn
    lv%lay = make_layout(n(1), n(2), n(3))
    lv%sp = make_solver_params(cs, lv%lay, coarse_order, plain_roe)
    lv%ratio = ratio
    lv%weight = weight
    call allocate_fields(lv%lay, lv%f, stage_work)
    call compute_metrics(lv%lay, lv%xn, lv%f%sf, lv%f%sc, lv%f%vol, lv%f%xc)
    allocate(lv%forcing, mold=lv%f%q)
    allocate(lv%q0, mold=lv%f%q)
    call zero_field(lv%forcing, team_for(lv%lay))
    call zero_field(lv%q0, team_for(lv%lay))
  end subroutine init_level

  !> Host bytes of the coarse levels (for the memory check before allocation).
  pure function coarse_bytes(nlev, sizes) result(b)
    integer, intent(in) :: nlev, sizes(:,:)
    integer(ik8) :: b
    integer :: l
    b = 0
    do l = 2, nlev
      b = b + field_bytes(make_layout(sizes(1, l), sizes(2, l), sizes(3, l)), host_field_count() + 2*nvar)
    end do
  end function coarse_bytes

  !> "64x64x64 > 32x32x32 > 16x16x16"
  function level_sizes_text(nlev, sizes) result(s)
    integer, intent(in) :: nlev, sizes(:,:)
    character(len=:), allocatable :: s
    integer :: l
    s = ''
    do l = 1, nlev
      if (l > 1) s = s//' > '
      s = s//size_text(sizes(:, l))
    end do
  end function level_sizes_text

  function size_text(n) result(s)
    integer, intent(in) :: n(3)
    character(len=:), allocatable :: s
    s = int_text(n(1))//'x'//int_text(n(2))//'x'//int_text(n(3))
  end function size_text

end module multigrid_levels
