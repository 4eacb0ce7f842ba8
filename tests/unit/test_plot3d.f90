!> The Plot3D grid reader (fortran/plot3d_file.c, fortran/grid_file.f90):
!> - it returns exactly the coordinates written, for every variant
!>   build/make_grid writes (text, Fortran unformatted with 4- and 8-byte
!>   markers and subrecords, raw; single and double; both byte orders; with
!>   and without the block count; 2D and 3D), checked against a plain stream
!>   read of the raw file;
!> - files gfortran's own I/O writes (sequential, stream, list-directed) read
!>   the same, and make_grid's binary files are byte for byte gfortran's;
!> - files Debian's CGNS tools write (plot3d_to_cgns, cgns_to_plot3d) read
!>   the same (when the tools are installed: scripts/install_deps.sh test);
!> - the options (flip, span, need_3d) and refusals come back as status 2
!>   with a sentence, never a stop;
!> - free-stream preservation on the three validation grids (flat plate,
!>   channel, cylinder O-grid): every cell closed to round-off, a uniform
!>   stream gives a zero residual and stays uniform through LU-ADI steps.
!> Needs build/make_grid (make builds it); writes in a scratch folder that
!> it removes.
program test_plot3d
  use, intrinsic :: iso_c_binding, only: c_char, c_null_char, c_ptr, c_associated
  use, intrinsic :: iso_fortran_env, only: real32, real64, int32, int8
  use kinds, only: rk, ng
  use text_util, only: int_text, format_real
  use grid_file
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use metrics, only: compute_metrics
  use solver_cpu, only: cpu_compute_residual, cpu_iteration
  use test_util
  implicit none

  interface
    type(c_ptr) function mkdtemp(template) bind(c, name='mkdtemp')
      import :: c_ptr, c_char
      character(kind=c_char) :: template(*)
    end function
  end interface

  character(len=*), parameter :: mg = 'build/make_grid'
  character(len=:), allocatable :: dir

  dir = scratch_dir()
  call against_stream_read()
  call variant_matrix('box', '--ni 6 --nj 5 --nk 4')
  call variant_matrix('cylinder', '--ni 12 --nj 6')
  call variant_matrix('plate', '--ni-run 4 --ni-plate 8 --nj 6 --dims 3')
  call gfortran_files()
  call options_and_refusals()
  call freestream('plate', '--ni-run 12 --ni-plate 36 --nj 24', .false.)
  call freestream('channel', '--ni 32 --nj 16', .false.)
  call freestream('cylinder', '--ni 48 --nj 32 --farfield 50', .true.)
  call cgns_round_trip()
  call execute_command_line('rm -rf '//dir)
  call test_summary()

contains

  function scratch_dir() result(d)
    character(len=:), allocatable :: d
    character(kind=c_char) :: t(300)
    character(len=256) :: base
    integer :: n, st
    call get_environment_variable('TMPDIR', base, n, st)
    if (st /= 0 .or. n == 0) base = '/tmp'
    d = trim(base)//'/adiflow-plot3d.XXXXXX'
    t(1:len(d)) = transfer(d, t(1:len(d)))
    t(len(d) + 1) = c_null_char
    if (.not. c_associated(mkdtemp(t))) error stop 'test_plot3d: cannot make a scratch folder'
    d = transfer(t(1:len(d)), d)
  end function scratch_dir

  logical function sh(cmd)
    character(len=*), intent(in) :: cmd
    integer :: e, c
    call execute_command_line(cmd, exitstat=e, cmdstat=c)
    sh = c == 0 .and. e == 0
  end function sh

  !> make_grid SHAPE ARGS -o dir/NAME, quietly
  logical function make(shape, args, name)
    character(len=*), intent(in) :: shape, args, name
    make = sh(mg//' '//shape//' '//args//' -o '//dir//'/'//name//' > /dev/null')
  end function make

  !> The grid of file NAME, or a failed check naming why.
  logical function read_ok(name, xn, info, opts)
    character(len=*), intent(in) :: name
    real(rk), allocatable, intent(out) :: xn(:,:,:,:)
    type(grid_file_info_t), intent(out) :: info
    type(grid_read_options_t), intent(in), optional :: opts
    type(grid_read_options_t) :: o
    character(len=:), allocatable :: msg
    integer :: status
    if (present(opts)) o = opts
    call read_grid_file(dir//'/'//name, o, xn, info, status, msg)
    read_ok = status == GRID_OK
    if (.not. read_ok) write(*, '(a)') '  '//msg
  end function read_ok

  !> The reader on a raw file against a plain Fortran stream read of it.
  subroutine against_stream_read()
    real(rk), allocatable :: xn(:,:,:,:)
    real(real64), allocatable :: a(:,:,:,:)
    type(grid_file_info_t) :: info
    integer(int32) :: n(3)
    integer :: u, i, j, k, c
    logical :: same
    if (.not. make('box', '--ni 6 --nj 5 --nk 4 --format raw --count no', 'sr.x')) error stop 'make_grid failed'
    open(newunit=u, file=dir//'/sr.x', access='stream', form='unformatted', status='old')
    read(u) n
    allocate(a(n(1), n(2), n(3), 3))
    read(u) a
    close(u)
    same = read_ok('sr.x', xn, info)
    if (same) same = info%ni == n(1) - 1 .and. info%nj == n(2) - 1 .and. info%nk == n(3) - 1
    do c = 1, 3
      do k = 1, n(3)
        do j = 1, n(2)
          do i = 1, n(1)
            if (same) same = xn(c, i-1, j-1, k-1) == a(i, j, k, c)
          end do
        end do
      end do
    end do
    call check(same, 'raw double 7x6x5: the reader''s nodes are those of a plain stream read, bit for bit')
  end subroutine against_stream_read

  !> Every format variant of one shape against its raw double file.
  subroutine variant_matrix(shape, sizes)
    character(len=*), intent(in) :: shape, sizes
    real(rk), allocatable :: ref(:,:,:,:), xn(:,:,:,:)
    type(grid_file_info_t) :: info
    character(len=:), allocatable :: args, bad_list
    character(len=16), parameter :: fmts(3) = [character(len=16) :: 'text', 'unformatted', 'raw']
    character(len=8), parameter :: precs(2) = [character(len=8) :: 'single', 'double'], ends(2) = ['little', 'big   '], &
      counts(2) = ['yes', 'no ']
    character(len=40), parameter :: extras(4) = [character(len=40) :: '--markers 4', '--markers 8', &
      '--markers 4 --subrecord 7', '--markers 8 --subrecord 64']
    integer :: f, p, e, c, x, nread, nx
    logical :: ok

    if (.not. (make(shape, sizes//' --format raw --count no', 'ref.x') .and. read_ok('ref.x', ref, info))) then
      call check(.false., shape//': the reference file reads')
      return
    end if
    bad_list = ''
    nread = 0
    do f = 1, 3
      do p = 1, 2
        do e = 1, merge(1, 2, f == 1)
          do c = 1, 2
            nx = merge(4, 1, f == 2)
            do x = 1, nx
              args = sizes//' --format '//trim(fmts(f))//' --precision '//trim(precs(p))//' --endian '// &
                trim(ends(e))//' --count '//trim(counts(c))
              if (f == 2) args = args//' '//trim(extras(x))
              ok = make(shape, args, 'v.x')
              if (ok) ok = read_ok('v.x', xn, info)
              if (ok) ok = same_nodes(xn, ref, p == 1, f == 1)
              if (.not. ok) bad_list = bad_list//' ['//args//']'
              nread = nread + 1
            end do
          end do
        end do
      end do
    end do
    call check(len(bad_list) == 0, shape//': '//int_text(nread)//' variants (text/unformatted/raw, single/double, '// &
      'little/big, count or not, 4/8-byte markers, subrecords) read the coordinates written'//bad_list)
  end subroutine variant_matrix

  !> xn holds ref's nodes, bit for bit. Single precision: ref rounded to
  !> single; from text (decimal digits that name a single value, read as the
  !> nearest double), the same in single precision.
  logical function same_nodes(xn, ref, single, text)
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), ref(:,-ng:,-ng:,-ng:)
    logical, intent(in) :: single
    logical, intent(in), optional :: text
    integer :: n(3)
    logical :: from_text
    from_text = .false.
    if (present(text)) from_text = text
    n = [ubound(ref, 2), ubound(ref, 3), ubound(ref, 4)] - ng
    same_nodes = all(shape(xn) == shape(ref))
    if (.not. same_nodes) return
    if (single .and. from_text) then
      same_nodes = all(real(xn(:, 0:n(1), 0:n(2), 0:n(3)), real32) == real(ref(:, 0:n(1), 0:n(2), 0:n(3)), real32))
    else if (single) then
      same_nodes = all(xn(:, 0:n(1), 0:n(2), 0:n(3)) == real(real(ref(:, 0:n(1), 0:n(2), 0:n(3)), real32), rk))
    else
      same_nodes = all(xn(:, 0:n(1), 0:n(2), 0:n(3)) == ref(:, 0:n(1), 0:n(2), 0:n(3)))
    end if
  end function same_nodes

  !> Files written by gfortran's own I/O, from the box's coordinates.
  subroutine gfortran_files()
    real(rk), allocatable :: ref(:,:,:,:), xn(:,:,:,:)
    real(real64), allocatable :: a(:,:,:,:)
    type(grid_file_info_t) :: info
    integer(int32) :: n(3)
    integer :: u, v, c, p
    character(len=:), allocatable :: bad_list, name
    logical :: ok

    if (.not. (make('box', '--ni 6 --nj 5 --nk 4 --format raw --count no', 'g_ref.x') .and. &
               read_ok('g_ref.x', ref, info))) then
      call check(.false., 'gfortran files: the reference reads')
      return
    end if
    open(newunit=u, file=dir//'/g_ref.x', access='stream', form='unformatted', status='old')
    read(u) n
    allocate(a(n(1), n(2), n(3), 3))
    read(u) a
    close(u)

    bad_list = ''
    do v = 1, 3          ! sequential, stream, list-directed
      do c = 0, 1        ! block count or not
        do p = 1, 2      ! single, double
          name = 'g'//int_text(v)//int_text(c)//int_text(p)//'.x'
          call write_gfortran(dir//'/'//name, v, c == 1, p == 1, a, n)
          ok = read_ok(name, xn, info)
          if (ok) ok = same_nodes(xn, ref, p == 1, v == 3)
          if (.not. ok) bad_list = bad_list//' '//name
        end do
      end do
    end do
    call check(len(bad_list) == 0, 'gfortran-written files (sequential, stream, list-directed; count or not; '// &
      'single and double) read the coordinates written'//bad_list)

    ! make_grid's binary files are gfortran's, byte for byte
    ok = make('box', '--ni 6 --nj 5 --nk 4 --format unformatted --precision double --count yes', 'm_seq.x') .and. &
         make('box', '--ni 6 --nj 5 --nk 4 --format unformatted --precision single --count no', 'm_seq_s.x') .and. &
         make('box', '--ni 6 --nj 5 --nk 4 --format raw --precision double --count yes', 'm_raw.x')
    ok = ok .and. same_bytes('m_seq.x', 'g112.x') .and. same_bytes('m_seq_s.x', 'g101.x') .and. &
         same_bytes('m_raw.x', 'g212.x')
    call check(ok, 'make_grid''s unformatted and raw files are byte for byte those gfortran writes')

    ! a 3D file of one k-plane of constant z: a 2D grid at that z
    open(newunit=u, file=dir//'/plane.x', form='unformatted', access='sequential', status='replace')
    write(u) n(1), n(2), 1_int32
    write(u) a(:, :, 1, 1), a(:, :, 1, 2), spread(spread(0.25_real64, 1, n(1)), 2, n(2))
    close(u)
    ok = read_ok('plane.x', xn, info)
    if (ok) ok = info%planar .and. info%nk == 1 .and. all(xn(3, 0:n(1)-1, 0:n(2)-1, 0) == 0.25_rk) .and. &
      all(xn(3, 0:n(1)-1, 0:n(2)-1, 1) == 1.25_rk) .and. all(xn(1:2, 0:n(1)-1, 0:n(2)-1, 1) == xn(1:2, 0:n(1)-1, 0:n(2)-1, 0))
    call check(ok, 'a 3D file of one k-plane at z = 0.25 reads as a 2D grid from z = 0.25 to 1.25 (span 1)')
    open(newunit=u, file=dir//'/tilted.x', form='unformatted', access='sequential', status='replace')
    write(u) n(1), n(2), 1_int32
    write(u) a(:, :, 2, 1), a(:, :, 2, 2), a(:, :, 2, 3)   ! the box's k = 2 plane is curved
    close(u)
    call expect_refusal('tilted.x', grid_read_options_t(), 'is not a plane of constant z', &
      'a 3D file of one k-plane that is not a plane z = constant is refused')
  end subroutine gfortran_files

  !> v: 1 sequential unformatted, 2 stream, 3 list-directed
  subroutine write_gfortran(path, v, with_count, single, a, n)
    character(len=*), intent(in) :: path
    integer, intent(in) :: v
    logical, intent(in) :: with_count, single
    real(real64), intent(in) :: a(:,:,:,:)
    integer(int32), intent(in) :: n(3)
    integer :: u
    select case (v)
    case (1)
      open(newunit=u, file=path, form='unformatted', access='sequential', status='replace')
      if (with_count) write(u) 1_int32
      write(u) n
      if (single) then
        write(u) real(a, real32)
      else
        write(u) a
      end if
    case (2)
      open(newunit=u, file=path, form='unformatted', access='stream', status='replace')
      if (with_count) write(u) 1_int32
      write(u) n
      if (single) then
        write(u) real(a, real32)
      else
        write(u) a
      end if
    case default
      open(newunit=u, file=path, form='formatted', status='replace')
      if (with_count) write(u, *) 1
      write(u, *) n
      if (single) then
        write(u, *) real(a, real32)
      else
        write(u, *) a
      end if
    end select
    close(u)
  end subroutine write_gfortran

  logical function same_bytes(f1, f2)
    character(len=*), intent(in) :: f1, f2
    integer(int8), allocatable :: b1(:), b2(:)
    call slurp(dir//'/'//f1, b1)
    call slurp(dir//'/'//f2, b2)
    same_bytes = size(b1) == size(b2)
    if (same_bytes) same_bytes = all(b1 == b2)
  end function same_bytes

  subroutine slurp(path, b)
    character(len=*), intent(in) :: path
    integer(int8), allocatable, intent(out) :: b(:)
    integer :: u, sz
    open(newunit=u, file=path, access='stream', form='unformatted', status='old')
    inquire(unit=u, size=sz)
    allocate(b(sz))
    read(u) b
    close(u)
  end subroutine slurp

  subroutine expect_refusal(name, opts, part, what)
    character(len=*), intent(in) :: name, part, what
    type(grid_read_options_t), intent(in) :: opts
    real(rk), allocatable :: xn(:,:,:,:)
    type(grid_file_info_t) :: info
    character(len=:), allocatable :: msg
    integer :: status
    call read_grid_file(dir//'/'//name, opts, xn, info, status, msg)
    call check(status == GRID_BAD_INPUT .and. index(msg, part) > 0 .and. index(msg, name) > 0 .and. &
      .not. allocated(xn), what//' (status 2, "'//part//'")')
    if (status /= GRID_BAD_INPUT .or. index(msg, part) == 0) write(*, '(a)') '  got: '//msg
  end subroutine expect_refusal

  subroutine options_and_refusals()
    real(rk), allocatable :: ref(:,:,:,:), xn(:,:,:,:)
    type(grid_file_info_t) :: info
    type(grid_read_options_t) :: o
    character(len=:), allocatable :: msg
    integer :: status
    logical :: ok

    ok = make('cylinder', '--ni 12 --nj 6', 'o_cyl.x') .and. make('cylinder', '--ni 12 --nj 6 --flip i', 'o_cylf.x') &
      .and. make('box', '--ni 6 --nj 5 --nk 4', 'o_box.x') .and. make('box', '--ni 6 --nj 5 --nk 4 --flip k', 'o_boxf.x') &
      .and. make('box', '--ni 6 --nj 5 --nk 4 --blocks 3', 'o_b3.x') .and. make('box', '--iblank --format raw', 'o_ib.x')
    call check(ok, 'make_grid writes the option test files')

    call probe_grid_file(dir//'/o_cyl.x', o, info, status, msg)
    call check(status == GRID_OK .and. info%ni == 12 .and. info%nj == 6 .and. info%nk == 1 .and. info%planar, &
      'probe: a 13 x 7 node 2D file is 12 x 6 x 1 cells, quasi-2D, from its header alone')
    call expect_refusal('o_cylf.x', o, 'runs clockwise', 'a clockwise 2D grid (every volume negative) names the fix')
    call expect_refusal('o_boxf.x', o, 'left-handed', 'a left-handed 3D grid names the fix')
    ok = read_ok('o_cyl.x', ref, info)
    o%flip = [.true., .false., .false.]
    ok = ok .and. read_ok('o_cylf.x', xn, info, o)
    call check(ok .and. same_nodes(xn, ref, .false.), 'flip i turns the clockwise grid into the original, bit for bit')
    ok = read_ok('o_box.x', ref, info)
    o%flip = [.false., .false., .true.]
    ok = ok .and. read_ok('o_boxf.x', xn, info, o)
    call check(ok .and. same_nodes(xn, ref, .false.), 'flip k turns the left-handed box into the original, bit for bit')
    o = grid_read_options_t()
    o%flip(3) = .true.
    call expect_refusal('o_cyl.x', o, 'no k direction', 'flip k of a 2D grid is refused')
    o = grid_read_options_t()
    o%need_3d = .true.
    call expect_refusal('o_cyl.x', o, 'is a 2D grid (x, y only), but this case needs a 3D grid', &
      'a 2D grid where a 3D one is needed')
    o = grid_read_options_t()
    o%span = 0.01_rk
    ok = read_ok('o_cyl.x', xn, info, o)
    call check(ok .and. all(xn(3, 0:12, 0:6, 0) == 0.0_rk) .and. all(xn(3, 0:12, 0:6, 1) == 0.01_rk), &
      'span 0.01: the 2D grid is made one cell of 0.01 thick')
    o = grid_read_options_t()
    call expect_refusal('o_b3.x', o, '(3 blocks): block 1, face i=1, nodes j 1..6, k 1..5 is claimed twice', &
      'a file of 3 blocks (the same block 3 times) names the count and the faces met twice')
    call expect_refusal('o_ib.x', o, 'IBLANK', 'a file with IBLANK is refused')
    call expect_refusal('none.x', o, 'does not exist', 'a missing file')
  end subroutine options_and_refusals

  !> A uniform stream on a validation grid: closed cells, zero residual,
  !> still uniform after 5 LU-ADI steps. The solver's boundaries are all
  !> periodic here so that every ghost cell holds the same state: what is
  !> tested is the metrics of every cell of the grid, the stretched and
  !> the O-grid's cut included.
  subroutine freestream(shape, sizes, closed_i)
    character(len=*), intent(in) :: shape, sizes
    logical, intent(in) :: closed_i
    real(rk), allocatable :: xn(:,:,:,:), area(:,:,:)
    type(grid_file_info_t) :: info
    type(grid_read_options_t) :: o
    type(case_t) :: cs
    type(layout_t) :: lay
    type(solver_params_t) :: sp
    type(fields_t) :: f
    real(rk) :: q0(5), worst, gcl, s(3)
    integer :: m, it, i, j, k, d, e(3)

    o%periodic = [closed_i, .false., .true.]
    if (.not. (make(shape, sizes, 'fs.x') .and. read_ok('fs.x', xn, info, o))) then
      call check(.false., 'free stream on the '//shape//' grid: the grid reads')
      return
    end if
    cs%ni = info%ni; cs%nj = info%nj; cs%nk = info%nk
    cs%bc_imin = 'periodic'; cs%bc_imax = 'periodic'
    cs%bc_jmin = 'periodic'; cs%bc_jmax = 'periodic'
    cs%bc_kmin = 'periodic'; cs%bc_kmax = 'periodic'
    cs%mach = 0.5_rk
    call validate_case(cs)
    lay = make_layout(cs%ni, cs%nj, cs%nk)
    sp = make_solver_params(cs, lay)
    call allocate_fields(lay, f)
    call compute_metrics(lay, xn, f%sf, f%sc, f%vol, f%xc)

    ! each cell closed: its six face vectors add up to zero (round-off of the sum of their sizes)
    allocate(area(lay%ni, lay%nj, lay%nk))
    gcl = 0.0_rk
    do k = 1, lay%nk
      do j = 1, lay%nj
        do i = 1, lay%ni
          s = 0.0_rk
          area(i, j, k) = 0.0_rk
          do d = 1, 3
            e = 0
            e(d) = 1
            s = s + f%sf(i + e(1), j + e(2), k + e(3), 3*d-2:3*d) - f%sf(i, j, k, 3*d-2:3*d)
            area(i, j, k) = area(i, j, k) + norm2(f%sf(i + e(1), j + e(2), k + e(3), 3*d-2:3*d)) &
              + norm2(f%sf(i, j, k, 3*d-2:3*d))
          end do
          gcl = max(gcl, norm2(s)/area(i, j, k))
        end do
      end do
    end do
    call check(gcl <= 1.0e-14_rk, 'free stream on the '//shape//' grid ('//int_text(lay%ni)//' x '//int_text(lay%nj)// &
      ' x 1): every cell closed, |sum of face vectors| <= 1e-14 of their sizes (worst '//format_real(gcl, '(es9.2)')//')')

    q0(1) = 1.0_rk
    q0(2:4) = [0.8_rk, -0.3_rk, 0.2_rk]
    q0(5) = (1.0_rk/sp%gm2)/sp%gm1 + 0.5_rk*(0.8_rk**2 + 0.3_rk**2 + 0.2_rk**2)
    do m = 1, 5
      f%q(:,:,:,m) = q0(m)
    end do
    call cpu_compute_residual(sp, lay, 1.0_rk, f)
    ! a face flux is about |q| |u| |S|: the residual against that, cell by cell
    worst = 0.0_rk
    do m = 1, 5
      worst = max(worst, maxval(abs(f%res(1:lay%ni, 1:lay%nj, 1:lay%nk, m))/(maxval(abs(q0))*area)))
    end do
    call check(worst <= 1.0e-13_rk, 'free stream on the '//shape//' grid: residual <= 1e-13 of the face fluxes '// &
      '(worst '//format_real(worst, '(es9.2)')//')')
    do it = 1, 5
      call cpu_iteration(sp, lay, 5.0_rk, f)
    end do
    worst = 0.0_rk
    do m = 1, 5
      worst = max(worst, maxval(abs(f%q(1:lay%ni, 1:lay%nj, 1:lay%nk, m) - q0(m)))/abs(q0(m)))
    end do
    call check(worst <= 1.0e-12_rk, 'free stream on the '//shape//' grid: uniform through 5 LU-ADI steps (rel '// &
      format_real(worst, '(es9.2)')//' <= 1e-12)')
  end subroutine freestream

  !> Through Debian's CGNS tools: a make_grid file to CGNS and back to
  !> Plot3D in the variants cgns_to_plot3d writes.
  subroutine cgns_round_trip()
    real(rk), allocatable :: ref(:,:,:,:), refs(:,:,:,:), xn(:,:,:,:)
    type(grid_file_info_t) :: info
    character(len=:), allocatable :: c2p
    logical :: ok
    if (.not. sh('command -v plot3d_to_cgns > /dev/null 2>&1 && command -v cgns_to_plot3d > /dev/null 2>&1')) then
      write(*, '(a)') 'note: plot3d_to_cgns / cgns_to_plot3d (Debian package cgns-convert) not found: the CGNS '// &
        'round trips are skipped (scripts/install_deps.sh test installs them)'
      return
    end if
    ok = make('cylinder', '--ni 16 --nj 8 --dims 3', 'cg.x') .and. read_ok('cg.x', ref, info) .and. &
         make('cylinder', '--ni 16 --nj 8 --dims 3 --precision single', 'cg_s.x') .and. read_ok('cg_s.x', refs, info)
    ok = ok .and. sh('plot3d_to_cgns -u -d '//dir//'/cg.x '//dir//'/cg.cgns > /dev/null 2>&1')
    call check(ok, 'CGNS: plot3d_to_cgns converts a make_grid file (cylinder, one cell thick, 3D)')
    if (.not. ok) return
    c2p = 'cgns_to_plot3d '
    ok = sh(c2p//'-u -d -n '//dir//'/cg.cgns '//dir//'/cu.x > /dev/null 2>&1') .and. read_ok('cu.x', xn, info)
    call check(ok .and. same_nodes(xn, ref, .false.), 'CGNS: back to Fortran unformatted, double, multi-block header: '// &
      'the same coordinates, bit for bit')
    ok = sh(c2p//'-s -u -d -n '//dir//'/cg.cgns '//dir//'/cs.x > /dev/null 2>&1') .and. read_ok('cs.x', xn, info)
    call check(ok .and. same_nodes(xn, ref, .false.), 'CGNS: back to single-block Fortran unformatted: the same, bit for bit')
    ok = sh(c2p//'-d -n '//dir//'/cg.cgns '//dir//'/cr.x > /dev/null 2>&1') .and. read_ok('cr.x', xn, info)
    call check(ok .and. same_nodes(xn, ref, .false.), 'CGNS: back to raw binary, double: the same, bit for bit')
    ok = sh(c2p//'-u -n '//dir//'/cg.cgns '//dir//'/c4.x > /dev/null 2>&1') .and. read_ok('c4.x', xn, info)
    call check(ok .and. same_nodes(xn, refs, .true.), 'CGNS: back to Fortran unformatted, single precision: the '// &
      'coordinates rounded to single, bit for bit')
    ok = sh(c2p//'-f -d -n '//dir//'/cg.cgns '//dir//'/cf.x > /dev/null 2>&1') .and. read_ok('cf.x', xn, info)
    if (ok) ok = all(shape(xn) == shape(ref))
    if (ok) ok = all(abs(xn(:, 0:16, 0:8, 0:1) - ref(:, 0:16, 0:8, 0:1)) <= 1.0e-5_rk*max(1.0_rk, abs(ref(:, 0:16, 0:8, 0:1))))
    call check(ok, 'CGNS: back to formatted text (6 significant digits): the same to 1e-5')
    call check(sh(c2p//'-p -u -d -n '//dir//'/cg.cgns '//dir//'/cp.x > /dev/null 2>&1'), &
      'CGNS: cgns_to_plot3d writes the planes format')
    call expect_refusal('cp.x', grid_read_options_t(), 'planes format', 'CGNS: its planes-format file is refused')
  end subroutine cgns_round_trip
end program test_plot3d
