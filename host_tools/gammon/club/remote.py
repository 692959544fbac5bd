"""The club as a relay for a match between two boards in two places (docs/remote.md).

Both boards' hosts sit behind home routers (NAT) and only ever open outbound connections, so
neither can reach the other directly; both can reach the club. A *room* has two seats, one per
side of the match; each seat belongs to the host token that took it. A host sends its side's
confirmed decisions as messages numbered 1, 2, 3... per seat and reads the other seat's.
The relay refuses what a network or a cheating host could do to the order: a number already
used with other contents (a replay), a gap (out of order). The referee of the *rules* is each
board's host and board (``gammon.remote``): the relay only keeps each seat's messages in order.

| route | body | answer |
|---|---|---|
| ``POST /api/v1/remote`` | ``{"seat": 0 or 1}`` | ``{"room", "seat"}``: a new room, this token in that seat |
| ``POST /api/v1/remote/{room}/join`` | | ``{"room", "seat"}``: the free seat (or the one this token holds) |
| ``POST /api/v1/remote/{room}/send`` | ``{"seq", "body"}`` | ``{"seq"}``: the seat's last stored number |
| ``GET /api/v1/remote/{room}/recv?after=N&wait=S`` | | ``{"messages": [{"seq", "body"}...]}`` |

``recv`` answers the other seat's messages numbered above ``N``, waiting up to ``S`` seconds
(at most 25) for one when there is none yet.
"""

import asyncio
import contextlib
import hashlib
import json
import secrets

import psycopg
from starlette.responses import JSONResponse
from starlette.routing import Route

MAX_BODY = 4096  # one message: a play or a cube action is some tens of bytes
MAX_RECV = 64  # messages in one answer
MAX_WAIT = 25.0  # seconds a recv may wait for a message (below common proxy time-outs)
POLL = 1.0  # seconds between looks while waiting, should a notification be lost
CHANNEL = "gammon_club_remote"  # NOTIFY room:seat when a seat's message is stored

SCHEMA = """
CREATE TABLE IF NOT EXISTS remote_rooms (
    id       TEXT PRIMARY KEY,                  -- 128 random bits (URL-safe): the room's name
    seat0    INTEGER REFERENCES tokens(id),     -- the host token playing side 0
    seat1    INTEGER REFERENCES tokens(id),
    created  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS remote_msgs (
    room     TEXT NOT NULL REFERENCES remote_rooms(id),
    seat     SMALLINT NOT NULL,
    seq      BIGINT NOT NULL,                   -- 1, 2, 3... per seat, no gaps
    digest   TEXT NOT NULL,                     -- SHA-256 of the body (a resent one is recognised)
    body     TEXT NOT NULL,                     -- JSON, passed on as it is
    received TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (room, seat, seq)
);
"""


