"""PCBs from the design, through KiCad's pcbnew (Debian's ``kicad`` 6.0, ``/usr/bin/python3``).

Usage::

    /usr/bin/python3 -m tools.hardware.pcb OUTDIR      # OUTDIR/<kind>/<kind>.kicad_pcb + -drc.txt

Footprints are drawn here (no KiCad library needed): pads only, in the orientation they are
placed. Strips are linear: x runs along the strip from the rim end (x = 0), every part is
centred on the strip's axis, the reeds sit at their slots (pitch and offset from board.json's
``mechanics``), the other parts fill the gaps in order (LED first, in the rim).

Routing (strips): a two-layer channel router. Every net gets a lane, a horizontal track on B.Cu
above or below the parts (a pad in a part's upper row must go up, a lower-row pad down; a net
that needs both is left unrouted and the DRC reports it). Each pad drops a vertical F.Cu stub
to a via on its net's lane. Lanes share a row when their x spans do not overlap. With pads of
neighbouring parts at least a millimetre apart this is DRC-clean by construction; the DRC
(``pcbnew.WriteDRCReport``) checks it anyway.

Routing (centre board): ``route.py``'s grid router (KiCad 6 has no autorouter): every net but
ground as tracks, the supplies at their widths (``footprints.centre_width``), ground by
the pours with each ground pad stitched to them by a via and tied by tracks where the other
tracks cut the pours. About 15 s; the DRC checks the result.
"""

import json
import re
import sys
from pathlib import Path

import pcbnew

from . import design, fab, reed, route
from .footprints import POWER_TRACK, centre_width, drill, extent, footprint_pads

HERE = Path(__file__).resolve().parent


MM = pcbnew.FromMM
STAMP = re.compile(
    r"\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d:\d\d([+-]\d\d:?\d\d)?"
    r"|[A-Z][a-z]{2} [A-Z][a-z]{2} +\d+ \d\d:\d\d:\d\d \d{4}"
)
TRACK, VIA_D, VIA_DRILL, LANE_PITCH = 0.25, 0.6, 0.3, 0.8
# the tray strip: its edge to the first and last rows of reeds' axes, the gap between its
# other parts on their line (mm)
TRAY_MARGIN, TRAY_GAP = 4.0, 3.0
# the bus buffer's resistors, each line's three (its register stubs, then OUT's) in a column
# beside the buffer: (line, x from the buffer, above -1 / below +1, first row). Each resistor
# takes the line on its left pad and drives its load from the right one, so the columns stand
# right of the buffer, PL's under SCK's: PL_Y (pin 5) and SCK_Y (pin 7) reach their pads
# without crossing each other or an output; CE_Y (pin 2) below. Their distance from the
# parts' line and the rows' pitch (mm).
TRAY_COLUMNS = (("PL", 3.0, -1, 0), ("SCK", 3.0, -1, 3), ("CE", 3.0, 1, 0))
TRAY_COLUMN_Y, TRAY_ROW_PITCH = 3.5, 2.4
TRAY_BUS_AT = (6.0, 20.0)  # the buffer from IN's end along the strip and above the line (mm)


def track_width(net):
    """The lane width of ``net``: the supplies' (``POWER_TRACK``) or a signal's."""
    return POWER_TRACK.get(net, TRACK)


def stub_width(net, pad_w):
    # a stub leaves its pad between the neighbouring pads' stubs and vias: at most 0.5 mm
    # wide (1.0 mm pitch at the connectors), a signal's width from a fine-pitch pad (the
    # buffer's 0.65 mm)
    return min(track_width(net), 0.5) if pad_w >= 0.6 else TRACK


def _pt(x, y):
    return pcbnew.wxPoint(MM(x), MM(y))


def mechanics(board_json):
    m = board_json.get("mechanics")
    if m is None:
        raise ValueError("board.json: no mechanics section (checker size, reed offset)")
    return m


