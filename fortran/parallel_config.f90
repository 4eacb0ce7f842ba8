!> The case file's optional &parallel group: build/adiflow_mpi's block
!> decomposition (fortran/adiflow_mpi.f90 says what each key does).
!>
!>   &parallel  npj = 2, npk = 1, adi_mode = 'exact', pipeline_chunks = 0 /
!>
!> The keys, their defaults and their ranges are the rows of
!> fortran/case_keys/parallel.def; build/adiflow_mpi's --npj, --npk,
!> --adi-mode and --chunks set them on the command line.
module parallel_config
  use case_config, only: case_error, lower, case_group_text, group_keys, check_int, check_choice, either
  implicit none
  private
  public :: parallel_config_t, read_parallel_config, validate_parallel_config

  type :: parallel_config_t
#define KEY_ROWS "case_keys/parallel.def"
#include "case_keys/members.inc"
#undef KEY_ROWS
  end type parallel_config_t

contains

  !> The group is optional: without it the defaults hold.
  subroutine read_parallel_config(path, pc)
    character(len=*), intent(in) :: path
    type(parallel_config_t), intent(inout) :: pc
    integer :: ios
    character(len=512) :: m
    character(len=:), allocatable :: text
#define KEY_ROWS "case_keys/parallel.def"
#define KEY_GROUP parallel
#define KEY_OF pc
#include "case_keys/namelist_vars.inc"
#include "case_keys/namelist_in.inc"
    ! the group's text as the scan checked it, never the file (case_group_text)
    text = case_group_text(path, 'parallel')
    if (len(text) == 0) return
    read(text, nml=parallel, iostat=ios, iomsg=m)
    if (ios > 0) call case_error('case file "'//trim(path)//'", group &parallel: '//trim(m)// &
      ' (keys: '//group_keys('parallel')//')')
    if (ios < 0) return
#include "case_keys/namelist_out.inc"
#undef KEY_ROWS
#undef KEY_GROUP
#undef KEY_OF
  end subroutine read_parallel_config

  !> The keys after the command-line flags; their messages name them bare
  !> (npj, not "npj (&parallel)"), as the flags set them too.
  subroutine validate_parallel_config(pc)
    type(parallel_config_t), intent(in) :: pc
#define KEY_ROWS "case_keys/parallel.def"
#define KEY_OF pc
#define KEY_LABEL ''
#include "case_keys/checks.inc"
#undef KEY_ROWS
#undef KEY_OF
#undef KEY_LABEL
  end subroutine validate_parallel_config
end module parallel_config
