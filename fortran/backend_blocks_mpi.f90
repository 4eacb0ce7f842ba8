!> The solver over several blocks (fortran/backend_blocks.f90) with the
!> blocks spread over the ranks of build/adiflow_mpi: each rank iterates
!> the blocks it owns (owner), and the set's fill sends the halos of an
!> interface between two ranks as messages. The CPU reference's steps are
!> unchanged: within a group of halo steps (one direction's interfaces, or
!> their edges) the copies write disjoint cells and read none the group
!> writes, so a rank may run its local copies, post its sends and receive
!> in any order, and the state of every block equals the one-process run's
!> bit for bit. Residual norms and the mass are the blocks' sums added in
!> block order (sum_blocks: each block's value meets only zeros in the
!> ranks' sum, which leaves it exact).
!>
!> Every rank keeps the whole set's grid (every block's levels, nodes,
!> metrics and patches: the set is read whole by every rank, as one grid
!> is by adiflow_mpi); only its own blocks' state is current. The outputs
!> and restarts gather the state onto rank 0 (fetch_state), which then
!> holds every block (holds) and writes as build/adiflow does.
!>
!> Every procedure is collective: all ranks call it.
module backend_blocks_mpi
  use mpi_f08
  use kinds, only: rk
  use text_util, only: int_text
  use backend_blocks, only: blocks_backend_t, nodes_of
  use block_halos, only: halo_cell_boxes, interface_image
  use grid_blocks, only: face_range_t
  use mpi_decomp, only: mpi_check
  implicit none
  private
  public :: blocks_mpi_backend_t, assign_blocks

  !> A halo box on its way: the receiving block, the cells, and the values.
  type :: halo_message_t
    integer :: block = 0, l = 0
    integer :: lo(3) = 0, hi(3) = 0
    !> a pointer, so that the buffer MPI reads or fills stays where it is
    !> when the list grows
    real(rk), pointer, contiguous :: buf(:) => null()
    type(MPI_Request) :: req
  end type halo_message_t

  type, extends(blocks_backend_t) :: blocks_mpi_backend_t
    integer, allocatable :: owner(:)   !< owner(b): the rank that iterates block b
    integer :: rank = 0, nranks = 1
    !> rank 0 holds every block's current level-1 state (gathered since the
    !> last step that changed it)
    logical :: gathered = .false.
    type(halo_message_t), allocatable :: recvs(:), sends(:)
    integer :: nrecv = 0, nsend = 0
  contains
    procedure :: holds => mpi_holds
    procedure :: halo_step => mpi_halo_step
    procedure :: halo_phase_end => mpi_phase_end
    procedure :: sum_blocks => mpi_sum_blocks
    procedure :: any_process => mpi_any
    procedure :: state_changes => mpi_state_changes
    procedure :: fetch_state => mpi_gather_state
    procedure :: share_state
    procedure :: distribute => mpi_distribute
    procedure :: is_root => mpi_is_root
    procedure :: where_text => mpi_where_text
  end type blocks_mpi_backend_t

  integer, parameter :: TAG_HALO = 7301, TAG_GATHER = 7302

