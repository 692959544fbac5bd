"""The parts as ordered fit the design: the resistor network's inside, the lands under the
parts' leads (from their makers' drawings), the boost's pin map, and a misplugged cable costs
nothing (every cable reversed, every strip turned end for end), checked over the netlist."""

import json
from pathlib import Path

import pytest

from tools.hardware import design, erc, footprints, misplug, parts

ROOT = Path(__file__).resolve().parents[2]


def _board():
    return json.loads((ROOT / "hardware" / "board.json").read_text())


def _pullup_faults(strip, mpn):
    """What the ordered networks do to each register's inputs: [] when every input that is
    not tied to GND has one resistor to 3V3 and no resistor joins two inputs."""
    bad = []
    for u in [p for p in strip.parts if p.role and p.role[0] == "register"]:
        rns = [p for p in strip.parts if p.role and p.role[:2] == ("pullups", u.role[1])]
        ends = []  # every resistor's two nets
        for rn in rns:
            net = {n: net for n, _name, _t, net in rn.pins}
            for a, b in parts.network(mpn):
                na, nb = net.get(a), net.get(b)
                ends.append({na, nb})
                if na and nb and "3V3" not in (na, nb):
                    bad.append("%s joins %s and %s" % (rn.ref, na, nb))
        for letter in design.LETTERS:
            n = u.net_of(letter)
            if n == "GND":
                continue
            ups = [1 for e in ends if e == {n, "3V3"}]
            if len(ups) != 1:
                bad.append("%s input %s (%s) has %d pull-ups" % (u.ref, letter, n, len(ups)))
    return bad


def test_the_ordered_pullup_arrays_pull_every_input_up_and_join_none():
    boards, _ = design.system(_board())
    mpn = parts.ORDER["10k x4"][0]
    assert parts.network(mpn) == [(1, 8), (2, 7), (3, 6), (4, 5)]  # four isolated, across
    for b in boards:
        if b.kind != "centre":
            assert _pullup_faults(b, mpn) == [], b.name
            for p in b.parts:  # each array sits on the land of its own package
                if p.value == "10k x4":
                    assert p.footprint == "R_ARRAY_4x0603" and len(p.pins) == 8
    # an array read as a bussed network (common pin 8): inputs joined, none pulled up
    bad = _pullup_faults(boards[1], "Bourns 4808P-2-103LF")
    assert "RN2 joins U1_A and U1_D" in bad and "U1 input A (U1_A) has 0 pull-ups" in bad
    # an array soldered half a turn round still pulls each input up (each resistor's ends
    # swap); one soldered a pad along joins two inputs and pulls neither up
    strip = boards[1]
    rn = strip.part("RN1")
    pins = list(rn.pins)
    rn.pins = [(9 - n, name, t, net) for n, name, t, net in pins]
    assert _pullup_faults(strip, mpn) == []
    rn.pins = [(n % 8 + 1, name, t, net) for n, name, t, net in pins]
    assert "RN1 joins U1_G and U1_H" in _pullup_faults(strip, mpn)
    with pytest.raises(ValueError, match="not modelled"):
        parts.network("4816P-3-103LF")
    with pytest.raises(ValueError, match="order code"):
        parts.network("CAY16-103J4LF")


def _land_faults(name, pads=None):
    """Leads of ``name``'s drawing (footprints.LEADS) that miss copper of the land ``pads``
    (default: the footprint's own): a foot must lie on its pad along at least 90% of its
    length, a leg or a fitting nail sit within 0.05 mm of its pad's centre."""
    if pads is None:
        pads = footprints.footprint_pads(name)[1]
    bad = []
    for lead in footprints.LEADS[name][1]:
        kind, pin, x = lead[:3]
        mine = [p for p in pads if (str(p[0]) == str(pin) if pin is not None else p[0] == "")]
        if kind == "foot":
            y0, y1 = lead[3]
            best = 0.0
            for _n, dx, dy, w, h in mine:
                if abs(dx - x) <= w / 2:
                    best = max(best, min(y1, dy + h / 2) - max(y0, dy - h / 2))
            if best < 0.9 * (y1 - y0):
                bad.append("pin %s: %.2f of %.2f mm on copper" % (pin, max(best, 0), y1 - y0))
        elif not any(abs(dx - x) < 0.05 and abs(dy - lead[3]) < 0.05 for _n, dx, dy, _w, _h in mine):
            bad.append("%s %s at (%.2f, %.2f): no pad" % (kind, pin, x, lead[3]))
    return bad


