!> The GPU's boundary-patch fill, emulated on the CPU, against the CPU
!> reference (fortran/boundary_conditions.f90's fill_patch_direction and
!> apply_patch_wall_temperature), bit for bit, every field element
!> (ghosts and padding included):
!>  - the fill and the isothermal walls' ghost temperatures at the kernels'
!>    granularity (tests/c_vs_fortran/patch_fill_shim.c: one "thread" per
!>    ghost, d = 1, 2, 3, visited forwards and backwards) on a grid whose
!>    boundary faces are curved (every normal off the axes), with a patch of
!>    every kind, on the fine grid and on coarse levels of its patches
!>    (coarsen_patches, full and semi-coarsening), with and without a
!>    periodic pair;
!>  - whole iterations: the split family's launch sequence
!>    (stages_host_emul.c, forwards and backwards) and the merged family's
!>    (merged_host_emul.c, all techniques and none) over a view carrying the
!>    patches, against cpu_iteration on fields carrying them (f%ps).
!> The patches travel as the GPU backend hands them over: the bc_patch_t
!> list as it is and joined_face_maps (include/adiflow_patches.h).
program test_patch_fill_c_vs_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, output_unit
  use, intrinsic :: ieee_arithmetic, only: ieee_is_finite
  use kinds, only: rk
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use grid_generation, only: generate_nodes
  use metrics, only: compute_metrics
  use boundary_patches
  use boundary_conditions, only: apply_boundary_patches, apply_patch_wall_temperature
  use primitives, only: compute_primitives
  use patch_file, only: freestream_state
  use solver_cpu, only: cpu_iteration
  use case_setup, only: disturbed_state
  use test_util
  implicit none

  interface
    subroutine emul_patch_fill(sp, reverse, q, sf, patches, face_maps) bind(c, name='emul_patch_fill')
      import :: solver_params_t, c_double, c_int, bc_patch_t
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: reverse
      real(c_double), intent(inout) :: q(*)
      real(c_double), intent(in) :: sf(*)
      type(bc_patch_t), intent(in) :: patches(*)
      integer(c_int), intent(in) :: face_maps(*)
    end subroutine
    subroutine emul_patch_wall_temperature(sp, reverse, qp, patches, face_maps) &
        bind(c, name='emul_patch_wall_temperature')
      import :: solver_params_t, c_double, c_int, bc_patch_t
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: reverse
      real(c_double), intent(inout) :: qp(*)
      type(bc_patch_t), intent(in) :: patches(*)
      integer(c_int), intent(in) :: face_maps(*)
    end subroutine
    subroutine emul_iteration_patches(sp, cfl, reverse, q, qp, res, dq, dtv, wk, sf, sc, vol, patches, face_maps) &
        bind(c, name='emul_iteration_patches')
      import :: solver_params_t, c_double, c_int, bc_patch_t
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: cfl
      integer(c_int), value :: reverse
      real(c_double), intent(inout) :: q(*), qp(*), res(*), dq(*), dtv(*), wk(*)
      real(c_double), intent(in) :: sf(*), sc(*), vol(*)
      type(bc_patch_t), intent(in) :: patches(*)
      integer(c_int), intent(in) :: face_maps(*)
    end subroutine
    subroutine emul_iteration_merged_patches(sp, cfl, reverse, flags, q, qp, res, dq, dtv, wk, sf, sc, vol, &
        patches, face_maps) bind(c, name='emul_iteration_merged_patches')
      import :: solver_params_t, c_double, c_int, bc_patch_t
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: cfl
      integer(c_int), value :: reverse, flags
      real(c_double), intent(inout) :: q(*), qp(*), res(*), dq(*), dtv(*), wk(*)
      real(c_double), intent(in) :: sf(*), sc(*), vol(*)
      type(bc_patch_t), intent(in) :: patches(*)
      integer(c_int), intent(in) :: face_maps(*)
    end subroutine
  end interface

  ! the merged family's technique flags, from the rows of
  ! cuda/common/adiflow_merged_steps.def (as test_merged_c_vs_fortran)
