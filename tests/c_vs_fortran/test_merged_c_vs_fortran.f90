!> The merged GPU kernel family, emulated on the CPU: the merged
!> launch schedule of cuda/merged/schedule.cu over the bodies of
!> cuda/common/adiflow_merged.h (tests/c_vs_fortran/merged_host_emul.c, gcc -ffp-contract=off)
!> against solver_cpu's cpu_iteration, for several sets of merged steps
!> (none, some built up from none, each technique switched off alone, all).
!> q, qp, res, dq and dtv must be the same bits everywhere (ghosts and padding included; dq not with MS_ADI5F, whose
!> fused ADI_kernel5_123 hands the increments over in registers and never
!> writes dq, unless MS_ADIL supersedes it), the ADI work fields that
!> the merged family still writes (flmp, flmn, rdiag, wch) the same bits on
!> the interior, with the launches' points visited forwards and backwards.
!> Every grid runs three times: with implicit_precision = 'double', with
!> 'single' (the single-precision ADI bodies, fortran/lu_adi.f90's header)
!> and with 'single' and the ADI work fields stored as floats in wkf, as a
!> single-mode grid of the GPU backend stores them
!> (emul_iteration_merged_wkf): there wkf promoted, not wk, must be the
!> Fortran's flmp, flmn, rdiag, wch bit for bit.
program test_merged_c_vs_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, output_unit
  use kinds, only: rk
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use solver_cpu, only: cpu_iteration
  use lu_adi, only: WK_FLMP, WK_WCH
  use case_setup
  use test_util
  implicit none

  interface
    subroutine emul_iteration_merged(sp, cfl, reverse, flags, q, qp, res, dq, dtv, wk, sf, sc, vol) &
        bind(c, name='emul_iteration_merged')
      import :: solver_params_t, c_double, c_int
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: cfl
      integer(c_int), value :: reverse, flags
      real(c_double), intent(inout) :: q(*), qp(*), res(*), dq(*), dtv(*), wk(*)
      real(c_double), intent(in) :: sf(*), sc(*), vol(*)
    end subroutine
    subroutine emul_iteration_merged_wkf(sp, cfl, reverse, flags, q, qp, res, dq, dtv, wk, wkf, sf, sc, vol) &
        bind(c, name='emul_iteration_merged_wkf')
      import :: solver_params_t, c_double, c_float, c_int
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: cfl
      integer(c_int), value :: reverse, flags
      real(c_double), intent(inout) :: q(*), qp(*), res(*), dq(*), dtv(*), wk(*)
      real(c_float), intent(inout) :: wkf(*)
      real(c_double), intent(in) :: sf(*), sc(*), vol(*)
    end subroutine
    integer(c_int) function emul_merged_run_kernels_missing() bind(c, name='emul_merged_run_kernels_missing')
      import :: c_int
    end function
  end interface

  ! the flags of cuda/common/adiflow_merged.h's enum adi_merged_step_flag,
  ! from the same rows (cuda/common/adiflow_merged_steps.def)
#define ADI_MERGED_STEP(name, bit, text) integer(c_int), parameter :: MS_/**/name = 2**bit
#include "adiflow_merged_steps.def"
#undef ADI_MERGED_STEP
  integer(c_int), parameter :: MS_ALL = 0 &
#define ADI_MERGED_STEP(name, bit, text) + MS_/**/name &
#include "adiflow_merged_steps.def"
#undef ADI_MERGED_STEP
    + 0
  ! the default (all), each technique that changes the host schedule switched
  ! off alone (the ablation bench/device_merged.sh measures), and a few sets
  ! built up from none
  integer(c_int), parameter :: flag_sets(15) = [0_c_int, MS_FUSE, MS_COMP + MS_SWEEP, MS_ADI123 + MS_PT, &
    MS_FUSE + MS_FMARCH, MS_ADI5F, MS_ADIL, MS_ALL - MS_FUSE, MS_ALL - MS_COMP, MS_ALL - MS_ADI123, &
    MS_ALL - MS_PT, MS_ALL - MS_FMARCH, MS_ALL - MS_ADI5F - MS_ADIL, MS_ALL - MS_ADIL, MS_ALL]
  character(len=*), parameter :: flag_names(15) = [character(len=19) :: 'none', 'fuse', 'comp+sweep', &
    'adi123+pt', 'fuse+fmarch', 'adi5f', 'adiline', 'all,-fuse', 'all,-comp', 'all,-adi123', 'all,-pt', &
    'all,-fmarch', 'all,-adi5f,-adiline', 'all,-adiline', 'all']
  !> the ADI work fields (lu_adi.f90): what wkf holds
  integer, parameter :: NWORK_ADI = WK_WCH + 5
  type(case_t) :: cs
  character(len=80) :: label
  integer :: ncase, mode
  character(len=*), parameter :: precisions(3) = [character(len=6) :: 'double', 'single', 'single']
  character(len=*), parameter :: mode_names(3) = [character(len=56) :: '', ' [implicit_precision single]', &
    ' [implicit_precision single, float ADI storage wkf]']

  call check(emul_merged_run_kernels_missing() == 0, 'merged schedules of a run (one domain, blocks, long ' // &
    'lines) use only the kernels an ordinary build holds (RUN rows of ADI_MERGED_KERNELS)')

  do ncase = 1, N_EMULATION_CASES
    do mode = 1, 3
      call emulation_case(ncase, cs, label)
      if (cs%precondition == 'turkel' .and. mode > 1) cycle
      cs%implicit_precision = precisions(mode)
      call run_case(trim(label)//trim(mode_names(mode)), cs, 4, mode == 3)
    end do
  end do

  call test_summary()

contains

  integer function ndiff(n, a, b)
    integer, intent(in) :: n
    real(rk), intent(in) :: a(n), b(n)
    integer :: i
    ndiff = 0
    do i = 1, n
      if (transfer(a(i), 0_int64) /= transfer(b(i), 0_int64)) ndiff = ndiff + 1
    end do
  end function ndiff

  !> wkf: the emulation's float ADI work fields when allocated; they, not
  !> f2's wk, are then compared on the interior
  integer function compare(label, lay, f1, f2, wkf, with_dq)
    character(len=*), intent(in) :: label
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(in) :: f1, f2
    real(c_float), allocatable, intent(in) :: wkf(:,:,:,:)
    logical, intent(in) :: with_dq
    integer :: np, nd(6), ni, nj, nk, nw
    real(rk), allocatable :: w2(:,:,:,:)
    np = int(lay%npts)
    ni = lay%ni; nj = lay%nj; nk = lay%nk
    nd(1) = ndiff(5*np, f1%q, f2%q)
    nd(2) = ndiff(6*np, f1%qp, f2%qp)
    nd(3) = ndiff(5*np, f1%res, f2%res)
    nd(4) = 0
    if (with_dq) nd(4) = ndiff(5*np, f1%dq, f2%dq)
    nd(5) = ndiff(np, f1%dtv, f2%dtv)
    ! flmp, flmn, rdiag, wch: WK_FLMP + 1 .. NWORK_ADI
    nw = ni*nj*nk*(NWORK_ADI - WK_FLMP)
    if (allocated(wkf)) then
      w2 = real(wkf(1:ni, 1:nj, 1:nk, WK_FLMP+1:NWORK_ADI), rk)
    else
      w2 = f2%wk(1:ni, 1:nj, 1:nk, WK_FLMP+1:NWORK_ADI)
    end if
    nd(6) = count(transfer(reshape(f1%wk(1:ni, 1:nj, 1:nk, WK_FLMP+1:NWORK_ADI), [nw]), 0_int64, nw) &
               /= transfer(reshape(w2, [nw]), 0_int64, nw))
    compare = sum(nd)
    if (compare > 0) write(output_unit, '(a,a,a,6(1x,i0))') '  ', label, &
      ': differing values in q qp res dq dtv wk(interior, 10:23):', nd
  end function compare

  subroutine run_case(title, c, niter, float_wk)
    character(len=*), intent(in) :: title
    type(case_t), intent(in) :: c
    integer, intent(in) :: niter
    logical, intent(in) :: float_wk
    type(layout_t) :: lay
    type(solver_params_t) :: sp
    type(fields_t) :: f0, f1, f2
    real(c_float), allocatable :: wkf(:,:,:,:)
    real(rk) :: cfl
    integer :: it, nbad, rev, fs
    character(len=64) :: lbl

    call setup_case(c, lay, sp, f0)
    call disturbed_state(lay, sp, f0, 57)

    do fs = 1, size(flag_sets)
      f1 = f0
      f2 = f0
      if (float_wk) then
        ! the GPU's layout: NWORK_ADI components of wk's shape, zero at first
        if (allocated(wkf)) deallocate(wkf)
        allocate(wkf(lbound(f2%wk, 1):ubound(f2%wk, 1), lbound(f2%wk, 2):ubound(f2%wk, 2), &
          lbound(f2%wk, 3):ubound(f2%wk, 3), NWORK_ADI))
        wkf = 0.0_c_float
      end if
      nbad = 0
      do it = 1, niter
        cfl = 2.0_rk + 1.5_rk*real(it, rk)
        rev = mod(it + fs, 2)
        call cpu_iteration(sp, lay, cfl, f1)
        if (float_wk) then
          call emul_iteration_merged_wkf(sp, cfl, int(rev, c_int), flag_sets(fs), f2%q, f2%qp, f2%res, f2%dq, &
            f2%dtv, f2%wk, wkf, f2%sf, f2%sc, f2%vol)
        else
          call emul_iteration_merged(sp, cfl, int(rev, c_int), flag_sets(fs), f2%q, f2%qp, f2%res, f2%dq, &
            f2%dtv, f2%wk, f2%sf, f2%sc, f2%vol)
        end if
        write(lbl, '(a,a,a,i0,a)') 'steps ', trim(flag_names(fs)), ', iteration ', it, &
          merge(' (reverse)', ' (forward)', rev == 1)
        nbad = nbad + compare(trim(lbl), lay, f1, f2, wkf, &
          iand(flag_sets(fs), MS_ADI5F) == 0 .or. iand(flag_sets(fs), MS_ADIL) /= 0)
      end do
      call check(nbad == 0 .and. maxval(abs(f1%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 2))) > 0.0_rk, &
        trim(title)//': merged schedule, steps '//trim(flag_names(fs))//' == cpu_iteration bit for bit')
    end do
  end subroutine run_case
end program test_merged_c_vs_fortran