class Layout:
    """Placement of one board: {ref: (x, y, footprint)} plus the outline size."""

    def __init__(self, board, board_json):
        self.board = board
        self.m = mechanics(board_json)
        self.bar_slots = board_json["sensors"]["bar_slots"]
        self.dice_pips = board_json["dice_pips"]
        self.pos = {}
        if board.kind == "centre":
            self._grid()
        elif board.kind == "tray":
            self._tray(board_json["sensors"]["tray_slots"])
        else:
            self._strip()

    def _strip(self):
        m = self.m
        kind = self.board.kind
        busy = []
        for p in self.board.parts:
            if p.value == "reed":
                slot = p.role[3]
                # one end of the glass under the checker's centre (hardware/assembly.md)
                x = m["rim_mm"] + m["checker_d_mm"] * (slot + 0.5) + m["reed_offset_mm"]
                if kind == "bar" and p.role[2] == 0:
                    # bar 0 lies in the other half of the bar: its rim is the far end
                    x = 2 * (m["rim_mm"] + m["checker_d_mm"] * self.bar_slots) - x
                lo, hi = extent(p.footprint)
                self.pos[p.ref] = (x, 0.0)
                busy.append((x + lo, x + hi))
        cursor = 1.0
        order = sorted((p for p in self.board.parts if p.value != "reed" and p.footprint), key=_place_order)
        for p in order:
            lo, hi = extent(p.footprint)
            x = cursor - lo
            while any(x + lo < b1 + 1.2 and x + hi > b0 - 1.2 for b0, b1 in busy):
                x += 0.5
            self.pos[p.ref] = (x, 0.0)
            busy.append((x + lo, x + hi))
            cursor = x + hi + 1.2
        self.length = max(b1 for _, b1 in busy) + 2.0

    def _tray(self, n):
        """The tray strip under the tray's three staggered rows of flat checkers
        (``reed.tray_spots``): each reed under its checker as on a point (one end of the glass
        under the checker's centre, ``reed_offset_mm`` towards the trough's far end). Every
        other part on one line between rows 1 and 2 from the rim: the LED, IN and OUT side
        by side (the LED supply's ring passes the strip in a few centimetres), each register
        with its capacitor and its two pull-up arrays centred under the reeds it reads. The
        bus buffer stands off the line above IN and OUT (``TRAY_BUS_AT``), its nine
        resistors in columns beside it (``TRAY_COLUMNS``), so no line crosses another at its
        0.65 mm pins. Routed by ``build_centre``, its routes kept (``CACHED``)."""
        m = self.m
        spots = reed.tray_spots(m, n, 3)
        rows = sorted({y for _, y in spots})
        y0 = TRAY_MARGIN
        reeds_of = {}
        for p in self.board.parts:
            if p.value == "reed":
                sx, sy = spots[p.role[3]]
                # slot 0's checker centre as in the tray (scad/tray.scad: row 0 at the far side
                # seen from above, where the board's y = 0 lies)
                x = m["rim_mm"] + (m["checker_d_mm"] + m["tray_clear_mm"]) / 2 + sx + m["reed_offset_mm"]
                self.pos[p.ref] = (x, y0 + sy)
                reeds_of[p.pins[0][3]] = x  # its input's net
        line = y0 + (rows[1] + rows[2]) / 2
        parts = [p for p in self.board.parts if p.value != "reed" and p.footprint]

        def one(*role):
            (q,) = [q for q in parts if q.role[: len(role)] == role]
            return q

        regs = sorted(p.role[1] for p in parts if p.role[0] == "register")
        cursor = TRAY_GAP

        def put(refs, anchor=None):
            """``refs`` side by side from ``cursor`` (from ``anchor`` if further on), a
            decoupling capacitor 1.2 mm beside its part (the supply loop short)."""
            nonlocal cursor
            widths = [extent(q.footprint) for q in refs]
            span = sum(hi - lo for lo, hi in widths) + TRAY_GAP * (len(refs) - 1)
            if anchor is not None:
                cursor = max(cursor, anchor - span / 2)
            for q, (lo, hi) in zip(refs, widths):
                if q.role[0].startswith("decoupling"):
                    cursor -= TRAY_GAP - 1.2
                self.pos[q.ref] = (cursor - lo, line)
                cursor += hi - lo + TRAY_GAP

        put([one("led"), one("decoupling_led")])
        put([one("conn", "IN")])
        # the buffer and its resistors off the line, towards row 1 where it has no reed yet
        # (the supplies and the chain's lines pass under it along the line)
        bx, by = cursor + TRAY_BUS_AT[0], line - TRAY_BUS_AT[1]
        self.pos[one("bus_buffer").ref] = (bx, by)
        self.pos[one("decoupling_bus").ref] = (bx - 2 * extent("R_0603")[1] - 1.2, by)
        for (sig, dx, side, first), k in ((col, k) for col in TRAY_COLUMNS for k in range(len(regs) + 1)):
            role = ("bus_series", sig) if k == len(regs) else ("bus_stub", sig, k)
            for q in [q for q in parts if q.role == role]:
                self.pos[q.ref] = (bx + dx, by + side * (TRAY_COLUMN_Y + TRAY_ROW_PITCH * (first + k)))
        put([one("conn", "OUT"), one("led_out_series"), one("q_series")])
        for r in regs:
            xs = [reeds_of[q[3]] for q in one("register", r).pins if q[3] in reeds_of]
            arrays = [one("pullups", r, half) for half in (0, 1)]
            put([one("register", r), one("decoupling", r)] + arrays, anchor=sum(xs) / len(xs))
        self.length = round(
            max(max(x for x, _ in self.pos.values()) + extent("REED_SMD")[1], cursor) + 2.0, 1
        )
        self.height = round(y0 + rows[-1] + TRAY_MARGIN, 1)

    def _grid(self):
        """The centre board, along the bar from side 0's end (x = 0) to side 1's: side 0's
        buttons, turn and bar-1 LEDs; the two dice as 3 x 3 pip patterns (``dice_pips``, seen
        from side 0: "top" towards side 1 = +x, "left" = -y); the ESP32 and the power parts; the
        cube column (owner 0, 2 .. 64, owner 1); bar-0 and turn LEDs and side 1's buttons.
        Every LED's 100 nF sits 5 mm beside it. Routed by ``build_centre``."""
        W, mid = 60.0, 30.0
        pip = {"top_left": (1, -1), "mid_left": (0, -1), "bottom_left": (-1, -1), "centre": (0, 0)}
        pip.update({"top_right": (1, 1), "mid_right": (0, 1), "bottom_right": (-1, 1)})
        names = self.dice_pips
        where = {}
        for p in self.board.parts:
            r = p.role or ()
            if r[0] == "led":
                kind, index, k = r[2], r[3], r[4]
                if kind == "die":
                    dx, dy = pip[names[k]]
                    xy = (80 + 50 * index + 11 * dx, mid + 11 * dy)
                elif kind == "cube_owner":
                    xy = (250 + 70 * index, mid)
                elif kind == "cube_value":
                    xy = (260 + 10 * (index.bit_length() - 2), mid)
                elif kind in ("turn", "bar"):
                    if kind == "turn":
                        xy = (25, mid) if index == 0 else (348, mid)
                    else:  # bar 1's row is in side 0's half, bar 0's in side 1's
                        xy = (45, mid) if index == 1 else (335, mid)
                else:
                    raise ValueError("no place on the centre board for LED %s" % (r,))
                where[p.ref] = xy
            elif r[0] == "button":
                side, roll = int(r[1][-1]), r[1].startswith("roll")
                where[p.ref] = (10 if side == 0 else 360, 15 if roll else 45)
            elif r[0] == "button_esd":  # beside its button, towards the board's middle
                side, roll = int(r[1][-1]), r[1].startswith("roll")
                where[p.ref] = (22 if side == 0 else 348, 15 if roll else 45)
        # each LED's capacitor: the part added right after it in the design
        parts = self.board.parts
        for i, p in enumerate(parts):
            if p.role and p.role[0] == "led":
                c = parts[i + 1]
                x, y = where[p.ref]
                where[c.ref] = (x, y + 5.5)
        fixed = {
            "mcu": (190, mid),
            "level_shifter": (222, 12),
            "decoupling_ls": (222, 18),
            "led_series": (229, 12),
        }
        fixed.update({"miso_pullup": (229, 18), "usb": (222, 45), "fuse": (229, 40), "bulk": (237, 45)})
        fixed.update({"devkit_feed": (212, 52), "led_pull": (215, 12), "vbus_tvs": (217, 49)})
        fixed.update({"sck_pull": (172, 13), "pl_pull": (175.5, 13), "ce_pull": (179, 13)})
        # the battery option (board.json "battery"): the power parts under the cube column,
        # each converter's capacitors, inductor and setting resistors around it (a converter's
        # switching loop and its feedback node stay short: the charger's IN, OUT and BAT
        # capacitors by their pins, the boost's output capacitor and inductor beside it); the
        # divider at the other edge
        fixed.update({"battery": (258, 50), "charger": (268, 50), "iset": (265, 45.5), "ilim": (273, 46.5)})
        fixed.update({"charger_in": (269.5, 45), "charger_out": (273, 50), "charger_bat": (263.5, 52)})
        fixed.update({"boost": (282, 50), "boost_l": (287.5, 50), "boost_out": (279, 46)})
        fixed.update({"fb_top": (278.5, 49.8), "fb_bottom": (278.5, 53)})
        fixed.update({"divider_top": (262, 10), "divider_bottom": (268, 10)})
        fixed.update({"divider_filter": (274, 10)})
        # the LED rail's current-limited switch between the bulk capacitor and the battery
        # row, its input capacitor above it; the charger's TS resistor, status pull-ups and
        # on/off switch (at the edge)
        fixed.update({"led_switch": (246, 42), "led_iset": (246, 47), "led_switch_in": (246, 37.5)})
        fixed.update({"ts": (263, 48.5), "chg_pullup": (262, 44), "pgood_pullup": (262, 40)})
        fixed.update({"power_switch": (292, 6)})
        # the bus's termination resistors in a row between the DevKitC and the CHAIN connector
        for k, sig in enumerate(design.BUS):
            fixed["bus_series_" + sig] = (172 + 3.5 * k, 8)
        for p in parts:
            r = p.role or ()
            key = r[0] + "_" + r[1] if r and r[0] in ("divider", "bus_series") else (r[0] if r else None)
            if key in fixed and fixed[key]:
                where[p.ref] = fixed[key]
        where_conn = {"CHAIN": (155, 8), "RETURN": (155, 54)}
        for p in parts:
            if p.role and p.role[0] == "conn":
                where[p.ref] = where_conn[p.role[1]]
        for p in parts:
            if p.footprint:
                if where.get(p.ref) is None:
                    raise ValueError("no place on the centre board for %s" % p.ref)
                self.pos[p.ref] = where[p.ref]
        self.length = 372.0
        self.height = W


