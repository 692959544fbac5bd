"""The scan task: reads the reed chain at ``board.scan_hz`` (>= 100 Hz) and feeds ``bg.sensing``.

Written against the HAL interface only (``hw.sensors.read_into``, ``hw.clock``), so it runs the
same on the ESP32 and in the simulator. Each scan reads into the ``Sensing`` object's own
preallocated ``raw`` buffer and calls ``Sensing.feed`` -- no allocation per scan. When the
debounced state changes, ``on_change(now_ms)`` is called -- or, for a scanner made without one,
``event`` (an ``asyncio.Event``) is set; consumers read ``sensing.counts`` / ``sensing.seq``.
(The app gives ``on_change``: no Event is kept that nobody waits on; docs/memory.md.)

The period is kept from the clock, not from ``sleep`` alone, so a slow scan (a busy event
loop) shortens the next sleep instead of drifting; a scan never waits longer than one
period behind.

Example::

    import asyncio
    from app.scanner import Scanner
    sc = Scanner(hw, board)
    asyncio.create_task(sc.run())
    await sc.event.wait()        # a checker moved
    print(sc.sensing.counts)
"""

import asyncio
import time

from bg.sensing import Sensing


class Scanner:
    """Owns the scan loop. ``sensing`` may be shared with the caller (default: a new one)."""

    def __init__(self, hw, board, sensing=None, on_change=None, hz=None):
        self.hw = hw
        self.sensing = sensing if sensing is not None else Sensing(board)
        hz = hz or board.scan_hz
        if hz < 100:
            raise ValueError("scan rate must be >= 100 Hz, got %d" % hz)
        self.period_ms = 1000 // hz
        self.event = asyncio.Event() if on_change is None else None
        self.on_change = on_change
        self.running = False
        self.last_change_ms = 0  # ticks of the last accepted change (latency measurements)
        self.overruns = 0  # scans that started more than one period late
        self.beat = None  # called once per scan: the watchdog supervisor's heartbeat
        # nap(ms) -> True when it light-slept the ``ms`` (idle mode, ``app.power``); None: never
        self.nap = None

    def scan_once(self):
        """One read + feed; returns True when the debounced state changed."""
        s = self.sensing
        self.hw.sensors.read_into(s.raw)
        if s.feed(s.raw):
            now = self.hw.clock.ticks_ms()
            self.last_change_ms = now
            ev = self.event
            if ev is not None:
                ev.set()
            cb = self.on_change
            if cb is not None:
                cb(now)
            return True
        return False

    async def run(self, scans=0):
        """Scan until ``stop()`` (or ``scans`` scans, for tests)."""
        clock = self.hw.clock
        self.running = True
        due = clock.ticks_ms()
        n = 0
        while self.running:
            self.scan_once()
            b = self.beat
            if b is not None:
                b()
            n += 1
            if scans and n >= scans:
                break
            period = self.period_ms  # idle mode lengthens it (app.power)
            due = time.ticks_add(due, period)
            now = clock.ticks_ms()
            wait = clock.ticks_diff(due, now)
            if wait < 0:
                if -wait > period:
                    self.overruns += 1
                    due = now  # fell behind: resynchronise rather than burst
                wait = 0
            nap = self.nap
            if wait and nap is not None and nap(wait):
                wait = 0  # slept through the wait: only let the other tasks run
            await asyncio.sleep_ms(wait)
        self.running = False

    def stop(self):
        self.running = False
