!> Discrete conservation: on a fully periodic, curvilinear box every face
!> flux enters one cell and leaves its neighbour, so the residual summed over
!> all cells vanishes to round-off, for any (here random) state.
program test_conservation
  use kinds, only: rk
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use solver_cpu, only: cpu_compute_residual
  use case_setup
  use test_util
  implicit none
  type(case_t) :: cs
  type(layout_t) :: lay
  type(solver_params_t) :: sp
  type(fields_t) :: f
  real(rk), allocatable :: r(:,:,:,:)
  real(rk) :: total, scale
  integer :: m, order
  character(len=40) :: name

  cs%ni = 12; cs%nj = 10; cs%nk = 8
  cs%grid_type = 'wavy'; cs%wavy_amplitude = 0.03_rk
  cs%bc_imin = 'periodic'; cs%bc_imax = 'periodic'
  cs%bc_jmin = 'periodic'; cs%bc_jmax = 'periodic'
  cs%bc_kmin = 'periodic'; cs%bc_kmax = 'periodic'
  cs%viscosity_law = 'sutherland'; cs%mach = 0.3_rk

  do order = 1, 2
    cs%order = order
    call setup_case(cs, lay, sp, f)
    allocate(r(lay%ni, lay%nj, lay%nk, 5))
    call random_seed(put=[(777 + m, m = 1, 64)])
    call random_number(r)
    ! random state around rest: rho ~ 1, |u| ~ 0.3, p ~ 1/(gamma M^2)
    f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 1) = 0.8_rk + 0.4_rk*r(:,:,:,1)
    do m = 2, 4
      f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, m) = f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 1)*0.6_rk*(r(:,:,:,m) - 0.5_rk)
    end do
    f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 5) = (1.0_rk + 0.2_rk*r(:,:,:,5))/(sp%gm2*sp%gm1)
    call cpu_compute_residual(sp, lay, 1.0_rk, f)
    do m = 1, 5
      total = sum(f%res(1:lay%ni, 1:lay%nj, 1:lay%nk, m))
      scale = sum(abs(f%res(1:lay%ni, 1:lay%nj, 1:lay%nk, m)))
      write(name, '(a,i0,a,i0)') 'order ', order, ', component ', m
      call check(abs(total) <= 1.0e-13_rk*scale .and. scale > 0.0_rk, &
        'residual sums to round-off on a periodic curved box, '//trim(name))
    end do
    deallocate(r)
  end do
  call test_summary()
end program test_conservation