contains

  !> owner(b) for nblocks blocks of cells(b) cells over nranks ranks: the
  !> largest block first, each to the rank with the fewest cells so far (the
  !> lowest rank on a tie), so that every rank computes the same map.
  function assign_blocks(cells, nranks) result(owner)
    real(rk), intent(in) :: cells(:)
    integer, intent(in) :: nranks
    integer :: owner(size(cells))
    real(rk) :: load(0:nranks - 1)
    logical :: done(size(cells))
    integer :: k, b, r
    load = 0.0_rk
    done = .false.
    do k = 1, size(cells)
      b = maxloc(cells, dim=1, mask=.not. done)
      r = minloc(load, dim=1) - 1
      owner(b) = r
      load(r) = load(r) + cells(b)
      done(b) = .true.
    end do
  end function assign_blocks

  !> This rank's place and its blocks: the blocks over the ranks by
  !> assign_blocks, the same map on every rank.
  subroutine mpi_distribute(self)
    class(blocks_mpi_backend_t), intent(inout) :: self
    real(rk) :: cells(size(self%b))
    integer :: b
    call MPI_Comm_rank(MPI_COMM_WORLD, self%rank)
    call MPI_Comm_size(MPI_COMM_WORLD, self%nranks)
    do b = 1, size(self%b)
      associate (lay => self%b(b)%level(1)%lay)
        cells(b) = real(lay%ni, rk)*real(lay%nj, rk)*real(lay%nk, rk)
      end associate
    end do
    self%owner = assign_blocks(cells, self%nranks)
    self%mine = self%owner == self%rank
    self%gathered = .false.
  end subroutine mpi_distribute

  logical function mpi_is_root(self)
    class(blocks_mpi_backend_t), intent(in) :: self
    integer :: rank
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    mpi_is_root = rank == 0
  end function mpi_is_root

  !> 'blocks over 3 ranks: rank 0 blocks 2; rank 1 blocks 1, 3; ...' (the
  !> first 8 ranks).
  function mpi_where_text(self) result(s)
    class(blocks_mpi_backend_t), intent(in) :: self
    character(len=:), allocatable :: s
    integer :: r, b
    character(len=:), allocatable :: list
    s = 'blocks over '//int_text(self%nranks)//' MPI ranks (the largest first, each to the rank with the fewest '// &
      'cells; every rank keeps the whole set''s grid):'
    do r = 0, min(self%nranks, 8) - 1
      list = ''
      do b = 1, size(self%b)
        if (self%owner(b) /= r) cycle
        if (len(list) > 0) list = list//', '
        list = list//int_text(b)
      end do
      if (r > 0) s = s//';'
      s = s//' rank '//int_text(r)//': block '//list
    end do
    if (self%nranks > 8) s = s//'; ...'
  end function mpi_where_text

  logical function mpi_holds(self, b)
    class(blocks_mpi_backend_t), intent(in) :: self
    integer, intent(in) :: b
    mpi_holds = self%mine(b) .or. (self%gathered .and. self%rank == 0)
  end function mpi_holds

  !> The reference's halo step, the sending and receiving blocks on
  !> different ranks as a message: the sender packs the receiver's box in
  !> its order, the receiver unpacks it at the group's end. While rank 0
  !> holds the gathered state (outputs), only copies between held blocks run.
  subroutine mpi_halo_step(self, l, q, into_a, d, device)
    class(blocks_mpi_backend_t), intent(inout) :: self
    integer, intent(in) :: l, q, d
    logical, intent(in) :: into_a, device
    type(face_range_t) :: r, s
    integer :: nbox, lo(3, 2), hi(3, 2), t(3), m, rb, sb, ierr
    associate (itf => self%links(l)%itf(q))
      rb = merge(itf%a%block, itf%b%block, into_a)
      sb = merge(itf%b%block, itf%a%block, into_a)
    end associate
    if (self%holds(rb) .and. self%holds(sb)) then
      call self%blocks_backend_t%halo_step(l, q, into_a, d, device)
      return
    end if
    if (self%gathered) return
    if (.not. (self%mine(rb) .or. self%mine(sb))) return
    call halo_cell_boxes(self%links(l)%itf(q), into_a, nodes_of(self%b(rb)%level(l)), d, nbox, lo, hi, r, s, t)
    do m = 1, nbox
      if (self%mine(rb)) then
        call grow(self%recvs, self%nrecv)
        associate (msg => self%recvs(self%nrecv))
          msg%block = rb
          msg%l = l
          msg%lo = lo(:, m)
          msg%hi = hi(:, m)
          allocate(msg%buf(5*product(hi(:, m) - lo(:, m) + 1)))
          call MPI_Irecv(msg%buf, size(msg%buf), MPI_DOUBLE_PRECISION, self%owner(sb), TAG_HALO, MPI_COMM_WORLD, &
            msg%req, ierr)
          call mpi_check(ierr, 'MPI_Irecv (block halo)')
        end associate
      else
        call grow(self%sends, self%nsend)
        associate (msg => self%sends(self%nsend))
          call pack_box(lo(:, m), hi(:, m), r, s, t, self%b(sb)%level(l)%f%q, msg%buf)
          call MPI_Isend(msg%buf, size(msg%buf), MPI_DOUBLE_PRECISION, self%owner(rb), TAG_HALO, MPI_COMM_WORLD, &
            msg%req, ierr)
          call mpi_check(ierr, 'MPI_Isend (block halo)')
        end associate
      end if
    end do
  end subroutine mpi_halo_step

  !> One more message slot (kept between fills, emptied at each group's end).
  subroutine grow(list, n)
    type(halo_message_t), allocatable, intent(inout) :: list(:)
    integer, intent(inout) :: n
    type(halo_message_t), allocatable :: bigger(:)
    if (.not. allocated(list)) allocate(list(8))
    if (n == size(list)) then
      allocate(bigger(2*n))
      bigger(1:n) = list
      call move_alloc(bigger, list)
    end if
    n = n + 1
  end subroutine grow

  !> The cells of qs that cells lo..hi of the receiving block take (block_halos'
  !> copy_cells' map), in the box's order, five values each.
  subroutine pack_box(lo, hi, r, s, t, qs, buf)
    integer, intent(in) :: lo(3), hi(3), t(3)
    type(face_range_t), intent(in) :: r, s
    real(rk), intent(in) :: qs(-1:,-1:,-1:,:)
    real(rk), pointer, contiguous, intent(out) :: buf(:)
    integer :: i, j, k, c(3), n
    allocate(buf(5*product(hi - lo + 1)))
    n = 0
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          c = min(interface_image(r, s, t, [i, j, k]), interface_image(r, s, t, [i + 1, j + 1, k + 1]))
          buf(n + 1:n + 5) = qs(c(1), c(2), c(3), 1:5)
          n = n + 5
        end do
      end do
    end do
  end subroutine pack_box

  !> The group's messages (of level l): every receive unpacked into its box,
  !> every send done.
  subroutine mpi_phase_end(self, l)
    class(blocks_mpi_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    integer :: m, i, j, k, n, ierr
    do m = 1, self%nrecv
      associate (msg => self%recvs(m))
        call MPI_Wait(msg%req, MPI_STATUS_IGNORE, ierr)
        call mpi_check(ierr, 'MPI_Wait (block halo)')
        associate (qr => self%b(msg%block)%level(msg%l)%f%q)
          n = 0
          do k = msg%lo(3), msg%hi(3)
            do j = msg%lo(2), msg%hi(2)
              do i = msg%lo(1), msg%hi(1)
                qr(i, j, k, 1:5) = msg%buf(n + 1:n + 5)
                n = n + 5
              end do
            end do
          end do
        end associate
        deallocate(msg%buf)
      end associate
    end do
    do m = 1, self%nsend
      call MPI_Wait(self%sends(m)%req, MPI_STATUS_IGNORE, ierr)
      call mpi_check(ierr, 'MPI_Wait (block halo)')
      deallocate(self%sends(m)%buf)
    end do
    self%nrecv = 0
    self%nsend = 0
  end subroutine mpi_phase_end

  !> The ranks' sum of v (each block's column nonzero on its owner only).
  subroutine mpi_sum_blocks(self, v)
    class(blocks_mpi_backend_t), intent(inout) :: self
    real(rk), intent(inout) :: v(:,:)
    integer :: ierr
    call MPI_Allreduce(MPI_IN_PLACE, v, size(v), MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Allreduce (sums over the blocks)')
  end subroutine mpi_sum_blocks

  logical function mpi_any(self, flag)
    class(blocks_mpi_backend_t), intent(in) :: self
    logical, intent(in) :: flag
    integer :: ierr
    call MPI_Allreduce(flag, mpi_any, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Allreduce (any rank)')
  end function mpi_any

  !> Rank 0's gathered copy is out of date once a step changes the state.
  subroutine mpi_state_changes(self)
    class(blocks_mpi_backend_t), intent(inout) :: self
    self%gathered = .false.
  end subroutine mpi_state_changes


  !> Every block's level-1 state onto rank 0 (once per state: a second call
  !> before the next step sends nothing).
  subroutine mpi_gather_state(self)
    class(blocks_mpi_backend_t), intent(inout) :: self
    integer :: b, ierr
    if (self%gathered) return
    do b = 1, size(self%b)
      if (self%owner(b) == 0) cycle
      associate (q => self%b(b)%level(1)%f%q)
        if (self%rank == 0) then
          call MPI_Recv(q, size(q), MPI_DOUBLE_PRECISION, self%owner(b), TAG_GATHER, MPI_COMM_WORLD, &
            MPI_STATUS_IGNORE, ierr)
          call mpi_check(ierr, 'MPI_Recv (state of block '//int_text(b)//')')
        else if (self%mine(b)) then
          call MPI_Send(q, size(q), MPI_DOUBLE_PRECISION, 0, TAG_GATHER, MPI_COMM_WORLD, ierr)
          call mpi_check(ierr, 'MPI_Send (state of block '//int_text(b)//')')
        end if
      end associate
    end do
    self%gathered = .true.
  end subroutine mpi_gather_state

  !> Rank 0's level-1 state of every block to every rank (after rank 0 read
  !> a restart set).
  subroutine share_state(self)
    class(blocks_mpi_backend_t), intent(inout) :: self
    integer :: b, ierr
    do b = 1, size(self%b)
      associate (q => self%b(b)%level(1)%f%q)
        call MPI_Bcast(q, size(q), MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
        call mpi_check(ierr, 'MPI_Bcast (restart state of block '//int_text(b)//')')
      end associate
    end do
    self%gathered = .true.
  end subroutine share_state
end module backend_blocks_mpi
