"""Fabrication outputs of one PCB (pcbnew; called by ``pcb.py``): Gerbers and the Excellon drill
file (what a PCB fab takes), JLCPCB's assembly BOM and placement (CPL) files as CSV, and SVG
plots of both copper layers with the outline.

JLCPCB columns: BOM ``Comment,Designator,Footprint,LCSC Part #``; CPL
``Designator,Mid X,Mid Y,Layer,Rotation`` (mm, top side): the centre and rotation of JLCPCB's
footprint of each machine-placed package (``jlc.py``: checked against the footprint's pin 1).
Parts without an LCSC number (the reeds, the DevKitC, the USB breakout, and the machine parts
whose number could not be confirmed, hardware/bom.md) are hand-soldered or looked up before
ordering: hardware/README.md.
"""

import csv
import io
import math

import pcbnew

from . import jlc
from .parts import ORDER as PARTS

GERBER_LAYERS = (
    (pcbnew.F_Cu, "F_Cu"),
    (pcbnew.B_Cu, "B_Cu"),
    (pcbnew.F_Mask, "F_Mask"),
    (pcbnew.B_Mask, "B_Mask"),
    (pcbnew.F_Paste, "F_Paste"),
    (pcbnew.F_SilkS, "F_Silkscreen"),
    (pcbnew.Edge_Cuts, "Edge_Cuts"),
)


def _plot(board, outdir, fmt, layers):
    pctl = pcbnew.PLOT_CONTROLLER(board)
    popt = pctl.GetPlotOptions()
    popt.SetOutputDirectory(str(outdir))
    popt.SetPlotFrameRef(False)
    popt.SetUseGerberProtelExtensions(False)
    popt.SetCreateGerberJobFile(False)
    popt.SetUseGerberX2format(False)
    popt.SetIncludeGerberNetlistInfo(False)
    popt.SetExcludeEdgeLayer(fmt == pcbnew.PLOT_FORMAT_GERBER)
    popt.SetUseAuxOrigin(False)
    popt.SetScale(1)
    popt.SetMirror(False)
    for layer, name in layers:
        pctl.SetLayer(layer)
        pctl.OpenPlotfile(name, fmt, name)
        pctl.PlotLayer()
    pctl.ClosePlot()


def gerbers(board, outdir):
    _plot(board, outdir, pcbnew.PLOT_FORMAT_GERBER, GERBER_LAYERS)
    drl = pcbnew.EXCELLON_WRITER(board)
    drl.SetOptions(False, False, pcbnew.wxPoint(0, 0), True)  # mirror, minimal header, offset, merge NPTH
    drl.SetFormat(True)  # metric
    drl.CreateDrillandMapFilesSet(str(outdir), True, False)


def svgs(board, outdir):
    _plot(board, outdir, pcbnew.PLOT_FORMAT_SVG, ((pcbnew.F_Cu, "top"), (pcbnew.B_Cu, "bottom")))


def _csv(rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


def bom_cpl(design_board, pcb):
    """(bom_csv, cpl_csv) in JLCPCB's format; one BOM line per value and footprint."""
    groups = {}
    footprint = {}
    for p in design_board.parts:
        if p.footprint:
            footprint[p.ref] = p.footprint
            mpn, lcsc = PARTS.get(p.value, (p.value + " (hand-soldered)", ""))[:2]
            groups.setdefault((mpn, p.footprint, lcsc), []).append(p.ref)
    bom = [("Comment", "Designator", "Footprint", "LCSC Part #")]
    for (mpn, fp, lcsc), refs in sorted(groups.items()):
        bom.append((mpn, ",".join(refs), fp, lcsc))
    cpl = [("Designator", "Mid X", "Mid Y", "Layer", "Rotation")]
    for fp in sorted(pcb.GetFootprints(), key=lambda f: f.GetReference()):
        pos = fp.GetPosition()
        x, y = pcbnew.ToMM(pos.x), pcbnew.ToMM(pos.y)
        orient = int(round(fp.GetOrientationDegrees())) % 360
        name = footprint[fp.GetReference()]
        rotation = orient
        if name in jlc.KICAD_LIB:  # machine-placed: JLCPCB's centre and rotation
            rotation, (dx, dy) = jlc.placement(name, orient)
            c, s = round(math.cos(math.radians(orient))), round(math.sin(math.radians(orient)))
            x, y = x + dx * c + dy * s, y - dx * s + dy * c
        cpl.append((fp.GetReference(), "%.3fmm" % x, "%.3fmm" % -y, "Top", "%d" % rotation))
    return _csv(bom), _csv(cpl)
