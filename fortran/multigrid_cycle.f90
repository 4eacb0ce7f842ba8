!> The FAS multigrid cycle over levels 1 (fine) .. nlev, independent of the
!> backend: the driver hands in what one level does (fortran/multigrid_cpu.f90
!> for the CPU reference, the GPU bridge's calls for the GPU), so both
!> backends take the same steps in the same order.
!>
!> On level l < nlev: pre_smooth iterations, then down (the level's
!> residual, forcing included, restricted together with its state to
!> level l+1, whose forcing becomes restricted residual - its own
!> residual), one visit of level l+1 (two for a W-cycle), up (the coarse
!> correction interpolated onto level l), post_smooth iterations. On the
!> coarsest level: coarse_smooth iterations.
!>
!> Work units count fine-grid iteration equivalents: an iteration on level
!> l costs its cell fraction weight(l), and so does each residual
!> evaluation of down (counted as a whole iteration, which overstates it).
module multigrid_cycle
  use kinds, only: rk
  use multigrid_config, only: mg_config_t
  implicit none
  private
  public :: run_cycle

  abstract interface
    !> one LU-ADI iteration on level l (its forcing included on l > 1)
    subroutine level_cfl_hook(l, cfl)
      import :: rk
      integer, intent(in) :: l
      real(rk), intent(in) :: cfl
    end subroutine
    !> the coarse correction of level l+1 onto level l
    subroutine level_hook(l)
      integer, intent(in) :: l
    end subroutine
  end interface

contains

  subroutine run_cycle(mg, nlev, weight, cfl, smooth, down, up, work)
    type(mg_config_t), intent(in) :: mg
    integer, intent(in) :: nlev
    real(rk), intent(in) :: weight(:), cfl
    procedure(level_cfl_hook) :: smooth, down
    procedure(level_hook) :: up
    real(rk), intent(inout) :: work
    call visit(1)
  contains
    recursive subroutine visit(l)
      integer, intent(in) :: l
      integer :: n, g
      if (l == nlev) then
        do n = 1, mg%coarse_smooth
          call smooth(l, cfl)
          work = work + weight(l)
        end do
        return
      end if
      do n = 1, mg%pre_smooth
        call smooth(l, cfl)
        work = work + weight(l)
      end do
      call down(l, cfl)
      work = work + weight(l) + weight(l + 1)
      do g = 1, merge(2, 1, mg%cycle == 'w' .and. l + 1 < nlev)
        call visit(l + 1)
      end do
      call up(l)
      do n = 1, mg%post_smooth
        call smooth(l, cfl)
        work = work + weight(l)
      end do
    end subroutine visit
  end subroutine run_cycle
end module multigrid_cycle
