"""app.ble + app.link under MicroPython with the fake ``bluetooth`` module: services,
advertising, connect, MTU exchange, request/response by notifications, disconnect and resume,
live events, BLE passkey display and the bond store."""

# mpy-heap: 128k

from link_fakes import roomy, skip_all

if roomy():
    import asyncio
    import struct

    import bluetooth
    from app import ble as B
    from app.link import Hub
    from bg import protocol as P
    from bg.linkhost import HostEnd
    from link_helpers import M1, Rand, make_board


class Central:
    """The host side over the fake radio: writes in MTU - 3 pieces, reads notifications."""

    def __init__(self, radio, link, t):
        self.radio = radio
        self.link = link
        self.t = t
        self.host = HostEnd(Rand(b"central"))
        self.seen = 0

    def step(self):
        asyncio.run(self.link.step())

    def send(self, frame):
        n = self.radio.conn_mtu - 3
        for i in range(0, len(frame), n):
            self.radio._write(self.t.h_rx, frame[i : i + n])
        self.step()

    def replies(self):
        out = []
        while self.seen < len(self.radio.notified):
            conn, h, data = self.radio.notified[self.seen]
            self.seen += 1
            assert h == self.t.h_tx and len(data) <= self.radio.conn_mtu - 3
            out.extend(self.host.feed(data))
        return out

    def ask(self, frame, want):
        self.send(frame)
        r = self.replies()
        assert r and r[0][0] == want, r
        return r


def _setup():
    radio = bluetooth.BLE()
    radio._reset()
    board = make_board()
    hub = Hub(board)
    t = B.BleTransport(name="Kitchen", show_code=board.codes.append, urandom=Rand(b"pk"))
    link = hub.add(t)
    return radio, board, hub, t, link


def _pair_and_auth(c, board):
    h = c.host
    r = c.ask(h.pair_start(b"HOST0001", "laptop"), P.RSP | P.REQ_PAIR_START)
    r = c.ask(h.pair_confirm(r[0][1], board.codes[-1]), P.RSP | P.REQ_PAIR_CONFIRM)
    key = h.pair_finish(r[0][1])
    r = c.ask(h.auth_start(b"HOST0001", key), P.RSP | P.REQ_AUTH_START)
    f = h.auth_proof(r[0][1])
    h.auth_expect()
    r = c.ask(f, P.RSP | P.REQ_AUTH_PROOF)
    h.auth_finish(r[0][1])
    return key


def test_services_and_advertising():
    radio, board, hub, t, link = _setup()
    assert radio.active()
    assert radio.config("gap_name") == "Kitchen"
    assert radio.config("bond") and radio.config("mitm") and radio.config("le_secure")
    assert radio.config("io") == 0  # display only: the board shows passkeys
    assert t.h_rx != t.h_tx
    svc = radio.services[0]
    assert svc[0] == bluetooth.UUID(B.SERVICE_UUID)
    assert svc[1][0][1] & bluetooth.FLAG_WRITE and svc[1][1][1] & bluetooth.FLAG_NOTIFY
    interval, adv, resp, connectable = radio.adv
    assert connectable and len(adv) <= 31 and B.uuid128_le(B.SERVICE_UUID) in adv
    assert bluetooth.UUID(B.uuid128_le(B.SERVICE_UUID)) == bluetooth.UUID(B.SERVICE_UUID)
    assert b"Kitchen" in resp


def test_connect_mtu_and_info_by_notification():
    radio, board, hub, t, link = _setup()
    radio._connect()
    assert radio.adv is None
    radio._exchange_mtu(185)
    c = Central(radio, link, t)
    c.step()
    assert t.mtu == 185 and link.session is not None and link.session.mtu == 185
    r = c.ask(c.host.request(P.REQ_INFO), P.RSP | P.REQ_INFO)
    assert b"BOARD042" in r[0][1]


def test_small_mtu_frames_span_writes_and_notifications():
    radio, board, hub, t, link = _setup()
    radio._connect()  # no MTU exchange: 23 bytes, 20 per packet
    c = Central(radio, link, t)
    key = _pair_and_auth(c, board)
    assert len(key) == 32
    r = c.ask(c.host.request(P.REQ_LIST, b"\x00\x00"), P.RSP | P.REQ_LIST)
    assert struct.unpack("<H", r[0][1][:2])[0] == 3


def test_fetch_interrupted_by_disconnect_then_resumed():
    radio, board, hub, t, link = _setup()
    radio._connect()
    radio._exchange_mtu(185)
    c = Central(radio, link, t)
    key = _pair_and_auth(c, board)
    c.send(c.host.request(P.REQ_FETCH, M1 + struct.pack("<IIB", 0, 0xFFFFFFFF, 2)))
    r = c.replies()
    got = b"".join(p[4:] for ty, p, _ in r if ty == P.DATA)
    assert 0 < len(got) < 771
    radio._disconnect()
    c.step()
    assert link.session is None and radio.adv is not None  # advertising again
    radio._connect(conn_handle=65)
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
    assert got + rest == board.store.read_match(M1, 0, 1000)
    assert r[-1][2] & P.FLAG_LAST


def test_congested_controller_slows_but_completes():
    radio, board, hub, t, link = _setup()
    radio._connect()
    radio._exchange_mtu(185)
    c = Central(radio, link, t)
    _pair_and_auth(c, board)
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
    assert data == board.store.read_match(M1, 0, 1000)


def test_watch_events_are_notified():
    radio, board, hub, t, link = _setup()
    radio._connect()
    radio._exchange_mtu(100)
    c = Central(radio, link, t)
    _pair_and_auth(c, board)
    c.ask(c.host.request(P.REQ_WATCH, b"\x01"), P.RSP | P.REQ_WATCH)
    hub.publish(b"\x07confirmed play")
    c.step()
    assert c.replies() == [(P.EVENT, b"\x00\x07confirmed play", P.FLAG_MAC)]


def test_garbage_writes_get_errors_and_change_nothing():
    radio, board, hub, t, link = _setup()
    radio._connect()
    radio._exchange_mtu(185)
    c = Central(radio, link, t)
    before = (board.store.list_matches(), board.hosts, board.fails)
    radio._write(t.h_rx, bytes([P.SYNC, 1, 0, 0, 0, 0xFF, 0x7F]))
    radio._write(t.h_rx, b"\xa7\x10\x00\x01\x00\x02\x00\x00\x00\x00\x00")
    c.step()
    r = c.replies()
    assert r and all(ty == P.ERROR for ty, _, _ in r)
    assert (board.store.list_matches(), board.hosts, board.fails) == before


def test_ble_passkey_shown_and_bond_stored():
    radio, board, hub, t, link = _setup()
    radio._connect()
    radio._pair()
    c = Central(radio, link, t)
    c.step()
    assert radio.passkeys and radio.passkeys[-1][1] == 3
    assert "%06d" % radio.passkeys[-1][2] == board.codes[-1]
    assert t.encrypted
    assert radio._get_secret(1, b"peer-key") == b"ltk-bytes"


if not roomy():
    skip_all(globals())
