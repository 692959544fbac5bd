"""hardware/kicad: the netlists come from board.json, pass the electrical rule check, and the
wiring they describe is what the firmware (bg.hwdesc) decodes: every chain bit, LED, button."""

import json
from pathlib import Path

import pytest
from bg import hwdesc

from tools.hardware import build, design, erc, trace

ROOT = Path(__file__).resolve().parents[2]


def _board():
    return json.loads((ROOT / "hardware" / "board.json").read_text())


def _agree(board_json, boards=None, cables=None):
    if boards is None:
        boards, cables = design.system(board_json)
    return trace.agreement(boards, cables, board_json, hwdesc.Board(board_json))


def test_netlists_and_erc_reports_are_current():
    assert build.main(["--check", "--no-pcb", "--no-scad"]) == 0, "run make hardware"
    for rel, text in build.text_outputs(_board()).items():
        assert (ROOT / "hardware" / "kicad" / rel).read_text() == text


def test_every_board_passes_erc():
    boards, _ = design.system(_board())
    assert [b.kind for b in design.kinds(boards)] == ["centre", "point", "tray", "bar"]
    assert len(boards) == 28
    for b in boards:
        assert erc.check(b) == [], b.name
    for rel, text in build.text_outputs(_board()).items():
        if rel.endswith("-erc.txt"):
            assert ": 0 error(s)" in text.splitlines()[0]


def test_system_erc_is_clean_and_catches_two_outputs_tied_across_boards():
    boards, cables = design.system(_board())
    assert erc.check_system(boards, cables) == []
    assert build.text_outputs(_board())["system-erc.txt"].startswith(
        "ERC of the whole system: 28 boards joined by 28 cables: 0 error(s)"
    )
    # point 6's IN cable goes to point 5's IN instead of its OUT, and point 5's QH is soldered
    # past its series resistor onto the line: the two registers' outputs meet on MISO
    cables = [
        ("point6", "J1", "point5", "J1") if c == ("point6", "J2", "point5", "J1") else c for c in cables
    ]
    _set_net(boards[2].part("U1"), "QH", "IN_Q")
    _set_net(boards[1].part("U1"), "QH", "IN_Q")
    bad = erc.check_system(boards, cables)
    assert "outputs tied: net centre:MISO driven by point6/U1.QH, point5/U1.QH" in bad, bad
    for b in boards:  # no single board sees it
        assert [e for e in erc.check(b) if not e.startswith("unconnected")] == []


def _part(board, ref):
    return board.part(ref)


def _set_net(part, pin_name, net, type_=None):
    for i, p in enumerate(part.pins):
        if p[1] == pin_name:
            part.pins[i] = (p[0], p[1], type_ or p[2], net)
            return
    raise AssertionError(pin_name)


def test_erc_catches_a_floating_pin_tied_outputs_and_a_missing_supply():
    boards, _ = design.system(_board())
    strip = boards[1]
    _set_net(strip.part("U1"), "SER", None)  # a broken trace
    assert any(e.startswith("unconnected: point6/U1 pin 10") for e in erc.check(strip))
    boards, _ = design.system(_board())
    strip = boards[1]
    _set_net(strip.part("D1"), "DOUT", "U1_QH")  # the LED's output onto the register's output
    assert any(e.startswith("outputs tied: net U1_QH") for e in erc.check(strip))
    boards, _ = design.system(_board())
    centre = boards[0]
    centre.parts = [p for p in centre.parts if p.ref != "#FLG1"]  # nothing marks the fuse output
    # the fused USB is the charger's input (VIN) with the battery option, else the 5 V rail
    fused = "VIN" if _board().get("battery") else "5V"
    assert "unpowered: net %s has power inputs and no source" % fused in erc.check(centre)
    # the level shifter's enable and input joined to each other only: a floating pair
    _set_net(centre.part("U2"), "OE", "FLOAT")
    _set_net(centre.part("U2"), "A", "FLOAT")
    assert "undriven input: net FLOAT has only inputs" in erc.check(centre)
    _set_net(centre.part("U1"), "GPIO0", "MISO")  # a no-connect pin soldered to a net
    assert "nc connected: centre/U1 pin 33 (GPIO0) is on net MISO" in erc.check(centre)


def test_wiring_agrees_with_the_firmware_decoder():
    b = _board()
    assert _agree(b) == []
    boards, cables = design.system(b)
    bits = trace.sensor_map(trace.Wired(boards, cables), b["pins"])
    hw = hwdesc.Board(b)
    # spot checks from hardware/README.md: point 1 is register 5, slot 0 on input A
    assert bits[8 * 5 + 0] == ("reed", "point", 1, 0)
    assert bits[8 * 29 + 6] == ("open",) and bits[8 * 29 + 7] == ("closed",)  # the canaries
    assert sum(1 for x in bits if x[0] == "reed") == sum(hw.row_slots)


