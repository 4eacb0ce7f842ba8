!> The final state as a CGNS file (case key write_cgns, flow.cgns in the
!> run folder): the Fortran side of fortran/cgns_write.c. The grid's nodes,
!> the cell values of the SIDS names (Density, VelocityX/Y/Z, Pressure,
!> Temperature, Mach: the solver's units, as flow.vts's cell data), and the
!> boundary patches as BC_t (a box's bc_* faces as whole-face patches;
!> periodic faces take none). The walls are BCWallViscousIsothermal or
!> BCWallViscousHeatFlux by the case's wall_thermal, a lid BCWallViscous,
!> so that reading the file back (fortran/cgns_grid.f90) gives the same
!> patches.
module cgns_output
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_char, c_double, c_size_t, c_null_char
  use kinds, only: rk, ng
  use sys_interface, only: c_text
  use grid_layout, only: layout_t
  use solver_params
  use boundary_patches, only: patch_set_t
  use output_fields, only: primitive_values, OV_DENSITY, OV_VELOCITY, OV_PRESSURE, OV_TEMPERATURE, OV_MACH
  use case_config, only: io_error
  implicit none
  private
  public :: write_cgns_solution, cgns_zone_arrays, write_cgns_zones

  interface
    integer(c_int) function adi_cgns_write_solution(path, title, nzone, znames, n, xyz, nfields, names, fields, &
        npatch, patches, nconn, conn, msg, msglen) bind(c, name='adi_cgns_write_solution')
      import :: c_int, c_int32_t, c_char, c_double, c_size_t
      character(kind=c_char), intent(in) :: path(*), title(*), znames(*), names(*)
      integer(c_int32_t), value :: nzone, nfields, nconn
      integer(c_int32_t), intent(in) :: n(*), npatch(*), patches(*), conn(*)
      real(c_double), intent(in) :: xyz(*), fields(*)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
  end interface

  character(len=32), parameter :: field_names(7) = [character(len=32) :: 'Density', 'VelocityX', 'VelocityY', &
    'VelocityZ', 'Pressure', 'Temperature', 'Mach']

contains

  !> path: the whole grid as one zone "flow", its patches as BCs.
  subroutine write_cgns_solution(path, title, lay, sp, xn, qp, ps)
    character(len=*), intent(in) :: path, title
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:)
    type(patch_set_t), intent(in) :: ps
    real(c_double), allocatable :: xyz(:), fields(:)
    integer(c_int32_t), allocatable :: rows(:,:), conn(:,:)
    character(len=32) :: znames(1)
    call cgns_zone_arrays(lay, sp, xn, qp, ps, xyz, fields, rows)
    znames(1) = 'flow'
    allocate(conn(17, 0))
    call write_cgns_zones(path, title, znames, reshape(int([lay%ni, lay%nj, lay%nk], c_int32_t), [3, 1]), xyz, fields, &
      [int(size(rows, 2), c_int32_t)], rows, conn)
  end subroutine write_cgns_solution

  !> One zone's arrays as adi_cgns_write_solution takes them: its nodes
  !> (xyz), its cells' fields (field_names' order) and its patches' rows.
  subroutine cgns_zone_arrays(lay, sp, xn, qp, ps, xyz, fields, rows)
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:)
    type(patch_set_t), intent(in) :: ps
    real(c_double), allocatable, intent(out) :: xyz(:), fields(:)
    integer(c_int32_t), allocatable, intent(out) :: rows(:,:)
    real(c_double), allocatable :: v(:,:,:,:)
    integer :: ni, nj, nk, c, i, j, k, f, np, m
    integer(c_int32_t) :: iso
    ni = lay%ni; nj = lay%nj; nk = lay%nk
    allocate(xyz(3*(ni + 1)*(nj + 1)*(nk + 1)), fields(7*ni*nj*nk))
    m = 0
    do c = 1, 3
      do k = 0, nk
        do j = 0, nj
          do i = 0, ni
            m = m + 1
            xyz(m) = xn(c, i, j, k)
          end do
        end do
      end do
    end do
    m = ni*nj*nk
    fields(1:m) = reshape(primitive_values(OV_DENSITY, sp, qp(1:ni, 1:nj, 1:nk, :)), [m])
    v = primitive_values(OV_VELOCITY, sp, qp(1:ni, 1:nj, 1:nk, :))
    do c = 1, 3
      fields(c*m + 1:(c + 1)*m) = reshape(v(:,:,:,c), [m])
    end do
    fields(4*m + 1:5*m) = reshape(primitive_values(OV_PRESSURE, sp, qp(1:ni, 1:nj, 1:nk, :)), [m])
    fields(5*m + 1:6*m) = reshape(primitive_values(OV_TEMPERATURE, sp, qp(1:ni, 1:nj, 1:nk, :)), [m])
    fields(6*m + 1:7*m) = reshape(primitive_values(OV_MACH, sp, qp(1:ni, 1:nj, 1:nk, :)), [m])
    iso = merge(1, 0, sp%wall_thermal == WALL_ISOTHERMAL)
    if (allocated(ps%p)) then
      np = size(ps%p)
      allocate(rows(7, np))
      do f = 1, np
        rows(:, f) = [int(ps%p(f)%face - 1, c_int32_t), int(ps%p(f)%kind, c_int32_t), iso, &
          int(ps%p(f)%lo(1), c_int32_t), int(ps%p(f)%hi(1), c_int32_t), int(ps%p(f)%lo(2), c_int32_t), &
          int(ps%p(f)%hi(2), c_int32_t)]
      end do
    else
      ! the box: each face whole, of its bc_* kind
      np = 6
      allocate(rows(7, np))
      do f = 1, 6
        select case ((f + 1)/2)
        case (1); rows(:, f) = [f - 1, sp%bc(f), iso, 1, nj, 1, nk]
        case (2); rows(:, f) = [f - 1, sp%bc(f), iso, 1, ni, 1, nk]
        case default; rows(:, f) = [f - 1, sp%bc(f), iso, 1, ni, 1, nj]
        end select
      end do
    end if
  end subroutine cgns_zone_arrays

  !> path: zones named znames of n(:, z) cells, their cgns_zone_arrays one
  !> after another (npatch(z) patch rows each), the 1-to-1 records conn
  !> (fortran/cgns_write.h's rows of 17). A failed write stops the run
  !> (exit 5), a build without CGNS with exit 2.
  subroutine write_cgns_zones(path, title, znames, n, xyz, fields, npatch, rows, conn)
    character(len=*), intent(in) :: path, title
    character(len=32), intent(in) :: znames(:)
    integer(c_int32_t), intent(in) :: n(:,:), npatch(:), rows(:,:), conn(:,:)
    real(c_double), intent(in) :: xyz(:), fields(:)
    character(kind=c_char) :: cmsg(2048)
    character(len=:), allocatable :: names, zn
    integer :: f
    names = ''
    do f = 1, size(field_names)
      names = names//field_names(f)
    end do
    zn = ''
    do f = 1, size(znames)
      zn = zn//znames(f)
    end do
    if (adi_cgns_write_solution(trim(path)//c_null_char, trim(title)//c_null_char, int(size(znames), c_int32_t), zn, &
        n, xyz, int(size(field_names), c_int32_t), names, fields, npatch, rows, int(size(conn, 2), c_int32_t), conn, &
        cmsg, int(size(cmsg), c_size_t)) /= 0) call io_error(c_text(cmsg))
  end subroutine write_cgns_zones

end module cgns_output
