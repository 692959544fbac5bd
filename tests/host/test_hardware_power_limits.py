"""Rev B's power additions, checked over the generated design, its BOM and (the current limit)
ngspice: the LED rail behind a current-limited switch whose ISET resistor puts the limit
between the rail's need at the firmware's budget and what the fuse leaves it; the battery
option's on/off switch, the charger's TS resistor and its CHG / PGOOD outputs on ESP32 inputs
that the HAL reads."""

import csv
import json
from pathlib import Path

import pytest

from tools.hardware import design, erc, footprints, ledlimit, misplug, parts

ROOT = Path(__file__).resolve().parents[2]

KICAD = ROOT / "hardware" / "kicad"


def _board():
    return json.loads((ROOT / "hardware" / "board.json").read_text())


def _centre(b=None):
    return design.system(b or _board())[0][0]


def _role(board, role):
    return [p for p in board.parts if p.role == role][0]


def _ngspice():
    import os
    import shutil

    if shutil.which("ngspice") is None:
        if os.environ.get("GAMMON_REQUIRE_NGSPICE"):
            pytest.fail("ngspice is required here and missing (apt-get install ngspice)")
        pytest.skip("ngspice is missing (apt-get install ngspice)")


def test_every_led_and_the_chain_cables_take_5v_through_the_limiting_switch_only():
    b = _board()
    boards, cables = design.system(b)
    centre = boards[0]
    sw = _role(centre, ("led_switch",))
    assert sw.value == "SY6280AAC" and sw.footprint == "SOT-23-5"
    assert [(n, name, net) for n, name, _t, net in sw.pins] == [
        (1, "OUT", "5V"),
        (2, "GND", "GND"),
        (3, "ISET", "LED_ISET"),
        (4, "EN", design.SUPPLY),
        (5, "IN", design.SUPPLY),
    ]
    nets = centre.nets()
    # the only source on the centre's LED rail is the switch; the supply side feeds the DevKitC
    sources = [(r, name) for r, _n, name, t in nets["5V"] if t == "pwr_out"]
    assert sources == [(sw.ref, "OUT")]
    on_rail = {centre.part(r).value for r, _n, _name, _t in nets["5V"]}
    assert {"WS2812B", "74AHCT1G125", "chain CHAIN", "chain RETURN", "1000u"} <= on_rail
    supply = {centre.part(r).role[0] for r, _n, _name, _t in nets[design.SUPPLY]}
    assert {"devkit_feed", "boost", "led_switch"} <= supply and "bulk" not in supply
    # ISET: one resistor to GND
    iset = [centre.part(r) for r, _n, _name, _t in nets["LED_ISET"] if r != sw.ref]
    assert [(p.value, p.net_of("2")) for p in iset] == [(design.LED_ISET, "GND")]
    assert erc.check(centre) == [] and misplug.check(boards, cables) == []


def test_bom_orders_the_switch_and_its_limit_resistor_by_lcsc_number():
    with open(KICAD / "centre" / "fab" / "centre-bom-jlcpcb.csv") as f:
        rows = {r[0]: r for r in csv.reader(f)}
    centre = _centre()
    sw, r = _role(centre, ("led_switch",)), _role(centre, ("led_iset",))
    assert parts.ORDER["SY6280AAC"][:2] == ("Silergy SY6280AAC", "C55136")
    assert parts.ORDER["15k"][:2] == ("UNI-ROYAL 0603WAF1502T5E", "C22809")
    assert rows["Silergy SY6280AAC"][3] == "C55136" and sw.ref in rows["Silergy SY6280AAC"][1].split(",")
    assert rows["UNI-ROYAL 0603WAF1502T5E"][3] == "C22809"
    assert rows["UNI-ROYAL 0603WAF1502T5E"][1].split(",") == [r.ref]


def test_ngspice_the_limit_sits_between_the_budget_and_what_the_fuse_leaves():
    _ngspice()
    b = _board()
    fig = ledlimit.figures(b)
    assert ledlimit.check(fig) == []
    assert fig["rset_ohm"] == 15000 and fig["limit_ma"] == pytest.approx(453.3, abs=0.1)
    assert fig["loads_ma"] == {"budget": 302.0, "runaway": 3172.0}
    assert fig["ceiling_ma"] == pytest.approx(607.4, abs=0.1)
    for corner, lim in (("low", 340.0), ("nominal", 453.3), ("high", 566.7)):
        c = fig["corners"][corner]
        assert c["budget"][1] >= 4.9  # not limiting: the rail stays up at the budget
        # a runaway frame (3.1 A asked) and a short both stop at the limit
        assert c["runaway"][0] == pytest.approx(lim, abs=0.5) and c["runaway"][1] < 1.0
        assert c["short"][0] == pytest.approx(lim, abs=0.5)


