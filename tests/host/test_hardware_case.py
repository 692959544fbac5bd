"""tools/hardware/case.py: the folding case's sizes, where the boards sit, the heights under
the playing surface and the cables across the hinge."""

import copy
import json
from pathlib import Path

from tools.hardware import case, reed

ROOT = Path(__file__).resolve().parents[2]


def _inputs():
    b = json.loads((ROOT / "hardware" / "board.json").read_text())
    s = json.loads((ROOT / "hardware" / "kicad" / "pcb-summary.json").read_text())
    return b, s


def test_every_board_fits_the_tray_strip_under_its_tray():
    b, s = _inputs()
    lay = case.layout(b, s)
    assert case.problems(lay) == []
    assert lay["tray_l"] <= lay["tray_len"] and lay["tray_strip_w"] <= lay["tray_w"]
    # a strip laid out for rev A's single row of checkers on edge (266 x 49.8) is caught
    rev_a = dict(s, tray=dict(s["tray"], size_mm=[266.0, 49.8]))
    assert case.problems(case.layout(b, rev_a)) == [
        "tray strip (266 x 49.8) does not fit under its tray (230.5 x 110.55)"
    ]
    assert 2 * lay["point_l"] <= lay["field_y"] and lay["bar_l"] <= lay["field_y"]
    assert lay["centre_l"] <= lay["field_y"] and lay["centre_w"] <= lay["bar_right"]
    assert lay["tray_len"] <= lay["field_y"] / 2


def test_reeds_touch_the_surface_and_taller_parts_sit_in_reliefs():
    b, s = _inputs()
    m = b["mechanics"]
    lay = case.layout(b, s)
    assert lay["reed_top"] == -m["surface_mm"]
    # the field model's depth: the reed's axis half its glass under the surface
    assert -lay["strip_top"] - m["reed_w_mm"] / 2 == m["surface_mm"] + m["reed_depth_mm"]
    assert reed.magnet_height(m) == m["reed_depth_mm"] + m["surface_mm"] + m["checker_base_mm"] + 1
    assert lay["relief"] == round(case.TALLEST["JST_SH_12"] - m["reed_w_mm"], 2)
    assert lay["surface"] - lay["relief"] >= lay["skin"]
    thin = copy.deepcopy(b)
    thin["mechanics"]["surface_mm"] = 1.5  # a 1.5 mm surface: the relief would leave 0.6 mm
    assert any("relief pockets" in p for p in case.problems(case.layout(thin, s)))


def test_hinge_cables_cover_the_fold_and_a_short_cable_is_caught():
    b, s = _inputs()
    lay = case.layout(b, s)
    names = [n for n, _ in lay["hinge_cables"]]
    assert names == ["point19-point18", "bar0-centre RETURN"]
    assert all(need <= case.CROSSING for _, need in lay["hinge_cables"])
    assert max(need for _, need in lay["hinge_cables"]) > 150  # a 150 mm cable would not do
    wide = dict(lay, hinge_cables=[("x", case.CROSSING + 1)], bar_w=lay["bar_left"] + 1)
    got = case.problems(wide)
    assert any("across the hinge" in p for p in got) and any("bar strip" in p for p in got)
