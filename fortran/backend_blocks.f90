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
!> Over MPI ranks (build/adiflow_mpi) the blocks are spread whole over the
!> ranks (distribute; ranks: the transport, fortran/block_ranks.f90): each
!> rank iterates its own, the set's fill sends the halos between ranks as
!> messages within each group of halo steps (halo_step, halo_phase_end),
!> the norms and the mass are the blocks' sums added in block order
!> (sum_blocks), and rank 0 gathers the state for the files (fetch_state):
!> the one-process run's states bit for bit.
!>
!> An interface may join faces of different directions, and its faces'
!> own directions may change places (block_halos' transform): the state is
!> Cartesian, so a halo is a copy, and the set's fill takes each edge once
!> the neighbour's ghosts it comes from are filled (block_halos'
!> edge_step).
!>
!> Not yet: interfaces over part of a face (the driver cuts the block at
!> the part's ends first, fortran/block_split.f90), 2D blocks (the driver
!> makes a 2D file's one cell thick): init refuses what it cannot run,
!> saying why.
module backend_blocks
  use kinds, only: rk, ng
  use text_util, only: int_text
  use grid_layout, only: make_layout
  use solver_params, only: BC_PERIODIC
  use case_config, only: case_t, make_solver_params
  use flow_fields, only: allocate_fields
  use grid_generation, only: fill_ghost_nodes_direction
  use grid_blocks, only: grid_block_set_t, block_interface_t, face_range_t, range_text, block_label, covers_whole_face
  use block_halos, only: copy_cells, edge_step, directions_along, fill_interface_nodes, halo_cell_boxes, pack_cells, &
    unpack_cells, CORNER_STEP, MAX_HALO_BOXES
  use block_ranks, only: block_ranks_t
  use metrics, only: compute_metrics
  use ghost_fill, only: fill_ghosts_direction, fill_wall_temperatures
  use primitives, only: compute_primitives
  use solver_cpu, only: residual_of_filled_state, cpu_adi_update, add_forcing
  use mass_constraint, only: total_mass, mass_scale_factor, scale_state
  use residual_norms, only: add_residual_plane_sums
  use multigrid_levels, only: mg_level_t, plan_levels, init_level
  use multigrid_transfer, only: restrict_level, subtract_residual, coarse_correction, prolong_correction
  use backend, only: backend_t, rest_state, free_stream_state
  use boundary_patches, only: patch_set_t, coarse_patch_sets
  implicit none
  private
  public :: blocks_backend_t, block_levels_t, set_problem, flat_block_problem, nodes_of

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

  !> A halo box on its way between two ranks: the receiving block's level
  !> and cells, and the values (a pointer, so that the buffer the transport
  !> reads or fills stays where it is while the list grows).
  type :: halo_message_t
    integer :: block = 0, l = 0
    integer :: lo(3) = 0, hi(3) = 0
    real(rk), pointer, contiguous :: buf(:) => null()
  end type halo_message_t

  type, extends(backend_t) :: blocks_backend_t
    type(block_levels_t), allocatable :: b(:)
    type(level_links_t), allocatable :: links(:)
    !> the blocks' names in messages ('block 2', 'zone "wake"')
    character(len=64), allocatable :: label(:)
    !> a run whose blocks are spread over MPI ranks (build/adiflow_mpi):
    !> its transport (fortran/block_ranks.f90), and owner(b), the rank that
    !> iterates block b; not allocated for one process
    class(block_ranks_t), allocatable :: ranks
    integer, allocatable :: owner(:)
    !> the blocks this process iterates (all of them in a run of one process)
    logical, allocatable :: mine(:)
    !> the host holds every block's current level-1 state (fetch_state since
    !> the last step that changed it; over the ranks: rank 0 does)
    logical :: gathered = .false.
    !> the halo messages of the group of halo steps under way
    type(halo_message_t), allocatable :: inbox(:), outbox(:)
    integer :: nin = 0, nout = 0
  contains
    procedure :: init => blocks_init
    procedure :: distribute
    procedure :: fill_set
    procedure, non_overridable :: halo_step
    procedure, non_overridable :: halo_phase_end
    procedure, non_overridable :: halo_boxes
    procedure, non_overridable :: corner_from_own_fill
    procedure :: copy_halo => host_copy_halo
    !> a halo box between two ranks: sent, received, and the group's end
    !> (through host memory here; the GPU over ranks carries them GPU to GPU)
    procedure :: send_halo => host_send_halo
    procedure :: recv_halo => host_recv_halo
    procedure :: end_halos => host_end_halos
    procedure :: pack_halo => host_pack_halo
    procedure :: unpack_halo => host_unpack_halo
    procedure :: own_faces => host_own_faces
    procedure :: holds
    procedure :: sum_blocks
    procedure :: any_process => blocks_any
    procedure :: is_root
    procedure :: where_text
    procedure :: state_changes
    procedure :: smooth => blocks_smooth
    procedure :: restrict => blocks_restrict
    procedure :: prolong => blocks_prolong
    procedure :: norms => blocks_norms
    procedure :: residual_sums => host_residual_sums
    procedure :: fix_mass => blocks_fix_mass
    procedure :: set_mass
    procedure :: block_mass => host_block_mass
    procedure :: scale_block => host_scale_block
    procedure :: start => blocks_nothing
    procedure :: fetch_state => gather_state
    procedure :: download_mine => blocks_nothing
    procedure :: share_state
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
  !> flat_block_problem's, or an interface over part of a face (which
  !> the driver cuts away first, fortran/block_split.f90). From the set
  !> alone, before anything is allocated.
  function set_problem(set) result(why)
    type(grid_block_set_t), intent(in) :: set
    character(len=:), allocatable :: why
    type(face_range_t) :: r
    integer :: q, s
    why = flat_block_problem(set)
    if (len(why) > 0) return
    do q = 1, size(set%interfaces)
      do s = 1, 2
        r = merge(set%interfaces(q)%a, set%interfaces(q)%b, s == 1)
        if (.not. covers_whole_face(r, set%blocks(r%block)%n)) then
          why = range_text(set, r)//': an interface over part of a face; the solver over blocks takes whole '// &
            'faces (the driver cuts the block at the part''s ends first)'
          return
        end if
      end do
    end do
  end function set_problem

  !> A 2D block ('' if none).
  function flat_block_problem(set) result(why)
    type(grid_block_set_t), intent(in) :: set
    character(len=:), allocatable :: why
    integer :: b
    why = ''
    do b = 1, set%nblocks
      if (set%blocks(b)%n(3) == 1) then
        why = block_label(set, b)//' is 2D (one plane of nodes); the solver over blocks takes 3D blocks so far'
        return
      end if
    end do
  end function flat_block_problem

  !> A level's node counts in i, j, k.
  pure function nodes_of(g) result(n)
    type(mg_level_t), intent(in) :: g
    integer :: n(3)
    n = [g%lay%ni + 1, g%lay%nj + 1, g%lay%nk + 1]
  end function nodes_of

  !> Every block's ghost cells of level l: direction by direction, the
  !> interfaces' first (from the neighbours' interior), then the block's
  !> own faces, then the edges beyond an interface whose neighbour's ghosts
  !> they come from are now filled (block_halos' edge_step: the edges
  !> beyond the d faces where the blocks' directions line up); last the
  !> corners beyond the interfaces, from the neighbours' edges.
  !> device: the same steps on the blocks' device copies (the GPU's
  !> halo_step and own_faces, fortran/backend_blocks_gpu.f90).
  subroutine fill_set(self, l, device)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    logical, intent(in), optional :: device
    logical :: dev
    integer :: d, q, b, e
    dev = .false.
    if (present(device)) dev = device
    do d = 1, 3
      do q = 1, size(self%links(l)%itf)
        associate (t => self%links(l)%itf(q))
          if (t%a%face/2 + 1 == d) call self%halo_step(l, q, .true., 0, dev)
          if (t%b%face/2 + 1 == d) call self%halo_step(l, q, .false., 0, dev)
        end associate
      end do
      call self%halo_phase_end(dev)
      do b = 1, size(self%b)
        if (self%holds(b)) call self%own_faces(l, b, d, dev)
      end do
      do q = 1, size(self%links(l)%itf)
        do e = 1, 3
          if (edge_step(self%links(l)%itf(q), .true., e) == d) call self%halo_step(l, q, .true., e, dev)
          if (edge_step(self%links(l)%itf(q), .false., e) == d) call self%halo_step(l, q, .false., e, dev)
        end do
      end do
      call self%halo_phase_end(dev)
    end do
    do q = 1, size(self%links(l)%itf)
      call self%halo_step(l, q, .true., CORNER_STEP, dev)
      call self%halo_step(l, q, .false., CORNER_STEP, dev)
    end do
    call self%halo_phase_end(dev)
  end subroutine fill_set

  !> The blocks over the processes, once the set is made: one process
  !> iterates them all; over MPI ranks assign_blocks' map, the same on every
  !> rank.
  subroutine distribute(self)
    class(blocks_backend_t), intent(inout) :: self
    real(rk) :: cells(size(self%b))
    integer :: b
    self%gathered = .false.
    if (.not. allocated(self%ranks)) then
      self%mine = .true.
      return
    end if
    do b = 1, size(self%b)
      associate (lay => self%b(b)%level(1)%lay)
        cells(b) = real(lay%ni, rk)*real(lay%nj, rk)*real(lay%nk, rk)
      end associate
    end do
    self%owner = assign_blocks(cells, self%ranks%nranks)
    self%mine = self%owner == self%ranks%rank
  end subroutine distribute

  !> owner(b) for blocks of cells(b) cells over nranks ranks: the largest
  !> block first, each to the rank with the fewest cells so far (the lowest
  !> rank on a tie).
  function assign_blocks(cells, nranks) result(owner)
    real(rk), intent(in) :: cells(:)
    integer, intent(in) :: nranks
    integer :: owner(size(cells))
    real(rk) :: load(0:nranks - 1)
    logical :: done(size(cells))
    integer :: k, b, r
    load = 0.0_rk
    done = .false.
    do k = 1, size(cells)
      b = maxloc(cells, dim=1, mask=.not. done)
      r = minloc(load, dim=1) - 1
      owner(b) = r
      load(r) = load(r) + cells(b)
      done(b) = .true.
    end do
  end function assign_blocks

  !> Whether this process holds block b's current state: its own blocks,
  !> and every block on rank 0 once gathered (the outputs).
  logical function holds(self, b)
    class(blocks_backend_t), intent(in) :: self
    integer, intent(in) :: b
    holds = self%mine(b) .or. (self%gathered .and. self%is_root())
  end function holds

  !> Whether this process speaks and writes the run's files.
  logical function is_root(self)
    class(blocks_backend_t), intent(in) :: self
    is_root = .true.
    if (allocated(self%ranks)) is_root = self%ranks%rank == 0
  end function is_root

  !> Where the blocks run, for the run's header ('' for one process).
  function where_text(self) result(s)
    class(blocks_backend_t), intent(in) :: self
    character(len=:), allocatable :: s, list
    integer :: r, b
    s = ''
    if (.not. allocated(self%ranks)) return
    s = 'blocks over '//int_text(self%ranks%nranks)//' MPI ranks (the largest first, each to the rank with the '// &
      'fewest cells; every rank keeps the whole set''s grid):'
    do r = 0, min(self%ranks%nranks, 8) - 1
      list = ''
      do b = 1, size(self%b)
        if (self%owner(b) /= r) cycle
        if (len(list) > 0) list = list//', '
        list = list//int_text(b)
      end do
      if (r > 0) s = s//';'
      s = s//' rank '//int_text(r)//': block '//list
    end do
    if (self%ranks%nranks > 8) s = s//'; ...'
  end function where_text

  !> Called before every step that changes the state: the host's gathered
  !> copy is out of date from then on.
  subroutine state_changes(self)
    class(blocks_backend_t), intent(inout) :: self
    self%gathered = .false.
  end subroutine state_changes

  !> v(:, b): a sum over block b, zero where this process does not hold it,
  !> made the same on every process (over the ranks: their sum, in which
  !> each block's value meets only zeros, which leaves it exact).
  subroutine sum_blocks(self, v)
    class(blocks_backend_t), intent(inout) :: self
    real(rk), intent(inout) :: v(:,:)
    if (allocated(self%ranks)) call self%ranks%sum_all(v, size(v))
  end subroutine sum_blocks

  !> .true. when flag is .true. on any process of the run.
  logical function blocks_any(self, flag)
    class(blocks_backend_t), intent(in) :: self
    logical, intent(in) :: flag
    blocks_any = flag
    if (allocated(self%ranks)) blocks_any = self%ranks%any_true(flag)
  end function blocks_any

  !> Step d of the halo fill (block_halos' halo_cell_boxes) of the block on
  !> side a (into_a) or b of interface q of level l. Both blocks held here:
  !> copy_halo. On two ranks, a message: the sender packs the receiver's
  !> boxes in their order (pack_halo), the receiver unpacks them at the
  !> group's end (halo_phase_end, unpack_halo). Within a group the copies
  !> write disjoint cells and read none the group writes, so the order in
  !> which a rank meets them changes nothing. While rank 0 holds the
  !> gathered state (the outputs) only its own copies run.
  subroutine halo_step(self, l, q, into_a, d, device)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l, q, d
    logical, intent(in) :: into_a, device
    type(face_range_t) :: r, s
    integer :: nbox, lo(3, MAX_HALO_BOXES), hi(3, MAX_HALO_BOXES), t(3), m, rb, sb
    call self%halo_boxes(l, q, into_a, d, rb, sb, nbox, lo, hi, r, s, t)
    if (self%holds(rb) .and. self%holds(sb)) then
      call self%copy_halo(l, q, into_a, d, device)
      return
    end if
    if (self%gathered .or. .not. (self%mine(rb) .or. self%mine(sb))) return
    do m = 1, nbox
      if (self%mine(rb)) then
        call self%recv_halo(l, rb, lo(:, m), hi(:, m), device, self%owner(sb))
      else
        call self%send_halo(l, sb, lo(:, m), hi(:, m), r, s, t, device, self%owner(rb))
      end if
    end do
  end subroutine halo_step

  !> The box lo..hi of a block on rank peer, from block sb's cells of level
  !> l here (the map r, s, t): packed into a message through host memory
  !> (pack_halo) and posted to the transport, done at the group's end.
  subroutine host_send_halo(self, l, sb, lo, hi, r, s, t, device, peer)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l, sb, lo(3), hi(3), t(3), peer
    type(face_range_t), intent(in) :: r, s
    logical, intent(in) :: device
    call add_message(self%outbox, self%nout, sb, l, lo, hi)
    associate (msg => self%outbox(self%nout))
      call self%pack_halo(l, sb, lo, hi, r, s, t, device, msg%buf)
      call self%ranks%post_send(msg%buf, size(msg%buf), peer)
    end associate
  end subroutine host_send_halo

  !> The box lo..hi of block rb's level l from rank peer: a message posted
  !> to the transport, unpacked at the group's end (unpack_halo).
  subroutine host_recv_halo(self, l, rb, lo, hi, device, peer)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l, rb, lo(3), hi(3), peer
    logical, intent(in) :: device
    call add_message(self%inbox, self%nin, rb, l, lo, hi)
    associate (msg => self%inbox(self%nin))
      call self%ranks%post_recv(msg%buf, size(msg%buf), peer)
    end associate
  end subroutine host_recv_halo

  !> Step d of the halo fill of interface q of level l into side a (into_a)
  !> or b: the receiving and the sending block, and block_halos'
  !> halo_cell_boxes of the receiving block (its boxes and map).
  subroutine halo_boxes(self, l, q, into_a, d, rb, sb, nbox, lo, hi, r, s, t)
    class(blocks_backend_t), intent(in) :: self
    integer, intent(in) :: l, q, d
    logical, intent(in) :: into_a
    integer, intent(out) :: rb, sb, nbox, lo(3, MAX_HALO_BOXES), hi(3, MAX_HALO_BOXES), t(3)
    type(face_range_t), intent(out) :: r, s
    logical :: left(2, 2)
    integer :: side, side2
    associate (itf => self%links(l)%itf(q))
      rb = merge(itf%a%block, itf%b%block, into_a)
      sb = merge(itf%b%block, itf%a%block, into_a)
      if (d == CORNER_STEP) then
        do side2 = 1, 2
          do side = 1, 2
            left(side, side2) = self%corner_from_own_fill(l, q, into_a, [side, side2])
          end do
        end do
        call halo_cell_boxes(itf, into_a, nodes_of(self%b(rb)%level(l)), self%b(rb)%phys, d, nbox, lo, hi, r, s, t, left)
      else
        call halo_cell_boxes(itf, into_a, nodes_of(self%b(rb)%level(l)), self%b(rb)%phys, d, nbox, lo, hi, r, s, t)
      end if
    end associate
  end subroutine halo_boxes

  !> Whether the receiving block's own fills make the corner beyond interface
  !> q of level l (its side a when into_a, else b) and beyond the block's
  !> faces of the two directions along it (directions_along) on sides sd
  !> (1: min, 2: max) from final edges, so that the corner step leaves it:
  !> the later of those faces that the block fills itself, direction big,
  !> writes the corner last, from the edge beyond the interface and the
  !> other face, which must be final before step big. That edge's writer is
  !> the edge step of the interface of the lower direction of the two faces
  !> (block_halos' edge_step); an own face of the lower direction fills
  !> it before that copy. Blocks whose directions line up (the interface's
  !> edge steps at their own directions) and one own face of a later
  !> direction than the interface's keep their own fills' corners, as
  !> before the corner step; a corner beyond three interfaces, or beyond an
  !> interface whose edges come later, is the neighbour's.
  logical function corner_from_own_fill(self, l, q, into_a, sd) result(own)
    class(blocks_backend_t), intent(in) :: self
    integer, intent(in) :: l, q, sd(2)
    logical, intent(in) :: into_a
    integer :: rb, dn, e(2), big, x, sx, w, qq, face
    associate (itf => self%links(l)%itf(q))
      rb = merge(itf%a%block, itf%b%block, into_a)
      dn = merge(itf%a%face, itf%b%face, into_a)/2 + 1
      e = directions_along(dn)
      associate (phys => self%b(rb)%phys)
        if (phys(2*e(2) - 2 + sd(2))) then
          big = 2
        else if (phys(2*e(1) - 2 + sd(1))) then
          big = 1
        else
          own = .false.
          return
        end if
        x = e(3 - big)
        sx = sd(3 - big)
        face = 2*x - 2 + sx
        if (phys(face) .or. dn < x) then
          w = edge_step(itf, into_a, x)
        else
          ! the edge beyond two interfaces is the other one's (the lower direction's)
          w = huge(w)
          do qq = 1, size(self%links(l)%itf)
            associate (o => self%links(l)%itf(qq))
              if (o%a%block == rb .and. o%a%face + 1 == face) w = edge_step(o, .true., dn)
              if (o%b%block == rb .and. o%b%face + 1 == face) w = edge_step(o, .false., dn)
            end associate
          end do
        end if
      end associate
    end associate
    own = w < e(big)
  end function corner_from_own_fill

  !> A message of the box lo..hi (five values a cell) at the end of list.
  subroutine add_message(list, n, block, l, lo, hi)
    type(halo_message_t), allocatable, intent(inout) :: list(:)
    integer, intent(inout) :: n
    integer, intent(in) :: block, l, lo(3), hi(3)
    type(halo_message_t), allocatable :: bigger(:)
    if (.not. allocated(list)) allocate(list(16))
    if (n == size(list)) then
      allocate(bigger(2*n))
      bigger(1:n) = list
      call move_alloc(bigger, list)
    end if
    n = n + 1
    list(n)%block = block
    list(n)%l = l
    list(n)%lo = lo
    list(n)%hi = hi
    allocate(list(n)%buf(5*product(hi - lo + 1)))
  end subroutine add_message

  !> The end of a group of halo steps (one direction's interfaces, their
  !> edges, the corners): the messages done (end_halos).
  subroutine halo_phase_end(self, device)
    class(blocks_backend_t), intent(inout) :: self
    logical, intent(in) :: device
    call self%end_halos(device)
  end subroutine halo_phase_end

  !> end_halos through host memory: the transport's messages waited for,
  !> each received box unpacked.
  subroutine host_end_halos(self, device)
    class(blocks_backend_t), intent(inout) :: self
    logical, intent(in) :: device
    integer :: m
    if (self%nin + self%nout == 0) return
    call self%ranks%wait_all()
    do m = 1, self%nin
      associate (msg => self%inbox(m))
        call self%unpack_halo(msg%l, msg%block, msg%lo, msg%hi, device, msg%buf)
        deallocate(msg%buf)
      end associate
    end do
    do m = 1, self%nout
      deallocate(self%outbox(m)%buf)
    end do
    self%nin = 0
    self%nout = 0
  end subroutine host_end_halos

  !> copy_halo on the host: both blocks' state here (an extension calls it
  !> as its parent's for the host).
  subroutine host_copy_halo(self, l, q, into_a, d, device)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l, q, d
    logical, intent(in) :: into_a, device
    type(face_range_t) :: r, s
    integer :: nbox, lo(3, MAX_HALO_BOXES), hi(3, MAX_HALO_BOXES), t(3), m, rb, sb
    if (device) error stop 'internal error: a halo copy on the device of the CPU backend over blocks'
    call self%halo_boxes(l, q, into_a, d, rb, sb, nbox, lo, hi, r, s, t)
    do m = 1, nbox
      call copy_cells(lo(:, m), hi(:, m), r, s, t, self%b(rb)%level(l)%f%q, self%b(sb)%level(l)%f%q)
    end do
  end subroutine host_copy_halo

  !> buf: the cells of block sb's level l that cells lo..hi of the
  !> receiving block take (block_halos' map r, s, t), in the box's order,
  !> five values each; from the host's state.
  subroutine host_pack_halo(self, l, sb, lo, hi, r, s, t, device, buf)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l, sb, lo(3), hi(3), t(3)
    type(face_range_t), intent(in) :: r, s
    logical, intent(in) :: device
    real(rk), intent(inout) :: buf(:)
    if (device) error stop 'internal error: a halo pack on the device of the CPU backend over blocks'
    call pack_cells(lo, hi, r, s, t, self%b(sb)%level(l)%f%q, buf)
  end subroutine host_pack_halo

  !> cells lo..hi of block rb's level l from buf (host_pack_halo's order).
  subroutine host_unpack_halo(self, l, rb, lo, hi, device, buf)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: l, rb, lo(3), hi(3)
    logical, intent(in) :: device
    real(rk), intent(in) :: buf(:)
    if (device) error stop 'internal error: a halo unpack on the device of the CPU backend over blocks'
    call unpack_cells(lo, hi, buf, self%b(rb)%level(l)%f%q)
  end subroutine host_unpack_halo

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
    real(rk) :: per_block(5, size(self%b))
    integer :: b
    per_block = 0.0_rk
    do b = 1, size(self%b)
      if (self%mine(b)) per_block(:, b) = self%residual_sums(b)
    end do
    call self%sum_blocks(per_block)
    nrm = 0.0_rk
    do b = 1, size(self%b)
      nrm = nrm + per_block(:, b)
    end do
    nrm = sqrt(nrm/self%cells(1))
  end subroutine blocks_norms

  !> Block b's sums of (res/vol)^2 over its cells, its planes' sums added
  !> in k order (residual_norms' order), from the host's residual.
  function host_residual_sums(self, b) result(v)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: b
    real(rk) :: v(5)
    real(rk), allocatable :: plane(:,:)
    associate (g => self%b(b)%level(1))
      allocate(plane(5, g%lay%nk))
      plane = 0.0_rk
      call add_residual_plane_sums(g%lay, g%f%res, g%f%vol, plane)
      v = sum(plane, dim=2)
    end associate
  end function host_residual_sums

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
      if (self%mine(b)) per_block(1, b) = self%block_mass(b, one)
    end do
    call self%sum_blocks(per_block)
    set_mass = 0.0_rk
    do b = 1, size(self%b)
      set_mass = set_mass + per_block(1, b)
    end do
  end function set_mass

  !> Block b's mass (total_mass: row sums, planes in k order); unit: that of
  !> rho = 1 (the grid alone). From the host's state.
  real(rk) function host_block_mass(self, b, unit)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: b
    logical, intent(in) :: unit
    associate (g => self%b(b)%level(1))
      if (unit) then
        host_block_mass = total_mass(g%lay, g%f%vol)
      else
        host_block_mass = total_mass(g%lay, g%f%vol, g%f%q)
      end if
    end associate
  end function host_block_mass

  !> Block b's interior state times s, on the host.
  subroutine host_scale_block(self, b, s)
    class(blocks_backend_t), intent(inout) :: self
    integer, intent(in) :: b
    real(rk), intent(in) :: s
    associate (g => self%b(b)%level(1))
      call scale_state(g%lay, g%f%q, s)
    end associate
  end subroutine host_scale_block

  !> Every block scaled by the one factor that brings the set to mass0
  !> (mass_constraint's rescale_to_mass over the set).
  subroutine blocks_fix_mass(self)
    class(blocks_backend_t), intent(inout) :: self
    real(rk) :: s
    integer :: b
    call self%state_changes()
    s = mass_scale_factor(self%mass0, self%set_mass())
    do b = 1, size(self%b)
      if (self%mine(b)) call self%scale_block(b, s)
    end do
  end subroutine blocks_fix_mass

  !> Every block's level-1 state on the host (the device's first, download_mine),
  !> and over the ranks on rank 0; once per state.
  subroutine gather_state(self)
    class(blocks_backend_t), intent(inout) :: self
    integer :: b
    if (self%gathered) return
    call self%download_mine()
    if (allocated(self%ranks)) then
      do b = 1, size(self%b)
        associate (q => self%b(b)%level(1)%f%q)
          call self%ranks%to_root(q, size(q), self%owner(b))
        end associate
      end do
    end if
    self%gathered = .true.
  end subroutine gather_state

  !> Rank 0's level-1 state of every block to every rank (after rank 0
  !> read a restart set); nothing to do for one process.
  subroutine share_state(self)
    class(blocks_backend_t), intent(inout) :: self
    integer :: b
    if (.not. allocated(self%ranks)) return
    do b = 1, size(self%b)
      associate (q => self%b(b)%level(1)%f%q)
        call self%ranks%from_root(q, size(q))
      end associate
    end do
  end subroutine share_state

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
