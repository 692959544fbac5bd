"""The watchdog supervisor: the hardware watchdog is fed only while every essential task
makes progress.

Each essential task (scanner, buttons, LEDs, clock, the link when present) is registered
with a deadline (``watch(name, deadline_ms)`` -> an index) and stamps its heartbeat once
per loop with ``beat(i)``: one ``ticks_ms()`` stored into a preallocated list, nothing
allocated. ``guard(i, task)`` watches the asyncio task running it and marks the task dead
when it ends (an exception, or a return while the board runs).

``run()`` is the supervisor task: every ``period_ms`` it checks each task (``check``) --
alive when it beat within its deadline (``ticks_diff`` from the recorded stamp: the ESP32's
ticks wrap at 2**30 ms) -- and feeds the watchdog (``hal`` ``wdt.feed()``) only then.
A dead or hung task stops the feeding, so the hardware resets the board within the
watchdog's timeout; before that the supervisor writes why to the crash log
(``bg.crashlog``: the exception's traceback tail, or which task hung). A task that
blocks the event loop stops the supervisor too: no feed, reset (the next boot logs the
watchdog reset cause). The first time every task has beaten since boot it calls
``on_healthy()`` once (the firmware update confirms a new version there).

Example::

    sup = Supervisor(hw.watchdog(8000), hw.clock, crashlog="/flash", log=print)
    i = sup.watch("scan", 3000)
    sup.guard(i, asyncio.create_task(scan_loop(sup, i)))   # scan_loop calls sup.beat(i)
    asyncio.create_task(sup.run())
"""

import asyncio

from micropython import const

WDT_TIMEOUT_MS = const(8000)  # hardware watchdog: a stuck board resets within this
_PERIOD_MS = const(1000)  # how often the supervisor checks and feeds
_DEADLINE_MS = const(4000)  # default: a task must beat at least this often


