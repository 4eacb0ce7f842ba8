!> The case file's optional &multigrid group: how many grid levels the FAS
!> multigrid cycle uses and how it smooths on them. levels = 1 is the
!> single-grid solver (one LU-ADI iteration per step).
!>
!>   &multigrid  levels = 4, cycle = 'w', pre_smooth = 2, post_smooth = 2,
!>               coarse_smooth = 2, coarse_order = 2, coarse_roe_low_mach = 'auto' /
!>
!> The keys, their defaults and their ranges are the rows of
!> fortran/case_keys/multigrid.def. build/adiflow also takes --mg-levels N
!> on the command line.
module multigrid_config
  use case_config, only: case_error, lower, case_group_text, group_keys, check_int, check_choice, either, one_of
  implicit none
  private
  public :: mg_config_t, read_multigrid_config, validate_multigrid_config, mg_config_text
  public :: settle_coarse_dissipation
  public :: MG_MAX_LEVELS

  integer, parameter :: MG_MAX_LEVELS = 6

  type :: mg_config_t
#define KEY_ROWS "case_keys/multigrid.def"
#include "case_keys/members.inc"
#undef KEY_ROWS
  end type mg_config_t

contains

  !> The group is optional: without it the defaults hold.
  subroutine read_multigrid_config(path, mg)
    character(len=*), intent(in) :: path
    type(mg_config_t), intent(inout) :: mg
    integer :: ios
    character(len=512) :: m
    character(len=:), allocatable :: text
#define KEY_ROWS "case_keys/multigrid.def"
#define KEY_GROUP multigrid
#define KEY_OF mg
#include "case_keys/namelist_vars.inc"
#include "case_keys/namelist_in.inc"
    ! the group's text as the scan checked it, never the file (case_group_text)
    text = case_group_text(path, 'multigrid')
    if (len(text) == 0) return
    read(text, nml=multigrid, iostat=ios, iomsg=m)
    if (ios > 0) call case_error('case file "'//trim(path)//'", group &multigrid: '//trim(m)// &
      ' (keys: '//group_keys('multigrid')//')')
    if (ios < 0) return
#include "case_keys/namelist_out.inc"
#undef KEY_ROWS
#undef KEY_GROUP
#undef KEY_OF
  end subroutine read_multigrid_config

  subroutine validate_multigrid_config(mg)
    type(mg_config_t), intent(in) :: mg
#define KEY_ROWS "case_keys/multigrid.def"
#define KEY_OF mg
#define KEY_LABEL ' (&multigrid)'
#include "case_keys/checks.inc"
#undef KEY_ROWS
#undef KEY_OF
#undef KEY_LABEL
    if (mg%levels > 1 .and. mg%pre_smooth + mg%post_smooth == 0) call case_error( &
      'pre_smooth and post_smooth (&multigrid) are both 0: the fine grid would never be smoothed')
  end subroutine validate_multigrid_config

  !> coarse_roe_low_mach = 'auto' becomes 'fine' with preconditioning and
  !> 'none' without (multigrid.def says why); 'none' with preconditioning
  !> is refused, before anything is allocated.
  subroutine settle_coarse_dissipation(mg, preconditioned)
    type(mg_config_t), intent(inout) :: mg
    logical, intent(in) :: preconditioned
    if (mg%coarse_roe_low_mach == 'auto') mg%coarse_roe_low_mach = merge('fine', 'none', preconditioned)
    if (preconditioned .and. mg%coarse_roe_low_mach == 'none' .and. mg%levels > 1) call case_error( &
      "coarse_roe_low_mach (&multigrid) = ""none"" does not go with precondition = 'turkel': plain Roe's "// &
      "acoustic dissipation on the coarse levels makes the preconditioned cycle diverge (use auto or fine)")
  end subroutine settle_coarse_dissipation

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
