"""``gammon board info`` against the running simulator (the real firmware, ``app.main`` on the
MicroPython unix port, its link on a local socket): the battery the page sets (POST
/api/battery, ``hal.sim.Battery``) reaches the host through INFO's battery block -- its charge,
the low warning, and the critical level, where the game is halted but the link still answers."""

import time
from pathlib import Path

import link_scenario as S
from bg import battery, hwdesc
from gammon import link as L
from gammon.commands.board import _battery

from tools.sim import server

ROOT = Path(__file__).resolve().parents[2]


def _pair(sim, address):
    S.pair_with_buttons(sim, address, "battery-test")


def _wait_poll(board, n=1):
    time.sleep(n * board.battery["poll_s"] + 0.7)


def test_board_info_reports_the_simulated_battery_low_and_critical(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    board = hwdesc.load(str(ROOT / "hardware" / "board.json"))
    port = S.free_port()
    sim = server.Sim(image=str(tmp_path / "flash.lfs"), settings={"length": 1}, seed="bat", link_port=port)
    sim.start()
    address = "tcp:127.0.0.1:%d" % port
    try:
        deadline = time.monotonic() + 10
        while not any("link: listening" in x for x in sim.log) and time.monotonic() < deadline:
            time.sleep(0.05)
        _pair(sim, address)
        with L.connect(address) as c:
            pct = battery.percent(4000, board.battery_mv, board.battery_pct)  # the model's start
            assert _battery(c).startswith("%d %% (4.00 V)" % pct)
        sim.battery(board.battery["low_mv"] - 50)
        _wait_poll(board)
        with L.connect(address) as c:
            line = _battery(c)
            assert "low" in line and "critical" not in line, line
        sim.battery(board.battery["critical_mv"] - 50)
        _wait_poll(board, 2)  # two readings under the critical level
        with L.connect(address) as c:  # halted: the game, not the link
            line = _battery(c)
            assert "critical" in line and "halted" in line, line
        assert any("battery critical: journal closed" in x for x in sim.log), sim.log[-10:]
    finally:
        sim.stop()
