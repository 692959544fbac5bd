"""Fabrication outputs of one PCB (pcbnew; called by ``pcb.py``): Gerbers and the Excellon drill
file (what a PCB fab takes), JLCPCB's assembly BOM and placement (CPL) files as CSV, and SVG
plots of both copper layers with the outline.

JLCPCB columns: BOM ``Comment,Designator,Footprint,LCSC Part #``; CPL
``Designator,Mid X,Mid Y,Layer,Rotation`` (mm, top side). Parts without an LCSC number (the
reeds, the DevKitC, the USB breakout) are hand-soldered: hardware/README.md.
"""

import csv
import io

import pcbnew

# value -> (manufacturer part, LCSC part number); assembly services look parts up by the latter
PARTS = {
    "74HC165": ("Nexperia 74HC165D,653", ""),
    "10k x15 bussed": ("Bourns 4816P-1-103LF", ""),
    "100n": ("generic 100nF X7R 0603", "C14663"),
    "WS2812B": ("Worldsemi WS2812B-B/T", ""),
    "74AHCT1G125": ("TI SN74AHCT1G125DBVR", ""),
    "330": ("generic 330R 0603", "C23138"),
    "10k": ("generic 10k 0603", "C25804"),
    "PTC 750mA": ("Littelfuse 1206L075", ""),
    "chain IN": ("JST SM10B-SRSS-TB", ""),
    "chain OUT": ("JST SM10B-SRSS-TB", ""),
    "chain CHAIN": ("JST SM10B-SRSS-TB", ""),
    "chain RETURN": ("JST SM10B-SRSS-TB", ""),
    # the battery option (board.json "battery"; hardware/bom.md)
    "battery 1S Li-ion": ("JST S3B-PH-K-S", ""),
    "BQ24074": ("TI BQ24074RGTR", ""),
    "TPS61023": ("TI TPS61023DRLR", ""),
    "1u": ("1 uH 4 x 4 mm shielded inductor, Isat >= 4 A", ""),
    "4u7": ("generic 4.7uF X5R 0603 10 V", ""),
    "22u": ("generic 22uF X5R 0603 10 V", ""),
    "100k": ("generic 100k 1% 0603", ""),
    "732k": ("generic 732k 1% 0603", ""),
}

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
    for p in design_board.parts:
        if p.footprint:
            mpn, lcsc = PARTS.get(p.value, (p.value + " (hand-soldered)", ""))
            groups.setdefault((mpn, p.footprint, lcsc), []).append(p.ref)
    bom = [("Comment", "Designator", "Footprint", "LCSC Part #")]
    for (mpn, fp, lcsc), refs in sorted(groups.items()):
        bom.append((mpn, ",".join(refs), fp, lcsc))
    cpl = [("Designator", "Mid X", "Mid Y", "Layer", "Rotation")]
    for fp in sorted(pcb.GetFootprints(), key=lambda f: f.GetReference()):
        pos = fp.GetPosition()
        cpl.append(
            (
                fp.GetReference(),
                "%.3fmm" % pcbnew.ToMM(pos.x),
                "%.3fmm" % -pcbnew.ToMM(pos.y),
                "Top",
                "%d" % int(fp.GetOrientationDegrees()),
            )
        )
    return _csv(bom), _csv(cpl)
