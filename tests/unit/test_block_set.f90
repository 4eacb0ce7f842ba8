!> The backend over blocks (fortran/backend_blocks.f90) converges to the
!> single grid's steady state: a cavity (walls and a lid on the imin face, Re = 100) split
!> in two along i, the second block stored as the grid is, turned round (i
!> and j reversed, its faces taking the grid's opposite boundary
!> conditions) or with its directions cycled (an interface between block
!> 1's i face and block 2's k face), the interface from the finder, all runs from rest with the
!> mass held at the start's (mass_fix). Single grid over the blocks (cut at
!> i = 5), and FAS W-cycles over the blocks' two levels (cut at i = 6, so
!> that both blocks coarsen). Each runs until its residual has dropped 10
!> orders; the blocks' state must then equal the single grid's within 1e-8
!> of each variable's largest magnitude. (The Roe scheme's low-Mach fix is
!> off: its threshold comes from the grid's size.)
program test_block_set
  use kinds, only: rk, ng
  use grid_layout, only: layout_t, make_layout
  use solver_params, only: solver_params_t
  use case_config, only: case_t, make_solver_params, validate_case
  use flow_fields, only: fields_t, allocate_fields
  use grid_generation, only: generate_nodes
  use grid_blocks, only: grid_block_set_t, find_set_interfaces, GRID_BLOCKS_OK
  use backend_blocks, only: blocks_backend_t
  use metrics, only: compute_metrics
  use solver_cpu, only: cpu_iteration
  use mass_constraint, only: total_mass
  use residual_norms, only: compute_residual_norms
  use text_util, only: int_text
  use case_setup, only: split_in_two, whole_of_block2
  use test_util
  implicit none
  integer, parameter :: ni = 12, nj = 10, nk = 4, max_it = 6000
  real(rk), parameter :: cfl = 10.0_rk, drop = 1.0e-10_rk
  type(case_t) :: cs
  type(layout_t) :: lay
  type(solver_params_t) :: sp
  type(fields_t) :: f
  real(rk), allocatable :: xw(:,:,:,:)
  real(rk) :: m0, r0, r(5)
  integer :: it, mode, its, icut

  cs%ni = ni; cs%nj = nj; cs%nk = nk
  cs%beta_x = 1.1_rk; cs%beta_y = 1.1_rk
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
  call at_rest(f%q, sp)
  m0 = total_mass(lay, f%vol, f%q)
  r0 = 0.0_rk
  do it = 1, max_it
    call cpu_iteration(sp, lay, cfl, f, m0)
    call compute_residual_norms(lay, f%res, f%vol, r)
    if (it == 1) r0 = maxval(r)
    if (maxval(r) <= drop*r0) exit
  end do
  its = it
  call check(its <= max_it, 'the single grid converges 10 orders ('//int_text(its)//' iterations)')
  icut = 5
  do mode = 0, 2
    call two_blocks(mode, 1)
  end do
  icut = 6
  do mode = 0, 2
    call two_blocks(mode, 2)
  end do
  call test_summary()

contains

  subroutine at_rest(q, sp)
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    type(solver_params_t), intent(in) :: sp
    q(:,:,:,1) = 1.0_rk
    q(:,:,:,2:4) = 0.0_rk
    q(:,:,:,5) = (1.0_rk/sp%gm2)/sp%gm1
  end subroutine at_rest

  pure function whole_of_2(mode, p, cell) result(w)
    integer, intent(in) :: mode, p(3)
    logical, intent(in) :: cell
    integer :: w(3)
    w = whole_of_block2(mode, [ni, nj, nk], icut, p, cell)
  end function whole_of_2

  !> mode 0: block 2 as stored; 1: turned round in i and j; 2: its
  !> directions cycled (its i, j, k along the grid's j, k, i), so that the
  !> interface joins block 1's i face to its k face
  subroutine two_blocks(mode, levels)
    integer, intent(in) :: mode
    integer, intent(in) :: levels
    type(grid_block_set_t) :: set
    type(blocks_backend_t) :: bs
    type(case_t) :: cb(2)
    character(len=:), allocatable :: tag, msg, why, note
    integer :: i, j, k, m, st, w(3)
    real(rk) :: scale(5), r1, rb(5), mb0, worst
    logical :: ok
    character(len=12) :: wtxt

    select case (mode)
    case (0); tag = 'block 2 as stored: '
    case (1); tag = 'block 2 turned:    '
    case default; tag = 'i face = k face:   '
    end select
    if (levels > 1) tag = tag//int_text(levels)//' levels, W(1,1): '
    call split_in_two(xw, [ni, nj, nk], icut, mode, set)
    call find_set_interfaces(set, st, msg)
    call check(st == GRID_BLOCKS_OK .and. size(set%interfaces) == 1, tag//'the finder gives one interface')
    if (st /= GRID_BLOCKS_OK .or. size(set%interfaces) /= 1) return
    cb = cs
    if (mode == 1) then
      cb(2)%bc_imin = cs%bc_imax
      cb(2)%bc_jmin = cs%bc_jmax; cb(2)%bc_jmax = cs%bc_jmin
    else if (mode == 2) then
      cb(2)%bc_imin = cs%bc_jmin; cb(2)%bc_imax = cs%bc_jmax
      cb(2)%bc_jmin = cs%bc_kmin; cb(2)%bc_jmax = cs%bc_kmax
      cb(2)%bc_kmax = cs%bc_imax
    end if
    call bs%init(set, cb, levels, 2, .true., why, note)
    call check(len(why) == 0 .and. bs%nlev == levels, tag//'the set is taken with its levels ('//why//note//')')
    if (len(why) > 0 .or. bs%nlev /= levels) return
    bs%mg%cycle = 'w'
    bs%mg%pre_smooth = 1
    bs%mg%post_smooth = 1
    call bs%start_at_rest()
    mb0 = bs%set_mass()
    call check(abs(mb0 - m0) <= 1.0e-14_rk*m0, tag//'the blocks'' mass at rest = the single grid''s')
    bs%mass_fix = .true.
    bs%mass0 = mb0
    r1 = 0.0_rk
    do it = 1, max_it
      call bs%iterate(cfl)
      call bs%norms(rb)
      if (it == 1) r1 = maxval(rb)
      if (maxval(rb) <= drop*r1) exit
    end do
    call check(it <= max_it, tag//'the blocks converge 10 orders ('//int_text(it)//' iterations; the single grid '// &
      int_text(its)//')')
    do m = 1, 5
      scale(m) = maxval(abs(f%q(1:ni, 1:nj, 1:nk, m)))
    end do
    ! (written so that a NaN fails it)
    ok = all(abs(bs%b(1)%level(1)%f%q(1:icut, 1:nj, 1:nk, :) - f%q(1:icut, 1:nj, 1:nk, :)) <= &
      spread(spread(spread(1.0e-8_rk*scale, 1, icut), 2, nj), 3, nk))
    worst = 0.0_rk
    do m = 1, 5
      worst = max(worst, maxval(abs(bs%b(1)%level(1)%f%q(1:icut, 1:nj, 1:nk, m) - f%q(1:icut, 1:nj, 1:nk, m)))/scale(m))
    end do
    do k = 1, set%blocks(2)%n(3) - 1
      do j = 1, set%blocks(2)%n(2) - 1
        do i = 1, set%blocks(2)%n(1) - 1
          w = whole_of_2(mode, [i, j, k], .true.)
          ok = ok .and. all(abs(bs%b(2)%level(1)%f%q(i, j, k, :) - f%q(w(1), w(2), w(3), :)) <= 1.0e-8_rk*scale)
          worst = max(worst, maxval(abs(bs%b(2)%level(1)%f%q(i, j, k, :) - f%q(w(1), w(2), w(3), :))/scale))
        end do
      end do
    end do
    write(wtxt, '(es9.2)') worst
    call check(ok, tag//'the blocks'' steady state = the single grid''s within 1e-8 of each variable''s largest '// &
      '(largest difference '//trim(adjustl(wtxt))//')')
  end subroutine two_blocks
end program test_block_set
