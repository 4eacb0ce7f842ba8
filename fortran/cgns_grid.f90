!> A grid from a CGNS file (one structured zone): the Fortran side of
!> fortran/cgns_zone.c, laid out and checked as a Plot3D grid is
!> (fortran/grid_file.f90: the same node layout, ghost nodes, periodic-face
!> and cell checks), and the zone's boundary conditions as the lines of a
!> patch file (fortran/patch_file.f90 reads them as it reads a file's).
!>
!> The node layout below repeats read_grid_file's (Plot3D): both fill
!> xn(1:3, -ng:ni+ng, -ng:nj+ng, -ng:nk+ng) from coordinates in the same
!> order, so a CGNS file converted from a Plot3D file (plot3d_to_cgns) gives
!> the same nodes bit for bit (tests/unit/test_cgns.f90 checks it).
!>
!> A 1-to-1 interface of the zone with itself is taken when it joins two
!> opposite faces whole, node for node, with the identity transform: the
!> periodic cut of an O-grid or a periodic box, which the reader finds from
!> the coordinates anyway (check_periodic_faces) and the driver joins
!> (grid_source's join_cuts). Any other interface is refused by name.
module cgns_grid
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_int, c_char, c_double, c_size_t, c_null_char, &
    c_ptr, c_null_ptr, c_associated
  use kinds, only: rk, ik8
  use sys_interface, only: c_text
  use text_util, only: int_text
  use grid_file, only: grid_read_options_t, grid_file_info_t, GRID_OK, GRID_BAD_INPUT, check_extent, lay_out_nodes, finish_nodes
  implicit none
  private
  public :: is_cgns_name, probe_cgns_grid, read_cgns_grid, cgns_patch_lines, cgns_available
  ! the C reader's API, for fortran/cgns_blocks.f90 (a file of several zones)
  public :: cgns_zone_info_t, adi_cgns_zone_count, adi_cgns_open_zones, adi_cgns_select_zone, adi_cgns_zone_name, &
    adi_cgns_coords, adi_cgns_bc_line, adi_cgns_bc_range, adi_cgns_1to1, adi_cgns_1to1_donor, adi_cgns_close

  !> fortran/cgns_zone.h: adi_cgns_zone_info
  type, bind(c) :: cgns_zone_info_t
    integer(c_int32_t) :: dims = 0, nbc = 0, n1to1 = 0, pad = 0
    integer(c_int64_t) :: n(3) = 0
  end type cgns_zone_info_t

  interface
    integer(c_int) function adi_cgns_open(path, zone, info, msg, msglen) bind(c, name='adi_cgns_open')
      import :: c_int, c_char, c_ptr, c_size_t, cgns_zone_info_t
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: zone
      type(cgns_zone_info_t), intent(out) :: info
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_cgns_coords(zone, xyz, nvalues, msg, msglen) bind(c, name='adi_cgns_coords')
      import :: c_int, c_char, c_ptr, c_size_t, c_double, c_int64_t
      type(c_ptr), value :: zone
      real(c_double), intent(out) :: xyz(*)
      integer(c_int64_t), value :: nvalues
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_cgns_bc_line(zone, b, line, linelen, where, wherelen, thermal) &
        bind(c, name='adi_cgns_bc_line')
      import :: c_int, c_char, c_ptr, c_size_t, c_int32_t
      type(c_ptr), value :: zone
      integer(c_int), value :: b
      character(kind=c_char), intent(out) :: line(*), where(*)
      integer(c_size_t), value :: linelen, wherelen
      integer(c_int32_t), intent(out) :: thermal
    end function
    integer(c_int) function adi_cgns_1to1(zone, c, self, range, donor, transform, name, namelen) &
        bind(c, name='adi_cgns_1to1')
      import :: c_int, c_char, c_ptr, c_size_t, c_int32_t, c_int64_t
      type(c_ptr), value :: zone
      integer(c_int), value :: c
      integer(c_int32_t), intent(out) :: self, transform(3)
      integer(c_int64_t), intent(out) :: range(6), donor(6)
      character(kind=c_char), intent(out) :: name(*)
      integer(c_size_t), value :: namelen
    end function
    subroutine adi_cgns_close(zone) bind(c, name='adi_cgns_close')
      import :: c_ptr
      type(c_ptr), value :: zone
    end subroutine
    integer(c_int) function adi_cgns_available() bind(c, name='adi_cgns_available')
      import :: c_int
    end function
    integer(c_int) function adi_cgns_zone_count(path, nzones, msg, msglen) bind(c, name='adi_cgns_zone_count')
      import :: c_int, c_char, c_size_t, c_int32_t
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int32_t), intent(out) :: nzones
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_cgns_open_zones(path, zone, nzones, msg, msglen) bind(c, name='adi_cgns_open_zones')
      import :: c_int, c_char, c_ptr, c_size_t, c_int32_t
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: zone
      integer(c_int32_t), intent(out) :: nzones
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_cgns_select_zone(zone, zz, info, msg, msglen) bind(c, name='adi_cgns_select_zone')
      import :: c_int, c_char, c_ptr, c_size_t, c_int32_t, cgns_zone_info_t
      type(c_ptr), value :: zone
      integer(c_int32_t), value :: zz
      type(cgns_zone_info_t), intent(out) :: info
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_cgns_bc_range(zone, b, face, lo, hi) bind(c, name='adi_cgns_bc_range')
      import :: c_int, c_ptr, c_int32_t, c_int64_t
      type(c_ptr), value :: zone
      integer(c_int), value :: b
      integer(c_int32_t), intent(out) :: face
      integer(c_int64_t), intent(out) :: lo(2), hi(2)
    end function
    subroutine adi_cgns_zone_name(zone, name, namelen) bind(c, name='adi_cgns_zone_name')
      import :: c_ptr, c_char, c_size_t
      type(c_ptr), value :: zone
      character(kind=c_char), intent(out) :: name(*)
      integer(c_size_t), value :: namelen
    end subroutine
    integer(c_int) function adi_cgns_1to1_donor(zone, c, name, namelen) bind(c, name='adi_cgns_1to1_donor')
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: zone
      integer(c_int), value :: c
      character(kind=c_char), intent(out) :: name(*)
      integer(c_size_t), value :: namelen
    end function
  end interface

  integer, parameter :: msg_chars = 8192
  character(len=1), parameter :: dirs(3) = ['i', 'j', 'k']

contains

  !> A grid_file naming a CGNS file (by its suffix, as CGNS tools do).
  pure logical function is_cgns_name(path)
    character(len=*), intent(in) :: path
    integer :: n
    n = len_trim(path)
    is_cgns_name = .false.
    if (n > 5) is_cgns_name = path(n-4:n) == '.cgns' .or. path(n-4:n) == '.CGNS'
  end function is_cgns_name

  logical function cgns_available()
    cgns_available = adi_cgns_available() /= 0
  end function cgns_available

  function where_text(path) result(s)
    character(len=*), intent(in) :: path
    character(len=:), allocatable :: s
    s = 'grid file "'//trim(path)//'", zone 1'
  end function where_text

  !> Opens the file and takes its sizes into info (as probe_grid_file does
  !> for Plot3D); zone is the open handle (null on failure).
  subroutine open_zone(path, opts, zone, zi, info, status, msg)
    character(len=*), intent(in) :: path
    type(grid_read_options_t), intent(in) :: opts
    type(c_ptr), intent(out) :: zone
    type(cgns_zone_info_t), intent(out) :: zi
    type(grid_file_info_t), intent(out) :: info
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char) :: cmsg(msg_chars)
    status = GRID_OK
    msg = ''
    zone = c_null_ptr
    if (adi_cgns_open(trim(path)//c_null_char, zone, zi, cmsg, int(msg_chars, c_size_t)) /= 0) then
      status = GRID_BAD_INPUT
      msg = c_text(cmsg)
      return
    end if
    info%format = 'CGNS, one structured zone, '//int_text(int(zi%dims))//'D'
    info%layout%dims = zi%dims
    info%layout%n = zi%n
    call check_extent(where_text(path), zi%n, int(zi%dims), opts, info, status, msg)
    if (status == GRID_OK) call check_interfaces(path, zone, zi, status, msg)
    if (status /= GRID_OK) then
      call adi_cgns_close(zone)
      zone = c_null_ptr
    end if
  end subroutine open_zone

  !> The zone's 1-to-1 interfaces: each must join two opposite faces of
  !> the zone itself whole, with the identity transform (see the header).
  subroutine check_interfaces(path, zone, zi, status, msg)
    character(len=*), intent(in) :: path
    type(c_ptr), intent(in) :: zone
    type(cgns_zone_info_t), intent(in) :: zi
    integer, intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: msg
    integer(c_int32_t) :: self, tr(3)
    integer(c_int64_t) :: r(6), dn(6), n(3)
    character(kind=c_char) :: cname(64)
    integer :: c, d
    logical :: whole
    n = zi%n
    do c = 0, zi%n1to1 - 1
      if (adi_cgns_1to1(zone, c, self, r, dn, tr, cname, int(size(cname), c_size_t)) /= 0) cycle
      whole = .false.
      do d = 1, 3
        if (n(d) == 1) cycle
        ! a face d = 1 against d = n (or the other way), the rest whole and equal
        if (((r(d) == 1 .and. r(3+d) == 1 .and. dn(d) == n(d) .and. dn(3+d) == n(d)) .or. &
             (r(d) == n(d) .and. r(3+d) == n(d) .and. dn(d) == 1 .and. dn(3+d) == 1)) .and. &
            whole_face(r, n, d) .and. whole_face(dn, n, d)) whole = .true.
      end do
      if (self == 0) then
        status = GRID_BAD_INPUT
        msg = where_text(path)//', interface "'//c_text(cname)//'": its donor is another zone; '// &
          'the solver runs one block'
      else if (.not. whole .or. any(tr /= [1, 2, 3])) then
        status = GRID_BAD_INPUT
        msg = where_text(path)//', interface "'//c_text(cname)//'": a 1-to-1 interface of the zone with itself '// &
          'is taken only when it joins two opposite faces whole, node for node (a periodic cut, transform 1 2 3); '// &
          'this one (range '//range_text(r)//', donor '//range_text(dn)//', transform '//int_text(int(tr(1)))// &
          ' '//int_text(int(tr(2)))//' '//int_text(int(tr(3)))//') is not, and adiflow does not join such faces yet'
      end if
      if (status /= GRID_OK) return
    end do
  end subroutine check_interfaces

  pure logical function whole_face(r, n, d)
    integer(c_int64_t), intent(in) :: r(6), n(3)
    integer, intent(in) :: d
    integer :: e
    whole_face = .true.
    do e = 1, 3
      if (e == d) cycle
      if (min(r(e), r(3+e)) /= 1 .or. max(r(e), r(3+e)) /= n(e)) whole_face = .false.
    end do
  end function whole_face

  function range_text(r) result(s)
    integer(c_int64_t), intent(in) :: r(6)
    character(len=:), allocatable :: s
    s = int_text(r(1))//':'//int_text(r(4))//' '//int_text(r(2))//':'//int_text(r(5))//' '//int_text(r(3))//':'//int_text(r(6))
  end function range_text

  !> The zone's sizes (the header only).
  subroutine probe_cgns_grid(path, opts, info, status, msg)
    character(len=*), intent(in) :: path
    type(grid_read_options_t), intent(in) :: opts
    type(grid_file_info_t), intent(out) :: info
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    type(c_ptr) :: zone
    type(cgns_zone_info_t) :: zi
    call open_zone(path, opts, zone, zi, info, status, msg)
    if (c_associated(zone)) call adi_cgns_close(zone)
  end subroutine probe_cgns_grid

  !> Reads, lays out and checks the zone's nodes, as read_grid_file does a
  !> Plot3D block's.
  subroutine read_cgns_grid(path, opts, xn, info, status, msg)
    character(len=*), intent(in) :: path
    type(grid_read_options_t), intent(in) :: opts
    real(rk), allocatable, intent(out) :: xn(:,:,:,:)
    type(grid_file_info_t), intent(out) :: info
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    type(c_ptr) :: zone
    type(cgns_zone_info_t) :: zi
    real(c_double), allocatable :: xyz(:)
    character(kind=c_char) :: cmsg(msg_chars)
    integer(ik8) :: nn
    integer :: dims, st, rc

    call open_zone(path, opts, zone, zi, info, status, msg)
    if (status /= GRID_OK) return
    dims = int(zi%dims)
    nn = product(zi%n)
    allocate(xyz(dims*nn), stat=st)
    if (st /= 0) then
      call adi_cgns_close(zone)
      status = GRID_BAD_INPUT
      msg = where_text(path)//': no memory for its '//int_text(nn)//' nodes'
      return
    end if
    rc = adi_cgns_coords(zone, xyz, int(dims*nn, c_int64_t), cmsg, int(msg_chars, c_size_t))
    call adi_cgns_close(zone)
    if (rc /= 0) then
      status = GRID_BAD_INPUT
      msg = c_text(cmsg)
      return
    end if
    ! a zone of one k-plane (or a 2D zone with CoordinateZ) lies in a plane
    ! z = constant, as a Plot3D file's must (grid_file's lay_out_nodes)
    call lay_out_nodes(where_text(path), xyz, dims, zi%n, opts, info, xn, status, msg)
    if (status /= GRID_OK) return
    call check_declared_cuts(path, zi, info, opts%periodic, status, msg)
    if (status /= GRID_OK) then
      deallocate(xn)
      return
    end if
    call finish_nodes(where_text(path), opts, info, xn, status, msg)
  end subroutine read_cgns_grid

  !> An interface of the zone with itself must be a cut the coordinates
  !> show (its faces coincide node for node) or a pair the case declares
  !> periodic (bc_imin = bc_imax = 'periodic': a shifted copy).
  subroutine check_declared_cuts(path, zi, info, periodic, status, msg)
    character(len=*), intent(in) :: path
    type(cgns_zone_info_t), intent(in) :: zi
    type(grid_file_info_t), intent(in) :: info
    logical, intent(in) :: periodic(3)
    integer, intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: msg
    type(c_ptr) :: zone
    type(cgns_zone_info_t) :: zj
    integer(c_int32_t) :: self, tr(3)
    integer(c_int64_t) :: r(6), dn(6)
    character(kind=c_char) :: cname(64), cmsg(msg_chars)
    integer :: c, d
    if (zi%n1to1 == 0) return
    if (adi_cgns_open(trim(path)//c_null_char, zone, zj, cmsg, int(msg_chars, c_size_t)) /= 0) then
      status = GRID_BAD_INPUT
      msg = c_text(cmsg)
      return
    end if
    do c = 0, zj%n1to1 - 1
      if (adi_cgns_1to1(zone, c, self, r, dn, tr, cname, int(size(cname), c_size_t)) /= 0) cycle
      do d = 1, 3
        if (r(d) /= r(3+d) .or. dn(d) /= dn(3+d) .or. r(d) == dn(d)) cycle
        if (.not. (info%cut(d) .or. periodic(d))) then
          status = GRID_BAD_INPUT
          msg = where_text(path)//', interface "'//c_text(cname)//'": it joins the zone''s '//dirs(d)//'-faces, '// &
            'but their nodes do not coincide (a cut of the grid must) and the case does not declare them periodic '// &
            '(bc_'//dirs(d)//'min = bc_'//dirs(d)//'max = ''periodic'')'
        end if
      end do
    end do
    call adi_cgns_close(zone)
  end subroutine check_declared_cuts

  !> The zone's boundary conditions as patch-file lines, where each comes
  !> from, and its wall's thermal condition (0 the case's, 1 isothermal,
  !> 2 adiabatic). n = 0: the zone has none.
  subroutine cgns_patch_lines(path, lines, wheres, thermal, status, msg)
    character(len=*), intent(in) :: path
    character(len=256), allocatable, intent(out) :: lines(:)
    character(len=512), allocatable, intent(out) :: wheres(:)
    integer, allocatable, intent(out) :: thermal(:)
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    type(c_ptr) :: zone
    type(cgns_zone_info_t) :: zi
    character(kind=c_char) :: cmsg(msg_chars), cl(256), cw(512)
    integer(c_int32_t) :: th
    integer :: b
    status = GRID_OK
    msg = ''
    if (adi_cgns_open(trim(path)//c_null_char, zone, zi, cmsg, int(msg_chars, c_size_t)) /= 0) then
      status = GRID_BAD_INPUT
      msg = c_text(cmsg)
      allocate(lines(0), wheres(0), thermal(0))
      return
    end if
    allocate(lines(zi%nbc), wheres(zi%nbc), thermal(zi%nbc))
    do b = 1, zi%nbc
      if (adi_cgns_bc_line(zone, b - 1, cl, int(size(cl), c_size_t), cw, int(size(cw), c_size_t), th) /= 0) cycle
      lines(b) = c_text(cl)
      wheres(b) = c_text(cw)
      thermal(b) = int(th)
    end do
    call adi_cgns_close(zone)
  end subroutine cgns_patch_lines
end module cgns_grid