def _place_order(p):
    """The order parts fill a strip from the rim: the LED with its capacitor; each register
    with its capacitor right beside it and then its two pull-up arrays (the supply loop a few
    millimetres long); the bus buffer with its capacitor and its termination resistors
    (every line it drives, the stub to its registers included, is terminated at the buffer:
    their lengths matter little); the series resistors; the connectors."""
    r = p.role or ("",)
    kind = r[0]
    if kind in ("led", "decoupling_led"):
        return (0, r[1], kind != "led", "")
    if kind in ("register", "decoupling", "pullups"):
        return (1, r[1], ("register", "decoupling", "pullups").index(kind), "".join(str(x) for x in r[2:]))
    group = ("bus_buffer", "decoupling_bus", "bus_stub", "bus_series")
    if kind in group:
        return (2, 0, group.index(kind), "".join(str(x) for x in r[1:]))
    if kind in ("q_series", "led_out_series"):
        return (3, 0, kind == "led_out_series", "")
    if kind == "conn":
        return (4, 0, r[1] == "OUT", "")
    return (5, 0, 0, p.ref)


class Pcb:
    def __init__(self, board, board_json):
        pcbnew.KIID.SeedGenerator(1)  # deterministic UUIDs: same design, same file
        self.design = board
        self.layout = Layout(board, board_json)
        self.b = pcbnew.BOARD()
        self.nets = {}
        self.pads = {}  # (ref, pad number) -> (x, y, w, h) absolute, after placement
        self.unrouted = []
        for p in board.parts:
            if p.footprint:
                self._footprint(p)

    def net(self, name):
        if name not in self.nets:
            n = pcbnew.NETINFO_ITEM(self.b, name)
            self.b.Add(n)
            self.nets[name] = n
        return self.nets[name]

    def _footprint(self, part):
        smd, pads = footprint_pads(part.footprint)
        x0, y0 = self.layout.pos[part.ref]
        if self.design.kind != "centre":
            y0 += self.axis
        fp = pcbnew.FOOTPRINT(self.b)
        fp.SetReference(part.ref)
        fp.SetValue(part.value)
        fp.SetFPID(pcbnew.LIB_ID("smartgammon", part.footprint))
        fp.Value().SetLayer(pcbnew.F_Fab)
        fp.SetAttributes(pcbnew.FP_SMD if smd else pcbnew.FP_THROUGH_HOLE)
        netof = {str(q[0]): q[3] for q in part.pins}
        for num, dx, dy, w, h in pads:
            pad = pcbnew.PAD(fp)
            pad.SetNumber(str(num))
            if smd:
                pad.SetAttribute(pcbnew.PAD_ATTRIB_SMD)
                pad.SetShape(pcbnew.PAD_SHAPE_RECT)
                pad.SetLayerSet(pad.SMDMask())
            else:
                pad.SetAttribute(pcbnew.PAD_ATTRIB_PTH)
                pad.SetShape(pcbnew.PAD_SHAPE_CIRCLE if num != 1 else pcbnew.PAD_SHAPE_RECT)
                pad.SetLayerSet(pad.PTHMask())
                hole = MM(drill(part.footprint, str(num)))
                pad.SetDrillSize(pcbnew.wxSize(hole, hole))
            pad.SetSize(pcbnew.wxSize(MM(w), MM(h)))
            pad.SetPos0(_pt(dx, dy))
            pad.SetPosition(_pt(x0 + dx, y0 + dy))
            net = netof.get(str(num))
            if net:
                pad.SetNet(self.net(net))
            fp.Add(pad)
            self.pads[(part.ref, str(num))] = (x0 + dx, y0 + dy, w, h, dy, net, smd)
        self._graphics(fp, part, pads, x0, y0)
        fp.SetPosition(_pt(x0, y0))
        self.b.Add(fp)

    def _graphics(self, fp, part, pads, x0, y0):
        """What KiCad's library footprints carry besides pads: the courtyard (pads + 0.25 mm),
        the fab outline, the reference on the silkscreen above the part, a pin-1 / polarity
        dot beside pad 1 (the cathode, the capacitor's +), and IN / OUT on the connectors."""
        lx = min(p[1] - p[3] / 2 for p in pads)
        hx = max(p[1] + p[3] / 2 for p in pads)
        ly = min(p[2] - p[4] / 2 for p in pads)
        hy = max(p[2] + p[4] / 2 for p in pads)
        box = (round(lx - 0.25, 2), round(ly - 0.25, 2), round(hx + 0.25, 2), round(hy + 0.25, 2))
        for layer, width, (a, b, c, d) in (
            (pcbnew.F_CrtYd, 0.05, box),
            (pcbnew.F_Fab, 0.1, (lx, ly, hx, hy)),
        ):
            for (x1, y1), (x2, y2) in (
                ((a, b), (c, b)),
                ((c, b), (c, d)),
                ((c, d), (a, d)),
                ((a, d), (a, b)),
            ):
                sh = pcbnew.FP_SHAPE(fp)
                sh.SetShape(pcbnew.SHAPE_T_SEGMENT)
                sh.SetLayer(layer)
                sh.SetWidth(MM(width))
                sh.SetStart0(_pt(x1, y1))
                sh.SetEnd0(_pt(x2, y2))
                sh.SetStart(_pt(x0 + x1, y0 + y1))
                sh.SetEnd(_pt(x0 + x2, y0 + y2))
                fp.Add(sh)
        ref = fp.Reference()
        ref.SetLayer(pcbnew.F_SilkS)
        ref.SetTextSize(pcbnew.wxSize(MM(0.8), MM(0.8)))
        ref.SetTextThickness(MM(0.12))
        ref.SetPos0(_pt(0, box[1] - 0.6))
        ref.SetTextPos(_pt(x0, y0 + box[1] - 0.6))
        one = [p for p in pads if str(p[0]) == "1"]
        if one and len({str(p[0]) for p in pads}) > 1:
            _n, dx, dy, _w, _h = one[0]
            if dy > 0.01:
                at = (dx, box[3] + 0.4)
            elif dy < -0.01:
                at = (dx, box[1] - 1.3) if abs(dx) > 1.6 else (box[0] - 0.4, dy)
            else:
                at = (box[0] - 0.4, dy)
            dot = pcbnew.FP_SHAPE(fp)
            dot.SetShape(pcbnew.SHAPE_T_CIRCLE)
            dot.SetLayer(pcbnew.F_SilkS)
            dot.SetWidth(MM(0.2))
            dot.SetStart0(_pt(*at))
            dot.SetEnd0(_pt(at[0] + 0.15, at[1]))
            dot.SetStart(_pt(x0 + at[0], y0 + at[1]))
            dot.SetEnd(_pt(x0 + at[0] + 0.15, y0 + at[1]))
            fp.Add(dot)
        if part.role and part.role[0] == "conn":
            t = pcbnew.FP_TEXT(fp, pcbnew.FP_TEXT.TEXT_is_DIVERS)
            t.SetText(part.role[1])
            t.SetLayer(pcbnew.F_SilkS)
            t.SetTextSize(pcbnew.wxSize(MM(0.8), MM(0.8)))
            t.SetTextThickness(MM(0.12))
            t.SetPos0(_pt(0, box[3] + 0.7))
            t.SetTextPos(_pt(x0, y0 + box[3] + 0.7))
            fp.Add(t)

    @property
    def axis(self):
        return getattr(self, "_axis", 0.0)

    def outline(self, w, h):
        corners = ((0, 0), (w, 0), (w, h), (0, h))
        for i in range(4):
            s = pcbnew.PCB_SHAPE(self.b)
            s.SetShape(pcbnew.SHAPE_T_SEGMENT)
            s.SetStart(_pt(*corners[i]))
            s.SetEnd(_pt(*corners[(i + 1) % 4]))
            s.SetLayer(pcbnew.Edge_Cuts)
            s.SetWidth(MM(0.1))
            self.b.Add(s)

    def track(self, x1, y1, x2, y2, layer, net, width=None):
        t = pcbnew.PCB_TRACK(self.b)
        t.SetStart(_pt(x1, y1))
        t.SetEnd(_pt(x2, y2))
        t.SetWidth(MM(width or TRACK))
        t.SetLayer(layer)
        t.SetNet(self.net(net))
        self.b.Add(t)

    def pour(self, net, w, h):
        """Ground pours on both layers over the whole board (0.5 mm in from the edge), filled
        around everything else: every signal has its return right beside or under it, and
        the decoupling capacitors' ground pads sit on the plane (thermal spokes)."""
        zones = []
        for layer in (pcbnew.F_Cu, pcbnew.B_Cu):
            z = pcbnew.ZONE(self.b)
            z.SetLayer(layer)
            z.SetNetCode(self.net(net).GetNetCode())
            o = z.Outline()
            o.NewOutline()
            for x, y in ((0.5, 0.5), (w - 0.5, 0.5), (w - 0.5, h - 0.5), (0.5, h - 0.5)):
                o.Append(MM(x), MM(y))
            z.SetLocalClearance(MM(0.3))
            z.SetMinThickness(MM(0.25))
            z.SetPadConnection(pcbnew.ZONE_CONNECTION_THERMAL)
            z.SetThermalReliefGap(MM(0.3))
            z.SetThermalReliefSpokeWidth(MM(0.4))
            z.SetIslandRemovalMode(pcbnew.ISLAND_REMOVAL_MODE_ALWAYS)
            self.b.Add(z)
            zones.append(z)

    def via(self, x, y, net):
        v = pcbnew.PCB_VIA(self.b)
        v.SetPosition(_pt(x, y))
        v.SetDrill(MM(VIA_DRILL))
        v.SetWidth(MM(VIA_D))
        v.SetNet(self.net(net))
        self.b.Add(v)


