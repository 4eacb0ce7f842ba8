!> The files of a multi-block run over MPI ranks (build/adiflow_mpi with a
!> grid file of several blocks, fortran/block_ranks_mpi.f90): the same
!> files as build/adiflow's (fortran/run_files_blocks.f90), written by rank
!> 0 from the state gathered there, so that they are the files of the
!> one-process run. A restart set is read by rank 0 and its state shared
!> with every rank.
!> Every procedure is collective: all ranks call it.
module run_files_blocks_mpi
  use mpi_f08
  use kinds, only: rk, ik8
  use backend, only: backend_t
  use run_files, only: finite_state_fetched
  use run_files_blocks, only: block_set_files_t
  use backend_blocks, only: blocks_backend_t
  use mpi_decomp, only: mpi_check
  implicit none
  private
  public :: block_set_files_mpi_t

  type, extends(block_set_files_t) :: block_set_files_mpi_t
  contains
    procedure :: read_restart => read_restarts_mpi
    procedure :: save_restart => save_restarts_mpi
    procedure :: write_outputs => write_outputs_mpi
    procedure :: write_snapshot => write_snapshot_mpi
  end type block_set_files_mpi_t

contains

  !> The restart set of iteration iter, only from a finite state (the
  !> norms of all ranks), by rank 0 from the gathered state.
  logical function save_restarts_mpi(self, be, iter, ref) result(saved)
    class(block_set_files_mpi_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    saved = finite_state_fetched(be)
    if (saved .and. self%root) call self%write_restart_set(be, iter, ref)
  end function save_restarts_mpi

  !> The set named by restart.blocks, read by rank 0 as build/adiflow reads
  !> it; what stops the run, the iteration, the reference residual and every
  !> block's state to every rank.
  subroutine read_restarts_mpi(self, be, it0, res0, why)
    class(block_set_files_mpi_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(out) :: it0
    real(rk), intent(out) :: res0(5)
    character(len=:), allocatable, intent(out) :: why
    integer :: n, ierr
    character(len=2000) :: text
    it0 = 0
    res0 = 0.0_rk
    text = ''
    n = 0
    if (self%root) then
      call self%block_set_files_t%read_restart(be, it0, res0, why)
      n = min(len(why), len(text))
      text = why
    end if
    call MPI_Bcast(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Bcast (restart check)')
    call MPI_Bcast(text, len(text), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Bcast (restart check)')
    call MPI_Bcast(it0, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Bcast (restart iteration)')
    call MPI_Bcast(res0, 5, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Bcast (restart reference residual)')
    why = text(1:n)
    if (n > 0) return
    select type (be)
    class is (blocks_backend_t)
      call be%share_state()
    end select
  end subroutine read_restarts_mpi

  !> A snapshot, by rank 0 from the gathered state.
  subroutine write_snapshot_mpi(self, be, iter)
    class(block_set_files_mpi_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    if (.not. self%cs%write_vtk) return
    call be%fetch_state()
    if (self%root) call self%block_set_files_t%write_snapshot(be, iter)
  end subroutine write_snapshot_mpi

  !> The final outputs, by rank 0 from the gathered state.
  subroutine write_outputs_mpi(self, be, iter, ref)
    class(block_set_files_mpi_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    call be%fetch_state()
    if (self%root) call self%block_set_files_t%write_outputs(be, iter, ref)
  end subroutine write_outputs_mpi
end module run_files_blocks_mpi