def migrate(conn):
    """Create the relay's tables (idempotent; after ``schema.migrate``: they refer to tokens)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(728)")
        conn.execute(SCHEMA)


def _error(msg, status, **extra):
    extra["error"] = msg
    return JSONResponse(extra, status_code=status)


async def _json(club, request):
    body = await club.body(request, MAX_BODY)
    if body is None:
        return None, _error("a message is at most %d bytes" % MAX_BODY, 413)
    try:
        return (json.loads(body) if body else {}), None
    except ValueError:
        return None, _error("the body is not JSON", 400)


class Relay:
    """The relay's routes. A waiting ``recv`` is woken by PostgreSQL's ``NOTIFY`` from the
    ``send`` that stored the message (any server process: one ``LISTEN`` connection per
    process, opened by the first ``recv``), and looks again every ``POLL`` seconds anyway."""

    def __init__(self, club):
        self.club = club  # the app's Club: its pool, its token check and rate limit
        self.waiters = {}  # (room, seat) -> set of asyncio.Event
        self.listener = None

    async def _listen(self):
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.club.conninfo, autocommit=True)
                async with conn:
                    await conn.execute("LISTEN " + CHANNEL)
                    async for n in conn.notifies():
                        room, _, seat = n.payload.rpartition(":")
                        for ev in self.waiters.get((room, seat), ()):
                            ev.set()
            except (psycopg.Error, OSError):
                pass
            await asyncio.sleep(0.5)  # the waiters look every POLL seconds meanwhile

    def _waiter(self, room, seat):
        """An event set when ``seat`` of ``room`` stores a message (registered before the look
        at the table, so a message stored in between is not missed)."""
        if self.listener is None:
            self.listener = asyncio.create_task(self._listen())
        ev = asyncio.Event()
        self.waiters.setdefault((room, str(seat)), set()).add(ev)
        return ev

    def _unwait(self, room, seat, ev):
        key = (room, str(seat))
        self.waiters[key].discard(ev)
        if not self.waiters[key]:
            del self.waiters[key]

    async def _seat(self, conn, room, tok):
        """This token's seat in ``room``, or an error response."""
        cur = await conn.execute("SELECT seat0, seat1 FROM remote_rooms WHERE id = %s", (room,))
        row = await cur.fetchone()
        if row is None:
            return None, _error("no such room", 404)
        if tok["id"] not in row:
            return None, _error("this token holds no seat in this room", 403)
        return row.index(tok["id"]), None

    async def create(self, request):
        tok, err = await self.club.auth(request)
        if err:
            return err
        obj, err = await _json(self.club, request)
        if err:
            return err
        seat = obj.get("seat", 0) if isinstance(obj, dict) else None
        if seat not in (0, 1) or isinstance(seat, bool):
            return _error("seat must be 0 or 1", 400)
        room = secrets.token_urlsafe(16)
        async with self.club.pool.connection() as conn:
            await conn.execute(
                "INSERT INTO remote_rooms (id, seat%d) VALUES (%%s, %%s)" % seat, (room, tok["id"])
            )
        return JSONResponse({"room": room, "seat": seat})

    async def join(self, request):
        tok, err = await self.club.auth(request)
        if err:
            return err
        room = request.path_params["room"]
        async with self.club.pool.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "SELECT seat0, seat1 FROM remote_rooms WHERE id = %s FOR UPDATE", (room,)
            )
            row = await cur.fetchone()
            if row is None:
                return _error("no such room", 404)
            if tok["id"] in row:
                return JSONResponse({"room": room, "seat": row.index(tok["id"])})
            if None not in row:
                return _error("both seats of this room are taken", 409)
            seat = row.index(None)
            sql = "UPDATE remote_rooms SET seat%d = %%s WHERE id = %%s" % seat
            await conn.execute(sql, (tok["id"], room))
        return JSONResponse({"room": room, "seat": seat})

    async def send(self, request):
        tok, err = await self.club.auth(request)
        if err:
            return err
        room = request.path_params["room"]
        obj, err = await _json(self.club, request)
        if err:
            return err
        seq = obj.get("seq") if isinstance(obj, dict) else None
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1 or "body" not in obj:
            return _error("a message is {seq: 1, 2, 3..., body}", 400)
        body = json.dumps(obj["body"], sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(body.encode()).hexdigest()
        async with self.club.pool.connection() as conn, conn.transaction():
            # the room's row lock: one seat's messages are numbered one after another
            await conn.execute("SELECT 1 FROM remote_rooms WHERE id = %s FOR UPDATE", (room,))
            seat, err = await self._seat(conn, room, tok)
            if err:
                return err
            cur = await conn.execute(
                "SELECT coalesce(max(seq), 0) FROM remote_msgs WHERE room = %s AND seat = %s", (room, seat)
            )
            last = (await cur.fetchone())[0]
            if seq <= last:
                cur = await conn.execute(
                    "SELECT digest FROM remote_msgs WHERE room = %s AND seat = %s AND seq = %s",
                    (room, seat, seq),
                )
                if (await cur.fetchone())[0] == digest:  # the answer was lost: acknowledged again
                    return JSONResponse({"seq": last})
                why = "message %d was already sent with other contents (a replay)" % seq
                return _error(why, 409, next=last + 1)
            if seq != last + 1:
                return _error("message %d out of order: %d comes next" % (seq, last + 1), 409, next=last + 1)
            await conn.execute(
                "INSERT INTO remote_msgs (room, seat, seq, digest, body) VALUES (%s, %s, %s, %s, %s)",
                (room, seat, seq, digest, body),
            )
            await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, "%s:%d" % (room, seat)))
        return JSONResponse({"seq": seq})

    async def recv(self, request):
        tok, err = await self.club.auth(request)
        if err:
            return err
        room = request.path_params["room"]
        try:
            after = int(request.query_params.get("after", "0"))
            wait = min(max(float(request.query_params.get("wait", "0")), 0.0), MAX_WAIT)
        except ValueError:
            return _error("after is a number, wait seconds", 400)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        seat = ev = None
        try:
            while True:
                async with self.club.pool.connection() as conn:
                    if seat is None:
                        seat, err = await self._seat(conn, room, tok)
                        if err:
                            return err
                        ev = self._waiter(room, 1 - seat)
                    ev.clear()
                    cur = await conn.execute(
                        "SELECT seq, body FROM remote_msgs WHERE room = %s AND seat = %s AND seq > %s"
                        " ORDER BY seq LIMIT %s",
                        (room, 1 - seat, after, MAX_RECV),
                    )
                    rows = await cur.fetchall()
                left = deadline - loop.time()
                if rows or left <= 0:
                    break
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(ev.wait(), min(left, POLL))
        finally:
            if ev is not None:
                self._unwait(room, 1 - seat, ev)
        return JSONResponse({"messages": [{"seq": s, "body": json.loads(b)} for s, b in rows]})


def routes(club):
    r = Relay(club)
    return [
        Route("/api/v1/remote", r.create, methods=["POST"]),
        Route("/api/v1/remote/{room:str}/join", r.join, methods=["POST"]),
        Route("/api/v1/remote/{room:str}/send", r.send, methods=["POST"]),
        Route("/api/v1/remote/{room:str}/recv", r.recv),
    ]
