"""A scripted board for the hosts' copy of the live match (``gammon.live_copy``): ``gammon
play`` (tests/host/test_play_host.py), ``gammon watch --club``
(tests/club/test_club_watch_resync.py) and ``gammon remote play``
(tests/host/test_remote_live_copy.py).

Its players confirm one record per ``wait_events`` the host waits in (or per step of
``watch``), at the worst moments when told to. Its link answers as ``gammon.link.Client``
does over a real board: a record journaled while watched is queued as an event until read,
across WATCH off too; one journaled while not watched comes only in the copy; the copy can be
read with the watch on or off; WATCH on sends nothing again when it is on already."""

from bg import link as P
from bg import record
from gammon import model
from gammon.link import LinkError


class Board:
    """A live match ``recs`` (each record's bytes, as the board publishes them), ``j`` of them
    journaled. Decisions are taken (or refused, from ``refuse``); the link can drop."""

    def __init__(self, recs, j, hello=None):
        self.recs = recs
        self.shown = j  # records in the file the host fetches first
        self.j = j
        self.hello = hello  # the HELLO body the host must send (None: any)
        self.id = model.load_match(recs[0]).id_hex
        self.events = []  # (the client's queue: published, not read yet; None: events lost)
        self.watching = False
        self.decisions = []
        self.hellos = 0
        self.refuse = 0
        self.fetches = 0
        self.drop_at = None
        # n-th copy -> "before" / "after": a record journaled then; "rest": all that is left,
        # right after it
        self.during_copy = {}
        self.lost_at = None  # after this many records journaled: the board's queue overflows
        self.after_lost = []  # the same for each copy after that ("before", "after"...)
        self.before_off = False  # after lost events: a record journaled as WATCH off arrives
        self.waits = None  # after this many records: the players wait for the host's decision
        self.lost = False

    @property
    def copies(self):
        return self.fetches

    def journal(self):
        rec = self.recs[self.j]
        self.j += 1
        if self.watching:
            self.events.append(rec)
        if self.j == self.lost_at:
            self.events.append(None)  # its queue overflowed: the host is told to fetch again
            self.lost = True

    def client(self):
        return Client(self)

    # the link's calls on the board itself (``gammon watch`` takes the board as its client)

    def list_games(self):
        # the board's list marks a match finished once all is journaled, its end among it
        # (a match cut short for a test never ends)
        ended = self.j == len(self.recs) and any(r[:1] == bytes([record.MATCH_END]) for r in self.recs)
        return [{"id": self.id, "size": 0, "state": 0, "finished": ended}]

    def fetch_game(self, gid, progress=None, resume=True):
        assert gid == self.id
        self.fetches += 1
        when = self.during_copy.get(self.fetches)
        if self.lost and self.after_lost:
            when = self.after_lost.pop(0)
        if when == "before" and self.j < len(self.recs):
            self.journal()  # confirmed while the board reads its file for the copy
        data = b"".join(self.recs[: self.j])
        if when == "after" and self.j < len(self.recs):
            self.journal()  # confirmed right after the board read its file for the copy
        while when == "rest" and self.j < len(self.recs):
            self.journal()
        return data

    def watch_on(self, on=True):
        if not on and self.before_off and self.lost and self.j < len(self.recs):
            self.before_off = False
            self.journal()  # confirmed as the WATCH off went out: its event comes before the answer
        self.watching = on

    def wait_events(self, timeout):
        if self.drop_at is not None and self.j >= self.drop_at:
            self.drop_at = None
            raise LinkError("link lost: reset by peer")
        if not self.events and timeout > 0 and self.j < len(self.recs) and self.waits != self.j:
            self.journal()  # the players go on while the host waits
        out, self.events = self.events, []
        return out

    def watch(self):
        self.watch_on(True)
        try:
            while True:
                while self.events:
                    yield self.events.pop(0)
                if self.j == len(self.recs):
                    return
                self.journal()  # the players go on
        finally:
            self.watch_on(False)

    def decide(self, kind, body=b""):
        from bg.link import decide as D

        if kind == D.DEC_HELLO:
            self.hellos += 1
            assert self.hello is None or bytes(body) == self.hello, body
            return b"\x00"
        if self.refuse:
            self.refuse -= 1
            raise LinkError("refused: not the computer's play", P.E_STATE)
        self.decisions.append((kind, bytes(body)))
        if self.waits == self.j:
            self.waits = None  # the host decided: the players go on
        return bytes([kind])


class Client:
    """One connection to a ``Board`` (``Board.client``: a new one per connect)."""

    def __init__(self, b):
        self.b = b
        self.closed = False

    def decide(self, kind, body=b""):
        return self.b.decide(kind, body)

    def watch_on(self, on=True):
        self.b.watch_on(on)

    def list_games(self):
        return self.b.list_games()

    def fetch_game(self, gid, progress=None, resume=True):
        return self.b.fetch_game(gid, progress, resume)

    def wait_events(self, timeout):
        return self.b.wait_events(timeout)

    def close(self):
        self.closed = True
