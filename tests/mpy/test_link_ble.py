"""app.ble + app.link under MicroPython with the fake ``bluetooth`` module, the board side
without a session: services, advertising, connect, MTU exchange, a request answered by
notifications, garbage writes, BLE passkey display and the bond store. Pairing, fetch,
disconnect and resume, congestion and live events are test_link_ble_session.py (split so
each module needs less heap)."""

# mpy-heap: 112k
# Measured on the 64-bit port: needs 74k with the unauthenticated-disconnect case (69-70k
# without it; 112k with the session cases); declared with 8k
# or more to spare (the figure moves with the checkout's path and the heap layout,
# tools/bench/heapmargin.py). Before the first test the heap holds ~44 kB of module objects --
# the fake radio compiled from source (~12.7 kB, tests/fakes/bluetooth.py), bg.link
# (7.8 kB), asyncio, app.ble, the board helpers -- and the first connection adds
# bg.link.session (6.6 kB): ~57 kB before a test builds anything.
# No host end is loaded (PlainHost). On the board only the firmware's share of that exists.

# The fake radio is compiled from source here: import it first, while the heap is emptiest.
import gc

gc.collect()
import bluetooth  # noqa: E402
from link_fakes import roomy, skip_all  # noqa: E402

if roomy():
    from app import ble
    from ble_central import Central, P, setup


def test_services_and_advertising():
    radio, board, hub, t, link = setup()
    assert radio.active()
    assert radio.config("gap_name") == "Kitchen"
    assert radio.config("bond") and radio.config("mitm") and radio.config("le_secure")
    assert radio.config("io") == 0  # display only: the board shows passkeys
    assert t.h_rx != t.h_tx
    svc = radio.services[0]
    assert svc[0] == bluetooth.UUID(ble.SERVICE_UUID)
    assert svc[1][0][1] & bluetooth.FLAG_WRITE and svc[1][1][1] & bluetooth.FLAG_NOTIFY
    interval, adv, resp, connectable = radio.adv
    assert connectable and len(adv) <= 31 and ble.uuid128_le(ble.SERVICE_UUID) in adv
    assert bluetooth.UUID(ble.uuid128_le(ble.SERVICE_UUID)) == bluetooth.UUID(ble.SERVICE_UUID)
    assert b"Kitchen" in resp


def test_connect_mtu_and_info_by_notification():
    radio, board, hub, t, link = setup()
    radio._connect()
    radio._pair()  # the central bonds: the board refuses an unencrypted link
    assert radio.adv is None
    radio._exchange_mtu(185)
    c = Central(radio, link, t, plain=True)  # no session key: PlainHost
    c.step()
    assert link.mtu == 185 and link.session is not None and link.session.mtu == 185
    r = c.ask(c.host.request(P.REQ_INFO), P.RSP | P.REQ_INFO)
    assert b"BOARD042" in r[0][1]


def test_garbage_writes_get_errors_and_change_nothing():
    radio, board, hub, t, link = setup()
    radio._connect()
    radio._pair()  # the central bonds: the board refuses an unencrypted link
    radio._exchange_mtu(185)
    c = Central(radio, link, t, plain=True)  # no session key: PlainHost
    before = (board.store.list_matches(), board.hosts)
    radio._write(t.h_rx, bytes([P.SYNC, 1, 0, 0, 0, 0xFF, 0x7F]))
    radio._write(t.h_rx, b"\xa7\x10\x00\x01\x00\x02\x00\x00\x00\x00\x00")
    c.step()
    r = c.replies()
    assert r and all(ty == P.ERROR for ty, _, _ in r)
    assert (board.store.list_matches(), board.hosts) == before and link.session.fails == 0


def test_ble_passkey_shown_and_bond_stored():
    radio, board, hub, t, link = setup()
    radio._connect()
    radio._pair()
    c = Central(radio, link, t, plain=True)  # no session key: PlainHost
    c.step()
    assert radio.passkeys and radio.passkeys[-1][1] == 3
    assert "%06d" % radio.passkeys[-1][2] == board.codes[-1]
    assert link.encrypted
    assert radio._get_secret(1, b"peer-key") == b"ltk-bytes"


def test_unauthenticated_central_is_disconnected_after_the_deadline():
    radio, board, hub, t, link = setup()
    radio._connect()
    radio._pair(mitm=False)  # "just works": encrypted, so the protocol's deadline applies
    c = Central(radio, link, t, plain=True)
    c.step()
    assert link.session is not None and radio.conn is not None
    board.clock.advance(P.UNAUTH_MS - 1)
    c.step()
    assert radio.conn is not None  # still within its time
    board.clock.advance(1)
    c.step()
    assert radio.conn is None and link.conn is None  # the slot is free for the owner
    c.step()  # the radio's task forgets the connection
    assert t.slots() == [] and board.sessions == []


def test_a_central_that_never_encrypts_is_disconnected_sooner_and_costs_no_session():
    radio, board, hub, t, link = setup()
    radio._connect()
    link_step = Central(radio, link, t, plain=True).step
    link_step()
    assert len(t.slots()) == 1 and link.session is None and board.sessions == []
    board.clock.advance(ble.ENCRYPT_MS - 1)
    link_step()
    assert radio.conn is not None
    board.clock.advance(1)
    link_step()
    assert radio.conn is None and t.slots() == [] and radio.adv is not None


if not roomy():
    skip_all(globals())


def test_the_radio_s_wait_returns_when_woken_and_within_its_tick():
    # app.ble.Waker: a wake (the IRQ's flag) ends a wait at once; without one a wait ends
    # within its ms, by the one ticker task the first wait made (none made per wait)
    import asyncio
    import time

    out = {}

    async def main():
        w = ble.Waker()
        t0 = time.ticks_ms()
        await w.wait(60)
        out["idle"] = time.ticks_diff(time.ticks_ms(), t0)
        assert w.ticking
        w.wake()
        t0 = time.ticks_ms()
        await w.wait(60)
        out["woken"] = time.ticks_diff(time.ticks_ms(), t0)
        t0 = time.ticks_ms()
        for _ in range(3):
            await w.wait(60)
        out["three"] = time.ticks_diff(time.ticks_ms(), t0)

    asyncio.new_event_loop()
    asyncio.run(main())
    asyncio.new_event_loop()  # (the ticker goes with its loop)
    assert out["idle"] <= 200 and out["woken"] < 30, out
    assert 100 <= out["three"] <= 400, out
