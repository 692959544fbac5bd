"""``make bench`` run whole at its smallest (``GAMMON_BENCH_SMOKE=1``, tools/bench/__init__.py):
every area runs through ``python -m tools.bench`` as ``make bench`` runs it, and each area's
JSON must hold its figures, each a number above zero, and no error. An area broken by a move
elsewhere (a function it calls renamed, a generator that lost a method, a figure no longer
printed) fails here, not at the next ``make bench``. The figures themselves are not checked
against budgets: a smoke run measures nothing (two areas at a time, a few positions each).

It lives with the club's tests for their PostgreSQL cluster (``pg``, started once per run):
the ``club`` and ``remote`` areas each take a database of their own on it."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tools.bench import __main__ as bench

ROOT = Path(__file__).resolve().parents[2]

# area -> the figures that must be numbers above zero ("a/b": key b of the dict under key a;
# "a/0/b": key b of the first item of the list under a)
FIGURES = {
    "calib": ("esp32_slowdown", "unix_scores/bm_chaos", "ratios/bm_chaos"),
    "club": (
        "runs/0/events_pushed",
        "runs/0/events_delivered",
        "runs/0/spectators_connected",
        "runs/0/latency_ms_p99",
        "saturation/0/events_delivered",
    ),
    "device": (
        "positions",
        "visit_us_per_position",
        "visit_plays",
        "worst_recognize_us",
        "worst_hints_us",
        "scan_us",
        "led_frame_us",
        "dice_roll_us",
        "journal_append_us",
        "x25519_ms",
        "gc_collect_us",
        "heap_free",
    ),
    "dice": (
        "micropython_rolls_per_s",
        "micropython_heap_bytes_per_roll",
        "micropython_module_ram_bytes/bg.dice",
        "micropython_heap_free_after_bytes",
        "cpython_rolls_per_s",
        "cpython_verify_throws_per_s",
    ),
    "engine": (
        "positions",
        "cpython_plays_us_per_position",
        "cpython_pure_plays_us_per_position",
        "cpython_plays_total",
        "worst_position_plays",
        "micropython_plays_us_per_position",
        "micropython_for_each_end_us_per_position",
        "micropython_bytecode_plays_us_per_position",
        "worst_mpy_recognizer_update_us",
        "worst_mpy_for_each_end_visits",
        "worst_mpy_recognition_plus_hints_us",
        "engine_tests_min_heap_kib",
        "engine_tests_min_heap_precompiled_kib",
    ),
    "heapmargin": ("step_k",),
    "journal": (
        "random_legal/games",
        "random_legal/packed_bytes_per_game_mean",
        "match_overhead_bytes",
        "cube_double_take_bytes",
        "cpython_append_mean_us",
        "mpy_append_mean_us",
        "mpy_boot_replay_400_turns_us",
        "mpy_block_writes_per_append",
        "mpy_heap_free_after_bytes",
        "mpy_game_end_with_compaction_mean_us",
        "mpy_boot_replay_packed_match_us",
        "mpy_packed_match_file_bytes",
        "mpy_games_packed",
    ),
    "link": (
        "games",
        "record_bytes_per_game",
        "transfer_100_games_s",
        "air_bytes_per_game",
        "connection_events",
        "goodput_bytes_per_s",
        "esp32_ratio",
        "board_frame_cpu_unix_ms",
        "board_frame_cpu_esp32_est_ms",
    ),
    "opponent": (
        "unix_port_64bit/computer_moves",
        "unix_port_64bit/move_worst_ms",
        "unix_port_64bit/heap_last_game_end_bytes",
        "board_model_32bit_64k/computer_moves",
        "board_model_32bit_64k/move_worst_ms",
        "computer_vs_computer_board_model_64k/games",
        "computer_vs_computer_board_model_64k/heap_after_game_100_bytes",
        "esp32_ratio",
        "esp32_estimate_ms/move_worst_ms",
    ),
    "pair": (
        "unix_port_64bit/x25519_ms",
        "unix_port_64bit/board_pairing_ms",
        "board_model_32bit_64k/x25519_ms",
        "board_model_32bit_64k/board_pairing_ms",
        "esp32_ratio",
        "esp32_estimate_ms/x25519_ms",
    ),
    "pubeval": (
        "cpython_moves",
        "cpython_move_us_worst",
        "unix_port_moves",
        "unix_port_move_us_worst",
        "board_model_moves",
        "board_model_move_us_worst",
        "board_model_worst_position_us",
        "board_model_free_bytes_after_games",
    ),
    "remote": ("plays", "median_s", "p90_s", "max_s", "match_s"),
    "resting": (
        "board_model_32bit/booted/0",
        "board_model_32bit/paired/0",
        "board_model_32bit/logged_in/0",
        "board_model_32bit/playing/0",
        "board_model_32bit/after_logout/0",
        "board_model_32bit/whole_product_bytes",
        # the collector every 4 kB (App.boot's gc.threshold): without it none runs in the turns
        "collector_board_model_32bit/collections",
        "collector_board_model_32bit/collect_us_median",
    ),
    "sensing": ("scan_quiet_us", "scan_change_us", "changes_timed", "led_compose_us", "selftest_us"),
    "sim": (
        "latency_median_ms",
        "latency_max_ms",
        "board_model_smallest_heapsize_kb",
        "board_model_module_objects_bytes",
        "board_model_games_100_completed",
        "board_model_heap_after_game_bytes/0",
        "board_model_free_bytes_min_at_64k",
        "smallest_working_heap_kb_rom",
        "rom_image_bytes",
        "rom_module_objects_bytes",
        "unit_bytes_per_function",
        "match_module_objects_estimated_bytes",
        "smallest_heapsize_kb_code_in_heap",
        "code_in_heap_bytes",
        "games_100_completed",
        "working_heap_after_game_bytes/0",
    ),
    "slots": (
        "study_games",
        "study_turns_with_a_play",
        "slots_6_max_candidates",
        "recognize_cpython_worst_11_complete_us",
        "recognize_micropython_worst_11_complete_us",
    ),
    "stall": (
        "positions",
        "esp32_ratio",
        "slice_us_here",
        "longest_hold_us",
        "hold_p99_us",
        "unsliced_longest_hold_us",
        "esp32_estimate_longest_hold_ms",
        "change_to_led_ms_median",
        "change_to_led_samples",
    ),
    "update": (
        "bundle_bytes",
        "bundle_files",
        "chunks",
        "board_model_signature_ms",
        "board_model_receive_ms",
        "esp32_cpu_estimate_s",
        "esp32_slowdown_model",
        "ble_update_s",
        "serial_update_s",
        "board_model_heap_need_bytes",
    ),
    "watchdog": ("supervisor_heap_bytes", "crashlog_heap_bytes", "round_us", "beat_us"),
}

# the areas whose every row must pass (heapmargin: each module and place has a smallest heap)
ROWS = {"heapmargin": ("rom64", "board_model", "board_model_ctl", "ctl64")}


def figure(data, path):
    """The value at ``path`` ("a/b/0/c") in an area's JSON; KeyError naming the path."""
    v = data
    for part in path.split("/"):
        if isinstance(v, list) and part.isdigit() and int(part) < len(v):
            v = v[int(part)]
        elif isinstance(v, dict) and part in v:
            v = v[part]
        else:
            raise KeyError(path)
    return v


