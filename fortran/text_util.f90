!> Numbers written into messages and headers: the one integer-to-text the
!> drivers, the grid reader and checks, the patch file and the multigrid
!> plan use (i0: no blanks).
module text_util
  use kinds, only: ik8
  implicit none
  private
  public :: int_text

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
end module text_util
