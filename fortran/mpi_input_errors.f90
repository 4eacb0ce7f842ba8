!> adiflow_mpi's handlers of bad input (case_config's case_error_handler)
!> and the agreement the ranks reach on their input. Module procedures, not
!> the program's internal ones: a pointer to an internal procedure is a
!> trampoline on the stack, which made build/adiflow_mpi's stack executable.
!> They run before any backend exists, so stopping is MPI_Finalize and the
!> exit code alone.
module mpi_input_errors
  use mpi_f08
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit
  use mpi_decomp, only: mpi_check
  use case_config, only: case_error_handler
  implicit none
  private
  public :: input_agreement, input_error, block_input_error

contains

  !> Collective: .false. on any rank stops every rank with exit code 2 (the
  !> rank that failed has printed why).
  subroutine input_agreement(mine_ok)
    logical, intent(in) :: mine_ok
    logical :: all_ok
    integer :: ierr
    call MPI_Allreduce(mine_ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Allreduce (input check)')
    if (.not. all_ok) call stop_input()
  end subroutine input_agreement

  !> case_error's handler while the input is read: this rank's message, then
  !> the agreement the other ranks are waiting in, then exit code 2.
  subroutine input_error(m)
    character(len=*), intent(in) :: m
    character(len=16) :: rs
    integer :: rank
    case_error_handler => null()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    if (rank == 0) then
      write(error_unit, '(a)') 'adiflow_mpi: error: '//trim(m)
    else
      write(rs, '(i0)') rank
      write(error_unit, '(a)') 'adiflow_mpi: error: rank '//trim(rs)//': '//trim(m)
    end if
    flush(error_unit)
    call input_agreement(.false.)
    call stop_input()
  end subroutine input_error

  !> case_error's handler in a multi-block run: every rank meets the same
  !> error in the same place (each reads the whole input), so rank 0 alone
  !> says it and every rank stops with exit code 2.
  subroutine block_input_error(m)
    character(len=*), intent(in) :: m
    integer :: rank
    case_error_handler => null()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    if (rank == 0) write(error_unit, '(a)') 'adiflow_mpi: error: '//trim(m)
    call stop_input()
  end subroutine block_input_error

  subroutine stop_input()
    flush(output_unit); flush(error_unit)
    call MPI_Finalize()
    error stop 2, quiet=.true.
  end subroutine stop_input

end module mpi_input_errors
