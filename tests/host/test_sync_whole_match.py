"""``gammon sync`` never loses a game: against the firmware's link in process (``bg.link.board``,
``bg.link.session``, ``bg.link.journal`` over a real ``bg.journal`` directory, the in-memory
transport of ``test_link_resume``), a match is synced after every turn and again after its
end. The journal compacts every finished game (``bg.journal.pack``), so the board's file is not an
append-only extension of what the host stored earlier; the library must still end with the
final match, and the board deletes it only for the exact bytes the host stored."""

import hashlib

import pytest
from bg import link as P
from bg import record
from bg.journal import Journal
from bg.link.board import Board
from bg.link.journal import JournalStore
from bg.link.store import MemoryStore
from export_helpers import random_match
from gammon import link as L
from gammon.commands import library as cmds
from gammon.library import CONFLICT, NEW, Library
from link_fakes import Clock, Rand
from test_link_resume import Loop

SEED = bytes(range(32))


def _client(store):
    codes = []
    board = Board(store, Clock(), Rand(b"sync"), show_code=codes.append)
    board.open_pairing(60000)
    c = L.Client(Loop(board))
    host_id, key = c.pair("tester", lambda v: board.confirm_pairing())  # the owner presses ROLL
    c.close()
    c = L.Client(Loop(board))
    c.authenticate(host_id, key)
    return c


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    root = tmp_path / "flash"
    root.mkdir()
    return root


def _some_game_packs(acts):
    """Whether any game of the match packs into fewer bytes than its raw records."""
    from bg.record.packenc import Packer

    games, cur = [], None
    for k, f in acts:
        if k == record.GAME_START:
            cur = []
            games.append(cur)
        if cur is not None and k not in (record.MATCH_END, record.SEED_REVEAL):
            cur.append((k, f))
    for g in games:
        raw = b"".join(bytes(record.encode(k, f)) for k, f in g)
        p = Packer()
        p.begin()
        try:
            for k, f in record.Decoder(raw, split_turns=False, expand=False):
                p.add(k, f)
            payload = p.finish()
        except ValueError:
            continue
        if len(payload) + 4 < len(raw):
            return True
    return False


@pytest.mark.parametrize("seed", range(1, 11))
def test_sync_after_every_turn_and_at_the_end_keeps_the_final_match(env, seed):
    acts = list(record.decode_stream(random_match(seed, length=3)[0]))
    j = Journal(str(env))
    j.open()
    j.begin_match(acts[0][1], SEED)
    mid = bytes(acts[0][1][0])
    path = env / "journal" / (mid.hex() + ".m")
    c = _client(JournalStore(j, str(env)))
    problems = []
    with Library.open() as lib:
        for k, f in acts[1:]:
            if k == record.MATCH_END:
                j.end_match(*f)
                break
            j.append(k, f)
            if k in (record.PLAY, record.GAME_END):  # every turn, and right after a compaction
                stored, deleted, probs = cmds.sync(c, lib, out=lambda s: None)
                problems += probs
                assert deleted == 0  # live: never deleted
                assert lib.has(mid.hex(), path.stat().st_size), (k, probs)
        final = path.read_bytes()
        # a game the packer can shrink is compacted at its end (docs/journal.md); one it cannot
        # stays raw -- which games those are depends on the seed's plays, so ask the packer
        packed = record.GAME_PACKED in [k for k, _ in record.Decoder(final, expand=False)]
        assert packed == _some_game_packs(acts)
        stored, deleted, probs = cmds.sync(c, lib, out=lambda s: None)
        assert (stored, deleted, problems + probs) == (1, 1, [])
        assert not path.exists()  # deleted on the board once committed here
        assert lib.data(mid.hex()) == final
        assert list(record.decode_stream(lib.data(mid.hex()))) == list(record.decode_stream(final))
        assert lib.get(mid.hex()).complete and lib.conflicts(mid.hex()) == []
        # nothing left to do
        assert cmds.sync(c, lib, out=lambda s: None) == (0, 0, [])
    c.close()


