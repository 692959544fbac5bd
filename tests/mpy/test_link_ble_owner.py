"""The owner always gets through over BLE: strangers reconnecting every 2 ms or 50 ms, idle
strangers holding every connection, garbage writers and half-open frames crowd the board's
radio (``app.ble`` on the fake ``bluetooth`` module, NimBLE's four connections) while the
paired owner connects, logs in and asks for INFO again and again (``ble_crowd``: virtual
milliseconds, BLE's advertising events and connection events). Every owner request gets its
answer within 10 s (bleak's connect timeout); strangers get their slots evicted, never the owner's."""

# mpy-heap: 128k
# Measured on the 64-bit port: needs 120k (fails at 116k; tools/bench/heapmargin.py), declared
# +8k: the board, an authenticated host end (bg.link.host) and up to four strangers'
# connections in one interpreter over the fake radio compiled from source. Passes on the board
# model at 64k. On the board alone, each extra connection costs ~1.3 kB (docs/protocol.md).

# The fake radio is compiled from source here: import it first, while the heap is emptiest.
import gc

gc.collect()
import bluetooth  # noqa: E402, F401
from link_fakes import roomy, skip_all  # noqa: E402

if roomy():
    from ble_central import B, Central, pair_and_auth, setup
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
    assert len(t.slots()) <= B.MAX_SLOTS and len(radio.conns) <= B.STACK_CONNS
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
    s = [Stranger("idle") for _ in range(B.STACK_CONNS)]
    owner, t = _attack(s, 3)
    assert t.evicted > 0  # the owner's arrivals pushed idle ones out


def test_garbage_writers_and_half_open_frames():
    s = [Stranger("garbage"), Stranger("garbage"), Stranger("halfopen"), Stranger("halfopen")]
    _attack(s, 4)


if not roomy():
    skip_all(globals())
