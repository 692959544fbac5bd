"""The match library (SQLite under GAMMON_HOME): identity keys, no duplicates, filters,
transactions, full disk, bad input -- and the match model's validation of record bytes."""

import sqlite3

import pytest
from bg import record
from export_helpers import MatchWriter, random_match
from gammon import library, model
from gammon.library import CONFLICT, NEW, SAME, UPDATED, Library, LibraryError


@pytest.fixture()
def lib(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    with Library.open() as lb:
        yield lb


def _match(seed, **kw):
    kw.setdefault("length", 5)
    return random_match(seed, **kw)[0]


def _snapshot(lb):
    return lb.db.execute("SELECT id, data, score0, score1 FROM matches ORDER BY id").fetchall()


def test_library_lives_in_gammon_home(lib, tmp_path):
    assert lib.path == tmp_path / "home" / "library.sqlite3"
    assert library.home() == tmp_path / "home"


def test_storing_twice_or_from_two_boards_never_duplicates(lib):
    a, b = _match(1), _match(2)
    assert lib.store(a, board="kitchen")[0] == NEW
    assert lib.store(b, board="kitchen")[0] == NEW
    assert lib.store(a, board="club")[0] == SAME
    assert lib.store(b)[0] == SAME
    assert lib.count() == 2
    e = lib.get(model.load_match(a).id_hex)
    assert e.board == "kitchen" and e.size == len(a)
    assert lib.data(e.id) == a


def test_match_in_progress_grows_then_older_copy_is_ignored(lib):
    full = _match(3)
    m = model.load_match(full)
    # the bytes up to the first game's last action: a match still being played
    dec = record.Decoder(full, split_turns=False)
    cut = 0
    for k, _f in dec:
        if k == record.GAME_END:
            break
        cut = dec.valid
    part = full[:cut]
    assert lib.store(part)[0] == NEW
    e = lib.get(m.id_hex)
    assert e.winner is None and e.result_text() == "in progress"
    st, e = lib.store(full)
    assert st == UPDATED and e.winner == m.winner and e.score == m.final_score
    assert lib.store(part)[0] == SAME
    assert lib.data(m.id_hex) == full


def test_same_id_different_contents_keeps_the_stored_copy(lib):
    a = _match(4)
    b = bytearray(_match(5))
    b[2:10] = a[2:10]  # same match id, recomputing MATCH_START's checksum
    c = record.crc16(b, 0, b[1] + 2)
    n = b[1] + 2
    b[n], b[n + 1] = c >> 8, c & 255
    assert model.load_match(bytes(b)).id_hex == model.load_match(a).id_hex
    lib.store(a)
    assert lib.store(bytes(b))[0] == CONFLICT
    assert lib.data(model.load_match(a).id_hex) == a


def test_filters(lib):
    lib.store(_match(1, names=("Alice", "Bob"), unix_time=1_700_000_000))  # 2023-11-14
    lib.store(_match(2, names=("Carol", "alice b"), unix_time=1_710_000_000))  # 2024-03-09
    lib.store(_match(6, names=("Dan", "Eve"), length=0, flags=record.OPT_BEAVER, unix_time=1_720_000_000))
    assert len(lib.find()) == 3
    assert {e.player0 for e in lib.find(player="ALICE")} == {"Alice", "Carol"}
    assert [e.player0 for e in lib.find(since=1_705_000_000)] == ["Carol", "Dan"]
    assert [e.player0 for e in lib.find(until=1_705_000_000)] == ["Alice"]
    assert [e.player0 for e in lib.find(length=0)] == ["Dan"]
    won = lib.find(player="alice", result="won")
    lost = lib.find(player="alice", result="lost")
    assert len(won) + len(lost) == 2
    for e in won:
        assert "alice" in e.players[e.winner].lower()
    for e in lost:
        assert "alice" not in e.players[e.winner].lower()
    with pytest.raises(LibraryError, match="needs --player"):
        lib.find(result="won")


def test_resolve_game_ids(lib):
    a = model.load_match(_match(1)).id_hex
    lib.store(_match(1))
    assert lib.resolve(a) == a and lib.resolve(a[:6].upper()) == a and lib.resolve("#1") == a
    for bad, msg in (("zz", "at least 4 hex"), ("#9", "no game #9"), ("ffff0000", "not in the library")):
        with pytest.raises(LibraryError, match=msg):
            lib.resolve(bad)


def test_bad_records_store_nothing(lib):
    good = _match(1)
    lib.store(good)
    before = _snapshot(lib)
    torn = _match(2)[:-3]
    flipped = bytearray(_match(2))
    flipped[40] ^= 0x55
    for bad in (b"", b"\x00\x01garbage", torn, bytes(flipped)):
        with pytest.raises(ValueError):
            lib.store(bad)
    assert _snapshot(lib) == before


def test_full_disk_loses_nothing(lib):
    lib.store(_match(1))
    before = _snapshot(lib)
    pages = lib.db.execute("PRAGMA page_count").fetchone()[0]
    lib.db.execute("PRAGMA max_page_count=%d" % pages)  # the disk is now full
    big = MatchWriter(0, length=0, flags=record.OPT_BEAVER).play_match(max_games=40)  # > a free page
    with pytest.raises(LibraryError, match="disk is full"):
        lib.store(big)
    assert _snapshot(lib) == before
    lib.db.execute("PRAGMA max_page_count=1073741823")
    assert lib.store(big)[0] == NEW


def test_damaged_library_file_is_one_line(tmp_path):
    p = tmp_path / "library.sqlite3"
    p.write_bytes(b"this is not a database" * 100)
    with pytest.raises(LibraryError, match="damaged"):
        Library(p).count()


class _FailAfterInsert:
    """A connection stand-in whose INSERT is carried out and then fails (an I/O error in the
    middle of the transaction): the transaction must roll it back."""

    def __init__(self, db):
        self.db = db

    def execute(self, sql, *a):
        r = self.db.execute(sql, *a)
        if sql.lstrip().startswith("INSERT INTO matches"):
            raise sqlite3.OperationalError("disk I/O error")
        return r

    def __enter__(self):
        return self.db.__enter__()

    def __exit__(self, *exc):
        return self.db.__exit__(*exc)


def test_interrupted_store_rolls_back(lib):
    lib.store(_match(1))
    before = _snapshot(lib)
    real = lib.db
    lib.db = _FailAfterInsert(real)
    with pytest.raises(LibraryError, match="nothing was changed"):
        lib.store(_match(2))
    lib.db = real
    assert _snapshot(lib) == before


# --- the match model -------------------------------------------------------------------


def test_model_replays_every_position():
    data, seen = random_match(1, length=7)
    m = model.load_match(data)
    assert m.complete and m.winner is not None and m.final_score[m.winner] >= 7 > m.final_score[1 - m.winner]
    assert any(g.crawford for g in m.games) and "crawford" in seen
    for g in m.games:
        plays = g.plays()
        for a, b in zip(plays, plays[1:]):
            assert a.after == b.pos  # cube/resign actions leave the position alone
        assert plays[0].opening and not plays[1].opening


def test_model_names_the_first_illegal_play():
    w = record.encode
    data = (
        w(record.MATCH_START, (b"\x02" * 8, 0, 3, 1, 0, 0, 0, "Ann", "Ben", bytes(32), b""))
        + w(record.GAME_START, (1, 0, 0, 0))
        + w(record.OPENING, (0, (3, 1)))
        + w(record.PLAY, (0, (8, 4, 6, 5), 0))
    )
    with pytest.raises(ValueError, match=r"action 4: illegal play '8/4 6/5' with 31 by Ann in game 1"):
        model.load_match(data)


@pytest.mark.parametrize(
    "actions, msg",
    [
        ([(record.GAME_START, (1, 0, 0, 0))], "must begin with MATCH_START"),
        ([(record.ROLL, (0, 3, 1))], "outside a game"),
        ([(record.GAME_START, (2, 0, 0, 0))], "number 2, expected 1"),
        (
            [(record.GAME_START, (1, 0, 0, 0)), (record.OPENING, (0, (3, 1))), (record.DOUBLE, (0, 2))],
            "out of turn",
        ),
        (
            [
                (record.GAME_START, (1, 0, 0, 0)),
                (record.OPENING, (0, (3, 1))),
                (record.PLAY, (0, (8, 5, 6, 5), 0)),
                (record.DOUBLE, (1, 4)),
            ],
            "DOUBLE to 4 with the cube at 1",
        ),
        (
            [
                (record.GAME_START, (1, 0, 0, 0)),
                (record.OPENING, (0, (3, 1))),
                (record.PLAY, (0, (8, 5, 6, 5), 0)),
                (record.GAME_END, (0, 1, 1, record.END_BEAROFF)),
            ],
            "has not borne off",
        ),
    ],
)
def test_model_rejects_actions_out_of_order(actions, msg):
    start = (record.MATCH_START, (b"\x03" * 8, 0, 3, 1, 0, 0, 0, "A", "B", bytes(32), b""))
    if actions[0][0] == record.GAME_START and actions[0][1][0] == 1 and msg.startswith("must"):
        seq = actions
    else:
        seq = [start] + actions
    with pytest.raises(ValueError, match=msg):
        model.build(seq)


def test_split_matches_keeps_each_matchs_bytes():
    a, b = _match(1), _match(2)
    parts = model.split_matches(a + b + b"\x05\x09\x00")  # plus a torn tail
    assert [p for p, _n in parts] == [a, b]
    assert parts[0][1] == "" and "damaged tail" in parts[1][1]
    with pytest.raises(ValueError, match="not a board record"):
        model.split_matches(b"\x00garbage")
