!> A block of a grid decomposed over MPI ranks in j and k
!> (fortran/mpi_decomp.f90) on the CPU: the CPU reference's stages with the
!> block boundary fill (halos), the cross-block LU-ADI, residual and mass
!> sums over all blocks, and the agreement of all ranks. Only
!> build/adiflow_mpi uses it.
!>
!> Multigrid: levels 1..G-1 are decomposed like the fine one (dcl(l));
!> restrict and prolong are the CPU reference's (fortran/backend_cpu.f90),
!> which reach the halos through fill_boundary. Levels G..nlev, which the
!> blocks cannot carry, are gathered onto rank 0 (the handle gathered,
!> fortran/multigrid_gather.f90: G = gathered%first, 0 when none); the
!> other ranks skip them, and self%level(G..nlev) stay empty (only their
!> ratio and weight are set) on every rank. The cycle is the one every
!> backend runs (fortran/multigrid_cycle.f90): exact mode equals
!> build/adiflow with the same levels bit for bit.
!>
!> The gathered path, for an extension that keeps levels 1..G-1 elsewhere
!> (the GPU block, fortran/backend_mpi_gpu.f90). Its smooth, restrict and
!> prolong hand level l to these when is_gathered(l) (smooth) or
!> is_gathered(l+1) (restrict, prolong), as block_smooth, block_restrict
!> and block_prolong do:
!>   smooth_gathered(l, cfl)    (l >= G) rank 0 iterates the whole level
!>   restrict_gathered(l, cfl)  (l >= G-1) for l = G-1: first
!>       gathered_residual(l, cfl), overridable: level G-1's residual on the
!>       block, forcing included, left with its state in the host's
!>       level(G-1)%f%res and %q (the GPU computes and downloads them);
!>       then the host gathers them onto rank 0, which restricts onto
!>       level G. For l >= G: rank 0 restricts between whole levels.
!>   prolong_gathered(l)        (l >= G-1) rank 0 prolongs level l+1 onto
!>       l; for l = G-1 the corrected state of every block then stands in
!>       the host's level(G-1)%f%q (interior cells), and
!>       scattered_state(l), overridable, takes it from there (the GPU
!>       uploads it; nothing on the CPU).
!>   decomposed_levels()        G-1, or nlev when nothing is gathered
!>                              (W with whole levels)
!>
!> Whole levels (the handle whole, fortran/multigrid_whole.f90: W =
!> whole%first, 0 when none): levels W..nlev small enough to run whole on
!> every rank. Level W is also a block (the transfers between it and level
!> W-1 stay the blocks'); smooth, restrict and prolong of l >= W are the
!> whole levels' serial ones, and around them:
!>   share_whole(W)   after the blocks restricted onto level W: every
!>       block's state and forcing into the whole level on every rank
!>       (overridable: the GPU shares them on the devices)
!>   take_whole(W)    before the blocks prolong level W onto W-1: this
!>       rank's part of the whole level's state into its block
module backend_mpi_block
  use kinds, only: rk
  use case_config, only: case_t
  use solver_params, only: solver_params_t
  use boundary_patches, only: patch_set_t
  use backend_cpu, only: cpu_backend_t, cpu_restrict, cpu_prolong, restrict_onto, residual_with_forcing
  use multigrid_gather, only: gathered_levels_t
  use multigrid_whole, only: whole_levels_t
  use multigrid_levels, only: mg_level_t, level_weight
  use solver_cpu, only: add_forcing
  use lu_adi
  use mpi_decomp, only: decomp_t, halo_exchange, block_boundary_conditions, adi_stage4_pipelined, &
    mpi_residual_norms, mpi_mass_fix, any_rank
  implicit none
  private
  public :: block_backend_t

  type, extends(cpu_backend_t) :: block_backend_t
    type(decomp_t), allocatable :: dcl(:)   !< dcl(l): level l's decomposition (dcl(1): the grid's), l < G
    type(gathered_levels_t) :: gathered     !< levels G..nlev on rank 0 (G = gathered%first; 0: none)
    type(whole_levels_t) :: whole           !< levels W..nlev whole on every rank (W = whole%first; 0: none)
  contains
    procedure :: smooth => block_smooth
    procedure :: restrict => block_restrict
    procedure :: prolong => block_prolong
    procedure :: fill_boundary => block_fill
    procedure :: norms => block_norms
    procedure :: fix_mass => block_fix_mass
    procedure :: any_process => block_any
    procedure, non_overridable :: start_gathering
    procedure, non_overridable :: is_gathered
    procedure, non_overridable :: decomposed_levels
    procedure, non_overridable :: folded_cells
    procedure, non_overridable :: smooth_gathered
    procedure, non_overridable :: restrict_gathered
    procedure, non_overridable :: prolong_gathered
    procedure :: gathered_residual => block_gathered_residual
    procedure :: scattered_state => block_scattered_state
    procedure, non_overridable :: start_whole
    procedure, non_overridable, private :: set_level_shares
    procedure, non_overridable :: is_whole
    procedure :: share_whole => block_share_whole
    procedure :: take_whole => block_take_whole
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
    if (self%is_whole(l)) then
      call self%whole%serial%smooth(self%whole%index_of(l), cfl)
      return
    end if
    if (self%is_gathered(l)) then
      call self%smooth_gathered(l, cfl)
      return
    end if
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
        call adi_stage3_characteristic_rhs(sp, lay, d, f%qp, f%sc, f%vol, f%dtv, f%res, f%dq, f%wk)
        if (across) then
          call adi_stage4_pipelined(dx, sp, lay, d, f%wk)
        else
          call adi_stage4_sweeps(sp, lay, d, f%wk)
        end if
        call adi_stage5_update(sp, lay, d, f%qp, f%sc, f%vol, f%wk, f%dq, f%q)
      end do
    end associate
  end subroutine block_smooth

  !> Level l's residual and state to level l+1: the CPU reference's on the
  !> blocks (cpu_restrict on this block: its fill and residual), or the
  !> gathered path.
  subroutine block_restrict(self, l, cfl)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    if (self%is_whole(l)) then
      call self%whole%serial%restrict(self%whole%index_of(l), cfl)
    else if (self%is_gathered(l + 1)) then
      call self%restrict_gathered(l, cfl)
    else
      call cpu_restrict(self, l, cfl)
      if (self%is_whole(l + 1)) call self%share_whole(l + 1)
    end if
  end subroutine block_restrict

  !> Level l += level l+1's correction: the CPU reference's on the blocks,
  !> or the gathered path.
  subroutine block_prolong(self, l)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    if (self%is_whole(l)) then
      call self%whole%serial%prolong(self%whole%index_of(l))
    else if (self%is_gathered(l + 1)) then
      call self%prolong_gathered(l)
    else
      if (self%is_whole(l + 1)) call self%take_whole(l + 1)
      call cpu_prolong(self, l)
    end if
  end subroutine block_prolong

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

  !> Levels first..nlev gathered onto rank 0 (multigrid_gather's start:
  !> built there from the whole grid's nodes xn_g; sizes, ratios: the
  !> plan; ps_lev: each level's patches, when the grid has them); on every
  !> rank their ratios and weights (the cycle counts the work units).
  !> Collective; levels 1..first-1 and dcl(first-1) must be set up.
  subroutine start_gathering(self, cs, sp_g, xn_g, first, sizes, ratios, coarse_order, plain_roe, ps_lev)
    class(block_backend_t), intent(inout) :: self
    type(case_t), intent(in) :: cs
    type(solver_params_t), intent(in) :: sp_g
    real(rk), intent(in) :: xn_g(:,:,:,:)
    integer, intent(in) :: first, sizes(:,:), ratios(:,:), coarse_order
    logical, intent(in) :: plain_roe
    type(patch_set_t), allocatable, intent(in) :: ps_lev(:)
    call self%gathered%start(self%dcl(first - 1), cs, sp_g, xn_g, first, self%nlev, sizes, ratios, coarse_order, &
      plain_roe, ps_lev)
    call self%set_level_shares(first, sizes, ratios)
  end subroutine start_gathering

  !> Levels from..nlev, which this rank holds no block of: their ratios and
  !> weights (fine-grid work units an iteration) from the plan, for the cycle.
  subroutine set_level_shares(self, from, sizes, ratios)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: from, sizes(:,:), ratios(:,:)
    integer :: l
    do l = from, self%nlev
      self%level(l)%ratio = ratios(:, l)
      self%level(l)%weight = level_weight(sizes, l)
    end do
  end subroutine set_level_shares

  !> Level l runs whole on rank 0 (and is skipped elsewhere).
  pure logical function is_gathered(self, l)
    class(block_backend_t), intent(in) :: self
    integer, intent(in) :: l
    is_gathered = self%gathered%first > 0 .and. l >= self%gathered%first
  end function is_gathered

  !> Levels 1..decomposed_levels() are this rank's blocks.
  pure integer function decomposed_levels(self)
    class(block_backend_t), intent(in) :: self
    if (self%whole%first > 0) then
      decomposed_levels = self%whole%first
    else
      decomposed_levels = merge(self%gathered%first - 1, self%nlev, self%gathered%first > 0)
    end if
  end function decomposed_levels

  !> Levels first..nlev whole on every rank (multigrid_whole's start: built
  !> from the whole grid's nodes xn_g; sizes, ratios: the plan; ps_lev: each
  !> level's patches, when the grid has them); levels first+1..nlev get
  !> their ratios and weights here (the cycle counts the work units).
  !> Collective; levels 1..first and dcl(first) must be set up.
  subroutine start_whole(self, cs, sp_g, xn_g, first, sizes, ratios, coarse_order, plain_roe, ps_lev)
    class(block_backend_t), intent(inout) :: self
    type(case_t), intent(in) :: cs
    type(solver_params_t), intent(in) :: sp_g
    real(rk), intent(in) :: xn_g(:,:,:,:)
    integer, intent(in) :: first, sizes(:,:), ratios(:,:), coarse_order
    logical, intent(in) :: plain_roe
    type(patch_set_t), allocatable, intent(in) :: ps_lev(:)
    call self%whole%start(self%dcl(first), cs, sp_g, xn_g, first, self%nlev, sizes, ratios, coarse_order, &
      plain_roe, ps_lev, self%host_iterates())
    call self%set_level_shares(first + 1, sizes, ratios)
  end subroutine start_whole

  !> Level l runs whole on every rank.
  pure logical function is_whole(self, l)
    class(block_backend_t), intent(in) :: self
    integer, intent(in) :: l
    is_whole = self%whole%first > 0 .and. l >= self%whole%first
  end function is_whole

  !> After the blocks restricted onto level l (= W): every block's state
  !> and forcing into the whole level, on every rank (collective).
  subroutine block_share_whole(self, l)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    associate (g => self%level(l))
      call self%whole%share_state(g%lay, g%f%q, g%forcing)
    end associate
  end subroutine block_share_whole

  !> Before the blocks prolong level l (= W): this rank's part of the whole
  !> level's state into its block (the prolongation fills the ghosts).
  subroutine block_take_whole(self, l)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    associate (g => self%level(l))
      call self%whole%take_state(g%lay, g%f%q)
    end associate
  end subroutine block_take_whole

  !> Level l has a cell of zero or negative volume in this rank's part of
  !> it: its block, or on rank 0 the whole gathered level (none elsewhere).
  logical function folded_cells(self, l)
    class(block_backend_t), intent(in) :: self
    integer, intent(in) :: l
    folded_cells = .false.
    if (self%is_whole(l)) then
      folded_cells = folded(self%whole%serial%level(self%whole%index_of(l)))
    else if (self%is_gathered(l)) then
      if (self%gathered%rank == 0) folded_cells = folded(self%gathered%serial%level(self%gathered%index_of(l)))
    else
      folded_cells = folded(self%level(l))
    end if
  contains
    logical function folded(g)
      type(mg_level_t), intent(in) :: g
      folded = any(.not. (g%f%vol(1:g%lay%ni, 1:g%lay%nj, 1:g%lay%nk) > 0.0_rk))
    end function folded
  end function folded_cells

  !> One iteration of gathered level l on rank 0 (the serial one).
  subroutine smooth_gathered(self, l, cfl)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    if (self%gathered%rank == 0) call self%gathered%serial%smooth(self%gathered%index_of(l), cfl)
  end subroutine smooth_gathered

  !> Restrict level l onto gathered level l+1. l = G-1: the block's residual
  !> (gathered_residual), its state and residual gathered into the shadow
  !> on rank 0, which restricts them onto level G (collective). l >= G:
  !> rank 0 restricts.
  subroutine restrict_gathered(self, l, cfl)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    if (l == self%gathered%first - 1) then
      call self%gathered_residual(l, cfl)
      associate (f => self%level(l)%f)
        call self%gathered%gather_state(self%level(l)%lay, f%q, f%res)
      end associate
      if (self%gathered%rank == 0) call restrict_onto(self%gathered%serial, 1, cfl)
    else if (self%gathered%rank == 0) then
      call self%gathered%serial%restrict(self%gathered%index_of(l), cfl)
    end if
  end subroutine restrict_gathered

  !> Prolong gathered level l+1 onto level l on rank 0. l = G-1: onto the
  !> shadow, whose corrected state goes back to every block's
  !> level(G-1)%f%q (collective), then scattered_state.
  subroutine prolong_gathered(self, l)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    if (self%gathered%rank == 0) call self%gathered%serial%prolong(self%gathered%index_of(l))
    if (l == self%gathered%first - 1) then
      call self%gathered%scatter_state(self%level(l)%lay, self%level(l)%f%q)
      call self%scattered_state(l)
    end if
  end subroutine prolong_gathered

  !> The gathered path's step before the gather of level l (= G-1): its
  !> residual on this block, forcing included (as cpu_restrict's), in
  !> level(l)%f%res beside its state level(l)%f%q.
  subroutine block_gathered_residual(self, l, cfl)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    call residual_with_forcing(self, l, cfl)
  end subroutine block_gathered_residual

  !> The gathered path's step after the scatter onto level l (= G-1): the
  !> host's level(l)%f%q is the state already.
  subroutine block_scattered_state(self, l)
    class(block_backend_t), intent(inout) :: self
    integer, intent(in) :: l
  end subroutine block_scattered_state
end module backend_mpi_block
