"""Strangers crowding the board's BLE radio while the paired owner tries to get through: a
simulation in virtual milliseconds on the fake ``bluetooth`` radio (test_link_ble_owner.py).

The air is modelled as BLE works: a central connects only at one of the board's advertising
events (every ``adv[0]`` us, plus the spec's 0-10 ms random delay), and when several centrals
are initiating at that moment one of them wins at random. Each connected central acts a
connection event (``_CI_MS``) after the board's last answer. The board is ``app.ble`` with
``app.link`` and the real sessions; ``Air.run`` advances the board's clock one millisecond at
a time, runs the radio's task (``BleTransport.service``) and steps each seated link.

Strangers (``Stranger``): ``churn`` (connect, bond with "just works", send INFO or noise,
hang up ``hold`` ms later, again ``gap`` ms after), ``idle`` (connect and never bond or
write; again at once when dropped), ``garbage`` (bond, then random bytes every 10 ms),
``halfopen`` (bond, half a frame, then nothing). The owner (``Owner``) is bonded and paired:
it connects, re-encrypts, sends INFO and AUTH_START in one write, proves its key and asks for
INFO; a request succeeds when that INFO answer arrives within ``budget`` ms of the start,
reconnecting when it was dropped on the way (10 s: bleak's connect timeout).
"""

import asyncio

from bg import link as P

_CI_MS = 15  # a connection event: a central acts this long after the board's answer
_ENC_MS = 30  # a bonded central re-encrypts this long after connecting


class Lcg:
    """A small deterministic generator (the same numbers on CPython and MicroPython)."""

    def __init__(self, seed):
        self.x = seed & 0x7FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


class Stranger:
    def __init__(self, mode, hold=2, gap=2, rng=None):
        self.mode = mode
        self.hold = hold
        self.gap = gap
        self.rng = rng
        self.conn = None
        self.at = 0  # when it next acts
        self.step = 0
        self.connects = 0
        self.seen = 0

    def initiating(self, now):
        return self.conn is None and now >= self.at

    def connected(self, air, conn, now):
        self.conn = conn
        self.connects += 1
        self.step = 0
        self.at = now + 1

    def dropped(self, now):
        self.conn = None
        self.at = now + (self.gap if self.mode == "churn" else 0)

    def act(self, air, now):
        if self.conn is None or now < self.at:
            return
        r = air.radio
        if self.mode == "idle":
            self.at = now + 1000000
            return
        if self.step == 0:
            r._pair(mitm=False, conn=self.conn, key=b"stranger")  # "just works"
            self.step = 1
            self.at = now + (0 if self.mode == "churn" else _CI_MS)
            return
        if self.mode == "churn":
            if self.step == 1:
                data = (
                    P.encode_frame(P.REQ_INFO, 1, b"")
                    if self.rng.below(2)
                    else bytes(self.rng.below(256) for _ in range(1 + self.rng.below(19)))
                )
                air.write(self.conn, data)
                self.step = 2
                self.at = now + self.hold
            else:
                r._disconnect(self.conn)
        elif self.mode == "garbage":
            air.write(self.conn, bytes(self.rng.below(256) for _ in range(20)))
            self.at = now + 10
        elif self.mode == "halfopen":
            air.write(self.conn, P.encode_frame(P.REQ_INFO, 1, b"")[:4])
            self.at = now + 1000000


