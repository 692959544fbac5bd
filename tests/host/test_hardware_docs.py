"""hardware/: the generated SVG and power budget are current, the BOM agrees with board.json."""

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HW = ROOT / "hardware"


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / (name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _board():
    return json.loads((HW / "board.json").read_text())


def test_wiring_svg_is_generated_from_board_json():
    svg = _tool("wiring_svg").render(_board())
    assert (HW / "wiring.svg").read_text() == svg, "run tools/wiring_svg.py"
    assert _tool("wiring_svg").render(_board()) == svg  # deterministic


def test_wiring_svg_shows_every_register_and_led():
    b = _board()
    svg = (HW / "wiring.svg").read_text()
    for r in range(len(b["sensors"]["registers"])):
        assert ">U%d  74HC165  #%d<" % (r + 1, r) in svg
    assert svg.count('class="led"') == len(b["leds"]["chain"])
    for k in ("sck", "miso", "pl", "ce", "led_data"):
        assert "GPIO%d " % b["pins"][k] in svg


def test_wiring_svg_follows_a_changed_board():
    b = _board()
    b["sensors"]["slots_per_point"] = 7
    assert "slots 0-6 on A-G" in _tool("wiring_svg").render(b)


def _ngspice():
    import os
    import shutil

    if shutil.which("ngspice") is None:
        if os.environ.get("GAMMON_REQUIRE_NGSPICE"):
            pytest.fail("ngspice is required here and missing (apt-get install ngspice)")
        pytest.skip("ngspice is missing (apt-get install ngspice)")


def test_power_md_is_generated_and_fits_usb():
    _ngspice()
    pb = _tool("power_budget")
    text = pb.render(_board(), pb.droop_figures(_board()))
    assert (HW / "power.md").read_text() == text, "run tools/power_budget.py"
    assert "Verdict: the board fits a 500 mA USB port" in text
    total = int(re.search(r"\*\*total\*\* \| \*\*(\d+)\*\*", text).group(1))
    assert total <= _board()["power"]["supply_ma"]


def test_power_budget_notices_an_overload():
    b = _board()
    b["leds"]["budget_ma"] = 450
    assert "DOES NOT FIT" in _tool("power_budget").render(b)


def _bom_rows():
    rows = {}
    for line in (HW / "bom.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.fullmatch(r"[A-Z0-9-]+", cells[0]) and cells[3].isdigit():
            rows[cells[0]] = (int(cells[3]), float(cells[4]), float(cells[5]))
    return rows


def test_bom_quantities_match_board_json():
    b = _board()
    s = b["sensors"]
    rows = _bom_rows()
    assert rows["REED"][0] == 24 * s["slots_per_point"] + 2 * s["bar_slots"] + 2 * s["tray_slots"]
    assert rows["SR"][0] == len(s["registers"])
    assert rows["RN"][0] == 2 * len(s["registers"])  # two arrays of four per register
    assert rows["LED"][0] == len(b["leds"]["chain"])
    assert rows["BTN"][0] == len(b["buttons"])
    assert rows["MAG"][0] == 2 * b["power"]["checkers_per_side"]
    # one per register, one per LED, one per strip's bus buffer, one at the LED data level
    # shifter, one at the battery's ADC pin
    strips = {(r["kind"], 0 if r["kind"] == "bar" else r["index"]) for r in s["registers"]}
    assert rows["BUF"][0] == len(strips)
    assert rows["C100N"][0] == len(s["registers"]) + len(b["leds"]["chain"]) + len(strips) + 1 + (
        "battery" in b
    )


def test_bom_totals_add_up():
    rows = _bom_rows()
    for k, (qty, unit, total) in rows.items():
        assert abs(qty * unit - total) < 0.006, k
    grand = sum(t for _, _, t in rows.values())
    stated = int(re.search(r"Approximate total: \*\*(\d+) EUR", (HW / "bom.md").read_text()).group(1))
    assert abs(grand - stated) <= 0.05 * stated


def test_readme_documents_the_bit_rule_the_loader_uses():
    text = (HW / "README.md").read_text()
    assert "closed(kind, index, slot) == not (chain[r] >> s) & 1" in text
    assert "8 * r + s" in text


def _play_hours(text):
    rows = re.findall(
        r"^\| (typical play|worst case|idle mode)[^|]*\| (\d+) \| (\d+) \| \*\*([\d.]+) h\*\* \|$", text, re.M
    )
    return {k: (int(rail), int(cell), float(h)) for k, rail, cell, h in rows}


def test_power_md_gives_play_time_per_charge_from_board_json():
    b = _board()
    text = _tool("power_budget").render(b)
    hours = _play_hours(text)
    assert set(hours) == {"typical play", "worst case", "idle mode"}
    assert hours["worst case"][2] < hours["typical play"][2] < hours["idle mode"][2]
    bat = b["battery"]
    for rail, cell, h in hours.values():
        # the formula power.md states: I_cell = I_rail x V_rail / (V_cell x efficiency)
        want = rail * b["power"]["supply_v"] / (bat["nominal_mv"] / 1000 * bat["boost_efficiency"])
        assert abs(cell - want) <= 2
        assert abs(h - bat["capacity_mah"] * bat["usable_fraction"] / cell) <= 0.1
    assert "ESP32 Series Datasheet" in text and "Brown-out margin" in text
    # a bigger cell, a brighter idle: the figures follow board.json, nothing is typed in
    b["battery"]["capacity_mah"] *= 2
    b["idle"]["leds_level"] = 255
    again = _play_hours(_tool("power_budget").render(b))
    assert abs(again["worst case"][2] - 2 * hours["worst case"][2]) <= 0.1
    assert again["idle mode"][0] > hours["idle mode"][0]


def test_power_md_without_battery_has_no_battery_section():
    b = _board()
    del b["battery"]
    assert "## Battery" not in _tool("power_budget").render(b)


def test_wiring_svg_shows_the_battery_option():
    b = _board()
    svg = _tool("wiring_svg").render(b)
    assert "GPIO%d battery (ADC1)" % b["battery"]["adc_pin"] in svg and b["battery"]["charger"] in svg
    del b["battery"]
    assert "battery (ADC1)" not in _tool("wiring_svg").render(b)