def test_a_board_copy_of_the_same_size_but_other_bytes_is_kept_too(env):
    """The library holds one version; the board's finished copy has the same id and size but
    other contents. Today's sync deleted it on id and size alone; now the delete carries the
    hash of what the library holds, the board refuses it, the host fetches the board's copy,
    keeps both (a conflict, reported) and only then deletes it on the board."""
    mine = random_match(5, length=3)[0]
    acts = list(record.decode_stream(mine))
    fields = list(acts[0][1])
    fields[7] = "Alicf" if fields[7] != "Alicf" else "Alicg"  # another first player's name
    theirs = record.encode(record.MATCH_START, tuple(fields)) + mine[len(record.encode(*acts[0])) :]
    assert len(theirs) == len(mine) and theirs != mine
    mid = bytes(fields[0])
    same = random_match(6, length=1)[0]  # a second finished match, held here as it is there
    st = MemoryStore()
    st.add(mid, theirs, P.STATE_FINISHED, SEED)
    st.add(bytes(list(record.decode_stream(same))[0][1][0]), same, P.STATE_FINISHED, SEED)
    c = _client(st)
    msgs = []
    with Library.open() as lib:
        assert lib.store(mine)[0] == NEW and lib.store(same)[0] == NEW
        stored, deleted, problems = cmds.sync(c, lib, out=msgs.append)
        assert lib.data(mid.hex()) == mine  # the library's copy stays
        [copy] = lib.conflicts(mid.hex())
        assert copy["data"] == theirs and copy["sha256"] == hashlib.sha256(theirs).hexdigest()
        assert deleted == 2 and st.list_matches() == []  # gone only after it was stored here
        assert len(problems) == 1 and "kept both" in problems[0]
    c.close()


def test_a_delete_with_a_stale_hash_is_refused_and_the_match_stays(env):
    data = random_match(2, length=1)[0]
    mid = bytes(list(record.decode_stream(data))[0][1][0])
    st = MemoryStore()
    st.add(mid, data, P.STATE_FINISHED, SEED)
    c = _client(st)
    stale = hashlib.sha256(data[:-1]).digest()
    with pytest.raises(L.LinkError) as e:
        c.delete_games([(mid.hex(), stale)])
    assert e.value.code == P.E_STATE and "differs" in str(e.value)
    assert st.list_matches() == [(mid, len(data), P.STATE_FINISHED)]
    assert c.delete_games([(mid.hex(), hashlib.sha256(data).digest())]) == 1
    assert st.list_matches() == []
    c.close()


def test_a_corrupt_fetched_copy_never_replaces_the_library_copy(env):
    """The board's file of a match the library holds in part is damaged (a flash error): the
    sync stores nothing for it, keeps the good partial copy and deletes nothing."""
    full = random_match(3, length=3)[0]
    acts = list(record.decode_stream(full))
    mid = bytes(acts[0][1][0])
    part = full[: len(full) // 2]
    dec = record.Decoder(part, split_turns=False)
    for _ in dec:
        pass
    part = part[: dec.valid]
    bad = bytearray(full)
    bad[len(part) + 3] ^= 0x5A  # damage beyond what the library holds
    st = MemoryStore()
    st.add(mid, bytes(bad), P.STATE_FINISHED, SEED)
    c = _client(st)
    with Library.open() as lib:
        lib.store(part)
        stored, deleted, problems = cmds.sync(c, lib, out=lambda s: None)
        assert (stored, deleted) == (0, 0) and len(problems) == 1
        assert lib.data(mid.hex()) == part and lib.conflicts(mid.hex()) == []
        assert st.list_matches()[0][0] == mid  # still on the board
    c.close()


def test_a_match_that_differs_from_the_stored_one_is_a_conflict_with_both_kept(env):
    a = random_match(6, length=3)[0]
    acts = list(record.decode_stream(a))
    other = list(record.decode_stream(random_match(7, length=3)[0]))
    # same MATCH_START (id and commitment), then another match's actions
    b = record.encode(*acts[0]) + b"".join(record.encode(k, f) for k, f in other[1:])
    with Library.open() as lib:
        lib.store(a)
        status, e = lib.store(b)
        assert status == CONFLICT and lib.data(e.id) == a
        assert [x["data"] for x in lib.conflicts(e.id)] == [b]
        assert lib.store(b)[0] == CONFLICT and len(lib.conflicts(e.id)) == 1  # not twice