def lanes(pads_by_net, end_x):
    """Channel assignment. ``pads_by_net[net]`` = [(x, side)], side -1 for a pad in a part's
    upper row (its stub must go up), +1 lower row, 0 either. Returns ``(assign, counts,
    bridges)``: ``assign[(net, group)] = (side, lane)`` with group -1/+1 (the pads of that
    side; free pads join -1) or 0 (a net on one side only); ``bridges[net]`` = the x column past
    the last part where a net that needs both sides joins its two lanes with an F.Cu track."""
    groups, bridges = {}, {}
    for net, pads in sorted(pads_by_net.items()):
        sides = {s for _, s in pads if s}
        if len(sides) > 1:
            bx = round(end_x + 1.0 * len(bridges), 2)
            bridges[net] = bx
            groups[(net, -1)] = (-1, [x for x, s in pads if s <= 0] + [bx])
            groups[(net, 1)] = (1, [x for x, s in pads if s > 0] + [bx])
        else:
            groups[(net, 0)] = (sides.pop() if sides else 0, [x for x, _ in pads])
    rows = {-1: [], 1: []}  # side -> [last x end of each lane]
    out = {}
    spans = sorted((min(xs), max(xs), key) for key, (_, xs) in groups.items())
    for fixed in (True, False):
        for lo, hi, key in spans:
            want = groups[key][0]
            if (want != 0) != fixed:
                continue
            sides = [want] if fixed else sorted((-1, 1), key=lambda s: len(rows[s]))
            best = None
            for s in sides:
                for i, end in enumerate(rows[s]):
                    if end + 1.5 < lo:
                        best = (s, i)
                        break
                if best:
                    break
            if best is None:
                s = sides[0]
                rows[s].append(hi)
                best = (s, len(rows[s]) - 1)
            rows[best[0]][best[1]] = hi
            out[key] = best
    return out, {s: len(r) for s, r in rows.items()}, bridges


