!> The files of a decomposed run (build/adiflow_mpi): the restart set (one
!> file per rank and the index restart.decomp), the block .vts files with
!> their .pvts index, and the whole grid's field.dump, flow.dat, centreline
!> profiles and wall loads (a grid with patches) from the state gathered on
!> rank 0, by the same writers as build/adiflow's (fortran/run_files.f90),
!> so the files match; and the force history's loads, each patch summed
!> over the blocks.
!> Every procedure is collective: all ranks call it.
module run_files_mpi
  use mpi_f08
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit
  use kinds, only: rk, ik8, nvar, nprim
  use grid_layout, only: layout_t
  use solver_params, only: solver_params_t
  use backend, only: backend_t
  use run_files, only: run_files_t, finite_state_fetched, old_restart_note
  use field_io, only: write_field_dump, read_field_dump
  use output_vtk, only: series_final
  use output_file, only: out_file_t, out_open, out_check, out_commit
  use flow_fields, only: fields_t
  use boundary_patches, only: patch_set_t
  use ghost_fill, only: fill_ghosts, fill_wall_temperatures
  use output_wall_loads, only: write_wall_loads, wall_load_names, wall_patch_loads
  use wall_loads, only: patch_load_t
  use block_patches, only: own_cells
  use primitives, only: compute_primitives
  use metrics, only: compute_metrics, cell_centre
  use output_profiles, only: centreline_brackets, centreline_value, write_centrelines
  use flow_math, only: cons_to_prim
  use sys_interface, only: regular_file, remove_old_restart_sets
  use mpi_decomp, only: decomp_t, any_rank, mpi_check, gather_interior, gather_k_planes, write_block_vts, write_pvts
  implicit none
  private
  public :: block_files_t

  type, extends(run_files_t) :: block_files_t
    type(decomp_t) :: dc                  !< where this rank's block lies
    type(layout_t) :: lay_g               !< the whole grid's layout,
    type(solver_params_t) :: sp_g         !< parameters
    real(rk), allocatable :: xn_g(:,:,:,:) !< and nodes (the gathered outputs)
    type(patch_set_t) :: ps_g             !< the whole grid's patches (none allocated: the box)
  contains
    procedure :: read_restart => read_restart_set
    procedure :: save_restart => save_restart_set
    procedure :: write_flow_vts => write_blocks
    procedure :: write_outputs => write_block_outputs
    procedure, private :: write_line_profiles
    procedure :: grid_patches => block_grid_patches
    procedure :: patch_forces => block_patch_forces
  end type block_files_t

