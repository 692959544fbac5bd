"""``gammon board log`` against a board's link on MicroPython (``tests/mpy/link_server.py`` over
a journal directory): every crash-log entry, oldest first, across pages; an empty log says so;
a board that sends a malformed page is a one-line error, nothing printed as if it were the log."""

import pytest
from bg import crashlog as CL
from gammon import cli, link
from gammon.commands import board as board_cmd

test_link_e2e = pytest.importorskip("test_link_e2e")


def _pair(tmp_path, monkeypatch, root):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    s = test_link_e2e.Server("journal:" + str(root))
    link.pair(s.address, s.code, host_name="log-host")
    return s


def test_gammon_board_log_prints_every_entry(tmp_path, monkeypatch, capsys):
    root = tmp_path / "flash"
    root.mkdir()
    log = CL.CrashLog(str(root))
    for i in range(CL.MAX_ENTRIES + 2):  # the ring wrapped: the first two are gone
        cause = CL.CAUSE_TASK_DIED if i == CL.MAX_ENTRIES else CL.CAUSE_WATCHDOG
        log.add(
            cause,
            "scan: RuntimeError: injected fault %d" % i if cause == CL.CAUSE_TASK_DIED else "",
            1763700000 + i,
        )
    s = _pair(tmp_path, monkeypatch, root)
    try:
        capsys.readouterr()
        assert cli.main(["board", "log"]) == 0
        lines = capsys.readouterr().out.strip().split("\n")
    finally:
        s.stop()
    assert len(lines) == CL.MAX_ENTRIES  # more than one page (4 entries each)
    assert lines[0].split()[0] == "3" and lines[-1].split()[0] == str(CL.MAX_ENTRIES + 2)
    died = [x for x in lines if "task died" in x]
    assert len(died) == 1 and "scan: RuntimeError: injected fault %d" % CL.MAX_ENTRIES in died[0]
    assert sum("watchdog" in x for x in lines) == CL.MAX_ENTRIES - 1
    assert "2025-11-21" in lines[0]  # the entry's time, UTC


def test_an_empty_crash_log(tmp_path, monkeypatch, capsys):
    root = tmp_path / "flash"
    root.mkdir()
    s = _pair(tmp_path, monkeypatch, root)
    try:
        capsys.readouterr()
        assert cli.main(["board", "log"]) == 0
        assert capsys.readouterr().out.strip() == "crash log: empty"
    finally:
        s.stop()


class _Liar:
    """A board (or a relay with its session) answering CRASH_LOG with these pages."""

    def __init__(self, pages):
        self.pages = list(pages)

    def call(self, ftype, payload=b""):
        return self.pages.pop(0)


def test_a_malformed_page_is_an_error_not_a_log():
    good = CL.page([(1, 5, CL.CAUSE_SOFT, "x")] * 6, 0)
    for pages in (
        [b"\x01\x00"],  # too short
        [good[:-1]],  # truncated entry
        [bytes([6, 0, 9]) + good[3:]],  # more than a page
        [good, good],  # the second page restarts at 0: it would loop or duplicate
    ):
        with pytest.raises(link.LinkError):
            board_cmd.crash_log(_Liar(pages))