def test_every_lead_of_the_drawings_lands_on_copper():
    boards, _ = design.system(_board())
    used = {p.footprint for b in boards for p in b.parts}
    for name in footprints.LEADS:
        if name in used:
            assert _land_faults(name) == [], name
    assert {"R_ARRAY_4x0603", "SOIC-16", "BTN_12MM", "JST_SH_%d" % len(design.CHAIN_PINS)} <= used
    # the array on a land for a chip 1.0 mm wide (pads 0.4 mm deep, centres 1.0 mm apart):
    # its terminals reach 0.1 mm beyond the pads; a land half a pitch off along the chip
    # misses every terminal
    _smd, pads = footprints.footprint_pads("R_ARRAY_4x0603")
    narrow = [(n, x, 0.5 if y > 0 else -0.5, w, 0.4) for n, x, y, w, h in pads]
    assert len(_land_faults("R_ARRAY_4x0603", narrow)) == 8
    assert "pin 1: 0.20 of 0.30 mm on copper" in _land_faults("R_ARRAY_4x0603", narrow)
    shifted = [(n, x + 0.4, y, w, h) for n, x, y, w, h in pads]
    assert len(_land_faults("R_ARRAY_4x0603", shifted)) == 8


def test_the_12mm_button_has_four_legs_joined_in_pairs_across_the_switch():
    smd, pads = footprints.footprint_pads("BTN_12MM")
    assert not smd and len(pads) == len(footprints.LEADS["BTN_12MM"][1]) == 4
    for num in (1, 2):
        xs = sorted(p[1] for p in pads if p[0] == num)
        ys = {p[2] for p in pads if p[0] == num}
        assert xs[1] - xs[0] == pytest.approx(12.5) and len(ys) == 1  # joined inside the switch
    assert footprints.drill("BTN_12MM") == 1.1  # legs 0.7 x 1.0 mm (TL1100 class)
    boards, _ = design.system(_board())
    for sw in [p for p in boards[0].parts if p.role and p.role[0] == "button"]:
        assert sw.footprint == "BTN_12MM" and [q[0] for q in sw.pins] == [1, 2]


def test_jst_sh_fitting_nails_sit_behind_the_signal_row_as_drawn():
    n = len(design.CHAIN_PINS)
    _smd, pads = footprints.footprint_pads("JST_SH_%d" % n)
    nails = [p for p in pads if p[0] == ""]
    signal = [p for p in pads if p[0] != ""]
    assert len(signal) == n and len(nails) == 2
    assert {abs(p[2] - signal[0][2]) for p in nails} == {3.875}
    assert {abs(p[1]) for p in nails} == {(n - 1) / 2 + 1.3}


def test_boost_pins_follow_the_datasheet_pin_table():
    # TI TPS61023 (SLVSF14), DRL package pin functions
    table = {1: "FB", 2: "EN", 3: "VIN", 4: "GND", 5: "SW", 6: "VOUT"}
    centre = design.system(_board())[0][0]
    boost = [p for p in centre.parts if p.role == ("boost",)][0]
    assert {n: name for n, name, _t, _net in boost.pins} == table
    nets = {name: net for _n, name, _t, net in boost.pins}
    ind = [p for p in centre.parts if p.role == ("boost_l",)][0]
    assert {ind.net_of("1"), ind.net_of("2")} == {nets["VIN"], nets["SW"]}
    top = [p for p in centre.parts if p.role == ("fb_top",)][0]
    assert top.net_of("1") == nets["VOUT"] == design.SUPPLY and top.net_of("2") == nets["FB"]
    assert nets["GND"] == "GND" and nets["EN"] == nets["VIN"]


def test_no_misplugged_cable_shorts_a_supply_or_overdrives_a_pin():
    b = _board()
    boards, cables = design.system(b)
    tried = misplug.misplugs(boards, cables)
    assert len(tried) == len(cables) + len(boards) - 1  # each cable reversed, each strip turned
    assert misplug.report(boards, cables) == {}


