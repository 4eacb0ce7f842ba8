!> Wall loads (fortran/wall_loads.f90) on a plane channel, walls at y = 0
!> and y = H, clustered towards both walls, carrying the Poiseuille profile
!> u = 4 U y (H - y)/H^2 at a uniform pressure: the wall shear is
!> mu U 4/H on both walls (the parabola of the wall gradient is exact for
!> it), cf is positive along +x on both, cp is the pressure's, and the
!> forces are the wall areas times those. A lid moving with the flow's
!> speed at the wall changes nothing; one moving at U reverses the shear
!> sign of that wall's relative flow.
program test_wall_loads
  use kinds, only: rk
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use boundary_patches
  use wall_loads
  use case_setup
  use test_util
  implicit none
  type(case_t) :: cs
  type(layout_t) :: lay
  type(solver_params_t) :: sp
  type(fields_t) :: f
  type(patch_set_t) :: ps
  type(wall_face_t), allocatable :: faces(:)
  type(patch_load_t) :: load
  real(rk) :: h, umax, pw, pref, tau, y, worst
  integer :: i, j, k, fc, nb, nc
  logical :: ok
  character(len=:), allocatable :: msg

  cs%ni = 12; cs%nj = 10; cs%nk = 3
  cs%lx = 2.0_rk; cs%ly = 1.0_rk; cs%lz = 0.5_rk
  cs%beta_y = 1.3_rk
  cs%reynolds = 250.0_rk
  call setup_case(cs, lay, sp, f)
  h = cs%ly; umax = 0.7_rk; pref = 1.0_rk/sp%gm2; pw = pref + 0.05_rk
  do k = -1, lay%nk + 2
    do j = -1, lay%nj + 2
      do i = -1, lay%ni + 2
        y = f%xc(i, j, k, 2)
        f%qp(i, j, k, :) = [1.0_rk, 4.0_rk*umax*y*(h - y)/(h*h), 0.0_rk, 0.0_rk, pw, 1.0_rk]
      end do
    end do
  end do
  allocate(ps%p(6))
  do fc = 1, 6
    call face_sizes(fc, lay%ni, lay%nj, lay%nk, nb, nc)
    ps%p(fc)%kind = merge(BC_WALL, BC_OUTFLOW, fc == 3 .or. fc == 4)
    ps%p(fc)%face = fc
    ps%p(fc)%lo = [1, 1]
    ps%p(fc)%hi = [nb, nc]
  end do
  call build_face_maps(ps, lay%ni, lay%nj, lay%nk, ok, msg)
  tau = sp%re_inv*4.0_rk*umax/h   ! mu = 1 at T = 1
  worst = 0.0_rk
  do fc = 3, 4
    call wall_faces_of_patch(sp, lay, ps, f, fc, pref, faces)
    worst = max(worst, maxval(abs(faces%cf - tau/0.5_rk)), maxval(abs(faces%cp - 0.1_rk)))
  end do
  call check(size(faces) == lay%ni*lay%nk, 'one wall face per boundary cell of the patch')
  call check_close(worst, 0.0_rk, 1.0e-12_rk, 'Poiseuille on a clustered grid: cf = 8 U/(Re H) on both walls, cp = 0.1')
  call check_close(maxval(abs(faces%x(2) - h)), 0.0_rk, 1.0e-14_rk, 'the face centres of the upper wall lie on y = H')
  load = patch_load(sp, lay, ps, f, 3, pref, 1.0_rk)
  call check_close(load%viscous(1), tau/0.5_rk*cs%lx*cs%lz, 1.0e-12_rk, 'viscous force of the lower wall = cf x area (+x)')
  call check_close(load%pressure(2), -0.1_rk*cs%lx*cs%lz, 1.0e-12_rk, 'pressure force of the lower wall = cp x area (-y)')
  load = patch_load(sp, lay, ps, f, 4, pref, 2.0_rk)
  call check_close(load%pressure(2), 0.1_rk*cs%lx*cs%lz/2.0_rk, 1.0e-12_rk, &
    'pressure force of the upper wall = cp x area / area_ref (+y)')
  call check_close(abs(load%viscous(2)) + abs(load%viscous(3)), 0.0_rk, 1.0e-14_rk, 'the shear has no wall-normal part')
  ! the upper wall moving at umax: relative flow u - umax, shear reversed and larger
  ps%p(4)%kind = BC_LID
  ps%p(4)%v(1:3) = [umax, 0.0_rk, 0.0_rk]
  call wall_faces_of_patch(sp, lay, ps, f, 4, pref, faces)
  call check(all(faces%cf < 0.0_rk), 'a lid moving faster than the flow next to it: negative cf')
  call test_summary()
end program test_wall_loads