def _group(net, side, bridges):
    if net not in bridges:
        return 0
    return 1 if side > 0 else -1


def _side(dy):
    return -1 if dy < -0.01 else (1 if dy > 0.01 else 0)


def build_strip(board, board_json):
    # first pass: placement and which side every net goes, to size the strip
    pcb = Pcb(board, board_json)
    pads_by_net = {}
    for pad in pcb.pads.values():
        if pad[5]:
            pads_by_net.setdefault(pad[5], []).append((pad[0], _side(pad[4])))
    end_x = max(p[0] + p[2] / 2 for p in pcb.pads.values()) + 1.5
    assign, counts, bridges = lanes(pads_by_net, end_x)
    band = max(abs(p[4]) + p[3] / 2 for p in pcb.pads.values() if p[5]) + 0.2 + VIA_D / 2 + 0.3
    # each row of lanes as wide as its widest track (the supply lanes are wider): a row's
    # offset from the band is the sum of the pitches before it (half widths, at least a
    # via's, and the clearance between them; 0.8 mm for two signal rows)
    row_w = {-1: [TRACK] * counts[-1], 1: [TRACK] * counts[1]}
    for (net, _g), (side, lane) in assign.items():
        row_w[side][lane] = max(row_w[side][lane], track_width(net))
    offset = {}
    for side, ws in row_w.items():
        at = band
        for lane, w in enumerate(ws):
            if lane:
                at += max(ws[lane - 1], VIA_D) / 2 + max(w, VIA_D) / 2 + LANE_PITCH - VIA_D
            offset[(side, lane)] = at
    above = offset[(-1, counts[-1] - 1)] + max(row_w[-1][-1], VIA_D) / 2 + 0.5 if counts[-1] else band
    below = offset[(1, counts[1] - 1)] + max(row_w[1][-1], VIA_D) / 2 + 0.5 if counts[1] else band
    width = round(above + below + 1.0, 1)
    # second pass: the same board with its axis where the lanes fit
    pcb = Pcb.__new__(Pcb)
    pcb._axis = round(above + 0.5, 2)
    Pcb.__init__(pcb, board, board_json)
    if bridges:
        pcb.layout.length = max(pcb.layout.length, max(bridges.values()) + 1.5)
    pcb.outline(round(pcb.layout.length, 1), width)
    ys = {}
    for (net, group), (side, lane) in sorted(assign.items()):
        y = ys[(net, group)] = pcb.axis + side * offset[(side, lane)]
        mine = [p for p in pcb.pads.values() if p[5] == net and _group(net, _side(p[4]), bridges) == group]
        xs = sorted([p[0] for p in mine] + ([bridges[net]] if group else []))
        pcb.track(xs[0], y, xs[-1], y, pcbnew.B_Cu, net, track_width(net))
        for pad in mine:
            pcb.track(pad[0], pad[1], pad[0], y, pcbnew.F_Cu, net, stub_width(net, pad[2]))
            pcb.via(pad[0], y, net)
        if group:
            pcb.via(bridges[net], y, net)
    for net, bx in sorted(bridges.items()):
        pcb.track(bx, ys[(net, -1)], bx, ys[(net, 1)], pcbnew.F_Cu, net, track_width(net))
    pcb.pour("GND", round(pcb.layout.length, 1), width)
    return pcb, width, True


