"""Footprints (pads only) and the parts' drawings they must fit; no KiCad needed to read them.

``footprint_pads(name)`` -> ``(smd, [(pad number, dx, dy, w, h)])``, mm from the part's centre,
in the orientation the part is placed (``pcb.py`` draws them with pcbnew). ``LEADS[name]`` is
where the part's own leads touch the board, from its maker's drawing: ``tests/host/
test_hardware_parts.py`` checks that every lead lands on copper of its pad. Lands whose
numbers come from KiCad's footprint library (``KiCad/kicad-footprints``, CC-BY-SA 4.0 with
the library exception) say so; the pads are drawn here, not copied.
"""

# lane widths of the supply nets on the strips (mm; signals 0.25 mm): the LED supply's droop
# at the firmware's budget stays within 0.25 V with them (droop.py, hardware/README.md)
POWER_TRACK = {"5V": 1.0, "GND": 1.0, "3V3": 0.5}
# the centre board's other supplies (route.py's widths there): the board's 5 V supply
# (design.SUPPLY: the LED rail's switch and the DevKitC take it) as wide as the rail; the USB
# input, the charger's and the boost's power paths and the DevKitC's feed carry the whole
# board's current (750 mA fuse)
CENTRE_POWER = {"5V_IN": 1.0, "VBUS": 0.5, "VIN": 0.5, "SYS": 0.5, "BAT": 0.5, "SW": 0.5, "DEVKIT_5V": 0.5}


def centre_width(net):
    """A centre-board net's track width (mm; signals 0.25)."""
    return CENTRE_POWER.get(net, POWER_TRACK.get(net, 0.25))


# JST SH side-entry headers (SM..B-SRSS-TB): signal contacts 1.0 mm apart on one row, two
# fitting nails (mechanical pads) 1.3 mm beyond the end contacts and 3.875 mm behind the
# signal row (JST's SH drawing; KiCad's JST_SH_SM10B-SRSS-TB footprint: pads at y = -2 and
# y = +1.875).
SH_NAIL_BEHIND = 3.875
SH_NAIL_BEYOND = 1.3

# four isolated 0603 resistors in one 3.2 x 1.6 mm chip, convex terminals 0.8 mm apart
# (UNI-ROYAL 4D03): KiCad's R_Array_Convex_4x0603 land (pad centres 1.8 mm across the chip,
# end pads 0.5 mm and inner pads 0.4 mm wide along it, 0.8 mm deep), turned a quarter so the
# terminals run along x as the other parts' pins do
ARRAY_PAD_ROW, ARRAY_PITCH = 0.9, 0.8

# 12 x 12 mm tactile switch (E-Switch TL1100 class; KiCad's SW_PUSH-12mm): four legs on a
# 12.5 x 5.0 mm rectangle, the two legs 12.5 mm apart joined inside the switch (one pad number)
BTN_LEGS_X, BTN_LEGS_Y = 12.5, 5.0


def _sh(n):
    # seen from the top with the nails behind (-y), pin 1 is at the right: KiCad's library
    # footprint (nails at +y, pin 1 at the left) turned half a turn; drawn the other way it is
    # its mirror image and the part's pin 1 would land on pad n (jlc.py refuses that)
    x0 = (n - 1) / 2.0
    pads = [(i + 1, x0 - 1.0 * i, 0, 0.6, 1.55) for i in range(n)]
    nail = x0 + SH_NAIL_BEYOND
    return True, pads + [("", -nail, -SH_NAIL_BEHIND, 1.2, 1.8), ("", nail, -SH_NAIL_BEHIND, 1.2, 1.8)]


