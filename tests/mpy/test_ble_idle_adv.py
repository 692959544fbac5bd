"""Idle mode's BLE advertising interval (app.ble.BleTransport.advertise_every, driven by
app.power): raised while idle, back to the normal one on the first input, advertising
beside connected centrals while the stack has room. On the fake ``bluetooth`` radio (MicroPython only)."""

# mpy-heap: 78k
# (make bench heapmargin, 2026-11-27: smallest passing 70k on the 64-bit port; declared +8k)
# The fake radio and the link stack: 64k on the 64-bit port with the firmware in ROM (fails at
# 62k; tools/bench/heapmargin.py), declared +8k; 36k on the board model.

# The fake radio is compiled from source here: import it first, while the heap is emptiest.
import gc

gc.collect()
import bluetooth  # noqa: E402, F401
from link_fakes import roomy, skip_all  # noqa: E402

if roomy(120000, 90000):
    from app import ble

    # the central's helpers compile from source next: free what the nested imports' stacks
    # kept alive first (without it the compile found no 2 kB run at 76-78k, but did at 74k
    # and 79k: fragmentation, not need)
    gc.collect()
    from ble_central import setup


def test_idle_raises_the_advertising_interval_and_input_restores_it():
    radio, board, hub, t, link = setup()
    normal = radio.adv[0]
    assert normal == t.adv_us
    t.advertise_every(1000)  # idle mode (board.json idle.adv_ms)
    t.service()  # the link task's next turn
    assert radio.adv[0] == 1000000
    assert radio.adv[1:] and ble.uuid128_le(ble.SERVICE_UUID) in radio.adv[1]  # the same payload
    t.advertise_every(0)  # a checker moved: the normal interval
    t.service()
    assert radio.adv[0] == normal


def test_advertising_goes_on_beside_a_central_while_a_slot_is_free():
    """The stack stops advertising on each connection; the radio's task starts it again (at
    the idle interval when idle) while it has a free connection, so the owner can still arrive
    beside a stranger; with the stack full it stays off."""
    radio, board, hub, t, link = setup()
    radio._connect()
    assert radio.adv is None  # NimBLE stops it on the connection
    t.advertise_every(1000)
    t.service()
    assert radio.adv is not None and radio.adv[0] == 1000000 and t.adv_us == 1000000
    for _ in range(ble.STACK_CONNS - 1):
        radio._connect()
        t.service()
    assert len(radio.conns) == ble.STACK_CONNS and radio.adv is None  # the stack is full


if not roomy(120000, 90000):
    skip_all(globals())
