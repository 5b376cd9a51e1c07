#!/usr/bin/python3
"""Read the .vtu files cleave wrote (tests/vtk/write_samples.c) with VTK itself and compare them with
expected.json: point and cell counts, cell types, connectivity, coordinates, point and cell data.
Also checks that VTK computes a positive volume for every tet, i.e. cleave's orientation convention
is VTK's.

Usage: /usr/bin/python3 check_vtu.py SAMPLE_DIR
Needs Debian's python3-vtk9 (the system python); without it the test is skipped (exit code 77)."""
import json
import math
import os
import sys

SKIP = 77
try:
    import vtk  # Debian python3-vtk9
except ImportError:
    print("SKIP: python3-vtk9 not installed (apt-get install python3-vtk9, then run with /usr/bin/python3)")
    sys.exit(SKIP)

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def close(a, b):
    # the writer prints 17 significant digits, so VTK should recover the double; allow one ulp-ish
    return a == b or abs(a - b) <= 1e-15 * max(abs(a), abs(b))


def read(path):
    errors = []
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.AddObserver("ErrorEvent", lambda obj, ev: errors.append(ev))
    reader.AddObserver("WarningEvent", lambda obj, ev: errors.append(ev))
    reader.SetFileName(path)
    reader.Update()
    check(not errors, "%s: VTK reported %s" % (path, errors))
    return reader.GetOutput()


def compare(name, exp, grid):
    where = exp["file"]
    npts = len(exp["points"]) // 3
    ncells = len(exp["cells"]) // exp["cell_size"]
    if not check(grid.GetNumberOfPoints() == npts, "%s: %d points, expected %d" % (where, grid.GetNumberOfPoints(), npts)):
        return
    if not check(grid.GetNumberOfCells() == ncells, "%s: %d cells, expected %d" % (where, grid.GetNumberOfCells(), ncells)):
        return
    for i in range(npts):
        p = grid.GetPoint(i)
        for k in range(3):
            check(close(p[k], exp["points"][3 * i + k]),
                  "%s: point %d coordinate %d is %r, expected %r" % (where, i, k, p[k], exp["points"][3 * i + k]))
    check(grid.GetPoints().GetData().GetDataType() == vtk.VTK_DOUBLE, "%s: points are not Float64" % where)
    ids = vtk.vtkIdList()
    cs = exp["cell_size"]
    for c in range(ncells):
        check(grid.GetCellType(c) == exp["cell_type"],
              "%s: cell %d has VTK type %d, expected %d" % (where, c, grid.GetCellType(c), exp["cell_type"]))
        grid.GetCellPoints(c, ids)
        got = [ids.GetId(k) for k in range(ids.GetNumberOfIds())]
        check(got == exp["cells"][cs * c:cs * (c + 1)], "%s: cell %d has points %s, expected %s"
              % (where, c, got, exp["cells"][cs * c:cs * (c + 1)]))
        if exp["cell_type"] == vtk.VTK_TETRA:
            pts = [grid.GetPoint(i) for i in got]
            vol = vtk.vtkTetra.ComputeVolume(*pts)
            check(vol > 0, "%s: VTK finds tet %d inverted (volume %g)" % (where, c, vol))
    for f in exp["fields"]:
        data = grid.GetPointData() if f["where"] == "point" else grid.GetCellData()
        arr = data.GetArray(f["name"])
        if not check(arr is not None, "%s: no %s array '%s'" % (where, f["where"], f["name"])):
            continue
        check(arr.GetDataType() == vtk.VTK_DOUBLE, "%s: '%s' is not Float64" % (where, f["name"]))
        nt = npts if f["where"] == "point" else ncells
        check(arr.GetNumberOfComponents() == f["ncomp"] and arr.GetNumberOfTuples() == nt,
              "%s: '%s' has %d x %d values, expected %d x %d" % (where, f["name"], arr.GetNumberOfTuples(),
                                                                 arr.GetNumberOfComponents(), nt, f["ncomp"]))
        for i in range(min(nt, arr.GetNumberOfTuples())):
            tup = arr.GetTuple(i)
            for k in range(min(f["ncomp"], len(tup))):
                e = f["values"][f["ncomp"] * i + k]
                check(close(tup[k], e), "%s: '%s'[%d][%d] = %r, expected %r" % (where, f["name"], i, k, tup[k], e))
    names = set(grid.GetPointData().GetArrayName(i) for i in range(grid.GetPointData().GetNumberOfArrays()))
    names |= set(grid.GetCellData().GetArrayName(i) for i in range(grid.GetCellData().GetNumberOfArrays()))
    check(names == set(f["name"] for f in exp["fields"]), "%s: arrays %s, expected %s"
          % (where, sorted(names), sorted(f["name"] for f in exp["fields"])))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    d = sys.argv[1]
    with open(os.path.join(d, "expected.json")) as fh:
        expected = json.load(fh)
    for name, exp in expected.items():
        compare(name, exp, read(os.path.join(d, exp["file"])))
    print("VTK %s read %d files: %s" % (vtk.vtkVersion.GetVTKVersion(), len(expected), ", ".join(sorted(expected))))
    for f in failures[:50]:
        print("FAIL:", f)
    if failures:
        print("%d mismatches" % len(failures))
        return 1
    print("all counts, cell types, coordinates and fields match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
