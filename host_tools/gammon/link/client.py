"""The protocol client: one authenticated connection to a board (``Client``)."""

import fcntl
import os
import struct
import time

from bg import link as P  # firmware/ is on the path: gammon/__init__ imports gammon._paths
from bg.link.host import HostEnd, error_text

from gammon.link.base import TIMEOUT, LinkError
from gammon.link.keys import config_dir

WINDOW = 16  # DATA frames in flight during a fetch
PAIR_TIMEOUT = 60.0  # the board's X25519 key generation (well under a second on an ESP32)
CONFIRM_TIMEOUT = P.PAIR_CODE_MS / 1000.0 + 5.0  # the board waits this long for its button
BUSY_TEXT = (
    "another host is pairing with the board right now: if the board shows a number, do NOT "
    "press its button; wait until the number goes away, open pairing again and retry"
)


def joined_decodes(kept, joined):
    """Whether a resumed fetch can be trusted: ``joined`` (``kept`` + the bytes fetched
    after it) decodes as whole ``bg.record`` records. True when ``kept`` is no record stream
    at all (nothing to check). Packed games are not expanded (``expand=False``)."""
    from bg import record
    from bg.record import decode as recdec

    d = recdec.Decoder(bytes(kept), expand=False)
    for _ in d:
        pass
    if d.status == record.CORRUPT:
        return True
    d = recdec.Decoder(bytes(joined), expand=False)
    for _ in d:
        pass
    return d.status == record.OK and d.valid == len(joined)