def router_pads(b):
    """The board's pads as the router sees them (placed unrotated: sizes along x and y; the
    position from the footprint's and the pad's offset, as the saved file has them)."""
    out = []
    for pad in b.GetPads():
        at, off, size = pad.GetParent().GetPosition(), pad.GetPos0(), pad.GetSize()
        pos = pcbnew.wxPoint(at.x + off.x, at.y + off.y)
        layers = [n for n, layer in ((0, pcbnew.F_Cu), (1, pcbnew.B_Cu)) if pad.IsOnLayer(layer)]
        pth = pad.GetAttribute() == pcbnew.PAD_ATTRIB_PTH
        out.append(
            route.Pad(
                pcbnew.ToMM(pos.x),
                pcbnew.ToMM(pos.y),
                pcbnew.ToMM(size.x),
                pcbnew.ToMM(size.y),
                layers,
                pad.GetNetname(),
                drill=pcbnew.ToMM(pad.GetDrillSize().x) if pth else 0.0,
                round_=pad.GetShape() == pcbnew.PAD_SHAPE_CIRCLE,
                key="%s.%s" % (pad.GetParent().GetReference(), pad.GetNumber()),
                part_xy=(pcbnew.ToMM(at.x), pcbnew.ToMM(at.y)),
            )
        )
    return out


