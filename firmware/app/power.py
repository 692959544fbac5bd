"""Idle mode and the battery (docs/controller.md "Power"): what the board does to last longer
on a charge, and what it does before the cell gives out. Dependencies injected: a clock
(``ticks_ms`` / ``ticks_diff``), the board description (``bg.hwdesc.Board``: ``idle`` and
``battery`` of board.json), the HAL's ``Battery`` (None: no battery option) and ``Sleep``.

- **Idle mode.** ``activity(now)`` (a sensor change, a button) restarts the count; after
  ``idle.after_s`` without one, ``tick`` enters idle mode: the scan period grows to
  ``1000 // idle.scan_hz`` ms with light sleep in between (``nap_ms``; never while a host is
  connected: the radio's connection events need the CPU), the frame is scaled to
  ``idle.leds_level`` (``leds_scale``) and BLE advertises every ``idle.adv_ms``. The first
  activity leaves it: a checker lifted in idle mode is seen within one idle scan period
  plus the debounce.
- **Battery.** ``tick`` reads the cell every ``battery.poll_s`` into a ``bg.battery.Gauge``
  (percent with hysteresis; levels OK / LOW / CRITICAL). LOW warns on the LEDs; CRITICAL
  ``halts``: the app flushes the journal's pending record and takes no more input (nothing
  new is confirmed, so nothing confirmed can be lost when the cell cuts out), the LEDs show
  only the empty-battery sign. A charged cell (LOW's hysteresis) ``resumes``.

``tick`` returns what changed (``IDLE_CHANGED`` | ``LEVEL_CHANGED``) for the app to apply.
Nothing here allocates per call except the battery reading's small ints.
"""

from bg import battery as B
from micropython import const

IDLE_CHANGED = const(1)
LEVEL_CHANGED = const(2)

SHOW_MS = const(3000)  # the battery gauge on request: how long it stays on the LEDs


