!> The case file: its namelist groups, their defaults, their checks.
!>
!> Every key is a row of its group's list in fortran/case_keys/ (type,
!> default, range or choices); the preprocessor makes the members of
!> case_t, the namelist, its copies, the checks and the scanner's key list
!> from those rows (the .inc files there). Every key is checked before anything
!> big is allocated; a bad value stops the run with the key, the value and
!> what is allowed (exit code 2).
module case_config
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_size_t, c_null_char
  use kinds, only: rk, ik8
  use grid_layout, only: layout_t
  use solver_params
  use gpu_settings, only: gpu_settings_t
  use sys_interface, only: c_string, from_c
  implicit none
  private
  public :: case_t, gpu_keys_t, read_case, apply_overrides, validate_case, make_solver_params, make_gpu_settings
  public :: case_error, io_error, bc_code, lower, cfl_at, case_stem, extra_option
  public :: command_argument, run_folder, max_path_len, implicit_text, scheme_text
  public :: input_error_handler, case_error_handler
  public :: case_group_text, int_option, real_text
  ! what the other groups' modules expand their key lists with (fortran/case_keys/)
  public :: group_keys, check_int, check_real, check_choice, as_is, incl, excl, one_of, either

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

  !> The key lists' words (fortran/case_keys/adiflow.def): whether a real's
  !> lower bound is allowed (incl) or not (excl), and how a wrong choice's
  !> message lists the choices, "use one of: a b c" or "use a, b or c".
  logical, parameter :: incl = .false., excl = .true.
  integer, parameter :: one_of = 1, either = 2

  !> A &gpu key into its member of gpu_settings_t (make_gpu_settings).
  interface to_c
    module procedure int_to_c, flag_to_c
  end interface to_c

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

  !> The &gpu group (fortran/case_keys/gpu.def): how the GPU runs, never what
  !> it computes; make_gpu_settings hands it to the backend.
  type :: gpu_keys_t
#define KEY_ROWS "case_keys/gpu.def"
#include "case_keys/members.inc"
#undef KEY_ROWS
  end type gpu_keys_t

  !> The case: every key of the &adiflow group (fortran/case_keys/adiflow.def)
  !> and of the &gpu group, and what the command line adds.
  type :: case_t
    character(len=max_path_len) :: case_file = ''
#define KEY_ROWS "case_keys/adiflow.def"
#include "case_keys/members.inc"
#undef KEY_ROWS
    !> --accept-old-restart (command line only): read restart files of format
    !> versions 1 and 2, which this build no longer writes (see
    !> include/field_format.h for what each leaves unprotected)
    logical :: accept_old_restart = .false.
    type(gpu_keys_t) :: gpu
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
    integer :: ios
    character(len=512) :: msg
    character(kind=c_char, len=1024) :: why

    ! the text first: types, repeated keys and groups, lengths, special files
    why = c_null_char
    if (adi_case_scan(c_string(path), c_string(case_spec()), why, int(len(why), c_size_t)) /= 0) &
      call case_error(from_c(why))

    ! the namelist reader gets each group's text as the scan saw it, never
    ! the file: a "&adiflow" in a note or a quoted value cannot become the
    ! group it reads (case_group_text)
    call read_adiflow_group(path, cs, ios, msg)
    ! &gpu is optional: without it the defaults hold
    if (ios == 0) call read_gpu_group(path, cs%gpu, ios, msg)
    if (ios < 0) call case_error('case file "'//trim(path)// &
      '" has no &adiflow namelist group (it must start with "&adiflow" and end with "/")')
    if (ios > 0) call case_error('case file "'//trim(path)//'": '//trim(msg)// &
      ' (check the key names and values against README.md, "Case file reference")')
    cs%case_file = path
  end subroutine read_case

  !> The &adiflow group into cs; ios < 0 when the file has none.
  subroutine read_adiflow_group(path, cs, ios, msg)
    character(len=*), intent(in) :: path
    type(case_t), intent(inout) :: cs
    integer, intent(out) :: ios
    character(len=*), intent(inout) :: msg
    character(len=:), allocatable :: text
