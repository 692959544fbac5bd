"""``gammon club serve``: the club's web service (Starlette on uvicorn, psycopg 3 on PostgreSQL).

Routes -- pushing needs a token (``Authorization: Bearer gct_...``); the rest is public and
read-only (GET only: any other method is 405):

| route | what |
|---|---|
| ``GET /api/v1/whoami`` | the token's host and event (``gammon club join`` checks a token) |
| ``PUT /api/v1/matches/{id}`` | a finished match's journal bytes (``gammon sync --club``) |
| ``POST /api/v1/live`` | live events of one board, in sequence (``gammon watch --club``) |
| ``/api/v1/remote...`` | the relay of a match between two boards (``gammon.club.remote``) |
| ``GET /events/{event}`` | the broadcast page: every board of the event |
| ``GET /events/{event}/state`` | every board's state (JSON) |
| ``GET /events/{event}/feed`` | server-sent events: every board's state, then each change |
| ``GET /events/{event}/matches`` | finished matches, dice verdicts, analysis, standings (JSON) |

No process keeps what another needs: every accepted live event is committed to PostgreSQL
and announced with ``NOTIFY`` in the same transaction; each process ``LISTEN``s on one
connection and hands the notifications to its own spectators, so spectators of any process
see the events of boards pushing to any other, in each board's order (PostgreSQL delivers
notifications in commit order, and a board's events commit one after another under its
row lock).
"""

import asyncio
import base64
import contextlib
import json
import time

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from gammon.club import checks, page, remote, schema

MAX_MATCH = 256 * 1024  # a finished match: 64 games of a long match fit ten times over
MAX_LIVE = 64 * 1024  # one batch of live events (the push client sends at most 32 of them)
MAX_EVENTS = 64  # live events in one request
QUEUE = 256  # a spectator this many events behind is dropped (its browser reconnects)


def _error(msg, status):
    return JSONResponse({"error": msg}, status_code=status)


class Hub:
    """This process's spectators, fed from one LISTEN connection."""

    def __init__(self, conninfo):
        self.conninfo = conninfo
        self.subs = {}  # event -> set of asyncio.Queue
        self.task = None
        self.listening = asyncio.Event()

    async def keep_alive(self):
        """A comment line to every spectator now and then: proxies keep quiet streams open."""
        while True:
            await asyncio.sleep(15)
            for event in list(self.subs):
                self.send(event, b": keep-alive\n\n")

    async def run(self):
        self.ka = asyncio.create_task(self.keep_alive())
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
                async with conn:
                    await conn.execute("LISTEN " + schema.CHANNEL)
                    self.listening.set()
                    async for n in conn.notifies():
                        self.dispatch(n.payload)
            except (psycopg.Error, OSError):
                pass
            # the connection is gone: what was announced meanwhile is lost here, so every
            # spectator's stream ends and its browser reconnects, getting every board anew
            self.listening.clear()
            for qs in self.subs.values():
                for q in qs:
                    q.put_nowait(None)
            await asyncio.sleep(0.5)

    def dispatch(self, payload):
        """``payload``: the event's name (JSON), a newline, the board's state (JSON text, passed
        on to the spectators as it is)."""
        head, _, state = payload.partition("\n")
        try:
            event = json.loads(head)
        except ValueError:
            return
        self.send(event, ("data: %s\n\n" % state).encode())  # encoded once for every spectator

    def send(self, event, frame):
        for q in list(self.subs.get(event, ())):
            if q.full():  # too slow a spectator: its stream ends, its browser reconnects
                self.subs[event].discard(q)
                q.get_nowait()
                q.put_nowait(None)
            else:
                q.put_nowait(frame)

    def subscribe(self, event):
        q = asyncio.Queue(QUEUE)
        self.subs.setdefault(event, set()).add(q)
        return q

    def unsubscribe(self, event, q):
        self.subs.get(event, set()).discard(q)


