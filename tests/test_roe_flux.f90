!> Roe flux: consistency F(q, q) = F(q).S, exact upwinding for supersonic
!> states in both directions, and mirror symmetry F(qL,qR,S) = -F(qR',qL',-S).
program test_roe_flux
  use kinds, only: rk
  use solver_params
  use flow_math, only: roe_flux
  use test_util
  implicit none
  type(solver_params_t) :: sp
  real(rk) :: st(5), st2(5), s(3), f(5), fe(5), g(5), r(12), worst
  integer :: trial, m

  sp%gamma = 1.4_rk; sp%gm1 = 0.4_rk; sp%ggm1 = 3.5_rk; sp%efix = 0.1_rk
  call random_seed(put=[(12345 + m, m = 1, 64)])

  ! consistency
  worst = 0.0_rk
  do trial = 1, 2000
    call random_number(r)
    st = [0.5_rk + r(1), r(2) - 0.5_rk, r(3) - 0.5_rk, r(4) - 0.5_rk, 0.5_rk + 2.0_rk*r(5)]
    s = [r(6) - 0.5_rk, r(7) - 0.5_rk, r(8) - 0.5_rk]
    call roe_flux(sp, st(1), st(2), st(3), st(4), st(5), st(1), st(2), st(3), st(4), st(5), &
      s(1), s(2), s(3), f)
    call euler_flux(st, s, fe)
    worst = max(worst, maxval(abs(f - fe))/maxval(abs(fe)))
  end do
  call check(worst < 1.0e-14_rk, 'Roe flux consistency F(q,q) = F(q).S over 2000 random states')

  ! supersonic: all waves to the right -> F = F(qL); to the left -> F = F(qR)
  worst = 0.0_rk
  do trial = 1, 1000
    call random_number(r)
    s = [1.0_rk, 0.2_rk*(r(9) - 0.5_rk), 0.2_rk*(r(10) - 0.5_rk)]
    st = [0.5_rk + r(1), 2.5_rk + r(2), r(3) - 0.5_rk, r(4) - 0.5_rk, 0.3_rk + 0.5_rk*r(5)]
    st2 = [0.5_rk + r(6), 2.5_rk + r(7), r(8) - 0.5_rk, r(11) - 0.5_rk, 0.3_rk + 0.5_rk*r(12)]
    call roe_flux(sp, st(1), st(2), st(3), st(4), st(5), st2(1), st2(2), st2(3), st2(4), st2(5), &
      s(1), s(2), s(3), f)
    call euler_flux(st, s, fe)
    worst = max(worst, maxval(abs(f - fe))/maxval(abs(fe)))
    st(2) = -st(2); st2(2) = -st2(2)
    call roe_flux(sp, st(1), st(2), st(3), st(4), st(5), st2(1), st2(2), st2(3), st2(4), st2(5), &
      s(1), s(2), s(3), f)
    call euler_flux(st2, s, fe)
    worst = max(worst, maxval(abs(f - fe))/maxval(abs(fe)))
  end do
  call check(worst < 1.0e-12_rk, 'Roe flux is pure upwind for supersonic states (both directions)')

  ! mirror: swapping the sides and reversing the face gives minus the flux
  worst = 0.0_rk
  do trial = 1, 1000
    call random_number(r)
    st = [0.5_rk + r(1), r(2) - 0.5_rk, r(3) - 0.5_rk, r(4) - 0.5_rk, 0.5_rk + r(5)]
    st2 = [0.5_rk + r(6), r(7) - 0.5_rk, r(8) - 0.5_rk, r(9) - 0.5_rk, 0.5_rk + r(10)]
    s = [r(11), r(12), 0.3_rk]
    call roe_flux(sp, st(1), st(2), st(3), st(4), st(5), st2(1), st2(2), st2(3), st2(4), st2(5), &
      s(1), s(2), s(3), f)
    call roe_flux(sp, st2(1), st2(2), st2(3), st2(4), st2(5), st(1), st(2), st(3), st(4), st(5), &
      -s(1), -s(2), -s(3), g)
    worst = max(worst, maxval(abs(f + g))/maxval(abs(f)))
  end do
  call check(worst < 1.0e-13_rk, 'Roe flux mirror symmetry F(qL,qR,S) = -F(qR,qL,-S)')
  call test_summary()

contains

  !> Physical Euler flux of primitive state w = (rho,u,v,w,p) through S.
  subroutine euler_flux(w, sv, fx)
    real(rk), intent(in) :: w(5), sv(3)
    real(rk), intent(out) :: fx(5)
    real(rk) :: un, h
    un = w(2)*sv(1) + w(3)*sv(2) + w(4)*sv(3)
    h = 3.5_rk*w(5)/w(1) + 0.5_rk*(w(2)**2 + w(3)**2 + w(4)**2)
    fx = [w(1)*un, w(1)*un*w(2) + w(5)*sv(1), w(1)*un*w(3) + w(5)*sv(2), &
          w(1)*un*w(4) + w(5)*sv(3), w(1)*un*h]
  end subroutine euler_flux
end program test_roe_flux
