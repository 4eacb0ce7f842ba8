!> The residual's observed rate of fall, for the progress line: the mean
!> reduction factor per iteration (or multigrid cycle) over the last monitor
!> lines, and from it the iterations still needed to reach tol. A run that
!> stops on tol typically converges long before max_iter, so an ETA counted
!> to max_iter overstates the time left by as much as that.
module convergence_rate
  use kinds, only: rk, ik8
  use case_config, only: case_t
  implicit none
  private
  public :: drop_rate_t, iters_to_go

  !> lines kept: enough to smooth a cycle-to-cycle wobble, few enough to
  !> follow a rate that changes over the run
  integer, parameter :: window = 12

  type :: drop_rate_t
    integer(ik8) :: it(window) = 0
    real(rk) :: drop(window) = 0.0_rk
    integer :: n = 0     !< lines recorded so far
  contains
    procedure :: add
    procedure :: newest
    procedure :: orders_per_iter
    procedure :: factor
  end type drop_rate_t

contains

  !> Record the drop (orders of magnitude below the largest residual) at it.
  subroutine add(self, it, drop)
    class(drop_rate_t), intent(inout) :: self
    integer(ik8), intent(in) :: it
    real(rk), intent(in) :: drop
    integer :: slot
    slot = mod(self%n, window) + 1
    self%it(slot) = it
    self%drop(slot) = drop
    self%n = self%n + 1
  end subroutine add

  !> The slot of the newest line.
  integer function newest(self)
    class(drop_rate_t), intent(in) :: self
    newest = mod(self%n - 1, window) + 1
  end function newest

  !> Orders gained per iteration between the oldest kept line and the
  !> newest; 0 when fewer than three lines were seen or nothing was gained.
  real(rk) function orders_per_iter(self) result(r)
    class(drop_rate_t), intent(in) :: self
    integer :: last, oldest
    r = 0.0_rk
    if (self%n < 3) return
    last = self%newest()
    oldest = merge(1, mod(self%n, window) + 1, self%n <= window)
    if (self%it(last) <= self%it(oldest)) return
    r = max(0.0_rk, (self%drop(last) - self%drop(oldest))/real(self%it(last) - self%it(oldest), rk))
  end function orders_per_iter

  !> The mean residual reduction per iteration, 10**(-orders per iteration):
  !> 0.98 means 2 % per iteration (about 115 iterations an order); 0 when
  !> not known yet.
  real(rk) function factor(self)
    class(drop_rate_t), intent(in) :: self
    real(rk) :: r
    r = self%orders_per_iter()
    factor = 0.0_rk
    if (r > 0.0_rk) factor = 10.0_rk**(-r)
  end function factor

  !> Iterations left after it: to tol at the observed rate when tol is set
  !> (at most to max_iter; -1 when the rate is not known yet), else to max_iter.
  integer(ik8) function iters_to_go(cs, it, rate) result(left)
    type(case_t), intent(in) :: cs
    integer(ik8), intent(in) :: it
    type(drop_rate_t), intent(in) :: rate
    real(rk) :: r, orders_left
    left = int(cs%max_iter, ik8) - it
    if (cs%tol <= 0.0_rk) return
    r = rate%orders_per_iter()
    if (r <= 0.0_rk) then
      left = -1
      return
    end if
    orders_left = max(0.0_rk, -log10(cs%tol) - rate%drop(rate%newest()))
    left = min(left, int(ceiling(orders_left/r), ik8))
  end function iters_to_go
end module convergence_rate