contains

  !> The grid's patches (forces.dat's header lists their cells; a block's
  !> are windowed).
  function block_grid_patches(self, be) result(ps)
    class(block_files_t), intent(in) :: self
    class(backend_t), intent(in) :: be
    type(patch_set_t) :: ps
    ps = self%ps_g
  end function block_grid_patches

  !> The force coefficients of every wall or lid patch on every rank: each
  !> block integrates its own faces of each patch by the serial rule
  !> (wall_patch_loads, the block's fields and patch numbers), and the
  !> shares are summed over the ranks. Why not the gathered state, as
  !> forces.csv: that would move the whole grid to rank 0 at every monitor
  !> line; the sum in another order differs from build/adiflow's in the
  !> last bits only.
  subroutine block_patch_forces(self, be, loads)
    class(block_files_t), intent(in) :: self
    class(backend_t), intent(in) :: be
    type(patch_load_t), allocatable, intent(out) :: loads(:)
    real(rk), allocatable :: mine(:,:), total(:,:)
    integer :: n, ierr
    associate (g => be%level(1))
      loads = wall_patch_loads(g%sp, g%lay, own_cells(g%f%ps, self%dc%nloc), g%f)
    end associate
    allocate(mine(6, size(loads)), total(6, size(loads)))
    do n = 1, size(loads)
      mine(:, n) = [loads(n)%pressure, loads(n)%viscous]
    end do
    call MPI_Allreduce(mine, total, size(mine), MPI_DOUBLE_PRECISION, MPI_SUM, self%dc%comm, ierr)
    call mpi_check(ierr, 'fortran/run_files_mpi.f90, block_patch_forces: MPI_Allreduce of the wall patches'' '// &
      'force coefficients over the blocks')
    do n = 1, size(loads)
      loads(n)%pressure = total(1:3, n)
      loads(n)%viscous = total(4:6, n)
    end do
  end subroutine block_patch_forces

  !> Where this rank's block lies, recorded in its restart file and checked
  !> on reading, so that a file under another rank's name (swapped,
  !> renamed, copied from another run) is refused: rank, npj, npk, the
  !> global grid, the block's 0-based offsets.
  function block_place(dc) result(p)
    type(decomp_t), intent(in) :: dc
    integer :: p(9)
    p = [dc%rank, dc%npj, dc%npk, dc%nglob, dc%off]
  end function block_place

  !> Rank r's restart file of the set of iteration iter (format 2), or of the
  !> one set that format 1 kept (iter < 0).
  function rank_file(self, r, iter) result(p)
    class(block_files_t), intent(in) :: self
    integer, intent(in) :: r
    integer(ik8), intent(in) :: iter
    character(len=:), allocatable :: p
    character(len=40) :: name
    if (iter < 0) then
      write(name, '(a,i5.5,a)') '/restart.r', r, '.bin'
    else
      write(name, '(a,i5.5,a,i0,a)') '/restart.r', r, '.it', iter, '.bin'
    end if
    p = self%dir//trim(name)
  end function rank_file

  !> The restart set, crash-safe: every rank writes its file of this
  !> iteration (verified, renamed into place); once all have, rank 0
  !> commits the index restart.decomp naming the iteration (temp + rename);
  !> only then are the files of every other set removed, and the temporaries
  !> a crash left (remove_old_restart_sets). A crash at any point leaves the
  !> index naming a complete set, and the next committed set removes what a
  !> crash kept. Only from a finite state.
  logical function save_restart_set(self, be, iter, ref) result(saved)
    class(block_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    type(out_file_t) :: idx
    integer :: ios, ierr
    character(len=512) :: msg
    character(len=:), allocatable :: why
    character(len=16) :: rs
    saved = finite_state_fetched(be)
    if (.not. saved) return
    associate (dc => self%dc, cs => self%cs)
      call write_field_dump(rank_file(self, dc%rank, iter), be%level(1)%lay, be%level(1)%f%q, iter, ref, &
        block_place(dc))
      call MPI_Barrier(dc%comm, ierr)
      call mpi_check(ierr, 'MPI_Barrier (restart set written)')
      if (dc%rank == 0) then
        call out_open(idx, self%dir//'/restart.decomp')
        write(idx%unit, '(a)', iostat=ios, iomsg=msg) 'ADIFLOW-MPI-RESTART 2'
        call out_check(idx, ios, msg)
        write(idx%unit, '(a,3(1x,i0))', iostat=ios, iomsg=msg) 'grid', cs%ni, cs%nj, cs%nk
        call out_check(idx, ios, msg)
        write(idx%unit, '(a,3(1x,i0))', iostat=ios, iomsg=msg) 'ranks_npj_npk', dc%nranks, dc%npj, dc%npk
        call out_check(idx, ios, msg)
        write(idx%unit, '(a,1x,i0)', iostat=ios, iomsg=msg) 'iteration', iter
        call out_check(idx, ios, msg)
        call out_commit(idx)
      end if
      call MPI_Barrier(dc%comm, ierr)
      call mpi_check(ierr, 'MPI_Barrier (restart index committed)')
      ! each rank its share, so that none removes a file another is writing;
      ! a file left behind wastes space but harms no set: a note, not a stop
      if (remove_old_restart_sets(self%dir, iter, dc%rank, dc%nranks, why) /= 0) then
        write(rs, '(i0)') dc%rank
        write(error_unit, '(a)') 'adiflow_mpi: note: rank '//trim(rs)//': an older restart file stays: '//why
      end if
    end associate
  end function save_restart_set

  !> The set named by restart.decomp into level 1 of every rank: the index
  !> checked on rank 0 against the case and the decomposition, each rank's
  !> file against its place, the set against one iteration and one
  !> reference residual. why: the same on every rank, what stops the run
  !> with exit code 2 ('' if nothing does).
  subroutine read_restart_set(self, be, it0, res0, why)
    class(block_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(out) :: it0
    real(rk), intent(out) :: res0(5)
    character(len=:), allocatable, intent(out) :: why
    integer :: u, ios, g(3), h(3), okflag, version, rversion, vmin
    integer(ik8) :: hit, rit
    real(rk) :: rmax(5)
    character(len=64) :: tag, t1, t2, t3
    character(len=600) :: m
    okflag = 1
    m = ''
    hit = 0
    it0 = 0
    res0 = 0.0_rk
    version = 0
    associate (dc => self%dc, cs => self%cs, dir => self%dir)
      if (dc%rank == 0) then
        ! checked before the open: opening a FIFO in its place would block
        ios = 1
        if (regular_file(dir//'/restart.decomp')) &
          open(newunit=u, file=dir//'/restart.decomp', status='old', action='read', iostat=ios)
        if (ios /= 0) then
          okflag = 0
          m = 'restart index "'//dir//'/restart.decomp" does not exist or is not a regular file (an '// &
            'adiflow_mpi run writes it with restart.rNNNNN.itN.bin at every restart_interval and when it stops)'
        else
          read(u, *, iostat=ios) tag, version
          if (ios == 0) read(u, *, iostat=ios) t1, g
          if (ios == 0) read(u, *, iostat=ios) t2, h
          if (ios == 0) read(u, *, iostat=ios) t3, hit
          close(u)
          if (ios /= 0 .or. tag /= 'ADIFLOW-MPI-RESTART' .or. t1 /= 'grid' .or. t2 /= 'ranks_npj_npk' .or. &
              t3 /= 'iteration') then
            okflag = 0
            m = '"'//dir//'/restart.decomp" is damaged (cannot read its four lines)'
          else if (version /= 1 .and. version /= 2) then
            okflag = 0
            write(m, '(a,i0,a)') '"'//dir//'/restart.decomp": index version ', version, &
              ' is not supported (this build reads 1 and 2)'
          else if (hit < 0) then
            okflag = 0
            write(m, '(a,i0,a)') '"'//dir//'/restart.decomp": iteration ', hit, ' is negative: the index is damaged'
          else if (any(g /= [cs%ni, cs%nj, cs%nk])) then
            okflag = 0
            write(m, '(a,3(i0,1x),a,3(i0,1x))') 'restart grid ', g, 'does not match the case grid ', &
              cs%ni, cs%nj, cs%nk
          else if (any(h /= [dc%nranks, dc%npj, dc%npk])) then
            okflag = 0
            write(m, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a)') 'the restart was written on ', h(1), &
              ' ranks as npj x npk = ', h(2), ' x ', h(3), ' but this run has ', dc%nranks, ' ranks as ', &
              dc%npj, ' x ', dc%npk, '; restart on the same decomposition (mpirun -np and npj/npk as before)'
          end if
        end if
      end if
      call MPI_Bcast(okflag, 1, MPI_INTEGER, 0, dc%comm)
      if (okflag == 0) then
        call MPI_Bcast(m, len(m), MPI_CHARACTER, 0, dc%comm)
        why = trim(m)
        return
      end if
      call MPI_Bcast(hit, 1, MPI_INTEGER8, 0, dc%comm)
      call MPI_Bcast(version, 1, MPI_INTEGER, 0, dc%comm)
      ! format 1 kept one file per rank, overwritten in place
      if (version == 1) hit = -1_ik8
      call read_field_dump(rank_file(self, dc%rank, hit), be%level(1)%lay, be%level(1)%f%q, rit, res0, &
        cs%accept_old_restart, rversion, block_place(dc))
      if (version == 1) hit = rit
      if (any_rank(dc%comm, rit /= hit)) then
        why = 'the rank restart files are not all from the iteration named in restart.decomp (an interrupted '// &
          'restart write?); use an older copy or start afresh'
        return
      end if
      it0 = hit
      ! one version-1 file (unprotected header) and no rank takes its res0;
      ! otherwise every rank's file holds the same global reference
      call MPI_Allreduce(rversion, vmin, 1, MPI_INTEGER, MPI_MIN, dc%comm)
      if (vmin == 1) res0 = 0.0_rk
      call MPI_Allreduce(res0, rmax, 5, MPI_DOUBLE_PRECISION, MPI_MAX, dc%comm)
      if (any_rank(dc%comm, any(res0 /= rmax))) then
        why = 'the rank restart files hold different reference residuals (not one restart set?); use an older '// &
          'copy or start afresh'
        return
      end if
      why = ''
      if (dc%rank == 0) write(output_unit, '(a,i0)') '  restarting from '//dir// &
        '/restart.decomp + restart.rNNNNN.itN.bin at iteration ', it0
      if (dc%rank == 0) call old_restart_note(output_unit, 'the rank restart set', vmin, it0)
    end associate
  end subroutine read_restart_set

  !> dir/stem_rNNNNN.vts of this rank's block, and dir/stem.pvts (rank 0).
  subroutine write_blocks(self, be, stem)
    class(block_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    character(len=*), intent(in) :: stem
    character(len=16) :: rn
    write(rn, '(a,i5.5)') '_r', self%dc%rank
    associate (g => be%level(1))
      call write_block_vts(self%dir//'/'//trim(stem)//trim(rn)//'.vts', self%dc, g%lay, g%sp, g%xn, g%f%qp, &
        g%f%sf, g%f%vol)
    end associate
    if (self%dc%rank == 0) call write_pvts(trim(self%dir)//'/'//trim(stem)//'.pvts', stem, self%dc)
  end subroutine write_blocks

  !> Block .vts files + .pvts; the global field.dump, Tecplot file,
  !> centreline profiles, Plot3D files, flow.cgns and wall loads from the state gathered on rank 0,
  !> filled by the whole grid's boundary rules (the serial writers and
  !> fills, so they match build/adiflow's files). The box's profiles alone
  !> need only the two k planes about its centre (write_line_profiles), not
  !> the whole grid on rank 0.
  subroutine write_block_outputs(self, be, iter, ref)
    class(block_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    type(fields_t) :: gf    ! the whole grid on rank 0, as much of it as the writers read
    real(rk), allocatable :: scg(:,:,:,:)
    integer :: ih, jh, kh
    logical :: walls, whole
    call be%host_state()
    associate (cs => self%cs, lay_g => self%lay_g, sp_g => self%sp_g)
      if (cs%write_vtk) call self%write_flow_vts(be, 'flow')
      if (self%write_series .and. self%root) call series_final(self%series, iter)
      walls = len(wall_load_names(self%ps_g)) > 0
      ! the Tecplot file, wall loads and patches (and a flat grid's profiles,
      ! whose interpolation reaches a ghost cell) read the whole grid
      whole = cs%write_tecplot .or. cs%write_plot3d .or. cs%write_cgns .or. walls .or. allocated(self%ps_g%p) .or. &
        min(lay_g%ni, lay_g%nj, lay_g%nk) < 2
      if (cs%write_profiles .and. .not. whole) call self%write_line_profiles(be)
      if (.not. (cs%write_dump .or. (whole .and. (cs%write_tecplot .or. cs%write_plot3d .or. cs%write_cgns &
        .or. cs%write_profiles .or. walls)))) return
      ih = lay_g%ldi - 2; jh = lay_g%nj + 2; kh = lay_g%nk + 2
      if (self%dc%rank == 0) then
        allocate(gf%q(-1:ih, -1:jh, -1:kh, nvar))
        gf%q = 0.0_rk
      else
        allocate(gf%q(1, 1, 1, 1))
      end if
      call gather_interior(self%dc, be%level(1)%lay, be%level(1)%f%q, nvar, gf%q)
      if (self%dc%rank /= 0) return
      if (cs%write_dump) call write_field_dump(self%dir//'/field.dump', lay_g, gf%q, iter, ref)
      if (.not. (whole .and. (cs%write_tecplot .or. cs%write_plot3d .or. cs%write_cgns .or. cs%write_profiles &
        .or. walls))) return
      ! the whole grid's metrics, as build/adiflow computes them: the patches'
      ! normals, the vorticity's face vectors and volumes, the profiles' and
      ! wall loads' cell centres
      allocate(gf%sf(-1:ih, -1:jh, -1:kh, 9), scg(-1:ih, -1:jh, -1:kh, 9), gf%vol(-1:ih, -1:jh, -1:kh), &
        gf%xc(-1:ih, -1:jh, -1:kh, 3))
      call compute_metrics(lay_g, self%xn_g, gf%sf, scg, gf%vol, gf%xc)
      deallocate(scg)
      gf%ps = self%ps_g
      call fill_ghosts(sp_g, lay_g, gf)
      allocate(gf%qp(-1:ih, -1:jh, -1:kh, nprim))
      gf%qp = 0.0_rk
      call compute_primitives(sp_g, lay_g, gf%q, gf%qp)
      deallocate(gf%q)
      call fill_wall_temperatures(sp_g, lay_g, gf)
      call self%write_whole_grid(lay_g, sp_g, self%xn_g, gf%qp, gf%sf, gf%vol, gf%xc, gf%ps)
      call write_wall_loads(self%dir, sp_g, lay_g, gf)
    end associate
  end subroutine write_block_outputs

  !> The box's centreline profiles as build/adiflow writes them (the same
  !> cell centres, brackets, primitives and interpolation), from the two
  !> k planes about the centre gathered on rank 0: every rank holds the
  !> whole grid's nodes, so each finds the same planes.
  subroutine write_line_profiles(self, be)
    class(block_files_t), intent(inout) :: self
    class(backend_t), intent(inout) :: be
    real(rk), allocatable :: xl(:), yl(:), zl(:), pl(:,:,:,:), u(:), v(:)
    real(rk) :: c(3), wi, wj, wk
    integer :: i, j, k, ia, ja, ka
    associate (cs => self%cs, lay_g => self%lay_g, xn => self%xn_g)
      allocate(xl(lay_g%ni), yl(lay_g%nj), zl(lay_g%nk))
      do i = 1, lay_g%ni
        c = cell_centre(xn, i, 1, 1); xl(i) = c(1)
      end do
      do j = 1, lay_g%nj
        c = cell_centre(xn, 1, j, 1); yl(j) = c(2)
      end do
      do k = 1, lay_g%nk
        c = cell_centre(xn, 1, 1, k); zl(k) = c(3)
      end do
      call centreline_brackets(xl, yl, zl, cs%lx, cs%ly, cs%lz, ia, wi, ja, wj, ka, wk)
      if (self%dc%rank == 0) then
        allocate(pl(lay_g%ni, lay_g%nj, 2, nvar))
      else
        allocate(pl(1, 1, 1, 1))
      end if
      call gather_k_planes(self%dc, be%level(1)%lay, be%level(1)%f%q, ka, 2, nvar, pl)
      if (self%dc%rank /= 0) return
      allocate(u(lay_g%nj), v(lay_g%ni))
      do j = 1, lay_g%nj
        u(j) = centreline_value(prim(ia, j, 1, 2), prim(ia+1, j, 1, 2), prim(ia, j, 2, 2), prim(ia+1, j, 2, 2), wi, wk)
      end do
      do i = 1, lay_g%ni
        v(i) = centreline_value(prim(i, ja, 1, 3), prim(i, ja+1, 1, 3), prim(i, ja, 2, 3), prim(i, ja+1, 2, 3), wj, wk)
      end do
      call write_centrelines(self%dir, self%sp_g, cs%lx, cs%ly, yl, u, xl, v)
    end associate
  contains
    !> Primitive m of the cell (i, j) of gathered plane kk.
    real(rk) function prim(i, j, kk, m)
      integer, intent(in) :: i, j, kk, m
      real(rk) :: p(nprim)
      call cons_to_prim(self%sp_g, pl(i, j, kk, 1), pl(i, j, kk, 2), pl(i, j, kk, 3), pl(i, j, kk, 4), &
        pl(i, j, kk, 5), p(1), p(2), p(3), p(4), p(5), p(6))
      prim = p(m)
    end function prim
  end subroutine write_line_profiles
end module run_files_mpi