#define KEY_ROWS "case_keys/adiflow.def"
#define KEY_GROUP adiflow
#define KEY_OF cs
#include "case_keys/namelist_vars.inc"
#include "case_keys/namelist_in.inc"
    text = case_group_text(path, 'adiflow')
    ios = -1
    if (len(text) > 0) read(text, nml=adiflow, iostat=ios, iomsg=msg)
    if (ios /= 0) return
#include "case_keys/namelist_out.inc"
#undef KEY_ROWS
#undef KEY_GROUP
#undef KEY_OF
  end subroutine read_adiflow_group

  !> The optional &gpu group into gk; ios = 0 also when the file has none.
  subroutine read_gpu_group(path, gk, ios, msg)
    character(len=*), intent(in) :: path
    type(gpu_keys_t), intent(inout) :: gk
    integer, intent(out) :: ios
    character(len=*), intent(inout) :: msg
    character(len=:), allocatable :: text
#define KEY_ROWS "case_keys/gpu.def"
#define KEY_GROUP gpu
#define KEY_OF gk
#include "case_keys/namelist_vars.inc"
#include "case_keys/namelist_in.inc"
    text = case_group_text(path, 'gpu')
    ios = 0
    if (len(text) > 0) read(text, nml=gpu, iostat=ios, iomsg=msg)
    if (ios /= 0) return
#include "case_keys/namelist_out.inc"
#undef KEY_ROWS
#undef KEY_GROUP
#undef KEY_OF
  end subroutine read_gpu_group

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
    if (adi_case_group(c_string(path), c_string(case_spec()), c_string(group), text, int(len(text), c_size_t), used, &
        why, int(len(why), c_size_t)) /= 0) call case_error(from_c(why))
    text = text(1:int(used))
  end function case_group_text

  !> Every key of the case file with its type, for the text check that runs
  !> before the namelist read (fortran/case_scan.c): "adiflow:title=s80,
  !> ni=i,...;parallel:npj=i,...", i integer, r real, l logical, sN text of
  !> at most N characters, from the groups' key lists (fortran/case_keys/).
  !> &adiflow comes first: the scanner requires it. The &parallel group is
  !> read by adiflow_mpi (fortran/parallel_config.f90); build/adiflow accepts
  !> and ignores it, so one case file serves both drivers.
  function case_spec() result(spec)
    character(len=:), allocatable :: spec
#define KEY_INT(name, default, lo, hi, why) call add_key(spec, 'name', 'i')
#define KEY_REAL(name, default, lo, hi, bound, why) call add_key(spec, 'name', 'r')
#define KEY_FLAG(name, default) call add_key(spec, 'name', 'l')
#define KEY_TEXT(name, length, default, normalize) call add_key(spec, 'name', text_type(length))
#define KEY_CHOICE(name, length, default, normalize, choices, style) call add_key(spec, 'name', text_type(length))
    spec = 'adiflow:'
#include "case_keys/adiflow.def"
    spec = spec//';parallel:'
#include "case_keys/parallel.def"
    spec = spec//';gpu:'
#include "case_keys/gpu.def"
    spec = spec//';multigrid:'
