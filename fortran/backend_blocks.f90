!> The CPU reference over several blocks joined by 1-to-1 interfaces (a
!> multi-block grid: grid_blocks' grid_block_set_t), as a backend of the
!> run (fortran/backend.f90), so that the iteration loop, the FAS cycle
!> (fortran/multigrid_cycle.f90) and the run's files take a block set as
!> they take one grid.
!>
!> Each block has its own levels (level 1 its grid, 2.. its coarse
!> levels), each with its layout, parameters, nodes, metrics and fields.
!> One iteration of level l fills every block's ghosts, computes every
!> block's residual from the same state, then runs each block's LU-ADI
!> sweeps on its own lines, the interface increments held at zero as
!> adiflow_mpi's decoupled mode holds them. The mass may drift through
!> those zeros; the case's mass_fix rescales the set to its start's.
!>
!> Ghosts, nodes once per level and the state before every residual, are
!> filled direction by direction as a single grid fills them (i, then j,
!> then k): in the step of direction d, first the ghosts across the
!> interfaces of the d faces (fortran/block_halos.f90), then each block's
!> own d faces, so that the edges beyond an interface come from its
!> ghosts. Where the interfaces join faces of the same direction, a block's
!> residual is then the whole grid's (tests/unit/test_block_residual.f90).
!>
!> Multigrid over the set: each block coarsens by the single grid's rule
!> (multigrid_levels' plan_levels); the set has the levels every block
!> has, and across each interface the face's two directions must coarsen
!> alike on both sides (else the hierarchy stops above, saying where). A
!> coarse level's interfaces are the fine ones in coarse node numbers; the
!> transfers are cell by cell within each block, with the set's fill where
!> the single grid's cycle fills (backend_cpu's restrict and prolong, in
!> the same order).
!>
!> A block's faces take its case's bc_* keys, or its boundary patches
!> (fortran/block_patch_file.f90), coarsened with the levels as one grid's.
!>
!> The GPU over blocks (fortran/backend_blocks_gpu.f90) extends this type:
!> its set fill is fill_set with device = .true., the same loop whose
!> halo_step and own_faces it overrides.
!>
!> Not yet: interfaces over part of a face, interfaces joining faces of
!> different directions (their edge ghosts would need another order), 2D
!> blocks (the driver makes a 2D file's one cell thick): init refuses what
!> it cannot run, saying why.
module backend_blocks
  use kinds, only: rk, ng
  use text_util, only: int_text
  use grid_layout, only: make_layout
  use solver_params, only: BC_PERIODIC
  use case_config, only: case_t, make_solver_params
  use flow_fields, only: allocate_fields
  use grid_generation, only: fill_ghost_nodes_direction
  use grid_blocks, only: grid_block_set_t, block_interface_t, face_range_t, range_text, block_label, covers_whole_face
  use block_halos, only: fill_halo_step, fill_interface_nodes
  use metrics, only: compute_metrics
  use ghost_fill, only: fill_ghosts_direction, fill_wall_temperatures
  use primitives, only: compute_primitives
  use solver_cpu, only: residual_of_filled_state, cpu_adi_update, add_forcing
  use mass_constraint, only: total_mass, rescale_to_mass
  use residual_norms, only: add_residual_plane_sums
  use multigrid_levels, only: mg_level_t, plan_levels, init_level
  use multigrid_transfer, only: restrict_level, subtract_residual, coarse_correction, prolong_correction
  use backend, only: backend_t, rest_state, free_stream_state
  use boundary_patches, only: patch_set_t, coarse_patch_sets
  implicit none
  private
  public :: blocks_backend_t, block_levels_t, set_problem, nodes_of

  !> One block: its levels and which of its faces its own boundary
  !> conditions fill (the others are interfaces).
  type :: block_levels_t
    type(mg_level_t), allocatable :: level(:)
    logical :: phys(6) = .true.
  end type block_levels_t

  !> One block's patch sets, level by level.
  type :: level_patches_t
    type(patch_set_t), allocatable :: sets(:)
  end type level_patches_t

  !> The interfaces of one level, in that level's node numbers.
  type :: level_links_t
    type(block_interface_t), allocatable :: itf(:)
  end type level_links_t

  type, extends(backend_t) :: blocks_backend_t
    type(block_levels_t), allocatable :: b(:)
    type(level_links_t), allocatable :: links(:)
    !> the blocks' names in messages ('block 2', 'zone "wake"')
    character(len=64), allocatable :: label(:)
    !> the blocks this process iterates (all of them here; a rank's own
    !> over MPI, fortran/backend_blocks_mpi.f90)
    logical, allocatable :: mine(:)
  contains
    procedure :: init => blocks_init
    procedure :: fill_set
    procedure :: halo_step => host_halo_step
    procedure :: halo_phase_end => no_phase_end
    procedure :: own_faces => host_own_faces
    procedure :: holds => holds_mine
    procedure :: sum_blocks => sum_here
    procedure :: distribute => all_here
    procedure :: is_root => one_process
    procedure :: where_text => nowhere_text
    procedure :: state_changes => nothing_to_forget
    procedure :: smooth => blocks_smooth
    procedure :: restrict => blocks_restrict
    procedure :: prolong => blocks_prolong
    procedure :: norms => blocks_norms
    procedure :: fix_mass => blocks_fix_mass
    procedure :: set_mass
    procedure :: start => blocks_nothing
    procedure :: fetch_state => blocks_nothing
    procedure :: finalize => blocks_nothing
    procedure :: host_state => blocks_host_state
    procedure :: fill_boundary => blocks_fill_boundary
    procedure :: start_at_rest => blocks_at_rest
    procedure :: start_in_free_stream => blocks_in_free_stream
    procedure :: cells => set_cells
  end type blocks_backend_t

contains

  !> The backend over the blocks of set, block b with the case cs(b) (its
  !> faces' boundary conditions; an interface face's own is not used), with
  !> up to `requested` levels (coarse levels: order coarse_order, plain Roe
  !> where plain_roe). why: '' or the reason the set cannot run; note: why
  !> the hierarchy has fewer levels than requested ('' if it has them all).
  subroutine blocks_init(self, set, cs, requested, coarse_order, plain_roe, why, note, ps)
    class(blocks_backend_t), intent(inout) :: self
    type(grid_block_set_t), intent(in) :: set
    type(case_t), intent(in) :: cs(:)
    integer, intent(in) :: requested, coarse_order
    logical, intent(in) :: plain_roe
    character(len=:), allocatable, intent(out) :: why, note
    !> each block's boundary patches (block_patch_file; absent: the blocks'
    !> faces take their cases' bc_* keys); a patch that does not coarsen
    !> stops the hierarchy above, as on one grid
    type(patch_set_t), intent(in), optional :: ps(:)
    type(face_range_t) :: r
    type(level_patches_t), allocatable :: lp(:)
    integer, allocatable :: sizes(:,:,:), ratios(:,:,:)
    integer :: b, q, s, l, nlev
    note = ''
    why = set_problem(set)
    if (len(why) > 0) return
    allocate(self%b(set%nblocks), self%label(set%nblocks), self%mine(set%nblocks))
    self%mine = .true.
    do b = 1, set%nblocks
      self%label(b) = block_label(set, b)
    end do
    do q = 1, size(set%interfaces)
      do s = 1, 2
        r = merge(set%interfaces(q)%a, set%interfaces(q)%b, s == 1)
        self%b(r%block)%phys(r%face + 1) = .false.
      end do
    end do

    ! the levels: each block's plan, cut to what every block and every interface allows
    nlev = requested
    allocate(sizes(3, requested, set%nblocks), ratios(3, requested, set%nblocks))
    do b = 1, set%nblocks
      block
        integer :: nb
        integer, allocatable :: sz(:,:), ra(:,:)
        character(len=:), allocatable :: why_b
        type(case_t) :: c
        c = cs(b)
        call plan_levels(set%blocks(b)%n - 1, [bc_is_periodic(c%bc_imin), bc_is_periodic(c%bc_jmin), &
          bc_is_periodic(c%bc_kmin)], requested, nb, sz, ra, why_b)
        sizes(:, :, b) = sz
        ratios(:, :, b) = ra
        if (nb < nlev) then
          nlev = nb
          note = trim(self%label(b))//': '//why_b
        end if
      end block
    end do
    if (present(ps)) then
      allocate(lp(set%nblocks))
      do b = 1, set%nblocks
        block
          integer :: nb
          character(len=:), allocatable :: why_p
          nb = nlev
          why_p = ''
          call coarse_patch_sets(ps(b), sizes(:, :, b), ratios(:, :, b), nb, why_p, lp(b)%sets)
          if (nb < nlev) then
            nlev = nb
            note = trim(self%label(b))//': '//why_p
          end if
        end block
      end do
    end if
    do l = 2, nlev
      do q = 1, size(set%interfaces)
        if (.not. alike(set%interfaces(q), l)) then
          note = 'level '//int_text(l)//': across '//range_text(set, set%interfaces(q)%a)//' = '// &
            range_text(set, set%interfaces(q)%b)//' the face''s directions do not coarsen alike on both sides'
          nlev = l - 1
          exit
        end if
      end do
      if (nlev < l) exit
    end do

    self%nlev = nlev
    allocate(self%weight(nlev), self%links(nlev))
    do l = 1, nlev
      self%links(l)%itf = set%interfaces
      do q = 1, size(set%interfaces)
        call coarse_range(self%links(l)%itf(q)%a, l)
        call coarse_range(self%links(l)%itf(q)%b, l)
      end do
    end do
    do b = 1, set%nblocks
      allocate(self%b(b)%level(nlev))
      associate (g => self%b(b)%level(1), n => set%blocks(b)%n)
        g%lay = make_layout(n(1) - 1, n(2) - 1, n(3) - 1)
        g%sp = make_solver_params(cs(b), g%lay)
        call allocate_fields(g%lay, g%f)
        allocate(g%xn(3, -ng:n(1)-1+ng, -ng:n(2)-1+ng, -ng:n(3)-1+ng))
        g%xn = 0.0_rk
        g%xn(:, 0:n(1)-1, 0:n(2)-1, 0:n(3)-1) = set%blocks(b)%xyz
      end associate
    end do
    call ghost_nodes(1)
    do b = 1, set%nblocks
      associate (g => self%b(b)%level(1))
        call compute_metrics(g%lay, g%xn, g%f%sf, g%f%sc, g%f%vol, g%f%xc)
      end associate
    end do
    do l = 2, nlev
      do b = 1, set%nblocks
        associate (c => self%b(b)%level(l), f => self%b(b)%level(l - 1))
          ! the coarse level's own nodes; its ghost nodes are filled for the
          ! whole set below, before the metrics
          c%lay = make_layout(sizes(1, l, b), sizes(2, l, b), sizes(3, l, b))
          allocate(c%xn(3, -ng:c%lay%ni+ng, -ng:c%lay%nj+ng, -ng:c%lay%nk+ng))
          c%xn = 0.0_rk
          c%xn(:, 0:c%lay%ni, 0:c%lay%nj, 0:c%lay%nk) = f%xn(:, 0:f%lay%ni:ratios(1, l, b), &
            0:f%lay%nj:ratios(2, l, b), 0:f%lay%nk:ratios(3, l, b))
        end associate
      end do
      call ghost_nodes(l)
      do b = 1, set%nblocks
        block
          real(rk), allocatable :: xc(:,:,:,:)
          xc = self%b(b)%level(l)%xn
          call init_level(self%b(b)%level(l), cs(b), xc, sizes(:, l, b), ratios(:, l, b), coarse_order, plain_roe, &
            1.0_rk)
        end block
      end do
    end do
    if (present(ps)) then
      do b = 1, set%nblocks
        do l = 1, nlev
          self%b(b)%level(l)%f%ps = lp(b)%sets(l)
        end do
      end do
    end if
    do l = 1, nlev
      self%weight(l) = self%cells(l)/self%cells(1)
    end do
  contains
    logical function bc_is_periodic(name)
      character(len=*), intent(in) :: name
      bc_is_periodic = trim(name) == 'periodic'
    end function bc_is_periodic

    !> Whether the face directions of interface t coarsen alike on both
    !> sides at level l (direction e of side a runs along direction
    !> |transform(e)| of side b).
    logical function alike(t, l)
      type(block_interface_t), intent(in) :: t
      integer, intent(in) :: l
      integer :: e
      alike = .true.
      do e = 1, 3
        if (e == t%a%face/2 + 1) cycle
        alike = alike .and. ratios(e, l, t%a%block) == ratios(abs(t%transform(e)), l, t%b%block)
      end do
    end function alike

    !> r (level 1's node numbers) in level l's node numbers.
    subroutine coarse_range(r, l)
      type(face_range_t), intent(inout) :: r
      integer, intent(in) :: l
      integer :: e, m
      do e = 1, 3
        m = product(ratios(e, 1:l, r%block))
        r%beg(e) = (r%beg(e) - 1)/m + 1
        r%end(e) = (r%end(e) - 1)/m + 1
      end do
    end subroutine coarse_range

    !> Level l's ghost nodes, direction by direction: the extrapolation
    !> fills both faces of direction d, then the interfaces' ghosts replace
    !> it on their faces.
    subroutine ghost_nodes(l)
      integer, intent(in) :: l
      integer :: d, bb, qq
      do d = 1, 3
        do bb = 1, size(self%b)
          associate (g => self%b(bb)%level(l))
            call fill_ghost_nodes_direction(g%xn, g%lay%ni, g%lay%nj, g%lay%nk, &
              trim(merge(cs(bb)%bc_imin, merge(cs(bb)%bc_jmin, cs(bb)%bc_kmin, d == 2), d == 1)) == 'periodic', d)
          end associate
        end do
        do qq = 1, size(self%links(l)%itf)
          associate (t => self%links(l)%itf(qq))
            associate (ga => self%b(t%a%block)%level(l), gb => self%b(t%b%block)%level(l))
              if (t%a%face/2 + 1 == d) call fill_interface_nodes(t, .true., nodes_of(ga), ga%xn, gb%xn)
              if (t%b%face/2 + 1 == d) call fill_interface_nodes(t, .false., nodes_of(gb), gb%xn, ga%xn)
            end associate
          end associate
        end do
      end do
    end subroutine ghost_nodes
  end subroutine blocks_init

  !> What keeps the solver over blocks from running set ('' if nothing):
  !> a 2D block, an interface between faces of different directions or
  !> over part of a face. From the set alone, before anything is allocated.
  function set_problem(set) result(why)
    type(grid_block_set_t), intent(in) :: set
    character(len=:), allocatable :: why
    type(face_range_t) :: r
    integer :: b, q, s
    why = ''
    do b = 1, set%nblocks
      if (set%blocks(b)%n(3) == 1) then
        why = block_label(set, b)//' is 2D (one plane of nodes); the solver over blocks takes 3D blocks so far'
        return
      end if
    end do
    do q = 1, size(set%interfaces)
      associate (t => set%interfaces(q))
        if (t%a%face/2 /= t%b%face/2) then
          why = range_text(set, t%a)//' = '//range_text(set, t%b)//': an interface between faces of '// &
            'different directions; the solver over blocks takes interfaces within one direction so far'
          return
        end if
        do s = 1, 2
          r = merge(t%a, t%b, s == 1)
          if (.not. covers_whole_face(r, set%blocks(r%block)%n)) then
            why = range_text(set, r)//': an interface over part of a face; the solver over blocks takes '// &
              'whole faces so far'
            return
          end if
        end do
      end associate
    end do
  end function set_problem

  !> A level's node counts in i, j, k.
  pure function nodes_of(g) result(n)
    type(mg_level_t), intent(in) :: g
    integer :: n(3)
    n = [g%lay%ni + 1, g%lay%nj + 1, g%lay%nk + 1]
  end function nodes_of

  !> Every block's ghost cells of level l: direction by direction, the
  !> interfaces' first (from the neighbours' interior), then the block's
  !> own faces, then the edges beyond an interface and beyond the d faces.
  !> device: the same steps on the blocks' device copies (the GPU's
  !> halo_step and own_faces, fortran/backend_blocks_gpu.f90).
  subroutine fill_set(self, l, device)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    logical, intent(in), optional :: device
    logical :: dev
    integer :: d, q, b
    dev = .false.
    if (present(device)) dev = device
    do d = 1, 3
      do q = 1, size(self%links(l)%itf)
        associate (t => self%links(l)%itf(q))
          if (t%a%face/2 + 1 == d) call self%halo_step(l, q, .true., 0, dev)
          if (t%b%face/2 + 1 == d) call self%halo_step(l, q, .false., 0, dev)
        end associate
      end do
      call self%halo_phase_end(l)
      do b = 1, size(self%b)
        if (self%holds(b)) call self%own_faces(l, b, d, dev)
      end do
      do q = 1, size(self%links(l)%itf)
        call self%halo_step(l, q, .true., d, dev)
        call self%halo_step(l, q, .false., d, dev)
      end do
      call self%halo_phase_end(l)
    end do
  end subroutine fill_set

  !> The end of a group of halo steps (the interfaces' steps of one
  !> direction, or their edges' steps), whose copies write disjoint cells
  !> and read none that another of the group writes, so that a process may
  !> run them in any order: nothing to wait for here (over MPI: the
  !> messages, fortran/backend_blocks_mpi.f90).
  subroutine no_phase_end(self, l)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l
  end subroutine no_phase_end

  !> Which blocks this process iterates (mine), once the set is made: all of them here.
  subroutine all_here(self)
    class(blocks_backend_t), intent(inout) :: self
    self%mine = .true.
  end subroutine all_here

  !> Called before every step that changes the state (over MPI: rank 0's
  !> gathered copy is then out of date): nothing here.
  subroutine nothing_to_forget(self)
    class(blocks_backend_t), intent(inout) :: self
  end subroutine nothing_to_forget

  !> Whether this process speaks and writes the run's files: the only one here.
  logical function one_process(self)
    class(blocks_backend_t), intent(in) :: self
    one_process = .true.
  end function one_process

  !> Where the blocks run, for the run's header ('' for one process).
  function nowhere_text(self) result(s)
    class(blocks_backend_t), intent(in) :: self
    character(len=:), allocatable :: s
    s = ''
  end function nowhere_text

  !> Whether this process holds block b's current state: here always.
  logical function holds_mine(self, b)
    class(blocks_backend_t), intent(in) :: self
    integer, intent(in) :: b
    holds_mine = self%mine(b)
  end function holds_mine

  !> v(:, b): a sum over block b (zero where this process does not hold
  !> it) made the same on every process: here nothing to do (over MPI: the
  !> ranks' sum, in which each block's value meets only zeros).
  subroutine sum_here(self, v)
    class(blocks_backend_t), intent(inout) :: self
    real(rk), intent(inout) :: v(:,:)
  end subroutine sum_here

  !> Step d of the halo fill (block_halos' halo_cell_boxes) of the block on
  !> side a (into_a) or b of interface q of level l, on the host, both
  !> blocks held here (an extension calls it as its parent's, so it asks
  !> nothing of the type: that would be this type's answer).
  subroutine host_halo_step(self, l, q, into_a, d, device)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l, q, d
    logical, intent(in) :: into_a, device
    if (device) error stop 'internal error: a halo step on the device of the CPU backend over blocks'
    associate (t => self%links(l)%itf(q))
      associate (ga => self%b(t%a%block)%level(l), gb => self%b(t%b%block)%level(l))
        if (into_a) then
          call fill_halo_step(t, .true., nodes_of(ga), d, ga%f%q, gb%f%q)
        else
          call fill_halo_step(t, .false., nodes_of(gb), d, gb%f%q, ga%f%q)
        end if
      end associate
    end associate
  end subroutine host_halo_step

  !> Block b's own faces of direction d at level l by its rules, on the host.
  subroutine host_own_faces(self, l, b, d, device)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l, b, d
    logical, intent(in) :: device
    if (device) error stop 'internal error: a face fill on the device of the CPU backend over blocks'
    associate (g => self%b(b)%level(l))
      call fill_ghosts_direction(g%sp, g%lay, d, g%f, self%b(b)%phys)
    end associate
  end subroutine host_own_faces

  subroutine blocks_fill_boundary(self, l)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    call self%fill_set(l)
  end subroutine blocks_fill_boundary

  !> The residual R(q) of every block of level l from the filled state
  !> (with_forcing: a coarse level's forcing added).
  subroutine residuals(self, l, cfl, with_forcing)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    logical, intent(in) :: with_forcing
    integer :: b
    call self%fill_set(l)
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (g => self%b(b)%level(l))
        call residual_of_filled_state(g%sp, g%lay, cfl, g%f, self%b(b)%phys)
        if (with_forcing .and. l > 1) call add_forcing(g%lay, g%forcing, g%f%res)
      end associate
    end do
  end subroutine residuals

  !> One iteration of level l over the set (backend_cpu's smooth, block by block).
  subroutine blocks_smooth(self, l, cfl)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    integer :: b
    call self%state_changes()
    call residuals(self, l, cfl, .true.)
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (g => self%b(b)%level(l))
        call cpu_adi_update(g%sp, g%lay, g%f)
      end associate
    end do
  end subroutine blocks_smooth

  !> backend_cpu's restrict over the set: level l's residual (forcing
  !> included), its state and residual to level l+1 block by block, the set's
  !> fill of level l+1, q0, and level l+1's forcing.
  subroutine blocks_restrict(self, l, cfl)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    integer :: b
    call self%state_changes()
    call residuals(self, l, cfl, .true.)
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (g => self%b(b)%level(l), c => self%b(b)%level(l + 1))
        call restrict_level(c%lay, c%ratio, g%f%vol, g%f%q, g%f%res, c%f%q, c%forcing)
      end associate
    end do
    call self%fill_set(l + 1)
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (c => self%b(b)%level(l + 1))
        c%q0 = c%f%q
      end associate
    end do
    call residuals(self, l + 1, cfl, .false.)
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (c => self%b(b)%level(l + 1))
        call subtract_residual(c%lay, c%f%res, c%forcing)
      end associate
    end do
  end subroutine blocks_restrict

  !> backend_cpu's prolong over the set.
  subroutine blocks_prolong(self, l)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    integer :: b
    call self%state_changes()
    call self%fill_set(l + 1)
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (g => self%b(b)%level(l), c => self%b(b)%level(l + 1))
        call coarse_correction(c%lay, c%f%q, c%q0, c%f%dq)
        call prolong_correction(g%lay, c%ratio, c%f%dq, g%f%q)
      end associate
    end do
  end subroutine blocks_prolong

  !> The RMS norms of the last residual over all cells of the set (as
  !> residual_norms computes them for one grid: res/vol, squared, averaged),
  !> the blocks' sums added in block order whichever process holds them.
  subroutine blocks_norms(self, nrm)
    class(blocks_backend_t), intent(inout) :: self
    real(rk), intent(out) :: nrm(5)
    real(rk), allocatable :: plane(:,:)
    real(rk) :: per_block(5, size(self%b))
    integer :: b
    per_block = 0.0_rk
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (g => self%b(b)%level(1))
        allocate(plane(5, g%lay%nk))
        plane = 0.0_rk
        call add_residual_plane_sums(g%lay, g%f%res, g%f%vol, plane)
        per_block(:, b) = sum(plane, dim=2)
        deallocate(plane)
      end associate
    end do
    call self%sum_blocks(per_block)
    nrm = 0.0_rk
    do b = 1, size(self%b)
      nrm = nrm + per_block(:, b)
    end do
    nrm = sqrt(nrm/self%cells(1))
  end subroutine blocks_norms

  !> The cells of level l over all blocks.
  real(rk) function set_cells(self, l)
    class(blocks_backend_t), intent(in) :: self
    integer, intent(in) :: l
    integer :: b
    set_cells = 0.0_rk
    do b = 1, size(self%b)
      associate (lay => self%b(b)%level(l)%lay)
        set_cells = set_cells + real(lay%ni, rk)*real(lay%nj, rk)*real(lay%nk, rk)
      end associate
    end do
  end function set_cells

  !> The total mass of the set's interior (the sum of the blocks', in block
  !> order whichever process holds them); unit: the mass of rho = 1 instead.
  real(rk) function set_mass(self, unit)
    class(blocks_backend_t), intent(inout) :: self
    logical, intent(in), optional :: unit
    real(rk) :: per_block(1, size(self%b))
    integer :: b
    logical :: one
    one = .false.
    if (present(unit)) one = unit
    per_block = 0.0_rk
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (g => self%b(b)%level(1))
        if (one) then
          per_block(1, b) = total_mass(g%lay, g%f%vol)
        else
          per_block(1, b) = total_mass(g%lay, g%f%vol, g%f%q)
        end if
      end associate
    end do
    call self%sum_blocks(per_block)
    set_mass = 0.0_rk
    do b = 1, size(self%b)
      set_mass = set_mass + per_block(1, b)
    end do
  end function set_mass

  !> Every block scaled by the one factor that brings the set to mass0.
  subroutine blocks_fix_mass(self)
    class(blocks_backend_t), intent(inout) :: self
    real(rk) :: m
    integer :: b
    call self%state_changes()
    m = self%set_mass()
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (g => self%b(b)%level(1))
        call rescale_to_mass(g%lay, g%f%q, self%mass0, m)
      end associate
    end do
  end subroutine blocks_fix_mass

  !> The state for the outputs: fetched (a GPU's), filled and its
  !> primitives, every block.
  subroutine blocks_host_state(self)
    class(blocks_backend_t), intent(inout) :: self
    integer :: b
    call self%fetch_state()
    call self%fill_set(1)
    do b = 1, size(self%b)
      if (.not. self%holds(b)) cycle
      associate (g => self%b(b)%level(1))
        call compute_primitives(g%sp, g%lay, g%f%q, g%f%qp)
        call fill_wall_temperatures(g%sp, g%lay, g%f, self%b(b)%phys)
      end associate
    end do
  end subroutine blocks_host_state

  !> backend's start_at_rest on every block.
  subroutine blocks_at_rest(self)
    class(blocks_backend_t), intent(inout) :: self
    integer :: b
    do b = 1, size(self%b)
      call rest_state(self%b(b)%level(1)%sp, self%b(b)%level(1)%f%q)
    end do
  end subroutine blocks_at_rest

  !> backend's start_in_free_stream on every block.
  subroutine blocks_in_free_stream(self, alpha, beta)
    class(blocks_backend_t), intent(inout) :: self
    real(rk), intent(in) :: alpha, beta
    integer :: b
    do b = 1, size(self%b)
      call free_stream_state(self%b(b)%level(1)%sp, alpha, beta, self%b(b)%level(1)%f%q)
    end do
  end subroutine blocks_in_free_stream

  !> The state is the host's already, and nothing else is held.
  subroutine blocks_nothing(self)
    class(blocks_backend_t), intent(inout) :: self
  end subroutine blocks_nothing
end module backend_blocks
