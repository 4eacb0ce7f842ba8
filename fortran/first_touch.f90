!> Zeroing a newly allocated field plane by plane over a thread team. The
!> first write to each page of a new allocation costs a page fault; on a
!> large grid those faults, taken one after another by one thread, were
!> most of the set-up (a perf profile of a 128^3 start: memset and its page
!> faults well over half of it). Spread over the team they overlap. The
!> values are zeros either way.
module first_touch
  use kinds, only: rk
  implicit none
  private
  public :: zero_field

  interface zero_field
    module procedure zero_field3, zero_field4
  end interface zero_field

contains

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

  subroutine zero_field4(a, nt)
    real(rk), intent(inout) :: a(:,:,:,:)
    integer, intent(in) :: nt
    integer :: k, m
    do m = 1, size(a, 4)
      !$omp parallel do num_threads(nt)
      do k = 1, size(a, 3)
        a(:, :, k, m) = 0.0_rk
      end do
      !$omp end parallel do
    end do
  end subroutine zero_field4
end module first_touch
