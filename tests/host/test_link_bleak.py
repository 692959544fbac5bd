"""The host tool over BLE: ``gammon.link.BleTransport`` and ``gammon scan`` against a fake of
bleak (tests/fakes_host/bleak, put on the path only here) with the real board-side protocol
(``bg.link.board``/``linksession``/``linkreq``) behind it, sending as the firmware's
``app/ble.py`` does: notifications of at most MTU - 3 bytes, a new session per connection.

Pair (the code the board shows), authenticate, list, fetch with the link dropped mid-transfer
and resumed, delete, watch; an unpaired client is refused; ``gammon scan`` lists the board
and nothing else; without bleak, one line of error."""

import sys
import threading
import time
from pathlib import Path

import link_scenario as S
import pytest
from bg import link as P
from bg import record
from bg.link.store import MemoryStore
from gammon import cli
from gammon import link as L
from link_scenario import BIG  # MATCH001 of the fake board

FAKES = Path(__file__).resolve().parents[1] / "fakes_host"
ADDR = "C4:DE:E2:10:20:01"


def _forget_fakes():
    for name in list(sys.modules):
        if name == "bleak" or name.startswith("bleak.") or name == "ble_board":
            del sys.modules[name]


def make_store():
    st = MemoryStore(b"BLEBOARD", "Kitchen board")
    st.add(b"MATCH001", BIG, P.STATE_FINISHED, b"S" * 32)
    st.add(b"MATCH002", b"short finished match", P.STATE_FINISHED, b"T" * 32)
    st.add(b"MATCH003", b"live match so far", P.STATE_LIVE, b"U" * 32)
    return st


class Radio:
    """The fake air with the board (and, optionally, a stranger device) in range."""

    def __init__(self, mtu=247):
        import ble_board
        from bleak import _air

        self.air = _air
        _air.clear()
        self.board = _air.add(ble_board.BoardPeripheral(ADDR, make_store(), rssi=-52, preferred_mtu=mtu))
        self.address = "ble:" + ADDR

    def add_stranger(self):
        return self.air.add(
            self.air.Peripheral(
                "5A:11:22:33:44:55",
                "Headphones",
                service_uuids=["0000110b-0000-1000-8000-00805f9b34fb"],
                rssi=-40,
                characteristics={"00002a37-0000-1000-8000-00805f9b34fb": ["notify"]},
            )
        )

    def code(self, value):
        """The host's ``show_value``: the board showed the same number (and its owner,
        ``BoardPeripheral``, pressed ROLL)."""
        assert self.board.codes[-1] == value


@pytest.fixture
def fake_bleak(monkeypatch, tmp_path):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    _forget_fakes()
    monkeypatch.syspath_prepend(str(FAKES))
    yield
    _forget_fakes()
    leaked = [t for t in threading.enumerate() if t.name == "gammon-ble"]
    assert not leaked, "BLE loop threads left running: %r" % leaked


@pytest.fixture
def radio(fake_bleak):
    r = Radio()
    yield r
    r.air.clear()


