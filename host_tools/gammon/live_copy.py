"""The board's copy of its live match, taken so that it meets the live events exactly: no
record both in the copy and in the events that follow, nor in neither (``gammon watch``,
``gammon play``: docs/protocol.md, WATCH)."""

SETTLE_TRIES = 5  # copies of the live match taken to find one no record slips past


def copy(client):
    """The live match's bytes as the board holds them now (b"" when none is live)."""
    return _copy(client)[1]


def _copy(client, seen=None):
    """``(id, bytes)`` of the board's live match; with none live, of match ``seen`` (live at
    an earlier look: it ended since, and its end is in the copy); ``(None, b"")``: neither."""
    live = [g for g in client.list_games() if not g["finished"]]
    gid = live[-1]["id"] if live else seen
    return gid, client.fetch_game(gid, resume=False) if gid is not None else b""


def settled(client, tries=SETTLE_TRIES):
    """The live match's bytes, the watch on after it: the watch off, the records it sent
    before dropped (the copy holds them), fetched, the watch turned on, fetched again. Equal
    copies: nothing was journaled in between (a record journaled before the watch was on
    would be in neither; the board's one unstored record, a throw waiting for its play, comes
    when the watch turns on). Else the watch off again, what it sent meanwhile dropped (the
    next copy holds it), and again; a board journaling without a pause gets the last copy,
    taken with the watch on. A match live at the first copy is copied to its end: the end
    journaled in between (the match then no longer live) is in the next copy, not lost with
    the match. ``client``: ``gammon.link.Client`` (``watch_on``, ``wait_events``,
    ``list_games``, ``fetch_game``)."""
    client.watch_on(False)
    client.wait_events(0)
    gid, data = _copy(client)
    for i in range(tries):
        client.watch_on(True)
        gid, again = _copy(client, gid)
        if again == data or i == tries - 1:
            return again
        client.watch_on(False)
        client.wait_events(0)
        gid, data = _copy(client, gid)
    return data
