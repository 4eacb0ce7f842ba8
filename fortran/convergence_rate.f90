!> The residual's observed rate of fall, for the progress line: the mean
!> reduction factor per iteration (or multigrid cycle) over the last monitor
!> lines, and from it the iterations still needed to reach tol. A run that
!> stops on tol typically converges long before max_iter, so an ETA counted
!> to max_iter overstates the time left by as much as that.
module convergence_rate
  use, intrinsic :: ieee_arithmetic, only: ieee_is_finite
  use kinds, only: rk, ik8
  use case_config, only: case_t
  implicit none
  private
  public :: drop_rate_t, iters_to_go

  !> What an estimate of the iterations left counts to: nothing yet (no
  !> rate, or the residual is rising), tol at the observed rate, or max_iter
  !> (no tol, or tol lies beyond max_iter at that rate).
  integer, parameter, public :: goal_none = 0, goal_tol = 1, goal_max_iter = 2

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
    procedure :: falling
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
  !> newest; 0 when fewer than three lines were seen, nothing was gained, or
  !> a drop is not a number (a diverging run's last line).
  real(rk) function orders_per_iter(self) result(r)
    class(drop_rate_t), intent(in) :: self
    integer :: last, oldest
    r = 0.0_rk
    if (self%n < 3) return
    last = self%newest()
    oldest = merge(1, mod(self%n, window) + 1, self%n <= window)
    if (self%it(last) <= self%it(oldest)) return
    r = (self%drop(last) - self%drop(oldest))/real(self%it(last) - self%it(oldest), rk)
    if (.not. (ieee_is_finite(r) .and. r > 0.0_rk)) r = 0.0_rk
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

  !> The residual falls: a rate is known and the newest line is not above
  !> the one before it. A residual rising now says nothing of when it will
  !> reach tol, whatever the window's mean rate was, so no time is claimed.
  logical function falling(self)
    class(drop_rate_t), intent(in) :: self
    integer :: last, before
    falling = self%orders_per_iter() > 0.0_rk
    if (.not. falling) return
    last = self%newest()
    before = mod(last - 2 + window, window) + 1
    falling = self%drop(last) >= self%drop(before)   ! .false. for a NaN too
  end function falling

  !> Iterations left after it, and what they count to (goal): to tol at the
  !> observed rate when tol is set, capped at max_iter; with tol set but the
  !> residual not falling, -1 and goal_none; without tol, to max_iter.
  !> Never negative but for that -1.
  integer(ik8) function iters_to_go(cs, it, rate, goal) result(left)
    type(case_t), intent(in) :: cs
    integer(ik8), intent(in) :: it
    type(drop_rate_t), intent(in) :: rate
    integer, intent(out) :: goal
    real(rk) :: orders_left, at_rate
    left = max(0_ik8, int(cs%max_iter, ik8) - it)
    goal = goal_max_iter
    if (cs%tol <= 0.0_rk) return
    if (.not. rate%falling()) then
      left = -1
      goal = goal_none
      return
    end if
    orders_left = max(0.0_rk, -log10(cs%tol) - rate%drop(rate%newest()))
    ! compared as reals first: a rate near 0 gives more iterations than an integer holds
    at_rate = orders_left/rate%orders_per_iter()
    if (at_rate <= real(left, rk)) then
      left = ceiling(at_rate, ik8)
      goal = goal_tol
    end if
  end function iters_to_go
end module convergence_rate
