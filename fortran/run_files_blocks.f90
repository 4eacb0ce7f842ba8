!> The files of a run on a multi-block grid (build/adiflow with a grid file
!> of several blocks, fortran/blocks_driver.f90): the restart set (one
!> file per block, restart.bNNNNN.itM.bin, and the index restart.blocks
!> naming the iteration of the complete set) and flow.vtm, ParaView's
!> multi-block file, listing one flow.bNNNNN.vts per block; with
!> write_plot3d flow.xyz and flow.q of all blocks, the grid file's order;
!> with write_cgns flow.cgns, a zone per block with its BCs and 1-to-1
!> interfaces.
!>
!> The restart set is crash-safe as adiflow_mpi's rank set is
!> (fortran/run_files_mpi.f90): every block's file of the iteration is
!> written (verified, renamed into place), then the index is committed
!> (temp + rename), and only then are the files of older sets removed. A
!> crash at any point leaves the index naming a complete set. Each block's
!> file records its block number and the number of blocks in the dump
!> header's place (rank = block - 1, npj = blocks, npk = 1), so that a file
!> under another block's name is refused.
module run_files_blocks
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit
  use kinds, only: rk, ik8
  use text_util, only: int_text
  use backend, only: backend_t
  use backend_blocks, only: blocks_backend_t
  use run_files, only: run_files_t, finite_state_fetched, old_restart_note
  use field_io, only: write_field_dump, read_field_dump
  use, intrinsic :: iso_c_binding, only: c_int64_t, c_int32_t, c_double
  use cgns_output, only: cgns_zone_arrays, write_cgns_zones
  use grid_blocks, only: face_range_t
  use block_halos, only: interface_image, inverse
  use output_vtk, only: write_vts, series_final
  use output_tecplot, only: tecplot_open, tecplot_zone
  use plot3d_output, only: plot3d_node_values, write_plot3d_files
  use output_file, only: out_file_t, out_open, out_check, out_commit
  use boundary_patches, only: patch_set_t
  use wall_loads, only: patch_load_t, has_wall_patches
  use output_wall_loads, only: open_forces_csv, add_wall_loads, wall_patch_loads
  use sys_interface, only: regular_file, remove_old_block_restarts
  implicit none
  private
  public :: block_set_files_t, block_vts_name, block_restart_name

  character(len=*), parameter :: index_tag = 'ADIFLOW-BLOCKS-RESTART'

  type, extends(run_files_t) :: block_set_files_t
    integer :: nblocks = 0
    character(len=32), allocatable :: zone_names(:)   !< a CGNS grid file's zone names (flow.cgns keeps them)
  contains
    procedure :: writes_forces => set_forces
    procedure :: grid_patches => set_patch_list
    procedure :: patch_forces => set_loads
    procedure :: read_restart => read_block_restarts
    procedure :: save_restart => save_block_restarts
    procedure :: write_restart_set
    procedure :: write_flow_vts => write_block_vtm
    procedure :: write_outputs => write_block_outputs
  end type block_set_files_t

