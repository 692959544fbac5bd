"""The host's key store (``gammon.link.Boards``, ``boards.json``) is keyed by board id: two
boards paired from one host keep both keys (before unique ids every board said ``GAMMON00``
and the second pairing overwrote the first key); a store written the old way is migrated to
the board's real id once its key authenticates, and read without losing a key when it does
not. The boards are the firmware's link (``bg.link.board``/``linksession`` over
``bg.link.journal`` on a real journal directory, each with its own random id) in process."""

import json

import pytest
from bg.journal import Journal
from bg.link.board import Board
from bg.link.journal import JournalStore
from bg.link.session import Session
from gammon import link as L
from link_fakes import Clock, Rand


class Loop:
    """An in-memory transport: frames go straight into a board ``Session``."""

    mtu = 515

    def __init__(self, board):
        self.s = Session(board, self.mtu)
        self.out = bytearray()

    def send(self, data):
        self.s.feed(data)
        self._pump()

    def _pump(self):
        f = self.s.pump()
        while f is not None:
            self.out += f
            f = self.s.pump()

    def recv(self, timeout):
        self._pump()  # what the board queued meanwhile (its answer once ROLL was pressed)
        data = bytes(self.out)
        self.out = bytearray()
        return data

    def close(self):
        self.s.close()


def _board(root, seed):
    root.mkdir()
    j = Journal(str(root))
    list(j.open())
    codes = []
    b = Board(JournalStore(j, str(root)), Clock(), Rand(seed), show_code=codes.append)
    b.codes = codes
    b.open_pairing(60000)
    return b


@pytest.fixture
def air(tmp_path, monkeypatch):
    """Boards by address; ``gammon.link`` opens an in-memory transport to them."""
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    boards = {}
    monkeypatch.setattr(L, "open_transport", lambda address: Loop(boards[address]))
    return boards


def _pair(air, address, board):
    air[address] = board
    return L.pair(address, lambda v: board.confirm_pairing(), host_name="laptop")  # ROLL pressed


def test_two_boards_paired_from_one_host_keep_both_keys(tmp_path, air):
    a = _board(tmp_path / "a", b"a")
    b = _board(tmp_path / "b", b"b")
    ida = _pair(air, "tcp:127.0.0.1:7607", a)
    idb = _pair(air, "tcp:127.0.0.1:7608", b)
    assert ida != idb and ida == a.store.board_id().hex() and idb == b.store.board_id().hex()
    saved = L.Boards().data["boards"]
    assert sorted(saved) == sorted([ida, idb])
    assert L.Boards().data["default"] == idb  # the board just paired: no --board needed next
    for spec in (ida, idb, "tcp:127.0.0.1:7607", "tcp:127.0.0.1:7608", None):
        with L.connect(spec) as c:  # each key still authenticates its own board
            assert c.info()["authenticated"]


def test_two_boards_at_one_address_each_use_their_own_key(tmp_path, air):
    """The simulator restarted on another flash image answers at the same address."""
    a = _board(tmp_path / "a", b"a")
    b = _board(tmp_path / "b", b"b")
    ida = _pair(air, "tcp:127.0.0.1:7607", a)
    idb = _pair(air, "tcp:127.0.0.1:7607", b)
    assert len(L.Boards().data["boards"]) == 2
    for board, bid in ((a, ida), (b, idb), (a, ida)):
        air["tcp:127.0.0.1:7607"] = board
        with L.connect("tcp:127.0.0.1:7607") as c:
            info = c.info()
            assert info["authenticated"] and info["board_id"] == bid


def _legacy_store(cfg, address, host_id, key):
    """``boards.json`` as hosts wrote it while every board said GAMMON00."""
    cfg.mkdir(parents=True, exist_ok=True)
    old = b"GAMMON00".hex()
    entry = {"name": "Gammon", "address": address, "host_id": host_id.hex(), "key": key.hex(), "paired": 1}
    (cfg / "boards.json").write_text(json.dumps({"default": old, "boards": {old: entry}}))
    (cfg / "partial" / old).mkdir(parents=True)
    (cfg / "partial" / old / "0102030405060708.part").write_bytes(b"kept bytes")
    return old


def test_a_store_keyed_the_old_way_moves_to_the_real_id_once_the_key_proves_it(tmp_path, air):
    a = _board(tmp_path / "a", b"a")
    host_id, key = b"HOSTOLD1", b"K" * 32
    a.add_host(host_id, key, "laptop")  # paired under the old firmware: the board kept the key
    air["tcp:127.0.0.1:7607"] = a
    cfg = tmp_path / "cfg"
    old = _legacy_store(cfg, "tcp:127.0.0.1:7607", host_id, key)
    assert L.Boards().data["default"] == old
    with L.connect(None) as c:  # the default: the old id, a board that now says its own
        assert c.info()["authenticated"]
    real = a.store.board_id().hex()
    data = L.Boards().data
    assert list(data["boards"]) == [real] and data["default"] == real
    assert data["boards"][real]["key"] == key.hex() and data["boards"][real]["host_id"] == host_id.hex()
    assert (cfg / "partial" / real / "0102030405060708.part").read_bytes() == b"kept bytes"
    with L.connect("tcp:127.0.0.1:7607") as c:  # and from now on by its real id
        assert c.info()["authenticated"]


def test_a_store_keyed_the_old_way_loses_nothing_when_the_key_is_refused(tmp_path, air):
    a = _board(tmp_path / "a", b"a")  # a board that does not know this key
    air["tcp:127.0.0.1:7607"] = a
    cfg = tmp_path / "cfg"
    _legacy_store(cfg, "tcp:127.0.0.1:7607", b"HOSTOLD1", b"K" * 32)
    before = (cfg / "boards.json").read_text()
    with pytest.raises(L.LinkError, match="wrong code or key"):
        L.connect(None)
    assert (cfg / "boards.json").read_text() == before  # the old entry and its key are kept
    # pairing this board now (after its back-off) adds its own entry beside the old one
    a.clock.advance(1000)
    _pair(air, "tcp:127.0.0.1:7607", a)
    assert len(L.Boards().data["boards"]) == 2
