#!/usr/bin/env python3
"""Reads a run's Plot3D files (flow.xyz, flow.q; write_plot3d) record by
record, as a Fortran unformatted reader would, and checks them against the
run's field.dump, independently of the solver's writers:

- both files: one block (the multi-block header), its node sizes
  (ni+1, nj+1, nk+1), the records' markers and lengths, nothing after;
- flow.q's block header: Mach, alpha, Re, time 0;
- at every interior node: the Plot3D variables equal the mean of the eight
  cells' primitives around the node, made conservative again and scaled
  (momenta times Mach, energy times Mach^2), within 1e-12 of each variable's
  largest magnitude;
- on the lid (j = nj, away from the side walls): u = lid_u within 1e-12;
- where VTK's Python module is there (python3-vtk9): ParaView's reader,
  vtkMultiBlockPLOT3DReader with README's settings, reads both files to the
  same sizes, node coordinates, density and header (Mach, alpha, Re, time).

Standard library only (VTK where present). Usage: check_plot3d_q.py DIR ni nj nk mach alpha re gamma lid_u
Prints one PASS/FAIL line per check; exit 1 if any failed."""
import struct
import sys

fails = 0


def check(ok, text):
    global fails
    print(("PASS " if ok else "FAIL ") + text)
    if not ok:
        fails += 1


def records(path):
    """The records of a Fortran unformatted file (4-byte little-endian markers)."""
    data = open(path, "rb").read()
    out, at = [], 0
    while at < len(data):
        (n,) = struct.unpack_from("<i", data, at)
        body = data[at + 4:at + 4 + n]
        (m,) = struct.unpack_from("<i", data, at + 4 + n)
        if n < 0 or m != n:
            raise ValueError(f"{path}: record markers {n} and {m} at byte {at}")
        out.append(body)
        at += 8 + n
    return out


def doubles(b):
    return struct.unpack("<%dd" % (len(b) // 8), b)


def main():
    d = sys.argv[1]
    ni, nj, nk = (int(a) for a in sys.argv[2:5])
    mach, alpha, re, gamma, lid_u = (float(a) for a in sys.argv[5:10])
    npt = (ni + 1) * (nj + 1) * (nk + 1)
    xyz = records(d + "/flow.xyz")
    q = records(d + "/flow.q")
    for name, r, nrec, nval in (("flow.xyz", xyz, 3, 3), ("flow.q", q, 4, 5)):
        ok = (len(r) == nrec and struct.unpack("<i", r[0]) == (1,)
              and struct.unpack("<3i", r[1]) == (ni + 1, nj + 1, nk + 1) and len(r[-1]) == 8 * nval * npt)
        check(ok, f"{name}: {nrec} records (block count 1, sizes {ni + 1} {nj + 1} {nk + 1}, "
                  f"{nval} values per node), nothing after")
        if not ok:
            return
    head = doubles(q[2])
    check(head == (mach, alpha, re, 0.0), f"flow.q header: Mach, alpha, Re, time = {head} (wanted {(mach, alpha, re, 0.0)})")
    qv = doubles(q[3])

    # field.dump: a 128-byte header, then the five variables of the cells (i fastest), then the CRC
    dump = open(d + "/field.dump", "rb").read()
    ncell = ni * nj * nk
    cells = struct.unpack_from("<%dd" % (5 * ncell), dump, 128)

    def cell(v, i, j, k):  # 1-based cell indices
        return cells[v * ncell + (i - 1) + ni * ((j - 1) + nj * (k - 1))]

    def node(v, i, j, k):  # 0-based node indices
        return qv[v * npt + i + (ni + 1) * (j + (nj + 1) * k)]

    scale = [max(abs(node(v, i, j, k)) for k in range(nk + 1) for j in range(nj + 1) for i in range(ni + 1))
             for v in range(5)]
    worst = [0.0] * 5
    for k in range(1, nk):
        for j in range(1, nj):
            for i in range(1, ni):
                p = [0.0] * 5   # rho, u, v, w, p: the mean over the 8 cells
                for (a, b, c) in ((i, j, k), (i + 1, j, k), (i, j + 1, k), (i + 1, j + 1, k),
                                  (i, j, k + 1), (i + 1, j, k + 1), (i, j + 1, k + 1), (i + 1, j + 1, k + 1)):
                    rho = cell(0, a, b, c)
                    u, v, w = (cell(m, a, b, c) / rho for m in (1, 2, 3))
                    pr = (gamma - 1.0) * (cell(4, a, b, c) - 0.5 * rho * (u * u + v * v + w * w))
                    for m, x in enumerate((rho, u, v, w, pr)):
                        p[m] += x / 8.0
                rho, u, v, w, pr = p
                want = (rho, rho * u * mach, rho * v * mach, rho * w * mach,
                        (pr / (gamma - 1.0) + 0.5 * rho * (u * u + v * v + w * w)) * mach * mach)
                for m in range(5):
                    worst[m] = max(worst[m], abs(node(m, i, j, k) - want[m]) / scale[m])
    check(max(worst) <= 1e-12, "interior nodes: flow.q = the eight cells' mean primitives of field.dump, "
                               f"conservative and scaled (largest difference per variable {['%.1e' % x for x in worst]} "
                               "of its largest magnitude, bound 1e-12)")
    lid = max(abs(node(1, i, nj, k) / (node(0, i, nj, k) * mach) - lid_u) for k in range(1, nk) for i in range(1, ni))
    check(lid <= 1e-12, f"lid nodes: u = rho*u / (rho Mach) = lid_u = {lid_u} (largest difference {lid:.1e}, bound 1e-12)")
    through_vtk(d, ni, nj, nk, doubles(xyz[2]), qv, head)


def through_vtk(d, ni, nj, nk, xyz, qv, head):
    """The files as ParaView's PLOT3D reader opens them (README's settings)."""
    try:
        from vtkmodules.vtkIOParallel import vtkMultiBlockPLOT3DReader
    except ImportError:
        print("note: VTK's Python module (python3-vtk9) is not there: the ParaView reader check is skipped")
        return
    r = vtkMultiBlockPLOT3DReader()
    r.SetXYZFileName(d + "/flow.xyz")
    r.SetQFileName(d + "/flow.q")
    r.SetMultiGrid(1); r.SetBinaryFile(1); r.SetHasByteCount(1); r.SetDoublePrecision(1); r.SetIBlanking(0)
    r.SetByteOrderToLittleEndian()
    r.Update()
    g = r.GetOutput().GetBlock(0) if r.GetOutput().GetNumberOfBlocks() == 1 else None
    npt = (ni + 1) * (nj + 1) * (nk + 1)
    ok = g is not None and tuple(g.GetDimensions()) == (ni + 1, nj + 1, nk + 1)
    check(ok, f"ParaView's PLOT3D reader (VTK): one block of {ni + 1} x {nj + 1} x {nk + 1} nodes")
    if not ok:
        return
    pts = g.GetPoints().GetData()
    same_pts = all(pts.GetComponent(m, c) == xyz[c * npt + m] for m in range(npt) for c in range(3))
    rho = g.GetPointData().GetArray("Density")
    same_rho = rho is not None and all(rho.GetValue(m) == qv[m] for m in range(npt))
    prop = g.GetFieldData().GetArray("Properties")
    got = tuple(prop.GetValue(i) for i in range(4)) if prop is not None else ()
    check(same_pts and same_rho and got == tuple(head),
          f"ParaView's PLOT3D reader: the node coordinates and Density bit for bit, Properties {got} = the header")


main()
sys.exit(1 if fails else 0)