contains

  !> "flow.b00002.vts": block b's piece of flow.vtm.
  function block_vts_name(b, stem) result(s)
    integer, intent(in) :: b
    !> the data set's name (default flow; a snapshot's flow_0000100)
    character(len=*), intent(in), optional :: stem
    character(len=:), allocatable :: s
    character(len=24) :: t
    write(t, '(a,i5.5,a)') '.b', b, '.vts'
    s = 'flow'
    if (present(stem)) s = stem
    s = s//trim(t)
  end function block_vts_name

  !> "restart.b00002.it500.bin": block b's file of the set of iteration iter.
  function block_restart_name(b, iter) result(s)
    integer, intent(in) :: b
    integer(ik8), intent(in) :: iter
    character(len=:), allocatable :: s
    character(len=48) :: t
    write(t, '(a,i5.5,a,i0,a)') 'restart.b', b, '.it', iter, '.bin'
    s = trim(t)
  end function block_restart_name

  !> Block b's place in its dump header (fortran/field_io.f90's place):
  !> block b - 1 of nb, its own cells, no offset.
  function block_place(b, nb, lay_n) result(p)
    integer, intent(in) :: b, nb, lay_n(3)
    integer :: p(9)
    p = [b - 1, nb, 1, lay_n, 0, 0, 0]
  end function block_place

  !> Whether the loop writes forces.dat: some block has a wall or lid patch.
  logical function set_forces(self, be)
    class(block_set_files_t), intent(in) :: self
    class(backend_t), intent(in) :: be
    integer :: b
    set_forces = .false.
    select type (be)
    class is (blocks_backend_t)
      do b = 1, size(be%b)
        set_forces = set_forces .or. has_wall_patches(be%b(b)%level(1)%f%ps)
      end do
    end select
    if (self%cs%monitor_forces .and. .not. set_forces .and. self%root) write(output_unit, '(a)') &
      '  note: monitor_forces: no block has a wall or lid patch, so there are no forces to show'
  end function set_forces

  !> The blocks' patches one after another (forces.dat's header): patch n
  !> of block b is number n + the patches of the blocks before it.
  function set_patch_list(self, be) result(ps)
    class(block_set_files_t), intent(in) :: self
    class(backend_t), intent(in) :: be
    type(patch_set_t) :: ps
    integer :: b
    allocate(ps%p(0))
    select type (be)
    class is (blocks_backend_t)
      do b = 1, size(be%b)
        if (allocated(be%b(b)%level(1)%f%ps%p)) ps%p = [ps%p, be%b(b)%level(1)%f%ps%p]
      end do
    end select
  end function set_patch_list

  !> The force coefficients of every wall or lid patch, numbered as
  !> set_patch_list numbers them (host_state done).
  subroutine set_loads(self, be, loads)
    class(block_set_files_t), intent(in) :: self
    class(backend_t), intent(in) :: be
    type(patch_load_t), allocatable, intent(out) :: loads(:)
    integer :: b
    allocate(loads(0))
    select type (be)
    class is (blocks_backend_t)
      do b = 1, size(be%b)
        associate (g => be%b(b)%level(1))
          if (allocated(g%f%ps%p)) loads = [loads, wall_patch_loads(g%sp, g%lay, g%f%ps, g%f)]
        end associate
      end do
    end select
  end subroutine set_loads

  !> The restart set of iteration iter (see the module's header); only from
  !> a finite state.
  logical function save_block_restarts(self, be, iter, ref) result(saved)
    class(block_set_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    saved = finite_state_fetched(be)
    if (.not. saved) return
    call self%write_restart_set(be, iter, ref)
  end function save_block_restarts

  !> The restart set of iteration iter from the fetched state (every block's
  !> file, the index, then the older set removed).
  subroutine write_restart_set(self, be, iter, ref)
    class(block_set_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    type(out_file_t) :: idx
    integer :: b, ios
    character(len=512) :: msg
    character(len=:), allocatable :: why
    select type (be)
    class is (blocks_backend_t)
      do b = 1, size(be%b)
        associate (g => be%b(b)%level(1))
          call write_field_dump(self%dir//'/'//block_restart_name(b, iter), g%lay, g%f%q, iter, ref, &
            block_place(b, size(be%b), [g%lay%ni, g%lay%nj, g%lay%nk]))
        end associate
      end do
    end select
    call out_open(idx, self%dir//'/restart.blocks')
    write(idx%unit, '(a,1x,i0)', iostat=ios, iomsg=msg) index_tag, 1
    call out_check(idx, ios, msg)
    write(idx%unit, '(a,1x,i0)', iostat=ios, iomsg=msg) 'blocks', self%nblocks
    call out_check(idx, ios, msg)
    write(idx%unit, '(a,1x,i0)', iostat=ios, iomsg=msg) 'iteration', iter
    call out_check(idx, ios, msg)
    call out_commit(idx)
    ! a file left behind wastes space but harms no set: a note, not a stop
    if (remove_old_block_restarts(self%dir, iter, why) /= 0) write(error_unit, '(a)') &
      self%prog//': note: an older restart file stays: '//why
  end subroutine write_restart_set

  !> The set named by restart.blocks into level 1 of every block: the index
  !> checked against the grid's block count, each block's file against its
  !> place, the set against one reference residual. why: what stops the run
  !> with exit code 2 ('' if nothing does; a bad file stops it in
  !> read_field_dump already).
  subroutine read_block_restarts(self, be, it0, res0, why)
    class(block_set_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(out) :: it0
    real(rk), intent(out) :: res0(5)
    character(len=:), allocatable, intent(out) :: why
    integer :: u, ios, version, nb, b, fversion, vmin
    integer(ik8) :: hit, rit
    real(rk) :: r(5)
    character(len=64) :: tag, t1, t2
    character(len=:), allocatable :: path
    it0 = 0
    res0 = 0.0_rk
    path = self%dir//'/restart.blocks'
    ! checked before the open: opening a FIFO in its place would block
    ios = 1
    if (regular_file(path)) open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) then
      why = 'restart index "'//path//'" does not exist or is not a regular file (a multi-block run writes it '// &
        'with restart.bNNNNN.itN.bin at every restart_interval and when it stops)'
      return
    end if
    read(u, *, iostat=ios) tag, version
    if (ios == 0) read(u, *, iostat=ios) t1, nb
    if (ios == 0) read(u, *, iostat=ios) t2, hit
    close(u)
    if (ios /= 0 .or. tag /= index_tag .or. t1 /= 'blocks' .or. t2 /= 'iteration') then
      why = '"'//path//'" is damaged (cannot read its three lines)'
      return
    end if
    if (version /= 1) then
      why = '"'//path//'": index version '//int_text(version)//' is not supported (this build reads 1)'
      return
    end if
    if (hit < 0) then
      why = '"'//path//'": a negative iteration: the index is damaged'
      return
    end if
    if (nb /= self%nblocks) then
      why = 'the restart set holds '//int_text(nb)//' blocks but this run has '//int_text(self%nblocks)// &
        ': restart with the grid the run was started on, cut into as many blocks (min_blocks, or adiflow_mpi '// &
        'on the same number of ranks where it had more ranks than blocks)'
      return
    end if
    vmin = 3
    select type (be)
    class is (blocks_backend_t)
      do b = 1, size(be%b)
        associate (g => be%b(b)%level(1))
          call read_field_dump(self%dir//'/'//block_restart_name(b, hit), g%lay, g%f%q, rit, r, &
            self%cs%accept_old_restart, fversion, block_place(b, nb, [g%lay%ni, g%lay%nj, g%lay%nk]))
        end associate
        vmin = min(vmin, fversion)
        if (rit /= hit) then
          why = 'restart file "'//self%dir//'/'//block_restart_name(b, hit)//'" holds iteration '// &
            int_text(int(rit))//', not the '//int_text(int(hit))//' restart.blocks names: not one restart set'
          return
        end if
        if (b == 1) res0 = r
        if (any(r /= res0)) then
          why = 'the block restart files hold different reference residuals (not one restart set?); use an '// &
            'older copy or start afresh'
          return
        end if
      end do
    end select
    it0 = hit
    why = ''
    write(output_unit, '(a,i0)') '  restarting from '//path//' + restart.bNNNNN.itN.bin at iteration ', it0
    call old_restart_note(output_unit, 'the block restart set', vmin, it0)
  end subroutine read_block_restarts

  !> dir/stem.vtm, ParaView's multi-block file, and its pieces
  !> stem.bNNNNN.vts, one a block, from the host state (host_state done):
  !> the final state (flow) or a snapshot (flow_NNNNNNN, listed in flow.pvd).
  subroutine write_block_vtm(self, be, stem)
    class(block_set_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    character(len=*), intent(in) :: stem
    type(out_file_t) :: vf
    integer :: b, ios
    character(len=512) :: msg
    select type (be)
    class is (blocks_backend_t)
      do b = 1, size(be%b)
        associate (g => be%b(b)%level(1))
          call write_vts(self%dir//'/'//block_vts_name(b, stem), g%lay, g%sp, g%xn, g%f%qp, g%f%sf, g%f%vol)
        end associate
      end do
      call out_open(vf, self%dir//'/'//stem//'.vtm')
      write(vf%unit, '(a)', iostat=ios, iomsg=msg) '<?xml version="1.0"?>'
      call out_check(vf, ios, msg)
      write(vf%unit, '(a)', iostat=ios, iomsg=msg) '<VTKFile type="vtkMultiBlockDataSet" version="1.0" '// &
        'byte_order="LittleEndian">'
      call out_check(vf, ios, msg)
      write(vf%unit, '(a)', iostat=ios, iomsg=msg) '<vtkMultiBlockDataSet>'
      call out_check(vf, ios, msg)
      do b = 1, size(be%b)
        write(vf%unit, '(a,i0,a)', iostat=ios, iomsg=msg) '<DataSet index="', b - 1, '" name="'// &
          xml_text(trim(be%label(b)))//'" file="'//block_vts_name(b, stem)//'"/>'
        call out_check(vf, ios, msg)
      end do
      write(vf%unit, '(a)', iostat=ios, iomsg=msg) '</vtkMultiBlockDataSet>'
      call out_check(vf, ios, msg)
      write(vf%unit, '(a)', iostat=ios, iomsg=msg) '</VTKFile>'
      call out_check(vf, ios, msg)
      call out_commit(vf)
    end select
  end subroutine write_block_vtm

  !> The final outputs: the restart set of iteration iter is written by the
  !> loop; here the wall loads (forces.csv, one wall file per wall or lid
  !> patch, numbered over the blocks), flow.dat with a zone per block
  !> (write_tecplot), the Plot3D and CGNS files, and flow.vtm with its
  !> pieces (write_vtk).
  subroutine write_block_outputs(self, be, iter, ref)
    class(block_set_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    type(out_file_t) :: ff, tf
    integer :: b, first
    call be%host_state()
    select type (be)
    class is (blocks_backend_t)
      if (any([(has_wall_patches(be%b(b)%level(1)%f%ps), b = 1, size(be%b))])) then
        call open_forces_csv(ff, self%dir)
        first = 0
        do b = 1, size(be%b)
          associate (g => be%b(b)%level(1))
            if (.not. allocated(g%f%ps%p)) cycle
            call add_wall_loads(ff, self%dir, g%sp, g%lay, g%f, first, 'block '//int_text(b))
            first = first + size(g%f%ps%p)
          end associate
        end do
        call out_commit(ff)
      end if
      if (self%cs%write_tecplot) then
        call tecplot_open(tf, self%dir//'/flow.dat', self%cs%title)
        do b = 1, size(be%b)
          associate (g => be%b(b)%level(1))
            call tecplot_zone(tf, trim(be%label(b)), g%lay, g%sp, g%xn, g%f%qp, g%f%sf, g%f%vol)
          end associate
        end do
        call out_commit(tf)
      end if
      if (self%cs%write_plot3d) call write_block_plot3d()
      if (self%cs%write_cgns) call write_block_cgns()
      if (self%cs%write_vtk) call self%write_flow_vts(be, 'flow')
      if (self%write_series) call series_final(self%series, iter)
    end select
  contains
    !> flow.xyz and flow.q of every block, in the grid file's block order.
    subroutine write_block_plot3d()
      real(rk), allocatable :: xyz(:), q(:), xb(:), qb(:)
      integer(c_int64_t), allocatable :: n(:,:)
      integer :: bb
      select type (be)
      class is (blocks_backend_t)
        allocate(xyz(0), q(0), n(3, size(be%b)))
        do bb = 1, size(be%b)
          associate (g => be%b(bb)%level(1))
            call plot3d_node_values(g%lay, g%sp, g%xn, g%f%qp, self%cs%mach, xb, qb)
            xyz = [xyz, xb]
            q = [q, qb]
            n(:, bb) = int([g%lay%ni + 1, g%lay%nj + 1, g%lay%nk + 1], c_int64_t)
          end associate
        end do
        call write_plot3d_files(self%dir, n, xyz, q, [self%cs%mach, self%cs%freestream_alpha, self%cs%reynolds, &
          0.0_rk])
      end select
    end subroutine write_block_plot3d

    !> flow.cgns: one zone per block (the grid file's zone names, else
    !> blockN), its patches as BCs (none on the faces interfaces join), the
    !> interfaces as 1-to-1 records of both zones.
    subroutine write_block_cgns()
      real(c_double), allocatable :: xyz(:), fields(:), xb(:), fb(:)
      integer(c_int32_t), allocatable :: rows(:,:), rb(:,:), n(:,:), npatch(:), conn(:,:)
      character(len=32), allocatable :: zn(:)
      logical, allocatable :: keep(:)
      integer :: bb, q, m
      select type (be)
      class is (blocks_backend_t)
        allocate(xyz(0), fields(0), rows(7, 0), n(3, size(be%b)), npatch(size(be%b)), zn(size(be%b)))
        do bb = 1, size(be%b)
          associate (g => be%b(bb)%level(1))
            call cgns_zone_arrays(g%lay, g%sp, g%xn, g%f%qp, g%f%ps, xb, fb, rb)
            keep = [(be%b(bb)%phys(rb(1, m) + 1), m = 1, size(rb, 2))]
            rb = rb(:, pack([(m, m = 1, size(rb, 2))], keep))
            xyz = [xyz, xb]
            fields = [fields, fb]
            rows = reshape([rows, rb], [7, size(rows, 2) + size(rb, 2)])
            n(:, bb) = int([g%lay%ni, g%lay%nj, g%lay%nk], c_int32_t)
            npatch(bb) = int(size(rb, 2), c_int32_t)
          end associate
          zn(bb) = 'block'//int_text(bb)
          if (allocated(self%zone_names)) zn(bb) = self%zone_names(bb)
        end do
        allocate(conn(17, 2*size(be%links(1)%itf)))
        do q = 1, size(be%links(1)%itf)
          associate (t => be%links(1)%itf(q))
            conn(:, 2*q - 1) = record(t%a, t%b, int(t%transform))
            conn(:, 2*q) = record(t%b, t%a, inverse(int(t%transform)))
          end associate
        end do
        call write_cgns_zones(self%dir//'/flow.cgns', trim(self%cs%title), zn, n, xyz, fields, npatch, rows, conn)
      end select
    end subroutine write_block_cgns

    !> The 1-to-1 record of side r (donor side d, tr: the transform from r
    !> to d): r's range ascending, the donor range its corners' images.
    function record(r, d, tr) result(row)
      type(face_range_t), intent(in) :: r, d
      integer, intent(in) :: tr(3)
      integer(c_int32_t) :: row(17)
      integer :: lo(3), hi(3)
      lo = min(r%beg, r%end)
      hi = max(r%beg, r%end)
      row = int([r%block, d%block, lo, hi, interface_image(r, d, tr, lo), interface_image(r, d, tr, hi), tr], c_int32_t)
    end function record
  end subroutine write_block_outputs

  !> s with XML's five special characters escaped (a CGNS zone's name in
  !> an attribute).
  function xml_text(s) result(t)
    character(len=*), intent(in) :: s
    character(len=:), allocatable :: t
    integer :: i
    t = ''
    do i = 1, len(s)
      select case (s(i:i))
      case ('&'); t = t//'&amp;'
      case ('<'); t = t//'&lt;'
      case ('>'); t = t//'&gt;'
      case ('"'); t = t//'&quot;'
      case (''''); t = t//'&apos;'
      case default; t = t//s(i:i)
      end select
    end do
  end function xml_text
end module run_files_blocks