class Club:
    def __init__(self, conninfo, rate=120, window=10):
        self.conninfo = conninfo
        self.rate = rate  # requests per token per window
        self.window = window  # seconds
        self.pool = None
        self.hub = Hub(conninfo)

    async def startup(self):
        with psycopg.connect(self.conninfo) as c:
            schema.migrate(c)
            remote.migrate(c)
        self.pool = AsyncConnectionPool(self.conninfo, min_size=2, max_size=10, open=False)
        await self.pool.open()
        self.hub.task = asyncio.create_task(self.hub.run())
        await asyncio.wait_for(self.hub.listening.wait(), 10)

    async def shutdown(self):
        self.hub.task.cancel()
        self.hub.ka.cancel()
        await self.pool.close()

    # -- the pushing side ---------------------------------------------------------------

    async def auth(self, request):
        """The token's row, or an error response (401 unknown/revoked, 429 over its rate)."""
        h = request.headers.get("authorization", "")
        if not h.startswith("Bearer "):
            return None, _error("a token is needed (Authorization: Bearer ...)", 401)
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "UPDATE tokens SET"
                " rate_count = CASE WHEN rate_window > now() - make_interval(secs => %s)"
                "   THEN rate_count + 1 ELSE 1 END,"
                " rate_window = CASE WHEN rate_window > now() - make_interval(secs => %s)"
                "   THEN rate_window ELSE now() END"
                " WHERE digest = %s AND revoked IS NULL"
                " RETURNING id, host, event, rate_count, coalesce(rate, %s)",
                (self.window, self.window, schema.token_digest(h[7:].strip()), self.rate),
            )
            row = await cur.fetchone()
        if row is None:
            return None, _error("unknown or revoked token", 401)
        if row[3] > row[4]:
            r = _error("too many requests for this token: at most %d per %d s" % (row[4], self.window), 429)
            r.headers["Retry-After"] = str(self.window)
            return None, r
        return {"id": row[0], "host": row[1], "event": row[2]}, None

    async def body(self, request, limit):
        """The request body, or None when it is longer than ``limit`` (not read further)."""
        n = request.headers.get("content-length")
        if n is not None and (not n.isdigit() or int(n) > limit):
            return None
        out = bytearray()
        async for chunk in request.stream():
            out += chunk
            if len(out) > limit:
                return None
        return bytes(out)

    async def whoami(self, request):
        tok, err = await self.auth(request)
        if err:
            return err
        return JSONResponse(tok)

    async def put_match(self, request):
        tok, err = await self.auth(request)
        if err:
            return err
        data = await self.body(request, MAX_MATCH)
        if data is None:
            return _error("the match is larger than %d bytes" % MAX_MATCH, 413)
        board = request.headers.get("x-board", "")[:64]
        try:
            m, verdict = checks.check_finished(data)
        except checks.Refused as e:
            return _error(str(e), e.status)
        if m.id_hex != request.path_params["mid"].lower():
            return _error("the bytes hold match %s, not %s" % (m.id_hex, request.path_params["mid"]), 422)
        digest = checks.sha256_hex(data)
        mine, theirs = checks.joint_of(data)
        async with self.pool.connection() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (m.id_hex,))
            if theirs is not None:
                # both boards' pushes of one match may come at once: one lock for the pair
                await conn.execute(
                    "SELECT pg_advisory_xact_lock(hashtext(%s))", ("".join(sorted((mine, theirs))),)
                )
                cur = await conn.execute("SELECT id, data FROM matches WHERE commitment = %s", (theirs,))
                pair = await cur.fetchone()
                if pair is not None:
                    # the other board's journal holds its revealed seed: both proofs complete
                    ok, verdict, other_verdict = checks.check_pair(data, bytes(pair[1]))
                    if not ok:
                        why = verdict if not verdict.startswith("PASS") else other_verdict
                        return _error(
                            "the dice do not verify against the other board's journal (match %s): %s"
                            % (pair[0], why),
                            422,
                        )
                    await conn.execute("UPDATE matches SET dice = %s WHERE id = %s", (other_verdict, pair[0]))
            cur = await conn.execute("SELECT data FROM matches WHERE id = %s", (m.id_hex,))
            row = await cur.fetchone()
            if row is not None:
                from gammon.library import _LATER, _OLDER, _relation

                old = bytes(row[0])
                rel = _LATER if old == data else _relation(old, data)
                if old == data or rel == _OLDER:
                    return JSONResponse({"status": "same", "sha256": checks.sha256_hex(old), "dice": verdict})
                if rel != _LATER:
                    return _error("another match is stored under id %s; nothing stored" % m.id_hex, 409)
            vals = (
                data,
                digest,
                tok["event"],
                tok["id"],
                board,
                m.names[0],
                m.names[1],
                m.length,
                m.final_score[0],
                m.final_score[1],
                m.winner,
                len(m.games),
                verdict,
                mine,
                m.id_hex,
            )
            if row is None:
                await conn.execute(
                    "INSERT INTO matches (data, sha256, event, token_id, board, player0, player1, length,"
                    " score0, score1, winner, games, dice, commitment, id)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    vals,
                )
                status = "new"
            else:
                await conn.execute(
                    "UPDATE matches SET data=%s, sha256=%s, event=%s, token_id=%s, board=%s, player0=%s,"
                    " player1=%s, length=%s, score0=%s, score1=%s, winner=%s, games=%s, dice=%s,"
                    " commitment=%s, stored=now() WHERE id=%s",
                    vals,
                )
                status = "updated"
            await conn.execute("INSERT INTO jobs (match) VALUES (%s) ON CONFLICT DO NOTHING", (m.id_hex,))
        return JSONResponse({"status": status, "sha256": digest, "dice": verdict})

    async def post_live(self, request):
        tok, err = await self.auth(request)
        if err:
            return err
        raw = await self.body(request, MAX_LIVE)
        if raw is None:
            return _error("the batch of live events is larger than %d bytes" % MAX_LIVE, 413)
        try:
            batch = json.loads(raw)
            board = batch["board"]
            events = batch["events"]
            if not isinstance(board, str) or not 0 < len(board) <= 64 or not isinstance(events, list):
                raise ValueError
            if len(events) > MAX_EVENTS:
                return _error("at most %d live events in one request" % MAX_EVENTS, 413)
            evs = [_live_event(e) for e in events]
        except (ValueError, KeyError, TypeError):
            return _error("not a batch of live events: {board, events: [{seq, kind, data}]}", 400)
        last = None
        for seq, kind, data in evs:
            try:
                last = await self.live_event(tok, board, seq, kind, data)
            except checks.Refused as e:
                return JSONResponse({"error": str(e), "seq": last if last is not None else e.seq}, e.status)
        return JSONResponse({"seq": last})

    async def live_event(self, tok, board, seq, kind, data):
        digest = checks.sha256_hex(kind.encode() + b"\0" + data)
        async with self.pool.connection() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO boards (token_id, board, event) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                (tok["id"], board, tok["event"]),
            )
            cur = await conn.execute(
                "SELECT seq, data FROM boards WHERE token_id = %s AND board = %s FOR UPDATE",
                (tok["id"], board),
            )
            last, old = await cur.fetchone()
            if seq <= last:
                cur = await conn.execute(
                    "SELECT digest FROM live_events WHERE token_id = %s AND board = %s AND seq = %s",
                    (tok["id"], board, seq),
                )
                row = await cur.fetchone()
                if row is not None and row[0] == digest:
                    return last  # sent again after a lost answer: already stored
                raise _refused(
                    "event %d was already received with other contents (a replay)" % seq, 409, last
                )
            if seq != last + 1:
                raise _refused("event %d out of order: the next is %d" % (seq, last + 1), 409, last)
            if kind == "snapshot" or _starts_match(data):
                new = data
            else:
                new = bytes(old) + data
            try:
                r = checks.check_live(new)
            except checks.Refused as e:
                raise _refused(str(e), e.status, last) from None
            state = checks.live_state(r, board, seq)
            state["host"] = tok["host"]
            state["t"] = time.time()
            js = json.dumps(state)
            await conn.execute(
                "UPDATE boards SET seq = %s, digest = %s, match = %s, data = %s, state = %s, updated = now()"
                " WHERE token_id = %s AND board = %s",
                (seq, digest, state["match"], new, js, tok["id"], board),
            )
            await conn.execute(
                "INSERT INTO live_events (token_id, board, seq, digest) VALUES (%s, %s, %s, %s)",
                (tok["id"], board, seq, digest),
            )
            await conn.execute(
                "SELECT pg_notify(%s, %s)",
                (schema.CHANNEL, json.dumps(tok["event"]) + "\n" + js),
            )
        return seq

    # -- the public side ----------------------------------------------------------------

    async def boards(self, event):
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT state::text FROM boards WHERE event = %s AND state IS NOT NULL"
                " ORDER BY board, token_id",
                (event,),
            )
            return [r[0] for r in await cur.fetchall()]

    async def state(self, request):
        rows = await self.boards(request.path_params["event"])
        return Response("[%s]" % ",".join(rows), media_type="application/json")

    async def feed(self, request):
        event = request.path_params["event"]
        q = self.hub.subscribe(event)  # before the snapshot: nothing committed after it is missed

        async def stream():
            try:
                yield "".join("data: %s\n\n" % s for s in await self.boards(event)).encode()
                while True:
                    frames = [await q.get()]
                    while not q.empty():  # a spectator behind gets what waits in one write
                        frames.append(q.get_nowait())
                    if None in frames:
                        return  # dropped (too slow) or the LISTEN connection was lost
                    yield b"".join(frames)
            finally:
                self.hub.unsubscribe(event, q)

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def matches(self, request):
        event = request.path_params["event"]
        async with self.pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)  # not the pooled connection's default
            await cur.execute(
                "SELECT m.id, m.board, m.player0, m.player1, m.length, m.score0, m.score1, m.winner,"
                " m.games, m.dice, m.sha256, j.state AS analysis, j.result"
                " FROM matches m LEFT JOIN jobs j ON j.match = m.id WHERE m.event = %s ORDER BY m.stored",
                (event,),
            )
            rows = await cur.fetchall()
            cur = await conn.execute(
                "SELECT round, board, player0, player1 FROM pairings WHERE event = %s ORDER BY round, id",
                (event,),
            )
            pairs = await cur.fetchall()
        return JSONResponse({"matches": rows, "standings": standings(rows), "rounds": rounds(pairs, rows)})

    async def page(self, request):
        return HTMLResponse(page.html(request.path_params["event"]))

    async def index(self, request):
        async with self.pool.connection() as conn:
            cur = await conn.execute("SELECT DISTINCT event FROM tokens WHERE revoked IS NULL ORDER BY event")
            events = [r[0] for r in await cur.fetchall()]
        return HTMLResponse(page.index(events))


