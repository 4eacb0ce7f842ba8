!> Interfaces over part of a face, by cutting blocks: a block whose face an
!> interface covers only in part (a C-grid stored as one block, whose j = 1
!> face is the wake cut in its two ends and the wall between them; a block
!> joined to two neighbours along one face) is cut, across that face, at the
!> nodes where the part begins and ends, until every interface joins whole
!> faces. The pieces share their cut's node plane and are joined by 1-to-1
!> interfaces of their own, so that the solver over blocks
!> (fortran/backend_blocks.f90), which fills whole faces, runs any set: a
!> one-block C-grid runs as the three blocks make_grid --split writes, the
!> same cells and the same steps.
!>
!> Each piece remembers its file block and where it lies in it (piece_t),
!> so that the file's boundary patches go to the pieces (split_patches) and
!> the run names them ("block 1, i 33..161").
!>
!> The same cut gives more blocks than a file has (cut_to_count: the case's
!> min_blocks, adiflow_mpi's ranks when it has more than blocks): the
!> largest block halved, at a node plane that keeps the multigrid's levels,
!> until there are enough.
module block_split
  use kinds, only: rk
  use text_util, only: int_text
  use grid_blocks, only: grid_block_set_t, grid_block_t, block_interface_t, face_range_t
  use block_halos, only: interface_image, inverse
  use boundary_patches, only: patch_set_t, bc_patch_t, build_face_maps, face_sizes
  implicit none
  private
  public :: piece_t, cut_at_face_parts, cut_to_count, split_patches, piece_text

  !> A block of the cut set: the file's block it comes from and the node
  !> offset of its first node there in i, j, k.
  type :: piece_t
    integer :: origin = 0
    integer :: offset(3) = 0
  end type piece_t

contains

  !> set cut until every interface joins whole faces; pieces(b): where
  !> block b of the result lies in the file's blocks (the identity when
  !> nothing is cut). Cuts keep a block's number for its first piece and
  !> append the others.
  subroutine cut_at_face_parts(set, pieces)
    type(grid_block_set_t), intent(inout) :: set
    type(piece_t), allocatable, intent(out) :: pieces(:)
    integer :: q, s, e, b, m, lo, hi
    type(face_range_t) :: r
    logical :: found
    allocate(pieces(set%nblocks))
    do b = 1, set%nblocks
      pieces(b)%origin = b
    end do
    do
      found = .false.
      outer: do q = 1, size(set%interfaces)
        do s = 1, 2
          r = merge(set%interfaces(q)%a, set%interfaces(q)%b, s == 1)
          do e = 1, 3
            if (e == r%face/2 + 1) cycle
            lo = min(r%beg(e), r%end(e))
            hi = max(r%beg(e), r%end(e))
            if (lo > 1) then
              m = lo
            else if (hi < set%blocks(r%block)%n(e)) then
              m = hi
            else
              cycle
            end if
            call cut_block(set, pieces, r%block, e, m)
            found = .true.
            exit outer
          end do
        end do
      end do outer
      if (.not. found) exit
    end do
  end subroutine cut_at_face_parts

  !> set cut until it has at least `count` blocks: each time the block of
  !> the most cells that can be halved, across its direction of the most
  !> cells, at the node plane nearest its middle that is a multiple of
  !> 2**(levels - 1) cells from its start (so that both pieces coarsen as
  !> the block did). A direction can be halved when it has at least
  !> 2**(levels + 1) cells (each piece keeps two cells on the coarsest
  !> level) and is not periodic (periodic(e): the case's faces of
  !> direction e pair with each other, which a cut would separate). Fewer
  !> blocks than count when nothing more can be halved.
  subroutine cut_to_count(set, pieces, count, levels, periodic)
    type(grid_block_set_t), intent(inout) :: set
    type(piece_t), allocatable, intent(inout) :: pieces(:)
    integer, intent(in) :: count, levels
    logical, intent(in) :: periodic(3)
    integer :: b, e, best, be, align, m
    real(rk) :: cells, most
    align = 2**(max(levels, 1) - 1)
    do while (set%nblocks < count)
      best = 0
      be = 0
      most = 0.0_rk
      do b = 1, set%nblocks
        associate (nc => set%blocks(b)%n - 1)
          cells = product(real(nc, rk))
          e = longest(nc)
          if (e > 0 .and. cells > most) then
            best = b
            be = e
            most = cells
          end if
        end associate
      end do
      if (best == 0) return
      m = 1 + align*((set%blocks(best)%n(be) - 1)/(2*align))
      call cut_block(set, pieces, best, be, m)
    end do
  contains
    !> the direction of the most cells that can be halved (the first on a tie), 0 if none
    integer function longest(nc)
      integer, intent(in) :: nc(3)
      integer :: d
      longest = 0
      do d = 1, 3
        if (periodic(d) .or. nc(d) < 4*align) cycle
        if (longest == 0) then
          longest = d
        else if (nc(d) > nc(longest)) then
          longest = d
        end if
      end do
    end function longest
  end subroutine cut_to_count

  !> Block b cut at its node m (1 < m < n) of direction e: nodes 1..m stay
  !> block b, nodes m..n become a new last block; the interfaces move with
  !> their faces (one across the cut is cut in two, its other side at the
  !> image of node m), and the two pieces are joined face to face.
  subroutine cut_block(set, pieces, b, e, m)
    type(grid_block_set_t), intent(inout) :: set
    type(piece_t), allocatable, intent(inout) :: pieces(:)
    integer, intent(in) :: b, e, m
    type(grid_block_t), allocatable :: blocks(:)
    type(piece_t), allocatable :: grown(:)
    type(block_interface_t), allocatable :: work(:), done(:)
    type(block_interface_t) :: t, t1, t2, joint
    integer :: nb, hb, n(3), nlo(3), nhi(3)
    logical :: split
    nb = set%nblocks
    hb = nb + 1
    n = set%blocks(b)%n
    nlo = n
    nlo(e) = m
    nhi = n
    nhi(e) = n(e) - m + 1
    allocate(blocks(hb))
    blocks(1:nb) = set%blocks
    blocks(hb)%n = nhi
    blocks(b)%n = nlo
    blocks(hb)%vol_min = set%blocks(b)%vol_min
    blocks(hb)%vol_max = set%blocks(b)%vol_max
    select case (e)
    case (1)
      blocks(b)%xyz = set%blocks(b)%xyz(:, 1:m, :, :)
      blocks(hb)%xyz = set%blocks(b)%xyz(:, m:n(1), :, :)
    case (2)
      blocks(b)%xyz = set%blocks(b)%xyz(:, :, 1:m, :)
      blocks(hb)%xyz = set%blocks(b)%xyz(:, :, m:n(2), :)
    case default
      blocks(b)%xyz = set%blocks(b)%xyz(:, :, :, 1:m)
      blocks(hb)%xyz = set%blocks(b)%xyz(:, :, :, m:n(3))
    end select
    call move_alloc(blocks, set%blocks)
    set%nblocks = hb
    ! a named block's (a CGNS zone's) second piece: its name and the piece's number, so that the zones
    ! flow.cgns writes keep distinct names (CGNS zone names are 32 characters at most)
    if (allocated(set%names)) set%names = [set%names, trim(set%names(b)(1:min(len_trim(set%names(b)), 25)))// &
      '_'//int_text(hb)]
    allocate(grown(hb))
    grown(1:nb) = pieces
    grown(hb) = pieces(b)
    grown(hb)%offset(e) = pieces(b)%offset(e) + m - 1
    call move_alloc(grown, pieces)

    work = set%interfaces
    allocate(done(0))
    do while (size(work) > 0)
      t = work(size(work))
      work = work(1:size(work) - 1)
      call cut_across(t, .true., split, t1, t2)
      if (.not. split) call cut_across(t, .false., split, t1, t2)
      if (split) then
        work = [work, t1, t2]
        cycle
      end if
      call move_side(t%a)
      call move_side(t%b)
      done = [done, t]
    end do
    ! the pieces' own interface: the first's high e face = the second's low one
    joint%a%block = b
    joint%a%face = 2*(e - 1) + 1
    joint%a%beg = 1
    joint%a%beg(e) = m
    joint%a%end = nlo
    joint%b%block = hb
    joint%b%face = 2*(e - 1)
    joint%b%beg = 1
    joint%b%end = nhi
    joint%b%end(e) = 1
    joint%transform = [1, 2, 3]
    set%interfaces = [done, joint]
  contains
    !> t cut in two (t1, t2) when its side a (on_a) or b lies on block b and
    !> runs across node m of e; split: it was.
    subroutine cut_across(t, on_a, split, t1, t2)
      type(block_interface_t), intent(in) :: t
      logical, intent(in) :: on_a
      logical, intent(out) :: split
      type(block_interface_t), intent(out) :: t1, t2
      type(face_range_t) :: this, other, p1, p2, o1, o2
      integer :: tr(3)
      split = .false.
      if (on_a) then
        this = t%a; other = t%b; tr = int(t%transform)
      else
        this = t%b; other = t%a; tr = inverse(int(t%transform))
      end if
      if (this%block /= b .or. this%face/2 + 1 == e) return
      if (min(this%beg(e), this%end(e)) >= m .or. max(this%beg(e), this%end(e)) <= m) return
      split = .true.
      p1 = this
      p1%end(e) = m
      p2 = this
      p2%beg(e) = m
      ! the other side of each part: the images of its corners
      o1 = other
      o1%beg = interface_image(this, other, tr, p1%beg)
      o1%end = interface_image(this, other, tr, p1%end)
      o2 = other
      o2%beg = interface_image(this, other, tr, p2%beg)
      o2%end = interface_image(this, other, tr, p2%end)
      t1 = t
      t2 = t
      if (on_a) then
        t1%a = p1; t1%b = o1
        t2%a = p2; t2%b = o2
      else
        t1%b = p1; t1%a = o1
        t2%b = p2; t2%a = o2
      end if
    end subroutine cut_across

    !> a side on block b to the piece its face part lies in
    subroutine move_side(r)
      type(face_range_t), intent(inout) :: r
      if (r%block /= b) return
      if (r%face/2 + 1 == e) then
        if (mod(r%face, 2) == 0) return
        r%block = hb
        r%beg(e) = nhi(e)
        r%end(e) = nhi(e)
      else if (min(r%beg(e), r%end(e)) >= m) then
        r%block = hb
        r%beg(e) = r%beg(e) - (m - 1)
        r%end(e) = r%end(e) - (m - 1)
      end if
    end subroutine move_side
  end subroutine cut_block

  !> "block 1, i 33..161" for a piece of a cut block ('' for a whole one).
  function piece_text(set, pieces, b, file_n) result(s)
    type(grid_block_set_t), intent(in) :: set
    type(piece_t), intent(in) :: pieces(:)
    integer, intent(in) :: b
    integer, intent(in) :: file_n(:,:)     !< the file's blocks' nodes (3, file blocks)
    character(len=:), allocatable :: s
    character(len=1), parameter :: dir(3) = ['i', 'j', 'k']
    integer :: d
    s = ''
    if (all(set%blocks(b)%n == file_n(:, pieces(b)%origin))) return
    s = 'the file''s block '//int_text(pieces(b)%origin)//','
    do d = 1, 3
      if (set%blocks(b)%n(d) == file_n(d, pieces(b)%origin)) cycle
      s = s//' '//dir(d)//' '//int_text(pieces(b)%offset(d) + 1)//'..'//int_text(pieces(b)%offset(d) + &
        set%blocks(b)%n(d))
    end do
  end function piece_text

  !> The patches of each piece (its cells, ncell(:, b)) from its file
  !> block's (file_ps), each clipped to the piece and moved to its cells; a
  !> face of the file block goes to the pieces that reach it. joined(:, b):
  !> the piece's faces an interface joins (whole). ok false and msg at a
  !> face a piece leaves uncovered (build_face_maps).
  subroutine split_patches(file_ps, pieces, ncell, joined, ps, ok, msg)
    type(patch_set_t), intent(in) :: file_ps(:)
    type(piece_t), intent(in) :: pieces(:)
    integer, intent(in) :: ncell(:,:)
    logical, intent(in) :: joined(:,:)
    type(patch_set_t), intent(out) :: ps(:)
    logical, intent(out) :: ok
    character(len=:), allocatable, intent(out) :: msg
    type(bc_patch_t), allocatable :: list(:)
    type(bc_patch_t) :: p
    integer :: b, o, n, d, a, dirs(2), lo, hi, nf(3)
    logical :: keep
    ok = .true.
    msg = ''
    do b = 1, size(pieces)
      o = pieces(b)%origin
      ps(b)%joined = joined(:, b)
      allocate(list(0))
      if (allocated(file_ps(o)%p)) then
        nf = file_cells(o)
        do n = 1, size(file_ps(o)%p)
          p = file_ps(o)%p(n)
          d = (p%face - 1)/2 + 1
          ! the piece reaches the file block's face
          if (mod(p%face, 2) == 1) then
            keep = pieces(b)%offset(d) == 0
          else
            keep = pieces(b)%offset(d) + ncell(d, b) == nf(d)
          end if
          dirs = across(d)
          do a = 1, 2
            lo = max(p%lo(a), pieces(b)%offset(dirs(a)) + 1)
            hi = min(p%hi(a), pieces(b)%offset(dirs(a)) + ncell(dirs(a), b))
            keep = keep .and. lo <= hi
            p%lo(a) = lo - pieces(b)%offset(dirs(a))
            p%hi(a) = hi - pieces(b)%offset(dirs(a))
          end do
          if (keep .and. joined(p%face, b)) then
            ok = .false.
            msg = 'block '//int_text(o)//', patch '//int_text(n)//': it covers cells of its face that an interface '// &
              'joins (a joined part takes no patch)'
            return
          end if
          if (keep) list = [list, p]
        end do
      end if
      call move_alloc(list, ps(b)%p)
      call build_face_maps(ps(b), ncell(1, b), ncell(2, b), ncell(3, b), ok, msg)
      if (.not. ok) return
    end do
  contains
    !> the file block's cells: the largest extent its pieces reach
    function file_cells(ob) result(nc)
      integer, intent(in) :: ob
      integer :: nc(3), bb
      nc = 0
      do bb = 1, size(pieces)
        if (pieces(bb)%origin == ob) nc = max(nc, pieces(bb)%offset + ncell(:, bb))
      end do
    end function file_cells

    !> the two directions across direction d, in increasing order
    pure function across(d) result(r)
      integer, intent(in) :: d
      integer :: r(2)
      r = merge([2, 3], merge([1, 3], [1, 2], d == 2), d == 1)
    end function across
  end subroutine split_patches
end module block_split
