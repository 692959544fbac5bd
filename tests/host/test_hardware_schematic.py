"""hardware/kicad/<kind>/<kind>.kicad_sch: the KiCad 6 schematic of each board, read back (the
s-expression parsed, pins joined through wires and net labels) has the netlist of the design."""

import json
from pathlib import Path

import pytest

from tools.hardware import design, kicad_sch, netlist

ROOT = Path(__file__).resolve().parents[2]

KICAD = ROOT / "hardware" / "kicad"


def _boards():
    board_json = json.loads((ROOT / "hardware" / "board.json").read_text())
    return design.kinds(design.system(board_json)[0])


def _nets(parsed):
    return {n: sorted(pins) for n, pins in parsed.items()}


@pytest.mark.parametrize("kind", ["centre", "point", "tray", "bar"])
def test_committed_schematic_reads_back_to_the_committed_netlist(kind):
    text = (KICAD / kind / (kind + ".kicad_sch")).read_text()
    assert text.startswith("(kicad_sch (version 20211123)")
    nets, roles, nc = kicad_sch.read(text)
    want_nets, want_roles = netlist.parse((KICAD / kind / (kind + ".net")).read_text())
    assert _nets(nets) == _nets(want_nets)
    assert roles == want_roles
    board = [b for b in _boards() if b.kind == kind][0]
    assert sorted(nc) == sorted(
        (p.ref, str(n)) for p in board.parts for n, _, _, net in p.pins if net is None
    )
    assert len(nets) == len(board.nets()) and sum(len(v) for v in nets.values()) > 20


def test_schematic_is_generated_from_the_current_design():
    for b in _boards():
        assert (KICAD / b.kind / (b.kind + ".kicad_sch")).read_text() == kicad_sch.render(b), b.kind


def test_a_swapped_pin_or_a_renamed_label_changes_what_is_read():
    board = [b for b in _boards() if b.kind == "point"][0]
    want = _nets(netlist.parse(netlist.render(board))[0])
    u = board.part("U1")
    clk, ld = u.net_of("CLK"), u.net_of("SH/LD")
    u.wire("CLK", ld).wire("SH/LD", clk)  # a maker's schematic with the clock and load crossed
    assert _nets(kicad_sch.read(kicad_sch.render(board))[0]) != want
    u.wire("CLK", clk).wire("SH/LD", ld)
    text = kicad_sch.render(board)
    assert _nets(kicad_sch.read(text)[0]) == want
    # one label renamed to another net's name: that pin is read on the other net
    renamed = text.replace('(label "%s"' % clk, '(label "%s"' % ld, 1)
    got = _nets(kicad_sch.read(renamed)[0])
    assert got != want and len(got[ld]) == len(want[ld]) + 1
    broken = text.replace("(wire (pts", "(wirX (pts", 1)  # a pin whose wire is gone
    with pytest.raises(ValueError, match="no labelled net"):
        kicad_sch.read(broken)
    with pytest.raises(ValueError, match="unbalanced"):
        kicad_sch.read(text[:-3])
