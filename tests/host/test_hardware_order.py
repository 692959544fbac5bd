"""Orderable: every machine-placed part has an LCSC number with its source, or says why not (and
bom.md says so too); the placement file's rotations follow JLCPCB's convention, checked against
pin 1 of each footprint as it sits on the committed PCB."""

import csv
import json
import math
from pathlib import Path

import pytest

from tools.hardware import design, footprints, jlc, kicad_sch, parts

ROOT = Path(__file__).resolve().parents[2]

KICAD = ROOT / "hardware" / "kicad"
HAND = {"REED_SMD"}  # soldered in the jig (hardware/assembly.md)


def _kinds():
    board_json = json.loads((ROOT / "hardware" / "board.json").read_text())
    return design.kinds(design.system(board_json)[0])


def _machine_parts(board):
    return [
        p
        for p in board.parts
        if p.footprint and footprints.footprint_pads(p.footprint)[0] and p.footprint not in HAND
    ]


def test_every_machine_placed_part_has_an_lcsc_number_or_says_why_not():
    bom = (ROOT / "hardware" / "bom.md").read_text()
    seen = set()
    for b in _kinds():
        for p in _machine_parts(b):
            assert p.value in parts.ORDER, (b.kind, p.ref, p.value)
            mpn, lcsc, source = parts.ORDER[p.value]
            assert source, p.value
            if lcsc:
                assert lcsc[0] == "C" and lcsc[1:].isdigit() and "LCSC" in source, (p.value, lcsc)
            else:  # never a guess: the BOM and bom.md tell the maker to look it up
                assert source.startswith("unconfirmed: "), p.value
                assert mpn.split()[1] in bom and "unconfirmed" in bom, mpn
            seen.add(p.value)
    assert {"74HC165", "WS2812B", "74LVC3G17", "10k x4", "chain IN"} <= seen
    with_number = [v for v in seen if parts.ORDER[v][1]]
    assert len(with_number) >= 15, with_number


def test_bom_csv_carries_the_lcsc_numbers():
    for b in _kinds():
        with open(KICAD / b.kind / "fab" / ("%s-bom-jlcpcb.csv" % b.kind)) as f:
            rows = list(csv.reader(f))[1:]
        by_ref = {ref: r for r in rows for ref in r[1].split(",")}
        for p in _machine_parts(b):
            mpn, lcsc, _ = parts.ORDER[p.value]
            assert by_ref[p.ref][0] == mpn and by_ref[p.ref][3] == lcsc, (b.kind, p.ref)


def _pcb_pads(kind):
    """{ref: (footprint x, y, orientation, {pad: (x, y)} on the board)} from the .kicad_pcb."""
    tree = kicad_sch.sexp((KICAD / kind / (kind + ".kicad_pcb")).read_text())[0]
    out = {}
    for fp in [x for x in tree if isinstance(x, list) and x and x[0] == "footprint"]:
        at = [x for x in fp if isinstance(x, list) and x[0] == "at"][0]
        fx, fy, rot = float(at[1]), float(at[2]), float(at[3]) if len(at) > 3 else 0.0
        ref = [
            x[2]
            for x in fp
            if isinstance(x, list) and x[0] in ("fp_text", "property") and x[1] in ("reference", "Reference")
        ][0]
        c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
        pads = {}
        for pad in [x for x in fp if isinstance(x, list) and x[0] == "pad"]:
            pat = [x for x in pad if isinstance(x, list) and x[0] == "at"][0]
            px, py = float(pat[1]), float(pat[2])
            pads.setdefault(pad[1], []).append((fx + px * c + py * s, fy - px * s + py * c))
        out[ref] = (fx, fy, rot, pads)
    return out


def _cpl(kind):
    with open(KICAD / kind / "fab" / ("%s-cpl-jlcpcb.csv" % kind)) as f:
        rows = list(csv.reader(f))[1:]
    return {r[0]: (float(r[1][:-2]), float(r[2][:-2]), int(r[4])) for r in rows}


@pytest.mark.parametrize("kind", ["centre", "point", "tray", "bar"])
def test_placement_rotation_puts_jlcpcbs_pin_1_on_the_boards_pin_1(kind):
    board = [b for b in _kinds() if b.kind == kind][0]
    pcb, cpl = _pcb_pads(kind), _cpl(kind)
    turned = 0
    for p in _machine_parts(board):
        x, y, rot = cpl[p.ref]
        # JLCPCB's footprint at rotation 0, turned by the file's rotation, at the file's centre
        zero = jlc.zero_pads(p.footprint)
        placed = {}
        for num, zx, zy in zero:
            c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
            placed.setdefault(str(num), []).append((x + zx * c - zy * s, y + zx * s + zy * c))
        board_pads = pcb[p.ref][3]
        for num in ("1", "2"):
            if num not in placed:
                continue
            # where the board has pad ``num`` (y up, as the CPL): within half a pitch of JLCPCB's
            want = [(bx, -by) for bx, by in board_pads[num]]
            got = placed[num][0]
            near = min(math.hypot(got[0] - wx, got[1] - wy) for wx, wy in want)
            others = [
                math.hypot(got[0] - bx, got[1] + by)
                for n, v in board_pads.items()
                if n not in (num, "")
                for bx, by in v
            ]
            assert not others or near < min(others), (kind, p.ref, p.footprint, num, rot)
        turned += rot != 0
    assert turned > 0 or kind == "bar" or kind == "point"  # the LED and the buffer turn


def test_a_mirrored_footprint_is_refused():
    # the JST SH land as rev A drew it: pin 1 at the left with the nails behind the row
    pads = footprints.footprint_pads("JST_SH_12")[1]
    mirrored = [(p[0], -p[1]) + tuple(p[2:]) for p in pads]
    with pytest.raises(ValueError, match="mirror image"):
        jlc.lib_turn("JST_SH_12", mirrored)
    assert jlc.lib_turn("JST_SH_12") == 180
    assert jlc.placement("LED_5050") == (180, (0.0, 0.0))  # the community tables' WS2812B turn
    assert jlc.placement("SOIC-16")[0] == 0  # drawn with pin 1 bottom left, as JLCPCB's SOIC
