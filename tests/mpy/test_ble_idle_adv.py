"""Idle mode's BLE advertising interval (app.ble.BleTransport.advertise_every, driven by
app.power): raised while idle, back to the normal one on the first input, never advertising
while a central is connected. On the fake ``bluetooth`` radio (MicroPython only)."""

# mpy-heap: 72k
# The fake radio and the link stack: 64k on the 64-bit port with the firmware in ROM (fails at
# 62k; tools/bench/heapmargin.py), declared +8k; 36k on the board model.

# The fake radio is compiled from source here: import it first, while the heap is emptiest.
import gc

gc.collect()
import bluetooth  # noqa: E402, F401
from link_fakes import roomy, skip_all  # noqa: E402

if roomy(120000, 90000):
    from ble_central import B, setup


def test_idle_raises_the_advertising_interval_and_input_restores_it():
    radio, board, hub, t, link = setup()
    normal = radio.adv[0]
    assert normal == t.adv_us
    t.advertise_every(1000)  # idle mode (board.json idle.adv_ms)
    t._service()  # the link task's next turn
    assert radio.adv[0] == 1000000
    assert radio.adv[1:] and B.uuid128_le(B.SERVICE_UUID) in radio.adv[1]  # the same payload
    t.advertise_every(0)  # a checker moved: the normal interval
    t._service()
    assert radio.adv[0] == normal


def test_a_connected_central_is_not_disturbed():
    radio, board, hub, t, link = setup()
    radio._connect()
    assert radio.adv is None
    t.advertise_every(1000)
    t._service()
    assert radio.adv is None  # no advertising while connected; the interval waits
    assert t.adv_us == 1000000


if not roomy(120000, 90000):
    skip_all(globals())
