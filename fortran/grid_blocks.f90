!> A multi-block Plot3D file as a set of blocks and the 1-to-1 interfaces
!> between them: the Fortran side of adi_p3d_probe_blocks and
!> adi_p3d_read_blocks (fortran/plot3d_file.c: every format the one-block
!> reader takes) and of adi_block_links_find (fortran/block_interfaces.c,
!> whose header states the matching rule and its tolerance).
!>
!> Each block keeps its raw nodes, xyz(1:3, 1:n1, 1:n2, 1:n3), 1-based as
!> Plot3D numbers them (z = 0 for a 2D file), without ghost nodes: the
!> ghost layer of a block comes from across its interfaces, which the
!> solver over several blocks will fill; the one-block path
!> (fortran/grid_file.f90) is unchanged. The interfaces and the face parts
!> left for boundary patches use the same 1-based node indices; a 2D block
!> is matched one cell thick as the solver makes it, so its ranges run over
!> k = 1..2.
!>
!> Each block's cells are checked as the one-block path checks them
!> (fortran/grid_checks.f90: collapsed faces, zero or negative volumes, a
!> left-handed block; a 2D block made one cell thick, span 1), with its
!> ghost nodes extrapolated for that check only, before the interfaces are
!> looked for.
!>
!> read_grid_blocks never stops: status 0, or GRID_BLOCKS_BAD (2, the exit
!> code of bad input) with one sentence naming the file and, where it
!> applies, the block, the face and the nodes. Everything it allocates is
!> the grid's own nodes and the matcher's face lists: no flow field.
module grid_blocks
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_int, c_char, c_double, c_size_t, c_null_char, &
    c_ptr, c_null_ptr, c_f_pointer, c_associated
  use kinds, only: rk, ik8, ng
  use sys_interface, only: c_text
  use text_util, only: int_text
  use grid_generation, only: fill_ghost_nodes
  use grid_checks, only: check_grid_cells, grid_cell_stats_t
  implicit none
  private
  public :: face_range_t, block_interface_t, grid_block_t, grid_block_set_t, block_bc_t
  public :: count_grid_blocks, read_grid_blocks, face_name, range_text, transform_text, block_label
  public :: check_set_cells, find_set_interfaces, covers_whole_face
  public :: GRID_BLOCKS_OK, GRID_BLOCKS_BAD, plot3d_layout_t, adi_p3d_describe

  integer, parameter :: GRID_BLOCKS_OK = 0, GRID_BLOCKS_BAD = 2
  !> as fortran/grid_file.f90: more nodes in a direction than any grid the solver takes, by far
  integer(ik8), parameter :: max_nodes = 1000000_ik8
  integer, parameter :: msg_chars = 8192

  !> fortran/block_interfaces.h: adi_face_range (face 0..5: i=1, i=max, j=1, j=max, k=1, k=max)
  type, bind(c) :: face_range_t
    integer(c_int32_t) :: block = 0, face = 0
    integer(c_int32_t) :: beg(3) = 0, end(3) = 0
  end type face_range_t

  !> fortran/block_interfaces.h: adi_interface (CGNS's transform)
  type, bind(c) :: block_interface_t
    type(face_range_t) :: a, b
    integer(c_int32_t) :: transform(3) = 0
  end type block_interface_t

  !> fortran/block_interfaces.h: adi_block_links
  type, bind(c) :: block_links_c
    type(c_ptr) :: itf = c_null_ptr
    integer(c_int64_t) :: nitf = 0
    type(c_ptr) :: left = c_null_ptr
    integer(c_int64_t) :: nleft = 0
  end type block_links_c

  !> fortran/plot3d_file.h: adi_p3d_layout (grid_file's too)
  type, bind(c) :: plot3d_layout_t
    integer(c_int32_t) :: encoding = 0, marker_bytes = 0, real_bytes = 0, big_endian = 0
    integer(c_int32_t) :: has_count = 0, dims = 0
    integer(c_int64_t) :: n(3) = 0
    integer(c_int64_t) :: file_bytes = 0
  end type plot3d_layout_t

  type :: grid_block_t
    integer :: n(3) = 0                 !< nodes in i, j, k (k = 1 for a 2D block)
    real(rk), allocatable :: xyz(:,:,:,:)
    real(rk) :: vol_min = 0.0_rk, vol_max = 0.0_rk   !< its cell volumes (a 2D block: span 1)
  end type grid_block_t

  !> A boundary condition a file gives a block (a CGNS zone's BC_t) as a
  !> patch line of its block ("imin wall 1:8 1:1", fortran/patch_file.f90)
  type :: block_bc_t
    integer :: block = 0
    character(len=:), allocatable :: line, where   !< the line; "zone "Z", BC "wall-1" (BCWallViscous)"
    integer :: thermal = 0                         !< 0 the case's wall condition, 1 isothermal, 2 adiabatic
    integer :: face = 0                            !< the line's face (0 imin .. 5 kmax)
    integer :: lo(2) = 0, hi(2) = 0                !< and its cell ranges in the face's two directions
  end type block_bc_t

  type :: grid_block_set_t
    character(len=:), allocatable :: path
    character(len=:), allocatable :: format   !< "Plot3D 3D, Fortran unformatted ...", "CGNS, 3 structured zones"
    character(len=:), allocatable :: what     !< the file in messages: 'grid file "P" (3 blocks)'
    integer :: nblocks = 0, dims = 0
    type(grid_block_t), allocatable :: blocks(:)
    character(len=40), allocatable :: names(:)   !< the blocks' names (CGNS zones); unallocated: none
    type(block_interface_t), allocatable :: interfaces(:)
    type(face_range_t), allocatable :: left(:)   !< face parts left for boundary patches
    type(block_bc_t), allocatable :: bcs(:)      !< the file's boundary conditions (CGNS); unallocated: none
  end type grid_block_set_t

  interface
    integer(c_int) function adi_p3d_probe_blocks(path, lay, nblocks, sizes, cap, msg, msglen) &
        bind(c, name='adi_p3d_probe_blocks')
      import :: c_int, c_char, c_int64_t, c_size_t, plot3d_layout_t
      character(kind=c_char), intent(in) :: path(*)
      type(plot3d_layout_t), intent(out) :: lay
      integer(c_int64_t), intent(out) :: nblocks
      integer(c_int64_t), intent(out) :: sizes(*)
      integer(c_int64_t), value :: cap
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_p3d_read_blocks(path, lay, xyz, nvalues, msg, msglen) bind(c, name='adi_p3d_read_blocks')
      import :: c_int, c_char, c_size_t, c_double, c_int64_t, plot3d_layout_t
      character(kind=c_char), intent(in) :: path(*)
      type(plot3d_layout_t), intent(in) :: lay
      real(c_double), intent(out) :: xyz(*)
      integer(c_int64_t), value :: nvalues
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    subroutine adi_p3d_describe(lay, buf, buflen) bind(c, name='adi_p3d_describe')
      import :: c_char, c_size_t, plot3d_layout_t
      type(plot3d_layout_t), intent(in) :: lay
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_size_t), value :: buflen
    end subroutine
    integer(c_int) function adi_block_links_find(nblocks, dims, n, xyz, out, msg, msglen) bind(c, name='adi_block_links_find')
      import :: c_int, c_int32_t, c_int64_t, c_double, c_char, c_size_t, block_links_c
      integer(c_int32_t), value :: nblocks, dims
      integer(c_int64_t), intent(in) :: n(*)
      real(c_double), intent(in) :: xyz(*)
      type(block_links_c), intent(out) :: out
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    subroutine adi_block_links_free(l) bind(c, name='adi_block_links_free')
      import :: block_links_c
      type(block_links_c), intent(inout) :: l
    end subroutine
  end interface

contains

  !> The number of blocks of the file when the multi-block reader can read
  !> its header (0 when it cannot: the one-block reader's message says why).
  integer(ik8) function count_grid_blocks(path) result(nb)
    character(len=*), intent(in) :: path
    type(plot3d_layout_t) :: lay
    integer(c_int64_t) :: sizes(3)
    character(kind=c_char) :: cmsg(msg_chars)
    nb = 0
    if (adi_p3d_probe_blocks(trim(path)//c_null_char, lay, nb, sizes, 0_c_int64_t, cmsg, int(msg_chars, c_size_t)) /= 0) nb = 0
  end function count_grid_blocks

  !> Reads every block of the file and finds its interfaces.
  subroutine read_grid_blocks(path, set, status, msg)
    character(len=*), intent(in) :: path
    type(grid_block_set_t), intent(out) :: set
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    type(plot3d_layout_t) :: lay
    integer(c_int64_t) :: nb, dummy(3), total
    integer(c_int64_t), allocatable :: sizes(:)
    real(c_double), allocatable :: xyz(:)
    character(kind=c_char) :: cmsg(msg_chars), cdesc(400)
    integer(ik8) :: off, nn
    integer :: b, st, i, j, k, c

    status = GRID_BLOCKS_OK
    msg = ''
    set%path = trim(path)
    if (adi_p3d_probe_blocks(trim(path)//c_null_char, lay, nb, dummy, 0_c_int64_t, cmsg, int(msg_chars, c_size_t)) /= 0) then
      status = GRID_BLOCKS_BAD
      msg = c_text(cmsg)
      return
    end if
    allocate(sizes(3*nb), stat=st)
    if (st /= 0) then
      call refuse('no memory for the sizes of its '//int_text(nb)//' blocks')
      return
    end if
    if (adi_p3d_probe_blocks(trim(path)//c_null_char, lay, nb, sizes, nb, cmsg, int(msg_chars, c_size_t)) /= 0) then
      status = GRID_BLOCKS_BAD
      msg = c_text(cmsg)
      return
    end if
    call adi_p3d_describe(lay, cdesc, int(size(cdesc), c_size_t))
    set%format = c_text(cdesc)
    set%nblocks = int(nb)
    set%dims = int(lay%dims)
    set%what = 'grid file "'//trim(path)//'" ('//int_text(nb)//' blocks)'
    total = 0
    do b = 1, set%nblocks
      if (any(sizes(3*b-2:3*b) > max_nodes)) then
        call refuse('block '//int_text(b)//': '//int_text(sizes(3*b-2))//' x '//int_text(sizes(3*b-1))//' x '// &
          int_text(sizes(3*b))//' nodes: more than '//int_text(max_nodes)//' in a direction')
        return
      end if
      total = total + lay%dims*product(sizes(3*b-2:3*b))
    end do
    allocate(xyz(total), set%blocks(set%nblocks), stat=st)
    if (st /= 0) then
      call refuse('no memory for its '//int_text(total/lay%dims)//' nodes')
      return
    end if
    if (adi_p3d_read_blocks(trim(path)//c_null_char, lay, xyz, total, cmsg, int(msg_chars, c_size_t)) /= 0) then
      status = GRID_BLOCKS_BAD
      msg = c_text(cmsg)
      return
    end if

    ! the raw nodes of each block, 1-based, z = 0 in 2D
    off = 0
    do b = 1, set%nblocks
      set%blocks(b)%n = int(sizes(3*b-2:3*b))
      associate (n => set%blocks(b)%n)
        allocate(set%blocks(b)%xyz(3, n(1), n(2), n(3)), stat=st)
        if (st /= 0) then
          call refuse('block '//int_text(b)//': no memory for its nodes')
          return
        end if
        nn = int(n(1), ik8)*n(2)*n(3)
        set%blocks(b)%xyz = 0.0_rk
        do k = 1, n(3)
          do j = 1, n(2)
            do i = 1, n(1)
              do c = 1, set%dims
                set%blocks(b)%xyz(c, i, j, k) = xyz(off + (c - 1)*nn + i + int(n(1), ik8)*((j - 1) + int(n(2), ik8)*(k - 1)))
              end do
            end do
          end do
        end do
        off = off + set%dims*nn
      end associate
    end do

    deallocate(xyz)
    ! each block's cells as the one-block path checks them (collapsed faces,
    ! zero or negative volumes, a left-handed block), then the interfaces
    call check_set_cells(set, status, msg)
    if (status /= GRID_BLOCKS_OK) return
    call find_set_interfaces(set, status, msg)

  contains

    subroutine refuse(why)
      character(len=*), intent(in) :: why
      status = GRID_BLOCKS_BAD
      msg = 'grid file "'//trim(path)//'" ('//int_text(nb)//' blocks): '//why
    end subroutine refuse
  end subroutine read_grid_blocks

  !> Each block's cells checked as the one-block path checks a grid
  !> (collapsed faces, zero or negative volumes, a left-handed block; a 2D
  !> block one cell thick, span 1), its ghost nodes extrapolated for the
  !> check only; the volumes' range kept.
  subroutine check_set_cells(set, status, msg)
    type(grid_block_set_t), intent(inout) :: set
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    real(rk), allocatable :: xn(:,:,:,:)
    type(grid_cell_stats_t) :: stats
    character(len=:), allocatable :: why
    integer :: b, ni, nj, nk, kk, st
    logical :: planar
    status = GRID_BLOCKS_OK
    msg = ''
    do b = 1, set%nblocks
      associate (blk => set%blocks(b))
        planar = blk%n(3) == 1
        ni = blk%n(1) - 1
        nj = blk%n(2) - 1
        nk = merge(1, blk%n(3) - 1, planar)
        allocate(xn(3, -ng:ni+ng, -ng:nj+ng, -ng:nk+ng), stat=st)
        if (st /= 0) then
          status = GRID_BLOCKS_BAD
          msg = set%what//': '//block_label(set, b)//': no memory to check its cells'
          return
        end if
        xn = 0.0_rk
        if (planar) then
          ! one cell thick, span 1, as a run makes a 2D grid
          do kk = 0, 1
            xn(1:2, 0:ni, 0:nj, kk) = blk%xyz(1:2, :, :, 1)
            xn(3, 0:ni, 0:nj, kk) = blk%xyz(3, :, :, 1) + real(kk, rk)
          end do
        else
          xn(:, 0:ni, 0:nj, 0:nk) = blk%xyz
        end if
        call fill_ghost_nodes(xn, ni, nj, nk, [.false., .false., .false.])
        call check_grid_cells(xn, ni, nj, nk, [.false., .false., .false.], planar, set%what//', '//block_label(set, b), &
          st, why, stats)
        deallocate(xn)
        if (st /= 0) then
          status = GRID_BLOCKS_BAD
          msg = why
          return
        end if
        blk%vol_min = stats%vol_min
        blk%vol_max = stats%vol_max
      end associate
    end do
  end subroutine check_set_cells

  !> The 1-to-1 interfaces and the face parts left, found from the blocks'
  !> coordinates (fortran/block_interfaces.c).
  subroutine find_set_interfaces(set, status, msg)
    type(grid_block_set_t), intent(inout) :: set
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    type(block_links_c) :: links
    integer(c_int64_t), allocatable :: sizes(:)
    real(c_double), allocatable :: xyz(:)
    character(kind=c_char) :: cmsg(msg_chars)
    type(block_interface_t), pointer :: itf(:)
    type(face_range_t), pointer :: left(:)
    integer(ik8) :: off, nn, total
    integer :: b, c, st
    status = GRID_BLOCKS_OK
    msg = ''
    allocate(sizes(3*set%nblocks))
    total = 0
    do b = 1, set%nblocks
      sizes(3*b-2:3*b) = set%blocks(b)%n
      total = total + set%dims*product(int(set%blocks(b)%n, ik8))
    end do
    allocate(xyz(total), stat=st)
    if (st /= 0) then
      status = GRID_BLOCKS_BAD
      msg = set%what//': no memory to match its blocks'' faces'
      return
    end if
    ! Plot3D's order: per block each coordinate whole, i fastest
    off = 0
    do b = 1, set%nblocks
      nn = product(int(set%blocks(b)%n, ik8))
      do c = 1, set%dims
        xyz(off+1:off+nn) = reshape(set%blocks(b)%xyz(c, :, :, :), [nn])
        off = off + nn
      end do
    end do
    if (adi_block_links_find(int(set%nblocks, c_int32_t), int(set%dims, c_int32_t), sizes, xyz, links, cmsg, &
        int(msg_chars, c_size_t)) /= 0) then
      status = GRID_BLOCKS_BAD
      msg = set%what//': '//c_text(cmsg)
      return
    end if
    call c_f_pointer(links%itf, itf, [links%nitf])
    call c_f_pointer(links%left, left, [links%nleft])
    if (links%nitf > 0) then
      set%interfaces = itf
    else
      allocate(set%interfaces(0))
    end if
    if (links%nleft > 0) then
      set%left = left
    else
      allocate(set%left(0))
    end if
    call adi_block_links_free(links)
  end subroutine find_set_interfaces

  !> Whether r covers its face whole, n the nodes of its block in i, j, k
  !> (a 2D block's n(3) as matched: 2).
  pure logical function covers_whole_face(r, n)
    type(face_range_t), intent(in) :: r
    integer, intent(in) :: n(3)
    integer :: e
    covers_whole_face = .true.
    do e = 1, 3
      if (e == r%face/2 + 1) cycle
      covers_whole_face = covers_whole_face .and. min(r%beg(e), r%end(e)) == 1 .and. max(r%beg(e), r%end(e)) == n(e)
    end do
  end function covers_whole_face

  !> "block 2", or 'zone "wake" (block 2)' where the blocks have names.
  function block_label(set, b) result(s)
    type(grid_block_set_t), intent(in) :: set
    integer, intent(in) :: b
    character(len=:), allocatable :: s
    s = 'block '//int_text(b)
    if (allocated(set%names)) s = 'zone "'//trim(set%names(b))//'" ('//s//')'
  end function block_label

  !> "i=1", "j=17": face f (0..5) of a block of n nodes.
  function face_name(f, n) result(s)
    integer, intent(in) :: f, n(3)
    character(len=:), allocatable :: s
    character(len=1), parameter :: dir(3) = ['i', 'j', 'k']
    integer :: d
    d = f/2 + 1
    s = dir(d)//'='//int_text(merge(n(d), 1, mod(f, 2) == 1))
  end function face_name

  !> "block 2, face i=1, nodes j 1..5, k 1..4" (a reversed direction: 5..1)
  function range_text(set, r) result(s)
    type(grid_block_set_t), intent(in) :: set
    type(face_range_t), intent(in) :: r
    character(len=:), allocatable :: s
    character(len=1), parameter :: dir(3) = ['i', 'j', 'k']
    integer :: d, a, b, n(3)
    d = r%face/2 + 1
    a = merge(2, 1, d == 1)
    b = merge(2, 3, d == 3)
    n = set%blocks(r%block)%n
    if (n(3) == 1) n(3) = 2   ! a 2D block is matched one cell thick
    s = 'block '//int_text(r%block)//', face '//face_name(int(r%face), n)//', nodes '// &
      dir(a)//' '//int_text(r%beg(a))//'..'//int_text(r%end(a))//', '//dir(b)//' '//int_text(r%beg(b))//'..'//int_text(r%end(b))
  end function range_text

  !> "transform -1,-2,3"
  function transform_text(t) result(s)
    integer(c_int32_t), intent(in) :: t(3)
    character(len=:), allocatable :: s
    s = 'transform '//int_text(t(1))//','//int_text(t(2))//','//int_text(t(3))
  end function transform_text
end module grid_blocks
