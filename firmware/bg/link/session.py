"""One connection's side of the link protocol (``Session``): parsing, MAC and sequence
checks, dispatch, and the output queue (responses, live events, transfer data).

Example::

    board = Board(store, clock, os.urandom, show_code=leds.show_code)
    s = Session(board, mtu=185)
    s.feed(received_bytes)
    frame = s.pump()
    while frame is not None:
        transport.send(frame)
        frame = s.pump()
"""

import struct

from micropython import const

from bg import forget
from bg import link as P
from bg.link.mac import check_seq

_SMALLEST = const(64)  # the least chunk a fetch falls back to (a frame of ~90 bytes)


class Session:
    """One connected host. ``feed(bytes)`` parses and handles requests; ``pump()`` returns the
    next frame to send (responses, then events, then transfer data within the credits) or
    None. A frame that fails any check is answered by an ERROR frame and changes nothing."""

    # Defaults read from the class until a session sets its own: MicroPython's instance dict
    # of 17 names has 17 slots, of 18-23 names 23 (48 B more per connection on the board model).
    small = P.MAX_PAYLOAD  # the chunks' cap: halved when the heap cannot hold a frame
    expired = False  # unauthenticated too long: the link drops the connection

    def __init__(self, board, mtu=23):
        self.board = board
        self.dec = P.Decoder()
        self.mtu = mtu
        self.out = []
        self.seq_out = 0
        self.events = []
        self.lost = 0
        self.watching = False
        self.xfer = None  # [match_id, pos, end, credits]
        self.auth = None  # (host_id, host_nonce, board_nonce) between AUTH_START and AUTH_PROOF
        self.opened = board.clock.ticks_ms()  # unauthenticated since (Board.poll drops it later)
        self.fails = 0  # failed proofs on this connection (its own back-off)
        self.fail_at = None  # ticks of the last one, cleared once its wait is served
        self.proving_at = None  # ticks of an AUTH_START naming a paired host (``claimed``)
        self._logout()
        board.sessions.append(self)

    # -- this connection's back-off (a stranger's failures never delay another connection)
    def backoff_ms(self):
        """Milliseconds until this connection may try another proof (0 = now)."""
        if self.fail_at is None:
            return 0
        wait = P.BACKOFF_BASE_MS << min(self.fails - 1, 20)
        if wait > P.BACKOFF_MAX_MS:
            wait = P.BACKOFF_MAX_MS
        d = self.board.elapsed(self.fail_at)
        if 0 <= d < wait:
            return wait - d
        self.fail_at = None  # served (or the clock wrapped past it): cleared
        return 0

    def failed(self):
        self.fails += 1
        self.fail_at = self.board.clock.ticks_ms()
        self.proving_at = None

    def claimed(self):
        """Whether this connection keeps its slot against a newcomer (``app.sock_link``):
        logged in, pairing, or proving a paired host's key -- for ``PROVE_MS`` after an
        AUTH_START that names a paired host, until its proof fails. A stranger that names a
        paired host (host ids are not secret) holds the slot that long per proof, and its
        failed proofs back off (``backoff_ms``)."""
        if self.mac_in is not None:
            return True
        b = self.board
        p = b.pairing
        if p is not None and p[0] is self:
            return True
        t = self.proving_at
        if t is not None and not b.within(t, P.PROVE_MS):
            self.proving_at = t = None  # cleared once passed: never back after a ticks wrap
        return t is not None

    def _logout(self):
        self.host_id = None
        self.mac_in = None  # the login's one Mac, both directions (the direction byte is in every tag)
        self.last_seq = 0
        self.watching = False
        self.xfer = None
        self.events = []

    def logout(self, why=None):
        """End the login (revocation). A logged-in host is told why first, in a frame still
        MAC'd with the session key (after this the board can no longer sign anything, and the
        host refuses unsigned frames): ERROR E_AUTH with ``why``."""
        if self.mac_in is not None and why:
            self._error(P.E_AUTH, 0, 0, 0, why)
        self._logout()

    def close(self):
        """The connection ended: drop the session (a pairing it started is cancelled)."""
        b = self.board
        if b.pairing is not None and b.pairing[0] is self:
            b.cancel_pairing()
        if self in b.sessions:
            b.sessions.remove(self)
        self._logout()
        _forget("auth")  # pairing/login code: not needed until the next connection asks
        _forget("crypto")
        # what a host asks after its login (lists, files, the watch): ~0.7 kB with the
        # journal's serving half, kept for the connection, not between connections
        _forget("requests")
        _forget("serve", "bg.journal")

    def set_mtu(self, mtu):
        self.mtu = mtu

    def chunk_size(self):
        """Data bytes per DATA frame so one frame fits one ATT packet (MTU - 3) when it can."""
        n = self.mtu - 3 - (P.HEADER + P.MAC_LEN + P.CRC_LEN) - 4
        if n < 32:
            n = 32
        if n > P.MAX_PAYLOAD - 4:
            n = P.MAX_PAYLOAD - 4
        return n if n < self.small else self.small

    @property
    def authenticated(self):
        return self.mac_in is not None

    # -- output
    def _send(self, ftype, payload, flags=0):
        if self.mac_in is None:
            self.seq_out = (self.seq_out + 1) & 0xFFFF
        elif self.seq_out >= P.SEQ_MAX:  # 2^32 frames: this session key signs no more
            self._logout()
            self.seq_out = 1
        else:
            self.seq_out += 1  # 32-bit: the header carries the low half, the MAC the epoch
        return P.encode_frame(ftype, self.seq_out, payload, flags, self.mac_in, b"B")

    def _reply(self, ftype, payload, flags=0):
        if len(self.out) >= P.OUT_QUEUE:
            return  # (the host times out and asks again)
        self.out.append(self._send(ftype, payload, flags))

    def _error(self, code, req_type=0, req_seq=0, retry_ms=0, msg=None):
        self._reply(P.ERROR, P.error_payload(code, req_type, req_seq, retry_ms, msg))

    def pump(self):
        """The next frame (bytes) to transmit, or None when there is nothing to send."""
        if self.out:
            return self.out.pop(0)
        if self.lost and self.mac_in is not None:
            n, self.lost = self.lost, 0
            return self._send(P.EVENT, bytes([P.EV_LOST]) + struct.pack("<I", n))
        if self.events:
            return self._send(P.EVENT, bytes([P.EV_RECORD]) + self.events.pop(0))
        x = self.xfer
        if x is not None and x[3] > 0:
            seq = self.seq_out
            while True:
                try:
                    return self._data(x)
                except MemoryError:
                    # no block for this chunk's frame in a fragmented heap (the board model
                    # playing another board: ~500 bytes three times over): smaller chunks from
                    # now on, and when even the smallest does not fit, a clear error that ends
                    # the transfer -- never a silence the host waits out
                    self.seq_out = seq  # (no frame was made: its number is not used up)
                    if self.small <= _SMALLEST:
                        break
                    self.small >>= 1
            self.xfer = None
            return self._send(P.ERROR, P.error_payload(P.E_BUSY, P.REQ_FETCH, 0, 1000, "out of memory"))
        return None

    def _data(self, x):
        """The transfer's next DATA frame (or its ERROR, the store failing); MemoryError
        changes nothing."""
        mid, pos, end = x[0], x[1], x[2]
        n = end - pos
        cs = self.chunk_size()
        if n > cs:
            n = cs
        try:
            data = self.board.store.read_match(mid, pos, n) if n else b""
        except MemoryError:
            raise  # (the heap, not the store: a smaller chunk may fit)
        except Exception:  # noqa: BLE001 - any storage failure ends the transfer cleanly
            data = None
        if data is None or len(data) != n:
            self.xfer = None
            return self._send(P.ERROR, P.error_payload(P.E_STORE, P.REQ_FETCH, 0, 0, "read failed"))
        last = pos + n >= end
        fr = self._send(P.DATA, struct.pack("<I", pos) + data, P.FLAG_LAST if last else 0)
        x[1] = pos + n
        x[3] -= 1
        if last:
            self.xfer = None
        return fr

    # -- input
    def feed(self, data):
        """Parse ``data`` and handle every complete frame in it."""
        i = 0
        n = len(data)
        while True:
            took = self.dec.feed(data, i)
            i += took
            handled = 0
            while True:
                r = self.dec.next()
                if r is None:
                    break
                handled += 1
                if r[0] == P.BAD:
                    self._error(r[1])
                else:
                    self.handle(r[1])
            if i >= n:
                return
            if not took and not handled:  # cannot happen (a full buffer always parses); be safe
                self.dec.reset()

    def handle(self, fr):
        """Handle one decoded frame: checks first (MAC, sequence, auth, payload), then act."""
        t = fr.type
        if self.mac_in is not None:
            full = check_seq(self.mac_in, b"H", fr, self.last_seq)
            if full < 0:  # -E_MAC or -E_SEQ
                return self._error(-full, t, fr.seq)
            self.last_seq = full
        elif fr.mac is not None:
            return self._error(P.E_AUTH, t, fr.seq)
        if not (P.REQ_INFO <= t <= P.REQ_JOINT or P.REQ_LIST <= t <= P.REQ_CRASH_LOG):
            return self._error(P.E_TYPE, t, fr.seq)
        if t > P.REQ_AUTH_PROOF and self.mac_in is None:  # all but INFO, pairing and login
            return self._error(P.E_AUTH, t, fr.seq)
        try:
            _handler(t)(self, fr)
            if t == P.REQ_INFO:
                _forget("info")  # asked once a connection: 192 B kept at rest otherwise
            elif t == P.REQ_AUTH_PROOF and self.mac_in is not None:
                _forget("auth")  # logged in: the pre-login requests are not needed until the next
                _forget("crypto")  # (the session keeps bg.link.mac)
            elif t == P.REQ_DECIDE or t == P.REQ_JOINT:
                # a host that plays through the board (gammon play, gammon remote play) asks
                # this once a turn; its lists, files, watch and seed parts come before the match
                # and after it: ~0.8 kB not held through the match (docs/memory.md)
                _forget("requests")
                _forget("serve", "bg.journal")
        except ValueError as e:
            self._error(P.E_PAYLOAD, t, fr.seq, 0, str(e))
        except KeyError:
            self._error(P.E_NOT_FOUND, t, fr.seq)
        except OSError:
            self._error(P.E_STORE, t, fr.seq)
        except MemoryError:  # the heap is full or fragmented now (a flood just ended...)
            self._error(P.E_BUSY, t, fr.seq, 1000, "out of memory")  # retry in a second
        except Exception:  # noqa: BLE001 - a hostile payload must never reach the game
            self._error(P.E_PAYLOAD, t, fr.seq, 0, "rejected")


