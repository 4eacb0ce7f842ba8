!> How the solver over blocks (fortran/backend_blocks.f90) talks to the
!> other processes of a run whose blocks are spread over MPI ranks: an
!> abstract transport, so that the solver's modules need no MPI (build/adiflow
!> has none); build/adiflow_mpi's is fortran/block_ranks_mpi.f90. A run of
!> one process has none (the backend's ranks not allocated).
module block_ranks
  use kinds, only: rk
  implicit none
  private
  public :: block_ranks_t

  type, abstract :: block_ranks_t
    integer :: rank = 0, nranks = 1
  contains
    !> n values from buf to rank `to` / into buf from rank `from`, started
    !> now and finished by wait_all (buf stays where it is until then)
    procedure(post_op), deferred :: post_send
    procedure(post_op), deferred :: post_recv
    procedure(wait_op), deferred :: wait_all
    !> v made the sum of every rank's v
    procedure(sum_op), deferred :: sum_all
    !> .true. on every rank when flag is .true. on any
    procedure(any_op), deferred :: any_true
    !> n values of x from rank `from` to rank 0 (both call it; others do not)
    procedure(move_op), deferred :: to_root
    !> n values of x from rank 0 to every rank (all call it)
    procedure(bcast_op), deferred :: from_root
  end type block_ranks_t

  abstract interface
    subroutine post_op(self, buf, n, peer)
      import :: block_ranks_t, rk
      class(block_ranks_t), intent(inout) :: self
      real(rk), intent(inout), target :: buf(*)
      integer, intent(in) :: n, peer
    end subroutine
    subroutine wait_op(self)
      import :: block_ranks_t
      class(block_ranks_t), intent(inout) :: self
    end subroutine
    subroutine sum_op(self, v, n)
      import :: block_ranks_t, rk
      class(block_ranks_t), intent(inout) :: self
      real(rk), intent(inout) :: v(*)
      integer, intent(in) :: n
    end subroutine
    logical function any_op(self, flag)
      import :: block_ranks_t
      class(block_ranks_t), intent(in) :: self
      logical, intent(in) :: flag
    end function
    subroutine move_op(self, x, n, from)
      import :: block_ranks_t, rk
      class(block_ranks_t), intent(inout) :: self
      real(rk), intent(inout) :: x(*)
      integer, intent(in) :: n, from
    end subroutine
    subroutine bcast_op(self, x, n)
      import :: block_ranks_t, rk
      class(block_ranks_t), intent(inout) :: self
      real(rk), intent(inout) :: x(*)
      integer, intent(in) :: n
    end subroutine
  end interface
end module block_ranks
