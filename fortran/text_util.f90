!> Numbers written into messages and headers: the one integer-to-text the
!> drivers, the grid reader and checks, the patch file and the multigrid
!> plan use (i0: no blanks), and a real in the format the caller names,
!> without blanks (the messages' coordinates, volumes and the units line;
!> case_config's real_text is the other kind: the shortest text that reads
!> back as the value).
module text_util
  use kinds, only: ik8, rk
  implicit none
  private
  public :: int_text, format_real

  interface int_text
    module procedure int_text_default, int_text_ik8
  end interface int_text

contains

  pure function int_text_default(v) result(s)
    integer, intent(in) :: v
    character(len=:), allocatable :: s
    s = int_text_ik8(int(v, ik8))
  end function int_text_default

  pure function int_text_ik8(v) result(s)
    integer(ik8), intent(in) :: v
    character(len=:), allocatable :: s
    character(len=24) :: b
    write(b, '(i0)') v
    s = trim(b)
  end function int_text_ik8

  !> v written in fmt (e.g. '(es11.4)'), the blanks around it dropped.
  pure function format_real(v, fmt) result(s)
    real(rk), intent(in) :: v
    character(len=*), intent(in) :: fmt
    character(len=:), allocatable :: s
    character(len=40) :: b
    write(b, fmt) v
    s = trim(adjustl(b))
  end function format_real
end module text_util