class Power:
    def __init__(self, clock, board, battery=None, sleep=None):
        self.clock = clock
        idle = board.idle
        self.idle_after_ms = idle["after_s"] * 1000
        self.idle_period_ms = max(1, 1000 // idle["scan_hz"])
        self.period_ms = max(1, 1000 // board.scan_hz)
        self.idle_leds = idle["leds_level"]
        self.idle_adv_ms = idle["adv_ms"]
        d = board.battery
        self.battery = battery if d is not None else None
        self.gauge = B.Gauge(board) if self.battery is not None else None
        self.poll_ms = d["poll_s"] * 1000 if d is not None and battery is not None else 0
        self.sleep = sleep
        self.idle = False
        self.halted = False  # CRITICAL: the journal is closed, input is not taken
        self.read_errors = 0
        now = clock.ticks_ms()
        self._last = now  # ticks of the last activity
        self._polled = None  # ticks of the last battery reading (None: read at the next tick)
        self.shown_at = None  # ticks of the gauge request, while the gauge shows
        self.app = None  # bound by ``bind``

    # -- wiring (app.main) ------------------------------------------------------------------------
    def bind(self, app):
        """Apply the mode to ``app.scanner`` (its period; light sleep through ``nap``); call
        ``app.halt()`` (``app.main.App``) when the level becomes CRITICAL (the app closes the
        journal) and ``app.resume(now)`` when a charged cell ends it; ``app.host`` (``HostSide``)
        says whether a host is connected (``connected()``: no light sleep then) and sets the
        BLE advertising interval (``advertise(ms)``; 0: the transport's normal one). The app
        itself, not four bound methods (a heap object each) nor its scanner too: 17 attributes,
        a 17-slot dict (docs/memory.md)."""
        self.app = app
        app.scanner.nap = self._nap

    def _nap(self, ms):
        a = self.app
        n = self.nap_ms(a is not None and a.host.connected())
        s = self.sleep
        if not n or s is None:
            return False
        s.nap(min(ms, n))
        return True

    def step(self, now):
        """``tick`` and apply what changed (the clock task calls it); the flags."""
        was = self.halted
        ch = self.tick(now)
        if ch:
            self._apply()
            a = self.app
            if a is None:
                pass  # not bound (a test of the power logic alone)
            elif self.halted and not was:
                a.halt()
            elif was and not self.halted:
                a.resume(now)
        return ch

    def input(self, now, gauge=False):
        """A button or a sensor change at ``now`` (``gauge``: the battery-gauge gesture).
        True when the app must not pass it on: the game is halted, or it was the gesture."""
        if self.activity(now):
            self._apply()  # idle mode is over: the full scan rate, the normal advertising
        if gauge:
            self.show(now)
        return gauge or self.halted

    def _apply(self):
        a = self.app
        if a is not None:
            a.scanner.period_ms = self.scan_period_ms()
            a.host.advertise(self.adv_ms(0))  # 0: the transport's normal interval

    # -- inputs -------------------------------------------------------------------------------
    def activity(self, now):
        """A sensor change or a button. Returns True when it ended idle mode."""
        self._last = now
        if self.idle:
            self.idle = False
            return True
        return False

    def tick(self, now):
        """Poll the battery when due and enter idle mode when due; what changed (flags)."""
        out = 0
        if self.battery is not None and (
            self._polled is None or self.clock.ticks_diff(now, self._polled) >= self.poll_ms
        ):
            self._polled = now
            if self.read(now):
                out |= LEVEL_CHANGED
        if not self.idle and self.clock.ticks_diff(now, self._last) >= self.idle_after_ms:
            self.idle = True
            out |= IDLE_CHANGED
        return out

    def read(self, now):
        """One battery reading into the gauge; True when the level changed (``halted``
        follows CRITICAL). A failing or absurd reading is counted and changes nothing."""
        g = self.gauge
        bat = self.battery
        if g is None or bat is None:
            return False
        try:
            changed = g.update(bat.read_mv())
        except (OSError, ValueError):
            self.read_errors += 1
            return False
        if changed:
            self.halted = g.level == B.CRITICAL
        return changed

    def show(self, now):
        """The battery gauge on request (the ROLL button held alone, docs/controller.md)."""
        self.shown_at = now
        return self.activity(now)

    # -- what the app applies ---------------------------------------------------------------------
    def level(self):
        g = self.gauge
        return g.level if g is not None else B.OK

    def percent(self):
        return self.gauge.pct if self.gauge is not None else B.NO_BATTERY

    def showing(self, now):
        """True while the requested gauge is on the LEDs (``SHOW_MS``, wrap-safe)."""
        t = self.shown_at
        if t is None:
            return False
        if self.clock.ticks_diff(now, t) >= SHOW_MS:
            self.shown_at = None
            return False
        return True

    def scan_period_ms(self):
        return self.idle_period_ms if (self.idle or self.halted) else self.period_ms

    def leds_scale(self):
        """255 = the frame as painted; lower scales it (idle: ``idle.leds_level``)."""
        return self.idle_leds if self.idle and self.shown_at is None else 255

    def adv_ms(self, normal_ms):
        return self.idle_adv_ms if (self.idle or self.halted) else normal_ms

    def nap_ms(self, connected):
        """How long the scan task may light-sleep now: 0 unless idle (or halted), no host is
        connected and the HAL can sleep."""
        if self.sleep is None or connected or not (self.idle or self.halted):
            return 0
        return self.idle_period_ms

    def info(self):
        """``(millivolts, percent, flags)`` for the link's INFO (``bg.link.info``)."""
        flags = B.F_IDLE if self.idle else 0
        g = self.gauge
        if g is None or g.pct == B.NO_BATTERY:
            return 0, B.NO_BATTERY, flags
        flags |= B.F_BATTERY
        ch = getattr(self.battery, "charger", None)
        st = ch() if ch is not None else None  # (charging, usb); None: not wired
        if st is not None:
            flags |= (B.F_CHARGING if st[0] else 0) | (B.F_USB if st[1] else 0)
        if g.level == B.LOW:
            flags |= B.F_LOW
        elif g.level == B.CRITICAL:
            flags |= B.F_CRITICAL
        return g.mv, g.pct, flags