class Owner:
    """The paired owner's host: one request at a time (``start``), reconnecting when dropped."""

    def __init__(self, host_id, key, budget):
        self.host_id = host_id
        self.key = key
        self.budget = budget
        self.conn = None
        self.start_at = None  # a request in progress since
        self.host = None
        self.stage = 0
        self.at = 0
        self.seen = 0
        self.ok = 0
        self.failed = 0
        self.drops = 0
        self.worst = 0
        self.errors = []
        self.total_ms = 0
        self.frame = None
        self.write_at = 0

    def start(self, now):
        self.start_at = now
        self.at = now

    def initiating(self, now):
        return self.start_at is not None and self.conn is None and now >= self.at

    def connected(self, air, conn, now):
        from bg.link.host import HostEnd
        from link_fakes import Rand

        self.conn = conn
        self.host = HostEnd(Rand(b"owner" + str(now).encode()))
        self.seen = len(air.radio.notified)
        self.stage = 0
        self.at = now + _ENC_MS

    def dropped(self, now):
        self.conn = None
        self.host = None
        self.drops += 1
        self.at = now + _CI_MS  # the central connects again

    def _done(self, air, now, ok):
        if ok:
            self.ok += 1
            self.worst = max(self.worst, now - self.start_at)
            self.total_ms += now - self.start_at
        else:
            self.failed += 1
        self.start_at = None
        c = self.conn
        self.conn = None
        self.host = None
        if c is not None and c in air.radio.conns:
            air.radio._disconnect(c)

    def act(self, air, now):
        if self.start_at is None:
            return
        if now - self.start_at > self.budget:
            self._done(air, now, False)
            return
        if self.conn is None or now < self.at:
            return
        r = air.radio
        h = self.host
        if self.stage == 0:
            assert r._encrypt(conn=self.conn, key=b"owner")  # bonded: no passkey
            r._exchange_mtu(185, conn=self.conn)
            air.write(self.conn, h.request(P.REQ_INFO) + h.auth_start(self.host_id, self.key))
            self.stage = 1
            self.frame = None
            return
        if self.frame is not None and now >= self.write_at:
            air.write(self.conn, self.frame)
            self.frame = None
        got = []
        notified = r.notified
        while self.seen < len(notified):
            conn, _, data = notified[self.seen]
            self.seen += 1
            if conn == self.conn:
                got.extend(h.feed(data))
        for ty, payload, _ in got:
            if ty == P.RSP | P.REQ_AUTH_START and self.stage == 1:
                self.frame = h.auth_proof(payload)
                h.auth_expect()
                self.write_at = now + _CI_MS
                self.stage = 2
            elif ty == P.RSP | P.REQ_AUTH_PROOF and self.stage == 2:
                h.auth_finish(payload)
                self.frame = h.request(P.REQ_INFO)
                self.write_at = now + _CI_MS
                self.stage = 3
            elif ty == P.RSP | P.REQ_INFO and self.stage == 3:
                self._done(air, now, True)
                return
            elif ty == P.ERROR:
                self.errors.append(payload)
                self._done(air, now, False)
                return


class Air:
    """The radio's surroundings: the centrals, the advertising events, the board's rounds."""

    def __init__(self, radio, board, t, centrals, rng):
        self.radio = radio
        self.board = board
        self.t = t
        self.centrals = centrals
        self.rng = rng
        self.now = 0
        self.next_adv = None
        self.refused = 0  # connections the board ended before the central hung up

    def write(self, conn, data):
        r = self.radio
        if conn not in r.conns:
            return
        n = r.conns[conn].mtu - 3
        for i in range(0, len(data), n):
            try:
                r._write(self.t.h_rx, data[i : i + n], conn=conn)
            except OSError:
                return  # refused by the stack (not encrypted yet) or gone

    def _advertise(self):
        adv = self.radio.adv
        if adv is None:
            self.next_adv = None
            return
        if self.next_adv is None:
            self.next_adv = self.now + self.rng.below(adv[0] // 1000)
        if self.now < self.next_adv:
            return
        self.next_adv = self.now + adv[0] // 1000 + self.rng.below(11)
        want = [c for c in self.centrals if c.initiating(self.now)]
        if not want:
            return
        c = want[self.rng.below(len(want))]
        c.connected(self, self.radio._connect(), self.now)

    def tick(self):
        self.now += 1
        self.board.clock.advance(1)
        for c in self.centrals:  # the board dropped it: the central sees the disconnect
            if c.conn is not None and c.conn not in self.radio.conns:
                c.dropped(self.now)
        self._advertise()
        for c in self.centrals:
            c.act(self, self.now)
        # every central has read what was notified to it: the fake radio keeps no more
        del self.radio.notified[:]
        for c in self.centrals:
            c.seen = 0
        self.t.service()
        for s in self.t.slots():
            if s.rx or self.now % 20 == 0:
                asyncio.run(s.link.step())

    def run(self, ms):
        for _ in range(ms):
            self.tick()


def owner_trial(radio, board, t, host_id, key, strangers, requests=55, every=600, budget=10000, seed=1):
    """``requests`` owner requests, one every ``every`` ms of virtual time, while
    ``strangers`` act; returns the ``Owner`` (``ok``, ``failed``, ``worst`` ms, ``drops``)."""
    rng = Lcg(seed)
    for s in strangers:
        s.rng = rng
    owner = Owner(host_id, key, budget)
    air = Air(radio, board, t, strangers + [owner], rng)
    air.run(2000)  # the strangers settle in first
    for _ in range(requests):
        owner.start(air.now)
        end = air.now + every
        while owner.start_at is not None or air.now < end:
            air.tick()
    return owner, air