def test_scan_lists_the_board_and_nothing_else(radio, capsys):
    radio.add_stranger()
    assert cli.main(["scan", "--timeout", "0.05"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].split() == ["ble:" + ADDR, "Kitchen", "board", "-52", "dBm"]


def test_scan_filters_itself_when_the_backend_does_not(radio, monkeypatch):
    """Some backends pass every advertisement through: the tool checks the UUID itself."""
    import asyncio

    import bleak

    leaky = bleak._advertising
    monkeypatch.setattr(bleak, "_advertising", lambda uuids: leaky(None))
    radio.add_stranger()
    other = radio.air.add(radio.air.Peripheral("C4:DE:E2:10:20:02", "Hall board", [L.BLE_SERVICE_UUID], -70))
    assert other.advertising()
    found = asyncio.run(L.scan(0.01))
    assert found == [(ADDR, "Kitchen board", -52), ("C4:DE:E2:10:20:02", "Hall board", -70)]


def test_scan_empty_and_connected_board_not_listed(radio, capsys):
    with L.Client(L.open_transport(radio.address)) as c:  # connected: the board stops advertising
        assert c.info()["name"] == "Kitchen board"
        assert cli.main(["scan", "--timeout", "0.01"]) == 1
    assert "no board found" in capsys.readouterr().out
    assert cli.main(["scan", "--timeout", "0.01"]) == 0
    assert cli.main(["scan", "--timeout", "0"]) == 2
    assert "--timeout must be" in capsys.readouterr().err


def test_pair_list_fetch_drop_resume_delete_watch(radio):
    board = radio.board
    bid = L.pair(radio.address, radio.code, host_name="ble-host")
    assert bid == b"BLEBOARD".hex()
    assert L.Boards().find(None)[1]["address"] == radio.address

    with L.connect() as c:
        assert c.t.mtu == 247 and c.t.wsize == 244
        games = S.list_reference_matches(c)
        board.drop_after = 12  # the board goes out of range in the middle of the transfer
        got = []
        with pytest.raises(L.LinkError, match="link lost"):
            c.fetch_game(games[0]["id"], progress=lambda d, t: got.append(d))
        assert 0 < got[-1] < 5000
    assert board.session is None  # the board closed the dropped session
    kept = got[-1]

    with L.connect(radio.address) as c:  # a new connection resumes from what was kept
        S.resume_fetch(c, games, kept)
        assert c.reveal_seed(games[0]["id"]) == b"S" * 32
        S.delete_only_finished(c, games)

        stop = threading.Event()

        def ticker():  # the controller confirming actions (Hub.publish)
            n = 0
            while not stop.wait(0.02):
                n += 1
                board.publish(record.encode(record.ROLL, (n & 1, n % 6 + 1, n // 6 % 6 + 1)))

        th = threading.Thread(target=ticker)
        th.start()
        try:
            ticks = []
            for rec in c.watch():
                ticks.append(rec)
                if len(ticks) == 3:
                    break
        finally:
            stop.set()
            th.join()
        acts = [a for t in ticks for a in record.decode_stream(t)]
        assert [k for k, _ in acts] == [record.ROLL] * 3
        assert c.list_games()  # still a working session after watch
        c.rename("Salon")
        assert c.info()["name"] == "Salon"
        assert c.set_clock(1800000000) == 1800000000
        assert abs(board.clock.unix_time() - 1800000000) <= 1
    assert board.name == "Salon"  # advertised under the new name
    assert board.connections == 3
    assert board.notified and max(len(n) for n in board.notified) <= 247 - 3
    assert sum(len(n) == 244 for n in board.notified) > 10  # full packets in the transfer


def test_small_mtu_board(fake_bleak):
    """A central that only gets the default ATT MTU (23): 20-byte writes and notifications
    (pairing sends an 88-byte PAIR_START frame: 5 writes)."""
    r = Radio(mtu=23)
    try:
        L.pair(r.address, r.code, host_name="old-phone")
        with L.connect(r.address) as c:
            assert c.t.wsize == 20
            assert c.fetch_game(b"MATCH002".hex()) == b"short finished match"
            assert c.fetch_game(b"MATCH001".hex(), offset=5000 - 16 * 32) == BIG[-16 * 32 :]
        assert max(len(n) for n in r.board.notified) == 20
    finally:
        r.air.clear()


def test_fetch_longer_than_the_window(fake_bleak):
    r = Radio(mtu=23)  # 32 data bytes per DATA frame: 5000 bytes are 157 frames
    try:
        L.pair(r.address, r.code, host_name="old-phone")
        with L.connect(r.address) as c:
            assert c.fetch_game(b"MATCH001".hex()) == BIG
    finally:
        r.air.clear()


def test_linux_host_uses_the_characteristic_write_size(radio, monkeypatch):
    """On BlueZ ``mtu_size`` reads 23 whatever was negotiated; the RX characteristic's
    ``max_write_without_response_size`` is right, so writes still fill the packets."""
    import bleak

    monkeypatch.setattr(bleak, "_BLUEZ_MTU_QUIRK", True)
    L.pair(radio.address, radio.code, host_name="linux")
    with L.connect(radio.address) as c:
        assert c.t.mtu == 23 and c.t.wsize == 244
        assert [g["size"] for g in c.list_games()] == [5000, 20, 17]


def test_watch_ends_when_the_link_drops(radio):
    L.pair(radio.address, radio.code, host_name="watcher")
    board = radio.board
    with L.connect(radio.address) as c:
        board.publish(record.encode(record.ROLL, (0, 3, 1)))  # nobody watches yet: not queued
        timer = threading.Timer(0.2, board.drop)  # the board resets while the host watches
        timer.start()
        t0 = time.monotonic()
        got = []
        with pytest.raises(L.LinkError, match="link lost: the board disconnected"):
            for rec in c.watch():
                got.append(rec)
        timer.join()
        assert got == []
        assert time.monotonic() - t0 < 3  # reported at once, not after a request timeout
    assert board.session is None and board.advertising()


def test_cli_pair_and_board_info_over_ble(radio, monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt="": "y")  # the numbers match
    assert cli.main(["pair", radio.address, "--name", "cli-host"]) == 0
    out = capsys.readouterr().out
    v = radio.board.codes[-1]
    assert "Pairing number: %s %s" % (v[:3], v[3:]) in out and "paired with Kitchen board" in out
    assert cli.main(["board", "info"]) == 0
    out = capsys.readouterr().out
    assert "game " + b"MATCH003".hex() in out and "live" in out and "authenticated   True" in out


def test_cli_pair_answered_no_stores_nothing(radio, monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt="": "n")  # the user saw another number
    assert cli.main(["pair", radio.address, "--name", "cli-host"]) == 2
    assert "numbers differ (nothing stored)" in capsys.readouterr().err
    assert L.Boards().data["boards"] == {}  # the host stored no key
    with pytest.raises(ValueError, match="not paired"):
        L.connect(radio.address)


def test_unpaired_client_is_refused(radio):
    with L.Client(L.open_transport(radio.address)) as c:
        info = c.info()
        assert info["authenticated"] is False and info["board_id"] == b"BLEBOARD".hex()
        with pytest.raises(L.LinkError) as e:
            c.list_games()
        assert e.value.code == P.E_AUTH
        with pytest.raises(L.LinkError) as e:
            c.authenticate(b"STRANGER", bytes(32))
        assert e.value.code == P.E_DENIED
    with pytest.raises(ValueError, match="not paired"):
        L.connect(radio.address)


def test_no_board_at_that_address(radio):
    t0 = time.monotonic()
    with pytest.raises(L.LinkError, match="was not found"):
        L.open_transport("ble:00:11:22:33:44:55")
    assert time.monotonic() - t0 < 5
    stranger = radio.add_stranger()
    with pytest.raises(L.LinkError, match="not a gammon board"):
        L.open_transport("ble:" + stranger.address)
    assert stranger.central is None  # and it was disconnected again


def test_without_bleak_one_line_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setitem(sys.modules, "bleak", None)  # import bleak -> ImportError
    assert cli.main(["scan"]) == 2
    err = capsys.readouterr().err
    assert err == "gammon: error: scanning needs bleak: pip install 'gammon[ble]'\n"
    assert cli.main(["pair", "ble:" + ADDR]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "gammon: error: pairing failed: BLE needs bleak: pip install 'gammon[ble]' (or pip install bleak)"
    ]


def test_a_stranger_that_does_not_bond_gets_nothing_through(radio):
    """The eavesdropper's friend: connects without bonding, writes a request. The board's
    radio refuses the write (insufficient encryption); nothing reaches the protocol and
    nothing is sent in clear."""
    import asyncio

    from bleak import BleakClient
    from bleak.exc import BleakError

    async def stranger():
        async with BleakClient(ADDR) as c:
            await c.start_notify(L.BLE_TX_UUID, lambda s, d: None)
            with pytest.raises(BleakError, match="Insufficient Encryption"):
                await c.write_gatt_char(L.BLE_RX_UUID, P.encode_frame(P.REQ_INFO, 1, b""), response=True)

    asyncio.run(stranger())
    b = radio.board
    assert b.refused_writes == 1 and b.notified == [] and b.bonds == set() and b.connections == 1


def test_the_host_bonds_so_every_frame_is_encrypted_on_the_air(radio):
    b = radio.board
    with L.Client(L.open_transport(radio.address)) as c:
        assert c.info()["name"] == "Kitchen board"
        assert b.link_encrypted and b.bonds and b.notified  # answered, over the encrypted link
    assert b.refused_writes == 0
    with L.Client(L.open_transport(radio.address)) as c:  # bonded: encrypted again at once
        assert c.info()["name"] == "Kitchen board" and b.link_encrypted


def test_bonding_that_fails_is_one_clear_error(radio, monkeypatch):
    from bleak import BleakClient
    from bleak.exc import BleakError

    async def refused(self, *args, **kwargs):
        raise BleakError("org.bluez.Error.AuthenticationFailed")

    monkeypatch.setattr(BleakClient, "pair", refused)
    with pytest.raises(L.LinkError, match="could not bond.*encrypted link.*6 digits"):
        L.open_transport(radio.address)
    assert radio.board.notified == [] and radio.board.central is None  # and disconnected
