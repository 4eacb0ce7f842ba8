!> A block of a grid decomposed over MPI ranks in j and k
!> (fortran/mpi_decomp.f90) on the CPU: the CPU reference's stages with the
!> block boundary fill (halos), the cross-block LU-ADI, residual and mass
!> sums over all blocks, and the agreement of all ranks. Only
!> build/adiflow_mpi uses it.
!>
!> Multigrid: each coarse level is decomposed like the fine one (dcl(l));
!> restrict and prolong are the CPU reference's (fortran/backend_cpu.f90),
!> which reach the halos through fill_boundary, and the cycle is the one
!> every backend runs (fortran/multigrid_cycle.f90): exact mode equals
!> build/adiflow with the same levels bit for bit.
module backend_mpi_block
  use kinds, only: rk
  use backend_cpu, only: cpu_backend_t
  use solver_cpu, only: add_forcing
  use lu_adi
  use mpi_decomp, only: decomp_t, halo_exchange, block_boundary_conditions, adi_stage4_pipelined, &
    mpi_residual_norms, mpi_mass_fix, any_rank
  implicit none
  private
  public :: block_backend_t

  type, extends(cpu_backend_t) :: block_backend_t
    type(decomp_t), allocatable :: dcl(:)   !< dcl(l): level l's decomposition (dcl(1): the grid's)
  contains
    procedure :: smooth => block_smooth
    procedure :: fill_boundary => block_fill
    procedure :: norms => block_norms
    procedure :: fix_mass => block_fix_mass
    procedure :: any_process => block_any
  end type block_backend_t

contains

  !> One iteration of level l's block: fortran/solver_cpu.f90's stages with
  !> the block boundary fill and, in exact mode, the LU-ADI across the
  !> blocks along each split direction; a coarse level's forcing added.
  subroutine block_smooth(self, l, cfl)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    integer :: d
    logical :: across
    call self%residual(l, cfl)
    associate (dx => self%dcl(l), sp => self%level(l)%sp, lay => self%level(l)%lay, f => self%level(l)%f)
      if (allocated(self%level(l)%forcing)) call add_forcing(lay, self%level(l)%forcing, f%res)
      do d = 1, 3
        ! exact mode couples the blocks along d only where d is split
        across = dx%exact .and. d >= 2 .and. merge(dx%npj, dx%npk, d == 2) > 1
        call adi_stage1_eigenvalues(sp, lay, d, f%qp, f%sc, f%vol, f%wk)
        if (across) then
          call halo_exchange(dx, lay, f%wk, WK_LAMP + 1, WK_LAMN + 3, d, 1, dx%swp(1, d), dx%swp(2, d))
          call adi_stage2_coefficients(sp, lay, d, f%dtv, f%wk, dx%off, dx%nglob)
        else
          call adi_stage2_coefficients(sp, lay, d, f%dtv, f%wk)
        end if
        call adi_stage3_characteristic_rhs(sp, lay, d, f%qp, f%sc, f%dtv, f%res, f%dq, f%wk)
        if (across) then
          call adi_stage4_pipelined(dx, sp, lay, d, f%wk)
        else
          call adi_stage4_sweeps(sp, lay, d, f%wk)
        end if
        call adi_stage5_update(sp, lay, d, f%qp, f%sc, f%wk, f%dq, f%q)
      end do
    end associate
  end subroutine block_smooth

  !> The ghosts of level l's block: physical faces by the serial rule,
  !> internal and periodic ones from the neighbours (halos).
  subroutine block_fill(self, l)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    associate (g => self%level(l))
      call block_boundary_conditions(self%dcl(l), g%sp, g%lay, g%f)
    end associate
  end subroutine block_fill

  subroutine block_norms(self, nrm)
    class(block_backend_t), intent(inout) :: self
    real(rk), intent(out) :: nrm(5)
    associate (g => self%level(1))
      call mpi_residual_norms(self%dcl(1), g%lay, g%f%res, g%f%vol, nrm)
    end associate
  end subroutine block_norms

  subroutine block_fix_mass(self)
    class(block_backend_t), intent(inout) :: self
    associate (g => self%level(1))
      call mpi_mass_fix(self%dcl(1), g%lay, g%f%vol, g%f%q, self%mass0)
    end associate
  end subroutine block_fix_mass

  !> .true. on every rank when flag is .true. on any rank.
  logical function block_any(self, flag)
    class(block_backend_t), intent(in) :: self
    logical, intent(in) :: flag
    block_any = any_rank(self%dcl(1)%comm, flag)
  end function block_any
end module backend_mpi_block
