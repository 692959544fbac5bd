"""The case: a folding board, where every PCB sits, the cables that cross the hinge, and the
heights under the playing surface (mm). ``layout(board_json, summary)`` computes it from
board.json's ``mechanics`` and the boards' sizes in pcb-summary.json; ``scad.params`` writes
it to params.scad for ``hardware/scad/case.scad``; ``problems(layout)`` lists what does not
fit (tests/host/test_hardware_case.py).

Geometry (x across the board from side 0's left, y from side 0's edge towards side 1, z up;
the playing surface's top at z = 0):

- Two halves fold like a book about a hinge along y at the bar. The bar is split by the
  hinge: the left half's bar holds the bar strip (its 12 slots, side 1's row at the top, in
  one piece along y: a strip cannot cross the hinge), the right half's bar the centre board
  (dice, cube, turn LEDs, buttons at both ends, the DevKitC hanging under it).
- Each half: 12 point strips, six from each long edge (rim end at the edge), their axes one
  checker diameter apart; the tray on the right of the right half (side 0's tray at the
  bottom, side 1's at the top).
- Under the surface, every strip's reeds lie against the surface's underside (the field
  model's ``reed_depth_mm``: half the reed's glass); a part taller than the reed (the JST SH
  header, 2.9 mm) sits in a relief pocket milled into the underside, never thinner than
  ``SKIN`` left above it.
- The chain crosses the hinge twice: point 19 -> point 18 (the last cable of the right half)
  and the bar strip's end back to the centre board's RETURN. Each runs in a channel under
  the surface to the hinge and around its axis; its length must cover the fold.
"""

import math

from . import reed

TRAY_WALL = 2.0
SKIN = 0.8  # surface left over a relief pocket (mm)
WALL = 8.0  # frame around each half
CAVITY = 22.0  # under the surface: the DevKitC hangs 13 mm under the centre board
BAR_LEFT = 42.0  # the bar strip's half of the bar (a checker plus play)
TALLEST = {"JST_SH_12": 2.9, "SOIC-16": 1.75, "R_ARRAY_4x0603": 0.6, "LED_5050": 1.6, "SSOP-8": 1.3}
CABLE_SLACK = 15.0
# the cables that cross the hinge are the chain's long ones (bus.py's cable_mm: 300 mm)
CROSSING = 300.0


def layout(board_json, summary):
    m = board_json["mechanics"]
    d = m["checker_d_mm"]
    point_l = summary["point"]["size_mm"][0]
    point_w = summary["point"]["size_mm"][1]
    field_y = 2 * point_l + 2 * m["rim_mm"]  # two rows of points tip to tip, a rim between
    half_x = 6 * d + 2 * m["rim_mm"]
    centre_w = summary["centre"]["size_mm"][1]
    bar_right = centre_w + 4.0
    # the tray: three staggered rows of flat checkers (reed.py: on edge does not work)
    spots = reed.tray_spots(m, board_json["sensors"]["tray_slots"], 3)
    tray_w = max(y for _, y in spots) + d + m["tray_clear_mm"] + 2 * TRAY_WALL
    tray_len = m["rim_mm"] + max(x for x, _ in spots) + d + m["tray_clear_mm"] + 2 * TRAY_WALL
    out = {
        "surface": m["surface_mm"],
        "cavity": CAVITY,
        "half_y": field_y + 2 * WALL,
        "left_x": WALL + half_x + BAR_LEFT,
        "right_x": round(bar_right + half_x + tray_w + WALL, 2),
        "field_y": field_y,
        "half_x": half_x,
        "bar_left": BAR_LEFT,
        "bar_right": bar_right,
        "tray_w": round(tray_w, 2),
        "tray_len": round(tray_len, 2),
        "point_l": point_l,
        "point_w": point_w,
        "bar_l": summary["bar"]["size_mm"][0],
        "bar_w": summary["bar"]["size_mm"][1],
        "centre_l": summary["centre"]["size_mm"][0],
        "centre_w": centre_w,
        "tray_l": summary["tray"]["size_mm"][0],
        "tray_strip_w": summary["tray"]["size_mm"][1],
        "strip_t": 1.6,
        "reed_top": -m["surface_mm"],  # the reed's glass against the underside
        "strip_top": -m["surface_mm"] - m["reed_w_mm"],  # the strips' top copper
        "relief": round(max(TALLEST.values()) - m["reed_w_mm"], 2),
        "skin": SKIN,
    }
    # the hinge cables: each end's connector ``a`` / ``b`` from the hinge axis, in the cavity
    # ``z`` under the surface; folded shut the cable wraps the axis: a + b + pi z
    z = m["surface_mm"] + m["reed_w_mm"] + 1.0
    a_19 = bar_right + d / 2.0  # point 19's strip: the first beside the centre bar
    b_18 = BAR_LEFT + d / 2.0  # point 18's: the first beside the bar strip
    a_ret = bar_right / 2.0  # the centre board's RETURN, mid-bar
    b_ret = BAR_LEFT / 2.0
    out["hinge_cables"] = [
        ("point19-point18", round(a_19 + b_18 + math.pi * z + CABLE_SLACK, 1)),
        ("bar0-centre RETURN", round(a_ret + b_ret + math.pi * z + CABLE_SLACK, 1)),
    ]
    return out


def problems(lay):
    """What does not fit: [text]."""
    out = []
    if lay["point_l"] * 2 > lay["field_y"]:
        out.append("point strips: two (%g mm) longer than the field (%g)" % (lay["point_l"], lay["field_y"]))
    if lay["point_w"] > 38.0:
        out.append("point strip wider than a point (%g mm)" % lay["point_w"])
    if lay["bar_l"] > lay["field_y"]:
        out.append("bar strip (%g mm) longer than the bar (%g)" % (lay["bar_l"], lay["field_y"]))
    if lay["bar_w"] > lay["bar_left"]:
        out.append("bar strip (%g mm) wider than its half of the bar (%g)" % (lay["bar_w"], lay["bar_left"]))
    if lay["centre_l"] > lay["field_y"] or lay["centre_w"] > lay["bar_right"]:
        out.append("centre board does not fit its half of the bar")
    if lay["surface"] - lay["relief"] < lay["skin"]:
        out.append("relief pockets leave %g mm of surface" % (lay["surface"] - lay["relief"]))
    if lay["tray_len"] > lay["field_y"] / 2:
        out.append("tray (%g mm) longer than half the field (%g)" % (lay["tray_len"], lay["field_y"] / 2))
    if lay["tray_l"] > lay["tray_len"] or lay["tray_strip_w"] > lay["tray_w"]:
        out.append(
            "tray strip (%g x %g) does not fit under its tray (%g x %g)"
            % (lay["tray_l"], lay["tray_strip_w"], lay["tray_len"], lay["tray_w"])
        )
    for name, need in lay["hinge_cables"]:
        if need > CROSSING:
            out.append("%s: %g mm of cable across the hinge, the cable is %g" % (name, need, CROSSING))
    return out
