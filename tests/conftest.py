"""pytest set-up: the portable core and the CPython shim on the path, and a summary line
for the MicroPython half of the suite. The other import paths are pytest.ini's."""

import os

import tools

# tools: bg and the micropython shim (gammon._paths), GAMMON_ENGINE_PATH's build ahead of them
# The commands talk to the board directly here: these tests check the board's own side, and a
# hub (gammon.hub) kept its only connection after a command, so the next direct connection of
# the same test would find it busy. tests/host/test_hub_*.py run the commands through the hub.
os.environ.setdefault("GAMMON_NO_DAEMON", "1")


def pytest_report_header(config):
    if tools.ENGINE_PATH:
        from bg.engine import _core

        return "bg engine: " + _core.__file__


# tests/mpy needs MicroPython itself (littlefs, the fake bluetooth); the bridge runs it.
collect_ignore_glob = ["mpy/*", "fakes/*", "mpy_runner.py"]


def pytest_terminal_summary(terminalreporter):
    try:
        import test_micropython as bridge
    except ImportError:
        return
    res = getattr(bridge, "RESULTS", {})
    if res:
        _rom_line(terminalreporter, bridge, res)
    board = getattr(bridge, "BOARD_RESULTS", {})
    if board:
        terminalreporter.write_line(
            "MicroPython board model (32-bit, firmware frozen, -X heapsize=%s): %d modules, %d tests passed, "
            "%d failed, %d skipped"
            % (
                bridge.HEAP,
                len(board),
                sum(r[0] for r in board.values()),
                sum(r[1] for r in board.values()),
                sum(r[2] for r in board.values()),
            )
        )


def _rom_line(terminalreporter, bridge, res):
    p = sum(r[0] for r in res.values())
    f = sum(r[1] for r in res.values())
    s = sum(r[2] for r in res.values())
    big = sorted({r[3] for r in res.values() if r[3] != bridge.HEAP}, key=lambda h: (len(h), h))
    extra = ""
    if big:
        nbig = sum(1 for r in res.values() if r[3] != bridge.HEAP)
        unit = " working heap" if getattr(bridge, "ROM", False) else ""
        extra = " (%d modules at %s%s)" % (nbig, "/".join(big), unit)
    how = bridge.describe() if hasattr(bridge, "describe") else "-X heapsize=%s" % bridge.HEAP
    terminalreporter.write_line(
        "MicroPython unix port (%s): %d modules, %d tests passed, %d failed, %d skipped%s"
        % (how, len(res), p, f, s, extra)
    )
