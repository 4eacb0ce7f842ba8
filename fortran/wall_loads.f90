!> Loads on the wall patches: pressure and skin-friction coefficients of
!> every wall face, and the force of each patch (pressure and viscous parts).
!>
!> Units: the solver's (rho_ref = 1, U_ref = 1), so a coefficient is the
!> quantity over the dynamic pressure 1/2 rho_ref U_ref**2 = 1/2:
!> cp = (p_wall - p_ref)/(1/2), cf = tau_wall/(1/2), and a force
!> coefficient is F/(1/2 area_ref).
!>
!> The wall pressure is the first cell's (a wall ghost mirrors it, so it is
!> also the mean of the two on the face). The wall shear stress is
!> mu/Re times the wall-normal derivative of the velocity relative to the
!> wall, tangential part: from the parabola through the wall (relative
!> velocity 0) and the first two cells along the index line off the wall, at
!> their distances d1, d2 from the face (second order on any spacing; exact
!> for the Poiseuille profile). The face centre is the mean of the centres of
!> the first cell and its ghost, which wall ghost nodes (linear
!> extrapolation, grid_generation's fill_ghost_nodes) make exact.
!>
!> Signs: the force is the one the fluid exerts on the wall: pressure along
!> the face's outward area vector (out of the fluid, into the wall), shear
!> along the fluid's motion relative to the wall. cf is signed along the
!> face's first direction (cell_index order: j for an i-face, i for a j- or
!> k-face): negative where the flow next to the wall runs backwards, so its
!> zeros are the separation and reattachment points.
module wall_loads
  use kinds, only: rk
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: viscosity
  use flow_fields, only: fields_t
  use boundary_patches
  use boundary_conditions, only: cell_index
  implicit none
  private
  public :: wall_face_t, patch_load_t, wall_faces_of_patch, patch_load, is_wall_kind, has_wall_patches

  !> One wall face: its centre, cp, cf and the shear vector over 1/2.
  type :: wall_face_t
    integer :: b = 0, c = 0
    real(rk) :: x(3) = 0.0_rk, cp = 0.0_rk, cf = 0.0_rk, cf_vec(3) = 0.0_rk
  end type wall_face_t

  !> Force coefficients of one patch, pressure and viscous parts (x, y, z).
  type :: patch_load_t
    real(rk) :: pressure(3) = 0.0_rk, viscous(3) = 0.0_rk
  end type patch_load_t

