!> How many OpenMP threads a parallel region gets: one per
!> cells_per_thread cells of the region's work, at most the team's maximum
!> (OMP_NUM_THREADS, or the case key threads). A region over a small grid, a
!> multigrid coarse level or a face runs on one thread: waking a second
!> thread and joining it again costs more than it saves there, and on a
!> loaded machine a second thread that the OS has descheduled holds the whole
!> region back (bench/cpu_threads.sh measures both). The choice changes no
!> result: every region's iterations are independent.
!>
!> ADIFLOW_OMP_CELLS_PER_THREAD overrides the threshold (a positive integer;
!> the tests set 1 so that their small grids do run on every thread).
module omp_policy
  use kinds, only: ik8
  use grid_layout, only: layout_t
  !$ use omp_lib, only: omp_get_max_threads
  implicit none
  private
  public :: team_for, team_for_cells, cells_per_thread

  integer(ik8), parameter :: default_cells_per_thread = 8192
  integer(ik8) :: threshold = -1   !< read from the environment once

contains

  !> The threshold in force (the default or the environment's).
  integer(ik8) function cells_per_thread()
    character(len=32) :: val
    integer :: length, st, ios
    integer(ik8) :: v
    if (threshold < 0) then
      threshold = default_cells_per_thread
      call get_environment_variable('ADIFLOW_OMP_CELLS_PER_THREAD', val, length, st)
      if (st == 0 .and. length > 0) then
        read(val, *, iostat=ios) v
        if (ios == 0 .and. v >= 1) threshold = v
      end if
    end if
    cells_per_thread = threshold
  end function cells_per_thread

  integer function team_for_cells(ncells) result(nt)
    integer(ik8), intent(in) :: ncells
    nt = 1
    !$ nt = int(max(1_ik8, min(int(omp_get_max_threads(), ik8), ncells/cells_per_thread())))
  end function team_for_cells

  !> The team for a region over the interior cells of lay.
  integer function team_for(lay) result(nt)
    type(layout_t), intent(in) :: lay
    nt = team_for_cells(int(lay%ni, ik8)*lay%nj*lay%nk)
  end function team_for
end module omp_policy
