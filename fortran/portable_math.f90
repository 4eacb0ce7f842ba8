!> log, exp and x**y built from + - * / and exact scalings only, so that the
!> Fortran reference and the C/CUDA twins return the same bits.
!>
!> The characteristic boundary states need non-integer powers (isentropic
!> relations: rho ~ c**(2/(gamma-1)), T ~ p**((gamma-1)/gamma)). The
!> libraries' pow differ between glibc, CUDA and HIP by an ulp here and
!> there, which would end the bit-identity of the strict build at the first
!> farfield ghost. These versions use correctly rounded operations only (no
!> FMA in either build), fraction/exponent and scale (frexp and ldexp in C),
!> which are exact. Accuracy: a few ulp over the range the boundary states
!> use (tests/c_vs_fortran/test_boundary_states.f90 measures it against the intrinsics).
!>
!> log x: x = m 2**e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s),
!> s = (m-1)/(m+1), |s| < 0.172, by its odd series to s**23 (the next term
!> is below 1e-19 relative). exp y: y = k ln2 + r, |r| <= ln2/2, exp r by
!> its Taylor series to r**17 (next term below 1e-22). ln2 is split in a
!> part with a short mantissa (k*ln2_hi exact for |k| < 2**20) and the rest.
!>
!> Mirror: cuda/common/portable_math.h.
module portable_math
  use kinds, only: rk
  implicit none
  private
  public :: portable_log, portable_exp, portable_pow

  !> ln 2 = ln2_hi + ln2_lo; ln2_hi has its low 32 mantissa bits zero
  real(rk), parameter :: ln2_hi = 6.93147180369123816490e-01_rk
  real(rk), parameter :: ln2_lo = 1.90821492927058770002e-10_rk
  real(rk), parameter :: sqrt_half = 0.70710678118654752440_rk

contains

  !> Natural logarithm of x > 0 (normal numbers).
  pure function portable_log(x) result(r)
    real(rk), intent(in) :: x
    real(rk) :: r, m, s, s2, t, e
    integer :: ie
    m = fraction(x)   ! [0.5, 1)
    ie = exponent(x)
    if (m < sqrt_half) then
      m = 2.0_rk*m
      ie = ie - 1
    end if
    s = (m - 1.0_rk)/(m + 1.0_rk)
    s2 = s*s
    t = 1.0_rk/23.0_rk
    t = t*s2 + 1.0_rk/21.0_rk
    t = t*s2 + 1.0_rk/19.0_rk
    t = t*s2 + 1.0_rk/17.0_rk
    t = t*s2 + 1.0_rk/15.0_rk
    t = t*s2 + 1.0_rk/13.0_rk
    t = t*s2 + 1.0_rk/11.0_rk
    t = t*s2 + 1.0_rk/9.0_rk
    t = t*s2 + 1.0_rk/7.0_rk
    t = t*s2 + 1.0_rk/5.0_rk
    t = t*s2 + 1.0_rk/3.0_rk
    t = t*s2 + 1.0_rk
    e = real(ie, rk)
    r = e*ln2_hi + (e*ln2_lo + 2.0_rk*s*t)
  end function portable_log

  !> e**y for |y| < 700.
  pure function portable_exp(y) result(r)
    real(rk), intent(in) :: y
    real(rk) :: r, x, p, kr
    integer :: k, n
    kr = anint(y/(ln2_hi + ln2_lo))
    k = int(kr)
    x = (y - kr*ln2_hi) - kr*ln2_lo
    ! 1 + x(1 + x/2(1 + x/3(...(1 + x/17)))): Horner in the nested form
    p = 1.0_rk
    do n = 17, 1, -1
      p = 1.0_rk + (x/real(n, rk))*p
    end do
    r = scale(p, k)
  end function portable_exp

  !> x**y for x > 0, as exp(y log x).
  pure function portable_pow(x, y) result(r)
    real(rk), intent(in) :: x, y
    real(rk) :: r
    r = portable_exp(y*portable_log(x))
  end function portable_pow
end module portable_math