def test_a_swapped_reed_is_caught():
    b = _board()
    boards, cables = design.system(b)
    strip = [x for x in boards if x.name == "point1"][0]
    # slot 0 and slot 1 soldered to each other's inputs
    _set_net(strip.part("SW1"), "1", "U1_B")
    _set_net(strip.part("SW2"), "1", "U1_A")
    bad = _agree(b, boards, cables)
    assert any("chain bit 40 " in x and "'point', 1, 1" in x for x in bad), bad


def test_strips_cabled_in_the_wrong_order_are_caught():
    b = _board()
    boards, cables = design.system(b)
    # point 5 and point 4 swapped along the chain
    order = [x.name for x in boards]
    i, j = order.index("point5"), order.index("point4")
    boards[i], boards[j] = boards[j], boards[i]
    cables = [(a, ra, c, rc) for a, ra, c, rc in cables]
    names = {"point5": "point4", "point4": "point5"}
    cables = [(names.get(a, a), ra, names.get(c, c), rc) for a, ra, c, rc in cables]
    bad = _agree(b, boards, cables)
    assert len([x for x in bad if x.startswith("chain bit")]) == 12  # 6 reeds on each of two points
    assert any(x.startswith("LED 1 ") for x in bad) and any(x.startswith("LED 2 ") for x in bad)


def test_a_missing_canary_and_a_moved_button_are_caught():
    b = _board()
    boards, cables = design.system(b)
    bar = boards[-1]
    _set_net(bar.part("U2"), "H", "U2_H")  # canary H pulled up instead of tied to GND
    _set_net(bar.part("RN3"), "R4.1", "U2_H", "passive")
    _set_net(bar.part("RN3"), "R4.2", "3V3", "passive")
    bad = _agree(b, boards, cables)
    assert any(x.startswith("chain bit 239 ") for x in bad), bad
    boards, cables = design.system(b)
    _set_net(boards[0].part("SW1"), "1", "BTN_cube0")  # roll0 soldered to cube0's GPIO
    bad = _agree(b, boards, cables)
    assert "button roll0: GPIO 32 is wired to None" in bad


def test_design_follows_a_changed_board_json():
    b = _board()
    b["sensors"]["slots_per_point"] = 7
    boards, _ = design.system(b)
    assert sum(1 for p in boards[1].parts if p.value == "reed") == 7
    assert _agree(b) == []
    b = _board()
    b["buttons"][1]["pin"] = b["pins"]["pl"]
    with pytest.raises(ValueError, match="two functions share one GPIO"):
        design.system(b)
    b = _board()
    b["buttons"][1]["pin"] = 20  # not on the DevKitC header
    with pytest.raises(ValueError, match="not on the ESP32-DevKitC header"):
        design.system(b)
    b = _board()
    regs = b["sensors"]["registers"]
    regs.append(regs.pop(0))  # point 6's register moved behind the canaries
    with pytest.raises(ValueError, match="the bar registers must end the chain"):
        design.system(b)
    b = _board()
    regs = b["sensors"]["registers"]
    regs[7], regs[8] = regs[8], regs[7]  # tray 0's second register after tray 1's first
    with pytest.raises(ValueError, match="registers of tray0 are not next to each other"):
        design.system(b)
    b = _board()
    leds = b["leds"]["chain"]
    leds[0], leds[1] = leds[1], leds[0]  # point 5's LED before point 6's: the cable order cannot do it
    with pytest.raises(ValueError, match="strip LEDs must come first in the LED chain, in strip order"):
        design.system(b)


def test_every_instance_of_a_kind_has_the_same_circuit():
    # one PCB per kind must fit every instance: same parts, same nets
    boards, _ = design.system(_board())
    first = {}
    for x in boards:
        sig = sorted((p.ref, p.value, p.footprint, tuple(p.pins)) for p in x.parts)
        assert first.setdefault(x.kind, sig) == sig, x.name


