!> The mass-level constraint (case key mass_fix, fortran/mass_constraint.f90):
!> without it the LU-ADI path drifts the total mass of a closed cavity; with
!> it the total stays at M0 to round-off; the rescale keeps u and T; and the
!> per-plane sums chained over two j blocks equal the single-domain ones bit
!> for bit (what mpi_total_mass relies on).
program test_mass_constraint
  use kinds, only: rk, ik8
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use solver_cpu, only: cpu_iteration
  use mass_constraint
  use case_setup
  use test_util
  implicit none
  type(case_t) :: cs
  type(layout_t) :: lay, lay_lo, lay_hi
  type(solver_params_t) :: sp
  type(fields_t) :: f
  real(rk), allocatable :: q_before(:,:,:,:), plane(:), plane_chain(:)
  real(rk) :: m0, m, drift, worst, u0, u1, t0, t1
  integer :: it, i, j, k, jh
  integer, parameter :: n_iter = 30

  ! a stretched 3D cavity at Re = 400 (walls and a lid: a closed box)
  cs%ni = 10; cs%nj = 9; cs%nk = 8
  cs%beta_x = 1.0_rk; cs%beta_y = 1.0_rk; cs%beta_z = 0.5_rk
  cs%reynolds = 400.0_rk; cs%mach = 0.2_rk
  cs%cfl = 8.0_rk; cs%cfl_start = 1.0_rk; cs%cfl_ramp_iters = 10
  call setup_case(cs, lay, sp, f)

  call initial_state()
  m0 = total_mass(lay, f%vol)
  call check(total_mass(lay, f%vol, f%q) == m0, 'M0 (volume sum) equals the mass of the initial state rho = 1 bit for bit')

  ! without the constraint the mass drifts (what makes the converged states differ)
  do it = 1, n_iter
    call cpu_iteration(sp, lay, cfl_at(cs, int(it, ik8)), f)
  end do
  drift = abs(total_mass(lay, f%vol, f%q) - m0)/m0
  call check(drift > 1.0e-9_rk, 'without mass_fix the total mass drifts (relative drift > 1e-9)')
  write(*, '(a,es10.3)') '  measured drift after 30 iterations: ', drift

  ! with it the total mass stays at M0 to round-off after every iteration
  call initial_state()
  worst = 0.0_rk
  do it = 1, n_iter
    call cpu_iteration(sp, lay, cfl_at(cs, int(it, ik8)), f, m0)
    worst = max(worst, abs(total_mass(lay, f%vol, f%q) - m0)/m0)
  end do
  call check(worst <= 8.0_rk*epsilon(1.0_rk), 'with mass_fix the total mass equals M0 to round-off (<= 8 eps) every iteration')
  write(*, '(a,es10.3)') '  measured worst |M - M0|/M0: ', worst

  ! the rescale moves the mass level only: u and T (p/rho) unchanged to round-off
  q_before = f%q
  m = 1.001_rk*m0
  call rescale_to_mass(lay, f%q, m0, m)
  worst = 0.0_rk
  do k = 1, lay%nk
    do j = 1, lay%nj
      do i = 1, lay%ni
        u0 = q_before(i,j,k,2)/q_before(i,j,k,1); u1 = f%q(i,j,k,2)/f%q(i,j,k,1)
        t0 = pressure_over_rho(q_before(i,j,k,:)); t1 = pressure_over_rho(f%q(i,j,k,:))
        worst = max(worst, abs(u1 - u0), abs(t1 - t0)/t0)
      end do
    end do
  end do
  call check(worst <= 1.0e-14_rk, 'rescaling keeps velocity and temperature (1e-14)')
  call check(abs(total_mass(lay, f%vol, f%q) - m0/1.001_rk) <= 8.0_rk*epsilon(1.0_rk)*m0, &
    'rescaling by s = M0/M scales the total mass by s')

  ! two j blocks, the upper one starting from the lower one's plane sums,
  ! give the single-domain plane sums bit for bit (the j-rank chain)
  allocate(plane(lay%nk), plane_chain(lay%nk))
  plane = 0.0_rk
  call add_mass_plane_sums(lay, f%vol, plane, f%q)
  jh = lay%nj/2
  lay_lo = make_layout(lay%ni, jh, lay%nk)
  lay_hi = make_layout(lay%ni, lay%nj - jh, lay%nk)
  plane_chain = 0.0_rk
  call add_mass_plane_sums(lay_lo, f%vol, plane_chain, f%q)
  ! the upper block's local j = 1 is global j = jh + 1 (two ghost layers below)
  call add_mass_plane_sums(lay_hi, f%vol(:, jh-1:, :), plane_chain, f%q(:, jh-1:, :, :))
  call check(all(plane_chain == plane) .and. mass_from_plane_sums(plane_chain) == total_mass(lay, f%vol, f%q), &
    'plane sums chained over two j blocks equal the single-domain sums bit for bit')
  call test_summary()

contains

  subroutine initial_state()
    f%q(:,:,:,1) = 1.0_rk
    f%q(:,:,:,2:4) = 0.0_rk
    f%q(:,:,:,5) = (1.0_rk/sp%gm2)/sp%gm1
  end subroutine initial_state

  pure function pressure_over_rho(qc) result(t)
    real(rk), intent(in) :: qc(:)
    real(rk) :: t
    t = (qc(5) - 0.5_rk*(qc(2)**2 + qc(3)**2 + qc(4)**2)/qc(1))/qc(1)
  end function pressure_over_rho
end program test_mass_constraint