CACHED = ("tray",)  # boards whose routing takes minutes: make hardware keeps their routes


def _cached_routes(kind, key):
    """The committed routes of ``kind`` (``hardware/kicad/<kind>/<kind>-routes.json``) when
    their key is ``key``: ([(net, (segs, vias))], unrouted); else None (route again)."""
    if kind not in CACHED or key is None:
        return None
    path = HERE.parent.parent / "hardware" / "kicad" / kind / (kind + "-routes.json")
    if not path.exists():
        return None
    got = json.loads(path.read_text())
    if got.get("key") != key:
        return None
    routes = [
        (net, ([tuple(s) for s in segs], [tuple(v) for v in vias])) for net, (segs, vias) in got["routes"]
    ]
    return routes, got["unrouted"]


def build_centre(board, board_json, key=None):
    """Placed by ``Layout._grid`` (the tray strip by ``Layout._tray``), routed by
    ``route.Router``: every net but ground as tracks, ground by the pours, each ground pad
    stitched to them by a via of its own."""
    pcb = Pcb(board, board_json)
    w, h = pcb.layout.length, pcb.layout.height
    pcb.outline(w, h)
    router = route.Router(w, h, router_pads(pcb.b), centre_width)
    nets = sorted({p.net for p in router.pads if p.net and p.net != "GND"})
    nets = [n for n in nets if sum(1 for p in router.pads if p.net == n) > 1]
    cached = _cached_routes(board.kind, key)
    if cached is None:
        router.join_exposed("GND")
        pcb.unrouted = router.route(nets)
        pcb.unrouted += router.stitch("GND")
        pcb.unrouted += router.tie("GND")
        found = sorted(list(router.routes.items()) + list(router.fixed.items()))
    else:
        found, pcb.unrouted = cached
    pcb.routes = {"key": key, "routes": found, "unrouted": pcb.unrouted}
    layers = (pcbnew.F_Cu, pcbnew.B_Cu)
    for net, (segs, vias) in found:
        for x1, y1, x2, y2, layer, width in segs:
            pcb.track(x1, y1, x2, y2, layers[layer], net, width)
        for x, y in vias:
            pcb.via(x, y, net)
    pcb.pour("GND", w, h)
    return pcb, h