@pytest.mark.parametrize(
    "value, why",
    [
        ("10k", "a runaway frame or a short draws 850 mA: above the 607 mA the fuse leaves the LEDs"),
        ("22k", "the lowest limit gives"),
        ("150k", "the lowest limit gives"),
    ],
)
def test_ngspice_a_wrong_iset_resistor_in_the_design_is_caught(monkeypatch, value, why):
    _ngspice()
    monkeypatch.setattr(design, "LED_ISET", value)  # the value the design puts on ISET
    fig = ledlimit.figures(_board())
    assert fig["rset_ohm"] == misplug.ohms(value)
    errors = ledlimit.check(fig)
    assert len(errors) == 1 and errors[0].startswith(why), errors


def test_charger_status_outputs_reach_esp32_inputs_that_are_no_strapping_pins():
    b = _board()
    bat = b["battery"]
    centre = _centre(b)
    nets = centre.nets()
    for key, net, pin in (("chg_pin", "CHG_N", "~CHG"), ("pgood_pin", "PGOOD_N", "~PGOOD")):
        gpio = bat[key]
        assert gpio not in design.STRAPPING + design.FLASH_PINS and gpio != bat["adc_pin"]
        on = {(centre.part(r).role[0], name, t) for r, _n, name, t in nets[net]}
        pullup = (key[:-4] + "_pullup", "1", "passive")
        assert on == {("mcu", "GPIO%d" % gpio, "in"), ("charger", pin, "out"), pullup}
        pull = _role(centre, (key[:-4] + "_pullup",))
        assert pull.value == "100k" and pull.net_of("2") == "3V3"  # the ESP32's rail, not 5 V
    assert erc.check(centre) == [] and erc.check_reset(centre) == []
    # a strapping pin is refused
    for gpio in (0, 2, 12, 15, 8):
        bad = _board()
        bad["battery"]["chg_pin"] = gpio
        with pytest.raises(ValueError, match="strapping or flash"):
            design.system(bad)


def test_ts_has_the_datasheets_fixed_10k_and_the_switch_drives_sysoff():
    centre = _centre()
    nets = centre.nets()
    ts = {(centre.part(r).value, name) for r, _n, name, _t in nets["TS"]}
    assert ts == {("BQ24074", "TS"), ("10k", "1")}
    assert _role(centre, ("ts",)).net_of("2") == "GND"
    cell = _role(centre, ("battery",))
    assert cell.footprint == "JST_PH_2" and [p[3] for p in cell.pins] == ["BAT", "GND"]
    sw = _role(centre, ("power_switch",))
    assert [p[3] for p in sw.pins] == ["GND", "SYSOFF", "BAT"]  # ON: SYSOFF low; OFF: high
    assert {(centre.part(r).value, name) for r, _n, name, _t in nets["SYSOFF"]} == {
        ("BQ24074", "SYSOFF"),
        ("power on/off", "2"),
    }
    # its land: KiCad's SW_Slide_1P2T_CK_OS102011MS2Q, contacts 2 mm apart, mounting legs
    smd, pads = footprints.footprint_pads(sw.footprint)
    assert not smd and [(p[0], p[1]) for p in pads] == [(1, -2.0), (2, 0.0), (3, 2.0), ("", -4.1), ("", 4.1)]
    assert footprints.drill(sw.footprint, "1") == 0.8 and footprints.drill(sw.footprint, "") == 1.5
    # rev A: SYSOFF tied low, no way to turn the cell off
    assert "SW_SLIDE_SPDT" in (KICAD / "centre" / "centre.kicad_pcb").read_text()


def test_boost_inductor_carries_the_worst_peak_and_a_small_one_is_caught():
    from tools.hardware import boost

    b = _board()
    fig = boost.figures(b)
    # the part the BOM orders is the part checked
    assert parts.ORDER["1u"][0].startswith(boost.INDUCTOR["mpn"]) and parts.ORDER["1u"][1]
    assert _role(_centre(b), ("boost_l",)).footprint == "L_XFL4020"
    # the worst load: the LED switch at the top of its spread plus the rest of the board
    assert 700 < fig["load_ma"] < 750 and fig["vin_v"] == b["battery"]["cutoff_mv"] / 1000.0
    assert fig["peak_a"] > fig["input_a"] > 1.5
    assert boost.check(fig) == [] and fig["isat_a"] - fig["peak_a"] > 2.0
    # a 1 uH part of 3 A (a 2.5 x 2 mm chip inductor's class) saturates at this load
    small = dict(boost.INDUCTOR, mpn="small", isat_a=3.0)
    errors = boost.check(boost.figures(b, small))
    assert len(errors) == 1 and "above its 3.0 A saturation current" in errors[0], errors
    # a lower cut-off (a deeper discharge) raises the peak: the check follows board.json
    deeper = _board()
    deeper["battery"]["cutoff_mv"] = 2500
    assert boost.figures(deeper)["peak_a"] > fig["peak_a"]