#include "case_keys/multigrid.def"
#include "case_keys/undef_rows.inc"
  contains
    subroutine add_key(spec, name, code)
      character(len=:), allocatable, intent(inout) :: spec
      character(len=*), intent(in) :: name, code
      if (spec(len(spec):len(spec)) /= ':') spec = spec//','
      spec = spec//trim(adjustl(name))//'='//code
    end subroutine add_key

    function text_type(length) result(t)
      integer, intent(in) :: length
      character(len=:), allocatable :: t
      character(len=16) :: b
      write(b, '(a,i0)') 's', length
      t = trim(b)
    end function text_type
  end function case_spec

  !> The keys of one group of the case file, for messages: "levels, cycle, ...".
  function group_keys(group) result(keys)
    character(len=*), intent(in) :: group
    character(len=:), allocatable :: keys, rest
    integer :: a, e
    rest = ';'//case_spec()//';'
    keys = ''
    a = index(rest, ';'//group//':')
    if (a == 0) return
    rest = rest(a + len(group) + 2:)
    rest = rest(1:index(rest, ';') - 1)//','
    do while (len(rest) > 0)
      e = index(rest, ',')
      if (len(keys) > 0) keys = keys//', '
      keys = keys//rest(1:index(rest(1:e), '=') - 1)
      rest = rest(e + 1:)
    end do
  end function group_keys

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

  !> lo <= v <= hi, or v >= lo where hi is huge(hi); why, if not '', says
  !> what the range means. The message states exactly the range checked.
  subroutine check_int(key, v, lo, hi, why)
    character(len=*), intent(in) :: key, why
    integer, intent(in) :: v, lo, hi
    character(len=:), allocatable :: m
    character(len=16) :: tv, tlo, thi
    if (v >= lo .and. v <= hi) return
    write(tv, '(i0)') v
    write(tlo, '(i0)') lo
    write(thi, '(i0)') hi
    if (hi == huge(hi)) then
      m = trim(adjustl(key))//' = '//trim(tv)//' is out of range: must be >= '//trim(tlo)
    else
      m = trim(adjustl(key))//' = '//trim(tv)//' is out of range: allowed '//trim(tlo)//' to '//trim(thi)
    end if
    if (len(why) > 0) m = m//' ('//why//')'
    call case_error(m)
  end subroutine check_int

  !> lo <= v <= hi, or lo < v <= hi with lo_open (excl); why, if not '',
  !> says what the bound means. The message states exactly the range checked.
  subroutine check_real(key, v, lo, hi, lo_open, why)
    character(len=*), intent(in) :: key, why
    real(rk), intent(in) :: v, lo, hi
    logical, intent(in) :: lo_open
    character(len=:), allocatable :: m
    logical :: bad
    bad = .not. (v <= hi) .or. v < lo .or. (lo_open .and. v == lo)
    if (.not. bad) return
    if (lo_open) then
      m = trim(adjustl(key))//' = '//real_text(v)//' is out of range: must be > '//real_text(lo)//' and <= '// &
        real_text(hi)
    else
      m = trim(adjustl(key))//' = '//real_text(v)//' is out of range: allowed '//real_text(lo)//' to '//real_text(hi)
    end if
    if (len(why) > 0) m = m//' ('//why//')'
    call case_error(m)
  end subroutine check_real

  !> v is one of the blank-separated words of allowed (a value with a blank
  !> in it never is). The message lists them as style says: one_of ("use
  !> one of: a b c") or either ("use a, b or c").
  subroutine check_choice(key, v, allowed, style)
    character(len=*), intent(in) :: key, v, allowed
    integer, intent(in) :: style
    character(len=:), allocatable :: listed, rest
    integer :: b
    if (len_trim(v) > 0 .and. index(trim(v), ' ') == 0 .and. index(' '//allowed//' ', ' '//trim(v)//' ') > 0) return
    if (style == either) then
      rest = trim(adjustl(allowed))
      listed = ''
      do
        b = index(rest, ' ')
        if (b == 0) exit
        if (len(listed) > 0) listed = listed//', '
        listed = listed//rest(1:b-1)
        rest = trim(adjustl(rest(b+1:)))
      end do
      if (len(listed) > 0) listed = listed//' or '
      listed = listed//rest
    else
      listed = 'one of: '//allowed
    end if
    call case_error(trim(adjustl(key))//' = "'//trim(v)//'" is not allowed (use '//listed//')')
  end subroutine check_choice

  !> A text key's value as it was written (the normalize of a key list's row
  !> that keeps case: a title, a path).
  pure function as_is(s) result(t)
    character(len=*), intent(in) :: s
    character(len=len(s)) :: t
    t = s
  end function as_is

  !> All range checks; nothing has been allocated yet when this runs.
  subroutine validate_case(cs)
    type(case_t), intent(in) :: cs
    integer :: codes(6), d, nd(3)
    character(len=4), parameter :: dname(3) = ['i   ', 'j   ', 'k   ']
    character(len=2), parameter :: nname(3) = ['ni', 'nj', 'nk']
    character(len=160) :: m

    ! each key alone, in the order of its list
#define KEY_ROWS "case_keys/adiflow.def"
#define KEY_OF cs
#define KEY_LABEL ''
#include "case_keys/checks.inc"
#undef KEY_ROWS
#undef KEY_OF
#undef KEY_LABEL
#define KEY_ROWS "case_keys/gpu.def"
#define KEY_OF cs%gpu
#define KEY_LABEL ' (&gpu)'
#include "case_keys/checks.inc"
#undef KEY_ROWS
#undef KEY_OF
#undef KEY_LABEL

    ! then the boundaries together: periodic faces in pairs, at least 2
    ! cells between walls
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
    if (cs%precondition == 'turkel' .and. cs%roe_low_mach == 'none') &
      call case_error("precondition = 'turkel' needs roe_low_mach = 'rieper': plain Roe's acoustic dissipation "// &
        "(of the order of the sound speed) is far beyond what the preconditioned implicit operator holds, "// &
        "and the iteration diverges")
    if (cs%precondition == 'turkel' .and. cs%implicit_precision == 'single') &
      call case_error("precondition = 'turkel' runs with implicit_precision = 'double' only "// &
        "(the preconditioned operator has no single-precision form yet)")
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
    sp%precondition = merge(PRECOND_TURKEL, PRECOND_NONE, cs%precondition == 'turkel')
    sp%pc_eps_min = min(1.0_rk, (cs%precondition_k*cs%mach)**2)
    sp%pc_lam_floor = cs%precondition_floor
    sp%bc(1) = bc_code('bc_imin', cs%bc_imin); sp%bc(2) = bc_code('bc_imax', cs%bc_imax)
    sp%bc(3) = bc_code('bc_jmin', cs%bc_jmin); sp%bc(4) = bc_code('bc_jmax', cs%bc_jmax)
    sp%bc(5) = bc_code('bc_kmin', cs%bc_kmin); sp%bc(6) = bc_code('bc_kmax', cs%bc_kmax)
    sp%ni = lay%ni; sp%nj = lay%nj; sp%nk = lay%nk
    sp%ldi = lay%ldi; sp%ldj = lay%ldj; sp%ldk = lay%ldk
    ! from the whole grid's sizes, so that every MPI block and every
    ! multigrid level limits with the same threshold
    sp%lim_eps2 = (cs%limiter_k/real(max(cs%ni, cs%nj, cs%nk), rk))**3
  end function make_solver_params

  !> The &gpu keys as the GPU backend reads them (include/adiflow_gpu_settings.def):
  !> each member from the key of its name, a logical as 0 or 1.
  function make_gpu_settings(cs) result(g)
    type(case_t), intent(in) :: cs
    type(gpu_settings_t) :: g
#define ADI_GPU_SIZE(name, value)
#define ADI_GPU_INT(name, init) call to_c(cs%gpu%name, g%name)
#define ADI_GPU_TEXT(name, size) call text_to_c(trim(cs%gpu%name), g%name)
#include "adiflow_gpu_settings.def"
#undef ADI_GPU_SIZE
#undef ADI_GPU_INT
#undef ADI_GPU_TEXT
  end function make_gpu_settings

  !> A &gpu key as an int member of gpu_settings_t.
  subroutine int_to_c(v, c)
    integer, intent(in) :: v
    integer(c_int), intent(out) :: c
    c = int(v, c_int)
  end subroutine int_to_c

  subroutine flag_to_c(v, c)
    logical, intent(in) :: v
    integer(c_int), intent(out) :: c
    c = merge(1_c_int, 0_c_int, v)
  end subroutine flag_to_c

  !> s, NUL-terminated, cut to what buf holds.
  subroutine text_to_c(s, buf)
    character(len=*), intent(in) :: s
    character(kind=c_char), intent(out) :: buf(:)
    integer :: i
    buf = c_null_char
    do i = 1, min(len(s), size(buf) - 1)
      buf(i) = s(i:i)
    end do
  end subroutine text_to_c

  !> The convective scheme (order, limiter, low-Mach fix), for the run header.
  function scheme_text(cs) result(t)
    type(case_t), intent(in) :: cs
    character(len=160) :: t
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
    if (cs%precondition == 'turkel') then
      t = trim(t)//', precondition turkel (K = '//real_text(cs%precondition_k)//', floor '// &
        real_text(cs%precondition_floor)//')'
    end if
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