def test_bom_md_counts_what_the_design_fits():
    import collections
    import re

    boards, cables = design.system(_board())
    count = collections.Counter(p.value for b in boards for p in b.parts)
    rows = {}
    for line in (ROOT / "hardware" / "bom.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.fullmatch(r"[A-Z0-9-]+", cells[0]) and cells[3].isdigit():
            rows[cells[0]] = int(cells[3])
    assert rows["SR"] == count["74HC165"] and rows["RN"] == count["10k x4"]
    assert rows["REED"] == count["reed"] and rows["LED"] == count["WS2812B"]
    assert rows["C100N"] == count["100n"] and rows["R330"] == count["330"] and rows["R10K"] == count["10k"]
    assert rows["BUF"] == count[design.BUS_BUFFER] and rows["R100"] == count["100"]
    assert rows["CONN"] == sum(n for v, n in count.items() if v.startswith("chain "))
    assert rows["CABLE"] == len(cables)
    assert rows["BTN"] == sum(1 for b in boards for p in b.parts if p.role and p.role[0] == "button")
    assert rows["PCB-P"] == sum(1 for b in boards if b.kind == "point")
    assert rows["PCB-B"] == sum(1 for b in boards if b.kind != "point")


def test_schematic_sheets_label_every_net_and_part():
    from tools.hardware import schematic

    boards, _ = design.system(_board())
    for b in design.kinds(boards):
        svg = (ROOT / "hardware" / "kicad" / b.kind / ("%s-schematic.svg" % b.kind)).read_text()
        assert svg == schematic.render(b)
        for net in b.nets():
            assert ">%s</text>" % net in svg, (b.kind, net)
        for p in b.parts:
            if p.footprint:
                assert ">%s  %s</text>" % (p.ref, p.value) in svg
    # a reed moved to another input shows on the sheet
    strip = boards[1]
    assert schematic.render(strip).count(">U1_H</text>") == 2  # unfitted slot 7: 165 and array
    _set_net(strip.part("SW1"), "1", "U1_H")
    assert schematic.render(strip).count(">U1_H</text>") == 3


def _centre(board_json):
    return design.system(board_json)[0][0]


def _role(board, *role):
    return [p for p in board.parts if p.role and p.role[: len(role)] == role]


def test_battery_option_is_on_the_centre_board_and_passes_erc():
    b = _board()
    bat = b["battery"]
    centre = _centre(b)
    assert erc.check(centre) == [] and erc.check_battery(centre, bat) == []
    nets = centre.nets()
    on_bat = {(ref, name) for ref, _n, name, _t in nets["BAT"]}
    cell, charger = _role(centre, "battery")[0], _role(centre, "charger")[0]
    top = _role(centre, "divider", "top")[0]
    assert {(cell.ref, "+"), (charger.ref, "BAT"), (top.ref, "1")} <= on_bat
    # the ADC pin of board.json reads the divider's middle
    assert centre.part("U1").net_of("GPIO%d" % bat["adc_pin"]) == "BAT_SENSE"
    # the cell's voltage, halved, is within what the ESP32 reads at 11 dB (150..2450 mV)
    ratio = bat["divider_bottom_ohm"] / (bat["divider_top_ohm"] + bat["divider_bottom_ohm"])
    assert erc.ADC_MIN_MV <= bat["critical_mv"] * ratio < bat["full_mv"] * ratio <= bat["adc_max_mv"]
    # the boost drives the 5 V supply the DevKit and the LEDs' limiting switch take; USB only
    # feeds the charger
    boost = _role(centre, "boost")[0].ref
    assert any(t == "pwr_out" and r == boost for r, _n, _nm, t in nets[design.SUPPLY])
    assert "ERC centre" in build.text_outputs(b)["centre/centre-erc.txt"]
    assert ": 0 error(s)" in build.text_outputs(b)["centre/centre-erc.txt"]


def test_erc_catches_a_divider_that_clips_or_starves_the_adc():
    b = _board()
    b["battery"]["divider_bottom_ohm"] = 3 * b["battery"]["divider_top_ohm"]  # 3/4 of 4.2 V
    errs = erc.check_battery(_centre(b), b["battery"])
    assert len(errs) == 1 and "full cell" in errs[0] and "above the ADC" in errs[0]
    assert "divider: a full cell" in build.text_outputs(b)["centre/centre-erc.txt"]
    b = _board()
    b["battery"]["divider_top_ohm"], b["battery"]["divider_bottom_ohm"] = 1000000, 10000
    errs = erc.check_battery(_centre(b), b["battery"])
    assert len(errs) == 1 and "critical level" in errs[0] and "below the ADC" in errs[0]


def test_erc_catches_a_missing_cell_and_a_bypassed_divider():
    b = _board()
    centre = _centre(b)
    centre.parts = [p for p in centre.parts if p.role != ("battery",)]
    assert any("BAT has no cell" in e for e in erc.check_battery(centre, b["battery"]))
    centre = _centre(b)
    _set_net(centre.part("U1"), "GPIO%d" % b["battery"]["adc_pin"], "BAT")  # 4.2 V straight in
    assert any("not fed from BAT through a divider" in e for e in erc.check_battery(centre, b["battery"]))
    centre = _centre(b)
    _set_net(_role(centre, "divider", "bottom")[0], "2", "3V3")  # divider to the wrong rail
    assert any("through a divider to GND" in e for e in erc.check_battery(centre, b["battery"]))


def test_usb_only_board_has_no_battery_parts():
    b = _board()
    del b["battery"]
    centre = _centre(b)
    assert "BAT" not in centre.nets() and not _role(centre, "charger")
    assert centre.part("F1").net_of("2") == design.SUPPLY  # the fused USB is the supply again
    assert erc.check(centre) == [] and erc.check_battery(centre, None) == []
