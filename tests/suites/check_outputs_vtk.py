#!/usr/bin/env python3
"""Reads adiflow's outputs with VTK's own readers (Debian's python3-vtk9), as
ParaView would: flow.vts with vtkXMLStructuredGridReader (block files and
their .pvts with vtkXMLPStructuredGridReader), flow.dat with vtkTecplotReader,
and the .pvd collection (plain XML; every file it names is opened). Checks
the variable names against README.md's "Output variables" table, the sizes,
and values: wall and lid nodes, node means, cp and vorticity. Run by
tests/suites/run_tests.sh and tests/suites/run_mpi_tests.sh, which make the runs.

Prints one "PASS ..." or "FAIL ..." line per check; exit 1 if any failed.
Exit 3 (no line) when vtk cannot be imported: the caller says it skipped."""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

try:
    from vtkmodules.vtkIOXML import vtkXMLStructuredGridReader, vtkXMLPStructuredGridReader
    from vtkmodules.vtkIOGeometry import vtkTecplotReader
    from vtkmodules.util.numpy_support import vtk_to_numpy
    import numpy as np
except ImportError as e:
    print(f"note: cannot import vtk ({e})")
    sys.exit(3)

failures = 0

# flow.vts holds the flow variables as Float32 (the coordinates as Float64): a
# value read back is the solver's double rounded to float32, within half an ulp,
# 2**-24 of its magnitude. Checks on those values allow a few ulps (F32 of the
# values' scale) where the double values would agree to round-off; exact values
# (0, the lid's 1, rho = T = 1 at rest) stay exact, as float32 holds them.
F32 = 4e-7


def check(cond, what):
    global failures
    print(("PASS " if cond else "FAIL ") + what)
    if not cond:
        failures += 1
    return cond


