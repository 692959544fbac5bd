"""The engine task: each stable reading of the sensors to the controller, and the best play
when a turn needs one, with the long searches cut into slices so they never hold the loop.

The recogniser's search (``Recognizer.feed``/``work``) and pubeval's (``Opponent.think``) run
in chunks of ``CHUNK_PLAYS`` plays until ``slice_us`` have passed, then yield: the scan, the
LED frames and the link run between slices (docs/performance.md). A hold of the loop is at
most the set-up, a slice and the chunk that crosses it: the chunk must stay small on the chip.
The recogniser's dear plays are a double's (each subset of its four steps counted against the
reading: up to ~100 us a play on the board model, ~12 ms on the ESP32 by the calibration), so
on a double it takes ``CHUNK_DOUBLE`` plays at a time; pubeval's plays cost ~4 us there. The
``stall`` area of ``make bench`` measures the holds; on a fast CPU a whole search fits in one
slice.

Allocation: the reading is copied into two preallocated bytearrays; a slice allocates nothing.
The task's wait between readings is an ``app.wake.Wake``, as the LED frame loop's.
"""

import asyncio
import time

from app import watch
from bg import hwdesc
from micropython import const

CHUNK_PLAYS = const(4)
CHUNK_DOUBLE = const(1)  # the recogniser's chunk on a double (its plays are the dear ones)
SLICE_US = const(4000)
_BEAT_MS = const(500)  # the task's heartbeat while no checker moves


def _ticks_us():
    f = getattr(time, "ticks_us", None)
    return f() if f else int(time.time() * 1000000)


def _us_since(t0):
    """Microseconds since ``_ticks_us()`` gave ``t0`` (the ticks wrap on MicroPython)."""
    f = getattr(time, "ticks_diff", None)
    now = _ticks_us()
    return f(now, t0) if f else now - t0


class EngineTask:
    """Between the scanner and the controller. ``app``: ``app.main.App`` (its ``ctl``,
    ``sensing``, ``power``, ``drain()``, ``wake``, ``beat``, ``running``, ``hw.clock``)."""

    def __init__(self, app):
        self.app = app
        self.ev = None  # the task's ``Wake`` while it runs; None: ``on_board`` delivers at once
        self.reading = bytearray(hwdesc.NROWS)
        self.caps = bytearray(hwdesc.NROWS)
        self.irregular = 0
        self.at = 0  # ticks of the reading's change
        self.fresh = False  # the scanner has a reading not yet taken
        self.busy = False  # the task holds a reading not yet delivered
        self.slice_us = SLICE_US  # the longest piece of search between two yields
        self.slices = 0  # yields made (tests, the bench)

    def on_board(self, now):
        """The scanner's callback: a stable change. Taken by the task when it runs, else
        delivered at once (tests that drive the scanner by hand)."""
        if self.app.power.input(now):
            return  # halted (critical battery): the board is read again on resume
        self.fresh = True
        self.at = now
        if self.ev is not None:
            self.ev.set()
        else:
            self.settle()

    def _take(self):
        """Copy the scanner's latest reading (the scanner goes on meanwhile)."""
        s = self.app.sensing
        self.reading[:] = s.counts
        self.caps[:] = s.cap
        self.irregular = s.irregular_mask()
        self.fresh = False

    def _deliver(self):
        app = self.app
        self.busy = False
        app.ctl.board(self.reading, self.at, self.caps, self.irregular)
        app.drain()
        app.wake.set()

    def settle(self):
        """Deliver now whatever the scanner saw, the search run to its end (a button press
        refers to the board as it is; without the task, every change)."""
        if self.busy:
            self.app.ctl.rec.work(0)  # the task's reading: finish its search
            self._deliver()
        if self.fresh:
            self._take()
            self._deliver()

    def kick(self):
        """Wake the task: an input may have begun a turn whose best play is wanted."""
        if self.ev is not None:
            self.ev.set()

    async def run(self):
        """Each stable reading to the controller, a reading that changes meanwhile taken once
        this one is delivered (a flapping sensor cannot starve the controller); then, when the
        turn in progress needs its best play (the computer's turn, the coach, learning mode:
        ``Opponent.wants``), pubeval's search and ``Controller.thought``."""
        app = self.app
        from app.wake import Wake

        ev = self.ev = Wake()
        ctl = app.ctl
        ctl.sliced = True
        try:
            while app.running:
                await ev.wait(_BEAT_MS)
                app.beat(watch.RECOGNISE)
                if self.fresh:
                    self._take()
                    self.busy = True
                    t0 = _ticks_us()  # (the set-up counts in the first slice)
                    if ctl.recognise(self.reading, self.caps, self.irregular):
                        await self._slices(False, t0)
                    if self.busy:  # (else a button press delivered it meanwhile: settle)
                        self._deliver()
                if self._thinking():
                    await self._slices(True, _ticks_us())
                    ctl.thought(app.hw.clock.ticks_ms())
                    app.drain()
                    app.wake.set()
                if self.fresh or self._thinking():
                    ev.set()
        finally:
            ctl.sliced = False
            self.ev = None
            self.busy = False

    async def _slices(self, think, t0):
        """Search in chunks of ``CHUNK_PLAYS`` plays (the recogniser's: ``CHUNK_DOUBLE`` on a
        double) until done, giving the loop back each time ``slice_us`` have passed since
        ``t0``: pubeval's search (``think``) or the reading's, which is over too when a button
        press delivered it meanwhile (``settle``). (No step function is passed: a bound method
        would be allocated at each call.)"""
        ctl = self.app.ctl
        rec = ctl.rec
        n = CHUNK_DOUBLE if rec.d1 == rec.d2 else CHUNK_PLAYS
        while not (ctl.opp.think(ctl, CHUNK_PLAYS) if think else not self.busy or rec.work(n)):
            if _us_since(t0) >= self.slice_us:
                self.slices += 1
                await asyncio.sleep_ms(0)
                self.app.beat(watch.RECOGNISE)
                t0 = _ticks_us()

    def _thinking(self):
        """True when the turn in progress needs its best play computed (``Opponent.wants``);
        never while a flat battery halts the board (the journal is closed)."""
        app = self.app
        opp = app.ctl.opp
        return opp is not None and not app.power.halted and opp.wants(app.ctl)
