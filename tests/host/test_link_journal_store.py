"""``bg.link.journal.JournalStore``: the link's view of the flash journal (a real
``bg.journal`` directory on CPython). A finished match's seed is found without expanding its
packed games; a damaged match is listed as such (not live), and over the link it can be
neither deleted nor revealed."""

import hashlib
import sys

from bg import link as P
from bg import record
from bg.journal import ERR_CORRUPT, Journal
from bg.link.journal import JournalStore
from export_helpers import random_match

SEED = bytes(range(32))


def _journal(root, finish, seed=4):
    data = random_match(seed, length=3)[0]
    acts = list(record.decode_stream(data))
    j = Journal(str(root))
    j.open()
    j.begin_match(acts[0][1], SEED)
    for k, f in acts[1:]:
        if k == record.MATCH_END:
            if finish:
                j.end_match(*f)
            break
        j.append(k, f)
    return j, bytes(acts[0][1][0])


def test_reveal_finds_the_seed_without_expanding_packed_games(tmp_path, monkeypatch):
    j, mid = _journal(tmp_path, finish=True)
    with open(j._path(mid, ".m"), "rb") as f:
        kinds = [k for k, _ in record.Decoder(f, True, False)]
    assert record.GAME_PACKED in kinds  # the finished games were compacted
    store = JournalStore(j, str(tmp_path))
    assert store.list_matches() == [(mid, j.list_matches()[0][1], P.STATE_FINISHED)]
    monkeypatch.setitem(sys.modules, "bg.record.packdec", None)  # expanding would import it: fails
    assert store.reveal_seed(mid) == SEED


def test_a_damaged_match_has_its_own_state_and_is_kept(tmp_path):
    j, mid = _journal(tmp_path, finish=False)
    path = j._path(mid, ".m")
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[len(data) // 2] ^= 0x55  # a flash error in the middle of the live match
    with open(path, "wb") as f:
        f.write(data)
    j2 = Journal(str(tmp_path))
    list(j2.open())  # replays up to the damage
    assert j2.error == ERR_CORRUPT and j2.active == mid
    store = JournalStore(j2, str(tmp_path))
    [(m, size, state)] = store.list_matches()
    assert m == mid and state == P.STATE_DAMAGED and size > 0
    # over the link: like a live match, neither deleted nor revealed (E_STATE)
    import link_helpers
    from bg.link.board import Board
    from bg.link.host import HostEnd
    from bg.link.session import Session
    from link_fakes import Clock, Rand

    codes = []
    b = Board(store, Clock(), Rand(b"dmg"), show_code=codes.append)
    b.codes = codes
    b.open_pairing(60000)
    s = Session(b, 185)
    h = HostEnd(Rand(b"host"))
    link_helpers.auth(s, h, link_helpers.pair(b, s, h))
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).digest()  # exactly the board's bytes: still refused
    r = link_helpers.exchange(s, h, h.request(P.REQ_DELETE, mid + digest))
    assert link_helpers.error_code(r[0]) == P.E_STATE
    r = link_helpers.exchange(s, h, h.request(P.REQ_REVEAL, mid))
    assert link_helpers.error_code(r[0]) == P.E_STATE
    assert store.list_matches()[0][0] == mid  # still there


def _info_board_id(store):
    import link_helpers
    from bg.link.board import Board
    from bg.link.host import HostEnd
    from bg.link.session import Session
    from link_fakes import Clock, Rand

    s = Session(Board(store, Clock(), Rand(b"id")), 185)
    h = HostEnd(Rand(b"host"))
    t, p = link_helpers.one(s, h, h.request(P.REQ_INFO), P.RSP | P.REQ_INFO)
    return bytes(p[5:13])


def test_a_board_without_a_hardware_id_draws_one_and_keeps_it(tmp_path):
    ids = []
    for name in ("a", "b"):
        root = tmp_path / name
        root.mkdir()
        j = Journal(str(root))
        list(j.open())
        ids.append(JournalStore(j, str(root)).board_id())
        again = JournalStore(j, str(root))  # the next boot: the same id
        assert again.board_id() == ids[-1]
        assert _info_board_id(again) == ids[-1]  # INFO carries it
    assert ids[0] != ids[1] and b"GAMMON00" not in ids and all(len(i) == 8 for i in ids)


def test_a_damaged_id_file_is_replaced_once_and_a_hardware_id_wins(tmp_path):
    j = Journal(str(tmp_path))
    list(j.open())
    (tmp_path / "link").mkdir()
    (tmp_path / "link" / "id").write_bytes(b"abc")  # cut short by a power loss
    bid = JournalStore(j, str(tmp_path)).board_id()
    assert len(bid) == 8 and bid != b"abc\x00\x00\x00\x00\x00"
    assert (tmp_path / "link" / "id").read_bytes() == bid
    assert JournalStore(j, str(tmp_path), b"\x01" * 8).board_id() == b"\x01" * 8


def test_the_factory_name_tells_two_boards_apart(tmp_path):
    """Two boards never renamed: each one's name ends in its id's last 4 hex digits (the
    link's INFO and the BLE advertisement carry it), so a PC paired to both, or a scan in a
    room with both, shows two names; a name given with RENAME replaces it."""
    names = []
    for k, bid in enumerate((b"\x01\x02\x03\x04\x05\x06\xab\xcd", None)):
        root = tmp_path / str(k)
        root.mkdir()
        j = Journal(str(root))
        j.open()
        store = JournalStore(j, str(root), board_id=bid, urandom=lambda n: bytes(range(40, 40 + n)))
        names.append(store.get_name())
        assert store.get_name() == "Gammon %s" % store.board_id()[-2:].hex()
        store.set_name("Salon")
        assert JournalStore(j, str(root), board_id=bid).get_name() == "Salon"
    assert names == ["Gammon abcd", "Gammon 2e2f"]


def test_a_read_in_a_fragmented_heap_gets_the_journals_reserve_between_matches(tmp_path, monkeypatch):
    """After a long match the heap may hold no run for littlefs's file object though
    kilobytes are free: the store's read meets a MemoryError, asks the device's ``spare``
    (the journal's reserve, ``app.journal_policy.Recorder``) and reads once more. Without a
    reserve to give (mid-match, or already given) the MemoryError goes to the session, which
    answers "busy"."""
    import pytest
    from app.journal_policy import Recorder

    j, mid = _journal(tmp_path, finish=True)
    rec = Recorder(None, print, print)
    rec.journal = j
    rec._reserve = bytearray(1024)
    store = JournalStore(j, str(tmp_path))
    store.spare = rec.spare
    real = j.read_match
    want = real(mid, 0, 64)
    fails = [1]

    def read(*a):
        if fails[0]:
            fails[0] -= 1
            raise MemoryError("memory allocation failed, allocating 208 bytes")
        return real(*a)

    monkeypatch.setattr(j, "read_match", read)
    assert store.read_match(mid, 0, 64) == want and rec._reserve is None
    fails[0] = 1
    with pytest.raises(MemoryError):  # nothing left to give
        store.read_match(mid, 0, 64)
    rec._reserve = bytearray(1024)
    j.active = mid  # a match being stored: the reserve stays the journal's
    fails[0] = 1
    with pytest.raises(MemoryError):
        store.read_match(mid, 0, 64)
    assert rec._reserve is not None
