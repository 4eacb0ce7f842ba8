!> The case file: one namelist group `&adiflow`, its defaults, its checks.
!>
!> Every key is checked before anything big is allocated; a bad value stops
!> the run with the key, the value and what is allowed (exit code 2).
module case_config
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_size_t, c_null_char
  use kinds, only: rk, ik8
  use grid_layout, only: layout_t
  use solver_params
  use sys_interface, only: c_string, from_c
  implicit none
  private
  public :: case_t, read_case, apply_overrides, validate_case, make_solver_params
  public :: case_error, io_error, bc_code, lower, cfl_at, case_stem, extra_option
  public :: command_argument, run_folder, max_path_len, implicit_text, scheme_text
  public :: input_error_handler, case_error_handler
  public :: case_group_text, int_option, real_text

  !> A driver's own "--flag value" option: .true. if flag is one of its own
  !> (and then it has taken value, or stopped with a case_error).
  abstract interface
    logical function extra_option(flag, value)
      character(len=*), intent(in) :: flag, value
    end function extra_option
  end interface

  !> A driver whose other processes must stop too (adiflow_mpi) points
  !> case_error_handler at one of these while it reads its input: case_error
  !> then hands it the message, and it stops this process (it never returns)
  !> after telling the others, so that none waits for this one forever.
  abstract interface
    subroutine input_error_handler(msg)
      character(len=*), intent(in) :: msg
    end subroutine input_error_handler
  end interface
  procedure(input_error_handler), pointer :: case_error_handler => null()

  !> The longest run folder accepted: the files in it (restart.bin.tmp,
  !> flow_NNNNNNN.vts.tmp, ...) must stay below Linux's PATH_MAX of 4096.
  integer, parameter :: max_path_len = 4000

  !> Every key of the case file with its type, for the text check that runs
  !> before the namelist read (fortran/case_scan.c): i integer, r real,
  !> l logical, sN text of at most N characters. The &parallel group is read
  !> by adiflow_mpi (fortran/adiflow_mpi.f90); build/adiflow accepts and
  !> ignores it, so one case file serves both drivers.
  character(len=*), parameter :: case_keys = 'adiflow:title=s80,ni=i,nj=i,nk=i,lx=r,ly=r,lz=r,'// &
    'beta_x=r,beta_y=r,beta_z=r,grid_type=s16,wavy_amplitude=r,reynolds=r,mach=r,gamma=r,prandtl=r,'// &
    'viscosity_law=s16,sutherland_s=r,wall_thermal=s16,t_wall=r,lid_u=r,lid_v=r,lid_w=r,'// &
    'bc_imin=s16,bc_imax=s16,bc_jmin=s16,bc_jmax=s16,bc_kmin=s16,bc_kmax=s16,order=i,limiter=s16,limiter_k=r,'// &
    'roe_low_mach=s16,implicit_precision=s16,'// &
    'entropy_fix=r,cfl=r,cfl_start=r,cfl_ramp_iters=i,mass_fix=l,max_iter=i,tol=r,'// &
    'monitor_interval=i,output_interval=i,restart_interval=i,restart=l,run_dir=s4000,backend=s16,'// &
    'kernels=s16,threads=i,write_vtk=l,write_tecplot=l,write_profiles=l,write_dump=l,write_plot=l;'// &
    'parallel:npj=i,npk=i,adi_mode=s16,pipeline_chunks=i;'// &
    'gpu:device=i,timing=l,overlap=l,merged_steps=s255,tuning_table=s4000;'// &
    'multigrid:levels=i,cycle=s8,pre_smooth=i,post_smooth=i,coarse_smooth=i,coarse_order=i,coarse_roe_low_mach=s8'

  interface
    integer(c_int) function adi_case_scan(path, spec, msg, msglen) bind(c, name='adi_case_scan')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: path(*), spec(*)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_case_group(path, spec, group, text, textlen, used, msg, msglen) &
        bind(c, name='adi_case_group')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: path(*), spec(*), group(*)
      character(kind=c_char), intent(out) :: text(*), msg(*)
      integer(c_size_t), value :: textlen, msglen
      integer(c_size_t), intent(out) :: used
    end function
  end interface

  !> The longest group text adi_case_group returns: the scanner reads case
  !> files of at most 1 MiB (fortran/case_scan.c, MAX_CASE_BYTES).
  integer, parameter :: case_text_max = 2**20 + 64

  type :: case_t
    character(len=max_path_len) :: case_file = ''
    character(len=80)  :: title = 'adiflow case'
    ! grid
    integer :: ni = 32, nj = 32, nk = 32
    real(rk) :: lx = 1.0_rk, ly = 1.0_rk, lz = 1.0_rk
    real(rk) :: beta_x = 0.0_rk, beta_y = 0.0_rk, beta_z = 0.0_rk
    character(len=16) :: grid_type = 'cavity'
    real(rk) :: wavy_amplitude = 0.0_rk
    ! physics
    real(rk) :: reynolds = 100.0_rk, mach = 0.1_rk
    real(rk) :: gamma = 1.4_rk, prandtl = 0.72_rk
    character(len=16) :: viscosity_law = 'constant'
    real(rk) :: sutherland_s = 110.4_rk/288.15_rk
    character(len=16) :: wall_thermal = 'isothermal'
    real(rk) :: t_wall = 1.0_rk
    real(rk) :: lid_u = 1.0_rk, lid_v = 0.0_rk, lid_w = 0.0_rk
    character(len=16) :: bc_imin = 'wall', bc_imax = 'wall'
    character(len=16) :: bc_jmin = 'wall', bc_jmax = 'lid'
    character(len=16) :: bc_kmin = 'wall', bc_kmax = 'wall'
    ! numerics
    integer :: order = 2
    !> Venkatakrishnan's limiter (K = 5) and Rieper's low-Mach fix by
    !> default: together the smallest error per cell of the measured choices,
    !> second order on the cube (validation/ACCURACY.md)
    character(len=16) :: limiter = 'venkat'
    !> 'venkat' limiter's threshold constant K: eps^2 = (K/N)^3, N the
    !> largest of ni, nj, nk (differences in the solver's units: the lid
    !> speed, rho U^2)
    real(rk) :: limiter_k = 5.0_rk
    !> 'none' or 'rieper': Rieper's low-Mach scaling of the Roe dissipation
    character(len=16) :: roe_low_mach = 'rieper'
    !> 'double' or 'single': the precision of the implicit LU-ADI operator
    !> (fortran/lu_adi.f90's header); the state and the residual stay double
    character(len=16) :: implicit_precision = 'double'
    real(rk) :: entropy_fix = 0.1_rk
    real(rk) :: cfl = 5.0_rk, cfl_start = 1.0_rk
    integer :: cfl_ramp_iters = 100
    !> hold the total mass at that of rho = 1 (fortran/mass_constraint.f90):
    !> a closed cavity's steady state is otherwise defined up to its mass level
    logical :: mass_fix = .false.
    ! control
    integer :: max_iter = 200
    real(rk) :: tol = 0.0_rk
    integer :: monitor_interval = 10
    integer :: output_interval = 0
    integer :: restart_interval = 0
    logical :: restart = .false.
    !> --accept-old-restart (command line only): read restart files of format
    !> versions 1 and 2, which this build no longer writes (see
    !> include/field_format.h for what each leaves unprotected)
    logical :: accept_old_restart = .false.
    character(len=max_path_len) :: run_dir = ''
    character(len=16) :: backend = 'auto'
    character(len=16) :: kernels = 'split'
    !> OpenMP threads of the CPU backend: 0 takes OMP_NUM_THREADS (or the
    !> machine's cores); each parallel region then uses as many of them as
    !> its work pays for (fortran/omp_policy.f90)
    integer :: threads = 0
    logical :: write_vtk = .true., write_tecplot = .true.
    logical :: write_profiles = .true., write_dump = .true.
    logical :: write_plot = .true.
    ! the optional &gpu group (fortran/gpu_settings.f90): how the GPU runs, never what it computes
    integer :: gpu_device = -1
    logical :: gpu_timing = .false., gpu_overlap = .true.
    character(len=255) :: gpu_merged_steps = ''
    character(len=max_path_len) :: gpu_tuning_table = ''
  end type case_t

contains

  !> Stop with a message a user can act on.
  subroutine case_error(msg)
    character(len=*), intent(in) :: msg
    if (associated(case_error_handler)) call case_error_handler(msg)
    write(0, '(a)') 'adiflow: error: '//trim(msg)
    error stop 2, quiet=.true.
  end subroutine case_error

  !> An output or restart could not be written (disk full, file-size limit,
  !> permission): the previous file is kept; exit code 5.
  subroutine io_error(msg)
    character(len=*), intent(in) :: msg
    write(0, '(a)') 'adiflow: error: '//trim(msg)
    error stop 5, quiet=.true.
  end subroutine io_error

  pure function lower(s) result(t)
    character(len=*), intent(in) :: s
    character(len=len(s)) :: t
    integer :: i, c
    t = s
    do i = 1, len(s)
      c = iachar(s(i:i))
      if (c >= iachar('A') .and. c <= iachar('Z')) t(i:i) = achar(c + 32)
    end do
  end function lower

  subroutine read_case(path, cs)
    character(len=*), intent(in) :: path
    type(case_t), intent(inout) :: cs
    character(len=80) :: title
    integer :: ni, nj, nk, order, cfl_ramp_iters, max_iter
    integer :: monitor_interval, output_interval, restart_interval, threads
    real(rk) :: lx, ly, lz, beta_x, beta_y, beta_z, wavy_amplitude
    real(rk) :: reynolds, mach, gamma, prandtl, sutherland_s, t_wall
    real(rk) :: lid_u, lid_v, lid_w, entropy_fix, cfl, cfl_start, tol, limiter_k
    character(len=16) :: grid_type, viscosity_law, wall_thermal, limiter
    character(len=16) :: bc_imin, bc_imax, bc_jmin, bc_jmax, bc_kmin, bc_kmax
    character(len=16) :: backend, kernels
    character(len=max_path_len) :: run_dir
    logical :: restart, write_vtk, write_tecplot, write_profiles, write_dump, write_plot
    logical :: mass_fix
    character(len=16) :: roe_low_mach, implicit_precision
    namelist /adiflow/ title, ni, nj, nk, lx, ly, lz, beta_x, beta_y, beta_z, &
      grid_type, wavy_amplitude, reynolds, mach, gamma, prandtl, viscosity_law, &
      sutherland_s, wall_thermal, t_wall, lid_u, lid_v, lid_w, &
      bc_imin, bc_imax, bc_jmin, bc_jmax, bc_kmin, bc_kmax, &
      order, limiter, limiter_k, roe_low_mach, implicit_precision, entropy_fix, cfl, cfl_start, cfl_ramp_iters, mass_fix, &
      max_iter, tol, monitor_interval, output_interval, restart_interval, &
      restart, run_dir, backend, kernels, threads, write_vtk, write_tecplot, &
      write_profiles, write_dump, write_plot
    integer :: ios
    character(len=512) :: msg
    character(kind=c_char, len=1024) :: why
    character(len=:), allocatable :: text
    integer :: device
    logical :: timing, overlap
    character(len=255) :: merged_steps
    character(len=max_path_len) :: tuning_table
    namelist /gpu/ device, timing, overlap, merged_steps, tuning_table

    ! the text first: types, repeated keys and groups, lengths, special files
    why = c_null_char
    if (adi_case_scan(c_string(path), c_string(case_keys), why, int(len(why), c_size_t)) /= 0) &
      call case_error(from_c(why))

    title = cs%title; ni = cs%ni; nj = cs%nj; nk = cs%nk
    lx = cs%lx; ly = cs%ly; lz = cs%lz
    beta_x = cs%beta_x; beta_y = cs%beta_y; beta_z = cs%beta_z
    grid_type = cs%grid_type; wavy_amplitude = cs%wavy_amplitude
    reynolds = cs%reynolds; mach = cs%mach; gamma = cs%gamma; prandtl = cs%prandtl
    viscosity_law = cs%viscosity_law; sutherland_s = cs%sutherland_s
    wall_thermal = cs%wall_thermal; t_wall = cs%t_wall
    lid_u = cs%lid_u; lid_v = cs%lid_v; lid_w = cs%lid_w
    bc_imin = cs%bc_imin; bc_imax = cs%bc_imax; bc_jmin = cs%bc_jmin
    bc_jmax = cs%bc_jmax; bc_kmin = cs%bc_kmin; bc_kmax = cs%bc_kmax
    order = cs%order; limiter = cs%limiter; limiter_k = cs%limiter_k; entropy_fix = cs%entropy_fix
    roe_low_mach = cs%roe_low_mach
    implicit_precision = cs%implicit_precision
    cfl = cs%cfl; cfl_start = cs%cfl_start; cfl_ramp_iters = cs%cfl_ramp_iters
    mass_fix = cs%mass_fix
    max_iter = cs%max_iter; tol = cs%tol; monitor_interval = cs%monitor_interval
    output_interval = cs%output_interval; restart_interval = cs%restart_interval
    restart = cs%restart; run_dir = cs%run_dir; backend = cs%backend
    kernels = cs%kernels; threads = cs%threads; write_vtk = cs%write_vtk; write_tecplot = cs%write_tecplot
    write_profiles = cs%write_profiles; write_dump = cs%write_dump
    write_plot = cs%write_plot

    ! the namelist reader gets each group's text as the scan saw it, never
    ! the file: a "&adiflow" in a note or a quoted value cannot become the
    ! group it reads (case_group_text)
    text = case_group_text(path, 'adiflow')
    ios = -1
    if (len(text) > 0) read(text, nml=adiflow, iostat=ios, iomsg=msg)
    if (ios == 0) then
      ! &gpu is optional: without it the defaults hold
      device = cs%gpu_device; timing = cs%gpu_timing; overlap = cs%gpu_overlap
      merged_steps = cs%gpu_merged_steps; tuning_table = cs%gpu_tuning_table
      text = case_group_text(path, 'gpu')
      if (len(text) > 0) read(text, nml=gpu, iostat=ios, iomsg=msg)
      if (ios == 0) then
        cs%gpu_device = device; cs%gpu_timing = timing; cs%gpu_overlap = overlap
        cs%gpu_merged_steps = lower(merged_steps); cs%gpu_tuning_table = tuning_table
      end if
    end if
    if (ios < 0) call case_error('case file "'//trim(path)// &
      '" has no &adiflow namelist group (it must start with "&adiflow" and end with "/")')
    if (ios > 0) call case_error('case file "'//trim(path)//'": '//trim(msg)// &
      ' (check the key names and values against README.md, "Case file reference")')

    cs%case_file = path
    cs%title = title; cs%ni = ni; cs%nj = nj; cs%nk = nk
    cs%lx = lx; cs%ly = ly; cs%lz = lz
    cs%beta_x = beta_x; cs%beta_y = beta_y; cs%beta_z = beta_z
    cs%grid_type = lower(grid_type); cs%wavy_amplitude = wavy_amplitude
    cs%reynolds = reynolds; cs%mach = mach; cs%gamma = gamma; cs%prandtl = prandtl
    cs%viscosity_law = lower(viscosity_law); cs%sutherland_s = sutherland_s
    cs%wall_thermal = lower(wall_thermal); cs%t_wall = t_wall
    cs%lid_u = lid_u; cs%lid_v = lid_v; cs%lid_w = lid_w
    cs%bc_imin = lower(bc_imin); cs%bc_imax = lower(bc_imax)
    cs%bc_jmin = lower(bc_jmin); cs%bc_jmax = lower(bc_jmax)
    cs%bc_kmin = lower(bc_kmin); cs%bc_kmax = lower(bc_kmax)
    cs%order = order; cs%limiter = lower(limiter); cs%limiter_k = limiter_k; cs%entropy_fix = entropy_fix
    cs%roe_low_mach = lower(roe_low_mach)
    cs%implicit_precision = lower(implicit_precision)
    cs%cfl = cfl; cs%cfl_start = cfl_start; cs%cfl_ramp_iters = cfl_ramp_iters
    cs%mass_fix = mass_fix
    cs%max_iter = max_iter; cs%tol = tol; cs%monitor_interval = monitor_interval
    cs%output_interval = output_interval; cs%restart_interval = restart_interval
    cs%restart = restart; cs%run_dir = run_dir; cs%backend = backend_name(backend)
    cs%kernels = lower(kernels); cs%threads = threads; cs%write_vtk = write_vtk
    cs%write_tecplot = write_tecplot; cs%write_profiles = write_profiles
    cs%write_dump = write_dump; cs%write_plot = write_plot
  end subroutine read_case

  !> Command-line flags override the case file: --backend X, --kernels X,
  !> --implicit-precision X, --max-iter N, --run-dir D, --restart, --mass-fix. A driver with "--flag value"
  !> options of its own (fortran/adiflow_mpi.f90) passes extra, which takes
  !> them, and extra_help, the list of them ("--flag VALUE, ...") that names
  !> the flags and goes into the error message.
  subroutine apply_overrides(cs, extra, extra_help)
    type(case_t), intent(inout) :: cs
    procedure(extra_option), optional :: extra
    character(len=*), intent(in), optional :: extra_help
    integer :: n, ia
    character(len=:), allocatable :: arg, val, seen
    character(len=400) :: allowed
    allowed = '--backend auto|cpu|gpu, --kernels split|merged, --implicit-precision double|single, '// &
      '--max-iter N, --threads N, --run-dir DIR, --restart, --accept-old-restart, --mass-fix'
    if (present(extra_help)) allowed = trim(extra_help)//', '//allowed
    n = command_argument_count()
    ia = 2
    seen = ' '
    do while (ia <= n)
      arg = command_argument(ia)
      val = ''
      if (ia < n) val = command_argument(ia + 1)
      select case (trim(arg))
      case ('--restart')
        call once(arg)
        cs%restart = .true.
      case ('--accept-old-restart')
        cs%accept_old_restart = .true.
      case ('--mass-fix')
        call once(arg)
        cs%mass_fix = .true.
      case ('--backend', '--kernels', '--implicit-precision', '--max-iter', '--threads', '--run-dir')
        if (ia == n) call case_error('option '//trim(arg)//' needs a value')
        call once(arg)
        select case (trim(arg))
        case ('--backend'); cs%backend = backend_name(val)
        case ('--kernels'); cs%kernels = lower(val)
        case ('--implicit-precision'); cs%implicit_precision = lower(val)
        case ('--run-dir')
          if (len(val) > max_path_len) call case_error(run_dir_too_long(len(val)))
          cs%run_dir = val
        case ('--max-iter')
          cs%max_iter = int_option(arg, val)
        case ('--threads')
          cs%threads = int_option(arg, val)
        end select
        ia = ia + 1
      case default
        if (present(extra) .and. present(extra_help)) then
          if (index(' '//extra_help, ' '//trim(arg)//' ') > 0) then
            if (ia == n) call case_error('option '//trim(arg)//' needs a value')
            call once(arg)
            if (extra(arg, val)) then
              ia = ia + 2
              cycle
            end if
          end if
        end if
        call case_error('unknown option "'//trim(arg)//'" (allowed: '//trim(allowed)//')')
      end select
      ia = ia + 1
    end do
  contains
    !> The last of two values would win without a word: a flag given twice
    !> is a mistake in a command line that grew by copy and paste.
    subroutine once(flag)
      character(len=*), intent(in) :: flag
      if (index(seen, ' '//trim(flag)//' ') > 0) &
        call case_error('option '//trim(flag)//' is given twice; give each option once')
      seen = seen//trim(flag)//' '
    end subroutine once
  end subroutine apply_overrides

  !> The integer value of command-line option flag, read strictly: an
  !> optional sign and digits, nothing else, within the range of a default
  !> integer. (A list-directed read takes "5,abc", "5 abc" or "5/" as 5.)
  integer function int_option(flag, text) result(v)
    character(len=*), intent(in) :: flag, text
    integer :: i, first, d
    integer(ik8) :: acc
    character(len=:), allocatable :: shown
    character(len=24) :: lim
    shown = text
    if (len(shown) > 60) shown = text(1:60)//'...'
    first = 1
    if (len(text) > 0) then
      if (text(1:1) == '+' .or. text(1:1) == '-') first = 2
    end if
    if (len(text) < first) call case_error(trim(flag)//' "'//shown//'" is not an integer')
    acc = 0
    do i = first, len(text)
      d = iachar(text(i:i)) - iachar('0')
      if (d < 0 .or. d > 9) call case_error(trim(flag)//' "'//shown//'" is not an integer')
      ! stop accumulating once past the range (no overflow of acc)
      if (acc <= int(huge(v), ik8) + 1) acc = acc*10 + d
    end do
    if (text(1:1) == '-') acc = -acc
    if (acc > huge(v) .or. acc < -int(huge(v), ik8) - 1) then
      write(lim, '(i0)') huge(v)
      call case_error(trim(flag)//' "'//shown//'" is out of range for an integer (at most '//trim(lim)//')')
    end if
    v = int(acc)
  end function int_option

  !> The text of one namelist group of the case file, as the scan of this
  !> very read checked it: "&group key = value, ... /" on one line, the
  !> comments gone (fortran/case_scan.c, adi_case_group); '' if the file has
  !> no such group. The namelist reader reads this, never the file.
  function case_group_text(path, group) result(text)
    character(len=*), intent(in) :: path, group
    character(len=:), allocatable :: text
    character(kind=c_char, len=1024) :: why
    integer(c_size_t) :: used
    allocate(character(len=case_text_max) :: text)
    why = c_null_char
    if (adi_case_group(c_string(path), c_string(case_keys), c_string(group), text, int(len(text), c_size_t), used, &
        why, int(len(why), c_size_t)) /= 0) call case_error(from_c(why))
    text = text(1:int(used))
  end function case_group_text

  !> v in the fewest significant digits that read back as v, plain for
  !> 1e-4 <= |v| < 1e6 and as d.ddE+x otherwise: no field width to overflow
  !> (an ES12.5 field shows 1e300 as "1.00000+300").
  function real_text(v) result(s)
    real(rk), intent(in) :: v
    character(len=:), allocatable :: s
    character(len=40) :: b, f
    character(len=24) :: digits
    real(rk) :: w
    integer :: p, ie, e, ios, nd, i
    logical :: neg
    if (v == 0.0_rk) then
      s = '0'
      return
    end if
    if (v /= v .or. abs(v) > huge(v)) then
      write(b, '(g0)') v
      s = trim(adjustl(b))
      return
    end if
    do p = 1, 16
      write(f, '(a,i0,a)') '(es30.', p, 'e3)'
      write(b, f) v
      read(b, *, iostat=ios) w
      if (ios == 0 .and. w == v) exit
    end do
    b = adjustl(b)
    neg = b(1:1) == '-'
    if (neg) b = b(2:)
    ie = scan(b, 'Ee')
    read(b(ie+1:), *) e
    digits = ''
    nd = 0
    do i = 1, ie - 1
      if (b(i:i) /= '.') then
        nd = nd + 1
        digits(nd:nd) = b(i:i)
      end if
    end do
    do while (nd > 1 .and. digits(nd:nd) == '0')
      nd = nd - 1
    end do
    if (e >= -4 .and. e < 6) then
      if (e < 0) then
        s = '0.'//repeat('0', -e-1)//digits(1:nd)
      else if (nd > e + 1) then
        s = digits(1:e+1)//'.'//digits(e+2:nd)
      else
        s = digits(1:nd)//repeat('0', e + 1 - nd)
      end if
    else
      write(f, '(i0)') abs(e)
      s = digits(1:1)
      if (nd > 1) s = s//'.'//digits(2:nd)
      s = s//'E'//merge('-', '+', e < 0)//trim(f)
    end if
    if (neg) s = '-'//s
  end function real_text

  function bc_code(key, val) result(code)
    character(len=*), intent(in) :: key, val
    integer :: code
    select case (trim(val))
    case ('wall'); code = BC_WALL
    case ('lid'); code = BC_LID
    case ('periodic'); code = BC_PERIODIC
    case default
      code = -1
      call case_error(trim(key)//' = "'//trim(val)//'" is not allowed (use wall, lid or periodic)')
    end select
  end function bc_code

  subroutine check_int(key, v, lo, hi)
    character(len=*), intent(in) :: key
    integer, intent(in) :: v, lo, hi
    character(len=160) :: m
    if (v < lo .or. v > hi) then
      write(m, '(a,a,i0,a,i0,a,i0)') trim(key), ' = ', v, ' is out of range: allowed ', lo, ' to ', hi
      call case_error(m)
    end if
  end subroutine check_int

  !> lo <= v <= hi, or lo < v <= hi with lo_open; why, if given, says what
  !> the bound means. The message states exactly the range checked.
  subroutine check_real(key, v, lo, hi, lo_open, why)
    character(len=*), intent(in) :: key
    real(rk), intent(in) :: v, lo, hi
    logical, intent(in) :: lo_open
    character(len=*), intent(in), optional :: why
    character(len=:), allocatable :: m
    logical :: bad
    bad = .not. (v <= hi) .or. v < lo .or. (lo_open .and. v == lo)
    if (.not. bad) return
    if (lo_open) then
      m = trim(key)//' = '//real_text(v)//' is out of range: must be > '//real_text(lo)//' and <= '//real_text(hi)
    else
      m = trim(key)//' = '//real_text(v)//' is out of range: allowed '//real_text(lo)//' to '//real_text(hi)
    end if
    if (present(why)) m = m//' ('//why//')'
    call case_error(m)
  end subroutine check_real

  subroutine check_choice(key, v, allowed)
    character(len=*), intent(in) :: key, v, allowed
    character(len=len(allowed)+2) :: padded
    padded = ' '//allowed//' '
    if (len_trim(v) == 0 .or. index(padded, ' '//trim(v)//' ') == 0) &
      call case_error(trim(key)//' = "'//trim(v)//'" is not allowed (use one of: '//allowed//')')
  end subroutine check_choice

  !> All range checks; nothing has been allocated yet when this runs.
  subroutine validate_case(cs)
    type(case_t), intent(in) :: cs
    integer :: codes(6), d, nd(3)
    character(len=4), parameter :: dname(3) = ['i   ', 'j   ', 'k   ']
    character(len=2), parameter :: nname(3) = ['ni', 'nj', 'nk']
    character(len=160) :: m
    character(len=*), parameter :: why_length = 'lengths in units of the cavity size, the length unit: '// &
      'a box a million times smaller or larger than its own unit is a mistake of units'
    character(len=*), parameter :: why_cfl = 'below 0.001 the pseudo-time steps are too small for the flow to '// &
      'develop in any affordable number of iterations'

    call check_int('ni', cs%ni, 1, 4096)
    call check_int('nj', cs%nj, 1, 4096)
    call check_int('nk', cs%nk, 1, 4096)
    call check_real('lx', cs%lx, 1.0e-6_rk, 1.0e6_rk, .false., why_length)
    call check_real('ly', cs%ly, 1.0e-6_rk, 1.0e6_rk, .false., why_length)
    call check_real('lz', cs%lz, 1.0e-6_rk, 1.0e6_rk, .false., why_length)
    call check_real('beta_x', cs%beta_x, 0.0_rk, 10.0_rk, .false.)
    call check_real('beta_y', cs%beta_y, 0.0_rk, 10.0_rk, .false.)
    call check_real('beta_z', cs%beta_z, 0.0_rk, 10.0_rk, .false.)
    call check_choice('grid_type', cs%grid_type, 'cavity wavy')
    call check_real('wavy_amplitude', cs%wavy_amplitude, 0.0_rk, 0.1_rk, .false.)
    call check_real('reynolds', cs%reynolds, 1.0e-3_rk, 1.0e8_rk, .false., 'below Re 0.001 the flow is Stokes flow, '// &
      'the same as at 0.001, while 1/Re grows without bound in the viscous fluxes; above 1e8 no grid of at most '// &
      '4096 cells resolves the boundary layers')
    call check_real('mach', cs%mach, 1.0e-3_rk, 5.0_rk, .false., 'below lid Mach 0.001 the compressible solver''s '// &
      'pseudo-time steps are dominated by the sound speed and the flow does not develop in any affordable number '// &
      'of iterations; above 5 the lid drives a hypersonic cavity, beyond what the scheme is tested for')
    call check_real('gamma', cs%gamma, 1.01_rk, 3.0_rk, .false., 'gamma - 1 divides the internal energy and the '// &
      'heat conduction, so nearer 1 the energy equation loses its digits; monatomic gases have 5/3')
    call check_real('prandtl', cs%prandtl, 1.0e-3_rk, 1.0e3_rk, .false., 'real fluids lie between liquid metals '// &
      '(about 0.005) and heavy oils (about 1000); far outside, the conduction coefficient 1/(Re Pr) overflows '// &
      'or vanishes')
    call check_choice('viscosity_law', cs%viscosity_law, 'constant sutherland')
    call check_real('sutherland_s', cs%sutherland_s, 0.0_rk, 10.0_rk, .true.)
    call check_choice('wall_thermal', cs%wall_thermal, 'adiabatic isothermal')
    call check_real('t_wall', cs%t_wall, 0.01_rk, 100.0_rk, .false., 'the wall temperature over the gas''s '// &
      'initial one: a factor 100 either way is far beyond the constant gamma and Prandtl of the perfect-gas model '// &
      '(0 would be absolute zero)')
    call check_real('lid_u', cs%lid_u, -100.0_rk, 100.0_rk, .false.)
    call check_real('lid_v', cs%lid_v, -100.0_rk, 100.0_rk, .false.)
    call check_real('lid_w', cs%lid_w, -100.0_rk, 100.0_rk, .false.)
    codes(1) = bc_code('bc_imin', cs%bc_imin); codes(2) = bc_code('bc_imax', cs%bc_imax)
    codes(3) = bc_code('bc_jmin', cs%bc_jmin); codes(4) = bc_code('bc_jmax', cs%bc_jmax)
    codes(5) = bc_code('bc_kmin', cs%bc_kmin); codes(6) = bc_code('bc_kmax', cs%bc_kmax)
    nd = [cs%ni, cs%nj, cs%nk]
    do d = 1, 3
      if ((codes(2*d-1) == BC_PERIODIC) .neqv. (codes(2*d) == BC_PERIODIC)) &
        call case_error('periodic boundaries come in pairs: bc_'//trim(dname(d))// &
          'min and bc_'//trim(dname(d))//'max must both be periodic or neither')
      if (codes(2*d) /= BC_PERIODIC .and. nd(d) < 2) then
        write(m, '(a,a,i0,a)') nname(d), ' = ', nd(d), &
          ' is too small: a direction bounded by walls needs at least 2 cells'
        call case_error(m)
      end if
    end do
    call check_int('order', cs%order, 1, 2)
    call check_choice('limiter', cs%limiter, 'vanalbada minmod vanleer venkat')
    call check_real('limiter_k', cs%limiter_k, 0.0_rk, 1.0e3_rk, .true.)
    call check_choice('roe_low_mach', cs%roe_low_mach, 'none rieper')
    call check_choice('implicit_precision', cs%implicit_precision, 'double single')
    call check_real('entropy_fix', cs%entropy_fix, 0.0_rk, 1.0_rk, .false.)
    call check_real('cfl', cs%cfl, 1.0e-3_rk, 1.0e4_rk, .false., why_cfl)
    call check_real('cfl_start', cs%cfl_start, 1.0e-3_rk, 1.0e4_rk, .false., why_cfl)
    call check_int('cfl_ramp_iters', cs%cfl_ramp_iters, 0, 100000000)
    call check_int('max_iter', cs%max_iter, 0, 100000000)
    call check_real('tol', cs%tol, 0.0_rk, 1.0_rk, .false.)
    call check_int('monitor_interval', cs%monitor_interval, 1, 100000000)
    call check_int('output_interval', cs%output_interval, 0, 100000000)
    call check_int('restart_interval', cs%restart_interval, 0, 100000000)
    call check_choice('backend', cs%backend, 'auto cpu gpu')
    call check_choice('kernels', cs%kernels, 'split merged')
    call check_int('threads', cs%threads, 0, 1024)
    call check_int('device (&gpu)', cs%gpu_device, -1, 1023)
  end subroutine validate_case

  !> Host-side constants, computed once and shared with the device as they
  !> are, complete for the grid of layout lay (a whole grid, an MPI block, a
  !> multigrid level). A coarse multigrid level passes its own order and
  !> whether it drops the low-Mach fix (plain_roe).
  function make_solver_params(cs, lay, order, plain_roe) result(sp)
    type(case_t), intent(in) :: cs
    type(layout_t), intent(in) :: lay
    integer, intent(in), optional :: order
    logical, intent(in), optional :: plain_roe
    type(solver_params_t) :: sp
    sp%gamma = cs%gamma
    sp%gm1 = cs%gamma - 1.0_rk
    sp%ggm1 = cs%gamma/sp%gm1
    sp%gm2 = cs%gamma*cs%mach*cs%mach
    sp%re_inv = 1.0_rk/cs%reynolds
    sp%cond_coef = 1.0_rk/(cs%reynolds*cs%prandtl*sp%gm1*cs%mach*cs%mach)
    sp%sutherland_s = cs%sutherland_s
    sp%efix = cs%entropy_fix
    sp%vis_fac = 2.0_rk
    sp%t_wall = cs%t_wall
    sp%lid_u = cs%lid_u; sp%lid_v = cs%lid_v; sp%lid_w = cs%lid_w
    sp%visc_law = merge(VISC_SUTHERLAND, VISC_CONSTANT, cs%viscosity_law == 'sutherland')
    sp%order = cs%order
    if (present(order)) sp%order = order
    select case (trim(cs%limiter))
    case ('minmod'); sp%limiter = LIM_MINMOD
    case ('vanleer'); sp%limiter = LIM_VANLEER
    case ('venkat'); sp%limiter = LIM_VENKAT
    case default; sp%limiter = LIM_VANALBADA
    end select
    sp%wall_thermal = merge(WALL_ISOTHERMAL, WALL_ADIABATIC, cs%wall_thermal == 'isothermal')
    sp%roe_low_mach = merge(ROE_LM_RIEPER, ROE_LM_NONE, cs%roe_low_mach == 'rieper')
    if (present(plain_roe)) then
      if (plain_roe) sp%roe_low_mach = ROE_LM_NONE
    end if
    sp%implicit_single = merge(IMPLICIT_SINGLE, IMPLICIT_DOUBLE, cs%implicit_precision == 'single')
    sp%bc(1) = bc_code('bc_imin', cs%bc_imin); sp%bc(2) = bc_code('bc_imax', cs%bc_imax)
    sp%bc(3) = bc_code('bc_jmin', cs%bc_jmin); sp%bc(4) = bc_code('bc_jmax', cs%bc_jmax)
    sp%bc(5) = bc_code('bc_kmin', cs%bc_kmin); sp%bc(6) = bc_code('bc_kmax', cs%bc_kmax)
    sp%ni = lay%ni; sp%nj = lay%nj; sp%nk = lay%nk
    sp%ldi = lay%ldi; sp%ldj = lay%ldj; sp%ldk = lay%ldk
    ! from the whole grid's sizes, so that every MPI block and every
    ! multigrid level limits with the same threshold
    sp%lim_eps2 = (cs%limiter_k/real(max(cs%ni, cs%nj, cs%nk), rk))**3
  end function make_solver_params

  !> The convective scheme (order, limiter, low-Mach fix), for the run header.
  function scheme_text(cs) result(t)
    type(case_t), intent(in) :: cs
    character(len=128) :: t
    character(len=32) :: k
    if (cs%order == 1) then
      t = 'first order'
    else
      t = 'MUSCL order 2, limiter '//trim(cs%limiter)
      if (cs%limiter == 'venkat') then
        write(k, '(g0.6)') cs%limiter_k
        t = trim(t)//' (K = '//trim(adjustl(k))//')'
      end if
    end if
    t = trim(t)//', roe_low_mach '//trim(cs%roe_low_mach)
  end function scheme_text

  !> The implicit operator's precision, for the run header.
  function implicit_text(cs) result(t)
    type(case_t), intent(in) :: cs
    character(len=96) :: t
    if (cs%implicit_precision == 'single') then
      t = 'single precision (state and residual in double)'
    else
      t = 'double precision'
    end if
  end function implicit_text

  !> Iteration-based CFL ramp (never residual-based: the backends must take
  !> identical steps).
  pure function cfl_at(c, iter) result(v)
    type(case_t), intent(in) :: c
    integer(ik8), intent(in) :: iter
    real(rk) :: v
    if (c%cfl_ramp_iters > 0 .and. iter <= c%cfl_ramp_iters) then
      v = c%cfl_start + (c%cfl - c%cfl_start)*real(iter - 1, rk)/real(c%cfl_ramp_iters, rk)
    else
      v = c%cfl
    end if
  end function cfl_at

  !> The case file's name without folder and extension (the default run folder).
  function case_stem(path) result(stem)
    character(len=*), intent(in) :: path
    character(len=:), allocatable :: stem
    integer :: a, b
    a = index(path, '/', back=.true.) + 1
    b = index(path, '.', back=.true.) - 1
    if (b < a) b = len_trim(path)
    stem = path(a:b)
  end function case_stem

  !> The backend by its vendor-neutral name: 'cuda' and 'hip' are accepted
  !> as other names of 'gpu' (the GPU backend of whichever build this is).
  function backend_name(v) result(b)
    character(len=*), intent(in) :: v
    character(len=16) :: b
    b = lower(v)
    if (b == 'cuda' .or. b == 'hip') b = 'gpu'
  end function backend_name

  !> Command-line argument n, whole, however long.
  function command_argument(n) result(arg)
    integer, intent(in) :: n
    character(len=:), allocatable :: arg
    integer :: length
    call get_command_argument(n, length=length)
    allocate(character(len=length) :: arg)
    if (length > 0) call get_command_argument(n, arg)
  end function command_argument

  function run_dir_too_long(n) result(m)
    integer, intent(in) :: n
    character(len=200) :: m
    write(m, '(a,i0,a,i0,a)') 'the run folder name is ', n, ' characters long; at most ', max_path_len, &
      ' are allowed (the files in it must stay within PATH_MAX = 4096)'
  end function run_dir_too_long

  !> Where the outputs go: run_dir, or runs/<case name>. Checked here, at the
  !> start, so that no name is cut and no write fails after the solve.
  function run_folder(cs, case_path) result(dir)
    type(case_t), intent(in) :: cs
    character(len=*), intent(in) :: case_path
    character(len=:), allocatable :: dir
    dir = trim(cs%run_dir)
    if (len(dir) == 0) dir = 'runs/'//case_stem(case_path)
    if (len(dir) > max_path_len) call case_error(run_dir_too_long(len(dir)))
    if (index(dir, achar(0)) > 0 .or. index(dir, achar(10)) > 0) &
      call case_error('the run folder name holds a NUL or newline character')
  end function run_folder
end module case_config
