"""app.ble + app.link under MicroPython with the fake ``bluetooth`` module, with a paired and
authenticated host: frames spanning writes and notifications at the smallest MTU, a fetch
interrupted by a disconnect then resumed, a congested controller, live events. The board-only
cases are test_link_ble.py (split so each module needs less heap)."""

# mpy-heap: 144k
# Measured on the 64-bit port: needed 86-90k (three checkouts) until session 8; then the
# protocol's DECIDE request (a Board attribute, a handler entry, app.link's wiring) moved the
# heap layout so that the first authenticated request's import of bg.link.requests (one
# 640-byte block) found no block at 104k with ~39k free: pass/fail at this checkout became
# 116+ 118- 120- 122+ 124+ 126- 128- 130+ ... and every heap from 130k to 160k passes.
# Declared inside that band, 8k above its start (the figure moves with the checkout's path
# and the heap layout, tools/bench/heapmargin.py). Board and an authenticated host end (bg.link.host)
# in one interpreter, over the fake radio compiled from source (it keeps every notification);
# on the board only the board side runs. The board-only cases need ~70k (test_link_ble.py).

# The fake radio is compiled from source here: import it first, while the heap is emptiest.
import gc

gc.collect()
import bluetooth  # noqa: E402, F401
from link_fakes import roomy, skip_all  # noqa: E402

if roomy():
    import asyncio
    import struct

    from ble_central import Central, P, pair_and_auth, setup
    from link_board import M1


def test_small_mtu_frames_span_writes_and_notifications():
    radio, board, hub, t, link = setup()
    radio._connect()  # no MTU exchange: 23 bytes, 20 per packet
    radio._pair()  # the central bonds: the board refuses an unencrypted link
    c = Central(radio, link, t)
    key = pair_and_auth(c, board, hub)
    assert len(key) == 32
    r = c.ask(c.host.request(P.REQ_LIST, b"\x00\x00"), P.RSP | P.REQ_LIST)
    assert struct.unpack("<H", r[0][1][:2])[0] == 3


def test_fetch_interrupted_by_disconnect_then_resumed():
    radio, board, hub, t, link = setup()
    # what the fetch must deliver, read while the heap is still whole (the fake radio keeps
    # every notification: by the end no 771-byte block may be left)
    expected = board.store.read_match(M1, 0, 1000)
    radio._connect()
    radio._pair()  # the central bonds: the board refuses an unencrypted link
    radio._exchange_mtu(185)
    c = Central(radio, link, t)
    key = pair_and_auth(c, board, hub)
    c.send(c.host.request(P.REQ_FETCH, M1 + struct.pack("<IIB", 0, 0xFFFFFFFF, 2)))
    r = c.replies()
    got = b"".join(p[4:] for ty, p, _ in r if ty == P.DATA)
    assert 0 < len(got) < 771
    radio._disconnect()
    c.step()
    assert link.session is None and radio.adv is not None  # advertising again
    del c, r  # the first connection's host end: gone, as the host process would be
    gc.collect()
    radio._connect(conn_handle=65)
    assert radio._encrypt()  # bonded: encrypted again with the stored keys, no new passkey
    radio._exchange_mtu(185)
    c2 = Central(radio, link, t)
    c2.seen = len(radio.notified)
    h = c2.host
    r = c2.ask(h.auth_start(b"HOST0001", key), P.RSP | P.REQ_AUTH_START)
    f = h.auth_proof(r[0][1])
    h.auth_expect()
    r = c2.ask(f, P.RSP | P.REQ_AUTH_PROOF)
    h.auth_finish(r[0][1])
    c2.send(h.request(P.REQ_FETCH, M1 + struct.pack("<IIB", len(got), 0xFFFFFFFF, 255)))
    r = c2.replies()
    rest = b"".join(p[4:] for ty, p, _ in r if ty == P.DATA)
    assert got + rest == expected
    assert r[-1][2] & P.FLAG_LAST


def test_congested_controller_slows_but_completes():
    radio, board, hub, t, link = setup()
    # what the fetch must deliver, read while the heap is still whole (the fake radio keeps
    # every notification: by the end no 771-byte block may be left)
    expected = board.store.read_match(M1, 0, 1000)
    radio._connect()
    radio._pair()  # the central bonds: the board refuses an unencrypted link
    radio._exchange_mtu(185)
    c = Central(radio, link, t)
    pair_and_auth(c, board, hub)
    radio.notify_capacity = 2

    async def drain_air():
        for _ in range(50):
            await asyncio.sleep_ms(5)
            radio._air()

    async def both():
        c.radio._write(t.h_rx, c.host.request(P.REQ_FETCH, M1 + struct.pack("<IIB", 0, 0xFFFFFFFF, 255)))
        task = asyncio.create_task(drain_air())
        await link.step()
        await task

    asyncio.run(both())
    r = c.replies()
    data = b"".join(p[4:] for ty, p, _ in r if ty == P.DATA)
    assert data == expected


def test_watch_events_are_notified():
    radio, board, hub, t, link = setup()
    radio._connect()
    radio._pair()  # the central bonds: the board refuses an unencrypted link
    radio._exchange_mtu(100)
    c = Central(radio, link, t)
    pair_and_auth(c, board, hub)
    c.ask(c.host.request(P.REQ_WATCH, b"\x01"), P.RSP | P.REQ_WATCH)
    hub.publish(b"\x07confirmed play")
    c.step()
    assert c.replies() == [(P.EVENT, b"\x00\x07confirmed play", P.FLAG_MAC)]


if not roomy():
    skip_all(globals())