class Supervisor:
    def __init__(
        self,
        wdt,
        clock,
        crashlog=None,
        log=None,
        on_healthy=None,
        period_ms=_PERIOD_MS,
        unix_time=None,
        causes=None,
    ):
        self.wdt = wdt  # hal: .feed(); None: nothing to feed (checks still run)
        self.clock = clock  # hal.Clock: ticks_ms(), ticks_diff(a, b)
        # where to log a failure: a storage root (``bg.crashlog`` is then imported only to
        # write: not resident while all is well), an object with add(cause, text, t), or None
        self.crashlog = crashlog
        self.log = log or (lambda m: None)
        self.on_healthy = on_healthy
        self.period_ms = period_ms
        self.unix_time = unix_time or (lambda: 0)
        self.names = []
        self.deadlines = []
        self.stamps = []  # ticks of each task's last beat
        self.beats = bytearray(0)  # 1 once a task has beaten since boot
        self.dead = []  # None, or the reason text of a task that ended
        self.tasks = []  # the asyncio task running each (``guard``), or None
        self._end = self._ended  # one bound method for every task's end (each read makes one)
        self.healthy = False  # every task has beaten at least once
        self.failed = None  # (cause, text) once a task is dead or hung: feeding has stopped
        self.running = True
        self.feeds = 0
        self.fault = None  # the simulator's test hook (hal.sim.Faults.hit), else None
        self.last_check = None  # ticks of the last check
        # the crash-log causes (task died, task hung), given or read here once
        if causes is None:
            from bg.crashlog import CAUSE_TASK_DIED, CAUSE_TASK_HUNG

            causes = (CAUSE_TASK_DIED, CAUSE_TASK_HUNG)
        self._causes = causes
        self.held = 0  # rounds after which the whole event loop had been held up

    def watch(self, name, deadline_ms=_DEADLINE_MS):
        """Register an essential task; returns its index for ``beat`` and ``guard``."""
        if deadline_ms <= 0 or deadline_ms >= 0x20000000:
            raise ValueError("bad task deadline")
        self.names.append(name)
        self.deadlines.append(deadline_ms)
        self.stamps.append(self.clock.ticks_ms())
        b = bytearray(len(self.names))
        b[: len(self.beats)] = self.beats  # (a task registered late keeps the others' beats)
        self.beats = b
        self.dead.append(None)
        self.tasks.append(None)
        return len(self.names) - 1

    def beat(self, i):
        """The task's progress: one stamp, no allocation (small ints are not on the heap)."""
        f = self.fault
        if f is not None and not f(self.names[i]):
            return
        self.stamps[i] = self.clock.ticks_ms()
        self.beats[i] = 1

    def guard(self, i, task):
        """Watch ``task`` (an asyncio task) as essential task ``i``: its end -- an exception,
        or a return while the board runs -- is that task's death; cancellation (the board
        stopping) is not. Returns ``task``.

        No coroutine is wrapped around the task's own (a generator of 128 B a task on the
        board; docs/memory.md): MicroPython's asyncio calls a done task's ``state`` when it is
        callable, with the task and how it ended -- as its ``gather`` waits for tasks --,
        CPython's task takes a done callback."""
        self.tasks[i] = task
        if hasattr(task, "add_done_callback"):
            task.add_done_callback(self._done)
        else:
            task.state = self._end
        return task

    def _done(self, task):
        """CPython's done callback."""
        if not task.cancelled():
            e = task.exception()
            self._ended(task, StopIteration() if e is None else e)

    def _ended(self, task, e):
        """``task`` ended with ``e``: StopIteration (it returned), an exception (it died) or
        CancelledError (cancelled). Raises nothing (it runs inside the event loop) and
        allocates nothing to mark the death (a task dying of MemoryError)."""
        for i in range(len(self.tasks)):
            if self.tasks[i] is task:
                break
        else:
            return
        if isinstance(e, StopIteration):
            if self.running:
                self.dead[i] = self.names[i]
                try:
                    self.dead[i] = self.names[i] + ": ended"
                except Exception:  # noqa: BLE001, S110 - no heap: the name says it
                    pass
            return
        if not isinstance(e, Exception):
            return  # cancelled: the board stopping its tasks is no death
        self.dead[i] = self.names[i]
        try:
            from bg.crashlog import exc_text

            self.dead[i] = exc_text(self.names[i], e)
        except Exception:  # noqa: BLE001, S110 - no heap for the text: the task's name says it
            pass

    def check(self, now):
        """True when every task is alive at ``now``; else records the first failure
        (``failed``) and returns False. Allocates nothing while all is well."""
        if self.failed is not None:
            return False
        clock = self.clock  # (a bound method taken here would be allocated every round)
        last = self.last_check
        self.last_check = now
        n = len(self.names)
        if last is not None and clock.ticks_diff(now, last) > 2 * self.period_ms:
            # The whole event loop was held up (a long flash write, a pairing's X25519): no task
            # could beat meanwhile, so none is judged on it -- each gets its deadline afresh.
            # A hold longer than the watchdog's timeout has reset the board already.
            self.held += 1
            for i in range(n):
                self.stamps[i] = now
        all_beat = True
        for i in range(n):
            d = self.dead[i]
            if d is not None:
                self._fail(self._causes[0], d, 0)
                return False
            late = clock.ticks_diff(now, self.stamps[i])
            if late > self.deadlines[i]:
                self._fail(self._causes[1], self.names[i], late)
                return False
            if not self.beats[i]:
                all_beat = False
        if all_beat and not self.healthy:
            self.healthy = True
            try:
                self.log("supervisor: all tasks alive")
                if self.on_healthy is not None:
                    self.on_healthy()
            except Exception as e:  # noqa: BLE001 - the watchdog's round must go on
                try:
                    self.log("supervisor: on_healthy: %r" % (e,))
                except Exception:  # noqa: BLE001, S110
                    pass
        return True

    def _fail(self, cause, text, late):
        """Feeding stops here, whatever follows: the reason's text, the console line and the
        crash-log entry are made if the heap allows (a task may have died of MemoryError)."""
        self.failed = cause  # allocates nothing
        try:
            if late:
                text = "%s: no progress for %d ms" % (text, late)
            self.failed = (cause, text)
            what = "task died" if cause == self._causes[0] else "hung"
            self.log("supervisor: %s (%s); the watchdog resets the board" % (text, what))
            cl = self.crashlog
            if isinstance(cl, str):
                from bg.crashlog import CrashLog

                cl = CrashLog(cl)
            if cl is not None:
                cl.add(cause, text, self.unix_time())
        except Exception as e:  # noqa: BLE001 - no room to log it: reset all the same
            try:
                self.log("crash log: %r" % (e,))
            except Exception:  # noqa: BLE001, S110
                pass

    def step(self):
        """One round: check, and feed the watchdog only when all is well."""
        if self.check(self.clock.ticks_ms()):
            if self.wdt is not None:
                self.wdt.feed()
            self.feeds += 1
            return True
        return False

    async def run(self):
        sleep_ms = getattr(asyncio, "sleep_ms", None)  # MicroPython; CPython in tests
        while self.running:
            self.step()
            if sleep_ms is not None:
                await sleep_ms(self.period_ms)
            else:
                await asyncio.sleep(self.period_ms / 1000)

    def stop(self):
        self.running = False
