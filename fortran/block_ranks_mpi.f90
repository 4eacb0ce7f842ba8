!> The MPI transport of the solver over blocks (fortran/block_ranks.f90):
!> build/adiflow_mpi's ranks on MPI_COMM_WORLD, each a process holding its
!> blocks (fortran/backend_blocks.f90 owns the blocks' map and the halo
!> messages; this moves the values). Every call checks MPI's status and
!> stops the job with the call named.
module block_ranks_mpi
  use mpi_f08
  use kinds, only: rk
  use block_ranks, only: block_ranks_t
  use mpi_decomp, only: mpi_check
  implicit none
  private
  public :: mpi_block_ranks_t

  integer, parameter :: TAG_HALO = 7301, TAG_GATHER = 7302

  type, extends(block_ranks_t) :: mpi_block_ranks_t
    type(MPI_Request), allocatable :: req(:)
    integer :: nreq = 0
  contains
    procedure :: init => ranks_init
    procedure :: post_send
    procedure :: post_recv
    procedure :: wait_all
    procedure :: sum_all
    procedure :: any_true
    procedure :: to_root
    procedure :: from_root
  end type mpi_block_ranks_t

contains

  subroutine ranks_init(self)
    class(mpi_block_ranks_t), intent(inout) :: self
    call MPI_Comm_rank(MPI_COMM_WORLD, self%rank)
    call MPI_Comm_size(MPI_COMM_WORLD, self%nranks)
    allocate(self%req(16))
  end subroutine ranks_init

  !> One more request slot (the requests are handles: moving them is safe).
  subroutine more_requests(self)
    class(mpi_block_ranks_t), intent(inout) :: self
    type(MPI_Request), allocatable :: bigger(:)
    if (self%nreq == size(self%req)) then
      allocate(bigger(2*size(self%req)))
      bigger(1:self%nreq) = self%req(1:self%nreq)
      call move_alloc(bigger, self%req)
    end if
    self%nreq = self%nreq + 1
  end subroutine more_requests

  subroutine post_send(self, buf, n, peer)
    class(mpi_block_ranks_t), intent(inout) :: self
    real(rk), intent(inout), target :: buf(*)
    integer, intent(in) :: n, peer
    integer :: ierr
    call more_requests(self)
    call MPI_Isend(buf, n, MPI_DOUBLE_PRECISION, peer, TAG_HALO, MPI_COMM_WORLD, self%req(self%nreq), ierr)
    call mpi_check(ierr, 'MPI_Isend (block halo)')
  end subroutine post_send

  subroutine post_recv(self, buf, n, peer)
    class(mpi_block_ranks_t), intent(inout) :: self
    real(rk), intent(inout), target :: buf(*)
    integer, intent(in) :: n, peer
    integer :: ierr
    call more_requests(self)
    call MPI_Irecv(buf, n, MPI_DOUBLE_PRECISION, peer, TAG_HALO, MPI_COMM_WORLD, self%req(self%nreq), ierr)
    call mpi_check(ierr, 'MPI_Irecv (block halo)')
  end subroutine post_recv

  subroutine wait_all(self)
    class(mpi_block_ranks_t), intent(inout) :: self
    integer :: ierr
    if (self%nreq == 0) return
    call MPI_Waitall(self%nreq, self%req(1:self%nreq), MPI_STATUSES_IGNORE, ierr)
    call mpi_check(ierr, 'MPI_Waitall (block halos)')
    self%nreq = 0
  end subroutine wait_all

  subroutine sum_all(self, v, n)
    class(mpi_block_ranks_t), intent(inout) :: self
    real(rk), intent(inout) :: v(*)
    integer, intent(in) :: n
    integer :: ierr
    call MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Allreduce (sums over the blocks)')
  end subroutine sum_all

  logical function any_true(self, flag)
    class(mpi_block_ranks_t), intent(in) :: self
    logical, intent(in) :: flag
    integer :: ierr
    call MPI_Allreduce(flag, any_true, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Allreduce (any rank)')
  end function any_true

  subroutine to_root(self, x, n, from)
    class(mpi_block_ranks_t), intent(inout) :: self
    real(rk), intent(inout) :: x(*)
    integer, intent(in) :: n, from
    integer :: ierr
    if (from == 0) return
    if (self%rank == 0) then
      call MPI_Recv(x, n, MPI_DOUBLE_PRECISION, from, TAG_GATHER, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call mpi_check(ierr, 'MPI_Recv (a block''s state)')
    else if (self%rank == from) then
      call MPI_Send(x, n, MPI_DOUBLE_PRECISION, 0, TAG_GATHER, MPI_COMM_WORLD, ierr)
      call mpi_check(ierr, 'MPI_Send (a block''s state)')
    end if
  end subroutine to_root

  subroutine from_root(self, x, n)
    class(mpi_block_ranks_t), intent(inout) :: self
    real(rk), intent(inout) :: x(*)
    integer, intent(in) :: n
    integer :: ierr
    call MPI_Bcast(x, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Bcast (a block''s state)')
  end subroutine from_root
end module block_ranks_mpi
