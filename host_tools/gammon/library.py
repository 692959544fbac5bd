"""The local match library: SQLite in the per-user data directory (``platformdirs``;
``GAMMON_HOME`` overrides it, e.g. for tests).

Matches are keyed by their identity (the 8-byte match id of ``MATCH_START``), so syncing twice,
or from two boards, or importing the same journal file again never duplicates anything. Each
row keeps the board's raw record bytes (what every export is rebuilt from) and the metadata
``gammon list`` filters on. Every change is one SQLite transaction: an interrupted sync or a
full disk leaves the library exactly as it was before that match.

Example::

    >>> from gammon.library import Library
    >>> with Library.open() as lib:                   # doctest: +SKIP
    ...     status, entry = lib.store(record_bytes, board="Kitchen board")
    ...     for e in lib.find(player="alice", result="won"):
    ...         print(e.id, e.players, e.score)
"""

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path

from bg import record

from gammon import model
from gammon.errors import UserError


def _actions(data):
    """The confirmed actions of a record stream, packed games expanded (``bg.record``)."""
    dec = record.decode_stream(bytes(data))
    out = list(dec)
    if dec.status != record.OK:
        raise ValueError("damaged record")
    return out


def _relation(old, new):
    """How ``new`` relates to the stored ``old`` (same match id): ``_LATER`` when its actions
    extend or equal the stored ones (bytes appended, or finished games compacted into packed
    records: compared by decoding, never by bytes alone), ``_OLDER`` when they are a strict
    prefix of the stored ones, else ``_OTHER`` (a different match under the same id)."""
    if new.startswith(old):
        return _LATER
    if old.startswith(new):
        return _OLDER
    try:
        a = _actions(old)
    except ValueError:
        return _OTHER
    b = _actions(new)
    if len(b) >= len(a) and b[: len(a)] == a:
        return _LATER
    if b == a[: len(b)]:
        return _OLDER
    return _OTHER


def sha256_hex(data):
    return hashlib.sha256(bytes(data)).hexdigest()


SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id        TEXT PRIMARY KEY,      -- match id, 16 hex digits
    data      BLOB NOT NULL,         -- the board's record bytes (bg.record)
    size      INTEGER NOT NULL,
    started   INTEGER NOT NULL,      -- unix time of MATCH_START (0: the board had no clock)
    length    INTEGER NOT NULL,      -- 0 = money play
    flags     INTEGER NOT NULL,      -- MATCH_START option flags
    options   TEXT NOT NULL,
    player0   TEXT NOT NULL,
    player1   TEXT NOT NULL,
    score0    INTEGER NOT NULL,
    score1    INTEGER NOT NULL,
    winner    INTEGER,               -- NULL while unfinished
    games     INTEGER NOT NULL,
    complete  INTEGER NOT NULL,      -- 1 once MATCH_END was recorded
    board     TEXT NOT NULL DEFAULT '',
    source    TEXT NOT NULL DEFAULT '',
    stored    INTEGER NOT NULL       -- unix time of the last change here
);
CREATE INDEX IF NOT EXISTS matches_started ON matches(started);
CREATE TABLE IF NOT EXISTS conflicts (  -- another copy under a stored match id, kept beside it
    sha256    TEXT PRIMARY KEY,      -- of data
    id        TEXT NOT NULL,         -- the match id it claims (matches.id)
    data      BLOB NOT NULL,
    size      INTEGER NOT NULL,
    board     TEXT NOT NULL DEFAULT '',
    source    TEXT NOT NULL DEFAULT '',
    stored    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS commitments (
    id         TEXT PRIMARY KEY,     -- match id, 16 hex digits
    commitment TEXT NOT NULL,        -- the dice commitment this host saw first (64 hex digits)
    seed       TEXT NOT NULL,        -- the player seed this host sent for it ('' if none)
    board      TEXT NOT NULL,
    seen       INTEGER NOT NULL      -- unix time
);
CREATE TABLE IF NOT EXISTS part_proofs (  -- gammon.dice_proof: who made this host's parts
    id         TEXT NOT NULL,        -- match id, 16 hex digits
    part       TEXT NOT NULL,        -- the part sent (32 hex digits)
    proof      TEXT NOT NULL,        -- its proof, JSON (dice_proof.to_json)
    PRIMARY KEY (id, part)
);
"""
_COLS = (
    "id",
    "size",
    "started",
    "length",
    "flags",
    "options",
    "player0",
    "player1",
    "score0",
    "score1",
    "winner",
    "games",
    "complete",
    "board",
    "source",
    "stored",
)

NEW = "new"
UPDATED = "updated"  # the board's later version of a stored match (grown, or games compacted)
SAME = "same"
CONFLICT = "conflict"  # the same match id, other contents: both kept (the new one in conflicts)

_LATER, _OLDER, _OTHER = 1, 2, 3


class LibraryError(UserError):
    """A library problem, as one line (full disk, damaged file, unknown game)."""


def home():
    """The library directory: ``$GAMMON_HOME`` or the per-user data dir."""
    env = os.environ.get("GAMMON_HOME")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("gammon", appauthor=False))


class Entry:
    """One stored match's metadata (no bytes)."""

    def __init__(self, row):
        for k, v in zip(_COLS, row):
            setattr(self, k, v)

    @property
    def players(self):
        return (self.player0, self.player1)

    @property
    def score(self):
        return (self.score0, self.score1)

    @property
    def finished(self):
        return self.winner is not None

    def date_text(self):
        if not self.started:
            return "----------- --:--"
        return time.strftime("%Y-%m-%d %H:%M", time.gmtime(self.started))

    def result_text(self):
        if self.winner is None:
            return "in progress" if not self.complete else "ended"
        return "%s won" % self.players[self.winner]


def _disk_error(e):
    msg = str(e).lower()
    if "full" in msg or "disk i/o" in msg or isinstance(e, OSError):
        return LibraryError("the library's disk is full or failing (%s); nothing was changed" % e)
    if "locked" in msg:
        return LibraryError("the library is busy (another gammon is writing); try again")
    if "not a database" in msg or "malformed" in msg:
        return LibraryError("the library file is damaged (%s)" % e)
    return LibraryError("library error: %s" % e)


class Library:
    """The SQLite library (use ``Library.open()``; a context manager)."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), timeout=10)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            with self.db:
                self.db.executescript(_SCHEMA)
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        except (sqlite3.Error, OSError) as e:
            raise _disk_error(e) from None

    @classmethod
    def open(cls, path=None, create=True):
        """The library (``create=False``: LibraryError instead of creating a missing one, for
        commands that only read)."""
        path = Path(path) if path else home() / "library.sqlite3"
        if not create and not path.exists():
            raise LibraryError("the library is empty: nothing synced or imported yet (%s)" % path)
        return cls(path)

    def close(self):
        self.db.close()

    def remember_commitment(self, mid, commitment, seed=b"", board=""):
        """Keep the dice commitment a board published for match ``mid`` (bytes) and the seed
        this host sent for it; the first one seen is kept (``gammon verify`` compares)."""
        try:
            with self.db:
                self.db.execute(
                    "INSERT OR IGNORE INTO commitments VALUES (?, ?, ?, ?, ?)",
                    (bytes(mid).hex(), bytes(commitment).hex(), bytes(seed).hex(), board, int(time.time())),
                )
                if seed:
                    self.db.execute(
                        "UPDATE commitments SET seed = ? WHERE id = ? AND commitment = ? AND seed = ''",
                        (bytes(seed).hex(), bytes(mid).hex(), bytes(commitment).hex()),
                    )
        except sqlite3.Error as e:
            raise _disk_error(e) from None

    def remembered_commitment(self, mid):
        """``(commitment, seed)`` (bytes; seed b"" if none sent) remembered for ``mid``, or None."""
        row = self.db.execute(
            "SELECT commitment, seed FROM commitments WHERE id = ?", (bytes(mid).hex(),)
        ).fetchone()
        return None if row is None else (bytes.fromhex(row[0]), bytes.fromhex(row[1]))

    def remember_proof(self, mid, part, proof_json):
        """Keep the proof of a part this host made for match ``mid`` (``gammon.dice_proof``)."""
        try:
            with self.db:
                self.db.execute(
                    "INSERT OR IGNORE INTO part_proofs VALUES (?, ?, ?)",
                    (bytes(mid).hex(), bytes(part).hex(), json.dumps(proof_json, sort_keys=True)),
                )
        except sqlite3.Error as e:
            raise _disk_error(e) from None

    def forget_proof(self, mid, part):
        """Drop the proof of ``part`` for match ``mid``: the board refused that part."""
        try:
            with self.db:
                self.db.execute(
                    "DELETE FROM part_proofs WHERE id = ? AND part = ?", (bytes(mid).hex(), bytes(part).hex())
                )
        except sqlite3.Error as e:
            raise _disk_error(e) from None

    def part_proofs(self, mid):
        """The JSON proofs of the parts this host made for match ``mid``."""
        rows = self.db.execute("SELECT proof FROM part_proofs WHERE id = ?", (bytes(mid).hex(),))
        return [json.loads(r[0]) for r in rows]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- writing ------------------------------------------------------------------------

    def store(self, data, board="", source=""):
        """Store one match's record bytes. Returns ``(status, Entry)``: ``new``; ``updated``
        (the board's later version of a stored match: its actions extend or equal the stored
        ones, whether its finished games were compacted or not; it replaces the stored copy);
        ``same`` (the same bytes, or an older version of what is stored); or ``conflict``
        (other actions under the same match id: the stored copy stays and the new bytes are
        kept beside it, see ``conflicts``). The bytes are replayed first: a damaged or illegal
        record raises ValueError and stores nothing."""
        data = bytes(data)
        m = model.load_match(data)
        if m.note:
            raise ValueError("damaged record: %s" % m.note)
        mid = m.id_hex
        try:
            with self.db:
                row = self.db.execute("SELECT data FROM matches WHERE id=?", (mid,)).fetchone()
                if row is not None:
                    old = bytes(row[0])
                    if old == data:
                        return SAME, self.get(mid)
                    rel = _relation(old, data)
                    if rel == _OLDER:
                        return SAME, self.get(mid)  # an older copy of what is stored
                    if rel == _OTHER:
                        row = (sha256_hex(data), mid, data, len(data), board or "", source or "")
                        self.db.execute(
                            "INSERT OR IGNORE INTO conflicts VALUES (?, ?, ?, ?, ?, ?, ?)",
                            row + (int(time.time()),),
                        )
                        return CONFLICT, self.get(mid)
                    status = UPDATED
                else:
                    status = NEW
                vals = {
                    "id": mid,
                    "size": len(data),
                    "started": m.unix_time,
                    "length": m.length,
                    "flags": m.flags,
                    "options": m.options_text(),
                    "player0": self._credited(mid, 0, m.names[0]),
                    "player1": self._credited(mid, 1, m.names[1]),
                    "score0": m.final_score[0],
                    "score1": m.final_score[1],
                    "winner": m.winner,
                    "games": len(m.games),
                    "complete": int(m.complete),
                    "board": board or "",
                    "source": source or "",
                    "stored": int(time.time()),
                }
                if status == UPDATED:
                    # keep where it first came from
                    del vals["board"], vals["source"]
                    sets = ", ".join("%s=:%s" % (k, k) for k in vals if k != "id")
                    self.db.execute(
                        "UPDATE matches SET data=:data, %s WHERE id=:id" % sets, dict(vals, data=data)
                    )
                else:
                    cols = ", ".join(vals)
                    self.db.execute(
                        "INSERT INTO matches (data, %s) VALUES (:data, %s)"
                        % (cols, ", ".join(":" + k for k in vals)),
                        dict(vals, data=data),
                    )
        except (sqlite3.Error, OSError) as e:
            raise _disk_error(e) from None
        return status, self.get(mid)

    def delete(self, game_id):
        mid = self.resolve(game_id)
        try:
            with self.db:
                self.db.execute("DELETE FROM matches WHERE id=?", (mid,))
        except (sqlite3.Error, OSError) as e:
            raise _disk_error(e) from None

    # -- reading ------------------------------------------------------------------------

    def get(self, mid):
        row = self.db.execute("SELECT %s FROM matches WHERE id=?" % ", ".join(_COLS), (mid,)).fetchone()
        return Entry(row) if row else None

    def data(self, game_id):
        """The stored record bytes of a match (id or unique id prefix)."""
        mid = self.resolve(game_id)
        return bytes(self.db.execute("SELECT data FROM matches WHERE id=?", (mid,)).fetchone()[0])

    def load(self, game_id):
        """The ``model.Match`` of a stored match, its players credited (``credit``)."""
        mid = self.resolve(game_id)
        m = model.load_match(self.data(mid))
        m.names = (self._credited(mid, 0, m.names[0]), self._credited(mid, 1, m.names[1]))
        return m

    def credit(self, mid, side, name):
        """A host's engine ``name`` (e.g. "gnubg 2-ply") decided side ``side``'s plays in match
        ``mid`` (hex) from some point on (``gammon play`` took over a live match whose records
        name the board's own computer): the library, ``show`` and every export name both,
        "pubeval, then gnubg 2-ply". Kept for a match stored later too."""
        mid = mid.lower()
        key = "credit:%s:%d" % (mid, side)
        try:
            with self.db:
                old = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
                names = [name] if old is None else old[0].split("\n")
                if name not in names:
                    names.append(name)
                self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, "\n".join(names)))
                row = self.db.execute("SELECT data FROM matches WHERE id=?", (mid,)).fetchone()
                if row is not None:
                    first = model.load_match(bytes(row[0])).names[side]
                    self.db.execute(
                        "UPDATE matches SET player%d=? WHERE id=?" % side,
                        (self._credited(mid, side, first), mid),
                    )
        except (sqlite3.Error, OSError) as e:
            raise _disk_error(e) from None

    def _credited(self, mid, side, name):
        """``name`` as the records give it, followed by the engines credited after it."""
        row = self.db.execute(
            "SELECT value FROM meta WHERE key=?", ("credit:%s:%d" % (mid, side),)
        ).fetchone()
        if row is None:
            return name
        later = [n for n in row[0].split("\n") if n and n != name]
        return ", then ".join([name] + later) if later else name

    def conflicts(self, mid):
        """The other copies kept under match id ``mid`` (``store`` returned ``conflict``), oldest
        first: dicts with ``sha256`` (hex), ``data``, ``size``, ``board``, ``source``, ``stored``."""
        q = "SELECT sha256, data, size, board, source, stored FROM conflicts WHERE id=? ORDER BY rowid"
        rows = self.db.execute(q, (mid.lower(),)).fetchall()
        keys = ("sha256", "data", "size", "board", "source", "stored")
        return [dict(zip(keys, (r[0], bytes(r[1])) + tuple(r[2:]))) for r in rows]

    def holds(self, mid, digest):
        """True when exactly the bytes with SHA-256 ``digest`` (hex or bytes) are stored for
        match ``mid``: as its copy, or as a conflict copy beside it."""
        digest = digest if isinstance(digest, str) else bytes(digest).hex()
        row = self.db.execute("SELECT data FROM matches WHERE id=?", (mid.lower(),)).fetchone()
        if row is not None and sha256_hex(row[0]) == digest:
            return True
        q = "SELECT 1 FROM conflicts WHERE sha256=? AND id=?"
        return self.db.execute(q, (digest, mid.lower())).fetchone() is not None

    def has(self, mid, size=None):
        """True when match ``mid`` is stored (with exactly ``size`` bytes, if given)."""
        row = self.db.execute("SELECT size FROM matches WHERE id=?", (mid.lower(),)).fetchone()
        return row is not None and (size is None or row[0] == size)

    def resolve(self, game_id):
        """The full id of ``game_id``: a match id or a unique prefix of at least 4 hex digits, or
        ``#N`` for the N-th match of ``gammon list`` (oldest first). LibraryError otherwise."""
        g = (game_id or "").strip().lower()
        if g.startswith("#") and g[1:].isdigit():
            n = int(g[1:])
            rows = self.db.execute("SELECT id FROM matches ORDER BY started, id").fetchall()
            if 1 <= n <= len(rows):
                return rows[n - 1][0]
            raise LibraryError("no game %s in the library (it holds %d)" % (game_id, len(rows)))
        if len(g) < 4 or any(c not in "0123456789abcdef" for c in g):
            raise LibraryError(
                "unknown game %r: give a match id (at least 4 hex digits) or #N from 'gammon list'" % game_id
            )
        rows = self.db.execute("SELECT id FROM matches WHERE id LIKE ?", (g + "%",)).fetchall()
        if not rows:
            raise LibraryError("unknown game %r: not in the library (see 'gammon list')" % game_id)
        if len(rows) > 1:
            raise LibraryError(
                "game id %r is ambiguous (%d matches); give more digits" % (game_id, len(rows))
            )
        return rows[0][0]

    def find(self, player=None, since=None, until=None, result=None, length=None, board=None):
        """Stored matches, oldest first, filtered: ``player`` (case-insensitive substring of
        either name), ``since``/``until`` (unix times, inclusive), ``result`` (``won``/``lost``
        for ``player``, or ``finished``/``unfinished``), ``length`` (0 = money)."""
        q = "SELECT %s FROM matches WHERE 1=1" % ", ".join(_COLS)
        args = []
        if player:
            q += " AND (instr(lower(player0), ?) OR instr(lower(player1), ?))"
            args += [player.lower(), player.lower()]
        if since is not None:
            q += " AND started >= ?"
            args.append(since)
        if until is not None:
            q += " AND started <= ?"
            args.append(until)
        if length is not None:
            q += " AND length = ?"
            args.append(length)
        if board:
            q += " AND instr(lower(board), ?)"
            args.append(board.lower())
        if result == "finished":
            q += " AND winner IS NOT NULL"
        elif result == "unfinished":
            q += " AND winner IS NULL"
        elif result in ("won", "lost"):
            if not player:
                raise LibraryError("--result won/lost needs --player")
            want = 0 if result == "won" else 1
            q += (
                " AND winner IS NOT NULL AND ((winner = 0 AND instr(lower(player0), ?)) + "
                "(winner = 1 AND instr(lower(player1), ?)) > 0) = ?"
            )
            args += [player.lower(), player.lower(), 1 - want]
        elif result:
            raise LibraryError("unknown result filter %r (won, lost, finished, unfinished)" % result)
        q += " ORDER BY started, id"
        return [Entry(r) for r in self.db.execute(q, args).fetchall()]

    def count(self):
        return self.db.execute("SELECT count(*) FROM matches").fetchone()[0]