class Client:
    """One connection to a board. Methods raise ``LinkError`` when the board refuses."""

    def __init__(self, transport, address=""):
        self.t = transport
        self.address = address
        self.host = HostEnd(os.urandom)
        self.events = []
        self.pending = []
        self.board_id = None
        self.sent = []  # every frame sent (tests use it to replay a captured session)
        self.last_info = None  # INFO asked with a pairing (``pair(with_info=True)``)

    # context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.t.close()

    # -- frame exchange
    def _send(self, frame):
        self.sent.append(frame)
        self.t.send(frame)

    def _next(self, timeout):
        """The next non-event frame ``(type, payload, flags)`` within ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while True:
            while self.pending:
                fr = self.pending.pop(0)
                if fr[0] == P.EVENT:
                    self.events.append(fr[1])
                    continue
                return fr
            left = end - time.monotonic()
            if left <= 0:
                raise LinkError("the board did not answer within %.0f s" % timeout)
            data = self.t.recv(min(left, 0.5))
            if data:
                self.pending.extend(self.host.feed(data))

    def _check(self, fr, want):
        t, payload, _ = fr
        if t == P.ERROR:
            code, rt, rs, retry, msg = P.parse_error(payload)
            text = error_text(code) + (": " + msg if msg else "")
            if retry:
                text += " (retry in %.1f s)" % (retry / 1000.0)
            raise LinkError(text, code, retry)
        if t != want:
            raise LinkError("unexpected reply type 0x%02x (wanted 0x%02x)" % (t, want))
        return payload

    def call(self, ftype, payload=b"", timeout=TIMEOUT):
        self._send(self.host.request(ftype, payload))
        fr = self._next(timeout)
        while fr[0] == P.DATA:  # the tail of an abandoned transfer
            fr = self._next(timeout)
        return self._check(fr, P.RSP | ftype)

    # -- requests
    def info(self, sent=False):
        """The board's INFO. ``sent``: the request went out already (with other frames:
        ``gammon.link.connect``); only its answer is read."""
        if sent:
            fr = self._next(TIMEOUT)
            while fr[0] == P.DATA:
                fr = self._next(TIMEOUT)
            p = self._check(fr, P.RSP | P.REQ_INFO)
        else:
            p = self.call(P.REQ_INFO)
        ver, flags, maxp, nhosts = struct.unpack("<BBHB", p[:5])
        bid = p[5:13]
        n = p[13]
        name = p[14 : 14 + n].decode("utf-8", "replace")
        m = p[14 + n]
        fw = p[15 + n : 15 + n + m].decode("utf-8", "replace")
        self.board_id = bid
        return {
            "protocol": ver,
            "authenticated": bool(flags & 1),
            "pairing_open": bool(flags & 2),
            "max_payload": maxp,
            "paired_hosts": nhosts,
            "board_id": bid.hex(),
            "name": name,
            "firmware": fw,
        }

    def pair(self, host_name, show_value, host_id=None, confirm_timeout=None, with_info=False):
        """Pair with the board (numeric comparison, docs/protocol.md): ``show_value(v)`` gets
        the 6 digits to show the user, who presses the board's ROLL button if the board shows
        the same; the board answers only then. ``show_value`` returning ``False`` (the user
        says the numbers differ) abandons the pairing on this side too: a relay that answers
        in the board's place gets nothing stored. Returns ``(host_id, key)``; the caller stores
        them (``Boards.add``). ``with_info``: ask INFO first, in the same breath (its answer is
        kept in ``last_info``)."""
        host_id = host_id or os.urandom(P.ID_LEN)
        ch = b""
        for attempt in range(2):  # one retry after the board's rate limit (a PAIR_START per 2 s)
            if with_info and not attempt:
                # INFO and PAIR_START at once: a board whose slot a stranger holds sees the
                # PAIR_START while this host waits (app.sock_link) and ends a pairing in the way
                self._send(self.host.request(P.REQ_INFO))
            self._send(self.host.pair_start(host_id, host_name))
            try:
                if with_info and not attempt:
                    self.last_info = self.info(sent=True)
                ch = self._check(self._next(PAIR_TIMEOUT), P.RSP | P.REQ_PAIR_START)
                break
            except LinkError as e:
                if e.code == P.E_BUSY and "pairing" in str(e):  # (not "out of memory")
                    raise LinkError(BUSY_TEXT, e.code) from None
                if e.code != P.E_BACKOFF or attempt or not 0 < e.retry_ms <= P.PAIR_GAP_MS:
                    raise
                time.sleep(e.retry_ms / 1000.0)
        self._send(self.host.pair_confirm(ch))
        if show_value(self.host.value) is False:
            raise LinkError("pairing abandoned: the numbers differ (nothing stored)")
        timeout = CONFIRM_TIMEOUT if confirm_timeout is None else confirm_timeout
        try:
            fr = self._next(timeout)
        except LinkError:
            raise LinkError("the board's button was not pressed within %.0f s" % timeout) from None
        proof = self._check(fr, P.RSP | P.REQ_PAIR_CONFIRM)
        try:
            key = self.host.pair_finish(proof)
        except ValueError as e:
            raise LinkError(str(e)) from None
        return host_id, key

    def authenticate(self, host_id, key, started=False):
        """Log in with a saved key. ``started``: its AUTH_START went out already (with INFO:
        ``gammon.link.connect``); ``host_id``/``key`` are then those it was made with."""
        if not started:
            self._send(self.host.auth_start(host_id, key))
        ch = self._check(self._next(TIMEOUT), P.RSP | P.REQ_AUTH_START)
        self._send(self.host.auth_proof(ch))
        self.host.auth_expect()
        fr = self._next(TIMEOUT)
        if fr[0] == P.ERROR:
            self.host.mac_in = None
        proof = self._check(fr, P.RSP | P.REQ_AUTH_PROOF)
        try:
            self.host.auth_finish(proof)
        except ValueError as e:
            raise LinkError(str(e)) from None

    def list_games(self):
        """``[{"id": hex, "size": bytes, "state": ..., "finished": bool}]``."""
        out = []
        start = 0
        while True:
            p = self.call(P.REQ_LIST, struct.pack("<H", start))
            total, _, n = struct.unpack("<HHB", p[:5])
            for i in range(n):
                e = p[5 + 13 * i : 18 + 13 * i]
                size, state = struct.unpack("<IB", e[8:])
                done = state in (P.STATE_FINISHED, P.STATE_ABANDONED)  # not live, not damaged
                out.append({"id": e[:8].hex(), "size": size, "state": state, "finished": done})
            start += n
            if n == 0 or start >= total:
                return out

    def _partial_path(self, gid):
        bid = self.board_id.hex() if self.board_id else "board"
        return config_dir() / "partial" / bid / (gid + ".part")

    def fetch_game(self, game_id, progress=None, resume=True, offset=None, keep=None):
        """The bytes of one game/match. ``resume``: continue an interrupted fetch from the
        bytes kept in the config dir's ``partial/`` (the offset the board resumes at);
        ``keep`` (default: ``resume``): keep the bytes there as they arrive, so that an
        interrupted fetch can resume; ``progress(done, total)`` is called as data arrives.

        A one-off copy (``resume=False``, as ``gammon watch`` takes the live match) neither
        reads nor writes ``partial/``. The kept file is locked while a fetch writes it: a
        second command fetching the same match at the same time (``watch`` and ``sync``
        through the hub) fetches without keeping instead of writing into the first's bytes.

        A live match's file is not append-only: at GAME_END the board compacts the finished
        game (docs/journal.md), rewriting bytes the host may already hold. So a resumed
        fetch is checked: when the kept bytes were a record stream but the joined bytes no
        longer decode (``bg.record.decode``), they are dropped and the match is fetched from 0."""
        gid = game_id if isinstance(game_id, str) else bytes(game_id).hex()
        part = _Kept(self._partial_path(gid)) if (resume if keep is None else keep) else None
        try:
            return self._fetch(gid, part, progress, resume, offset)
        finally:
            if part is not None:
                part.close()

    def _fetch(self, gid, part, progress, resume, offset):
        have = b""
        if offset is None:
            offset = 0
            if resume and part is not None:
                have = part.read()
                offset = len(have)
        try:
            p = self.call(P.REQ_FETCH, bytes.fromhex(gid) + struct.pack("<IIB", offset, 0xFFFFFFFF, WINDOW))
        except LinkError as e:
            if not have or e.code != P.E_PAYLOAD:
                raise
            # the match shrank below what was kept (compacted): start again
            return self._fetch(gid, part, progress, False, None)
        size, start, end = struct.unpack("<III", p[8:20])
        if start != offset:
            raise LinkError("board resumed at %d, asked %d" % (start, offset))
        if offset > size:
            have, offset = b"", 0
        buf = bytearray(have)
        if part is not None and not have:
            part.restart()
        pos = offset
        since_ack = 0
        while True:
            t, payload, flags = self._next(TIMEOUT)
            if t == P.ERROR:
                self._check((t, payload, flags), P.DATA)
            if t != P.DATA:
                continue
            at = struct.unpack("<I", payload[:4])[0]
            chunk = payload[4:]
            if at < pos:
                # A resent frame overlaps what we have (same file, same bytes): keep
                # only what is new.
                if at + len(chunk) <= pos:
                    continue
                chunk = chunk[pos - at :]
            elif at > pos:
                raise LinkError("data out of order at %d (expected %d)" % (at, pos))
            buf += chunk
            if part is not None:
                part.add(chunk)
            pos += len(chunk)
            if progress:
                progress(pos, end)
            if flags & P.FLAG_LAST:
                break
            since_ack += 1
            if since_ack >= WINDOW // 2:
                self._send(self.host.request(P.REQ_ACK, struct.pack("<IB", pos, since_ack)))
                since_ack = 0
        if have and not joined_decodes(have, buf):
            return self._fetch(gid, part, progress, False, None)  # rewritten meanwhile: again
        if part is not None:
            part.done()
        return bytes(buf)

    def delete_games(self, entries):
        """Delete finished games the host has stored: ``entries`` are ``(id, sha256)`` pairs,
        the digest of exactly the bytes the host stored (``hashlib.sha256(data).digest()``);
        the board refuses (E_STATE) when its file differs. All-or-nothing per call of up to
        ``MAX_DELETE``. Returns the number deleted."""
        n = 0
        raw = [bytes.fromhex(i if isinstance(i, str) else bytes(i).hex()) + bytes(d) for i, d in entries]
        for k in range(0, len(raw), P.MAX_DELETE):
            n += struct.unpack("<H", self.call(P.REQ_DELETE, b"".join(raw[k : k + P.MAX_DELETE])))[0]
        return n

    def watch(self, timeout=None, tick=None):
        """Yield each confirmed action record as the board publishes it (``None`` marks lost
        events: re-fetch the live match). Stops after ``timeout`` idle seconds, if given;
        ``tick()`` is called after each idle second (``gammon watch`` looks for notes)."""
        self.call(P.REQ_WATCH, b"\x01")
        try:
            while True:
                # frames that came in with the WATCH answer first (an event published at once)
                frames, self.pending = self.pending, []
                bad = None
                for fr in frames:
                    if fr[0] == P.EVENT:
                        self.events.append(fr[1])
                    elif fr[0] == P.ERROR and bad is None:
                        bad = fr
                while self.events:  # every authenticated record first, then the error
                    ev = self.events.pop(0)
                    yield ev[1:] if ev[:1] == b"\x00" else None
                if bad is not None:
                    self._check(bad, P.EVENT)
                data = self.t.recv(timeout if timeout is not None else 1.0)
                if not data:
                    if timeout is not None:
                        return
                    if tick is not None:
                        tick()
                    continue
                self.pending.extend(self.host.feed(data))
        finally:
            try:
                self.call(P.REQ_WATCH, b"\x00")
            except LinkError:
                pass

    def watch_on(self, on=True):
        """Start (or stop) the live watch without a generator: the records arrive through
        ``wait_events`` between other requests (``gammon play``)."""
        self.call(P.REQ_WATCH, b"\x01" if on else b"\x00")

    def wait_events(self, timeout):
        """The records a watched board published, waiting up to ``timeout`` seconds for the
        first (``None`` marks lost events: re-fetch the live match); [] when none came. A
        board's ERROR raises ``LinkError``."""
        end = time.monotonic() + timeout
        while True:
            frames, self.pending = self.pending, []
            for fr in frames:
                if fr[0] == P.EVENT:
                    self.events.append(fr[1])
                elif fr[0] == P.ERROR:
                    self._check(fr, P.EVENT)
            if self.events:
                out = [ev[1:] if ev[:1] == b"\x00" else None for ev in self.events]
                self.events = []
                return out
            left = end - time.monotonic()
            if left <= 0:
                return []
            data = self.t.recv(min(left, 0.5))
            if data:
                self.pending.extend(self.host.feed(data))

    def decide(self, kind, body=b""):
        """A decision for the board's computer (DECIDE, docs/protocol.md): ``bg.link.decide.DEC_HELLO``
        with side + strength, ``DEC_PLAY`` with turn + steps, ``DEC_CUBE`` with turn +
        yes. ``LinkError`` (E_STATE, the board's reason) when it is not the computer's now."""
        return self.call(P.REQ_DECIDE, bytes([kind]) + bytes(body))

    def joint(self, kind, body=b""):
        """The other board's dice in a two-board match (JOINT, docs/remote.md):
        ``bg.link.joint.J_START`` with side + the other board's commitment (answers match id +
        this board's commitment), ``J_SHARE`` with throw u32 + the other board's share,
        ``J_MINE`` with throw u32 (answers throw + this board's share), ``J_ASKED`` with throw
        u32 (this board's share of it went out: its player's roll was asked for; answers the
        throw). ``LinkError`` (E_STATE, the board's reason) when the board refuses."""
        return self.call(P.REQ_JOINT, bytes([kind]) + bytes(body))

    def reveal_seed(self, game_id):
        gid = game_id if isinstance(game_id, str) else bytes(game_id).hex()
        return self.call(P.REQ_REVEAL, bytes.fromhex(gid))[8:]

    def send_player_seed(self, commitment, seed, proof=b""):
        """Contribute ``seed`` (16 bytes) to the dice of the match that published
        ``commitment`` (32 bytes), with its packed ``proof`` (``gammon.dice_proof.pack``: the
        board journals it beside the part); returns its match id. LinkError (E_STATE) when that
        match is not waiting for player seeds (docs/dice.md)."""
        return self.call(P.REQ_PLAYER_SEED, bytes(commitment) + bytes(seed) + bytes(proof))[:8]

    def set_clock(self, unix_time=None):
        t = int(time.time() if unix_time is None else unix_time)
        self.call(P.REQ_SET_CLOCK, struct.pack("<I", t))
        return t

    def rename(self, name):
        raw = name.encode("utf-8")
        P.check_name(raw)
        self.call(P.REQ_RENAME, raw)

    def hosts(self):
        p = self.call(P.REQ_HOSTS)
        out = []
        i = 1
        for _ in range(p[0]):
            hid = p[i : i + 8]
            n = p[i + 8]
            out.append((hid.hex(), p[i + 9 : i + 9 + n].decode("utf-8", "replace")))
            i += 9 + n
        return out

    def unpair(self, host_id=None):
        self.call(P.REQ_UNPAIR, bytes.fromhex(host_id) if host_id else b"")


class _Kept:
    """A fetch's kept bytes (``partial/<board>/<match>.part``), locked while one fetch writes
    them. When another command holds the lock, nothing is read or written: that fetch goes on
    without keeping, and the holder's bytes stay whole."""

    def __init__(self, path):
        self.path = path
        self.f = None
        path.parent.mkdir(parents=True, exist_ok=True)
        f = open(path, "a+b")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()  # another command is fetching this match and keeping its bytes
            return
        self.f = f

    def read(self):
        if self.f is None:
            return b""
        self.f.seek(0)
        return self.f.read()

    def restart(self):
        if self.f is not None:
            self.f.truncate(0)

    def add(self, chunk):
        if self.f is not None:
            self.f.write(chunk)  # "a+": always at the end
            self.f.flush()

    def done(self):
        """The whole match arrived: nothing is left to resume."""
        if self.f is not None:
            self.path.unlink(missing_ok=True)

    def close(self):
        if self.f is not None:
            self.f.close()
            self.f = None
