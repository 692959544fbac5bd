"""Game-end compaction of the journal (loaded by ``Journal.append`` when ``GAME_END`` is stored):
the finished game's records are re-encoded into one ``GAME_PACKED`` record (``bg.record.packdec``
has the format and the expander) and the match file is swapped atomically.

Safety (docs/journal.md, "Packed games"): the game's records are already durable when this
runs; the new file is written under a temp name, synced, checked by expanding the packed
record against the original records, and only then renamed over the match (littlefs rename
is atomic). A power cut before the rename leaves the temp file, which ``open()`` deletes:
the raw file stays authoritative. A game that cannot be packed (a casual illegal play, a
play the engine does not generate, more than 255 packed bytes) is simply kept raw.

Example::

    >>> j.append(record.GAME_END, (0, 1, 1, record.END_BEAROFF))   # calls compact(j)
"""

import os

from bg import record


def _last_game(path):
    """(offset of the last GAME_START, file's good length) when the file ends with a whole
    raw game (GAME_START ... GAME_END) without a casual illegal play, else None. Reads only
    record headers: the rules engine is not loaded for a game that stays raw."""
    with open(path, "rb") as f:
        d = record.Decoder(f, split_turns=False, expand=False)
        g0 = -1
        pos = 0
        last = 0
        for kind, fields in d:
            if kind == record.GAME_START:
                g0 = pos
            elif (
                kind == record.GAME_PACKED
                or kind == record.JOINT_SHARE
                or (kind == record.PLAY and fields[-1])
            ):
                g0 = -1  # a packed game, a two-board game's shares, an illegal play: nothing to pack
            pos = d.valid
            last = kind
        if d.status != record.OK or g0 < 0 or last != record.GAME_END:
            return None
        return g0, d.valid


def _pack(path, g0):
    from bg.record.packenc import Packer

    p = Packer()
    p.begin()
    with open(path, "rb") as f:
        f.seek(g0)
        d = record.Decoder(f, split_turns=False, expand=False)
        for kind, fields in d:
            if kind == record.GAME_START and d.records > 1:
                raise ValueError("two games")
            p.add(kind, fields)
    return p.finish()


def _same(path, g0, payload):
    """Expanding ``payload`` gives exactly the records from ``g0`` on."""
    from bg.record.decode import fields_of
    from bg.record.packdec import Expander

    x = Expander(fields_of)
    x.start(payload)
    with open(path, "rb") as f:
        f.seek(g0)
        for a in record.Decoder(f, split_turns=False, expand=False):
            if x.next(False) != a:
                return False
    return x.next(False) is None


def compact(j):
    """Pack the active match's last game if the file ends with it. True when the file was
    swapped; False when the game stays raw (unpackable, not the expected shape, or any
    storage error: the raw file is untouched and still authoritative)."""
    path = j._path(j.active, ".m")
    tmp = path[:-2] + ".t"
    try:
        lg = _last_game(path)
        if lg is None or lg[1] != j._wpos:
            return False
        g0 = lg[0]
        payload = _pack(path, g0)
        if g0 + len(payload) + 4 >= lg[1] or not _same(path, g0, payload):
            return False
        buf = j.buf
        with open(path, "rb") as src:
            with open(tmp, "wb") as dst:
                left = g0
                while left:
                    got = src.readinto(buf)
                    if not got:
                        raise OSError(5)
                    got = min(got, left)
                    dst.write(memoryview(buf)[:got])
                    left -= got
                buf[0] = record.GAME_PACKED
                buf[1] = len(payload)
                buf[2 : 2 + len(payload)] = payload
                c = record.crc16(buf, 0, 2 + len(payload))
                buf[2 + len(payload)] = c >> 8
                buf[3 + len(payload)] = c & 255
                dst.write(memoryview(buf)[: 4 + len(payload)])
                dst.flush()
        if os.stat(tmp)[6] != g0 + 4 + len(payload):
            raise OSError(5)
        os.rename(tmp, path)
    except (OSError, ValueError, IndexError, MemoryError):
        j._remove_quiet(tmp)
        return False
    j._wpos = g0 + 4 + len(payload)
    return True
