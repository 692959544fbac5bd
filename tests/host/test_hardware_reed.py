"""tools/hardware/reed.py: the magnet/reed field model behind the reed placement and the tray
scheme, and the figures hardware/README.md gives from it."""

import copy
import json
import math
from pathlib import Path

import pytest

from tools.hardware import reed

ROOT = Path(__file__).resolve().parents[2]


def _board():
    return json.loads((ROOT / "hardware" / "board.json").read_text())


def test_dipole_potential_matches_the_closed_form_on_the_axis():
    m = _board()["mechanics"]
    mom = reed.moment(m)
    # N42 10 x 2 mm: Br V / mu0 = 1.29 T x 157 mm^3 / mu0
    assert mom == pytest.approx(1.29 * math.pi * 25 * 2e-9 / (4e-7 * math.pi), rel=1e-9)
    # on the axis the potential is m / (4 pi z^2); the line integral of H from z to infinity
    z = 7.0
    assert reed.potential((0, 0, 0), (0, 0, 1), mom, (0, 0, z)) == pytest.approx(
        mom / (4 * math.pi * (z * 1e-3) ** 2)
    )
    # a reed centred under the magnet and across its axis sees no difference between its ends
    centred = ((-7.81, 0, 0), (7.81, 0, 0))
    assert reed.mmf([((0, 0, 6), (0, 0, 1), 1)], centred, mom) == pytest.approx(0, abs=1e-9)


def test_a_point_reed_closes_under_its_checker_and_not_under_the_next():
    f = reed.point_figures(_board())
    assert f["own_a"] >= f["close_limit_a"] and f["own_off_axis_a"] >= f["close_limit_a"]
    assert f["neighbour_a"] <= f["open_limit_a"]
    assert f["window_mm"][0] >= 10 and f["window_mm"][1] >= 3  # the checker may slide
    assert f["neighbour_margin"] > 2 and f["close_margin"] > 2


def test_a_magnet_over_the_reeds_middle_is_the_dead_band():
    b = _board()
    b["mechanics"]["reed_offset_mm"] = 0  # the reed centred under the checker: never closes
    f = reed.point_figures(b)
    assert f["own_a"] < f["close_limit_a"]


def test_tray_on_edge_fails_and_flat_staggered_rows_work():
    b = _board()
    edge = reed.tray_figures(b, "edge")
    assert not edge["works"] and edge["neighbour_a"] > 10 * reed.limits(b["mechanics"])[1]
    flat = reed.tray_figures(b, "flat2")
    assert flat["works"] and flat["neighbour_margin"] > 2
    three = reed.tray_figures(b, "flat3")
    assert three["works"] and three["neighbour_margin"] > 1.5
    pitch, row = reed.tray_rows(b["mechanics"])
    d = b["mechanics"]["checker_d_mm"]
    assert math.hypot(pitch, row) >= d and 2 * pitch >= d  # neighbours never overlap
    with pytest.raises(ValueError):
        reed.tray_figures(b, "stacked")


def test_a_weaker_magnet_or_a_deeper_reed_is_caught():
    b = copy.deepcopy(_board())
    b["mechanics"]["surface_mm"] = 12  # a 12 mm playing surface: the reed no longer closes for sure
    assert reed.point_figures(b)["close_margin"] < 1


def test_readme_gives_the_models_figures():
    text = (ROOT / "hardware" / "README.md").read_text()
    f = reed.point_figures(_board())
    t = reed.tray_figures(_board(), "flat3")
    e = reed.tray_figures(_board(), "edge")
    for needle in (
        "| point, checker on its place | %g | %g |" % (f["own_a"], f["neighbour_a"]),
        "closing window -%g / +%g mm" % f["window_mm"],
        "| tray, flat in three staggered rows (%g mm) | %g | %g |"
        % (t["pitch_mm"], t["own_a"], t["neighbour_a"]),
        "| tray, on edge at %g mm (rev A) | %g | %g |" % (e["pitch_mm"], e["own_a"], e["neighbour_a"]),
    ):
        assert needle in text, needle