contains

  pure logical function is_wall_kind(kind)
    integer, intent(in) :: kind
    is_wall_kind = kind == BC_WALL .or. kind == BC_LID
  end function is_wall_kind

  !> ps holds a wall or lid patch: a run with loads to write.
  pure logical function has_wall_patches(ps)
    type(patch_set_t), intent(in) :: ps
    integer :: n
    has_wall_patches = .false.
    if (.not. allocated(ps%p)) return
    do n = 1, size(ps%p)
      if (is_wall_kind(ps%p(n)%kind)) has_wall_patches = .true.
    end do
  end function has_wall_patches

  !> cp, cf and centre of every face of patch id (a wall or lid patch),
  !> p_ref the reference pressure of cp.
  subroutine wall_faces_of_patch(sp, lay, ps, f, id, p_ref, faces)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(patch_set_t), intent(in) :: ps
    type(fields_t), intent(in) :: f
    integer, intent(in) :: id
    real(rk), intent(in) :: p_ref
    type(wall_face_t), allocatable, intent(out) :: faces(:)
    integer :: b, c, m
    real(rk) :: a(3), tau(3), tdir(3)
    associate (p => ps%p(id))
      allocate(faces((p%hi(1) - p%lo(1) + 1)*(p%hi(2) - p%lo(2) + 1)))
      m = 0
      do c = p%lo(2), p%hi(2)
        do b = p%lo(1), p%hi(1)
          m = m + 1
          faces(m)%b = b
          faces(m)%c = c
          call face_load(sp, lay, p, f, b, c, p_ref, faces(m)%x, a, faces(m)%cp, tau, tdir)
          faces(m)%cf_vec = tau/0.5_rk
          faces(m)%cf = dot_product(tau, tdir)/0.5_rk
        end do
      end do
    end associate
  end subroutine wall_faces_of_patch

  !> Force coefficients of patch id over the reference area area_ref.
  function patch_load(sp, lay, ps, f, id, p_ref, area_ref) result(load)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(patch_set_t), intent(in) :: ps
    type(fields_t), intent(in) :: f
    integer, intent(in) :: id
    real(rk), intent(in) :: p_ref, area_ref
    type(patch_load_t) :: load
    integer :: b, c
    real(rk) :: x(3), a(3), cp, tau(3), tdir(3)
    associate (p => ps%p(id))
      do c = p%lo(2), p%hi(2)
        do b = p%lo(1), p%hi(1)
          call face_load(sp, lay, p, f, b, c, p_ref, x, a, cp, tau, tdir)
          load%pressure = load%pressure + cp*a
          load%viscous = load%viscous + (tau/0.5_rk)*norm2(a)
        end do
      end do
    end associate
    load%pressure = load%pressure/area_ref
    load%viscous = load%viscous/area_ref
  end function patch_load

  !> The loads of the wall face of boundary cell (b, c) of patch p: face
  !> centre x, outward area vector a, cp, shear stress tau (vector) and the
  !> unit tangent tdir of the face's first direction; p_ref the reference
  !> pressure of cp.
  subroutine face_load(sp, lay, p, f, b, c, p_ref, x, a, cp, tau, tdir)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(bc_patch_t), intent(in) :: p
    type(fields_t), intent(in) :: f
    integer, intent(in) :: b, c
    real(rk), intent(in) :: p_ref
    real(rk), intent(out) :: x(3), a(3), cp, tau(3), tdir(3)
    integer :: d, side, n, i1(3), i2(3), ig(3), iface(3), bp(3), bm(3), nd(3)
    real(rk) :: nrm(3), d1, d2, u1(3), u2(3), uw(3), slope(3), mu
    d = (p%face + 1)/2
    side = p%face - 2*(d - 1)
    nd = [lay%ni, lay%nj, lay%nk]
    n = nd(d)
    if (side == 1) then
      i1 = cell_index(d, 1, b, c); i2 = cell_index(d, 2, b, c); ig = cell_index(d, 0, b, c)
      iface = i1
    else
      i1 = cell_index(d, n, b, c); i2 = cell_index(d, n - 1, b, c); ig = cell_index(d, n + 1, b, c)
      iface = ig
    end if
    a = f%sf(iface(1), iface(2), iface(3), 3*d-2:3*d)
    if (side == 1) a = -a
    nrm = a/norm2(a)
    x = 0.5_rk*(f%xc(i1(1), i1(2), i1(3), :) + f%xc(ig(1), ig(2), ig(3), :))
    cp = (f%qp(i1(1), i1(2), i1(3), 5) - p_ref)/0.5_rk
    d1 = abs(dot_product(f%xc(i1(1), i1(2), i1(3), :) - x, nrm))
    d2 = abs(dot_product(f%xc(i2(1), i2(2), i2(3), :) - x, nrm))
    uw = 0.0_rk
    if (p%kind == BC_LID) uw = p%v(1:3)
    u1 = f%qp(i1(1), i1(2), i1(3), 2:4) - uw
    u2 = f%qp(i2(1), i2(2), i2(3), 2:4) - uw
    u1 = u1 - dot_product(u1, nrm)*nrm
    u2 = u2 - dot_product(u2, nrm)*nrm
    ! u(s) = alpha s + beta s^2 through (0, 0), (d1, u1), (d2, u2): alpha
    slope = (u1*d2*d2 - u2*d1*d1)/(d1*d2*(d2 - d1))
    mu = viscosity(sp, f%qp(i1(1), i1(2), i1(3), 6))
    tau = mu*sp%re_inv*slope
    ! the face's first direction: from the centres of the neighbours along it
    bp = cell_index(d, merge(1, n, side == 1), min(b + 1, nd(first_dir(d))), c)
    bm = cell_index(d, merge(1, n, side == 1), max(b - 1, 1), c)
    tdir = f%xc(bp(1), bp(2), bp(3), :) - f%xc(bm(1), bm(2), bm(3), :)
    tdir = tdir - dot_product(tdir, nrm)*nrm
    if (norm2(tdir) > 0.0_rk) tdir = tdir/norm2(tdir)   ! a face one cell wide has no direction: cf = 0
  end subroutine face_load

  !> The first direction across a face of direction d (cell_index order).
  pure integer function first_dir(d)
    integer, intent(in) :: d
    first_dir = merge(2, 1, d == 1)
  end function first_dir
end module wall_loads
