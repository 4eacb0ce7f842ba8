!> Every rank's block of one level of a decomposed grid, as the handles that
!> move a whole level between the blocks and one or all ranks see them
!> (fortran/multigrid_gather.f90: rank 0 gathers and scatters;
!> fortran/multigrid_whole.f90: every rank gets every block): the blocks'
!> places and sizes, and the unit their copies go in.
module level_blocks
  use mpi_f08
  use kinds, only: rk, ik8, nvar
  use grid_layout, only: layout_t
  use mpi_decomp, only: decomp_t, mpi_check
  implicit none
  private
  public :: level_blocks_t

  type :: level_blocks_t
    type(MPI_Comm) :: comm            !< the grid's ranks
    integer :: rank = 0
    !> every rank's block of the level: ext(:, r+1) = its j and k offsets
    !> and cell counts; lines(r+1) its i-lines (j x k), at(r+1) the lines
    !> of the blocks before it
    integer, allocatable :: ext(:,:), lines(:), at(:)
    !> one i-line of one field (ni doubles): the unit of the copies, so that
    !> their counts stay far below the integer limit
    type(MPI_Datatype) :: line
  contains
    procedure :: start_blocks
    procedure :: put_block
    procedure :: put_pair
    procedure, nopass :: pack_pair
  end type level_blocks_t

contains

  !> The blocks of dc, a level of ni cells in i (every rank's, by
  !> MPI_Allgather; what: the level, for the message of a failed call).
  !> Collective.
  subroutine start_blocks(self, dc, ni, what)
    class(level_blocks_t), intent(inout) :: self
    type(decomp_t), intent(in) :: dc
    integer, intent(in) :: ni
    character(len=*), intent(in) :: what
    integer :: n, ierr, mine(4)
    self%comm = dc%comm
    self%rank = dc%rank
    allocate(self%ext(4, dc%nranks))
    mine = [dc%off(2), dc%off(3), dc%nloc(2), dc%nloc(3)]
    call MPI_Allgather(mine, 4, MPI_INTEGER, self%ext, 4, MPI_INTEGER, self%comm, ierr)
    call mpi_check(ierr, 'MPI_Allgather (multigrid: the blocks of '//what//')')
    self%lines = self%ext(3, :)*self%ext(4, :)
    allocate(self%at(dc%nranks))
    self%at(1) = 0
    do n = 2, dc%nranks
      self%at(n) = self%at(n - 1) + self%lines(n - 1)
    end do
    ! (kept until MPI_Finalize: the handle lives as long as the run)
    call MPI_Type_contiguous(ni, MPI_DOUBLE_PRECISION, self%line, ierr)
    call mpi_check(ierr, 'MPI_Type_contiguous (multigrid: an i-line)')
    call MPI_Type_commit(self%line, ierr)
    call mpi_check(ierr, 'MPI_Type_commit (multigrid: an i-line)')
  end subroutine start_blocks

  !> Rank r-1's nvar fields, from all(at+1:) in the order of its block's
  !> interior cells (i, j, k, field), into a's part of the whole level (ni
  !> cells in i).
  subroutine put_block(self, r, at, ni, all, a)
    class(level_blocks_t), intent(in) :: self
    integer, intent(in) :: r, ni
    integer(ik8), intent(in) :: at
    real(rk), intent(in) :: all(:)
    real(rk), intent(inout) :: a(-1:,-1:,-1:,:)
    associate (e => self%ext(:, r))
      a(1:ni, e(1)+1:e(1)+e(3), e(2)+1:e(2)+e(4), 1:nvar) = &
        reshape(all(at+1:at+int(nvar*self%lines(r), ik8)*ni), [ni, e(3), e(4), nvar])
    end associate
  end subroutine put_block

  !> The interior cells of two fields (nvar each) of a block (layout lay),
  !> one after the other: what a rank sends of a level (q and res, q and
  !> the forcing), 2*nvar i-lines per (j, k).
  function pack_pair(lay, a, b) result(mine)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: a(-1:,-1:,-1:,:), b(-1:,-1:,-1:,:)
    real(rk), allocatable :: mine(:)
    integer(ik8) :: n
    n = int(lay%nj*lay%nk*nvar, ik8)*lay%ni
    allocate(mine(2*n))
    mine = [reshape(a(1:lay%ni, 1:lay%nj, 1:lay%nk, 1:nvar), [n]), &
            reshape(b(1:lay%ni, 1:lay%nj, 1:lay%nk, 1:nvar), [n])]
  end function pack_pair

  !> Rank r-1's two fields, from all as pack_pair left them on every rank in
  !> turn (the blocks before it at(r) lines on), into a's and b's parts of
  !> the whole level (ni cells in i).
  subroutine put_pair(self, r, ni, all, a, b)
    class(level_blocks_t), intent(in) :: self
    integer, intent(in) :: r, ni
    real(rk), intent(in) :: all(:)
    real(rk), intent(inout) :: a(-1:,-1:,-1:,:), b(-1:,-1:,-1:,:)
    call self%put_block(r, 2*nvar*int(self%at(r), ik8)*ni, ni, all, a)
    call self%put_block(r, (2*nvar*int(self%at(r), ik8) + nvar*self%lines(r))*ni, ni, all, b)
  end subroutine put_pair
end module level_blocks
