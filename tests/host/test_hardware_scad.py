"""hardware/scad: the printable parts take their sizes from board.json, render to STL with
OpenSCAD, and the committed STLs are current. Skipped where openscad is missing, except when
GAMMON_REQUIRE_OPENSCAD is set (.ci/run sets it), where a missing OpenSCAD fails."""

import json
import math
import os
from pathlib import Path

import pytest

from tools.hardware import scad

ROOT = Path(__file__).resolve().parents[2]

SUMMARY = ROOT / "hardware" / "kicad" / "pcb-summary.json"


def _board():
    return json.loads((ROOT / "hardware" / "board.json").read_text())


@pytest.fixture(scope="module")
def stls(tmp_path_factory):
    why = scad.openscad_missing()
    if why:
        if os.environ.get("GAMMON_REQUIRE_OPENSCAD"):
            pytest.fail("OpenSCAD is required here and missing: " + why)
        pytest.skip("OpenSCAD is missing: " + why)
    out = tmp_path_factory.mktemp("stl")
    return {p: scad.render(p, out / (p + ".stl")) for p in scad.PARTS}


def test_params_scad_is_generated_from_board_json():
    summary = json.loads(SUMMARY.read_text())
    text = scad.params(_board(), summary)
    assert (scad.SCAD / "params.scad").read_text() == text, "run make hardware"
    b = _board()
    b["mechanics"]["magnet_d_mm"] = 12
    assert "magnet_d = 12;" in scad.params(b, summary)


def test_committed_stls_are_current(stls):
    for part, fresh in stls.items():
        committed = scad.SCAD / "stl" / (part + ".stl")
        assert scad.stl_shape(committed) == scad.stl_shape(fresh), part + ": run make hardware"


def test_checker_has_the_magnet_pocket_of_board_json(stls):
    m = _board()["mechanics"]
    box, vol = scad.stl_summary(stls["checker"])
    r = m["checker_d_mm"] / 2
    assert box == pytest.approx((-r, r, -r, r, 0, m["checker_h_mm"]), abs=0.1)
    solid = math.pi * r * r * m["checker_h_mm"]
    magnet = math.pi * (m["magnet_d_mm"] / 2) ** 2 * m["magnet_h_mm"]
    assert solid - vol > magnet  # something at least the magnet's size is taken out
    # the pocket's wall: vertices at the magnet's radius (+ clearance) from the base upwards
    pocket = [
        p
        for p in scad.stl_vertices(stls["checker"])
        if abs(math.hypot(p[0], p[1]) - (m["magnet_d_mm"] + 0.3) / 2) < 0.05
    ]
    assert min(p[2] for p in pocket) == pytest.approx(m["checker_base_mm"])


def test_jig_windows_sit_over_the_reed_pads(stls):
    m = _board()["mechanics"]
    summary = json.loads(SUMMARY.read_text())
    xs = {round(p[0], 2) for p in scad.stl_vertices(stls["jig"])}
    for s in range(_board()["sensors"]["slots_per_point"]):
        centre = m["rim_mm"] + m["checker_d_mm"] * (s + 0.5) + m["reed_offset_mm"]
        half = (m["reed_len_mm"] + 0.3) / 2
        assert round(centre - half, 2) in xs and round(centre + half, 2) in xs, s
    box, _ = scad.stl_summary(stls["jig"])
    assert box[1] - box[0] >= summary["point"]["size_mm"][0]


def test_tray_holds_every_checker(stls):
    m = _board()["mechanics"]
    box, _ = scad.stl_summary(stls["tray"])
    assert box[1] - box[0] >= _board()["sensors"]["tray_slots"] * m["tray_pitch_mm"] + m["rim_mm"]
    assert box[3] - box[2] > m["checker_h_mm"]


def test_tray_pockets_hold_fifteen_flat_checkers_apart_over_their_reeds(stls):
    from tools.hardware import case, reed

    b = _board()
    m = b["mechanics"]
    lay = case.layout(b, json.loads(SUMMARY.read_text()))
    box, _ = scad.stl_summary(stls["tray"])
    assert box[:4] == pytest.approx((0, lay["tray_len"], 0, lay["tray_w"]), abs=0.05)
    # the floor is the playing surface: the magnet over its reed as on a point
    assert box[5] == pytest.approx(m["surface_mm"] + 3.0)
    d = m["checker_d_mm"] + m["tray_clear_mm"]
    spots = reed.tray_spots(m, b["sensors"]["tray_slots"], 3)
    pts = [p for p in scad.stl_vertices(stls["tray"]) if p[2] > m["surface_mm"] - 0.01]
    for x, y in spots:  # each pocket's wall: vertices on its circle, at the model's spot
        cx, cy = 2 + m["rim_mm"] + d / 2 + x, 2 + d / 2 + y
        on = [p for p in pts if abs(math.hypot(p[0] - cx, p[1] - cy) - d / 2) < 0.05]
        assert len(on) >= 20, (x, y)
    assert min(math.dist(a, c) for i, a in enumerate(spots) for c in spots[i + 1 :]) >= m["checker_d_mm"]


