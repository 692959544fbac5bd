"""The owner always gets through over BLE: strangers reconnecting every 2 ms or 50 ms, idle
strangers holding every connection, garbage writers and half-open frames crowd the board's
radio (``app.ble`` on the fake ``bluetooth`` module, NimBLE's four connections) while the
paired owner connects, logs in and asks for INFO again and again (``ble_crowd``: virtual
milliseconds, BLE's advertising events and connection events). Every owner request gets its
answer within 10 s (bleak's connect timeout); strangers get their slots evicted, never the owner's."""

# mpy-heap: 144k
# Measured on the 64-bit port: passes from 112k, but not in a fragmentation band at 125k and
# 128k (a 640-byte session buffer found no block; CI failed at 128k), declared 16k over the
# band's top: the board, an authenticated host end (bg.link.host) and up to four strangers'
# connections in one interpreter over the fake radio compiled from source. Passes on the board
# model at 64k. On the board alone, each extra connection costs ~1.3 kB (docs/protocol.md).

# The fake radio is compiled from source here: import it first, while the heap is emptiest.
import gc

gc.collect()
import bluetooth  # noqa: E402, F401
from link_fakes import roomy, skip_all  # noqa: E402

if roomy():
    from app import ble
    from ble_central import Central, pair_and_auth, setup
    from ble_crowd import Stranger, owner_trial

REQUESTS = 55  # owner requests per attack (four attacks: 220 in all)


def _paired():
    radio, board, hub, t, link = setup()
    radio._connect()
    radio._pair(key=b"owner")  # the owner's central bonds once (passkey on the dice)
    c = Central(radio, link, t)
    key = pair_and_auth(c, board, hub)
    radio._disconnect()
    c.step()
    del c
    gc.collect()
    return radio, board, t, key


def _attack(strangers, seed):
    radio, board, t, key = _paired()
    owner, air = owner_trial(radio, board, t, b"HOST0001", key, strangers, REQUESTS, seed=seed)
    print(
        "owner %d/%d (mean %d ms, worst %d ms, %d drops), strangers connected %d times, evicted %d"
        % (
            owner.ok,
            REQUESTS,
            owner.total_ms // max(owner.ok, 1),
            owner.worst,
            owner.drops,
            sum(s.connects for s in strangers),
            t.evicted,
        )
    )
    assert owner.ok == REQUESTS, (owner.ok, owner.errors)
    assert len(t.slots()) <= ble.MAX_SLOTS and len(radio.conns) <= ble.STACK_CONNS
    return owner, t


def test_three_strangers_reconnecting_every_2ms():
    s = [Stranger("churn", hold=2, gap=2) for _ in range(3)]
    owner, t = _attack(s, 1)
    assert sum(x.connects for x in s) > 100  # they won most advertising events


def test_one_stranger_reconnecting_every_50ms():
    s = [Stranger("churn", hold=2, gap=50)]
    _attack(s, 2)
    assert s[0].connects > 20


def test_idle_strangers_holding_every_connection():
    s = [Stranger("idle") for _ in range(ble.STACK_CONNS)]
    owner, t = _attack(s, 3)
    assert t.evicted > 0  # the owner's arrivals pushed idle ones out


def test_garbage_writers_and_half_open_frames():
    s = [Stranger("garbage"), Stranger("garbage"), Stranger("halfopen"), Stranger("halfopen")]
    _attack(s, 4)


def test_a_logged_in_host_is_never_pushed_out_and_a_passkey_waits_only_so_long():
    radio, board, hub, t, link = setup()
    radio._connect()
    radio._pair(key=b"owner")
    c = Central(radio, link, t)
    pair_and_auth(c, board, hub)
    owner = radio.conn
    typing = radio._connect()
    radio._start_pairing(typing)  # a passkey on the dice, nobody types it
    c.step()
    assert board.codes and len(t.slots()) == 2
    for _ in range(30):  # newcomers, each after the last one's grace
        board.clock.advance(ble.GRACE_MS)
        radio._connect()
        c.step()
        seat = [x for x in t.slots() if x.handle == owner]
        assert owner in radio.conns and seat and seat[0].link.session.mac_in is not None  # logged in
    assert t.evicted >= 28 and typing not in radio.conns  # pushed out, like any stranger
    # alone with the board, a connection shown a passkey waits the pairing's own timeout
    radio._disconnect(owner)
    for h in list(radio.conns):
        radio._disconnect(h)
    c.step()
    typing = radio._connect()
    radio._start_pairing(typing)
    c.step()
    board.clock.advance(ble.PASSKEY_MS - 1)
    c.step()
    assert typing in radio.conns
    board.clock.advance(1)
    c.step()
    assert typing not in radio.conns and t.slots() == []


if not roomy():
    skip_all(globals())