def standings(rows):
    """Per player: matches played and won, points scored (from the finished matches)."""
    t = {}
    for r in rows:
        for side in (0, 1):
            name = r["player%d" % side]
            s = t.setdefault(name, {"player": name, "played": 0, "won": 0, "points": 0})
            s["played"] += 1
            s["won"] += int(r["winner"] == side)
            s["points"] += r["score%d" % side]
    return sorted(t.values(), key=lambda s: (-s["won"], -s["points"], s["player"]))


def rounds(pairs, rows):
    """The organiser's pairings, each with the result of the finished match between its two
    players (either side; each match counts for one pairing, the earliest rounds first)."""
    left = list(rows)
    out = []
    for rnd, board, p0, p1 in pairs:
        want = {p0.lower(), p1.lower()}
        m = next((r for r in left if {r["player0"].lower(), r["player1"].lower()} == want), None)
        item = {"round": rnd, "board": board, "player0": p0, "player1": p1, "result": None}
        if m is not None:
            left.remove(m)
            score = {m["player0"].lower(): m["score0"], m["player1"].lower(): m["score1"]}
            winner = m["player%d" % m["winner"]] if m["winner"] is not None else None
            item["result"] = {
                "match": m["id"],
                "score": [score[p0.lower()], score[p1.lower()]],
                "winner": winner,
            }
        out.append(item)
    return out


