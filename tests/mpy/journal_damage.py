"""The checks behind test_journal_damage: a real recorded match's file on littlefs, every byte
flipped in turn and every truncation, opened as the board opens it at boot.

The match is journal_packref's legal games: the first game finished (so the file holds its
packed form, bg.journal.pack) and the second in progress (raw records after it). For each
damaged copy of the file, with the seed and the ``active`` file as the board left them:

- ``open()`` never raises (a board that raised here would reset into the same replay);
- the replay is exactly the actions of the records wholly before the damage: nothing that can
  still be read is lost, nothing damaged or invented is replayed;
- the journal says what it dropped: ``ERR_CORRUPT`` for damage with records after it (the file
  kept byte for byte), ``dropped`` bytes for a damaged or cut last record, a damaged
  ``MATCH_START`` a damaged match that is not resumed;
- the board goes on: a resumed match appends its next action, a damaged one is abandoned by
  the next ``begin_match`` (its reveal after all of its bytes) and the new match starts.
"""

import gc
import sys

import journal_flash as F
from bg import journal, record

MATCH_ID = b"\x5a\x17\x00\xc3\x81\x42\x24\x99"
NEW_ID = b"\x5a\x17\x00\xc3\x81\x42\x24\x9a"
SEED = bytes(range(40, 72))
_LIVE_ACTIONS = 14  # actions of the second game already played


def _fields(mid):
    return (mid, 1763700000, 3, record.OPT_CRAWFORD, 0, 0, 0, "Ann", "Bo", bytes(32), b"")


def _record_match(root):
    """Journal the reference match through ``Journal.append`` (game-end compaction included) and
    return the stored file's bytes."""
    import journal_packref

    ref, ends, game_ends = journal_packref.reference()
    del journal_packref
    sys.modules.pop("journal_packref", None)
    gc.collect()
    j = journal.Journal(root)
    j.open()
    j.begin_match(_fields(MATCH_ID), SEED)
    d = record.Decoder(ref, split_turns=False)
    for _ in range(game_ends[0] + 1 + _LIVE_ACTIONS):
        kind, fields = next(d)
        j.append(kind, fields)
    next_action = next(d)
    del ref, d
    gc.collect()
    with open(j._path(MATCH_ID, ".m"), "rb") as f:
        stored = f.read()
    return stored, next_action


def _bounds(stored):
    """End offset of each stored record."""
    d = record.Decoder(stored, split_turns=False, expand=False)
    out = []
    for _ in d:
        out.append(d.valid)
    assert d.status == record.OK and out[-1] == len(stored)
    return out


def _place(root, data):
    # the board's files as it left them: the match file (damaged), its seed, ``active``
    d = root + "/journal"
    for n in F.os.listdir(d):
        F.os.remove(d + "/" + n)
    with open(d + "/" + journal._hexid(MATCH_ID) + ".m", "wb") as f:
        f.write(data)
    c = record.crc16(SEED)
    with open(d + "/" + journal._hexid(MATCH_ID) + ".s", "wb") as f:
        f.write(SEED + bytes((c >> 8, c & 255)))
    with open(d + "/active", "wb") as f:
        f.write(journal._hexid(MATCH_ID).encode())


def _same(replay, prefix):
    exp = record.Decoder(prefix)
    for a in replay:
        if a != next(exp, None):
            return False
    return next(exp, None) is None


class _Tally:
    def __init__(self):
        self.corrupt = 0  # damage in the middle: kept, reported, not appended to
        self.dropped = 0  # a damaged or cut last record dropped and said so
        self.resumed = 0  # the match resumed and took its next action
        self.unstarted = 0  # nothing left of the match (an empty file)


def _boot(root, data, intact, bounds, next_action, t):
    """Open the damaged ``data`` as the board does; ``intact``: bytes before the damage."""
    _place(root, data)
    j = journal.Journal(root)
    replay = j.open()  # must not raise
    good = 0  # bytes of the records wholly before the damage
    for e in bounds:
        if e <= intact:
            good = e
    if good == 0:
        # MATCH_START itself damaged or cut: never resumed; bytes kept, unless there were none
        assert list(replay) == [] and j.active is None, (intact, j.error)
        if len(data):
            assert j.error == journal.ERR_CORRUPT, (intact, j.error)
            assert F.os.stat(root + "/journal/" + journal._hexid(MATCH_ID) + ".m")[6] == len(data)
            t.corrupt += 1
        else:
            assert j.error == journal.OK
            t.unstarted += 1
    else:
        assert j.active == MATCH_ID, (intact, j.error)
        assert _same(replay, memoryview(data)[:good]), ("replay", intact, good)
        lost = len(data) - good
        if j.error == journal.ERR_CORRUPT:
            # records after the damage: the file kept byte for byte for the host
            assert lost and F.os.stat(j._path(MATCH_ID, ".m"))[6] == len(data), intact
            t.corrupt += 1
        else:
            assert j.error == journal.OK, (intact, j.error)
            assert j.dropped == lost, ("dropped", intact, j.dropped, lost)
            t.dropped += lost > 0
            kind, fields = next_action if good == len(data) else (record.TAKE, (0,))
            j.append(kind, fields)  # the board goes on
            j.open()
            assert j.error == journal.OK and j._wpos == good + len(record.encode(kind, fields)), intact
            t.resumed += 1
    # Whatever was found, a new match starts (a damaged one is abandoned, its reveal after its bytes)
    j.begin_match(_fields(NEW_ID), bytes(32))
    assert j.error == journal.OK and j.active == NEW_ID
    gc.collect()


def test_every_byte_flipped_and_every_truncation_of_a_recorded_match():
    gc.collect()
    dev = F.fresh(F.tmpdir() + "/dmg.img", 32, "/dmg")
    try:
        stored, next_action = _record_match("/dmg")
        bounds = _bounds(stored)
        kinds = [k for k, _ in record.Decoder(stored, split_turns=False, expand=False)]
        assert record.GAME_PACKED in kinds and kinds[-1] != record.GAME_PACKED, kinds
        data = bytearray(stored)
        t = _Tally()
        for i in range(len(stored)):
            data[i] ^= 0xFF
            _boot("/dmg", data, i, bounds, next_action, t)
            data[i] ^= 0xFF
        flips = (t.corrupt, t.dropped, t.resumed)
        t = _Tally()
        for n in range(len(stored) + 1):
            _boot("/dmg", memoryview(stored)[:n], n, bounds, next_action, t)
        print(
            "journal file:",
            len(stored),
            "bytes,",
            len(bounds),
            "records; flips kept/dropped/resumed:",
            flips,
            "truncations kept/dropped/resumed/empty:",
            (t.corrupt, t.dropped, t.resumed, t.unstarted),
        )
        # every outcome happened: damage in the middle, in the last record, in MATCH_START
        assert flips[0] and flips[1] and flips[2]
        assert t.dropped and t.resumed == len(stored) + 1 - bounds[0] and t.unstarted == 1
    finally:
        F.umount("/dmg")
        dev.close()