def test_rev_a_pinout_and_a_missing_series_resistor_are_caught(monkeypatch):
    b = _board()
    monkeypatch.setattr(
        design, "CHAIN_PINS", ("3V3", "GND", "SCK", "PL", "CE", "Q", "GND", "5V", "LED", "GND")
    )
    boards, cables = design.system(b)
    bad = misplug.report(boards, cables)
    errors = bad["cable centre/J1 - point6/J1 reversed"]
    assert any(e.startswith("supply shorted: 3V3 and GND") for e in errors)
    assert any(
        e.startswith("contention: supply 5V and centre/U1.GPIO18 via centre/R1, 50 mA") for e in errors
    )
    monkeypatch.undo()
    boards, cables = design.system(b)
    for strip in boards[2:4]:  # point 5's and point 4's QH straight onto their IN connectors
        strip.parts.remove([p for p in strip.parts if p.role == ("q_series",)][0])
        u1 = strip.part("U1")
        u1.pins = [(n, name, t, "IN_Q" if net == "U1_QH" else net) for n, name, t, net in u1.pins]
    bad = misplug.report(boards, cables)
    # a reversed cable into either puts the bus's CE (the upstream buffer through 100 ohm,
    # beyond the QH's 25 mA) on its QH; point 5 turned meets point 4's QH with its own (one
    # resistor between them would do)
    assert sorted(bad) == [
        "cable point5/J2 - point4/J1 reversed",
        "cable point6/J2 - point5/J1 reversed",
        "point5 turned end for end (IN into IN, OUT into OUT)",
    ]
    assert any(
        e.startswith("contention: point5/U1.QH and point6/U2.3Y via point6/R7, 33 mA")
        for e in bad[sorted(bad)[1]]
    )
    assert any(e.startswith("contention: point5/U1.QH and point4/U1.QH tied") for e in bad[sorted(bad)[2]])


def test_misplug_rules_catch_a_back_powered_register_and_a_divider_at_its_middle():
    b = _board()
    boards, cables = design.system(b)
    strip = boards[1]
    for p in strip.parts:  # point6's registers lose their supply: driven inputs back-power them
        p.pins = [
            (n, name, t, None if (p.value == "74HC165" and name == "VCC") else net)
            for n, name, t, net in p.pins
        ]
    bad = misplug.check(boards, cables)
    assert any(e.startswith("over voltage: point6/U1 CLK sees 3.3 V, rated 0.5 V") for e in bad), bad
    # the battery divider's middle is half the cell, not the cell
    boards, cables = design.system(b)
    assert misplug.check(boards, cables) == []
    assert misplug.ohms("732k") == 732000 and misplug.ohms("2.2M") == 2.2e6 and misplug.ohms("reed") is None


def test_the_devkits_own_usb_stays_off_the_boards_5v_rail():
    b = _board()
    boards, cables = design.system(b)
    centre = boards[0]
    mcu = [p for p in centre.parts if p.role == ("mcu",)][0]
    diode = [p for p in centre.parts if p.role == ("devkit_feed",)][0]
    assert mcu.net_of("5V") == diode.net_of("K") == "DEVKIT_5V" and diode.net_of("A") == design.SUPPLY
    assert misplug.check(boards, cables) == [] and erc.check(centre) == []
    # rev A: the DevKitC's 5 V pin on the rail, no diode: its USB and the board's supply meet
    centre.parts.remove(diode)
    mcu.pins = [(n, name, t, design.SUPPLY if net == "DEVKIT_5V" else net) for n, name, t, net in mcu.pins]
    source = "boost" if b.get("battery") else "flag"
    other = [p.ref for p in centre.parts if p.role == (source,)][0]
    assert any(
        e.startswith("supply shorted: %s on one net" % design.SUPPLY)
        and "centre/U1" in e
        and "centre/" + other in e
        for e in misplug.check(boards, cables)
    )
    assert any(e.startswith("outputs tied: net %s" % design.SUPPLY) for e in erc.check(centre))


def test_every_line_the_esp32_drives_rests_on_a_pull_through_reset():
    centre = design.system(_board())[0][0]
    assert erc.check_reset(centre) == []
    pulled = {p.net_of("1") for p in centre.parts if p.role and p.role[0].endswith("_pull")}
    assert pulled == {"SCK_Y", "PL_Y", "CE_Y", "LED_GPIO"}
    # rev A: the level shifter's input on GPIO 25 alone
    centre.parts = [p for p in centre.parts if p.role != ("led_pull",)]
    assert erc.check_reset(centre) == ["floats at reset: net LED_GPIO (GPIO25) has no pull resistor"]


def test_usb_vbus_and_every_button_line_have_a_clamp_to_ground():
    b = _board()
    centre = design.system(b)[0][0]
    clamps = {p.pins[0][3]: p for p in centre.parts if p.value in ("SMF5.0A", "PESD5V0S1BA")}
    assert all(p.pins[1][3] == "GND" for p in clamps.values())
    want = {"VBUS"} | {"BTN_" + x["name"] for x in b["buttons"]}
    assert set(clamps) == want
    # the TVS's cathode (pad 1 of its footprint) on VBUS: it conducts only above 5 V
    assert clamps["VBUS"].footprint == "D_SOD-123F" and clamps["VBUS"].pins[0][:2] == (1, "K")
    assert misplug.check(*design.system(b)) == [] and erc.check(centre) == []
