"""app.serial_link over a real asyncio stream (a loopback TCP connection stands in for the
UART: both are byte streams): every frame goes out behind the magic ``\\0GMN``, and the
board's decoder skips the magic (and boot text) the host may send before its frames."""

# mpy-heap: 128k

from link_fakes import roomy, skip_all

if roomy(120000, 96000):
    import asyncio

    from app.link import Hub
    from app.serial_link import MAGIC, SerialTransport
    from bg import protocol as P
    from link_helpers import make_board

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


if not roomy(120000, 96000):
    skip_all(globals())