def readme_variables(path):
    """[(array, [component variables])] from README.md's table under the line
    "**Output variables**": rows "| `name` | `c1`, `c2` | ..."."""
    rows, inside = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("**Output variables**"):
                inside = True
                continue
            if inside and line.startswith("| `"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                rows.append((cells[0].strip("`"), re.findall(r"`([^`]+)`", cells[1])))
            elif inside and rows and not line.startswith("|"):
                break
    return rows


def read_vts(path, parallel=False):
    r = vtkXMLPStructuredGridReader() if parallel else vtkXMLStructuredGridReader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()


def arrays(data):
    """{name: (numpy array (n, ncomp), [component names])} of point or cell data."""
    out = {}
    for i in range(data.GetNumberOfArrays()):
        a = data.GetArray(i)
        v = vtk_to_numpy(a).reshape(a.GetNumberOfTuples(), a.GetNumberOfComponents())
        comps = [a.GetComponentName(c) for c in range(a.GetNumberOfComponents())] if a.GetNumberOfComponents() > 1 else []
        out[a.GetName()] = (v, comps)
    return out


def names(data):
    return [data.GetArrayName(i) for i in range(data.GetNumberOfArrays())]


def grid_of(values, n):
    """Flat VTK order (i fastest) to [i, j, k, comp]."""
    return values.reshape(n[2], n[1], n[0], -1).transpose(2, 1, 0, 3)


def check_case(label, d, n, variables, lid, parallel):
    """Names, sizes, the Tecplot file against the .vts, wall and lid nodes,
    node means. Returns (points [i,j,k,3], point arrays, cell arrays) on a grid."""
    ni, nj, nk = n
    vts = os.path.join(d, "flow.pvts" if parallel else "flow.vts")
    g = read_vts(vts, parallel)
    check(g.GetNumberOfPoints() == (ni + 1) * (nj + 1) * (nk + 1) and g.GetNumberOfCells() == ni * nj * nk
          and tuple(g.GetDimensions()) == (ni + 1, nj + 1, nk + 1),
          f"{label}: {os.path.basename(vts)} has (ni+1)(nj+1)(nk+1) = {(ni + 1) * (nj + 1) * (nk + 1)} points "
          f"and ni*nj*nk = {ni * nj * nk} cells (read {g.GetNumberOfPoints()}, {g.GetNumberOfCells()})")
    want = [v for v, _ in variables]
    check(names(g.GetPointData()) == want and names(g.GetCellData()) == want,
          f"{label}: point and cell arrays are README's list {want} "
          f"(point {names(g.GetPointData())}, cell {names(g.GetCellData())})")
    pa, ca = arrays(g.GetPointData()), arrays(g.GetCellData())
    comps_ok = all((pa[v][1] == c and ca[v][1] == c) if len(c) > 1 else (pa[v][0].shape[1] == 1)
                   for v, c in variables if v in pa and v in ca)
    check(comps_ok, f"{label}: vector components named as README says ({[c for _, c in variables if len(c) > 1]})")
    pts = grid_of(vtk_to_numpy(g.GetPoints().GetData()), (ni + 1, nj + 1, nk + 1))
    check(all(g.GetPointData().GetArray(v).GetDataTypeAsString() == "float"
              and g.GetCellData().GetArray(v).GetDataTypeAsString() == "float" for v in pa if v in ca)
          and g.GetPoints().GetData().GetDataTypeAsString() == "double",
          f"{label}: flow variables are Float32, coordinates Float64")
    # the float32 values widened (exactly) to double: the arithmetic below adds no float32 rounding
    P = {v: grid_of(pa[v][0], (ni + 1, nj + 1, nk + 1)).astype(np.float64) for v in pa}
    C = {v: grid_of(ca[v][0], (ni, nj, nk)).astype(np.float64) for v in ca}

    # the Tecplot file: the same names (vectors as their components), the same cell values
    dat = os.path.join(d, "flow.dat")
    if os.path.exists(dat):
        t = vtkTecplotReader()
        t.SetFileName(dat)
        t.Update()
        b = t.GetOutput().GetBlock(0)
        flat = [c for v, comps in variables for c in (comps if len(comps) > 1 else [v])]
        tnames = names(b.GetCellData())
        check(tnames == flat and b.GetNumberOfPoints() == g.GetNumberOfPoints()
              and b.GetNumberOfCells() == g.GetNumberOfCells(),
              f"{label}: flow.dat (vtkTecplotReader) holds README's variables {flat} on the same grid (read {tnames})")
        worst = 0.0
        for v, comps in variables:
            if v not in C:
                continue
            for c, cname in enumerate(comps if len(comps) > 1 else [v]):
                a = b.GetCellData().GetArray(cname)
                if a is None:
                    worst = float("inf")
                    continue
                tv = grid_of(vtk_to_numpy(a), (ni, nj, nk))[..., 0]
                scale = max(np.abs(C[v][..., c]).max(), 1e-300)
                worst = max(worst, np.abs(tv - C[v][..., c]).max() / scale)
        tp = grid_of(vtk_to_numpy(b.GetPoints().GetData()), (ni + 1, nj + 1, nk + 1))
        # vtkTecplotReader keeps single precision (float32): equal to its rounding
        check(worst < 1e-6 and np.abs(tp - pts).max() < 1e-6,
              f"{label}: flow.dat's cell values and nodes equal flow.vts's to the reader's float32 "
              f"(largest relative difference {worst:.1e})")

    # nodes on walls carry the wall's value: velocity 0, the lid's velocity on the lid (j = nj); where two
    # faces meet the last filled decides (k walls over the lid's edges). Isothermal walls: T = t_wall = 1.
    # 0, 1 and the lid's 1.0 are float32 numbers, and a double within 1e-13 of them rounds to them (or,
    # near 0, keeps its magnitude): the double tolerances hold for the float32 values
    u = P["velocity"]
    check(np.abs(u[0, 1:nj, 1:nk]).max() < 1e-13 and np.abs(u[:, :, 0]).max() < 1e-13
          and np.abs(u[:, 0, 1:nk]).max() < 1e-13,
          f"{label}: wall nodes' point velocity is 0 (faces i = 0, j = 0, k = 0 off the lid's edges along i)")
    err = np.abs(u[:, nj, 1:nk] - np.array(lid)).max()
    check(err < 1e-13, f"{label}: lid nodes' point velocity is the lid's {tuple(lid)} (largest difference {err:.1e})")
    err = np.abs(P["temperature"][0, 1:nj, 1:nk] - 1.0).max()
    check(err < 1e-13, f"{label}: isothermal wall nodes' temperature is t_wall = 1 (largest difference {err:.1e})")

    # node means: interior nodes are the mean of their 8 cells; point density within the cells' range.
    # The mean of the rounded cells and the rounded mean differ by at most an ulp of the largest
    # value (half from the cells, half from the node): F32 of the scale allows 3 or so
    def mean8(c):
        return 0.125 * sum(c[a:a + ni - 1, b:b + nj - 1, e:e + nk - 1] for a in (0, 1) for b in (0, 1) for e in (0, 1))
    err = max(np.abs(mean8(C[v]) - P[v][1:ni, 1:nj, 1:nk]).max() / max(np.abs(C[v]).max(), 1e-300)
              for v in ("density", "velocity", "pressure", "vorticity"))
    check(err < F32, f"{label}: interior nodes hold the mean of their 8 cells to float32 (density, velocity, "
          f"pressure, vorticity; largest relative difference {err:.1e}, tolerance {F32:.0e})")
    rho_c, rho_p = C["density"], P["density"]
    # rounding to float32 keeps order, so the rounded range holds the rounded means; F32 for a mean
    # a double round-off outside its cells' range
    tol = F32 * np.abs(rho_c).max()
    check(rho_p.min() >= rho_c.min() - tol and rho_p.max() <= rho_c.max() + tol,
          f"{label}: point density within the cells' [{rho_c.min():.6f}, {rho_c.max():.6f}] "
          f"(points [{rho_p.min():.6f}, {rho_p.max():.6f}])")
    # cp and mach of nodes from the node's own primitives (the cells' formulas). cp is a difference of
    # pressures over q: its float32 error is the pressure's ulps over q, plus cp's own. mach is a
    # product of 4 rounded values (|u|, p, rho under a square root, and mach): some 2e-7 of it
    gamma = 1.4
    q = 0.5 * float(np.dot(lid, lid))
    p0 = C["pressure"].flat[0] - C["cp"].flat[0] * q
    cp_p = (P["pressure"] - p0) / q
    m_p = np.linalg.norm(P["velocity"], axis=3, keepdims=True) / np.sqrt(gamma * P["pressure"] / P["density"])
    tol_cp = F32 * (np.abs(P["pressure"]).max() / q + np.abs(P["cp"]).max())
    tol_m = F32 * max(np.abs(P["mach"]).max(), 1e-300)
    e_cp, e_m = np.abs(cp_p - P["cp"]).max(), np.abs(m_p - P["mach"]).max()
    check(e_cp < tol_cp and e_m <= tol_m,
          f"{label}: point cp and mach follow from the point primitives to float32 (differences {e_cp:.1e} "
          f"and {e_m:.1e}, tolerances {tol_cp:.1e} and {tol_m:.1e})")
    return pts, P, C


def fd_vorticity(pts, cu):
    """Central differences of the cell velocities along the grid lines of a
    tensor-product grid (x of i only, ...), on cells 2..n-1."""
    xc = 0.125 * sum(pts[a:a + cu.shape[0], b:b + cu.shape[1], e:e + cu.shape[2]]
                     for a in (0, 1) for b in (0, 1) for e in (0, 1))
    s = (slice(1, -1),) * 3

    def d(f, axis, coord):
        lo, hi = [slice(1, -1)] * 3, [slice(1, -1)] * 3
        lo[axis], hi[axis] = slice(0, -2), slice(2, None)
        return (f[tuple(hi)] - f[tuple(lo)]) / (xc[tuple(hi)][..., coord] - xc[tuple(lo)][..., coord])
    u, v, w = cu[..., 0], cu[..., 1], cu[..., 2]
    om = np.stack([d(w, 1, 1) - d(v, 2, 2), d(u, 2, 2) - d(w, 0, 0), d(v, 0, 0) - d(u, 1, 1)], axis=-1)
    return om, s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme", required=True)
    ap.add_argument("--case", nargs=4, action="append", default=[], metavar=("DIR", "NI", "NJ", "NK"),
                    help="a run folder with flow.vts (and flow.dat) and its grid")
    ap.add_argument("--lid", nargs=3, type=float, default=[1.0, 0.0, 0.0])
    ap.add_argument("--parallel", action="store_true", help="flow.pvts of adiflow_mpi instead of flow.vts")
    ap.add_argument("--initial", help="a --case folder of max_iter = 0: the state at rest")
    ap.add_argument("--uniform", help="a --case folder on a uniform grid: vorticity = central differences")
    ap.add_argument("--stretched", help="a --case folder on a stretched grid: vorticity near central differences")
    ap.add_argument("--pvd", nargs=2, action="append", default=[], metavar=("DIR", "ITERS"),
                    help="DIR/flow.pvd lists the snapshots of ITERS (comma-separated) and then the final state")
    a = ap.parse_args()

    variables = readme_variables(a.readme)
    check(len(variables) >= 5 and [v for v, _ in variables][:1] == ["density"],
          f"README.md's Output variables table read: {[v for v, _ in variables]}")
    cases = {}
    for d, ni, nj, nk in a.case:
        label = os.path.basename(d.rstrip("/"))
        cases[d] = (label, check_case(label, d, (int(ni), int(nj), int(nk)), variables, a.lid, a.parallel))

    if a.initial:
        # the state at rest is exact in float32 as in double: cp, velocity, mach 0; rho and T 1
        label, (pts, P, C) = cases[a.initial]
        worst = max(np.abs(P["cp"]).max(), np.abs(C["cp"]).max())
        check(worst < 1e-10, f"{label}: cp of the initial state (iteration 0) is 0 (largest |cp| {worst:.1e})")
        # the lid's ghosts already move: the cells below the lid see its shear, the others none
        check(np.abs(C["velocity"]).max() == 0 and np.abs(C["vorticity"][:, :-1]).max() == 0
              and np.abs(C["vorticity"][:, -1, :, 2]).min() > 0 and np.abs(C["mach"]).max() == 0
              and np.abs(C["temperature"] - 1).max() < 1e-13 and np.abs(C["density"] - 1).max() == 0,
              f"{label}: the initial state: rho = 1, T = 1, velocity and mach 0; vorticity 0 but below the lid")

    for key, tol, what in ((a.uniform, 1e-10, "equals central differences (uniform grid)"),
                           (a.stretched, 0.01, "is near central differences (stretched grid, within 1 % of its largest)")):
        if not key:
            continue
        label, (pts, P, C) = cases[key]
        om, s = fd_vorticity(pts, C["velocity"])
        scale = np.abs(om).max()
        err = np.abs(om - C["vorticity"][s]).max() / scale
        # float32 velocities: each of a component's two differences may be off by an ulp of the
        # largest velocity over the distance of the cells it spans (2 h, h the smallest cell
        # width), plus the stored vorticity's own rounding
        h = min(np.diff(pts[:, 0, 0, 0]).min(), np.diff(pts[0, :, 0, 1]).min(), np.diff(pts[0, 0, :, 2]).min())
        tol = tol + F32 * (2 * np.abs(C["velocity"]).max() / (2 * h) + scale) / max(scale, 1e-300)
        check(scale > 1e-3 and err < tol, f"{label}: cell vorticity {what}: largest difference {err:.1e} of "
              f"|omega| {scale:.3f} (tolerance {tol:.1e}, float32 values), over the cells off the walls")

    for d, iters in a.pvd:
        want = [int(x) for x in iters.split(",") if x]
        ext = ".pvts" if a.parallel else ".vts"
        try:
            sets = ET.parse(os.path.join(d, "flow.pvd")).getroot().find("Collection").findall("DataSet")
        except (OSError, ET.ParseError, AttributeError) as e:
            check(False, f"{d}/flow.pvd parses ({e})")
            continue
        got = [(int(s.get("timestep")), s.get("file")) for s in sets]
        expect = [(i, "flow_%07d%s" % (i, ext)) for i in want[:-1]] + [(want[-1], "flow" + ext)]
        check(got == expect, f"flow.pvd of {os.path.basename(d)} lists the snapshots and the final state with their "
              f"iterations: {[g[0] for g in got]} (wanted {[e[0] for e in expect]}; files {[g[1] for g in got]})")
        opened = [f for _, f in got if read_vts(os.path.join(d, f), a.parallel).GetNumberOfPoints() > 0
                  and read_vts(os.path.join(d, f), a.parallel).GetPointData().GetArray("density") is not None]
        check(len(got) > 0 and len(opened) == len(got),
              f"every file flow.pvd of {os.path.basename(d)} names opens with its point data ({len(opened)} of {len(got)})")
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
