"""app.ble on the fake ``bluetooth`` module: the link is encrypted on the air. Writes before
the central bonded are refused by the stack (``_FLAG_WRITE_ENCRYPTED``) and nothing is
notified in clear; the board's revoke-all gesture forgets the BLE bonds too. (Split from
test_link_ble.py so each module needs less heap.)"""

# mpy-heap: 112k
# Measured on the 64-bit port: needs 88k since the link's session grew (the paired host's slot
# claim: 84k ran out of memory at the login; 70k before); declared with 8k or more to spare (the fake radio is
# compiled from source here, as in test_link_ble.py; tools/bench/heapmargin.py).

# The fake radio is compiled from source here: import it first, while the heap is emptiest.
import gc

gc.collect()
import bluetooth  # noqa: E402
from link_fakes import roomy, skip_all  # noqa: E402

if roomy():
    import asyncio

    from ble_central import Central, P, setup


def test_nothing_passes_before_the_link_is_encrypted():
    """A stranger who connects without bonding: its writes are refused by the stack (as
    NimBLE does for a characteristic registered with _FLAG_WRITE_ENCRYPTED), the board's
    protocol never sees them, and the board notifies nothing in clear."""
    radio, board, hub, t, link = setup()
    rx_flags = radio._values[t.h_rx].flags
    assert rx_flags & bluetooth.FLAG_WRITE_ENCRYPTED
    radio._connect()
    radio._exchange_mtu(185)
    c = Central(radio, link, t, plain=True)
    try:
        radio._write(t.h_rx, c.host.request(P.REQ_INFO))
        raise AssertionError("an unencrypted write was accepted")
    except OSError as e:
        assert e.args[0] == 0x0F  # insufficient encryption
    c.step()
    assert radio.notified == [] and not link.encrypted
    asyncio.run(link.newest().send(P.encode_frame(P.RSP | P.REQ_INFO, 1, b"secret")))
    assert radio.notified == []  # the transport sends nothing in clear either
    radio._pair()
    r = c.ask(c.host.request(P.REQ_INFO), P.RSP | P.REQ_INFO)  # bonded: the link works
    assert link.encrypted and b"BOARD042" in r[0][1]
    conn = link.newest()
    radio._disconnect()
    assert not conn.encrypted  # a new connection must be encrypted again


def test_revoke_all_forgets_the_ble_bonds_too():
    radio, board, hub, t, link = setup()
    radio._connect()
    radio._pair()
    c = Central(radio, link, t, plain=True)
    c.step()
    assert radio._get_secret(1, b"peer-key") == b"ltk-bytes"
    hub.revoke_all()  # the board's gesture (app.main.App.revoke_all)
    assert radio.conn is None  # the central is dropped
    c.step()
    radio._connect(conn_handle=65)
    assert not radio._encrypt()  # no bond left: the laptop must pair again
    c.step()
    assert not link.encrypted and link.session is None


if not roomy():
    skip_all(globals())
