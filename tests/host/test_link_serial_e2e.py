"""End to end over the USB-serial transport: the firmware's link (``app.serial_link``
``StdioTransport`` + ``app.link`` + ``bg.link*``) runs under the real MicroPython unix port
with its stdin/stdout on a pseudo-terminal from socat, exactly as an ESP32's REPL port looks
to the host; the host tool's ``gammon.link`` opens the pty with pyserial (``serial:PATH``).

Pair, authenticate, list, fetch (interrupted, then resumed on a new connection), delete,
watch; an unpaired client is refused, a new connection never inherits the previous host's
session; the pairing code printed by the board arrives as text between frames; the CLI
addresses the board as ``serial:PATH``; an out-of-frame Ctrl-C (what mpremote sends) gives
the port back to the REPL, where mpremote then runs code.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import link_scenario as S
import pytest
from bg import link as P
from gammon import link as L

from tools import mpy

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
START_TIMEOUT = 20.0  # the first HELLO is answered once MicroPython has imported the link

pytestmark = pytest.mark.skipif(shutil.which("socat") is None, reason="needs socat (apt-get install socat)")
pytest.importorskip("serial", reason="needs pyserial")


def _children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


class SerialBoard:
    """``tests/mpy/link_serial_board.py`` behind ``socat PTY <-> EXEC:micropython,pty``."""

    def __init__(self, tmp):
        self.pty = tmp / "tty"
        board = " ".join(mpy.command(["-i", ROOT / "tests" / "mpy" / "link_serial_board.py"], "256k"))
        self.proc = subprocess.Popen(
            ["socat", "PTY,link=%s,raw,echo=0" % self.pty, "EXEC:%s,pty,raw,echo=0,stderr,setsid" % board],
            env=mpy.environ(["tests/mpy"]),
            cwd=str(tmp),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.kids = []
        end = time.monotonic() + 10
        while not self.pty.exists():
            if time.monotonic() > end or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("socat did not create %s" % self.pty)
            time.sleep(0.05)
        self.kids = _children(self.proc.pid)
        self.address = "serial:%s" % self.pty
        # readiness: the first HELLO is answered once the board's link runs
        L.SerialTransport(str(self.pty), timeout=START_TIMEOUT).close()

    def stop(self):
        kids = self.kids or _children(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for pid in kids:  # the micropython process, if socat left it behind
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.fixture
def board(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    b = SerialBoard(tmp_path)
    yield b
    b.stop()


@pytest.fixture
def opened(monkeypatch):
    """Every transport ``gammon.link`` opens, newest last (to read the board's text)."""
    made = []
    real = L.open_transport

    def spy(address):
        t = real(address)
        made.append(t)
        return t

    monkeypatch.setattr(L, "open_transport", spy)
    return made


def _printed_code(transport):
    """The pairing value the board printed between frames (its 'display' in this sim)."""
    codes = re.findall(rb"CODE (\d{6})", bytes(transport.text))
    assert codes, "the board's printed code did not arrive: %r" % bytes(transport.text)
    return codes[-1].decode()


def _pair(board, opened, name="serial-host"):
    shown = []
    bid = L.pair(board.address, shown.append, host_name=name)  # the board's owner presses ROLL
    # the board printed (showed) the number the host showed, before it answered
    assert shown and _printed_code(opened[-1]) == shown[-1]
    return bid


def test_pair_list_fetch_resume_delete_watch(board, opened):
    bid = _pair(board, opened)
    assert bid == b"SIMBOARD".hex()
    assert L.Boards().find(None)[1]["address"] == board.address

    with L.connect(board.address) as c:
        assert isinstance(c.t, L.SerialTransport)
        games = S.list_reference_matches(c)
        S.abandon_fetch(c, games)  # the host goes away mid-transfer (DATA frames still coming)
    # A new opening of the port is a new connection (HELLO): a fresh session that resumes
    # from the bytes already kept, and none of the old transfer's frames leak into it.
    with L.connect() as c:
        S.resume_fetch(c, games, 2000 + 400)  # the first new chunk ends beyond what was kept
        S.delete_only_finished(c, games)

        ticks = []
        for rec in c.watch(timeout=5):
            ticks.append(rec)
            if len(ticks) == 3:
                break
        assert len(ticks) == 3 and all(t.startswith(b"tick ") for t in ticks)
        assert c.list_games()  # the session still works after leaving watch
        # frames carried 0x03 bytes (sequence number 3, MACs): data, not an interrupt
        assert any(3 in f for f in c.sent)
        assert c.info()["authenticated"]


def test_unpaired_client_and_stale_session_are_refused(board, opened):
    _pair(board, opened)
    with L.connect(board.address) as c:
        assert c.info()["authenticated"]
        with pytest.raises(L.LinkError) as e:  # one program at a time on the port
            L.open_transport(board.address)
        assert "cannot open" in str(e.value)
        assert c.list_games()
    # the next opening of the port does not inherit that authenticated session
    with L.Client(L.open_transport(board.address)) as c:
        info = c.info()
        assert info["authenticated"] is False and info["paired_hosts"] == 1
        with pytest.raises(L.LinkError) as e:
            c.delete_games([(b"MATCH002".hex(), bytes(32))])
        assert e.value.code == P.E_AUTH
        assert S.stranger_refused_then_backs_off(c) > 0
    with L.connect(board.address) as c:  # at once: the back-off was that connection's
        assert len(c.list_games()) == 3  # nothing was deleted
        assert len(c.list_games()) == 3


def test_cli_addresses_a_serial_board(board, opened):
    _pair(board, opened, name="cli-host")
    gammon = str(BIN / "gammon")
    r = subprocess.run(
        [gammon, "board", "info", "--board", board.address], capture_output=True, text=True, timeout=30
    )
    assert r.returncode == 0, r.stderr
    assert "game " + b"MATCH003".hex() in r.stdout and "live" in r.stdout
    r = subprocess.run(
        [gammon, "board", "info", "--board", "serial:%s.missing" % board.pty],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 2 and "not paired" in r.stderr


def test_ctrl_c_between_frames_gives_the_port_back_to_the_repl(board, opened):
    _pair(board, opened)
    with L.connect(board.address) as c:
        assert len(c.list_games()) == 3
        c.t.interrupt()  # what mpremote sends first: "\r\x03"
        end = time.monotonic() + 10
        while b">>> " not in c.t.text and time.monotonic() < end:
            c.t.recv(0.2)
        text = bytes(c.t.text)
    assert b"KeyboardInterrupt" in text and b">>> " in text, text
    # the REPL is back: mpremote works on the same port
    r = subprocess.run(
        [str(BIN / "mpremote"), "connect", str(board.pty), "resume", "exec", "print('sum', 6 * 7)"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "sum 42" in r.stdout, r.stdout + r.stderr


def test_bad_serial_addresses():
    with pytest.raises(ValueError):
        L.open_transport("serial:")
    with pytest.raises(ValueError):
        L.open_transport("serial:/dev/ttyUSB0@fast")
    with pytest.raises(L.LinkError) as e:
        L.open_transport("serial:/nonexistent/ttyX")
    assert "cannot open" in str(e.value)
