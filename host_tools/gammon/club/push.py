"""The board host's side of the club: ``gammon club join URL TOKEN`` keeps the club's address
and this host's token; ``gammon sync --club`` pushes finished matches, ``gammon watch --club``
live events. Standard library only (``urllib``): a board's host needs nothing more.

Live events go through an outbox on disk (``$GAMMON_HOME/club/<board>.json``): each event
gets the board's next sequence number and is written there *before* it is sent, and it leaves
only when the club has acknowledged it. A dropped network therefore loses nothing (the outbox
is sent again later, in order) and doubles nothing (the club recognises an event it already
holds by its number and digest and acknowledges it again).
"""

import base64
import hashlib
import json
import os
import re
import urllib.error
import urllib.request

from gammon.errors import UserError
from gammon.library import home

BATCH = 32  # live events per request (the club takes at most 64)


class ClubError(UserError):
    """The club refused something or cannot be reached; ``status`` is the HTTP status (0: no
    answer)."""

    def __init__(self, msg, status=0, body=None):
        UserError.__init__(self, msg)
        self.status = status
        self.body = body or {}


def _config_path():
    return home() / "club.json"


def _write_json(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def load_config():
    try:
        with open(_config_path(), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise ClubError("this host has joined no club: gammon club join URL TOKEN") from None


class Pusher:
    def __init__(self, url, token, timeout=10.0):
        if not re.match(r"^https?://[^/\s]+", url or ""):
            raise ClubError("the club's address must be an http:// or https:// URL, got %r" % url)
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    @classmethod
    def from_config(cls):
        c = load_config()
        return cls(c["url"], c["token"])

    def request(self, method, path, body=None, ctype="application/json", headers=None):
        req = urllib.request.Request(self.url + path, data=body, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        req.add_header("Content-Type", ctype)
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            try:
                obj = json.loads(e.read())
            except ValueError:
                obj = {}
            raise ClubError("the club refused: %s" % obj.get("error", e.reason), e.code, obj) from None
        except (urllib.error.URLError, OSError) as e:
            raise ClubError(
                "cannot reach the club at %s (%s)" % (self.url, getattr(e, "reason", e))
            ) from None

    def whoami(self):
        return self.request("GET", "/api/v1/whoami")

    def push_match(self, data, mid, board=""):
        """Push one finished match; the club's answer, checked: the club holds exactly these
        bytes (its SHA-256 equals ours) or a later version of them (status ``same``)."""
        hdr = {"X-Board": board} if board else {}
        r = self.request("PUT", "/api/v1/matches/" + mid, bytes(data), "application/octet-stream", hdr)
        if r.get("status") in ("new", "updated") and r.get("sha256") != hashlib.sha256(data).hexdigest():
            raise ClubError("the club stored other bytes than were sent (%s)" % r.get("sha256"))
        return r

    def push_live(self, board, events):
        body = json.dumps(
            {
                "board": board,
                "events": [
                    {"seq": s, "kind": k, "data": base64.b64encode(d).decode("ascii")} for s, k, d in events
                ],
            }
        ).encode()
        return self.request("POST", "/api/v1/live", body)


class Outbox:
    """One board's live events not yet acknowledged by the club, on disk."""

    def __init__(self, board, folder=None):
        self.board = board
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", board) + "-" + hashlib.sha256(board.encode()).hexdigest()[:8]
        self.path = (folder or home() / "club") / (safe + ".json")
        try:
            with open(self.path, encoding="utf-8") as fh:
                st = json.load(fh)
        except FileNotFoundError:
            st = {"seq": 0, "pending": []}
        self.seq = st["seq"]
        self.pending = [(s, k, base64.b64decode(d)) for s, k, d in st["pending"]]

    def _save(self):
        enc = [(s, k, base64.b64encode(d).decode("ascii")) for s, k, d in self.pending]
        _write_json(self.path, {"seq": self.seq, "pending": enc})

    def add(self, kind, data):
        self.seq += 1
        self.pending.append((self.seq, kind, bytes(data)))
        self._save()
        return self.seq

    def flush(self, pusher):
        """Send what is pending, in order; True when all was acknowledged, False when the club
        cannot be reached (kept for later). ClubError when the club refuses an event."""
        while self.pending:
            try:
                r = pusher.push_live(self.board, self.pending[:BATCH])
            except ClubError as e:
                if e.status == 0:
                    return False
                acked = e.body.get("seq")
                if isinstance(acked, int):
                    self._ack(acked)
                raise
            self._ack(r["seq"])
        return True

    def _ack(self, seq):
        before = len(self.pending)
        self.pending = [p for p in self.pending if p[0] > seq]
        if len(self.pending) != before:
            self._save()


def join(url, token):
    """Check the token with the club, then keep the address and token; the club's answer."""
    p = Pusher(url, token)
    who = p.whoami()
    cfg = {"url": p.url, "token": token, "host": who.get("host"), "event": who.get("event")}
    _write_json(_config_path(), cfg)
    os.chmod(_config_path(), 0o600)
    return who


def push_library(lib, pusher, out=print):
    """``gammon sync --club``: push every finished match of the library the club does not hold
    yet (those pushed are remembered by their SHA-256 in club.json). Returns (pushed, problems)."""
    cfg = load_config()
    sent = cfg.setdefault("sent", {})
    pushed = 0
    problems = []
    for e in lib.find(result="finished"):
        data = lib.data(e.id)
        digest = hashlib.sha256(data).hexdigest()
        if sent.get(e.id) == digest:
            continue
        try:
            r = pusher.push_match(data, e.id, e.board)
        except ClubError as err:
            if err.status == 0:
                raise
            problems.append("%s: %s" % (e.id, err))
            out("warning: " + problems[-1])
            continue
        out(
            "club     %s  %s  %s - %s  dice: %s"
            % (r["status"], e.id, e.player0, e.player1, r.get("dice", ""))
        )
        sent[e.id] = digest
        pushed += 1
        _write_json(_config_path(), cfg)
    return pushed, problems


class LiveSink:
    """``gammon watch --club``: ``sink(kind, data)`` queues a live event and sends the outbox;
    a network that is down only delays (the outbox is sent with the next event)."""

    def __init__(self, board, pusher=None, out=print):
        self.outbox = Outbox(board)
        self.pusher = pusher or Pusher.from_config()
        self.out = out
        self.offline = False

    def __call__(self, kind, data):
        self.outbox.add(kind, data)
        try:
            ok = self.outbox.flush(self.pusher)
        except ClubError as e:  # refused: the board's own view goes on; the event stays queued
            self.out("club: %s" % e)
            return
        if ok == self.offline:
            self.offline = not ok
            self.out(
                "club: %s"
                % (
                    "offline, %d event(s) kept to send" % len(self.outbox.pending)
                    if not ok
                    else "back online"
                )
            )
