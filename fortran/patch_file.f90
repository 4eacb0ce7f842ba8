!> The boundary patches of a case (case key patch_file): a text file, one
!> patch a line,
!>
!>     FACE KIND [B1:B2 C1:C2] [NAME=VALUE ...]      ! or # starts a comment
!>
!> FACE is imin, imax, jmin, jmax, kmin or kmax; KIND one of the boundary
!> kinds (boundary_patches' patch_kind_name); the two ranges are the face's
!> cells in its first and second direction (for an i-face j and k, for a
!> j-face i and k, for a k-face i and j), the whole face when left out. The
!> values, all optional:
!>   lid       u= v= w=      the wall's velocity (default the case's lid_u, lid_v, lid_w)
!>   inflow    p0= t0=       total pressure and temperature over the free
!>                           stream's static ones (default the free stream's
!>                           own totals); the flow enters along the free stream
!>   outflow   p=            static pressure over the free stream's (default 1)
!> farfield and supersonic_inflow take the free stream itself: density 1,
!> speed 1 along the angles freestream_alpha (in the x-y plane, from x) and
!> freestream_beta (out of it), T = 1, p = 1/(gamma Mach^2), the solver's
!> units with the free-stream speed as the velocity unit.
!>
!> read_patch_file returns ok = .false. and a message naming the file, the
!> line and the word at the first problem, or at the first gap or overlap
!> of the faces (boundary_patches' build_face_maps).
module patch_file
  use kinds, only: rk
  use text_util, only: int_text, format_real
  use solver_params
  use boundary_patches
  use sys_interface, only: regular_file
  implicit none
  private
  public :: read_patch_file, patches_from_lines, freestream_state, has_open_patches, units_text, split_words

  integer, parameter :: max_line = 512

contains

  !> rho, u, v, w, p of the free stream (alpha, beta in degrees).
  pure function freestream_state(sp, alpha, beta) result(fs)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: alpha, beta
    real(rk) :: fs(5), a, b
    real(rk), parameter :: deg = 3.14159265358979323846_rk/180.0_rk
    a = alpha*deg
    b = beta*deg
    fs = [1.0_rk, cos(a)*cos(b), sin(a)*cos(b), sin(b), 1.0_rk/sp%gm2]
  end function freestream_state

  !> The run's units, for the header of its output: an external flow's
  !> (open patches) are the free stream's, a box's the lid's.
  function units_text(sp, external, alpha, beta) result(s)
    type(solver_params_t), intent(in) :: sp
    logical, intent(in) :: external
    real(rk), intent(in) :: alpha, beta
    character(len=:), allocatable :: s
    character(len=:), allocatable :: p_ref
    p_ref = 'p 1/(gamma Mach^2) = '//format_real(1.0_rk/sp%gm2, '(es10.4)')
    if (external) then
      s = 'the free stream (density 1, speed 1 along alpha '//format_real(alpha, '(f12.3)')//', beta '// &
        format_real(beta, '(f12.3)')//' degrees, T 1, '//p_ref//')'
    else
      s = 'the lid speed and the gas at rest (density 1, T 1, '//p_ref//')'
    end if
    s = 'units: '//s//'; lengths the grid''s, Re per unit length, pressure over rho U^2, '// &
      'coefficients over rho U^2/2'
  end function units_text

  !> Whether any patch lets flow in or out (the run then starts from the free
  !> stream, in its units); a grid without a patch file has none.
  pure logical function has_open_patches(ps)
    type(patch_set_t), intent(in) :: ps
    integer :: n
    has_open_patches = .false.
    if (.not. allocated(ps%p)) return
    do n = 1, size(ps%p)
      if (ps%p(n)%kind >= BC_FARFIELD) has_open_patches = .true.
    end do
  end function has_open_patches

  !> periodic(f): face f is one of a periodic pair of the case's bc_* keys;
  !> such a face gets a periodic patch here and takes none from the file.
  subroutine read_patch_file(path, sp, periodic, lid, alpha, beta, ni, nj, nk, ps, ok, msg)
    character(len=*), intent(in) :: path
    type(solver_params_t), intent(in) :: sp
    logical, intent(in) :: periodic(6)
    real(rk), intent(in) :: lid(3), alpha, beta
    integer, intent(in) :: ni, nj, nk
    type(patch_set_t), intent(out) :: ps
    logical, intent(out) :: ok
    character(len=:), allocatable, intent(out) :: msg
    character(len=max_line) :: line
    character(len=max_line), allocatable :: lines(:)
    character(len=:), allocatable :: origin
    character(len=512), allocatable :: wheres(:)
    integer :: u, ios, nline
    ok = .false.
    allocate(ps%p(0))
    if (.not. regular_file(path)) then
      msg = 'patch file "'//trim(path)//'" is missing or not a regular file'
      return
    end if
    open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) then
      msg = 'patch file "'//trim(path)//'" cannot be opened'
      return
    end if
    allocate(lines(0), wheres(0))
    origin = 'patch file "'//trim(path)//'"'
    nline = 0
    do
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      nline = nline + 1
      lines = [lines, line]
      wheres = [character(len=512) :: wheres, origin//', line '//int_text(nline)]
    end do
    close(u)
    call patches_from_lines(lines, wheres, origin, sp, periodic, lid, alpha, beta, ni, nj, nk, ps, ok, msg)
  end subroutine read_patch_file

  !> The patches of lines in the patch file's form, wheres(n) naming where
  !> line n comes from (a file's line, a CGNS file's boundary condition),
  !> origin the whole source for the messages about all of them.
  !> joined present (a block of a multi-block grid): the faces its
  !> interfaces join, which take no patch and need none.
  subroutine patches_from_lines(lines, wheres, origin, sp, periodic, lid, alpha, beta, ni, nj, nk, ps, ok, msg, joined, &
      partly)
    character(len=*), intent(in) :: lines(:), wheres(:), origin
    type(solver_params_t), intent(in) :: sp
    logical, intent(in) :: periodic(6)
    real(rk), intent(in) :: lid(3), alpha, beta
    integer, intent(in) :: ni, nj, nk
    type(patch_set_t), intent(out) :: ps
    logical, intent(out) :: ok
    character(len=:), allocatable, intent(out) :: msg
    logical, intent(in), optional :: joined(6)
    !> present: the faces an interface joins in part (the rest covered, fortran/block_split.f90)
    logical, intent(in), optional :: partly(6)
    character(len=64) :: w(12)
    integer :: nline, nw, m, nb, nc
    type(bc_patch_t) :: p
    real(rk) :: fs(5), m2
    character(len=:), allocatable :: where
    ok = .false.
    allocate(ps%p(0))
    fs = freestream_state(sp, alpha, beta)
    m2 = sp%gm2/sp%gamma   ! the free stream's Mach number squared: gm2 = gamma M^2
    do nline = 1, size(lines)
      where = trim(wheres(nline))
      call split_words(lines(nline), w, nw)
      if (nw == 0) cycle
      if (nw > size(w)) then
        msg = where//': more than '//int_text(size(w))//' words'
        return
      end if
      p = bc_patch_t()
      p%face = face_number(w(1))
      if (p%face == 0) then
        msg = where//': "'//trim(w(1))//'" is not a face (use imin, imax, jmin, jmax, kmin or kmax)'
        return
      end if
      if (periodic(p%face)) then
        msg = where//': face '//trim(w(1))//' is periodic (bc_'//trim(w(1))//' = ''periodic'' in the case file) '// &
          'and takes no patch'
        return
      end if
      p%kind = kind_code(w(2))
      if (p%kind == BC_PERIODIC) then
        msg = where//': periodic pairs are declared in the case file (bc_imin = ''periodic'', bc_imax = '// &
          '''periodic'', ...), not as patches'
        return
      end if
      if (p%kind < 0) then
        msg = where//': "'//trim(w(2))//'" is not a boundary kind (use wall, lid, slip, symmetry, '// &
          'farfield, inflow, outflow, supersonic_inflow or supersonic_outflow)'
        return
      end if
      call face_sizes(p%face, ni, nj, nk, nb, nc)
      p%lo = [1, 1]
      p%hi = [nb, nc]
      m = 3
      if (nw >= 4 .and. index(w(3), ':') > 0) then
        if (.not. (range_of(w(3), p%lo(1), p%hi(1)) .and. range_of(w(4), p%lo(2), p%hi(2)))) then
          msg = where//': "'//trim(w(3))//' '//trim(w(4))//'" are not two cell ranges A:B'
          return
        end if
        m = 5
      end if
      ! defaults by kind
      select case (p%kind)
      case (BC_LID)
        p%v(1:3) = lid
      case (BC_FARFIELD, BC_SUPERSONIC_INFLOW)
        p%v(1:5) = fs
      case (BC_INFLOW)
        p%v(1) = fs(5)*(1.0_rk + 0.5_rk*sp%gm1*m2)**sp%ggm1
        p%v(2) = 1.0_rk + 0.5_rk*sp%gm1*m2
        p%v(3:5) = fs(2:4)
      case (BC_OUTFLOW)
        p%v(1) = fs(5)
      end select
      do while (m <= nw)
        if (.not. set_value(p, w(m), fs(5))) then
          msg = where//': "'//trim(w(m))//'" is not a value '//article(patch_kind_name(p%kind))//' '// &
            patch_kind_name(p%kind)//' patch takes'// &
            trim(value_hint(p%kind))
          return
        end if
        m = m + 1
      end do
      ps%p = [ps%p, p]
    end do
    do m = 1, 6
      if (.not. periodic(m)) cycle
      call face_sizes(m, ni, nj, nk, nb, nc)
      p = bc_patch_t()
      p%kind = BC_PERIODIC
      p%face = m
      p%lo = [1, 1]
      p%hi = [nb, nc]
      ps%p = [ps%p, p]
    end do
    if (present(joined)) ps%joined = joined
    if (present(partly)) ps%partly = partly
    if (size(ps%p) == 0 .and. .not. present(joined)) then
      msg = origin//' names no patch'
      return
    end if
    call build_face_maps(ps, ni, nj, nk, ok, msg)
    if (.not. ok) msg = origin//': '//msg
  end subroutine patches_from_lines

  function value_hint(kind) result(s)
    integer, intent(in) :: kind
    character(len=:), allocatable :: s
    select case (kind)
    case (BC_LID); s = ' (u=, v=, w=)'
    case (BC_INFLOW); s = ' (p0=, t0=: over the free stream''s static pressure and temperature, p0 > 0, t0 > 0)'
    case (BC_OUTFLOW); s = ' (p=: over the free stream''s static pressure, p > 0)'
    case default; s = ' (it takes none)'
    end select
  end function value_hint

  !> NAME=VALUE into the patch's values; .false. for a name its kind does
  !> not take or a value that is not a number in range.
  logical function set_value(p, word, pinf)
    type(bc_patch_t), intent(inout) :: p
    character(len=*), intent(in) :: word
    real(rk), intent(in) :: pinf
    integer :: e, ios
    real(rk) :: x
    set_value = .false.
    e = index(word, '=')
    if (e < 2) return
    read(word(e+1:), *, iostat=ios) x
    if (ios /= 0 .or. .not. (abs(x) < 1.0e6_rk)) return
    select case (p%kind)
    case (BC_LID)
      select case (word(1:e-1))
      case ('u'); p%v(1) = x
      case ('v'); p%v(2) = x
      case ('w'); p%v(3) = x
      case default; return
      end select
    case (BC_INFLOW)
      if (x <= 0.0_rk) return
      select case (word(1:e-1))
      case ('p0'); p%v(1) = x*pinf
      case ('t0'); p%v(2) = x
      case default; return
      end select
    case (BC_OUTFLOW)
      if (x <= 0.0_rk .or. word(1:e-1) /= 'p') return
      p%v(1) = x*pinf
    case default
      return
    end select
    set_value = .true.
  end function set_value

  pure integer function face_number(word)
    character(len=*), intent(in) :: word
    integer :: f
    face_number = 0
    do f = 1, 6
      if (trim(word) == face_name(f)) face_number = f
    end do
  end function face_number

  integer function kind_code(word)
    character(len=*), intent(in) :: word
    integer :: k
    kind_code = -1
    do k = BC_WALL, BC_SUPERSONIC_OUTFLOW
      if (trim(word) == patch_kind_name(k)) kind_code = k
    end do
  end function kind_code

  logical function range_of(word, lo, hi)
    character(len=*), intent(in) :: word
    integer, intent(inout) :: lo, hi
    integer :: c, ios1, ios2
    c = index(word, ':')
    range_of = .false.
    if (c < 2 .or. c == len_trim(word)) return
    read(word(1:c-1), *, iostat=ios1) lo
    read(word(c+1:), *, iostat=ios2) hi
    range_of = ios1 == 0 .and. ios2 == 0 .and. verify(trim(word), '0123456789:') == 0
  end function range_of

  !> Blank-separated words of line before a comment (! or #), lower case.
  subroutine split_words(line, w, nw)
    character(len=*), intent(in) :: line
    character(len=*), intent(out) :: w(:)
    integer, intent(out) :: nw
    integer :: i, n, s, c
    character(len=len(line)) :: t
    t = line
    c = scan(t, '!#')
    if (c > 0) t(c:) = ' '
    do i = 1, len_trim(t)
      if (t(i:i) >= 'A' .and. t(i:i) <= 'Z') t(i:i) = achar(iachar(t(i:i)) + 32)
      if (t(i:i) == achar(9) .or. t(i:i) == ',') t(i:i) = ' '
    end do
    nw = 0
    n = len_trim(t)
    i = 1
    do while (i <= n)
      if (t(i:i) == ' ') then
        i = i + 1
        cycle
      end if
      s = i
      do while (i <= n)
        if (t(i:i) == ' ') exit
        i = i + 1
      end do
      nw = nw + 1
      if (nw <= size(w)) w(nw) = t(s:i-1)
    end do
  end subroutine split_words


  !> "an" before a vowel (an inflow, an outflow patch), else "a".
  pure function article(word) result(a)
    character(len=*), intent(in) :: word
    character(len=:), allocatable :: a
    a = merge('an', 'a ', scan(word(1:1), 'aeiou') > 0)
    a = trim(a)
  end function article
end module patch_file
