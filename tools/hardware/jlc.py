"""Placement rotations and centres in JLCPCB's convention (no KiCad needed).

JLCPCB's assembly places each part from its own library footprint, whose zero orientation is
the part's orientation on its tape. The community's correction tables (matthewlai's
JLCKicadTools ``cpl_rotations_db.csv``; KiBot's ``rot_footprint`` filter adds ``^SSOP-``)
give that orientation against KiCad's official library footprint of the same package: JLCPCB's
rotation = the KiCad library footprint's rotation + ``correction``. Our footprints are drawn by
the generator (``footprints.py``), so for each one ``KICAD_LIB`` names the KiCad library
footprint of its package with pads 1 and 2 and its mechanical pads where that library puts them
(KiCad/kicad-footprints, CC-BY-SA 4.0); ``placement`` finds the quarter turn that carries the
library footprint onto ours (pads 1, 2 and the mechanical pads on the same sides of the
centre) and adds the correction. A footprint that no turn matches is the library footprint's
mirror image: its pins would land on the part's pins in reverse, and it is refused.
"""

import math
import re

from .footprints import footprint_pads

# footprint -> (KiCad library footprint, [(pad, x, y)] of it, mm, y down as in .kicad_mod)
KICAD_LIB = {
    "SOIC-16": ("Package_SO:SOIC-16_3.9x9.9mm_P1.27mm", [(1, -2.475, -4.445), (2, -2.475, -3.175)]),
    "R_ARRAY_4x0603": ("Resistor_SMD:R_Array_Convex_4x0603", [(1, -0.9, -1.2), (2, -0.9, -0.4)]),
    "SSOP-8": ("Package_SO:SSOP-8_2.95x2.8mm_P0.65mm", [(1, -1.35, -0.975), (2, -1.35, -0.325)]),
    "SOT-23-5": ("Package_TO_SOT_SMD:SOT-23-5", [(1, -1.1375, -0.95), (2, -1.1375, 0.0)]),
    "SOT-563": ("Package_TO_SOT_SMD:SOT-563", [(1, -0.7, -0.5), (2, -0.7, 0.0)]),
    "QFN-16": ("Package_DFN_QFN:QFN-16-1EP_3x3mm_P0.5mm_EP1.7x1.7mm", [(1, -1.45, -0.75), (2, -1.45, -0.25)]),
    "C_0603": ("Capacitor_SMD:C_0603_1608Metric", [(1, -0.775, 0.0), (2, 0.775, 0.0)]),
    "R_0603": ("Resistor_SMD:R_0603_1608Metric", [(1, -0.825, 0.0), (2, 0.825, 0.0)]),
    "F_1206": ("Fuse:Fuse_1206_3216Metric", [(1, -1.4, 0.0), (2, 1.4, 0.0)]),
    "D_SOD-123": ("Diode_SMD:D_SOD-123", [(1, -1.65, 0.0), (2, 1.65, 0.0)]),
    "D_SOD-123F": ("Diode_SMD:D_SOD-123F", [(1, -1.4, 0.0), (2, 1.4, 0.0)]),
    "D_SOD-323": ("Diode_SMD:D_SOD-323", [(1, -1.05, 0.0), (2, 1.05, 0.0)]),
    # two pads either side of the centre: only their sides count here (the inductor has no
    # polarity, so pad 1 at either end places it right)
    "L_XFL4020": ("Inductor_SMD:L_Coilcraft_XxL4020", [(1, -1.19, 0.0), (2, 1.19, 0.0)]),
    "LED_5050": (
        "LED_SMD:LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm",
        [(1, -2.45, -1.6), (2, -2.45, 1.6), (3, 2.45, 1.6), (4, 2.45, -1.6)],
    ),
    "JST_SH_12": (
        "Connector_JST:JST_SH_SM12B-SRSS-TB_1x12-1MP_P1.00mm_Horizontal",
        [(i + 1, -5.5 + i, -2.0) for i in range(12)] + [("", -6.8, 1.875), ("", 6.8, 1.875)],
    ),
}
# (pattern on the KiCad library footprint's name, correction in degrees), first match wins
CORRECTIONS = (
    (r"^R_Array_Convex_", 90),
    (r"^SOT-23", 180),
    (r"^QFN-", 270),
    (r"^SOIC-", 270),
    (r"^SSOP-", 270),
    (r"^LED_WS2812B_PLCC4", 180),
)