def footprint_pads(name):
    if name == "SOIC-16":  # 74HC165D (SOT109-1, 3.9 mm body); pin 1 bottom left, counter-clockwise
        pads = [(i + 1, -4.445 + 1.27 * i, 2.7, 0.6, 1.5) for i in range(8)]
        pads += [(16 - i, -4.445 + 1.27 * i, -2.7, 0.6, 1.5) for i in range(8)]
        return True, pads
    if name == "R_ARRAY_4x0603":  # pins 1-4 bottom, 5-8 top, counter-clockwise as SOIC-16;
        # resistor k from pad k to pad 9 - k, straight across the chip
        w = [0.5, 0.4, 0.4, 0.5]
        x0 = -1.5 * ARRAY_PITCH
        pads = [(i + 1, x0 + ARRAY_PITCH * i, ARRAY_PAD_ROW, w[i], 0.8) for i in range(4)]
        return True, pads + [(8 - i, x0 + ARRAY_PITCH * i, -ARRAY_PAD_ROW, w[i], 0.8) for i in range(4)]
    if name in ("C_0603", "R_0603"):
        return True, [(1, -0.775, 0, 0.8, 0.9), (2, 0.775, 0, 0.8, 0.9)]
    if name == "D_SOD-123":  # pad 1 the cathode (KiCad's D_SOD-123 land)
        return True, [(1, -1.65, 0, 0.9, 1.2), (2, 1.65, 0, 0.9, 1.2)]
    if name == "D_SOD-123F":  # pad 1 the cathode (KiCad's D_SOD-123F land: SMF TVS)
        return True, [(1, -1.4, 0, 1.1, 1.1), (2, 1.4, 0, 1.1, 1.1)]
    if name == "D_SOD-323":  # KiCad's D_SOD-323 land
        return True, [(1, -1.05, 0, 0.6, 0.45), (2, 1.05, 0, 0.6, 0.45)]
    if name == "F_1206":
        return True, [(1, -1.5, 0, 1.2, 1.8), (2, 1.5, 0, 1.2, 1.8)]
    if name == "LED_5050":  # WS2812B: 1 VDD, 2 DOUT, 3 VSS, 4 DIN
        return True, [
            (1, -2.45, -1.65, 1.5, 1.0),
            (2, -2.45, 1.65, 1.5, 1.0),
            (3, 2.45, 1.65, 1.5, 1.0),
            (4, 2.45, -1.65, 1.5, 1.0),
        ]
    if name == "REED_SMD":  # MDSM-10R: 10.16 mm glass along x; Littelfuse's land pattern
        # (2.90 x 1.30 mm pads, 11.20 mm between their inner edges)
        return True, [(1, -7.05, 0, 2.9, 1.3), (2, 7.05, 0, 2.9, 1.3)]
    if name.startswith("JST_SH_"):  # SMxxB-SRSS-TB (1.0 mm), pins along x; "" pads are mechanical
        return _sh(int(name[7:]))
    if name == "SOT-23-5":
        return True, [
            (1, -0.95, 1.1, 0.6, 1.1),
            (2, 0, 1.1, 0.6, 1.1),
            (3, 0.95, 1.1, 0.6, 1.1),
            (4, 0.95, -1.1, 0.6, 1.1),
            (5, -0.95, -1.1, 0.6, 1.1),
        ]
    if name == "DEVKITC_38":  # ESP32-DevKitC: two 19-pin headers, 2.54 mm pitch, rows 25.4 mm apart
        return False, [(i + 1, -22.86 + 2.54 * i, 12.7, 1.7, 1.7) for i in range(19)] + [
            (20 + i, -22.86 + 2.54 * i, -12.7, 1.7, 1.7) for i in range(19)
        ]
    if name == "USBC_BREAKOUT":
        return False, [(1, -1.27, 0, 1.7, 1.7), (2, 1.27, 0, 1.7, 1.7)]
    if name == "CP_D8":
        return False, [(1, -1.75, 0, 1.6, 1.6), (2, 1.75, 0, 1.6, 1.6)]
    if name == "BTN_12MM":  # pad 1: the legs at -y, pad 2: the legs at +y; the switch closes 1-2
        x, y = BTN_LEGS_X / 2, BTN_LEGS_Y / 2
        return False, [(1, -x, -y, 2.0, 2.0), (1, x, -y, 2.0, 2.0), (2, -x, y, 2.0, 2.0), (2, x, y, 2.0, 2.0)]
    if name == "JST_PH_2":  # S2B-PH-K (2.0 mm, through-hole): the battery's + / -
        return False, [(i + 1, -1.0 + 2.0 * i, 0, 1.75, 1.75) for i in range(2)]
    if name == "SW_SLIDE_SPDT":
        # C&K OS102011MS2QN1, KiCad's SW_Slide_1P2T_CK_OS102011MS2Q: contacts 1-2-3 2.0 mm
        # apart (2 the common), two mounting legs 4.1 mm either side of the common; "" pads
        # are the legs (drilled 1.5 mm, no net)
        pads = [(i + 1, -2.0 + 2.0 * i, 0, 1.5, 2.5) for i in range(3)]
        return False, pads + [("", -4.1, 0, 2.2, 3.5), ("", 4.1, 0, 2.2, 3.5)]
    if name == "QFN-16":  # 3 x 3 mm, 0.5 mm pitch, pin 1 top left, counter-clockwise; 17 = pad
        pads = [(1 + i, -1.45, -0.75 + 0.5 * i, 0.8, 0.25) for i in range(4)]
        pads += [(5 + i, -0.75 + 0.5 * i, 1.45, 0.25, 0.8) for i in range(4)]
        pads += [(9 + i, 1.45, 0.75 - 0.5 * i, 0.8, 0.25) for i in range(4)]
        pads += [(13 + i, 0.75 - 0.5 * i, -1.45, 0.25, 0.8) for i in range(4)]
        return True, pads + [(17, 0, 0, 1.6, 1.6)]
    if name == "SSOP-8":  # TI DCT (SM8), 0.65 mm pitch: pins 1-4 bottom, 5-8 top, counter-clockwise
        pads = [(i + 1, -0.975 + 0.65 * i, 1.75, 0.4, 1.1) for i in range(4)]
        return True, pads + [(8 - i, -0.975 + 0.65 * i, -1.75, 0.4, 1.1) for i in range(4)]
    if name == "SOT-563":  # 1.6 x 1.6 mm, 0.5 mm pitch: pins 1-3 bottom, 4-6 top
        pads = [(1 + i, -0.5 + 0.5 * i, 0.75, 0.28, 0.6) for i in range(3)]
        return True, pads + [(4 + i, 0.5 - 0.5 * i, -0.75, 0.28, 0.6) for i in range(3)]
    if name == "L_XFL4020":  # Coilcraft XFL4020 (4 x 4 mm): the land of LCSC's own part
        # (C5355380's EasyEDA footprint: 1.2 x 3.8 mm pads, centres 2.38 mm apart)
        return True, [(1, -1.19, 0, 1.2, 3.8), (2, 1.19, 0, 1.2, 3.8)]
    raise ValueError("no footprint %s" % name)