def test_case_has_both_halves_the_surface_and_the_cavity(stls):
    from tools.hardware import case

    lay = case.layout(_board(), json.loads(SUMMARY.read_text()))
    box, vol = scad.stl_summary(stls["case"])
    assert box[1] == pytest.approx(lay["left_x"] + 2 + lay["right_x"], abs=0.05)
    assert box[3] == pytest.approx(lay["half_y"])
    assert box[4] == pytest.approx(-(lay["surface"] + lay["cavity"] + 4)) and box[5] == pytest.approx(0)
    solid = (lay["left_x"] + lay["right_x"]) * lay["half_y"] * (lay["surface"] + lay["cavity"] + 4)
    assert vol < solid * 0.5  # hollow: the cavity is most of it
    # relief pockets: the surface's underside has points at z = -(surface - relief)
    zs = {round(p[2], 2) for p in scad.stl_vertices(stls["case"])}
    assert round(-lay["surface"] + lay["relief"] + 0.09, 2) in zs


def test_jig_clears_every_smd_part_of_the_strip(stls):
    reliefs = scad.jig_reliefs()
    assert len(reliefs) >= 10
    xs = {round(p[0], 2) for p in scad.stl_vertices(stls["jig"])}
    for x0, _, _x1, _ in reliefs:  # each relief's edge is cut, unless inside another relief
        inside = any(a < x0 < c for a, _, c, _ in reliefs)
        assert round(x0, 2) in xs or inside or x0 < 0.3, x0


def _tray_cpl():
    rows = (ROOT / "hardware" / "kicad" / "tray" / "fab" / "tray-cpl-jlcpcb.csv").read_text().splitlines()[1:]
    return {r.split(",")[0]: (float(r.split(",")[1][:-2]), float(r.split(",")[2][:-2])) for r in rows}


def test_tray_strip_fits_its_pocket_with_each_reed_under_its_checker(stls):
    """The printed tray against the routed tray strip: the pocket under the floor (read from
    the STL) takes the strip (pcb-summary.json) with at most 0.6 mm of play, deep enough for
    the strip and its reeds; laid in it, each reed (the strip's placement file) has one end
    of its glass under its own slot's checker, as on a point; each connector sits under a
    relief pocket in the floor."""
    from tools.hardware import case, reed

    b = _board()
    m, n = b["mechanics"], b["sensors"]["tray_slots"]
    summary = json.loads(SUMMARY.read_text())
    length, width = summary["tray"]["size_mm"]
    lay = case.layout(b, summary)
    verts = scad.stl_vertices(stls["tray"])
    box, _ = scad.stl_summary(stls["tray"])
    bottom = [
        p
        for p in verts
        if abs(p[2] - box[4]) < 0.01 and 0.1 < p[0] < box[1] - 0.1 and 0.1 < p[1] < box[3] - 0.1
    ]
    x0, x1 = min(p[0] for p in bottom), max(p[0] for p in bottom)
    y0, y1 = min(p[1] for p in bottom), max(p[1] for p in bottom)
    assert length <= x1 - x0 <= length + 0.6 + 0.01 and width <= y1 - y0 <= width + 0.6 + 0.01
    assert -box[4] >= 1.6 + m["reed_w_mm"]  # the strip and its reeds under the floor
    # the strip in the middle of its pocket, seen from above: its placement file's y runs up
    ox, oy = x0 + (x1 - x0 - length) / 2, y1 - (y1 - y0 - width) / 2
    cpl = _tray_cpl()
    d = m["checker_d_mm"] + m["tray_clear_mm"]
    spots = reed.tray_spots(m, n, 3)
    far = max(y for _, y in spots)
    top = [p for p in verts if p[2] > m["surface_mm"] - 0.01]
    for s, (sx, sy) in enumerate(spots):
        # slot s's pocket in the printed tray: row 0 the far row (tray.scad)
        cx, cy = 2 + m["rim_mm"] + d / 2 + sx, 2 + d / 2 + far - sy
        assert len([p for p in top if abs(math.hypot(p[0] - cx, p[1] - cy) - d / 2) < 0.05]) >= 20, s
        rx, ry = cpl["SW%d" % (s + 1)]
        assert ox + rx == pytest.approx(cx + m["reed_offset_mm"], abs=0.35), s
        assert oy + ry == pytest.approx(cy, abs=0.35), s
    relief = [p for p in verts if abs(p[2] - lay["relief"]) < 0.01]
    joints = [ref for ref in cpl if ref.startswith("J")]
    assert len(joints) == 2
    for ref in joints:
        jx, jy = ox + cpl[ref][0], oy + cpl[ref][1]
        near = [p for p in relief if abs(p[0] - jx) < 12 and abs(p[1] - jy) < 8]
        assert near and min(p[0] for p in near) <= jx - 7.4 and max(p[0] for p in near) >= jx + 7.4, ref
