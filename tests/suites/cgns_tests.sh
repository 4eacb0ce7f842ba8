# CGNS grid files (fortran/cgns_grid.f90, cgns_zone.c): sourced by
# tests/suites/run_tests.sh, whose T, B, run, expect, ok and bad it uses.
# The files come from Debian's plot3d_to_cgns (a Plot3D file the suite
# writes) and build/cgns_fixture (BCs, interfaces and the refused kinds,
# through the CGNS library). Skipped with a note without libcgns-dev or
# cgns-convert (scripts/install_deps.sh installs both).
cg_skip=""
command -v plot3d_to_cgns > /dev/null 2>&1 || cg_skip="plot3d_to_cgns (Debian package cgns-convert) not found"
if [ -z "$cg_skip" ]; then
  if [ ! -x "$B/cgns_fixture" ]; then cg_skip="$B/cgns_fixture not built (make test builds it)"
  else "$B/cgns_fixture" twozones "$T/cg_probe.cgns" > /dev/null 2>&1
       [ $? -eq 77 ] && cg_skip="this build has no CGNS support (libcgns-dev was missing when it was built)"
  fi
fi
if [ -n "$cg_skip" ]; then
  echo "note: $cg_skip: the CGNS grid tests are skipped"
else
  C=$T/cg; mkdir -p "$C"; F=./$B/cgns_fixture
  # a flat plate, one cell thick (3D: plot3d_to_cgns converts 3D files):
  # farfield in and above, outflow, symmetry ahead of the plate, the plate a wall
  ./$B/make_grid plate --ni-run 4 --ni-plate 12 --nj 8 --height 2 --beta-y 5 --dims 3 -o "$C/pl.x" > /dev/null
  plot3d_to_cgns -u -d "$C/pl.x" "$C/pl.cgns" > /dev/null 2>&1
  printf 'imin farfield\nimax outflow\njmin symmetry 1:4 1:1\njmin wall 5:16 1:1\njmax farfield\n' > "$C/pl.bc"
  cp "$C/pl.cgns" "$C/plbc.cgns"
  $F addbc "$C/plbc.cgns" inlet BCFarfield 1:1 1:9 1:2 && $F addbc "$C/plbc.cgns" exit BCOutflowSubsonic 17:17 1:9 1:2 &&
  $F addbc "$C/plbc.cgns" ahead BCSymmetryPlane 1:5 1:1 1:2 && $F addbc "$C/plbc.cgns" plate BCWallViscous 5:17 1:1 1:2 &&
  $F addbc "$C/plbc.cgns" top BCFarfield 1:17 9:9 1:2
  deck() { # NAME GRID [PATCHES] [MORE KEYS]
    printf "&adiflow\n  grid_file = '%s'%s\n  reynolds = 1.0e5, mach = 0.2, bc_kmin = 'periodic', bc_kmax = 'periodic'\n  max_iter = 20, write_tecplot = .false. %s\n/\n" \
      "$2" "${3:+, patch_file = '$3'}" "${4:+, $4}" > "$C/$1.nml"
  }
  deck p3d pl.x pl.bc; deck cg plbc.cgns; deck cgpf pl.cgns pl.bc
  rc1=$(run cg_p3d "$C/p3d.nml" --backend cpu); rc2=$(run cg_bc "$C/cg.nml" --backend cpu); rc3=$(run cg_pf "$C/cgpf.nml" --backend cpu)
  expect '[ "$rc1$rc2$rc3" = 000 ] && cmp -s "$T/cg_p3d/field.dump" "$T/cg_pf/field.dump" && cmp -s "$T/cg_p3d/flow.vts" "$T/cg_pf/flow.vts"' \
    "CGNS: a grid converted by plot3d_to_cgns runs bit for bit as its Plot3D file, with the same patch file (fields and the VTK file's coordinates; exit codes $rc1 $rc2 $rc3)"
  expect 'cmp -s "$T/cg_p3d/field.dump" "$T/cg_bc/field.dump" && cmp -s "$T/cg_p3d/forces.csv" "$T/cg_bc/forces.csv" && grep -q "5 boundary conditions taken as patches, walls isothermal" "$T/cg_bc.log"' \
    "CGNS: the zone's BC_t (BCFarfield, BCOutflowSubsonic, BCSymmetryPlane, BCWallViscous over node ranges) give the patch file's run, bit for bit"
  # the same jmin symmetry as a point list (a rectangle: taken)
  cp "$C/pl.cgns" "$C/list.cgns"
  $F addbc "$C/list.cgns" inlet BCFarfield 1:1 1:9 1:2 && $F addbc "$C/list.cgns" exit BCOutflow 17:17 1:9 1:2 &&
  $F addlist "$C/list.cgns" ahead BCSymmetryPlane $(for i in 5 4 3 2 1; do echo $i,1,2 $i,1,1; done) &&
  $F addbc "$C/list.cgns" plate BCWall 17:5 1:1 2:1 && $F addbc "$C/list.cgns" top BCFarfield 1:17 9:9 1:2
  deck list list.cgns; rc=$(run cg_list "$C/list.nml" --backend cpu)
  expect 'cmp -s "$T/cg_p3d/field.dump" "$T/cg_list/field.dump"' \
    "CGNS: a point list that is a rectangle, in any order, and a range given high to low are taken (BCWall, BCOutflow: the same run)"
  # an O-grid whose i-faces coincide, declared by a 1-to-1 interface of the zone with itself
  ./$B/make_grid cylinder --ni 16 --nj 8 --farfield 50 --dims 3 -o "$C/cy.x" > /dev/null
  plot3d_to_cgns -u -d "$C/cy.x" "$C/cy.cgns" > /dev/null 2>&1
  $F addcut "$C/cy.cgns" wake 1 && $F addbc "$C/cy.cgns" body BCWallViscous 1:17 1:1 1:2 && $F addbc "$C/cy.cgns" far BCFarfield 1:17 9:9 1:2
  printf 'jmin wall\njmax farfield\n' > "$C/cy.bc"
  printf "&adiflow\n  grid_file = 'cy.x', patch_file = 'cy.bc', reynolds = 40.0, mach = 0.1\n  bc_imin = 'periodic', bc_imax = 'periodic', bc_kmin = 'periodic', bc_kmax = 'periodic'\n  max_iter = 20, write_tecplot = .false.\n/\n" > "$C/cy_p3d.nml"
  printf "&adiflow\n  grid_file = 'cy.cgns', reynolds = 40.0, mach = 0.1\n  bc_kmin = 'periodic', bc_kmax = 'periodic'\n  max_iter = 20, write_tecplot = .false.\n/\n" > "$C/cy_cg.nml"
  rc1=$(run cg_cy1 "$C/cy_p3d.nml" --backend cpu); rc2=$(run cg_cy2 "$C/cy_cg.nml" --backend cpu)
  expect '[ "$rc1$rc2" = 00 ] && cmp -s "$T/cg_cy1/field.dump" "$T/cg_cy2/field.dump" && grep -q "periodic cut: joined" "$T/cg_cy2.log"' \
    "CGNS: an O-grid's wake cut as a 1-to-1 interface of the zone with itself runs as the Plot3D grid with the i-faces periodic (exit codes $rc1 $rc2)"
  # write_cgns: the final state as flow.cgns, which cgnscheck accepts, cgnslist lists, and which
  # read back as a grid (with its BCs) runs as the run it came from
  deck wr plbc.cgns "" "write_cgns = .true."
  mkdir -p "$T/cg_wr"; echo keep > "$C/outside"; ln -s "$C/outside" "$T/cg_wr/flow.cgns"
  rc=$(run cg_wr "$C/wr.nml" --backend cpu)
  cgnscheck "$T/cg_wr/flow.cgns" > "$C/check.log" 2>&1; ck=$?
  expect '[ "$rc" = 0 ] && [ $ck = 0 ] && ! grep -qi "error" "$C/check.log" && grep -q "checking complete" "$C/check.log"' \
    "write_cgns: flow.cgns passes cgnscheck with no errors (exit codes $rc $ck; $(grep -c WARNING "$C/check.log") warnings: the nondimensional fields' exponents)"
  cgnslist "$T/cg_wr/flow.cgns" > "$C/list.log" 2>&1
  expect 'grep -q "+-flow$" "$C/list.log" && grep -q "+-FlowSolution" "$C/list.log" && grep -q "+-Density" "$C/list.log" && grep -q "+-Mach" "$C/list.log" && [ $(grep -c "+-wall_\|+-farfield_\|+-outflow_\|+-symmetry_" "$C/list.log") = 5 ]' \
    "write_cgns: cgnslist lists the zone, its FlowSolution (Density ... Mach) and the 5 patches as BCs"
  expect '[ ! -L "$T/cg_wr/flow.cgns" ] && [ "$(cat "$C/outside")" = keep ] && ! ls -d "$T"/cg_wr/.cgns.* > /dev/null 2>&1' \
    "write_cgns: a link at flow.cgns is replaced, never followed, and no temporary folder is left"
  printf "&adiflow\n  grid_file = '%s'\n  reynolds = 1.0e5, mach = 0.2, bc_kmin = 'periodic', bc_kmax = 'periodic'\n  max_iter = 20, write_tecplot = .false.\n/\n" \
    "$T/cg_wr/flow.cgns" > "$C/back.nml"
  rc=$(run cg_back "$C/back.nml" --backend cpu)
  expect '[ "$rc" = 0 ] && cmp -s "$T/cg_p3d/field.dump" "$T/cg_back/field.dump"' \
    "write_cgns: flow.cgns read back as the grid file (its grid and BCs) runs bit for bit as the Plot3D run"
  sed "s|^&adiflow|\&adiflow\n  write_cgns = .true.|" tests/cases/cube12.nml > "$C/box.nml"
  rc=$(run cg_box "$C/box.nml" --backend cpu --max-iter 2)
  cgnscheck "$T/cg_box/flow.cgns" > "$C/check2.log" 2>&1; ck=$?
  expect '[ "$rc" = 0 ] && [ $ck = 0 ] && ! grep -qi "error" "$C/check2.log" && [ $(cgnslist "$T/cg_box/flow.cgns" 2>&1 | grep -c "+-wall_\|+-lid_") = 6 ]' \
    "write_cgns: a box run without patches writes its bc_* faces as BCs (5 walls and the lid), cgnscheck accepts it"
  # refusals: exit 2 and the sentence
  refuse() { # NAME GRID-FILE PATTERN WHAT [PATCHES] [KEYS]
    deck "$1" "$2" "${5:-}" "${6:-}"
    cg_rc=$(run "cg_$1" "$C/$1.nml" --backend cpu); cg_pat=$3; cg_log=$T/cg_$1.log
    expect '[ "$cg_rc" = 2 ] && grep -q -- "$cg_pat" "$cg_log"' "CGNS refused (exit $cg_rc): $4"
  }
  mkfifo "$C/fifo.cgns"; deck fifo fifo.cgns
  cg_rc=$(timeout 20 ./$B/adiflow "$C/fifo.nml" --backend cpu --run-dir "$T/cg_fifo" > "$T/cg_fifo.log" 2>&1; echo $?)
  expect '[ "$cg_rc" = 2 ] && grep -q "fifo.cgns\" is a FIFO (named pipe), not a regular file" "$T/cg_fifo.log"' \
    "CGNS refused (exit $cg_rc): a FIFO named .cgns, without opening it"
  cp "$C/plbc.cgns" "$C/tunnel.cgns"; $F addbc "$C/tunnel.cgns" tunnel BCTunnelInflow 1:17 9:9 1:2
  refuse tunnel tunnel.cgns 'BC "tunnel": BCTunnelInflow is not a boundary kind adiflow has' "a BC type adiflow has not, named with the zone and the BC"
  cp "$C/pl.cgns" "$C/ell.cgns"; $F addlist "$C/ell.cgns" ell BCWall 1,1,1 2,1,1 1,1,2
  refuse ell ell.cgns 'its point list of 3 points is not a rectangle of one face' "a point list that is not a rectangle"
  $F unstructured "$C/un.cgns"
  refuse un un.cgns 'zone "tets" is an unstructured zone (elements); adiflow reads structured zones only' "an unstructured zone, by name"
  $F twozones "$C/two.cgns"
  deck two two.cgns; rc=$(run cg_two "$C/two.nml" --backend cpu)
  expect '[ "$rc" = 0 ] && grep -q "grid: 2 blocks from .*1 1-to-1 interface(s), 16 cells" "$T/cg_two.log" \
    && [ "$(grep -c "<DataSet index=" "$T/cg_two/flow.vtm")" = 2 ] && grep -q "name=\"zone &quot;right&quot; (block 2)\"" "$T/cg_two/flow.vtm"' \
    "two zones without BCs: a run solves both together (exit $rc), flow.vtm lists them by zone"
  refuse both plbc.cgns 'both give the boundary patches' "a CGNS file with BCs and a patch_file" pl.bc
  cp "$C/pl.cgns" "$C/iso.cgns"; $F addbc "$C/iso.cgns" hot BCWallViscousIsothermal 1:17 1:1 1:2
  refuse iso iso.cgns "an isothermal wall, but wall_thermal = 'adiabatic'" "an isothermal wall in an adiabatic case" "" "wall_thermal = 'adiabatic'"
  # write_plot3d's files through another reader: Debian's plot3d_to_cgns (multi-block, Fortran
  # unformatted, double) reads flow.xyz and flow.q (the run of run_tests.sh's Plot3D section)
  if [ -f "$T/p3q/flow.q" ]; then
    plot3d_to_cgns -u -d "$T/p3q/flow.xyz" "$T/p3q/flow.q" "$C/p3q.cgns" > "$T/p3q_cg.log" 2>&1; r1=$?
    cgnscheck "$C/p3q.cgns" > "$T/p3q_ck.log" 2>&1; r2=$?
    expect '[ "$r1$r2" = 00 ] && grep -q "reading block 1 grid 11x9x7" "$T/p3q_cg.log" && grep -q "reading block 1 solution ... done" "$T/p3q_cg.log" \
      && ! grep -qi "error" "$T/p3q_ck.log"' \
      "write_plot3d: flow.xyz and flow.q read by plot3d_to_cgns (11 x 9 x 7 nodes, the solution), and cgnscheck finds no error in the result (exit codes $r1 $r2)"
  fi
  # ---- several zones: the blocks, the interfaces found from the coordinates, each declared
  # 1-to-1 record checked against them node for node, the BCs (fortran/cgns_blocks.f90)
  gcz() { ./$B/grid_check "$@" > "$T/gcz.log" 2>&1; echo $?; }
  $F boxzones "$C/bz0.cgns" 0 none && $F boxzones "$C/bz1.cgns" 1 none
  rc=$(gcz "$C/bz0.cgns")
  expect '[ $rc -eq 0 ] && grep -q "^  zone \"left\" (block 1): 3 x 3 x 3 nodes" "$T/gcz.log" \
    && grep -q "block 1, face i=3, nodes j 1..3, k 1..3 = block 2, face i=1, nodes j 1..3, k 1..3 (transform 1,2,3)" "$T/gcz.log" \
    && grep -q "block 1: imin inflow 1:2 1:2 .*zone \"left\", BC \"inlet\" (BCInflow)" "$T/gcz.log"' \
    "CGNS zones: two zones of a box, the 1-to-1 records both ways: grid_check lists the zones, the interface and the BC (exit $rc)"
  rc=$(gcz "$C/bz1.cgns")
  expect '[ $rc -eq 0 ] && grep -q "block 1, face i=3, nodes j 1..3, k 1..3 = block 2, face i=3, nodes j 3..1, k 1..3 (transform -1,-2,3)" "$T/gcz.log"' \
    "CGNS zones: the second zone stored turned round (i and j reversed): its declared transform -1,-2,3 agrees with the coordinates (exit $rc)"
  gcr() { # NAME DEFECT PATTERN WHAT
    $F boxzones "$C/$1.cgns" 0 "$2"; gcz_rc=$(gcz "$C/$1.cgns"); gcz_pat=$3
    expect '[ "$gcz_rc" = 2 ] && grep -q -- "$gcz_pat" "$T/gcz.log"' "CGNS zones refused (exit $gcz_rc): $4"
  }
  gcr bzs shift 'zone \"left\" (block 1): 1-to-1 interface \"left-right\" joins node 3,1,1 to node 1,3,1 of zone \"right\" (block 2), but they lie 2.000E+00 apart' \
    "a declared interface whose transform contradicts the coordinates, with the nodes named"
  gcr bzd donor '1-to-1 interface \"left-right\": its donor zone \"nowhere\" is not in the file' "a declared interface whose donor zone is not in the file"
  gcr bzb bc 'BC \"wall\" (BCWall) lies on block 1, face i=3, nodes j 1..3, k 1..3, which a 1-to-1 interface joins to block 2' \
    "a BC on a face part an interface joins"
  deck bzrun bz1.cgns; rc=$(run cg_bzrun "$C/bzrun.nml" --backend cpu)
  expect '[ "$rc" = 2 ] && grep -q "(its boundary conditions), block 1: face jmin: 4 boundary cells are covered by no patch" "$T/cg_bzrun.log" && [ ! -e "$T/cg_bzrun" ]' \
    "CGNS zones with BCs on part of their faces: a run takes the BCs as each block's patches and refuses the faces left uncovered, the block named, before its run folder (exit $rc)"
  # two zones whose BCs cover every face but the interface and the periodic pair: a run takes them
  cp "$C/two.cgns" "$C/twobc.cgns"
  $F addbc "$C/twobc.cgns" in BCFarfield 1:1 1:3 1:3 1 && $F addbc "$C/twobc.cgns" lo1 BCWall 1:3 1:1 1:3 1 \
    && $F addbc "$C/twobc.cgns" hi1 BCWall 1:3 3:3 1:3 1 && $F addbc "$C/twobc.cgns" out BCOutflow 3:3 1:3 1:3 2 \
    && $F addbc "$C/twobc.cgns" lo2 BCWall 1:3 1:1 1:3 2 && $F addbc "$C/twobc.cgns" hi2 BCWall 1:3 3:3 1:3 2
  deck twobc twobc.cgns; rc=$(run cg_twobc "$C/twobc.nml" --backend cpu)
  expect '[ "$rc" = 0 ] && grep -q "boundaries: 10 patches over the blocks. faces that no interface joins, from the grid file.s boundary conditions" "$T/cg_twobc.log" \
    && grep -q "units: the free stream" "$T/cg_twobc.log" && [ "$(grep -c ",wall," "$T/cg_twobc/forces.csv")" = 4 ]' \
    "CGNS zones with BCs on every open face: a run takes them as the blocks' patches (free stream start, 4 walls in forces.csv; exit $rc)"
  # a multi-block Plot3D file converted by plot3d_to_cgns: the same blocks and interfaces
  [ -x "$B/test_block_interfaces" ] || make -s GPU_BACKEND=none "$B/test_block_interfaces" > /dev/null 2>&1
  mkdir -p "$C/mb" && ./$B/test_block_interfaces --write "$C/mb" > /dev/null 2>&1
  plot3d_to_cgns -u -d "$C/mb/box2.x" "$C/mb/box2.cgns" > /dev/null 2>&1
  ./$B/grid_check "$C/mb/box2.x" > "$T/gcz_p3d.log" 2>&1; r1=$?
  ./$B/grid_check "$C/mb/box2.cgns" > "$T/gcz_cg.log" 2>&1; r2=$?
  expect '[ "$r1$r2" = 00 ] && [ "$(grep -c "^    block" "$T/gcz_p3d.log")" -gt 5 ] && cmp -s <(grep -E "^    block|interface\(s\)|face part" "$T/gcz_p3d.log") <(grep -E "^    block|interface\(s\)|face part" "$T/gcz_cg.log")' \
    "CGNS zones: a 2-block Plot3D box (the second block turned) through plot3d_to_cgns: the same interface (transform 2,-3,-1) and face parts as the Plot3D file (exit $r1 $r2)"
  cp "$C/pl.cgns" "$C/shift.cgns"; $F addcut "$C/shift.cgns" icut 1
  refuse shift shift.cgns "interface \"icut\": it joins the zone's i-faces, but their nodes do not coincide" "a self interface whose faces do not coincide" pl.bc
fi
