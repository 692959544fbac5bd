"""tools/bench/device.py: the board's output is untrusted text over a serial line; a run that
broke half-way (a traceback, a lost line, a reset) must give a clear error, never a report with
missing or made-up figures."""

import pytest

from tools.bench import device as bench_device


def _full():
    lines = []
    for name, kind in bench_device.FIELDS:
        lines.append("R %s %s" % (name, "esp32" if kind is str else "12.5" if kind is float else "7"))
    return "\n".join(lines + ["R done 1"]) + "\n"


def test_parse_reads_every_figure_with_its_type():
    res = bench_device.parse("MicroPython v1.25\r\n" + _full().replace("\n", "\r\n"))
    assert res["platform"] == "esp32"
    assert res["visit_us_per_position"] == 12.5
    assert res["positions"] == 7 and isinstance(res["positions"], int)
    assert list(res) == [n for n, _ in bench_device.FIELDS]


def test_parse_refuses_a_run_that_did_not_finish():
    text = _full().replace("R done 1\n", "Traceback (most recent call last):\nMemoryError:\n")
    with pytest.raises(ValueError, match="(?s)did not finish.*MemoryError"):
        bench_device.parse(text)


def test_parse_refuses_a_lost_figure():
    text = _full().replace("R scan_us 12.5\n", "")
    with pytest.raises(ValueError, match="no scan_us"):
        bench_device.parse(text)


def test_parse_refuses_a_garbled_number():
    text = _full().replace("R x25519_ms 12.5", "R x25519_ms 1\x002.5")
    with pytest.raises(ValueError, match="bad x25519_ms"):
        bench_device.parse(text)


def test_script_runs_on_the_unix_port_and_allocates_nothing_in_the_hot_paths(tmp_path):
    res = bench_device.run_local(tmp_path)
    assert res["positions"] == 2000
    assert res["worst_state"] == 3  # the worst position's play recognised as COMPLETE
    assert res["visit_alloc"] == 0 and res["scan_alloc"] == 0 and res["led_frame_alloc"] == 0
    assert res["gc_held"] >= 40000 and res["gc_collect_us"] > 0  # a collection timed, not skipped
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["board.json", bench_device.POS_FILE])
