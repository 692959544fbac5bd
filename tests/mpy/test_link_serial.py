"""app.serial_link under MicroPython: frames go out behind the magic ``\\0GMN``; the board's
decoder skips the magic (and boot text) the host sends; the transport follows the host's
frame boundaries so that ``HELLO`` starts a new connection and only an out-of-frame Ctrl-C
(not a 0x03 inside a frame) gives the REPL port back; ``StdioTransport`` reads a pollable
stream without ever blocking the loop. The same code over a real pty, with the host tool,
is ``tests/host/test_link_serial_e2e.py``."""

# mpy-heap: 128k

from link_fakes import roomy, skip_all

if roomy(120000, 96000):
    import asyncio
    import socket
    import time

    from app.link import Hub
    from app.serial_link import HELLO, MAGIC, READY, SerialTransport, StdioTransport
    from bg import protocol as P
    from link_helpers import make_board

_PORT = 7691


class FixedMac:
    """A ``bg.linkcrypto.Mac`` stand-in whose tag is full of 0x03 bytes."""

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


async def _exchange(request):
    board = make_board()
    hub = Hub(board)
    links = []

    async def accept(reader, writer):
        t = SerialTransport(reader, writer)
        link = hub.add(t)
        links.append(link)
        asyncio.create_task(link.run())
        await t.pump_reader()

    server = await asyncio.start_server(accept, "127.0.0.1", _PORT)
    reader, writer = await asyncio.open_connection("127.0.0.1", _PORT)
    writer.write(b"boot text\r\n" + MAGIC + request)
    await writer.drain()
    got = b""
    for _ in range(40):
        try:
            got += await asyncio.wait_for_ms(reader.read(600), 100)
        except asyncio.TimeoutError:
            pass
        if len(got) > 20:
            break
    writer.close()
    server.close()
    for link in links:
        link.running = False
    await asyncio.sleep_ms(300)
    return got


def test_frames_behind_magic_both_ways():
    got = asyncio.run(_exchange(P.encode_frame(P.REQ_INFO, 1, b"")))
    assert got.startswith(MAGIC + bytes([P.SYNC, P.RSP | P.REQ_INFO]))
    d = P.Decoder()
    d.feed(got)
    t, fr = d.next()
    assert t == P.RSP | P.REQ_INFO and b"BOARD042" in fr.payload
    assert d.noise == len(MAGIC)


def _socket_pair():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(socket.getaddrinfo("127.0.0.1", _PORT + 1)[0][-1])
    srv.listen(1)
    host = socket.socket()
    host.connect(socket.getaddrinfo("127.0.0.1", _PORT + 1)[0][-1])
    board_end = srv.accept()[0]
    srv.close()
    return host, board_end


async def _stdio_session(host, board_end, out):
    hub = Hub(make_board())
    t = StdioTransport(board_end, board_end)  # a pollable stream stands in for sys.stdin.buffer
    out["t"] = t
    hub_link = hub.add(t)
    asyncio.create_task(hub_link.run())
    pump = asyncio.create_task(t.pump_reader())
    host.send(HELLO + MAGIC + P.encode_frame(P.REQ_INFO, 3, b""))
    got = b""
    host.setblocking(False)
    for _ in range(50):
        await asyncio.sleep_ms(20)
        try:
            got += host.recv(1024)
        except OSError:
            pass
        if len(got) > 40:
            break
    out["got"] = got
    host.send(b"\r\x03")  # out of frame: the link stops as a Ctrl-C would
    await asyncio.wait_for_ms(pump, 2000)


def test_stdio_transport_over_a_pollable_stream():
    host, board_end = _socket_pair()
    out = {}
    broke = False
    try:
        asyncio.run(_stdio_session(host, board_end, out))
    except KeyboardInterrupt:  # it leaves asyncio.run, as Ctrl-C does (the REPL comes back)
        broke = True
    finally:
        asyncio.new_event_loop()  # drop the link task left behind
        host.close()
        board_end.close()
    got = out["got"]
    assert got.startswith(READY + MAGIC)
    d = P.Decoder()
    d.feed(got[len(READY) :])
    ft, fr = d.next()
    assert ft == P.RSP | P.REQ_INFO and b"BOARD042" in fr.payload
    assert broke and out["t"].closed and out["t"].conn is None


if not roomy(120000, 96000):
    skip_all(globals())
