!> Builds a solver set-up in memory (layout, parameters, fields, grid,
!> metrics) for the unit tests, the way the driver does.
module case_setup
  use kinds, only: rk, ng
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use grid_generation, only: generate_nodes
  use metrics, only: compute_metrics
  use boundary_conditions, only: apply_boundary_conditions
  use grid_blocks, only: grid_block_set_t
  implicit none
  private
  public :: setup_case, emulation_case, disturbed_state, N_EMULATION_CASES
  public :: split_in_two, whole_of_block2

  !> The grids the GPU-emulation tests run (split and merged families alike).
  integer, parameter :: N_EMULATION_CASES = 5

contains

  !> A random state around rest, like the driver's start plus a disturbance;
  !> seed picks the disturbance (the same seed, the same bits).
  subroutine disturbed_state(lay, sp, f, seed)
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    type(fields_t), intent(inout) :: f
    integer, intent(in) :: seed
    real(rk), allocatable :: r(:,:,:,:)
    integer :: m
    allocate(r(lay%ni, lay%nj, lay%nk, 5))
    call random_seed(put=[(seed + m, m = 1, 64)])
    call random_number(r)
    f%q(:,:,:,1) = 1.0_rk
    f%q(:,:,:,2:4) = 0.0_rk
    f%q(:,:,:,5) = (1.0_rk/sp%gm2)/sp%gm1
    f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 1) = 0.9_rk + 0.2_rk*r(:,:,:,1)
    do m = 2, 4
      f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, m) = f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 1)*0.2_rk*(r(:,:,:,m) - 0.5_rk)
    end do
    f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 5) = (1.0_rk + 0.05_rk*r(:,:,:,5))/(sp%gm2*sp%gm1)
    call apply_boundary_conditions(sp, lay, f%q)
  end subroutine disturbed_state

  subroutine setup_case(cs, lay, sp, f)
    type(case_t), intent(in) :: cs
    type(layout_t), intent(out) :: lay
    type(solver_params_t), intent(out) :: sp
    type(fields_t), intent(out) :: f
    real(rk), allocatable :: xn(:,:,:,:)
    call validate_case(cs)
    lay = make_layout(cs%ni, cs%nj, cs%nk)
    sp = make_solver_params(cs, lay)
    call allocate_fields(lay, f)
    call generate_nodes(cs, xn)
    call compute_metrics(lay, xn, f%sf, f%sc, f%vol, f%xc)
  end subroutine setup_case

  !> Emulation case n (1..5) and its label: A a stretched 3D cavity (van Leer); B a wavy
  !> grid, periodic in k, Sutherland, minmod, adiabatic, a lid on imax with v;
  !> C quasi-2D with one periodic cell, order 1; D a fully periodic wavy box
  !> with wide padding (ni = 13 -> ldi = 32). B and D take Rieper's low-Mach
  !> Roe dissipation (local Mach below 1 everywhere: the fix acts at every face).
  !> E is B with low-Mach preconditioning (double precision only: the
  !> preconditioned operator has no single form), its cut-off (K Mach)^2
  !> below and above the local Mach numbers squared.
  subroutine emulation_case(n, cs, label)
    integer, intent(in) :: n
    type(case_t), intent(out) :: cs
    character(len=*), intent(out) :: label
    cs = case_t()
    select case (n)
    case (1)
      cs%ni = 12; cs%nj = 10; cs%nk = 8
      cs%beta_x = 1.2_rk; cs%beta_y = 1.0_rk; cs%beta_z = 0.8_rk
      cs%reynolds = 100.0_rk; cs%mach = 0.1_rk
      cs%limiter = 'vanleer'
      label = 'A (12x10x8 stretched cavity, order 2, van Leer, isothermal)'
    case (2)
      call wavy_lid_box(cs)
      cs%limiter = 'minmod'
      label = 'B (10x9x8 wavy, periodic k, Sutherland, minmod, adiabatic, low-Mach Roe)'
    case (3)
      cs%ni = 9; cs%nj = 8; cs%nk = 1; cs%lz = 0.1_rk
      cs%bc_kmin = 'periodic'; cs%bc_kmax = 'periodic'
      cs%order = 1
      label = 'C (9x8x1 quasi-2D, nk = 1 periodic, order 1)'
    case (5)
      call wavy_lid_box(cs)
      cs%limiter = 'venkat'
      cs%precondition = 'turkel'; cs%precondition_k = 0.5_rk; cs%precondition_floor = 0.2_rk
      label = 'E (B with precondition turkel, venkat)'
    case default
      cs%ni = 13; cs%nj = 6; cs%nk = 7
      cs%grid_type = 'wavy'; cs%wavy_amplitude = 0.02_rk
      cs%bc_imin = 'periodic'; cs%bc_imax = 'periodic'
      cs%bc_jmin = 'periodic'; cs%bc_jmax = 'periodic'
      cs%bc_kmin = 'periodic'; cs%bc_kmax = 'periodic'
      cs%mach = 0.5_rk
      cs%roe_low_mach = 'rieper'
      cs%limiter = 'venkat'; cs%limiter_k = 2.0_rk
      label = 'D (13x6x7 fully periodic wavy box, low-Mach Roe, venkat limiter)'
    end select
  end subroutine emulation_case

  !> Cases B and E's grid and flow: 10x9x8 wavy, periodic in k, Sutherland,
  !> adiabatic, a lid on imax with v, Rieper's low-Mach Roe dissipation.
  subroutine wavy_lid_box(cs)
    type(case_t), intent(inout) :: cs
    cs%ni = 10; cs%nj = 9; cs%nk = 8
    cs%grid_type = 'wavy'; cs%wavy_amplitude = 0.03_rk
    cs%bc_kmin = 'periodic'; cs%bc_kmax = 'periodic'
    cs%viscosity_law = 'sutherland'; cs%wall_thermal = 'adiabatic'
    cs%reynolds = 400.0_rk; cs%mach = 0.3_rk; cs%lid_v = 0.2_rk; cs%bc_imax = 'lid'
    cs%roe_low_mach = 'rieper'
  end subroutine wavy_lid_box

  !> A grid of n cells split after cell icut along i into two blocks (the
  !> multi-block tests): block 2's cell p (1-based, cell) or node p (0-based)
  !> in the whole grid. mode 0: block 2 stored as the grid is; 1: turned
  !> round (i and j reversed); 2: cycled (its i, j, k the grid's j, k, i).
  !> Each keeps the block right-handed.
  pure function whole_of_block2(mode, n, icut, p, cell) result(w)
    integer, intent(in) :: mode, n(3), icut, p(3)
    logical, intent(in) :: cell
    integer :: w(3), c
    c = merge(1, 0, cell)
    select case (mode)
    case (0); w = [icut + p(1), p(2), p(3)]
    case (1); w = [n(1) + c - p(1), n(2) + c - p(2), p(3)]
    case default; w = [icut + p(3), p(1), p(2)]
    end select
  end function whole_of_block2

  !> The two blocks' nodes (1-based, as a grid file gives them) from the
  !> whole grid's nodes xw(3, -ng:, -ng:, -ng:): what the interface finder reads.
  subroutine split_in_two(xw, n, icut, mode, set)
    real(rk), intent(in) :: xw(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: n(3), icut, mode
    type(grid_block_set_t), intent(out) :: set
    integer :: n2(3), i, j, k, w(3)
    n2 = [n(1) - icut + 1, n(2) + 1, n(3) + 1]
    if (mode == 2) n2 = [n(2) + 1, n(3) + 1, n(1) - icut + 1]
    set%what = 'test grid'
    set%nblocks = 2
    set%dims = 3
    allocate(set%blocks(2))
    set%blocks(1)%n = [icut + 1, n(2) + 1, n(3) + 1]
    set%blocks(1)%xyz = xw(:, 0:icut, 0:n(2), 0:n(3))
    set%blocks(2)%n = n2
    allocate(set%blocks(2)%xyz(3, n2(1), n2(2), n2(3)))
    do k = 0, n2(3) - 1
      do j = 0, n2(2) - 1
        do i = 0, n2(1) - 1
          w = whole_of_block2(mode, n, icut, [i, j, k], .false.)
          set%blocks(2)%xyz(:, i + 1, j + 1, k + 1) = xw(:, w(1), w(2), w(3))
        end do
      end do
    end do
  end subroutine split_in_two
end module case_setup