def drill(name, pad=None):
    """Hole diameter (mm) of a through-hole footprint's pad ``pad`` (its number)."""
    if name == "SW_SLIDE_SPDT":  # KiCad's footprint: 0.8 mm contacts, 1.5 mm mounting legs
        return 1.5 if pad == "" else 0.8
    return 1.1 if name == "BTN_12MM" else 1.0


def extent(name):
    _, pads = footprint_pads(name)
    return (min(p[1] - p[3] / 2 for p in pads), max(p[1] + p[3] / 2 for p in pads))


def _gullwing(tip_to_tip, foot, pitch, n):
    """SOIC-style leads, pins along x as the footprints above: [(pin, x, (y0, y1))], the foot
    from ``y0`` to ``y1`` (outward), pin 1 bottom left, counter-clockwise."""
    y1 = tip_to_tip / 2
    out = []
    for i in range(n // 2):
        x = -pitch * (n // 2 - 1) / 2 + pitch * i
        out.append((i + 1, x, (y1 - foot, y1)))
        out.append((n - i, x, (-y1, -(y1 - foot))))
    return out


# footprint -> (the part's drawing, its leads). SMD leads: ("foot", pin, x, (y0, y1)); through-
# hole legs: ("leg", pin, x, y); mechanical: ("nail", None, x, y).
LEADS = {
    # UNI-ROYAL chip resistor array, 4D03 (0603 x 4): W 1.60 mm across the terminals, each
    # terminal B 0.30 mm onto the chip's face, 0.8 mm pitch
    "R_ARRAY_4x0603": (
        "UNI-ROYAL 4D03 chip resistor array",
        [("foot",) + x for x in _gullwing(1.60, 0.30, ARRAY_PITCH, 8)],
    ),
    # Nexperia 74HC165 SOT109-1: HE 6.0 mm (5.8-6.2), Lp 0.4-1.0 mm (nominal 0.7)
    "SOIC-16": ("Nexperia SOT109-1", [("foot",) + x for x in _gullwing(6.0, 0.7, 1.27, 16)]),
    "BTN_12MM": (
        "E-Switch TL1100 12 mm tactile switch",
        [
            ("leg", 1, -BTN_LEGS_X / 2, -BTN_LEGS_Y / 2),
            ("leg", 1, BTN_LEGS_X / 2, -BTN_LEGS_Y / 2),
            ("leg", 2, -BTN_LEGS_X / 2, BTN_LEGS_Y / 2),
            ("leg", 2, BTN_LEGS_X / 2, BTN_LEGS_Y / 2),
        ],
    ),
}
for _n in (10, 12):
    LEADS["JST_SH_%d" % _n] = (
        "JST SH SM%02dB-SRSS-TB" % _n,
        [("nail", None, s * ((_n - 1) / 2.0 + 1.3), -3.875) for s in (-1, 1)],
    )