def _refused(msg, status, seq):
    e = checks.Refused(msg, status)
    e.seq = seq
    return e


def _starts_match(data):
    from bg import record

    return data[:1] == bytes([record.MATCH_START])


def _live_event(e):
    seq, kind, data = e["seq"], e.get("kind", "append"), e["data"]
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1 or kind not in ("append", "snapshot"):
        raise ValueError
    return seq, kind, base64.b64decode(data, validate=True)


def make_app(conninfo, rate=120, window=10):
    club = Club(conninfo, rate, window)
    routes = [
        Route("/", club.index),
        Route("/api/v1/whoami", club.whoami),
        Route("/api/v1/matches/{mid:str}", club.put_match, methods=["PUT"]),
        Route("/api/v1/live", club.post_live, methods=["POST"]),
        Route("/events/{event:str}", club.page),
        Route("/events/{event:str}/state", club.state),
        Route("/events/{event:str}/feed", club.feed),
        Route("/events/{event:str}/matches", club.matches),
        *remote.routes(club),  # the relay between two boards' hosts (docs/remote.md)
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app):
        await club.startup()
        try:
            yield
        finally:
            await club.shutdown()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.club = club
    return app


def serve(conninfo, host="127.0.0.1", port=8000, rate=120, window=10, log_level="warning"):
    import uvicorn

    # the spectators' streams never end by themselves: on SIGTERM they get 2 s, then are cut
    uvicorn.run(
        make_app(conninfo, rate, window),
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        timeout_graceful_shutdown=2,
    )
