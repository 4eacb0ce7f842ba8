!> The GPU backend's iteration, emulated on the CPU: the launch sequence of
!> cuda/split/schedule.cu over the stage bodies of cuda/common/adiflow_stages.h (the very
!> functions the CUDA kernels call), one plain loop per launch
!> (tests/c_vs_fortran/stages_host_emul.c, gcc -ffp-contract=off), against solver_cpu's
!> cpu_iteration. Every field (q, qp, res, dq, dtv, wk, ghosts and padding
!> included) must be the same bits after every iteration, with the launches'
!> points visited forwards and backwards (a stage whose points depended on
!> each other, i.e. a race on the GPU, would fail that). Residual norms
!> computed the GPU's way must match compute_residual_norms bit for bit.
!> mass_fix the GPU's way (row sums, plane sums from the values passed in,
!> the total and s = M0/M in Fortran, the rescale kernel) must match
!> mass_constraint's sums and rescale bit for bit, in a chain of blocks too,
!> and iterations with it must match cpu_iteration(..., mass0).
!> Every grid runs three times: with implicit_precision = 'double', with
!> 'single' (the single-precision ADI stages, fortran/lu_adi.f90's header)
!> and with 'single' and the ADI work fields stored as floats in wkf, as a
!> single-mode grid of the GPU backend stores them (emul_iteration_wkf):
!> wkf promoted must be the bits the Fortran keeps in wk(1:23) on the
!> interior (every value read or written there), wk the flux stages' values
!> elsewhere.
program test_stages_c_vs_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, output_unit
  use kinds, only: rk
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use solver_cpu, only: cpu_iteration
  use lu_adi, only: WK_RDIAG, WK_WCH
  use residual_norms, only: compute_residual_norms
  use mass_constraint, only: total_mass, add_mass_plane_sums, mass_from_plane_sums, mass_scale_factor, &
    scale_state
  use case_setup
  use test_util
  implicit none

  interface
    subroutine emul_iteration(sp, cfl, reverse, q, qp, res, dq, dtv, wk, sf, sc, vol) &
        bind(c, name='emul_iteration')
      import :: solver_params_t, c_double, c_int
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: cfl
      integer(c_int), value :: reverse
      real(c_double), intent(inout) :: q(*), qp(*), res(*), dq(*), dtv(*), wk(*)
      real(c_double), intent(in) :: sf(*), sc(*), vol(*)
    end subroutine
    subroutine emul_iteration_wkf(sp, cfl, reverse, q, qp, res, dq, dtv, wk, wkf, sf, sc, vol) &
        bind(c, name='emul_iteration_wkf')
      import :: solver_params_t, c_double, c_float, c_int
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: cfl
      integer(c_int), value :: reverse
      real(c_double), intent(inout) :: q(*), qp(*), res(*), dq(*), dtv(*), wk(*)
      real(c_float), intent(inout) :: wkf(*)
      real(c_double), intent(in) :: sf(*), sc(*), vol(*)
    end subroutine
    subroutine emul_residual_norms(sp, res, vol, plane, norms) bind(c, name='emul_residual_norms')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: res(*), vol(*)
      real(c_double), intent(inout) :: plane(*)
      real(c_double), intent(out) :: norms(5)
    end subroutine
    subroutine emul_mass_plane_sums(sp, q, vol, rows, plane, reverse) bind(c, name='emul_mass_plane_sums')
      import :: solver_params_t, c_double, c_int
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(inout) :: q(*)
      real(c_double), intent(in) :: vol(*)
      real(c_double), intent(inout) :: rows(*), plane(*)
      integer(c_int), value :: reverse
    end subroutine
    subroutine emul_scale_state(sp, q, s, reverse) bind(c, name='emul_scale_state')
      import :: solver_params_t, c_double, c_int
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(inout) :: q(*)
      real(c_double), value :: s
      integer(c_int), value :: reverse
    end subroutine
  end interface

  !> the ADI work fields (lu_adi.f90): what wkf holds
  integer, parameter :: NWORK_ADI = WK_WCH + 5
  type(case_t) :: cs
  character(len=80) :: label
  integer :: ncase, mode
  character(len=*), parameter :: precisions(3) = [character(len=6) :: 'double', 'single', 'single']
  character(len=*), parameter :: mode_names(3) = [character(len=56) :: '', ' [implicit_precision single]', &
    ' [implicit_precision single, float ADI storage wkf]']

  do ncase = 1, N_EMULATION_CASES
    do mode = 1, 3
      call emulation_case(ncase, cs, label)
      if (cs%precondition == 'turkel' .and. mode > 1) cycle
      cs%implicit_precision = precisions(mode)
      call run_case(trim(label)//trim(mode_names(mode)), cs, 6, mode == 3)
    end do
  end do
  block
    type(case_t) :: cb
    character(len=80) :: lb
    call emulation_case(1, cs, label)
    call emulation_case(2, cb, lb)
    call two_grids(cs, cb, 4)
  end block

  call test_summary()

contains

  !> Number of elements whose bits differ; where the first one is.
  integer function ndiff(n, a, b, first)
    integer, intent(in) :: n
    real(rk), intent(in) :: a(n), b(n)
    integer, intent(out) :: first
    integer :: i
    ndiff = 0
    first = 0
    do i = 1, n
      if (transfer(a(i), 0_int64) /= transfer(b(i), 0_int64)) then
        ndiff = ndiff + 1
        if (first == 0) first = i
      end if
    end do
  end function ndiff

  subroutine compare(label, lay, f1, f2, nbad)
    character(len=*), intent(in) :: label
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(in) :: f1, f2
    integer, intent(inout) :: nbad
    integer :: np, nd, first
    np = int(lay%npts)
    nd = ndiff(5*np, f1%q, f2%q, first);    call report(label, 'q', lay, nd, first, nbad)
    nd = ndiff(6*np, f1%qp, f2%qp, first);  call report(label, 'qp', lay, nd, first, nbad)
    nd = ndiff(5*np, f1%res, f2%res, first); call report(label, 'res', lay, nd, first, nbad)
    nd = ndiff(5*np, f1%dq, f2%dq, first);  call report(label, 'dq', lay, nd, first, nbad)
    nd = ndiff(np, f1%dtv, f2%dtv, first);  call report(label, 'dtv', lay, nd, first, nbad)
    nd = ndiff(NWORK*np, f1%wk, f2%wk, first); call report(label, 'wk', lay, nd, first, nbad)
  end subroutine compare

  !> compare for the emulation's fields f2 and, when allocated, its float
  !> ADI work fields wkf: they stand in for wk(1:NWORK_ADI) on the interior,
  !> where the ADI stages read and write them (elsewhere wk keeps the flux
  !> stages' values in both)
  subroutine compare_emul(label, lay, f1, f2, wkf, nbad)
    character(len=*), intent(in) :: label
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(in) :: f1, f2
    real(c_float), allocatable, intent(in) :: wkf(:,:,:,:)
    integer, intent(inout) :: nbad
    type(fields_t) :: g
    if (.not. allocated(wkf)) then
      call compare(label, lay, f1, f2, nbad)
      return
    end if
    g = f2
    g%wk(1:lay%ni, 1:lay%nj, 1:lay%nk, 1:NWORK_ADI) = real(wkf(1:lay%ni, 1:lay%nj, 1:lay%nk, :), rk)
    call compare(label, lay, f1, g, nbad)
  end subroutine compare_emul

  !> one emulated GPU iteration of f, with the ADI work fields in wkf when
  !> it is allocated
  subroutine emul_step(sp, cfl, rev, f, wkf)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: cfl
    integer, intent(in) :: rev
    type(fields_t), intent(inout) :: f
    real(c_float), allocatable, intent(inout) :: wkf(:,:,:,:)
    if (allocated(wkf)) then
      call emul_iteration_wkf(sp, cfl, int(rev, c_int), f%q, f%qp, f%res, f%dq, f%dtv, f%wk, wkf, &
        f%sf, f%sc, f%vol)
    else
      call emul_iteration(sp, cfl, int(rev, c_int), f%q, f%qp, f%res, f%dq, f%dtv, f%wk, f%sf, f%sc, f%vol)
    end if
  end subroutine emul_step

  subroutine report(label, fname, lay, n, at, nbad)
    character(len=*), intent(in) :: label, fname
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: n, at
    integer, intent(inout) :: nbad
    integer :: p, i, j, k, m, np
    if (n == 0) return
    nbad = nbad + n
    np = int(lay%npts)
    p = at - 1
    m = p/np + 1; p = mod(p, np)
    i = mod(p, lay%ldi) - 1; p = p/lay%ldi
    j = mod(p, lay%ldj) - 1; k = p/lay%ldj - 1
    write(output_unit, '(a,a,a,a,a,i0,a,4(i0,a))') '  ', label, ': ', fname, ' differs at ', n, &
      ' points, first (', i, ',', j, ',', k, ') component ', m, ''
  end subroutine report

  !> A preconditioned case compares something that acts: from the same state
  !> one iteration with and one without preconditioning give different states.
  subroutine preconditioning_acts(title, c)
    character(len=*), intent(in) :: title
    type(case_t), intent(in) :: c
    type(layout_t) :: lay
    type(solver_params_t) :: sp, sp_off
    type(fields_t) :: fa, fb
    call setup_case(c, lay, sp, fa)
    call disturbed_state(lay, sp, fa, 31)
    fb = fa
    sp_off = sp
    sp_off%precondition = PRECOND_NONE
    call cpu_iteration(sp, lay, 5.0_rk, fa)
    call cpu_iteration(sp_off, lay, 5.0_rk, fb)
    call check(maxval(abs(fa%q(1:lay%ni, 1:lay%nj, 1:lay%nk, :) - fb%q(1:lay%ni, 1:lay%nj, 1:lay%nk, :))) > 1.0e-6_rk, &
      trim(title)//': the preconditioning acts (one iteration with and without it differ)')
  end subroutine preconditioning_acts

  subroutine run_case(title, c, niter, float_wk)
    character(len=*), intent(in) :: title
    type(case_t), intent(in) :: c
    integer, intent(in) :: niter
    logical, intent(in) :: float_wk
    type(layout_t) :: lay
    type(solver_params_t) :: sp
    type(fields_t) :: f1, f2
    real(rk), allocatable :: plane(:)
    real(c_float), allocatable :: wkf(:,:,:,:)
    real(rk) :: cfl, n1(5), n2(5)
    integer :: it, nbad, nbad_norm, rev
    character(len=40) :: lbl

    call setup_case(c, lay, sp, f1)
    allocate(plane(5*lay%nk))
    call disturbed_state(lay, sp, f1, 31)
    f2 = f1
    if (float_wk) then
      ! the GPU's layout: NWORK_ADI components of wk's shape, zero at first
      allocate(wkf(lbound(f2%wk, 1):ubound(f2%wk, 1), lbound(f2%wk, 2):ubound(f2%wk, 2), &
        lbound(f2%wk, 3):ubound(f2%wk, 3), NWORK_ADI))
      wkf = 0.0_c_float
    end if

    nbad = 0
    nbad_norm = 0
    do it = 1, niter
      cfl = 2.0_rk + 1.5_rk*real(it, rk)
      rev = mod(it, 2)
      call cpu_iteration(sp, lay, cfl, f1)
      call emul_step(sp, cfl, rev, f2, wkf)
      write(lbl, '(a,i0,a)') 'iteration ', it, merge(' (reverse)', ' (forward)', rev == 1)
      call compare_emul(trim(lbl), lay, f1, f2, wkf, nbad)
      call compute_residual_norms(lay, f1%res, f1%vol, n1)
      call emul_residual_norms(sp, f2%res, f2%vol, plane, n2)
      if (any(transfer(n1, 0_int64, 5) /= transfer(n2, 0_int64, 5))) nbad_norm = nbad_norm + 1
    end do
    call check(nbad == 0 .and. maxval(abs(f1%q(1:lay%ni, 1:lay%nj, 1:lay%nk, 2))) > 0.0_rk, &
      trim(title)//': emulated GPU launch sequence == cpu_iteration bit for bit, all fields')
    ! rdiag = 1/(1 + dtv*|lam|_v) in (0, 1]: zero where the ADI stages had not written wkf
    if (float_wk) call check(nbad == 0 .and. &
      all(wkf(1:lay%ni, 1:lay%nj, 1:lay%nk, WK_RDIAG+1:WK_RDIAG+3) > 0.0_c_float) .and. &
      all(wkf(1:lay%ni, 1:lay%nj, 1:lay%nk, WK_RDIAG+1:WK_RDIAG+3) <= 1.0_c_float), &
      trim(title)//': the ADI stages wrote wkf, whose floats promoted == the Fortran wk(1:23) bit for bit')
    call check(nbad_norm == 0 .and. all(n1 > 0.0_rk), &
      trim(title)//': residual norms computed the GPU way == compute_residual_norms bit for bit')
    if (sp%precondition == PRECOND_TURKEL) call preconditioning_acts(title, c)
    call mass_fix_checks(title, lay, sp, f1, f2, wkf, niter)
  end subroutine run_case

  !> Two grids of different sizes in one process, iterated in turns (A, B,
  !> A, B, ...): each stays bit-identical to cpu_iteration of its own, as
  !> several multigrid levels will need (the GPU twin is tests/gpu/gpu_two_grids.c).
  subroutine two_grids(ca, cb, niter)
    type(case_t), intent(in) :: ca, cb
    integer, intent(in) :: niter
    type(layout_t) :: la, lb
    type(solver_params_t) :: pa, pb
    type(fields_t) :: a1, a2, b1, b2
    real(rk) :: cfl
    integer :: it, nbad
    call setup_case(ca, la, pa, a1)
    call setup_case(cb, lb, pb, b1)
    call disturbed_state(la, pa, a1, 31)
    call disturbed_state(lb, pb, b1, 31)
    a2 = a1
    b2 = b1
    nbad = 0
    do it = 1, niter
      cfl = 2.0_rk + 1.5_rk*real(it, rk)
      call cpu_iteration(pa, la, cfl, a1)
      call emul_iteration(pa, cfl, 0_c_int, a2%q, a2%qp, a2%res, a2%dq, a2%dtv, a2%wk, a2%sf, a2%sc, a2%vol)
      call cpu_iteration(pb, lb, cfl, b1)
      call emul_iteration(pb, cfl, 1_c_int, b2%q, b2%qp, b2%res, b2%dq, b2%dtv, b2%wk, b2%sf, b2%sc, b2%vol)
      call compare('two grids, A', la, a1, a2, nbad)
      call compare('two grids, B', lb, b1, b2, nbad)
    end do
    call check(nbad == 0 .and. (la%ni /= lb%ni .or. la%nj /= lb%nj .or. la%nk /= lb%nk), &
      'two grids of different sizes iterated in turns: each == cpu_iteration of its own, bit for bit')
  end subroutine two_grids

  !> mass_fix the GPU's way against mass_constraint, on the (equal) states
  !> f1, f2 left by run_case: plane sums and total, plane sums continued from
  !> given values (a j rank's chain), the rescale, then three iterations of
  !> cpu_iteration(..., mass0) against the emulated iteration + GPU mass fix.
  subroutine mass_fix_checks(title, lay, sp, f1, f2, wkf, it0)
    character(len=*), intent(in) :: title
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    type(fields_t), intent(inout) :: f1, f2
    real(c_float), allocatable, intent(inout) :: wkf(:,:,:,:)
    integer, intent(in) :: it0
    real(rk), allocatable :: rows(:), pf(:), pc(:), start(:)
    real(rk) :: m0, s, cfl
    integer :: k, it, rev, nbad, nsum
    logical :: moved
    character(len=40) :: lbl

    allocate(rows(lay%nj*lay%nk), pf(lay%nk), pc(lay%nk), start(lay%nk))
    ! sums from zero, then from non-zero running sums (as on a j rank > 0)
    nsum = 0
    do rev = 0, 1
      pf = 0.0_rk; pc = 0.0_rk
      call add_mass_plane_sums(lay, f1%vol, pf, f1%q)
      call emul_mass_plane_sums(sp, f2%q, f2%vol, rows, pc, int(rev, c_int))
      if (any(transfer(pf, 0_int64, lay%nk) /= transfer(pc, 0_int64, lay%nk))) nsum = nsum + 1
      if (transfer(mass_from_plane_sums(pc), 0_int64) /= transfer(total_mass(lay, f1%vol, f1%q), 0_int64)) &
        nsum = nsum + 1
      start = [(0.3_rk + 0.7_rk*real(k, rk)/3.0_rk, k = 1, lay%nk)]
      pf = start; pc = start
      call add_mass_plane_sums(lay, f1%vol, pf, f1%q)
      call emul_mass_plane_sums(sp, f2%q, f2%vol, rows, pc, int(rev, c_int))
      if (any(transfer(pf, 0_int64, lay%nk) /= transfer(pc, 0_int64, lay%nk))) nsum = nsum + 1
    end do
    call check(nsum == 0, trim(title)//': mass plane sums the GPU way (rows, then planes, also continued '// &
      'from given sums) == add_mass_plane_sums, total == total_mass, bit for bit')

    ! the rescale alone, by a factor that is not a power of two
    s = 1.0_rk/1.0007_rk
    nbad = 0
    call scale_state(lay, f1%q, s)
    call emul_scale_state(sp, f2%q, s, 1_c_int)
    call compare_emul('rescale', lay, f1, f2, wkf, nbad)
    call check(nbad == 0, trim(title)//': rescale kernel body == scale_state bit for bit (ghosts untouched)')

    ! iterations with mass_fix: cpu_iteration(..., m0) against the emulated
    ! iteration, the GPU's plane sums, the Fortran total and the rescale
    m0 = total_mass(lay, f1%vol)
    nbad = 0
    moved = .false.
    do it = it0 + 1, it0 + 3
      cfl = 2.0_rk + 1.5_rk*real(it, rk)
      rev = mod(it, 2)
      call cpu_iteration(sp, lay, cfl, f1, m0)
      call emul_step(sp, cfl, rev, f2, wkf)
      pc = 0.0_rk
      call emul_mass_plane_sums(sp, f2%q, f2%vol, rows, pc, int(rev, c_int))
      s = mass_scale_factor(m0, mass_from_plane_sums(pc))
      moved = moved .or. s /= 1.0_rk
      call emul_scale_state(sp, f2%q, s, int(rev, c_int))
      write(lbl, '(a,i0,a)') 'mass_fix iteration ', it, merge(' (reverse)', ' (forward)', rev == 1)
      call compare_emul(trim(lbl), lay, f1, f2, wkf, nbad)
    end do
    call check(nbad == 0 .and. moved, trim(title)//': iterations with mass_fix, GPU way == '// &
      'cpu_iteration(..., mass0) bit for bit, all fields (s /= 1)')
  end subroutine mass_fix_checks
end program test_stages_c_vs_fortran
