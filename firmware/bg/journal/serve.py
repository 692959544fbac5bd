"""What the link serves from the journal (loaded on demand by ``bg.journal``): the list of
matches, their bytes, deletion of synced ones. Only ``.m`` files are ever read here, and a
live match's secret seed is never in its ``.m`` file, so nothing secret can leak."""

import os

from micropython import const

from bg.journal import (
    ERR_CORRUPT,
    ERR_FULL,
    MATCH_DAMAGED,
    MATCH_DONE,
    MATCH_LIVE,
    OK,
    _errno,
    _exists,
    _parse_hexid,
    _size,
)

_ENOENT = const(2)
_MAX_READ = const(4096)


def list_matches(j):
    """``[(match_id, size, state)]`` for every stored match (``MATCH_LIVE``,
    ``MATCH_DONE`` or ``MATCH_DAMAGED``); ``size`` counts the servable bytes."""
    j._need_fs()
    out = []
    try:
        names = os.listdir(j.dir)
    except OSError as e:
        j._fail(e, "list matches")
    for n in sorted(names):
        if not n.endswith(".m"):
            continue
        mid = _parse_hexid(n[:-2])
        if mid is None:
            continue
        path = j.dir + "/" + n
        try:
            size = _size(path)
        except OSError:
            continue
        state = MATCH_LIVE if _exists(j._path(mid, ".s")) else MATCH_DONE
        if mid == j.active:
            if j.error == ERR_CORRUPT:
                state = MATCH_DAMAGED
            else:
                size = j._wpos
        out.append((mid, size, state))
    return out


def read_match(j, match_id, offset, n):
    """Up to ``n`` bytes (at most 4096) of a match's record stream from ``offset``;
    ``b""`` past the end. Works for finished and in-progress matches and never returns
    the secret seed (it is not in the file before the reveal)."""
    j._need_fs()
    path = j._path(match_id, ".m")
    if not isinstance(offset, int) or offset < 0 or not isinstance(n, int) or n < 0:
        raise ValueError("offset and length must be non-negative integers")
    n = min(n, _MAX_READ)
    try:
        live = bytes(match_id) == j.active and j.error != ERR_CORRUPT
        limit = j._wpos if live else _size(path)
    except OSError:
        raise ValueError("no such match") from None
    if offset >= limit:
        return b""
    n = min(n, limit - offset)
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read(n)
    except OSError as e:
        j._fail(e, "read match")


def delete_match(j, match_id):
    """Delete a finished match (the host confirmed it stored it). Refuses a match in
    progress."""
    j._need_fs()
    path = j._path(match_id, ".m")
    if bytes(match_id) == j.active or _exists(j._path(match_id, ".s")):
        raise ValueError("match in progress cannot be deleted")
    try:
        os.remove(path)
    except OSError as e:
        if _errno(e) == _ENOENT:
            raise ValueError("no such match") from None
        j._fail(e, "delete match")
    if j.error == ERR_FULL:
        j.error = OK
