"""``gammon board info`` shows the battery (INFO's battery block, bg.link.info): its charge,
voltage and state; a board without battery says so; an older board (no block) is "not
reported", not an error; a cut reply is a one-line error, never read past its end."""

import argparse

import pytest
from bg import battery as bgbattery
from bg.link import info as I
from gammon import link as L
from gammon.cli import UserError
from gammon.commands import board as cmd


class _Transport:
    def close(self):
        pass


def _client(payload):
    c = L.Client(_Transport())
    c.call = lambda ftype, p=b"", timeout=None: payload  # the board's INFO reply
    c.list_games = lambda: []
    return c


def _info(battery, name="Kitchen"):
    return I.encode(1, 512, 1, b"BOARD042", name, "1.0", battery)


def _show(payload, monkeypatch, capsys):
    monkeypatch.setattr(cmd, "open_board", lambda args: _client(payload))
    cmd.cmd_board(argparse.Namespace(action="info", value=None, board=None))
    return capsys.readouterr().out


def test_board_info_shows_charge_voltage_and_state(monkeypatch, capsys):
    out = _show(_info((3712, 31, bgbattery.F_BATTERY | bgbattery.F_LOW)), monkeypatch, capsys)
    line = [ln for ln in out.splitlines() if ln.startswith("battery")]
    assert line and "31 %" in line[0] and "3.71 V" in line[0] and "low" in line[0]
    assert "name            Kitchen" in out  # the fields before it as before


def test_critical_and_idle_are_said_in_words(monkeypatch, capsys):
    out = _show(
        _info((3340, 1, bgbattery.F_BATTERY | bgbattery.F_CRITICAL | bgbattery.F_IDLE)), monkeypatch, capsys
    )
    line = [ln for ln in out.splitlines() if ln.startswith("battery")][0]
    assert "critical" in line and "halted" in line and "idle" in line


def test_no_battery_and_an_older_board(monkeypatch, capsys):
    out = _show(_info((0, bgbattery.NO_BATTERY, 0)), monkeypatch, capsys)
    assert [ln for ln in out.splitlines() if ln.startswith("battery")][0].endswith("none (USB power)")
    out = _show(_info(None), monkeypatch, capsys)
    assert [ln for ln in out.splitlines() if ln.startswith("battery")][0].endswith("not reported")


def test_a_cut_info_reply_is_a_one_line_error(monkeypatch, capsys):
    p = _info((3900, 60, bgbattery.F_BATTERY))
    full = _client(p)
    cut = _client(p[:16])  # the name announced, then cut
    cut.info = full.info  # the fields before the block, as the client reads them
    monkeypatch.setattr(cmd, "open_board", lambda args: cut)
    with pytest.raises(UserError) as e:
        cmd.cmd_board(argparse.Namespace(action="info", value=None, board=None))
    assert "INFO" in str(e.value) and "\n" not in str(e.value)
