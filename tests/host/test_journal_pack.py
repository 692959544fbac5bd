"""Game-end compaction in the journal (bg.journal.pack): a finished legal game becomes one GAME_PACKED
record, the replay is unchanged, a game with a casual illegal play stays raw, a failed swap
or a leftover temp file never loses anything. (Power cuts: tests/mpy/test_journal_packcut.)"""

import os

import pack_games as PG
from bg import journal
from bg import record as R
from bg.journal import pack as jpack

MID = b"\x01\x23\x45\x67\x89\xab\xcd\xef"
SEED = bytes(range(50, 82))


def _start():
    return (MID, 1763700000, 0, 0, 0, 0, 0, "Ann", "Ben", bytes(32), b"")


def _path(root):
    return "%s/journal/%s.m" % (root, MID.hex())


def _append_game(j, raw):
    for k, f in R.Decoder(raw, split_turns=False):
        j.append(k, f)


def _kinds(path):
    with open(path, "rb") as f:
        return [k for k, _ in R.Decoder(f, split_turns=False, expand=False)]


def _legal_game(seed, no):
    # a plain game (no casual illegal play), so it packs
    return bytes(PG.game(PG.Rng(seed), no, False))


def test_finished_games_are_packed_and_replay_unchanged(tmp_path):
    root = str(tmp_path)
    j = journal.Journal(root)
    j.open()
    j.begin_match(_start(), SEED)
    g1, g2 = _legal_game(1, 1), _legal_game(2, 2)
    head = R.encode(R.MATCH_START, _start())
    _append_game(j, g1)
    assert _kinds(_path(root)) == [R.MATCH_START, R.GAME_PACKED]
    packed1 = os.path.getsize(_path(root))
    assert packed1 * 2 < len(head) + len(g1)
    assert PG.same_actions(head + g1, open(_path(root), "rb").read())
    # the next game appends after the packed one; it is packed in turn
    _append_game(j, g2)
    assert _kinds(_path(root)) == [R.MATCH_START, R.GAME_PACKED, R.GAME_PACKED]
    assert PG.same_actions(head + g1 + g2, open(_path(root), "rb").read(), False)
    # a reboot replays the same actions and appends resume at the right place
    k = journal.Journal(root)
    assert PG.same_actions(head + g1 + g2, b"".join(bytes(R.encode(*a)) for a in k.open()))
    k.end_match(0, 1, 1)
    data = open(_path(root), "rb").read()
    tail = R.encode(R.MATCH_END, (0, 1, 1)) + R.encode(R.SEED_REVEAL, (SEED,))
    assert PG.same_actions(head + g1 + g2 + tail, data)
    assert k.list_matches() == [(MID, len(data), journal.MATCH_DONE)]


def test_game_with_a_casual_illegal_play_stays_raw(tmp_path):
    root = str(tmp_path)
    j = journal.Journal(root)
    j.open()
    j.begin_match(_start(), SEED)
    rng = PG.Rng(5)
    while True:
        st = {}
        g = bytes(PG.game(rng, 1, True, st))
        if st.get("illegal") and _kinds_of(g)[-1] == R.GAME_END:
            break
    _append_game(j, g)
    assert open(_path(root), "rb").read() == R.encode(R.MATCH_START, _start()) + g


def _kinds_of(b):
    return [k for k, _ in R.Decoder(b, split_turns=False)]


def test_a_failed_swap_keeps_the_raw_game(tmp_path, monkeypatch):
    root = str(tmp_path)
    j = journal.Journal(root)
    j.open()
    j.begin_match(_start(), SEED)
    g = _legal_game(3, 1)

    def full(*a):
        raise OSError(28, "no space")

    monkeypatch.setattr(jpack.os, "rename", full)
    _append_game(j, g)  # GAME_END itself is stored; the swap fails quietly
    monkeypatch.undo()
    assert j.error == journal.OK
    raw = R.encode(R.MATCH_START, _start()) + g
    assert open(_path(root), "rb").read() == raw
    assert not os.path.exists(_path(root)[:-2] + ".t")
    j.append(R.GAME_START, (2, 1, 0, 0))
    assert PG.same_actions(raw + R.encode(R.GAME_START, (2, 1, 0, 0)), open(_path(root), "rb").read())


def test_a_leftover_temp_file_is_discarded_and_the_compaction_redone_at_boot(tmp_path):
    # A power cut after the temp file was written but before the rename: the raw file is
    # authoritative; open() deletes the temp file and packs the finished game again.
    root = str(tmp_path)
    j = journal.Journal(root)
    j.open()
    j.begin_match(_start(), SEED)
    g = _legal_game(4, 1)
    raw = R.encode(R.MATCH_START, _start()) + g
    recs = list(R.Decoder(g, split_turns=False))
    for k, f in recs[:-1]:
        j.append(k, f)
    with open(_path(root), "ab") as f:  # GAME_END stored, compaction cut before the rename
        f.write(R.encode(*recs[-1]))
    tmp = _path(root)[:-2] + ".t"
    with open(tmp, "wb") as f:
        f.write(b"\x01\x02half a packed file")
    k = journal.Journal(root)
    acts = list(k.open())
    assert not os.path.exists(tmp)
    assert _kinds(_path(root)) == [R.MATCH_START, R.GAME_PACKED]
    assert PG.same_actions(raw, open(_path(root), "rb").read())
    assert acts == list(R.decode_stream(raw))
    # a temp file next to a game still in progress changes nothing
    k.append(R.GAME_START, (2, 1, 0, 0))
    size = os.path.getsize(_path(root))
    with open(tmp, "wb") as f:
        f.write(b"junk")
    m = journal.Journal(root)
    assert len(list(m.open())) == len(acts) + 1
    assert not os.path.exists(tmp) and os.path.getsize(_path(root)) == size
