!> The bind(c) type solver_params_t (fortran/solver_params.f90) and its C
!> mirror adi_solver_params (include/adiflow_params.h) must agree byte for
!> byte: the same size and every member at the same offset with the same
!> size. Otherwise the GPU backend would read one constant where the Fortran
!> wrote another. The same for gpu_settings_t (fortran/gpu_settings.f90) and
!> adi_gpu_settings (include/adiflow_gpu_settings.h), the &gpu group's
!> settings. Both sides list every member from the rows that make the
!> structs (include/adiflow_params.def, include/adiflow_gpu_settings.def),
!> so a member added there is checked here without a word more. And the
!> boundary patch bc_patch_t (fortran/boundary_patches.f90) against
!> adi_bc_patch (include/adiflow_patches.h), which the GPU backend takes as
!> the driver holds it: their members are listed on both sides here.
program test_params_layout
  use, intrinsic :: iso_c_binding
  use solver_params, only: solver_params_t
  use gpu_settings, only: gpu_settings_t
  use boundary_patches, only: bc_patch_t
  use test_util
  implicit none
  interface
    integer(c_int) function adi_params_layout(out, nmax) bind(c, name='adi_params_layout')
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: out(*)
      integer(c_int), value :: nmax
    end function
    integer(c_int) function adi_gpu_settings_layout(out, nmax) bind(c, name='adi_gpu_settings_layout')
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: out(*)
      integer(c_int), value :: nmax
    end function
    integer(c_int) function adi_bc_patch_layout(out, nmax) bind(c, name='adi_bc_patch_layout')
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: out(*)
      integer(c_int), value :: nmax
    end function
  end interface
  integer, parameter :: max_members = 100
  type(solver_params_t), target :: sp
  type(gpu_settings_t), target :: gs
  type(bc_patch_t), target :: bp
  character(len=32) :: names(max_members)
  integer(c_int64_t) :: off(max_members), bytes(max_members), c_side(1 + 2*max_members)
  integer(c_intptr_t) :: base
  integer :: nf

  ! solver_params_t: every member's offset and size as Fortran lays them out
  nf = 0
  base = transfer(c_loc(sp), base)
#define ADI_PARAM_CODE(name, value)
#define ADI_PARAM_REAL(name, init) call member('name', c_loc(sp%name), c_sizeof(sp%name))
#define ADI_PARAM_INT(name, init) call member('name', c_loc(sp%name), c_sizeof(sp%name))
#define ADI_PARAM_INTS(name, count, init) call member('name', c_loc(sp%name), c_sizeof(sp%name))
#include "adiflow_params.def"
#undef ADI_PARAM_CODE
#undef ADI_PARAM_REAL
#undef ADI_PARAM_INT
#undef ADI_PARAM_INTS
  call compare('solver_params_t', c_sizeof(sp), adi_params_layout(c_side, size(c_side, kind=c_int)))

  ! gpu_settings_t, the same way
  nf = 0
  base = transfer(c_loc(gs), base)
#define ADI_GPU_SIZE(name, value)
#define ADI_GPU_INT(name, init) call member('name', c_loc(gs%name), c_sizeof(gs%name))
#define ADI_GPU_TEXT(name, size) call member('name', c_loc(gs%name), c_sizeof(gs%name))
#include "adiflow_gpu_settings.def"
#undef ADI_GPU_SIZE
#undef ADI_GPU_INT
#undef ADI_GPU_TEXT
  call compare('gpu_settings_t', c_sizeof(gs), adi_gpu_settings_layout(c_side, size(c_side, kind=c_int)))

  ! bc_patch_t, its members in declaration order
  nf = 0
  base = transfer(c_loc(bp), base)
  call member('kind', c_loc(bp%kind), c_sizeof(bp%kind))
  call member('face', c_loc(bp%face), c_sizeof(bp%face))
  call member('lo', c_loc(bp%lo), c_sizeof(bp%lo))
  call member('hi', c_loc(bp%hi), c_sizeof(bp%hi))
  call member('v', c_loc(bp%v), c_sizeof(bp%v))
  call compare('bc_patch_t', c_sizeof(bp), adi_bc_patch_layout(c_side, size(c_side, kind=c_int)))
  call test_summary()

contains

  subroutine member(name, p, nbytes)
    character(len=*), intent(in) :: name
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: nbytes
    nf = nf + 1
    names(nf) = name
    off(nf) = int(transfer(p, base) - base, c_int64_t)
    bytes(nf) = int(nbytes, c_int64_t)
  end subroutine member

  !> The Fortran layout just listed against the C side's: c_side(1) the C
  !> size, then offset and size of each of its nc members.
  subroutine compare(what, fsize, nc)
    character(len=*), intent(in) :: what
    integer(c_size_t), intent(in) :: fsize
    integer(c_int), intent(in) :: nc
    integer :: m
    call check(nc == nf, what//': C lists as many members as Fortran')
    call check(c_side(1) == fsize, what//': the same size in C and Fortran')
    do m = 1, min(nf, int(nc))
      call check(c_side(2*m) == off(m) .and. c_side(2*m + 1) == bytes(m), &
        what//' member '//trim(names(m))//': the same offset and size in C and Fortran')
    end do
    ! the members tile the struct in order: none overlaps the next, and
    ! after the last only alignment padding (at most 7 bytes) is left
    do m = 1, nf - 1
      call check(off(m) + bytes(m) <= off(m + 1), what//' member '//trim(names(m))//' ends before the next begins')
    end do
    call check(fsize - (off(nf) + bytes(nf)) < 8, what//': nothing but padding after its last member')
  end subroutine compare
end program test_params_layout
