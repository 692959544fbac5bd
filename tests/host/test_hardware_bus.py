"""The chain's bus and the LED supply, measured in ngspice before ordering: rev B has exactly
one threshold crossing per edge at every register (rev A does not), the LED supply droops at
most 0.25 V at the firmware's budget, and hardware/README.md tells the figures. Needs Debian's
``ngspice``: skipped where it is missing, except with GAMMON_REQUIRE_NGSPICE (.ci/run)."""

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from tools.hardware import bus, design, droop, footprints

ROOT = Path(__file__).resolve().parents[2]


def _board():
    return json.loads((ROOT / "hardware" / "board.json").read_text())


@pytest.fixture(scope="module")
def sim():
    if shutil.which(bus.NGSPICE) is None:
        if os.environ.get("GAMMON_REQUIRE_NGSPICE"):
            pytest.fail("ngspice is required here and missing (apt-get install ngspice)")
        pytest.skip("ngspice is missing (apt-get install ngspice)")
    b = _board()
    return b, bus.run(b, b["spi"]["baudrate"])


def test_the_crossing_counter_sees_a_ring_and_a_missed_edge():
    period = 1e-6
    t = np.linspace(0, period + 10e-9, 20001)
    up, down = np.clip((t - 5e-9) / 2e-9, 0, 1), np.clip((t - 5e-9 - period / 2) / 2e-9, 0, 1)
    clean = (up - down) * 3.3  # the drivers' edges: up at 5 ns, down half a period later
    assert bus.crossings(t, clean, bus.HC_BAND, period) == (1, 1, 1)
    ring = clean + np.where((t > 10e-9) & (t < 40e-9), -1.6 * np.sin((t - 10e-9) * 2e8) ** 2, 0)
    assert bus.crossings(t, ring, bus.HC_BAND, period)[0] >= 3
    weak = clean * 0.6  # tops out at 2.0 V: never a sure high
    assert bus.crossings(t, weak, bus.HC_BAND, period)[2] == 0


def test_rev_b_crosses_once_per_edge_at_every_register_and_rev_a_does_not(sim):
    b, result = sim
    boards, _ = design.system(b)
    registers = sum(1 for x in boards for p in x.parts if p.value == "74HC165")
    buffers = sum(1 for x in boards for p in x.parts if p.value == design.BUS_BUFFER)
    rev_b = result["rev B"]
    assert len(rev_b) == registers + buffers
    assert all(v[:3] == [1, 1, 1] for v in rev_b.values()), rev_b
    rev_a = result["rev A"]
    assert len(rev_a) == registers
    assert max(max(v[0], v[1]) for v in rev_a.values()) > 1  # double clocking without the buffers
    # the bus delay to the farthest register stays inside half a clock period
    total_ns = sum(v[3] for k, v in rev_b.items() if k.endswith("/buffer")) + buffers * bus.LVC_TPD_NS
    assert total_ns < 0.5e9 / b["spi"]["baudrate"]


def _readme_bus_table():
    text = (ROOT / "hardware" / "README.md").read_text()
    block = text.split("<!-- bus figures:")[1].split("\n\n")[0]
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in block.splitlines()[1:]]
    return rows


def test_readme_tells_the_simulated_bus_figures(sim):
    b, result = sim
    s = bus.summary(result)
    rows = _readme_bus_table()
    assert rows[0][0] == "at %d Hz" % b["spi"]["baudrate"]
    want = {
        "inputs simulated": "inputs",
        "inputs with exactly one": "inputs_with_one_crossing",
        "most crossings": "max_crossings_per_edge",
        "latest 50 %": "latest_50pct_ns",
    }
    seen = 0
    for row in rows[2:]:
        key = [v for k, v in want.items() if row[0].startswith(k)]
        if key:
            seen += 1
            assert row[1:] == ["%g" % s["rev A"][key[0]], "%g" % s["rev B"][key[0]]], row
    assert seen == len(want)


def test_led_supply_droops_at_most_a_quarter_volt_at_the_budget(sim):
    b, _ = sim
    rev_b = droop.figures(b, footprints.POWER_TRACK["5V"])
    rev_a = droop.figures(b, droop.REV_A_TRACK)
    assert rev_b["budget"]["ma_total"] == b["leds"]["budget_ma"]
    assert rev_b["budget"]["droop_v"] <= droop.LIMIT_V < rev_b["full"]["droop_v"]
    assert rev_a["budget"]["droop_v"] > rev_b["budget"]["droop_v"]
    power = (ROOT / "hardware" / "power.md").read_text()
    row = [ln for ln in power.splitlines() if ln.startswith("| the budget, all on the strip LEDs |")][0]
    assert "| %.2f V | %.2f V |" % (rev_a["budget"]["droop_v"], rev_b["budget"]["droop_v"]) in row


def test_the_droop_model_sees_a_cut_return_feed(sim, monkeypatch):
    b, _ = sim
    ring = droop.solve(b, 1.0, 10.0)
    lines, leds = droop.netlist(b, 1.0, 10.0)
    # the same ring with the RETURN connector's feed cut: the far strips droop more
    cut = [ln for ln in lines if not re.match(r"R\d+ c5 j2_5 ", ln)]
    assert len(cut) == len(lines) - 1
    monkeypatch.setattr(droop, "netlist", lambda *a: (cut, leds))
    one_end = droop.solve(b, 1.0, 10.0)
    assert max(5 - v for v in one_end.values()) > 1.5 * max(5 - v for v in ring.values())