#define ADI_MERGED_STEP(name, bit, text) integer(c_int), parameter :: MS_/**/name = 2**bit
#include "adiflow_merged_steps.def"
#undef ADI_MERGED_STEP
  integer(c_int), parameter :: MS_ALL = 0 &
#define ADI_MERGED_STEP(name, bit, text) + MS_/**/name &
#include "adiflow_merged_steps.def"
#undef ADI_MERGED_STEP
    + 0

  interface ndiff
    procedure :: ndiff4, ndiff3
  end interface ndiff

  type(case_t) :: cs
  type(patch_set_t) :: ps, pc
  logical :: ok
  character(len=:), allocatable :: msg
  integer :: periodic_k

  do periodic_k = 0, 1
    call channel_case(periodic_k == 1, cs)
    ps = channel_patches(cs)
    call build_face_maps(ps, cs%ni, cs%nj, cs%nk, ok, msg)
    call check(ok, trim(title(cs))//': the patches cover every face once '//msg)
    if (.not. ok) cycle
    call fill_checks(trim(title(cs)), cs, ps)
    call coarsen_patches(ps, [cs%ni, cs%nj, cs%nk], [2, 2, 2], pc, ok, msg)
    call check(ok, trim(title(cs))//': the patches coarsen by 2 in every direction '//msg)
    if (ok) call fill_checks(trim(title(cs))//', its coarse level (2, 2, 2)', coarse_case(cs, [2, 2, 2]), pc)
    call coarsen_patches(ps, [cs%ni, cs%nj, cs%nk], [1, 2, 2], pc, ok, msg)
    call check(ok, trim(title(cs))//': the patches coarsen by 2 in j and k '//msg)
    if (ok) call fill_checks(trim(title(cs))//', its coarse level (1, 2, 2)', coarse_case(cs, [1, 2, 2]), pc)
    call iteration_checks(trim(title(cs)), cs, ps, 4)
  end do
  call test_summary()

contains

  !> A 12 x 10 x 8 channel at Mach 0.3, Re 200, isothermal walls at
  !> t_wall 1.1; k periodic (a periodic pair of patches) or not.
  subroutine channel_case(periodic_k, c)
    logical, intent(in) :: periodic_k
    type(case_t), intent(out) :: c
    c = case_t()
    c%ni = 12; c%nj = 10; c%nk = 8
    c%lx = 2.0_rk; c%ly = 1.0_rk; c%lz = 0.8_rk
    c%beta_y = 1.2_rk
    c%reynolds = 200.0_rk; c%mach = 0.3_rk
    c%t_wall = 1.1_rk
    c%freestream_alpha = 20.0_rk; c%freestream_beta = 5.0_rk
    if (periodic_k) then
      c%bc_kmin = 'periodic'; c%bc_kmax = 'periodic'
    end if
  end subroutine channel_case

  function title(c) result(s)
    type(case_t), intent(in) :: c
    character(len=80) :: s
    write(s, '(a,i0,a,i0,a,i0,a)') 'channel ', c%ni, ' x ', c%nj, ' x ', c%nk, &
      merge(', periodic in k', ', every kind   ', c%bc_kmin == 'periodic')
  end function title

  !> the case of a coarse level: the sizes divided by ratio
  function coarse_case(c, ratio) result(cc)
    type(case_t), intent(in) :: c
    integer, intent(in) :: ratio(3)
    type(case_t) :: cc
    cc = c
    cc%ni = c%ni/ratio(1); cc%nj = c%nj/ratio(2); cc%nk = c%nk/ratio(3)
  end function coarse_case

  !> Every kind on the faces of the channel, every edge on an odd cell
  !> below and an even one above (so that they coarsen); with a periodic
  !> pair the k faces are periodic patches, as read_patch_file makes them.
  function channel_patches(c) result(set)
    type(case_t), intent(in) :: c
    type(patch_set_t) :: set
    type(solver_params_t) :: sp
    type(layout_t) :: lay
    real(rk) :: fs(5), m2
    lay = make_layout(c%ni, c%nj, c%nk)
    sp = make_solver_params(c, lay)
    fs = freestream_state(sp, c%freestream_alpha, c%freestream_beta)
    m2 = sp%gm2/sp%gamma
    allocate(set%p(0))
    call add(set, 1, BC_INFLOW, [1, 1], [6, 8], [fs(5)*(1.0_rk + 0.5_rk*sp%gm1*m2)**sp%ggm1, &
      1.0_rk + 0.5_rk*sp%gm1*m2, fs(2), fs(3), fs(4)])
    call add(set, 1, BC_FARFIELD, [7, 1], [10, 4], fs)
    call add(set, 1, BC_SLIP, [7, 5], [10, 8])
    call add(set, 2, BC_OUTFLOW, [1, 1], [4, 8], [0.98_rk*fs(5)])
    call add(set, 2, BC_SUPERSONIC_OUTFLOW, [5, 1], [10, 4])
    call add(set, 2, BC_SYMMETRY, [5, 5], [10, 8])
    call add(set, 3, BC_WALL, [1, 1], [6, 8])
    call add(set, 3, BC_LID, [7, 1], [12, 8], [0.3_rk, 0.05_rk, -0.1_rk])
    call add(set, 4, BC_SLIP, [1, 1], [4, 8])
    call add(set, 4, BC_FARFIELD, [5, 1], [8, 8], fs)
    call add(set, 4, BC_SUPERSONIC_INFLOW, [9, 1], [12, 8], fs)
    if (c%bc_kmin == 'periodic') then
      call add(set, 5, BC_PERIODIC, [1, 1], [12, 10])
      call add(set, 6, BC_PERIODIC, [1, 1], [12, 10])
    else
      call add(set, 5, BC_SYMMETRY, [1, 1], [6, 10])
      call add(set, 5, BC_WALL, [7, 1], [12, 10])
      call add(set, 6, BC_FARFIELD, [1, 1], [6, 10], fs)
      call add(set, 6, BC_OUTFLOW, [7, 1], [12, 10], [fs(5)])
    end if
  end function channel_patches

  !> patch (face, kind, cells lo..hi, values v) appended to set
  subroutine add(set, face, kind, lo, hi, v)
    type(patch_set_t), intent(inout) :: set
    integer, intent(in) :: face, kind, lo(2), hi(2)
    real(rk), intent(in), optional :: v(:)
    type(bc_patch_t) :: p
    p%face = face; p%kind = kind; p%lo = lo; p%hi = hi
    if (present(v)) p%v(1:size(v)) = v
    set%p = [set%p, p]
  end subroutine add

  !> The case's layout, parameters and fields, its grid's nodes moved by a
  !> smooth displacement that reaches the boundary (each face curved: no
  !> normal along an axis) and keeps a periodic k periodic, then its metrics.
  subroutine setup_curved(c, lay, sp, f)
    type(case_t), intent(in) :: c
    type(layout_t), intent(out) :: lay
    type(solver_params_t), intent(out) :: sp
    type(fields_t), intent(out) :: f
    real(rk), allocatable :: xn(:,:,:,:), x0(:,:,:,:)
    real(rk), parameter :: pi = 3.14159265358979323846_rk, a = 0.03_rk
    call validate_case(c)
    lay = make_layout(c%ni, c%nj, c%nk)
    sp = make_solver_params(c, lay)
    call allocate_fields(lay, f)
    call generate_nodes(c, xn)
    x0 = xn
    xn(1,:,:,:) = x0(1,:,:,:) + a*c%lx*sin(2.0_rk*pi*x0(2,:,:,:)/c%ly + 0.3_rk)*cos(2.0_rk*pi*x0(3,:,:,:)/c%lz)
    xn(2,:,:,:) = x0(2,:,:,:) + a*c%ly*sin(2.0_rk*pi*x0(1,:,:,:)/c%lx + 0.7_rk)*cos(2.0_rk*pi*x0(3,:,:,:)/c%lz)
    xn(3,:,:,:) = x0(3,:,:,:) + a*c%lz*sin(2.0_rk*pi*x0(1,:,:,:)/c%lx)*sin(2.0_rk*pi*x0(2,:,:,:)/c%ly + 0.2_rk)
    call compute_metrics(lay, xn, f%sf, f%sc, f%vol, f%xc)
  end subroutine setup_curved

  !> A disturbed state moving with the free stream: disturbed_state's
  !> density, velocity and pressure disturbances around rest, plus the free
  !> stream's velocity (the pressure kept).
  subroutine moving_state(c, lay, sp, f, seed)
    type(case_t), intent(in) :: c
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    type(fields_t), intent(inout) :: f
    integer, intent(in) :: seed
    real(rk) :: fs(5)
    integer :: m
    call disturbed_state(lay, sp, f, seed)
    fs = freestream_state(sp, c%freestream_alpha, c%freestream_beta)
    f%q(:,:,:,5) = f%q(:,:,:,5) + (f%q(:,:,:,2)*fs(2) + f%q(:,:,:,3)*fs(3) + f%q(:,:,:,4)*fs(4)) + &
      0.5_rk*f%q(:,:,:,1)*(fs(2)**2 + fs(3)**2 + fs(4)**2)
    do m = 2, 4
      f%q(:,:,:,m) = f%q(:,:,:,m) + f%q(:,:,:,1)*fs(m)
    end do
  end subroutine moving_state

  !> Number of elements whose bits differ (fields of several components, of one).
  integer function ndiff4(a, b) result(n)
    real(rk), intent(in) :: a(:,:,:,:), b(:,:,:,:)
    n = count(transfer(a, 0_int64, size(a)) /= transfer(b, 0_int64, size(b)))
  end function ndiff4

  integer function ndiff3(a, b) result(n)
    real(rk), intent(in) :: a(:,:,:), b(:,:,:)
    n = count(transfer(a, 0_int64, size(a)) /= transfer(b, 0_int64, size(b)))
  end function ndiff3

  !> The fill and the walls' ghost temperatures of patch set set on the
  !> case's curved grid: Fortran against the kernels' emulation, forwards
  !> and backwards.
  subroutine fill_checks(name, c, set)
    character(len=*), intent(in) :: name
    type(case_t), intent(in) :: c
    type(patch_set_t), intent(in) :: set
    type(layout_t) :: lay
    type(solver_params_t) :: sp
    type(fields_t) :: f
    real(rk), allocatable :: q1(:,:,:,:), q2(:,:,:,:), qp1(:,:,:,:), qp2(:,:,:,:)
    integer(c_int), allocatable :: maps(:)
    integer :: rev, nq, nt, k
    call setup_curved(c, lay, sp, f)
    call moving_state(c, lay, sp, f, 17)
    maps = joined_face_maps(set)
    call check(all([(any(set%p%kind == k) .or. (k == BC_PERIODIC .neqv. c%bc_kmin == 'periodic'), &
      k = BC_WALL, BC_SUPERSONIC_OUTFLOW)]), name//': the patches hold every kind (the periodic pair where k is periodic)')
    q1 = f%q
    call apply_boundary_patches(sp, lay, set, f%sf, q1)
    ! the walls' ghost temperatures start from the primitives of the filled state
    call compute_primitives(sp, lay, q1, f%qp)
    qp1 = f%qp
    call apply_patch_wall_temperature(sp, lay, set, qp1, [(.true., k = 1, 6)])
    nq = 0
    nt = 0
    do rev = 0, 1
      q2 = f%q
      call emul_patch_fill(sp, int(rev, c_int), q2, f%sf, set%p, maps)
      nq = nq + ndiff(q1, q2)
      qp2 = f%qp
      call emul_patch_wall_temperature(sp, int(rev, c_int), qp2, set%p, maps)
      nt = nt + ndiff(qp1, qp2)
    end do
    call check(nq == 0 .and. ndiff(q1, f%q) > 0, &
      name//': GPU patch fill (per ghost, forwards and backwards) == fill_patch_direction bit for bit')
    call check(nt == 0 .and. ndiff(qp1, f%qp) > 0, &
      name//': GPU walls'' ghost temperatures (per ghost, both ways) == apply_patch_wall_temperature bit for bit')
  end subroutine fill_checks

  !> niter iterations of cpu_iteration on fields carrying the patches
  !> against the emulated launch sequences over a view carrying them: the
  !> split family forwards and backwards (every field compared), the merged
  !> family with no technique and with all, forwards and backwards (q, qp,
  !> res, dtv: the merged kernels leave some work fields unwritten and,
  !> fused, keep dq in registers).
  subroutine iteration_checks(name, c, set, niter)
    character(len=*), intent(in) :: name
    type(case_t), intent(in) :: c
    type(patch_set_t), intent(in) :: set
    integer, intent(in) :: niter
    integer, parameter :: nrun = 5
    logical, parameter :: merged(nrun) = [.false., .false., .true., .true., .true.]
    integer(c_int), parameter :: flags(nrun) = [0_c_int, 0_c_int, 0_c_int, MS_ALL, MS_ALL]
    integer(c_int), parameter :: rev(nrun) = [0_c_int, 1_c_int, 1_c_int, 0_c_int, 1_c_int]
    character(len=*), parameter :: run_names(nrun) = [character(len=34) :: 'split, forwards', 'split, backwards', &
      'merged (no technique), backwards', 'merged (all), forwards', 'merged (all), backwards']
    type(layout_t) :: lay
    type(solver_params_t) :: sp
    type(fields_t) :: f1, e(nrun)
    real(rk), allocatable :: q0(:,:,:,:)
    integer(c_int), allocatable :: maps(:)
    real(rk) :: cfl
    integer :: it, r, nbad(nrun)
    call setup_curved(c, lay, sp, f1)
    call moving_state(c, lay, sp, f1, 23)
    f1%ps = set
    maps = joined_face_maps(set)
    q0 = f1%q
    e = f1
    nbad = 0
    do it = 1, niter
      cfl = 1.0_rk + 0.5_rk*real(it, rk)
      call cpu_iteration(sp, lay, cfl, f1)
      do r = 1, nrun
        associate (g => e(r))
          if (merged(r)) then
            call emul_iteration_merged_patches(sp, cfl, rev(r), flags(r), g%q, g%qp, g%res, g%dq, g%dtv, g%wk, &
              g%sf, g%sc, g%vol, set%p, maps)
          else
            call emul_iteration_patches(sp, cfl, rev(r), g%q, g%qp, g%res, g%dq, g%dtv, g%wk, g%sf, g%sc, g%vol, &
              set%p, maps)
            nbad(r) = nbad(r) + ndiff(f1%dq, g%dq) + ndiff(f1%wk, g%wk)
          end if
          nbad(r) = nbad(r) + ndiff(f1%q, g%q) + ndiff(f1%qp, g%qp) + ndiff(f1%res, g%res) + ndiff(f1%dtv, g%dtv)
        end associate
      end do
    end do
    call check(all(ieee_is_finite(f1%q)) .and. ndiff(f1%q, q0) > 0 .and. maxval(abs(f1%res)) > 0.0_rk, &
      name//': its iterations move the state and keep it finite')
    do r = 1, nrun
      call check(nbad(r) == 0, name//': '//trim(run_names(r))//', emulated GPU iterations with patches == '// &
        'cpu_iteration bit for bit')
      if (nbad(r) /= 0) write(output_unit, '(a,i0,a)') '  (', nbad(r), ' elements differ)'
    end do
  end subroutine iteration_checks
end program test_patch_fill_c_vs_fortran
