!> Two blocks give the whole grid's spatial operator: a wavy cavity grid
!> (walls and the lid, second order, viscous) split in two along i, the
!> second block stored as the grid is or turned round (i and j reversed; its
!> faces then take the whole grid's opposite boundary conditions). Each
!> block's ghost nodes and ghost cells come, direction by direction as a
!> single grid fills them, from the block's own faces (fill_ghost_nodes_direction,
!> fill_ghosts_direction) and from across the interface the finder gives
!> (fortran/block_halos.f90): i first (the interface is an i face), then j,
!> then k, so that the edges beyond the interface are filled from its ghosts.
!> The residual of every cell of both blocks must equal the whole grid's:
!> bit for bit where the block is stored as the grid is, to round-off where
!> it is turned (its fluxes are summed in the other order). The Roe scheme's
!> low-Mach fix is off: its threshold comes from the grid's size, which a
!> block does not know here.
program test_block_residual
  use kinds, only: rk, ng
  use grid_layout, only: layout_t, make_layout
  use solver_params, only: solver_params_t
  use case_config, only: case_t, make_solver_params, validate_case
  use flow_fields, only: fields_t, allocate_fields
  use grid_generation, only: generate_nodes, fill_ghost_nodes_direction
  use grid_blocks, only: grid_block_set_t, block_interface_t, find_set_interfaces, GRID_BLOCKS_OK
  use block_halos, only: fill_interface_cells, fill_interface_nodes
  use metrics, only: compute_metrics
  use ghost_fill, only: fill_ghosts_direction
  use solver_cpu, only: cpu_compute_residual, residual_of_filled_state
  use case_setup, only: disturbed_state, split_in_two, whole_of_block2
  use test_util
  implicit none
  integer, parameter :: ni = 8, nj = 6, nk = 5, icut = 3
  type(case_t) :: cs
  type(layout_t) :: lay
  type(solver_params_t) :: sp
  type(fields_t) :: f
  real(rk), allocatable :: xw(:,:,:,:)
  integer :: mode

  cs%ni = ni; cs%nj = nj; cs%nk = nk
  cs%grid_type = 'wavy'; cs%wavy_amplitude = 0.03_rk
  cs%beta_x = 1.1_rk; cs%beta_y = 1.2_rk
  cs%reynolds = 100.0_rk; cs%mach = 0.2_rk
  cs%limiter = 'vanalbada'; cs%roe_low_mach = 'none'
  call validate_case(cs)
  lay = make_layout(ni, nj, nk)
  sp = make_solver_params(cs, lay)
  call allocate_fields(lay, f)
  call generate_nodes(cs, xw)
  call compute_metrics(lay, xw, f%sf, f%sc, f%vol, f%xc)
  call disturbed_state(lay, sp, f, 7)
  call cpu_compute_residual(sp, lay, 2.0_rk, f)
  do mode = 0, 1
    call two_blocks(mode == 1)
  end do
  call test_summary()

