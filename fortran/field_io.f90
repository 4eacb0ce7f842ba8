!> Field dumps and restart files (one format, documented in
!> include/field_format.h): header, interior conservative state, checksum.
!> Written to PATH.tmp and renamed, so a crash mid-write never destroys the
!> previous file.
module field_io
  use, intrinsic :: iso_c_binding, only: c_int64_t
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use kinds, only: rk, ik8, nvar
  use grid_layout, only: layout_t
  use sys_interface, only: adi_checksum_update, adi_checksum_final, atomic_rename
  use case_config, only: case_error
  implicit none
  private
  public :: write_field_dump, read_field_dump

  character(len=8), parameter :: magic = 'ADIFDUMP'
  integer(int32), parameter :: version = 1

contains

  subroutine write_field_dump(path, lay, q, iteration, res0)
    character(len=*), intent(in) :: path
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: q(-1:,-1:,-1:,:)
    integer(ik8), intent(in) :: iteration
    real(rk), intent(in) :: res0(5)
    integer :: u, ios, j, k, m
    integer(c_int64_t) :: st(2), csum
    character(len=512) :: msg
    character(len=len_trim(path)+4) :: tmp

    tmp = trim(path)//'.tmp'
    open(newunit=u, file=tmp, access='stream', form='unformatted', status='replace', &
      action='write', iostat=ios, iomsg=msg)
    if (ios /= 0) call case_error('cannot write "'//trim(tmp)//'": '//trim(msg))
    write(u) magic, version, int(lay%ni, int32), int(lay%nj, int32), int(lay%nk, int32), &
      int(nvar, int32), 0_int32, int(iteration, int64), res0
    st = 0
    do m = 1, nvar
      do k = 1, lay%nk
        do j = 1, lay%nj
          write(u, iostat=ios, iomsg=msg) q(1:lay%ni, j, k, m)
          if (ios /= 0) call case_error('writing "'//trim(tmp)//'" failed: '//trim(msg)// &
            ' (disk full?); the previous file "'//trim(path)//'" is untouched')
          call adi_checksum_update(st, q(1:lay%ni, j, k, m), int(lay%ni, c_int64_t))
        end do
      end do
    end do
    csum = adi_checksum_final(st)
    write(u) csum
    close(u)
    if (atomic_rename(tmp, path) /= 0) call case_error('cannot rename "'//trim(tmp)// &
      '" to "'//trim(path)//'"')
  end subroutine write_field_dump

  !> Read a dump into q's interior; the grid must match the case exactly.
  subroutine read_field_dump(path, lay, q, iteration, res0)
    character(len=*), intent(in) :: path
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    integer(ik8), intent(out) :: iteration
    real(rk), intent(out) :: res0(5)
    character(len=8) :: mg
    integer(int32) :: ver, ni, nj, nk, nv, resv
    integer(int64) :: it
    integer(c_int64_t) :: st(2), csum, stored
    integer :: u, ios, j, k, m
    character(len=512) :: msg
    character(len=200) :: line
    logical :: exists

    inquire(file=path, exist=exists)
    if (.not. exists) call case_error('restart file "'//trim(path)//'" does not exist '// &
      '(a run writes it at every restart_interval and when it stops)')
    open(newunit=u, file=path, access='stream', form='unformatted', status='old', &
      action='read', iostat=ios, iomsg=msg)
    if (ios /= 0) call case_error('cannot open "'//trim(path)//'": '//trim(msg))
    read(u, iostat=ios) mg, ver, ni, nj, nk, nv, resv, it, res0
    if (ios /= 0 .or. mg /= magic) call case_error('"'//trim(path)// &
      '" is not an adiflow restart/dump file (bad magic or truncated header)')
    if (ver /= version) then
      write(line, '(a,i0,a,i0)') 'unsupported file version ', ver, '; this build reads version ', version
      call case_error('"'//trim(path)//'": '//trim(line))
    end if
    if (ni /= lay%ni .or. nj /= lay%nj .or. nk /= lay%nk .or. nv /= nvar) then
      write(line, '(a,3(i0,1x),a,3(i0,1x))') 'grid ', ni, nj, nk, 'does not match the case grid ', &
        lay%ni, lay%nj, lay%nk
      call case_error('restart "'//trim(path)//'": '//trim(line))
    end if
    st = 0
    do m = 1, nvar
      do k = 1, lay%nk
        do j = 1, lay%nj
          read(u, iostat=ios) q(1:lay%ni, j, k, m)
          if (ios /= 0) call case_error('restart "'//trim(path)//'" is truncated')
          call adi_checksum_update(st, q(1:lay%ni, j, k, m), int(lay%ni, c_int64_t))
        end do
      end do
    end do
    read(u, iostat=ios) stored
    close(u)
    csum = adi_checksum_final(st)
    if (ios /= 0 .or. stored /= csum) call case_error('restart "'//trim(path)// &
      '" fails its checksum: the file is damaged; use an older restart or start afresh')
    iteration = it
  end subroutine read_field_dump
end module field_io
