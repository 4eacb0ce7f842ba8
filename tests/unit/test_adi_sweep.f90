!> LU-ADI stages 1, 2 and 4 against a direct solve: for a real flow state,
!> the sweeps of every line must solve the factor
!>   (D - dtv lam+_{c-1} E^-1) D^-1 (D + dtv lam-_{c+1} E^+1) z = w
!> built densely from the stage-1 eigenvalues, in all three directions.
program test_adi_sweep
  use kinds, only: rk
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use boundary_conditions, only: apply_boundary_conditions
  use primitives, only: compute_primitives
  use time_step, only: compute_time_step
  use lu_adi
  use case_setup
  use test_util
  implicit none
  type(case_t) :: cs
  type(layout_t) :: lay
  type(solver_params_t) :: sp
  type(fields_t) :: f
  real(rk), allocatable :: r(:,:,:,:), w0(:,:,:,:)
  integer :: d, m, s, nd(3), n, lines, k1, k2, k3
  integer :: p(3), e(3)
  real(rk) :: worst
  integer, parameter :: eig_of(5) = [1, 1, 1, 2, 3]
  character(len=60) :: name

  cs%ni = 9; cs%nj = 7; cs%nk = 6
  cs%beta_x = 1.0_rk; cs%beta_y = 0.5_rk
  cs%reynolds = 50.0_rk; cs%mach = 0.3_rk
  call setup_case(cs, lay, sp, f)
  nd = [lay%ni, lay%nj, lay%nk]
  allocate(r(lay%ni, lay%nj, lay%nk, 10))
  call random_seed(put=[(4242 + m, m = 1, 64)])
  call random_number(r)
  f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 1) = 0.9_rk + 0.2_rk*r(:,:,:,1)
  do m = 2, 4
    f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, m) = f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 1)*(r(:,:,:,m) - 0.5_rk)
  end do
  f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 5) = 1.0_rk/(sp%gm2*sp%gm1) + r(:,:,:,5)
  call apply_boundary_conditions(sp, lay, f%q)
  call compute_primitives(sp, lay, f%q, f%qp)
  call compute_time_step(sp, lay, 8.0_rk, f%qp, f%sc, f%vol, f%dtv)

  do d = 1, 3
    call adi_stage1_eigenvalues(sp, lay, d, f%qp, f%sc, f%vol, f%wk)
    call adi_stage2_coefficients(sp, lay, d, f%dtv, f%wk)
    do m = 1, 5
      f%wk(1:lay%ni, 1:lay%nj, 1:lay%nk, WK_WCH + m) = r(:,:,:, 5 + m) - 0.5_rk
    end do
    if (.not. allocated(w0)) allocate(w0(-1:lay%ldi-2, -1:lay%nj+2, -1:lay%nk+2, 5))
    w0 = f%wk(:,:,:, WK_WCH+1:WK_WCH+5)
    call adi_stage4_sweeps(sp, lay, d, f%wk)
    e = 0; e(d) = 1
    n = nd(d)
    worst = 0.0_rk
    lines = 0
    ! every line of direction d: start cells with p(d) = 1
    do k3 = 1, merge(1, lay%nk, d == 3)
      do k2 = 1, merge(1, lay%nj, d == 2)
        do k1 = 1, merge(1, lay%ni, d == 1)
          p = [k1, k2, k3]
          do m = 1, 5
            s = eig_of(m)
            worst = max(worst, line_error(p, e, n, s, m))
          end do
          lines = lines + 1
        end do
      end do
    end do
    write(name, '(a,i0,a,i0,a)') 'direction ', d, ' (', lines, ' lines x 5 characteristics)'
    call check(worst <= 1.0e-12_rk, 'sweeps solve the LU-ADI factor exactly, '//trim(name))
  end do
  call test_summary()

contains

  !> Build the factor of one line densely, solve it by Gaussian elimination
  !> and return the max relative difference to the sweep result.
  function line_error(p0, e, n, s, m) result(err)
    integer, intent(in) :: p0(3), e(3), n, s, m
    real(rk) :: err
    real(rk) :: a(n, n), lo(n, n), up(n, n), dg(n), b(n), x(n), fac
    integer :: c, i, j, k, idx(3, n), row, col
    do c = 1, n
      idx(:, c) = p0 + (c - 1)*e
    end do
    lo = 0.0_rk; up = 0.0_rk
    do c = 1, n
      i = idx(1, c); j = idx(2, c); k = idx(3, c)
      dg(c) = 1.0_rk + f%dtv(i,j,k)*f%wk(i,j,k,WK_LAMV+s)
      lo(c, c) = dg(c)
      up(c, c) = dg(c)
      if (c > 1) lo(c, c-1) = -f%dtv(i,j,k)*f%wk(idx(1,c-1), idx(2,c-1), idx(3,c-1), WK_LAMP+s)
      if (c < n) up(c, c+1) = f%dtv(i,j,k)*f%wk(idx(1,c+1), idx(2,c+1), idx(3,c+1), WK_LAMN+s)
      b(c) = w0(i, j, k, m)
    end do
    ! a = lo * D^-1 * up
    do row = 1, n
      do col = 1, n
        a(row, col) = sum(lo(row, :)*up(:, col)/dg(:))
      end do
    end do
    ! Gaussian elimination without pivoting (diagonally dominant)
    do c = 1, n - 1
      do row = c + 1, n
        fac = a(row, c)/a(c, c)
        a(row, c:n) = a(row, c:n) - fac*a(c, c:n)
        b(row) = b(row) - fac*b(c)
      end do
    end do
    do c = n, 1, -1
      x(c) = (b(c) - sum(a(c, c+1:n)*x(c+1:n)))/a(c, c)
    end do
    err = 0.0_rk
    do c = 1, n
      err = max(err, abs(f%wk(idx(1,c), idx(2,c), idx(3,c), WK_WCH+m) - x(c))/max(abs(x(c)), 1.0e-3_rk))
    end do
  end function line_error
end program test_adi_sweep