def correction(lib_name):
    short = lib_name.split(":", 1)[1]
    for pattern, deg in CORRECTIONS:
        if re.match(pattern, short):
            return deg
    return 0


def _rot(x, y, deg):
    """(x, y) turned ``deg`` counter-clockwise as seen from the top (y up)."""
    c, s = round(math.cos(math.radians(deg))), round(math.sin(math.radians(deg)))
    return x * c - y * s, x * s + y * c


def _signature(pads):
    """Which side of the pads' centre each reference pad lies on: {pad: (sx, sy)}, the
    mechanical pads as a sorted list (y up)."""
    cx = sum(p[1] for p in pads) / len(pads)
    cy = sum(p[2] for p in pads) / len(pads)
    span = max(max(abs(p[1] - cx), abs(p[2] - cy)) for p in pads)

    def side(v):
        return 0 if abs(v) < 0.05 * span else (1 if v > 0 else -1)

    numbered = {p[0]: (side(p[1] - cx), side(p[2] - cy)) for p in pads if p[0] != ""}
    mech = sorted((side(p[1] - cx), side(p[2] - cy)) for p in pads if p[0] == "")
    return numbered, mech, (cx, cy)


def lib_turn(footprint, pads=None):
    """The quarter turn (degrees, counter-clockwise) that carries KiCad's library footprint of
    the package onto ``footprint`` as drawn; ValueError if none does (a mirror image)."""
    lib_name, lib_pads = KICAD_LIB[footprint]
    if pads is None:
        pads = footprint_pads(footprint)[1]
    wanted = {p[0] for p in lib_pads}
    ours = [(p[0], p[1], -p[2]) for p in pads if p[0] in wanted]
    ours_sig = _signature(ours)
    for deg in (0, 90, 180, 270):
        turned = [(p[0],) + _rot(p[1], -p[2], deg) for p in lib_pads]
        sig = _signature(turned)
        if sig[:2] == ours_sig[:2]:
            return deg
    raise ValueError("%s is a mirror image of %s: its pins run the wrong way round" % (footprint, lib_name))


def _middle(pads):
    """The middle of the pads' centres' bounding box."""
    xs, ys = [p[1] for p in pads], [p[2] for p in pads]
    return (min(xs) + max(xs)) / 2.0, (min(ys) + max(ys)) / 2.0


def placement(footprint, orientation=0):
    """(rotation, (dx, dy)) for JLCPCB's placement file: the rotation in JLCPCB's convention of
    a part drawn as ``footprint`` and placed at ``orientation`` degrees, and where the library
    footprint's origin (JLCPCB's part centre) lies from our footprint's origin, in our
    footprint's own coordinates (mm, y down)."""
    lib_name, lib_pads = KICAD_LIB[footprint]
    turn = lib_turn(footprint)
    rotation = (turn + orientation + correction(lib_name)) % 360
    pads = footprint_pads(footprint)[1]
    ox, oy = _middle(pads)
    if len(lib_pads) != len(pads):
        # a package whose library footprint is centred on its pads (KiCad's rule for these)
        return rotation, (round(ox, 4), round(oy, 4))
    lx, ly = _middle(lib_pads)
    tx, ty = _rot(lx, -ly, turn)  # the library pads' centre from its origin, turned as ours
    return rotation, (round(ox - tx, 4), round(oy + ty, 4))


def zero_pads(footprint):
    """Pads of JLCPCB's footprint of the package at rotation 0: KiCad's library footprint turned
    back by the correction ([(pad, x, y)], y up)."""
    lib_name, lib_pads = KICAD_LIB[footprint]
    back = -correction(lib_name)
    return [(p[0],) + _rot(p[1], -p[2], back) for p in lib_pads]
