!> The force history of a run with wall or lid patches: at every monitor
!> line, each such patch's force coefficients (pressure, viscous and total
!> parts of Cx, Cy, Cz, as forces.csv lists them at the end) go to
!> forces.dat beside residual.dat, and with monitor_forces also to the
!> terminal under the progress line. The loads come from the run's files
!> (fortran/run_files.f90's patch_forces, from the host's fields: the loop
!> brings the state there first, a GPU's at the monitor interval only; a
!> decomposed run sums its blocks' shares); this module writes them.
module forces_monitor
  use, intrinsic :: iso_fortran_env, only: output_unit
  use kinds, only: rk, ik8
  use text_util, only: int_text
  use boundary_patches, only: patch_set_t, face_name, patch_kind_name
  use wall_loads, only: patch_load_t, is_wall_kind
  use output_wall_loads, only: forces_line, forces_history_name
  use history_log, only: history_t
  implicit none
  private
  public :: forces_monitor_t

  type :: forces_monitor_t
    type(history_t) :: dat
    integer, allocatable :: ids(:)    !< the wall and lid patches, in the patch file's order
    type(patch_set_t) :: ps           !< the grid's patches (kind and face of the terminal's lines)
    logical :: show = .false.         !< monitor_forces: the coefficients on the terminal too
  contains
    procedure :: open => forces_open
    procedure :: record => forces_record
    procedure :: close => forces_close
  end type forces_monitor_t

  !> the three parts of a patch's coefficients, in forces.csv's order
  character(len=*), parameter :: parts(3) = ['_pressure', '_viscous ', '         ']

contains

  !> Open dir/forces.dat for the wall and lid patches of ps: a fresh
  !> history, or (restart_iter >= 0) the old one up to the restart's
  !> iteration, as residual.dat. ps: the whole grid's patches (the header
  !> lists their cells). show: the coefficients on the terminal too.
  subroutine forces_open(self, dir, ps, restart_iter, show)
    class(forces_monitor_t), intent(inout) :: self
    character(len=*), intent(in) :: dir
    type(patch_set_t), intent(in) :: ps
    integer(ik8), intent(in) :: restart_iter
    logical, intent(in) :: show
    character(len=:), allocatable :: patches, columns, id
    integer :: n, m, c
    self%show = show
    self%ps = ps
    self%ids = [(n, n = 1, size(ps%p))]
    self%ids = pack(self%ids, [(is_wall_kind(ps%p(n)%kind), n = 1, size(ps%p))])
    patches = '# patches (the patch file''s numbers):'
    columns = '# iter  work'
    do m = 1, size(self%ids)
      n = self%ids(m)
      id = int_text(n)
      patches = patches//' '//id//' '//patch_kind_name(ps%p(n)%kind)//' '//face_name(ps%p(n)%face)// &
        ' cells '//int_text(ps%p(n)%lo(1))//'..'//int_text(ps%p(n)%hi(1))//' x '//int_text(ps%p(n)%lo(2))//'..'// &
        int_text(ps%p(n)%hi(2))
      if (m < size(self%ids)) patches = patches//';'
      do c = 1, 3
        columns = columns//'  p'//id//'_cx'//trim(parts(c))//'  p'//id//'_cy'//trim(parts(c))//'  p'//id//'_cz'// &
          trim(parts(c))
      end do
    end do
    call self%dat%open(dir//'/'//forces_history_name, forces_line//new_line('a')// &
      '# one row per monitor line (iter and work as in residual.dat); per patch the pressure, viscous and total '// &
      'coefficients along x, y, z, as forces.csv lists them at the end'//new_line('a')// &
      patches//new_line('a')//columns//new_line('a'), restart_iter)
    if (self%show) write(output_unit, '(a)') '  (monitor_forces: under each progress line, each wall or lid '// &
      'patch''s force coefficients F/(rho_ref U_ref^2/2 A), A = 1; '//forces_history_name//' keeps them)'
  end subroutine forces_open

  !> The row of iteration it (work: the work units done) from loads (by
  !> patch number, fortran/run_files.f90's patch_forces), and the
  !> terminal's lines when shown.
  subroutine forces_record(self, it, work, loads)
    class(forces_monitor_t), intent(inout) :: self
    integer(ik8), intent(in) :: it
    real(rk), intent(in) :: work
    type(patch_load_t), intent(in) :: loads(:)
    character(len=:), allocatable :: row
    character(len=32) :: head
    character(len=240) :: part
    integer :: m, n
    write(head, '(i9,f14.3)') it, work
    row = trim(head)
    do m = 1, size(self%ids)
      n = self%ids(m)
      associate (load => loads(n))
        write(part, '(9(1x,es23.15e3))') load%pressure, load%viscous, load%pressure + load%viscous
        row = row//trim(part)
        if (self%show) write(output_unit, '(a,i3,1x,a4,1x,a4,a,3es11.3,a,3es11.3,a,3es11.3)') '          forces', &
          n, patch_kind_name(self%ps%p(n)%kind), face_name(self%ps%p(n)%face), '  C', load%pressure + load%viscous, &
          '   pressure', load%pressure, '   viscous', load%viscous
      end associate
    end do
    if (self%show) flush(output_unit)
    call self%dat%append(row)
  end subroutine forces_record

  subroutine forces_close(self)
    class(forces_monitor_t), intent(inout) :: self
    if (self%dat%is_open()) call self%dat%close()
  end subroutine forces_close
end module forces_monitor
