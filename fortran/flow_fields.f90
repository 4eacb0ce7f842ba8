!> All fields of one run, allocated on the host in the shared layout
!> (-1:ldi-2, -1:nj+2, -1:nk+2[, m]). The GPU backend mirrors the same set.
module flow_fields
  use kinds, only: rk, ik8, nvar, nprim
  use grid_layout, only: layout_t, field_bytes
  use boundary_patches, only: patch_set_t
  use omp_policy, only: team_for
  use first_touch, only: zero_field, advise_huge
  implicit none
  private
  public :: fields_t, allocate_fields, zero_stage_work, host_field_count, NWORK, NMETRIC

  integer, parameter :: NWORK = 25     !< flux stages use 25 work fields, ADI 23
  integer, parameter :: NMETRIC = 9    !< 3 components x 3 directions

  type :: fields_t
    real(rk), allocatable :: q(:,:,:,:)      !< conservative state (5)
    real(rk), allocatable :: qp(:,:,:,:)     !< primitives rho,u,v,w,p,T (6)
    real(rk), allocatable :: res(:,:,:,:)    !< residual: net flux out of each cell (5)
    real(rk), allocatable :: dq(:,:,:,:)     !< ADI increment between directions (5)
    real(rk), allocatable :: dtv(:,:,:)      !< local dt / volume
    real(rk), allocatable :: wk(:,:,:,:)     !< stage work fields (NWORK)
    real(rk), allocatable :: sf(:,:,:,:)     !< low-face area vectors (9)
    real(rk), allocatable :: sc(:,:,:,:)     !< cell-centred metric vectors (9)
    real(rk), allocatable :: vol(:,:,:)      !< cell volumes
    real(rk), allocatable :: xc(:,:,:,:)     !< cell centres (3), host only
    !> the faces split into boundary patches (case key patch_file); none
    !> allocated: each face has the box's type of sp%bc
    type(patch_set_t) :: ps
  end type fields_t

contains

  !> Number of full fields the host holds (for the memory estimate).
  pure function host_field_count() result(n)
    integer :: n
    n = nvar + nprim + nvar + nvar + 1 + NWORK + NMETRIC + NMETRIC + 1 + 3
  end function host_field_count

  !> The fields of a grid of layout lay. stage_work = .false. (a backend
  !> that iterates elsewhere, a GPU): the stage work fields dq, dtv and wk
  !> are allocated but left untouched, so the host never pays for their
  !> pages (nothing on the host reads them then).
  subroutine allocate_fields(lay, f, stage_work)
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(out) :: f
    logical, intent(in), optional :: stage_work
    integer :: ih, jh, kh, nt
    ih = lay%ldi - 2; jh = lay%nj + 2; kh = lay%nk + 2
    allocate(f%q(-1:ih, -1:jh, -1:kh, nvar), f%qp(-1:ih, -1:jh, -1:kh, nprim))
    allocate(f%res(-1:ih, -1:jh, -1:kh, nvar), f%dq(-1:ih, -1:jh, -1:kh, nvar))
    allocate(f%dtv(-1:ih, -1:jh, -1:kh), f%wk(-1:ih, -1:jh, -1:kh, NWORK))
    allocate(f%sf(-1:ih, -1:jh, -1:kh, NMETRIC), f%sc(-1:ih, -1:jh, -1:kh, NMETRIC))
    allocate(f%vol(-1:ih, -1:jh, -1:kh), f%xc(-1:ih, -1:jh, -1:kh, 3))
    ! before any first write (the zeros below, the metrics later)
    call advise_huge(f%q); call advise_huge(f%qp); call advise_huge(f%res); call advise_huge(f%dq)
    call advise_huge(f%dtv); call advise_huge(f%wk); call advise_huge(f%sf); call advise_huge(f%sc)
    call advise_huge(f%vol); call advise_huge(f%xc)
    ! defined values everywhere, padding included, so no stage ever reads garbage
    nt = team_for(lay)
    call zero_field(f%q, nt); call zero_field(f%qp, nt); call zero_field(f%res, nt)
    if (present(stage_work)) then
      if (.not. stage_work) return
    end if
    call zero_stage_work(lay, f)
  end subroutine allocate_fields

  !> The stage work fields' zeros, which allocate_fields leaves out for a
  !> backend that iterates elsewhere (stage_work = .false.); for a run that
  !> turns to the host after its fields were made.
  subroutine zero_stage_work(lay, f)
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(inout) :: f
    integer :: nt
    nt = team_for(lay)
    call zero_field(f%dq, nt); call zero_field(f%dtv, nt); call zero_field(f%wk, nt)
  end subroutine zero_stage_work
end module flow_fields