contains

  pure function whole_of_2(turned, p, cell) result(w)
    logical, intent(in) :: turned, cell
    integer, intent(in) :: p(3)
    integer :: w(3)
    w = whole_of_block2(merge(1, 0, turned), [ni, nj, nk], icut, p, cell)
  end function whole_of_2

  subroutine two_blocks(turned)
    logical, intent(in) :: turned
    type(case_t) :: c2
    type(layout_t) :: l1, l2
    type(solver_params_t) :: s1, s2
    type(fields_t) :: f1, f2
    type(grid_block_set_t) :: set
    type(block_interface_t) :: itf
    real(rk), allocatable :: x1(:,:,:,:), x2(:,:,:,:)
    character(len=:), allocatable :: tag, msg
    logical :: p1(6), p2(6), a_is_1, ok
    integer :: i, j, k, d, st, w(3), n1(3), n2(3)
    real(rk) :: scale(5)

    tag = merge('block 2 turned:    ', 'block 2 as stored: ', turned)
    l1 = make_layout(icut, nj, nk)
    l2 = make_layout(ni - icut, nj, nk)
    n1 = [icut + 1, nj + 1, nk + 1]
    n2 = [ni - icut + 1, nj + 1, nk + 1]
    ! block 2's faces: turned, its i = 1 face is the grid's i = max face, its j faces the grid's other j faces
    c2 = cs
    if (turned) then
      c2%bc_imin = cs%bc_imax
      c2%bc_jmin = cs%bc_jmax; c2%bc_jmax = cs%bc_jmin
    end if
    s1 = make_solver_params(cs, l1)
    s2 = make_solver_params(c2, l2)
    call allocate_fields(l1, f1)
    call allocate_fields(l2, f2)
    call split_in_two(xw, [ni, nj, nk], icut, merge(1, 0, turned), set)
    allocate(x1(3, -ng:icut+ng, -ng:nj+ng, -ng:nk+ng), x2(3, -ng:ni-icut+ng, -ng:nj+ng, -ng:nk+ng))
    x1 = 0.0_rk; x2 = 0.0_rk
    x1(:, 0:icut, 0:nj, 0:nk) = set%blocks(1)%xyz
    x2(:, 0:ni-icut, 0:nj, 0:nk) = set%blocks(2)%xyz
    f1%q(1:icut, 1:nj, 1:nk, :) = f%q(1:icut, 1:nj, 1:nk, :)
    do k = 1, nk
      do j = 1, nj
        do i = 1, ni - icut
          w = whole_of_2(turned, [i, j, k], .true.)
          f2%q(i, j, k, :) = f%q(w(1), w(2), w(3), :)
        end do
      end do
    end do
    call find_set_interfaces(set, st, msg)
    call check(st == GRID_BLOCKS_OK .and. size(set%interfaces) == 1, tag//'the finder gives one interface')
    if (st /= GRID_BLOCKS_OK .or. size(set%interfaces) /= 1) return
    itf = set%interfaces(1)
    a_is_1 = itf%a%block == 1
    ! the faces each block fills by its own boundary conditions
    p1 = .true.; p1(2) = .false.
    p2 = .true.; p2(merge(2, 1, turned)) = .false.

    ! nodes and metrics: direction by direction, the interface in the i step
    do d = 1, 3
      call fill_ghost_nodes_direction(x1, icut, nj, nk, .false., d)
      call fill_ghost_nodes_direction(x2, ni - icut, nj, nk, .false., d)
      if (d == 1) then
        call fill_interface_nodes(itf, a_is_1, n1, x1, x2)
        call fill_interface_nodes(itf, .not. a_is_1, n2, x2, x1)
      end if
    end do
    call compute_metrics(l1, x1, f1%sf, f1%sc, f1%vol, f1%xc)
    call compute_metrics(l2, x2, f2%sf, f2%sc, f2%vol, f2%xc)
    ! the state's ghosts the same way, then each block's residual
    do d = 1, 3
      if (d == 1) then
        call fill_interface_cells(itf, a_is_1, n1, f1%q, f2%q)
        call fill_interface_cells(itf, .not. a_is_1, n2, f2%q, f1%q)
      end if
      call fill_ghosts_direction(s1, l1, d, f1, p1)
      call fill_ghosts_direction(s2, l2, d, f2, p2)
    end do
    call residual_of_filled_state(s1, l1, 2.0_rk, f1, p1)
    call residual_of_filled_state(s2, l2, 2.0_rk, f2, p2)

    call check(all(f1%res(1:icut, 1:nj, 1:nk, :) == f%res(1:icut, 1:nj, 1:nk, :)), &
      tag//'block 1''s residual = the whole grid''s, bit for bit, in every cell (the interface''s included)')
    do d = 1, 5
      scale(d) = maxval(abs(f%res(1:ni, 1:nj, 1:nk, d)))
    end do
    ! (comparisons written so that a NaN fails them)
    ok = .true.
    do k = 1, nk
      do j = 1, nj
        do i = 1, ni - icut
          w = whole_of_2(turned, [i, j, k], .true.)
          if (turned) then
            ok = ok .and. all(abs(f2%res(i, j, k, :) - f%res(w(1), w(2), w(3), :)) <= 1.0e-12_rk*scale)
          else
            ok = ok .and. all(f2%res(i, j, k, :) == f%res(w(1), w(2), w(3), :))
          end if
        end do
      end do
    end do
    if (turned) then
      call check(ok, tag//'block 2''s residual = the whole grid''s within 1e-12 of each variable''s largest '// &
        '(summed in the other order)')
    else
      call check(ok, tag//'block 2''s residual = the whole grid''s, bit for bit, in every cell')
    end if
  end subroutine two_blocks
end program test_block_residual
