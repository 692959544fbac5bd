"""app.serial_link over real streams under MicroPython: a board answers behind the magic over
a TCP stream (``SerialTransport``), and ``StdioTransport`` reads a pollable stream without ever
blocking the loop, answers ``HELLO`` with ``READY``, ignores a lone Ctrl-C and stops at
``\\r`` Ctrl-C. Split from test_link_serial.py (the line reader) so each module fits the 64k
heap."""

# mpy-heap: 84k
# The 64-bit port with the firmware in its ROM image needs 76k here since the link's session
# grew (74k failed; 59-64k before) (both ends of a session
# in one interpreter; measured in three checkouts, 64k with the stuffed serial line and
# bg.serialwire; declared with 8k or more to spare:
# the figure moves with the checkout's path and the heap layout, tools/bench/heapmargin.py).
# On the board model it runs with the board's 64k (needs < 40k): docs/memory.md.

from link_fakes import roomy, skip_all

if roomy(120000, 96000):
    import asyncio
    import socket

    from app.link import Hub
    from app.serial_link import HELLO, MAGIC, READY, SerialTransport, StdioTransport
    from bg import link as P
    from bg.serialwire import stuff
    from link_board import make_board

_PORT = 7691


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
    writer.write(b"boot text\r\n" + MAGIC + stuff(request))
    await writer.drain()
    got = b""
    for _ in range(40):
        try:
            # 256-byte reads: the reply is < 100 bytes, and the heap is tight (62k measured)
            got += await asyncio.wait_for_ms(reader.read(256), 100)
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
    asyncio.new_event_loop()  # drop the tasks left behind (the reader pump holds the board)
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
    host.send(HELLO + MAGIC + stuff(P.encode_frame(P.REQ_INFO, 3, b"")))  # seq 3: a 0x03 inside
    got = b""
    host.setblocking(False)
    for _ in range(50):
        await asyncio.sleep_ms(20)
        try:
            got += host.recv(256)
        except OSError:
            pass
        if len(got) > 40:
            break
    out["got"] = got
    host.send(b"\x03")  # one Ctrl-C alone is noise: the link carries on
    await asyncio.sleep_ms(100)
    out["alive"] = not pump.done()
    host.send(b"\r\x03")  # what mpremote sends: the link stops as a Ctrl-C would
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
    assert out["alive"] and broke and out["t"].closed and out["t"].conn is None


if not roomy(120000, 96000):
    skip_all(globals())
