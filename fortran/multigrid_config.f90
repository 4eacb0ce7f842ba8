!> The case file's optional &multigrid group: how many grid levels the FAS
!> multigrid cycle uses and how it smooths on them. levels = 1 is the
!> single-grid solver (one LU-ADI iteration per step).
!>
!>   &multigrid  levels = 4, cycle = 'w', pre_smooth = 2, post_smooth = 2,
!>               coarse_smooth = 2, coarse_order = 2, coarse_roe_low_mach = 'none' /
!>
!> build/adiflow also takes --mg-levels N on the command line.
module multigrid_config
  use case_config, only: case_error, lower, case_group_text
  implicit none
  private
  public :: mg_config_t, read_multigrid_config, validate_multigrid_config, mg_config_text
  public :: MG_MAX_LEVELS

  integer, parameter :: MG_MAX_LEVELS = 6

  type :: mg_config_t
    integer :: levels = 1          !< grid levels, fine one included (fewer where the grid cannot coarsen)
    character(len=8) :: cycle = 'v'  !< 'v' (one coarse visit) or 'w' (two)
    !> Two smoothing iterations each way and second-order coarse levels: with
    !> one and first order, the cube's W-cycle reduced the residual by only
    !> 0.99 a cycle (bench/device_mg_sweep.sh and the log measure each knob)
    integer :: pre_smooth = 2      !< LU-ADI iterations on a level before going down
    integer :: post_smooth = 2     !< ... after the coarse correction came back
    integer :: coarse_smooth = 2   !< iterations on the coarsest level
    integer :: coarse_order = 2    !< MUSCL order on the coarse levels (1: first order)
    !> the Roe dissipation of the coarse levels: 'none' (plain Roe, whatever
    !> the fine level's roe_low_mach) or 'fine' (the fine level's). The
    !> low-Mach fix sets the accuracy, and only the fine level's operator
    !> defines the converged solution; on the coarse levels it leaves the
    !> coarse-grid correction too little dissipation, and 3D cycles stall.
    character(len=8) :: coarse_roe_low_mach = 'none'
  end type mg_config_t

contains

  !> The group is optional: without it the defaults hold.
  subroutine read_multigrid_config(path, mg)
    character(len=*), intent(in) :: path
    type(mg_config_t), intent(inout) :: mg
    integer :: levels, pre_smooth, post_smooth, coarse_smooth, coarse_order, ios
    character(len=8) :: cycle, coarse_roe_low_mach
    character(len=512) :: m
    character(len=:), allocatable :: text
    namelist /multigrid/ levels, cycle, pre_smooth, post_smooth, coarse_smooth, coarse_order, &
      coarse_roe_low_mach
    levels = mg%levels; cycle = mg%cycle; pre_smooth = mg%pre_smooth
    post_smooth = mg%post_smooth; coarse_smooth = mg%coarse_smooth; coarse_order = mg%coarse_order
    coarse_roe_low_mach = mg%coarse_roe_low_mach
    ! the group's text as the scan checked it, never the file (case_group_text)
    text = case_group_text(path, 'multigrid')
    if (len(text) == 0) return
    read(text, nml=multigrid, iostat=ios, iomsg=m)
    if (ios > 0) call case_error('case file "'//trim(path)//'", group &multigrid: '//trim(m)// &
      ' (keys: levels, cycle, pre_smooth, post_smooth, coarse_smooth, coarse_order, coarse_roe_low_mach)')
    if (ios < 0) return
    mg%levels = levels; mg%cycle = lower(cycle); mg%pre_smooth = pre_smooth
    mg%post_smooth = post_smooth; mg%coarse_smooth = coarse_smooth; mg%coarse_order = coarse_order
    mg%coarse_roe_low_mach = lower(coarse_roe_low_mach)
  end subroutine read_multigrid_config

  subroutine validate_multigrid_config(mg)
    type(mg_config_t), intent(in) :: mg
    call check('levels (&multigrid)', mg%levels, 1, MG_MAX_LEVELS)
    if (trim(mg%cycle) /= 'v' .and. trim(mg%cycle) /= 'w') call case_error('cycle (&multigrid) = "'// &
      trim(mg%cycle)//'" is not allowed (use v or w)')
    call check('pre_smooth (&multigrid)', mg%pre_smooth, 0, 8)
    call check('post_smooth (&multigrid)', mg%post_smooth, 0, 8)
    call check('coarse_smooth (&multigrid)', mg%coarse_smooth, 1, 16)
    call check('coarse_order (&multigrid)', mg%coarse_order, 1, 2)
    if (trim(mg%coarse_roe_low_mach) /= 'none' .and. trim(mg%coarse_roe_low_mach) /= 'fine') &
      call case_error('coarse_roe_low_mach (&multigrid) = "'//trim(mg%coarse_roe_low_mach)// &
      '" is not allowed (use none or fine)')
    if (mg%levels > 1 .and. mg%pre_smooth + mg%post_smooth == 0) call case_error( &
      'pre_smooth and post_smooth (&multigrid) are both 0: the fine grid would never be smoothed')
  contains
    subroutine check(key, v, lo, hi)
      character(len=*), intent(in) :: key
      integer, intent(in) :: v, lo, hi
      character(len=160) :: t
      if (v < lo .or. v > hi) then
        write(t, '(a,a,i0,a,i0,a,i0)') key, ' = ', v, ' is out of range: allowed ', lo, ' to ', hi
        call case_error(t)
      end if
    end subroutine check
  end subroutine validate_multigrid_config

  !> "V(1,1) cycle, 2 coarsest-level iterations, first-order coarse levels";
  !> with fine_low_mach (the fine level has a low-Mach fix) also what the
  !> coarse levels' dissipation is.
  function mg_config_text(mg, fine_low_mach) result(s)
    type(mg_config_t), intent(in) :: mg
    logical, intent(in), optional :: fine_low_mach
    character(len=:), allocatable :: s
    character(len=200) :: b
    write(b, '(a,a,i0,a,i0,a,i0,a,a)') trim(lower(mg%cycle)), '(', mg%pre_smooth, ',', mg%post_smooth, &
      ') cycle, ', mg%coarse_smooth, ' coarsest-level iterations, ', &
      trim(merge('first-order ', 'second-order', mg%coarse_order == 1))//' coarse levels'
    if (present(fine_low_mach)) then
      if (fine_low_mach) b = trim(b)//trim(merge(' with plain Roe dissipation', &
        ' with the low-Mach fix too ', mg%coarse_roe_low_mach == 'none'))
    end if
    s = trim(b)
    s(1:1) = achar(iachar(s(1:1)) - 32)
  end function mg_config_text
end module multigrid_config