# The handlers' names by request type, REQ_INFO..REQ_JOINT (0x01-0x07) and REQ_LIST..REQ_CRASH_LOG
# (0x10-0x1F), in the order of their numbers (``_handler`` finds the module): two tuples of
# strings are constants in flash, where a dict of the 23 types cost ~0.3 kB of the board's heap.
# The handler modules are imported on first use, so a board that is never paired does not pay
# for them.
_FIRST = const(("answer", "pair_start", "pair_confirm", "auth_start", "auth_proof", "decide", "joint"))
_AUTHED = const(
    (
        "list_matches",
        "fetch",
        "ack",
        "cancel",
        "delete",
        "watch",
        "reveal",
        "set_clock",
        "rename",
        "unpair",
        "hosts",
        "player_seed",
        "begin",  # bg.link.fwupdate: a paired host only; the bundle's signature regardless
        "chunk",
        "commit",
        "crash_log",
    )
)


def _forget(name, package="bg.link"):
    """Drop a link module that is needed only now and then (``auth`` and ``crypto``: pairing
    and login, once per connection, dropped after a login and when a connection ends;
    ``info``: INFO, dropped once answered; ``requests`` and ``bg.journal.serve``: what a host
    asks after its login, dropped when a connection ends) from ``sys.modules`` and its package
    (``package``), so the collector takes its function objects back (~2 kB on the 32-bit board
    model, docs/memory.md); the next use imports it again from flash (``bg.forget``).
    MicroPython only: CPython has the memory, and tests may patch it."""
    import sys

    if sys.implementation.name == "micropython":
        forget(package + "." + name)


def _handler(t):
    """The function answering request type ``t`` (one of ``handle``'s known types), its module
    imported now."""
    if t >= P.REQ_LIST:
        if P.REQ_FW_BEGIN <= t <= P.REQ_FW_COMMIT:
            from bg.link import fwupdate as mod
        else:
            from bg.link import requests as mod
        name = _AUTHED[t - P.REQ_LIST]
    else:
        if t == P.REQ_INFO:
            from bg.link import info as mod
        elif t == P.REQ_DECIDE:
            from bg.link import decide as mod  # gammon play's only
        elif t == P.REQ_JOINT:
            from bg.link import joint as mod  # gammon remote play's only
        else:
            from bg.link import auth as mod
        name = _FIRST[t - P.REQ_INFO]
    return getattr(mod, name)
