!> Zeroing a newly allocated field plane by plane over a thread team. The
!> first write to each page of a new allocation costs a page fault; on a
!> large grid those faults, taken one after another by one thread, were
!> most of the set-up (a perf profile of a 128^3 start: memset and its page
!> faults well over half of it). Spread over the team they overlap. The
!> values are zeros either way. Before that, a field asks for huge pages
!> (advise_huge): where the kernel gives them on request, one fault then
!> maps 2 MiB instead of 4 KiB.
module first_touch
  use, intrinsic :: iso_c_binding, only: c_ptr, c_size_t, c_loc
  use, intrinsic :: iso_fortran_env, only: real32
  use kinds, only: rk
  implicit none
  private
  public :: zero_field, fill_components, advise_huge

  interface zero_field
    module procedure zero_field3, zero_field4
  end interface zero_field

  interface advise_huge
    module procedure advise_huge3, advise_huge4, advise_huge4_sp
  end interface advise_huge

  interface
    subroutine adi_advise_huge_pages(p, bytes) bind(c, name='adi_advise_huge_pages')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: p
      integer(c_size_t), value :: bytes
    end subroutine
  end interface

contains

  !> Huge pages for a new field's memory (fortran/sys_support.c), asked
  !> before its first write; a hint, the values are not touched.
  subroutine advise_huge3(a)
    real(rk), intent(in), target, contiguous :: a(:,:,:)
    if (size(a) > 0) call adi_advise_huge_pages(c_loc(a), int(size(a), c_size_t)*int(storage_size(a)/8, c_size_t))
  end subroutine advise_huge3

  subroutine advise_huge4(a)
    real(rk), intent(in), target, contiguous :: a(:,:,:,:)
    if (size(a) > 0) call adi_advise_huge_pages(c_loc(a), int(size(a), c_size_t)*int(storage_size(a)/8, c_size_t))
  end subroutine advise_huge4

  !> (an output's Float32 buffer)
  subroutine advise_huge4_sp(a)
    real(real32), intent(in), target, contiguous :: a(:,:,:,:)
    if (size(a) > 0) call adi_advise_huge_pages(c_loc(a), int(size(a), c_size_t)*int(storage_size(a)/8, c_size_t))
  end subroutine advise_huge4_sp

  subroutine zero_field3(a, nt)
    real(rk), intent(inout) :: a(:,:,:)
    integer, intent(in) :: nt      !< threads (omp_policy's team_for)
    integer :: k
    !$omp parallel do num_threads(nt)
    do k = 1, size(a, 3)
      a(:, :, k) = 0.0_rk
    end do
    !$omp end parallel do
  end subroutine zero_field3

  !> a(:,:,:,m) = values(m) for every m, plane by plane over the team (a
  !> uniform start state: the same values a whole-array assignment gives).
  subroutine fill_components(a, values, nt)
    real(rk), intent(inout) :: a(:,:,:,:)
    real(rk), intent(in) :: values(:)
    integer, intent(in) :: nt
    integer :: k, m
    do m = 1, size(a, 4)
      !$omp parallel do num_threads(nt)
      do k = 1, size(a, 3)
        a(:, :, k, m) = values(m)
      end do
      !$omp end parallel do
    end do
  end subroutine fill_components

  subroutine zero_field4(a, nt)
    real(rk), intent(inout) :: a(:,:,:,:)
    integer, intent(in) :: nt
    real(rk) :: zeros(size(a, 4))
    zeros = 0.0_rk
    call fill_components(a, zeros, nt)
  end subroutine zero_field4
end module first_touch
