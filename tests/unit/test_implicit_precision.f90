!> implicit_precision = 'single' (fortran/lu_adi.f90's header) against
!> 'double', one iteration from the same state, on the emulation grids of
!> tests/unit/case_setup.f90:
!>   - single mode is a mode of its own: the increments dq and the new state
!>     q differ from double mode's (not bit-identical), and every value the
!>     ADI stages leave in wk and dq is a single-precision number (promoted);
!>   - the difference is rounding only: the update q_new - q_old of single
!>     mode equals double mode's to single-precision accuracy (relative to
!>     the largest update of each variable);
!>   - the residual, which the update does not touch, is the same bits.
!> That the converged state is the same is tests/suites/run_multigrid_tests.sh's.
program test_implicit_precision
  use kinds, only: rk, sk
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use solver_cpu, only: cpu_iteration
  use lu_adi, only: WK_WCH
  use case_setup
  use test_util
  implicit none

  type(case_t) :: cs
  character(len=80) :: label
  integer :: ncase

  do ncase = 1, N_EMULATION_CASES
    call emulation_case(ncase, cs, label)
    if (cs%precondition == 'turkel') cycle   ! double precision only
    call one_case(trim(label), cs)
  end do
  call test_summary()

contains

  !> How many values of a are not single-precision numbers.
  integer function n_not_single(a)
    real(rk), intent(in) :: a(:,:,:,:)
    n_not_single = count(real(real(a, sk), rk) /= a)
  end function n_not_single

  subroutine one_case(title, c)
    character(len=*), intent(in) :: title
    type(case_t), intent(in) :: c
    type(case_t) :: cd, cf
    type(layout_t) :: lay
    type(solver_params_t) :: spd, spf
    type(fields_t) :: f0, fd, ff
    integer :: ni, nj, nk, m, ndq, nq, nfd, nff
    real(rk) :: du, dd, worst, cfl
    character(len=200) :: msg

    cd = c; cd%implicit_precision = 'double'
    cf = c; cf%implicit_precision = 'single'
    call setup_case(cd, lay, spd, f0)
    call disturbed_state(lay, spd, f0, 91)
    spf = make_solver_params(cf, lay)
    call check(spf%implicit_single == IMPLICIT_SINGLE .and. spd%implicit_single == IMPLICIT_DOUBLE, &
      trim(title)//': implicit_precision maps to the params member')
    spf = spd
    spf%implicit_single = IMPLICIT_SINGLE
    ni = lay%ni; nj = lay%nj; nk = lay%nk
    cfl = 5.0_rk
    fd = f0
    ff = f0
    call cpu_iteration(spd, lay, cfl, fd)
    call cpu_iteration(spf, lay, cfl, ff)

    ndq = count(fd%dq(1:ni, 1:nj, 1:nk, :) /= ff%dq(1:ni, 1:nj, 1:nk, :))
    nq = count(fd%q(1:ni, 1:nj, 1:nk, :) /= ff%q(1:ni, 1:nj, 1:nk, :))
    write(msg, '(a,i0,a,i0,a,i0,a)') ': single and double differ after one iteration (dq in ', ndq, ', q in ', nq, &
      ' of ', 5*ni*nj*nk, ' values)'
    call check(ndq > 5*ni*nj*nk/2 .and. nq > 5*ni*nj*nk/2, trim(title)//trim(msg))
    call check(all(fd%res == ff%res), trim(title)//': the residual (double in both modes) is the same bits')

    ! the ADI work fields of the last direction (lam+-, |lam|_v, flmp, flmn,
    ! rdiag, wch: 1 .. WK_WCH + 5) and dq of direction 2
    nff = n_not_single(ff%wk(1:ni, 1:nj, 1:nk, 1:WK_WCH+5)) + n_not_single(ff%dq(1:ni, 1:nj, 1:nk, :))
    nfd = n_not_single(fd%wk(1:ni, 1:nj, 1:nk, 1:WK_WCH+5)) + n_not_single(fd%dq(1:ni, 1:nj, 1:nk, :))
    write(msg, '(a,i0,a)') ': single mode leaves single-precision numbers in wk and dq (double mode: ', nfd, &
      ' values that are not)'
    call check(nff == 0 .and. nfd > 0, trim(title)//trim(msg))

    ! the updates agree to single-precision accuracy, variable by variable
    worst = 0.0_rk
    do m = 1, 5
      dd = maxval(abs(fd%q(1:ni, 1:nj, 1:nk, m) - f0%q(1:ni, 1:nj, 1:nk, m)))
      du = maxval(abs((ff%q(1:ni, 1:nj, 1:nk, m) - f0%q(1:ni, 1:nj, 1:nk, m)) &
                    - (fd%q(1:ni, 1:nj, 1:nk, m) - f0%q(1:ni, 1:nj, 1:nk, m))))
      if (dd > 0.0_rk) worst = max(worst, du/dd)
    end do
    write(msg, '(a,es9.2,a)') ': the update of single mode == that of double mode to ', worst, &
      ' of the largest update of each variable (bound 1e-4)'
    call check(worst > 0.0_rk .and. worst < 1.0e-4_rk, trim(title)//trim(msg))
  end subroutine one_case
end program test_implicit_precision
