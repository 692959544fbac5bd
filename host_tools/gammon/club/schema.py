"""The club's PostgreSQL schema and the organiser's token commands (synchronous psycopg: the
CLI and the analysis workers; the web service uses the same tables through psycopg's async
connections).

A token is shown once when issued; the database keeps its SHA-256 only, so a stolen backup
does not let anyone push. A revoked token stays in the table (``revoked`` set): the pushes it
made stay attributed.
"""

import hashlib
import secrets

SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    id          SERIAL PRIMARY KEY,
    host        TEXT NOT NULL,              -- the board host's name, as the organiser typed it
    event       TEXT NOT NULL,              -- the event its boards play in (the broadcast page)
    digest      TEXT NOT NULL UNIQUE,       -- SHA-256 of the token (hex)
    created     TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked     TIMESTAMPTZ,
    rate        INTEGER,                    -- requests per window for this token (NULL: the server's)
    rate_window TIMESTAMPTZ NOT NULL DEFAULT now(),  -- per-token rate limit: the current window
    rate_count  INTEGER NOT NULL DEFAULT 0            -- ... and the requests counted in it
);
CREATE TABLE IF NOT EXISTS matches (
    id        TEXT PRIMARY KEY,             -- match id, 16 hex digits
    data      BYTEA NOT NULL,               -- the board's journal bytes (bg.record), byte for byte
    sha256    TEXT NOT NULL,
    event     TEXT NOT NULL,
    token_id  INTEGER NOT NULL REFERENCES tokens(id),
    board     TEXT NOT NULL,
    player0   TEXT NOT NULL,
    player1   TEXT NOT NULL,
    length    INTEGER NOT NULL,
    score0    INTEGER NOT NULL,
    score1    INTEGER NOT NULL,
    winner    INTEGER,
    games     INTEGER NOT NULL,
    dice      TEXT NOT NULL,                -- gammon verify's verdict
    stored    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS matches_event ON matches(event);
-- the board's commitment (hex): a match between two boards finds the other board's push by it
ALTER TABLE matches ADD COLUMN IF NOT EXISTS commitment TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS matches_commitment ON matches(commitment);
CREATE TABLE IF NOT EXISTS boards (         -- one row per board pushing live events
    token_id  INTEGER NOT NULL REFERENCES tokens(id),
    board     TEXT NOT NULL,
    event     TEXT NOT NULL,
    seq       BIGINT NOT NULL DEFAULT 0,    -- the last live event stored (per-board sequence)
    digest    TEXT NOT NULL DEFAULT '',     -- SHA-256 of that event's body (a resent one is recognised)
    match     TEXT NOT NULL DEFAULT '',
    data      BYTEA NOT NULL DEFAULT '',    -- the live match's records so far
    state     JSONB,                        -- what the broadcast page shows
    updated   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (token_id, board)
);
CREATE INDEX IF NOT EXISTS boards_event ON boards(event);
CREATE TABLE IF NOT EXISTS live_events (     -- every accepted live event, in order per board
    token_id  INTEGER NOT NULL,
    board     TEXT NOT NULL,
    seq       BIGINT NOT NULL,
    digest    TEXT NOT NULL,
    received  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (token_id, board, seq)
);
CREATE TABLE IF NOT EXISTS jobs (            -- analysis by GNU Backgammon, one per finished match
    id        SERIAL PRIMARY KEY,
    match     TEXT NOT NULL UNIQUE REFERENCES matches(id),
    plies     INTEGER NOT NULL DEFAULT 0,
    state     TEXT NOT NULL DEFAULT 'queued',  -- queued, done, failed
    worker    TEXT,
    result    JSONB,
    finished  TIMESTAMPTZ
);
CREATE TABLE IF NOT EXISTS pairings (        -- the organiser's rounds: who plays whom, where
    id        SERIAL PRIMARY KEY,
    event     TEXT NOT NULL,
    round     INTEGER NOT NULL,
    board     TEXT NOT NULL DEFAULT '',
    player0   TEXT NOT NULL,
    player1   TEXT NOT NULL,
    UNIQUE (event, round, player0),
    UNIQUE (event, round, player1)
);
CREATE TABLE IF NOT EXISTS job_attempts (    -- each time a worker took a job (autocommitted)
    job       INTEGER NOT NULL,
    worker    TEXT NOT NULL,
    at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
"""

CHANNEL = "gammon_club_live"


def migrate(conn):
    """Create the tables (idempotent); ``conn`` is a psycopg connection."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(727)")  # two servers starting at once
        conn.execute(SCHEMA)


def token_digest(token):
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def add_token(conn, host, event, rate=None):
    """Issue a token for ``host`` in ``event``: returns ``(id, token)``; only the digest is kept.
    ``rate``: its own limit of requests per window (a host relaying many boards), else the
    server's."""
    host = (host or "").strip()
    event = (event or "").strip()
    if not host or not event or len(host) > 64 or len(event) > 64:
        raise ValueError("a token needs a host name and an event name (1..64 characters each)")
    token = "gct_" + secrets.token_urlsafe(24)
    with conn.transaction():
        row = conn.execute(
            "INSERT INTO tokens (host, event, digest, rate) VALUES (%s, %s, %s, %s) RETURNING id",
            (host, event, token_digest(token), rate),
        ).fetchone()
    return row[0], token


def revoke_token(conn, ident):
    """Revoke by token id (number) or host name; returns how many were revoked."""
    with conn.transaction():
        if str(ident).isdigit():
            cur = conn.execute(
                "UPDATE tokens SET revoked = now() WHERE id = %s AND revoked IS NULL", (int(ident),)
            )
        else:
            cur = conn.execute(
                "UPDATE tokens SET revoked = now() WHERE host = %s AND revoked IS NULL", (str(ident),)
            )
        return cur.rowcount


def add_pairing(conn, event, rnd, player0, player1, board=""):
    """Pair two players in a round of an event (a player plays once per round)."""
    p0, p1 = (player0 or "").strip(), (player1 or "").strip()
    if not p0 or not p1 or p0.lower() == p1.lower() or rnd < 1:
        raise ValueError("a pairing needs a round (1, 2, ...) and two different players")
    with conn.transaction():
        clash = conn.execute(
            "SELECT player0, player1 FROM pairings WHERE event = %s AND round = %s AND"
            " (lower(player0) IN (lower(%s), lower(%s)) OR lower(player1) IN (lower(%s), lower(%s)))",
            (event, rnd, p0, p1, p0, p1),
        ).fetchone()
        if clash:
            raise ValueError("round %d already pairs %s - %s" % (rnd, clash[0], clash[1]))
        return conn.execute(
            "INSERT INTO pairings (event, round, board, player0, player1)"
            " VALUES (%s, %s, %s, %s, %s) RETURNING id",
            (event, rnd, board or "", p0, p1),
        ).fetchone()[0]


def pairings(conn, event):
    return conn.execute(
        "SELECT round, board, player0, player1 FROM pairings WHERE event = %s ORDER BY round, id", (event,)
    ).fetchall()


def list_tokens(conn):
    return conn.execute("SELECT id, host, event, created, revoked FROM tokens ORDER BY id").fetchall()
