"""A noisy USB cable between ``gammon.link`` and the firmware's serial link (the board of
test_link_serial_e2e.py: ``app.serial_link`` under the MicroPython unix port on a socat pty).
A 1 s stall in the middle of a request, a lost byte, a flipped byte, Ctrl-C bytes inside a
frame and a lone Ctrl-C between frames: the damaged request at worst goes unanswered, the
link carries on (the following requests are answered), and the board never drops to the REPL
(the game goes on publishing). The host's own reader skips a damaged board frame and takes
the next one. Damage is applied to the bytes ``SerialTransport.send`` writes, whatever the
framing on the wire."""

import shutil
import struct
import time

import pytest
from bg import link as P
from gammon import link as L

pytestmark = pytest.mark.skipif(shutil.which("socat") is None, reason="needs socat (apt-get install socat)")
pytest.importorskip("serial", reason="needs pyserial")
e2e = pytest.importorskip("test_link_serial_e2e")

# a REVEAL of a match id full of bytes the line treats specially: answered E_NOT_FOUND
ODD_ID = b"\x03\r\x00\x10\x03\x03\r\x03"


@pytest.fixture(scope="module")
def paired(tmp_path_factory):
    """One serial board for the module, paired once: ``(board, config dir)``."""
    tmp = tmp_path_factory.mktemp("noisy")
    mp = pytest.MonkeyPatch()
    mp.setenv("GAMMON_CONFIG_DIR", str(tmp / "cfg"))
    board = e2e.SerialBoard(tmp)
    made = []
    real = L.open_transport

    def spy(address):
        t = real(address)
        made.append(t)
        return t

    mp.setattr(L, "open_transport", spy)
    try:
        L.pair(board.address, lambda v: None, host_name="noisy")  # the board's owner presses ROLL
        mp.setattr(L, "open_transport", real)
        yield board, tmp / "cfg"
    finally:
        board.stop()
        mp.undo()


@pytest.fixture
def c(paired, monkeypatch):
    """A fresh authenticated connection (HELLO: a new session) to the module's board."""
    board, cfg = paired
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(cfg))
    with L.connect(board.address) as client:
        yield client


def _tamper(c, fn):
    """Make the next request's bytes on the wire ``fn(wire)``: a list of byte strings to
    write and pauses (seconds) between them."""
    t = c.t
    send = t.send
    real = t._write

    def once(frame):
        del t.send  # back to the class's method
        wire = bytearray()
        t._write = wire.extend
        try:
            send(frame)
        finally:
            del t._write
        for piece in fn(bytes(wire)):
            if isinstance(piece, float):
                time.sleep(piece)
            else:
                real(piece)

    t.send = once


def _odd_request(c, timeout=L.TIMEOUT):
    """A request with Ctrl-C, CR, NUL and ESC bytes in its payload: the board answers it."""
    with pytest.raises(L.LinkError) as e:
        c.call(P.REQ_REVEAL, ODD_ID, timeout=timeout)
    assert e.value.code == P.E_NOT_FOUND, e.value


def _carries_on(c):
    """The link works and the board's game is still running (it publishes every 100 ms)."""
    _odd_request(c)
    assert len(c.list_games()) == 3
    got = []
    for rec in c.watch(timeout=5):
        got.append(rec)
        if len(got) == 2:
            break
    assert len(got) == 2 and all(r.startswith(b"tick ") for r in got)
    assert b"KeyboardInterrupt" not in bytes(c.t.text) and b">>>" not in bytes(c.t.text)


def _split_at_ctrl_c(wire):
    """Where a stall hurts most: just before the last 0x03 on the wire (else mid-frame)."""
    k = wire.rfind(b"\x03")
    return k if k > 4 else len(wire) // 2


def test_a_one_second_stall_mid_frame(c):
    _tamper(c, lambda w: [w[: _split_at_ctrl_c(w)], 1.1, w[_split_at_ctrl_c(w) :]])
    _odd_request(c)  # the stalled request itself is answered
    _carries_on(c)


@pytest.mark.parametrize("where", [0, 3, 5, 9, 14, -10, -1], ids=lambda k: "byte%d" % k)
def test_a_lost_byte(c, where):
    _tamper(c, lambda w: [w[:where] + (w[where + 1 :] if where != -1 else b"")])
    with pytest.raises(L.LinkError):  # that request is lost (no answer, or a refusal)
        c.call(P.REQ_LIST, timeout=1.0)
    _carries_on(c)


@pytest.mark.parametrize("where", [1, 4, 6, 10, 13, -9, -2], ids=lambda k: "byte%d" % k)
def test_a_flipped_byte(c, where):
    def flip(w):
        b = bytearray(w)
        b[where] ^= 0x01 if b[where] != 0x02 else 0x04  # never makes it a Ctrl-C
        return [bytes(b)]

    _tamper(c, flip)
    with pytest.raises(L.LinkError):
        c.call(P.REQ_LIST, timeout=1.0)
    _carries_on(c)


def test_ctrl_c_inside_and_between_frames(c):
    _odd_request(c)  # inside: 0x03 bytes in the payload (and in the MACs)
    c.t._write(b"\x03")  # between frames, alone: line noise, not the REPL's Ctrl-C
    time.sleep(0.3)
    assert len(c.list_games()) == 3
    _tamper(c, lambda w: [b"\x03" + w + b"\x03"])  # right before and after a frame
    _carries_on(c)


def _reader():
    """A host ``SerialTransport`` without a port: only its frame reader."""
    t = object.__new__(L.SerialTransport)
    t.text = bytearray()
    t.pend = bytearray()
    t.bad = 0
    return t


def test_the_host_skips_a_damaged_board_frame():
    f1 = P.encode_frame(P.RSP | P.REQ_LIST, 7, struct.pack("<H", 0) + bytes(range(40)))
    f2 = P.encode_frame(P.RSP | P.REQ_INFO, 8, b"\x00GMN inside a payload")
    M = L.SERIAL_MAGIC
    for k in range(len(f1)):
        lost = f1[:k] + f1[k + 1 :]
        flipped = bytearray(f1)
        flipped[k] ^= 0x40
        for bad in (lost, bytes(flipped)):
            t = _reader()
            # the board goes on printing (a damaged length may claim up to 512 more bytes)
            t.pend += b"log line\r\n" + M + bad + M + f2 + b"more text\r\n" * 60
            assert t._frames() == f2, k
            assert b"more text" in t.text
