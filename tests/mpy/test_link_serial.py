"""app.serial_link's frame scanner under MicroPython: frames go out behind the magic ``\\0GMN``;
the board's decoder skips the magic (and boot text) the host sends; the transport follows the
host's frame boundaries so that ``HELLO`` starts a new connection and only an out-of-frame
Ctrl-C (not a 0x03 inside a frame) gives the REPL port back. The transports over real streams
are test_link_serial_io.py (split off so each module fits the 64k heap); the same code over a
real pty, with the host tool, is ``tests/host/test_link_serial_e2e.py``."""

from link_fakes import roomy, skip_all

if roomy(120000, 96000):
    import time

    from app.serial_link import HELLO, MAGIC, READY, SerialTransport
    from bg import link as P


class FixedMac:
    """A ``bg.link.crypto.Mac`` stand-in whose tag is full of 0x03 bytes."""

    def tag(self, direction, header, payload):
        return b"\x03" * 8


class Sink:
    """A StreamWriter stand-in that keeps what was written."""

    def __init__(self):
        self.data = b""

    def write(self, b):
        self.data += bytes(b)

    async def drain(self):
        pass


def _scanner(break_char=3):
    return SerialTransport(None, Sink(), break_char=break_char)


def _frame(seq=3, payload=b"\x03\x03 name", mac=False):
    # seq 3 and the payload put 0x03 bytes inside the frame
    f = P.encode_frame(P.REQ_RENAME, seq, payload, 0, FixedMac() if mac else None, b"H")
    assert 3 in f
    return f


def test_hello_starts_a_new_connection_and_answers_ready():
    t = _scanner()
    f = _frame()
    data = b"old bytes" + HELLO + MAGIC + f
    assert not t._ingest(data, len(data))
    assert t.conn == 2 and t.hellos == 1
    assert t.writer.data == READY
    assert t.read() == MAGIC + f  # nothing from before the HELLO reaches the new session
    d = b"x" + HELLO
    t._ingest(d, len(d))
    assert t.conn == 3 and t.read() is None


def test_ctrl_c_inside_a_frame_is_data_between_frames_a_break():
    t = _scanner()
    for mac in (False, True):
        f = MAGIC + _frame(mac=mac)
        assert not t._ingest(f, len(f))
    for i in range(len(f)):  # split anywhere: still data
        assert not t._ingest(f[i : i + 1], 1)
    assert t.read().count(MAGIC) == 2 + 1
    assert t._ingest(b"\r\x03", 2)


def test_hello_inside_a_frame_is_data():
    t = _scanner()
    f = MAGIC + _frame(payload=HELLO)
    t._ingest(f, len(f))
    assert t.conn == 1 and t.read() == f


def test_bad_header_or_stalled_frame_resyncs():
    t = _scanner()
    bad = MAGIC + bytes([P.SYNC, P.REQ_INFO, 0, 1, 0, 0xFF, 0xFF])  # length 65535: not a frame
    assert not t._ingest(bad, len(bad))
    assert t._ingest(b"\x03", 1)
    t = _scanner()
    part = MAGIC + _frame()[:9]  # the sender died inside a frame
    assert not t._ingest(part, len(part))
    assert not t._ingest(b"\x03", 1)  # still inside that frame: data
    t._last = time.ticks_add(time.ticks_ms(), -2000)
    assert t._ingest(b"\x03", 1)  # after a silence it is a Ctrl-C again


def test_uart_has_no_break_character():
    t = _scanner(break_char=-1)
    assert not t._ingest(b"\x03\x03\r\n\x03", 5)


if not roomy(120000, 96000):
    skip_all(globals())