def problems(area, data):
    """What is wrong with an area's JSON: missing figures, figures not above zero, an error."""
    out = []
    for path in FIGURES[area]:
        try:
            v = figure(data, path)
        except KeyError:
            out.append("%s: no %s" % (area, path))
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            out.append("%s: %s = %r, not a number above zero" % (area, path, v))
    for place in ROWS.get(area, ()):
        rows = data.get(place) or {}
        if not rows:
            out.append("%s: no %s rows" % (area, place))
        for name, row in rows.items():
            if not isinstance(row.get("smallest_k"), int) or row["smallest_k"] <= 0:
                out.append("%s: %s %s passed at no heap: %r" % (area, place, name, row))
    text = json.dumps(data)
    for bad in ("Traceback", "Error:", "not found", "not installed", "failed"):
        if bad in text:
            out.append("%s: %r in its JSON" % (area, bad))
    return out


def test_every_area_is_checked():
    assert set(FIGURES) == set(bench.areas())


def test_the_checks_catch_a_broken_area():
    good = {"esp32_slowdown": 83.1, "unix_scores": {"bm_chaos": 1.0}, "ratios": {"bm_chaos": 2.0}}
    assert problems("calib", good) == []
    assert problems("calib", {**good, "esp32_slowdown": 0}) != []
    assert problems("calib", {**good, "esp32_slowdown": None}) != []
    assert problems("calib", {k: v for k, v in good.items() if k != "esp32_slowdown"}) != []
    assert problems("calib", {**good, "note": "micropython not found"}) != []
    dice = {"micropython_module_ram_bytes": {"bg.dice": 6432}}
    assert figure(dice, "micropython_module_ram_bytes/bg.dice") == 6432
    row = {"declared_k": 64, "smallest_k": None, "margin_k": None, "window_failures_k": []}
    assert any("no heap" in p for p in problems("heapmargin", {"step_k": 2, "rom64": {"m": row}}))


def test_every_area_runs_at_its_smallest(pg, tmp_path):
    env = dict(os.environ, GAMMON_BENCH_SMOKE="1", GAMMON_BENCH_PG=pg.folder)
    proc = subprocess.run(
        [sys.executable, "-m", "tools.bench", "--jobs", "2", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["failed"] == [], "areas failed: %s\n%s" % (report["failed"], proc.stderr[-3000:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(report["areas"]) == bench.areas()
    found = [p for area, data in sorted(report["areas"].items()) for p in problems(area, data)]
    assert found == [], "\n".join(found)
