!> The FAS multigrid cycle over levels 1 (fine) .. nlev, independent of the
!> backend: it calls the three level operations of an mg_levels_t, which
!> every backend is (fortran/backend.f90: the CPU reference, the GPU, the
!> blocks of a decomposed grid), so all take the same steps in the same
!> order.
!>
!> On level l < nlev: pre_smooth iterations, then restrict (the level's
!> residual, forcing included, restricted together with its state to
!> level l+1, whose forcing becomes restricted residual - its own
!> residual), one visit of level l+1 (two for a W-cycle), prolong (the
!> coarse correction interpolated onto level l), post_smooth iterations. On
!> the coarsest level: coarse_smooth iterations.
!>
!> Work units count fine-grid iteration equivalents: an iteration on level
!> l costs its cell fraction weight(l), and so does each residual
!> evaluation of restrict (counted as a whole iteration, which overstates it).
module multigrid_cycle
  use kinds, only: rk
  use multigrid_config, only: mg_config_t
  implicit none
  private
  public :: mg_levels_t

  !> What the cycle needs of a backend: its levels' plan (the &multigrid
  !> group, the number of levels, each level's cost), the work done, and the
  !> three operations on one level.
  type, abstract :: mg_levels_t
    type(mg_config_t) :: mg
    integer :: nlev = 1
    real(rk), allocatable :: weight(:)   !< weight(l): an iteration on level l in fine-grid work units
    real(rk) :: work_units = 0.0_rk      !< fine-grid work units done so far
  contains
    !> one LU-ADI iteration on level l (its forcing included on l > 1)
    procedure(level_cfl_op), deferred :: smooth
    !> level l's residual and state to level l+1, and level l+1's forcing
    procedure(level_cfl_op), deferred :: restrict
    !> the coarse correction of level l+1 onto level l
    procedure(level_op), deferred :: prolong
    !> one cycle from level 1
    procedure, non_overridable :: run_cycle
  end type mg_levels_t

  abstract interface
    subroutine level_cfl_op(self, l, cfl)
      import :: mg_levels_t, rk
      class(mg_levels_t), intent(inout) :: self
      integer, intent(in) :: l
      real(rk), intent(in) :: cfl
    end subroutine
    subroutine level_op(self, l)
      import :: mg_levels_t
      class(mg_levels_t), intent(inout) :: self
      integer, intent(in) :: l
    end subroutine
  end interface

contains

  subroutine run_cycle(self, cfl)
    class(mg_levels_t), intent(inout) :: self
    real(rk), intent(in) :: cfl
    call visit(1)
  contains
    recursive subroutine visit(l)
      integer, intent(in) :: l
      integer :: n, g
      associate (mg => self%mg, nlev => self%nlev)
        if (l == nlev) then
          do n = 1, mg%coarse_smooth
            call self%smooth(l, cfl)
            self%work_units = self%work_units + self%weight(l)
          end do
          return
        end if
        do n = 1, mg%pre_smooth
          call self%smooth(l, cfl)
          self%work_units = self%work_units + self%weight(l)
        end do
        call self%restrict(l, cfl)
        self%work_units = self%work_units + self%weight(l) + self%weight(l + 1)
        do g = 1, merge(2, 1, mg%cycle == 'w' .and. l + 1 < nlev)
          call visit(l + 1)
        end do
        call self%prolong(l)
        do n = 1, mg%post_smooth
          call self%smooth(l, cfl)
          self%work_units = self%work_units + self%weight(l)
        end do
      end associate
    end subroutine visit
  end subroutine run_cycle
end module multigrid_cycle
