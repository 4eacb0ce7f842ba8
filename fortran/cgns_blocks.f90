!> A CGNS file of several structured zones as a block set (grid_blocks'
!> grid_block_set_t, as a multi-block Plot3D file gives it): each zone's
!> nodes as a block, its boundary conditions as patch lines of that block,
!> and the 1-to-1 interfaces between the blocks.
!>
!> The interfaces are found from the coordinates, as for Plot3D
!> (fortran/block_interfaces.c, with its tolerance); each interface the
!> file declares (a zone's 1-to-1 connectivity records) is then checked
!> against the coordinates node for node: its donor zone is in the file, its
!> range lies on a face of its zone, every node maps into the donor zone,
!> and the two nodes coincide (within 1e-6 of the shortest edge at the
!> node, the finder's rule). A boundary condition on a face part that an
!> interface joins is refused, as a face part claimed twice.
!>
!> Never stops: status GRID_BLOCKS_OK, or GRID_BLOCKS_BAD (2, the exit code
!> of bad input) with one sentence naming the file, the zone and the range.
module cgns_blocks
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_int, c_char, c_double, c_size_t, c_null_char, c_ptr
  use kinds, only: rk, ik8
  use sys_interface, only: c_text
  use text_util, only: int_text, format_real
  use grid_blocks, only: grid_block_set_t, block_bc_t, face_range_t, GRID_BLOCKS_OK, GRID_BLOCKS_BAD, count_grid_blocks, &
    read_grid_blocks, check_set_cells, find_set_interfaces, range_text, block_label
  use cgns_grid, only: is_cgns_name, cgns_zone_info_t, adi_cgns_zone_count, adi_cgns_open_zones, adi_cgns_select_zone, &
    adi_cgns_zone_name, adi_cgns_coords, adi_cgns_bc_line, adi_cgns_bc_range, adi_cgns_1to1, adi_cgns_1to1_donor, adi_cgns_close
  implicit none
  private
  public :: count_block_file, read_block_file, count_cgns_zones, read_cgns_blocks

  integer, parameter :: msg_chars = 8192

  !> A 1-to-1 record as the file declares it
  type :: declared_t
    integer :: block = 0
    character(len=40) :: name = '', donor = ''
    integer(c_int64_t) :: r(6) = 1, d(6) = 1   !< range and donor range: imin, jmin, kmin, imax, jmax, kmax
    integer(c_int32_t) :: t(3) = [1, 2, 3]
  end type declared_t

contains

  !> The zones of a CGNS file (0 when it cannot be read: the reader then says why).
  integer function count_cgns_zones(path) result(n)
    character(len=*), intent(in) :: path
    integer(c_int32_t) :: nz
    character(kind=c_char) :: cmsg(msg_chars)
    n = 0
    if (adi_cgns_zone_count(trim(path)//c_null_char, nz, cmsg, int(msg_chars, c_size_t)) == 0) n = int(nz)
  end function count_cgns_zones

  !> The blocks of a grid file: a CGNS file's zones, a Plot3D file's blocks.
  integer(ik8) function count_block_file(path) result(n)
    character(len=*), intent(in) :: path
    if (is_cgns_name(path)) then
      n = count_cgns_zones(path)
    else
      n = count_grid_blocks(path)
    end if
  end function count_block_file

  !> A grid file of several blocks read and checked: CGNS or Plot3D.
  subroutine read_block_file(path, set, status, msg)
    character(len=*), intent(in) :: path
    type(grid_block_set_t), intent(out) :: set
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    if (is_cgns_name(path)) then
      call read_cgns_blocks(path, set, status, msg)
    else
      call read_grid_blocks(path, set, status, msg)
    end if
  end subroutine read_block_file

  !> Every zone of a CGNS file as a block, checked as the header says.
  subroutine read_cgns_blocks(path, set, status, msg)
    character(len=*), intent(in) :: path
    type(grid_block_set_t), intent(out) :: set
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    type(c_ptr) :: zone
    type(cgns_zone_info_t) :: zi
    type(declared_t), allocatable :: decl(:)
    type(declared_t) :: one
    character(kind=c_char) :: cmsg(msg_chars), cname(64)
    integer(c_int32_t) :: nz
    integer :: b, k

    status = GRID_BLOCKS_OK
    msg = ''
    set%path = trim(path)
    ! the file opened once, its zones read in turn on that handle
    if (adi_cgns_open_zones(trim(path)//c_null_char, zone, nz, cmsg, int(msg_chars, c_size_t)) /= 0) then
      call bad(c_text(cmsg))
      return
    end if
    set%nblocks = int(nz)
    set%what = 'grid file "'//trim(path)//'" ('//int_text(nz)//' zones)'
    set%format = 'CGNS, '//int_text(nz)//' structured zones'
    allocate(set%blocks(nz), set%names(nz), set%bcs(0), decl(0))
    do b = 1, set%nblocks
      call read_zone(b)
      if (status /= GRID_BLOCKS_OK) exit
    end do
    call adi_cgns_close(zone)
    if (status /= GRID_BLOCKS_OK) return

    call check_set_cells(set, status, msg)
    if (status /= GRID_BLOCKS_OK) return
    call find_set_interfaces(set, status, msg)
    if (status /= GRID_BLOCKS_OK) return
    do k = 1, size(decl)
      call check_declared(decl(k))
      if (status /= GRID_BLOCKS_OK) return
    end do
    do k = 1, size(set%bcs)
      call check_bc_apart(set%bcs(k))
      if (status /= GRID_BLOCKS_OK) return
    end do

  contains

    subroutine bad(why)
      character(len=*), intent(in) :: why
      status = GRID_BLOCKS_BAD
      msg = why
    end subroutine bad

    !> Zone b into block b: its name, nodes, BCs and declared interfaces.
    subroutine read_zone(b)
      integer, intent(in) :: b
      real(c_double), allocatable :: xyz(:)
      character(kind=c_char) :: cline(256), cwhere(512)
      integer(c_int32_t) :: thermal, self, face
      integer(c_int64_t) :: lo(2), hi(2)
      integer(ik8) :: nn
      integer :: c, k, st
      if (adi_cgns_select_zone(zone, int(b, c_int32_t), zi, cmsg, int(msg_chars, c_size_t)) /= 0) then
        call bad(c_text(cmsg))
        return
      end if
      call adi_cgns_zone_name(zone, cname, int(size(cname), c_size_t))
      set%names(b) = c_text(cname)
      if (b == 1) set%dims = int(zi%dims)
      if (zi%dims /= set%dims) then
        call bad(set%what//': '//block_label(set, b)//' has '//int_text(zi%dims)//' coordinates per node, '// &
          block_label(set, 1)//' '//int_text(set%dims)//': the zones of a grid are all 2D or all 3D')
        return
      end if
      set%blocks(b)%n = int(zi%n)
      nn = product(zi%n)
      allocate(xyz(zi%dims*nn), set%blocks(b)%xyz(3, zi%n(1), zi%n(2), zi%n(3)), stat=st)
      if (st /= 0) then
        call bad(set%what//': '//block_label(set, b)//': no memory for its nodes')
        return
      end if
      if (adi_cgns_coords(zone, xyz, int(zi%dims*nn, c_int64_t), cmsg, int(msg_chars, c_size_t)) /= 0) then
        call bad(c_text(cmsg))
        return
      end if
      ! 1-based nodes, z = 0 for a 2D zone (as grid_blocks keeps a Plot3D block)
      set%blocks(b)%xyz = 0.0_rk
      do c = 1, int(zi%dims)
        set%blocks(b)%xyz(c, :, :, :) = reshape(xyz((c - 1)*nn + 1:c*nn), int(zi%n))
      end do
      do k = 0, zi%nbc - 1
        if (adi_cgns_bc_line(zone, k, cline, int(size(cline), c_size_t), cwhere, int(size(cwhere), c_size_t), &
            thermal) /= 0) cycle
        if (adi_cgns_bc_range(zone, k, face, lo, hi) /= 0) cycle
        call add_bc(b, c_text(cline), c_text(cwhere), int(thermal), int(face), int(lo), int(hi))
      end do
      do k = 0, zi%n1to1 - 1
        one = declared_t(block=b)
        if (adi_cgns_1to1(zone, k, self, one%r, one%d, one%t, cname, int(size(cname), c_size_t)) /= 0) cycle
        one%name = c_text(cname)
        if (adi_cgns_1to1_donor(zone, k, cname, int(size(cname), c_size_t)) /= 0) cycle
        one%donor = c_text(cname)
        decl = [decl, one]
      end do
    end subroutine read_zone

    !> set%bcs one longer (element by element: gfortran mishandles an array
    !> constructor of a type with deferred-length components)
    subroutine add_bc(b, line, where, thermal, face, lo, hi)
      integer, intent(in) :: b, thermal, face, lo(2), hi(2)
      character(len=*), intent(in) :: line, where
      type(block_bc_t), allocatable :: grown(:)
      integer :: m
      allocate(grown(size(set%bcs) + 1))
      do m = 1, size(set%bcs)
        grown(m)%block = set%bcs(m)%block
        call move_alloc(set%bcs(m)%line, grown(m)%line)
        call move_alloc(set%bcs(m)%where, grown(m)%where)
        grown(m)%thermal = set%bcs(m)%thermal
        grown(m)%face = set%bcs(m)%face
        grown(m)%lo = set%bcs(m)%lo
        grown(m)%hi = set%bcs(m)%hi
      end do
      m = size(grown)
      grown(m)%block = b
      grown(m)%line = line
      grown(m)%where = where
      grown(m)%thermal = thermal
      grown(m)%face = face
      grown(m)%lo = lo
      grown(m)%hi = hi
      call move_alloc(grown, set%bcs)
    end subroutine add_bc

    !> A declared interface against the coordinates, node for node.
    subroutine check_declared(o)
      type(declared_t), intent(in) :: o
      character(len=:), allocatable :: head
      integer :: donor, d, e, i, j, kk, p(3), q(3), lo(3), hi(3), nd(3), m
      logical :: on_face
      real(rk) :: dist, h
      head = set%what//', '//block_label(set, o%block)//': 1-to-1 interface "'//trim(o%name)//'"'
      donor = 0
      do m = 1, set%nblocks
        if (set%names(m) == o%donor) donor = m
      end do
      if (donor == 0) then
        call bad(head//': its donor zone "'//trim(o%donor)//'" is not in the file')
        return
      end if
      associate (n => set%blocks(o%block)%n)
        on_face = .false.
        do d = 1, merge(2, 3, n(3) == 1)
          lo(d) = int(min(o%r(d), o%r(3+d)))
          hi(d) = int(max(o%r(d), o%r(3+d)))
          if (lo(d) == hi(d) .and. (lo(d) == 1 .or. lo(d) == n(d))) on_face = .true.
        end do
        lo(3) = int(min(o%r(3), o%r(6))); hi(3) = int(max(o%r(3), o%r(6)))
        if (.not. on_face .or. any(lo < 1) .or. any(hi > n)) then
          call bad(head//': its range '//ijk(int(o%r(1:3)))//' to '//ijk(int(o%r(4:6)))//' is not a part of a face of '// &
            'the zone ('//int_text(n(1))//' x '//int_text(n(2))//' x '//int_text(n(3))//' nodes)')
          return
        end if
        nd = set%blocks(donor)%n
        do kk = lo(3), hi(3)
          do j = lo(2), hi(2)
            do i = lo(1), hi(1)
              p = [i, j, kk]
              do d = 1, 3
                e = abs(o%t(d))
                q(e) = int(o%d(e)) + sign(1, int(o%t(d)))*(p(d) - int(o%r(d)))
              end do
              if (any(q < 1) .or. any(q > nd)) then
                call bad(head//' maps node '//ijk(p)//' to node '//ijk(q)//' of '//block_label(set, donor)// &
                  ', outside its '//int_text(nd(1))//' x '//int_text(nd(2))//' x '//int_text(nd(3))//' nodes')
                return
              end if
              dist = norm2(set%blocks(o%block)%xyz(:, i, j, kk) - set%blocks(donor)%xyz(:, q(1), q(2), q(3)))
              h = shortest_edge(o%block, p)
              if (dist > 1.0e-6_rk*h) then
                call bad(head//' joins node '//ijk(p)//' to node '//ijk(q)//' of '//block_label(set, donor)// &
                  ', but they lie '//format_real(dist, '(es10.3)')//' apart, more than 1e-6 of the shortest edge there ('// &
                  format_real(h, '(es10.3)')//'): the interface does not match the coordinates')
                return
              end if
            end do
          end do
        end do
      end associate
    end subroutine check_declared

    !> The shortest edge of block b at node p (a 2D block: in its plane).
    real(rk) function shortest_edge(b, p) result(h)
      integer, intent(in) :: b, p(3)
      integer :: d, s, q(3)
      h = huge(1.0_rk)
      associate (blk => set%blocks(b))
        do d = 1, 3
          do s = -1, 1, 2
            q = p
            q(d) = p(d) + s
            if (q(d) < 1 .or. q(d) > blk%n(d)) cycle
            h = min(h, norm2(blk%xyz(:, q(1), q(2), q(3)) - blk%xyz(:, p(1), p(2), p(3))))
          end do
        end do
      end associate
    end function shortest_edge

    !> A boundary condition must not lie on a face part an interface joins.
    subroutine check_bc_apart(bc)
      type(block_bc_t), intent(in) :: bc
      integer :: q
      do q = 1, size(set%interfaces)
        ! (its ranges are cells: their last node is one further)
        if (meets(set%interfaces(q)%a, bc%block, bc%face, bc%lo, bc%hi + 1)) then
          call bad(bc%where//' lies on '//range_text(set, set%interfaces(q)%a)//', which a 1-to-1 interface joins to '// &
            range_text(set, set%interfaces(q)%b)//': a face part is a boundary or an interface, not both')
          return
        end if
        if (meets(set%interfaces(q)%b, bc%block, bc%face, bc%lo, bc%hi + 1)) then
          call bad(bc%where//' lies on '//range_text(set, set%interfaces(q)%b)//', which a 1-to-1 interface joins to '// &
            range_text(set, set%interfaces(q)%a)//': a face part is a boundary or an interface, not both')
          return
        end if
      end do
    end subroutine check_bc_apart

    !> Whether face f's part lo..hi of block b (in the face's two directions)
    !> and r share a cell (a 2D block: in its plane).
    logical function meets(r, b, f, lo, hi)
      type(face_range_t), intent(in) :: r
      integer, intent(in) :: b, f, lo(2), hi(2)
      integer :: d, a(2), ra_lo, ra_hi, m
      meets = .false.
      if (r%block /= b .or. r%face /= f) return
      d = f/2 + 1
      a = pack([1, 2, 3], [1, 2, 3] /= d)
      do m = 1, 2
        if (a(m) == 3 .and. set%blocks(b)%n(3) == 1) cycle
        ra_lo = min(r%beg(a(m)), r%end(a(m)))
        ra_hi = max(r%beg(a(m)), r%end(a(m)))
        if (min(hi(m), ra_hi) - max(lo(m), ra_lo) < 1) return
      end do
      meets = .true.
    end function meets

  end subroutine read_cgns_blocks

  function ijk(p) result(s)
    integer, intent(in) :: p(3)
    character(len=:), allocatable :: s
    s = int_text(p(1))//','//int_text(p(2))//','//int_text(p(3))
  end function ijk

end module cgns_blocks
