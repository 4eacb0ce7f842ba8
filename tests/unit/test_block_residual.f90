!> Two blocks give the whole grid's spatial operator: a wavy cavity grid
!> (walls and a lid on the imin face, second order, viscous) split in two along i, the
!> second block stored as the grid is, turned round (i and j reversed; its
!> faces then take the whole grid's opposite boundary conditions) or with
!> its directions cycled (its i, j, k along the grid's j, k, i: an interface
!> between block 1's i face and block 2's k face, whose other directions
!> change places). The backend over blocks (fortran/backend_blocks.f90)
!> makes each block's ghost nodes and metrics (init) and fills the ghost
!> cells of a state taken from the whole grid's (its fill_set: interfaces,
!> own faces, edges); the residual of every cell of both blocks must then
!> equal the whole grid's: bit for bit where the block is stored as the grid
!> is, to round-off where its directions differ (its fluxes are summed in
!> another order). The Roe scheme's low-Mach fix is off: its threshold
!> comes from the grid's size, which a block does not know here.
program test_block_residual
  use kinds, only: rk, ng
  use grid_layout, only: layout_t, make_layout
  use solver_params, only: solver_params_t
  use case_config, only: case_t, make_solver_params, validate_case
  use flow_fields, only: fields_t, allocate_fields
  use grid_generation, only: generate_nodes
  use grid_blocks, only: grid_block_set_t, find_set_interfaces, GRID_BLOCKS_OK
  use backend_blocks, only: blocks_backend_t
  use metrics, only: compute_metrics
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
  ! the lid on the imin face, which block 1 holds in the grid's own directions: a block fills the
  ! edge between two of its own faces by the later direction's condition, so that an edge between
  ! the lid and a wall depends on the order of the block's directions; between walls at rest it
  ! does not (the two reflections commute)
  cs%bc_imin = 'lid'; cs%bc_jmax = 'wall'
  cs%lid_u = 0.0_rk; cs%lid_v = 1.0_rk
  call validate_case(cs)
  lay = make_layout(ni, nj, nk)
  sp = make_solver_params(cs, lay)
  call allocate_fields(lay, f)
  call generate_nodes(cs, xw)
  call compute_metrics(lay, xw, f%sf, f%sc, f%vol, f%xc)
  call disturbed_state(lay, sp, f, 7)
  call cpu_compute_residual(sp, lay, 2.0_rk, f)
  do mode = 0, 2
    call two_blocks(mode)
  end do
  call test_summary()

contains

  pure function whole_of_2(mode, p, cell) result(w)
    integer, intent(in) :: mode, p(3)
    logical, intent(in) :: cell
    integer :: w(3)
    w = whole_of_block2(mode, [ni, nj, nk], icut, p, cell)
  end function whole_of_2

  !> mode 0: block 2 as stored; 1: turned round; 2: its directions cycled
  subroutine two_blocks(mode)
    integer, intent(in) :: mode
    type(case_t) :: cb(2)
    type(grid_block_set_t) :: set
    type(blocks_backend_t) :: bs
    character(len=:), allocatable :: tag, msg, why, note
    logical :: ok
    integer :: i, j, k, b, st, w(3), n2(3)
    real(rk) :: scale(5), worst
    character(len=12) :: wtxt

    select case (mode)
    case (0); tag = 'block 2 as stored: '
    case (1); tag = 'block 2 turned:    '
    case default; tag = 'i face = k face:   '
    end select
    ! block 2's faces take the whole grid's conditions of the faces they lie on
    cb = cs
    if (mode == 1) then
      cb(2)%bc_imin = cs%bc_imax
      cb(2)%bc_jmin = cs%bc_jmax; cb(2)%bc_jmax = cs%bc_jmin
    else if (mode == 2) then
      cb(2)%bc_imin = cs%bc_jmin; cb(2)%bc_imax = cs%bc_jmax
      cb(2)%bc_jmin = cs%bc_kmin; cb(2)%bc_jmax = cs%bc_kmax
      cb(2)%bc_kmax = cs%bc_imax
    end if
    call split_in_two(xw, [ni, nj, nk], icut, mode, set)
    call find_set_interfaces(set, st, msg)
    call check(st == GRID_BLOCKS_OK .and. size(set%interfaces) == 1, tag//'the finder gives one interface')
    if (st /= GRID_BLOCKS_OK .or. size(set%interfaces) /= 1) return
    call bs%init(set, cb, 1, 2, .true., why, note)
    call check(len(why) == 0, tag//'the backend takes the set ('//why//')')
    if (len(why) > 0) return
    n2 = set%blocks(2)%n - 1
    bs%b(1)%level(1)%f%q(1:icut, 1:nj, 1:nk, :) = f%q(1:icut, 1:nj, 1:nk, :)
    do k = 1, n2(3)
      do j = 1, n2(2)
        do i = 1, n2(1)
          w = whole_of_2(mode, [i, j, k], .true.)
          bs%b(2)%level(1)%f%q(i, j, k, :) = f%q(w(1), w(2), w(3), :)
        end do
      end do
    end do
    call bs%fill_boundary(1)
    do b = 1, 2
      associate (g => bs%b(b)%level(1))
        call residual_of_filled_state(g%sp, g%lay, 2.0_rk, g%f, bs%b(b)%phys)
      end associate
    end do

    if (mode == 0) then
      call check(all(bs%b(1)%level(1)%f%res(1:icut, 1:nj, 1:nk, :) == f%res(1:icut, 1:nj, 1:nk, :)), &
        tag//'block 1''s residual = the whole grid''s, bit for bit, in every cell (the interface''s included)')
    end if
    do b = 1, 5
      scale(b) = maxval(abs(f%res(1:ni, 1:nj, 1:nk, b)))
    end do
    ! (comparisons written so that a NaN fails them)
    worst = 0.0_rk
    ok = all(abs(bs%b(1)%level(1)%f%res(1:icut, 1:nj, 1:nk, :) - f%res(1:icut, 1:nj, 1:nk, :)) <= &
      spread(spread(spread(1.0e-12_rk*scale, 1, icut), 2, nj), 3, nk))
    do b = 1, 5
      worst = max(worst, maxval(abs(bs%b(1)%level(1)%f%res(1:icut, 1:nj, 1:nk, b) - f%res(1:icut, 1:nj, 1:nk, b)))/scale(b))
    end do
    do k = 1, n2(3)
      do j = 1, n2(2)
        do i = 1, n2(1)
          w = whole_of_2(mode, [i, j, k], .true.)
          associate (r2 => bs%b(2)%level(1)%f%res(i, j, k, :), rw => f%res(w(1), w(2), w(3), :))
            if (mode == 0) then
              ok = ok .and. all(r2 == rw)
            else
              ok = ok .and. all(abs(r2 - rw) <= 1.0e-12_rk*scale)
            end if
            worst = max(worst, maxval(abs(r2 - rw)/scale))
          end associate
        end do
      end do
    end do
    write(wtxt, '(es9.2)') worst
    if (mode == 0) then
      call check(ok, tag//'block 2''s residual = the whole grid''s, bit for bit, in every cell')
    else
      call check(ok, tag//'both blocks'' residuals = the whole grid''s within 1e-12 of each variable''s largest '// &
        '(summed in another order; largest difference '//trim(adjustl(wtxt))//')')
    end if
  end subroutine two_blocks
end program test_block_residual