def drc(path, report):
    """Run KiCad's DRC; write the report (without its date and absolute path) to ``report``."""
    b = pcbnew.LoadBoard(str(path))
    raw = Path(str(report) + ".tmp")
    pcbnew.WriteDRCReport(b, str(raw), pcbnew.EDA_UNITS_MILLIMETRES, True)
    text = raw.read_text()
    raw.unlink()
    text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("** Created on"))
    text = text.replace(str(path), path.name) + "\n"
    Path(report).write_text(text)
    v = re.search(r"\*\* Found (\d+) DRC violations", text)
    # violations of any severity (warnings about silkscreen included) count: zero is the bar
    errors = int(v.group(1)) if v else -1
    m = re.search(r"\*\* Found (\d+) unconnected pads", text)
    unconnected = int(m.group(1)) if m else -1
    return errors, unconnected, b


def main(argv):
    outdir = Path(argv[0])
    text = (HERE.parent.parent / "hardware" / "board.json").read_text()
    board_json = json.loads(text)
    boards, _ = design.system(board_json)
    summary = {}
    for b in design.kinds(boards):
        d = outdir / b.kind
        d.mkdir(parents=True, exist_ok=True)
        if b.kind in ("centre", "tray"):
            pcb, width = build_centre(b, board_json, route.routes_key(text) if b.kind in CACHED else None)
            routed = not pcb.unrouted
        else:
            pcb, width, routed = build_strip(b, board_json)
        if b.kind in CACHED:
            (d / (b.kind + "-routes.json")).write_text(json.dumps(pcb.routes, separators=(",", ":")) + "\n")
        path = d / (b.kind + ".kicad_pcb")
        pcbnew.SaveBoard(str(path), pcb.b)
        if pcb.b.Zones():  # filled on the saved board (its design settings loaded)
            filled = pcbnew.LoadBoard(str(path))
            filled.BuildConnectivity()
            pcbnew.ZONE_FILLER(filled).Fill(filled.Zones())
            pcbnew.SaveBoard(str(path), filled)
        errors, unconnected, loaded = drc(path, d / (b.kind + "-drc.txt"))
        for extra in (".kicad_prl",):  # per-user view settings, not a source
            (d / (b.kind + extra)).unlink(missing_ok=True)
        fabdir = d / "fab"
        fabdir.mkdir(exist_ok=True)
        fab.gerbers(loaded, fabdir)
        fab.svgs(loaded, d)
        bom, cpl = fab.bom_cpl(b, loaded)
        (fabdir / (b.kind + "-bom-jlcpcb.csv")).write_text(bom)
        (fabdir / (b.kind + "-cpl-jlcpcb.csv")).write_text(cpl)
        summary[b.kind] = {
            "routed": routed,
            "size_mm": [round(pcb.layout.length, 1), round(width, 1)],
            "axis_mm": round(pcb.axis, 2),
            "drc_errors": errors,
            "unconnected_pads": unconnected,
        }
    for f in sorted(outdir.rglob("*")):  # KiCad stamps the time: same sources, same bytes
        if f.is_file() and f.suffix in (".gbr", ".drl", ".svg", ".txt"):
            f.write_text(STAMP.sub("(date)", f.read_text()))
    (outdir / "pcb-summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
