"""``gammon sync``: copy the board's matches into the library, then delete on the board only
what the library holds byte for byte.

- A match is fetched when the library lacks it, holds another size, or holds it unfinished
  while the board says it is finished. ``Library.store`` decides by decoding: the board's
  later version (grown, or its finished games compacted by the board's journal) replaces a
  partial copy; a different match under the same id is a conflict and both copies are kept.
- A finished match is deleted on the board with the SHA-256 of the bytes the library holds
  (``Client.delete_games``); the board refuses when its file differs (docs/protocol.md). Then
  the board's copy is fetched and stored (as a later version or a conflict copy) and the
  delete is retried once with its own digest. Nothing is deleted that is not committed here.

``client`` is a ``gammon.link.Client`` (or anything with ``info``, ``list_games``,
``fetch_game``, ``delete_games``); ``lib`` a ``gammon.library.Library``.
"""

import hashlib

from gammon.library import CONFLICT, NEW, UPDATED, LibraryError


def _needs_fetch(lib, g):
    e = lib.get(g["id"])
    return e is None or e.size != g["size"] or (g["finished"] and not e.complete)


def _store(lib, gid, data, name, problems, out):
    """Store fetched bytes; the status, or None when they do not replay (reported)."""
    try:
        status, e = lib.store(data, board=name, source="sync")
    except LibraryError:
        raise
    except ValueError as err:
        problems.append("%s: damaged on the board, not stored (%s)" % (gid, err))
        out("warning: " + problems[-1])
        return None
    if e.id != gid:
        problems.append("%s: the board's file holds match %s; stored under that id" % (gid, e.id))
        out("warning: " + problems[-1])
    if status == CONFLICT:
        problems.append(
            "%s: the board's copy differs from the library's; kept both (the board's as conflict "
            "copy %s)" % (gid, hashlib.sha256(data).hexdigest()[:12])
        )
        out("warning: " + problems[-1])
        return status
    out(
        "%-8s %s  %s - %s  %d-%d  %s"
        % (status, e.id, e.player0, e.player1, e.score0, e.score1, e.result_text())
    )
    return status


def sync(client, lib, delete=True, progress=None, out=print):
    """Copy every new or grown match from the board into the library, then delete on the board
    the finished matches whose exact bytes are committed in the library. Safe to interrupt: each
    match is one transaction, and an interrupted transfer resumes (``fetch_game(resume=True)``).
    Returns ``(stored, deleted, problems)``."""
    try:
        name = client.info().get("name", "")
    except Exception:  # noqa: BLE001 - a board without a name still syncs
        name = ""
    games = client.list_games()
    todo = [g for g in games if _needs_fetch(lib, g)]
    stored = 0
    problems = []
    fetched = {}
    for i, g in enumerate(todo):
        if hasattr(progress, "label"):
            progress.label = "%d/%d %s" % (i + 1, len(todo), g["id"][:8])
        data = client.fetch_game(g["id"], progress=progress, resume=True)
        if hasattr(progress, "end"):
            progress.end()
        fetched[g["id"]] = data
        status = _store(lib, g["id"], data, name, problems, out)
        if status in (NEW, UPDATED):
            stored += 1
        if status is not None:
            offer_seed(client, lib, data, name, out)
    deleted = 0
    if delete:
        deleted = _delete(client, lib, games, fetched, name, problems, out)
    return stored, deleted, problems


def _digest_held(lib, g, fetched):
    """The SHA-256 of the bytes the library holds for a board match, or None."""
    if g["id"] in fetched:
        d = hashlib.sha256(fetched[g["id"]]).digest()
        return d if lib.holds(g["id"], d) else None
    e = lib.get(g["id"])
    if e is None or e.size != g["size"]:
        return None
    return hashlib.sha256(lib.data(g["id"])).digest()


def _delete(client, lib, games, fetched, name, problems, out):
    from bg import link as P

    from gammon.link import LinkError

    entries = []
    for g in games:
        d = _digest_held(lib, g, fetched) if g["finished"] else None
        if d is not None:
            entries.append((g["id"], d))
    if not entries:
        return 0
    try:
        return client.delete_games(entries)  # all-or-nothing per request
    except LinkError:
        pass  # at least one was refused: find which, one at a time
    n = 0
    for gid, d in entries:  # one at a time: find the ones that changed on the board
        try:
            n += client.delete_games([(gid, d)])
            continue
        except LinkError as e:
            if e.code != P.E_STATE or gid in fetched:
                problems.append("%s: not deleted on the board: %s" % (gid, e))
                out("warning: " + problems[-1])
                continue
        # the board's file is not what the library holds: store the board's copy, then retry
        data = client.fetch_game(gid, resume=False)
        _store(lib, gid, data, name, problems, out)
        d = hashlib.sha256(data).digest()
        if not lib.holds(gid, d):
            problems.append("%s: the board's copy is not stored here; kept on the board" % gid)
            out("warning: " + problems[-1])
            continue
        try:
            n += client.delete_games([(gid, d)])
        except LinkError as e:
            problems.append("%s: not deleted on the board: %s" % (gid, e))
            out("warning: " + problems[-1])
    return n


def offer_seed(client, lib, data, board, out):
    """A match waiting for its opening throw gets this host's player seed (docs/dice.md)."""
    from gammon import dice_seed

    w = dice_seed.open_window(data)
    if w is not None and dice_seed.contribute(client, lib, w[0], w[1], board, prior=w[2]) is not None:
        out("dice     %s  sent a player seed after its commitment %s" % (w[0].hex(), w[1].hex()[:16]))
