# A picture of a run's flow.vts without a display, with ParaView's Python
# (Debian's paraview package: pvpython under xvfb-run; its
# --force-offscreen-rendering crashes that build, so a virtual X server it is):
#
#   xvfb-run -a pvpython validation/view_flow.py runs/cube32_re100/flow.vts flow.png [ARRAY]
#
# Draws the mid-plane z = 0.5 of the box coloured by ARRAY (a point array of
# flow.vts: velocity by default, drawn as its magnitude; cp, pressure, ..., with the
# velocity's in-plane streamlines on top, and saves a 1200 x 1000 PNG. The
# arrays and their units are in README ("Viewing results").
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, Render,
                             SaveScreenshot, Show, Slice, StreamTracer, XMLStructuredGridReader)

if len(sys.argv) not in (3, 4):
    sys.exit("usage: pvpython view_flow.py FLOW.vts OUT.png [ARRAY]")
vts, png = sys.argv[1], sys.argv[2]
array = sys.argv[3] if len(sys.argv) == 4 else "velocity"

reader = XMLStructuredGridReader(FileName=[vts])
reader.UpdatePipeline()
names = list(reader.PointData.keys())
if array not in names:
    sys.exit("view_flow: %s has no point array %r (it has: %s)" % (vts, array, ", ".join(names)))
(x0, x1, y0, y1, z0, z1) = reader.GetDataInformation().GetBounds()

cut = Slice(Input=reader)
cut.SliceType = "Plane"
cut.SliceType.Origin = [0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.5 * (z0 + z1)]
cut.SliceType.Normal = [0.0, 0.0, 1.0]

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1200, 1000]
shown = Show(cut, view)
if array == "velocity":
    ColorBy(shown, ("POINTS", array, "Magnitude"))
else:
    ColorBy(shown, ("POINTS", array))
shown.SetScalarBarVisibility(view, True)
shown.RescaleTransferFunctionToDataRange(True, False)

lines = StreamTracer(Input=cut, SeedType="Line")
lines.Vectors = ["POINTS", "velocity"]
lines.SeedType.Point1 = [x0 + 0.02 * (x1 - x0), 0.5 * (y0 + y1), 0.5 * (z0 + z1)]
lines.SeedType.Point2 = [x1 - 0.02 * (x1 - x0), 0.5 * (y0 + y1), 0.5 * (z0 + z1)]
lines.SeedType.Resolution = 12
lines.MaximumStreamlineLength = 10.0 * (x1 - x0)
line_display = Show(lines, view)
ColorBy(line_display, None)
line_display.AmbientColor = line_display.DiffuseColor = [0.0, 0.0, 0.0]

view.CameraPosition = [0.5 * (x0 + x1), 0.5 * (y0 + y1), z1 + 3.0 * (x1 - x0)]
view.CameraFocalPoint = [0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.5 * (z0 + z1)]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.ResetCamera()
Render(view)
SaveScreenshot(png, view, ImageResolution=[1200, 1000])
print("view_flow: %s -> %s (%s on the mid-plane z = %.3g, streamlines of the in-plane velocity)"
      % (vts, png, array, 0.5 * (z0 + z1)))
