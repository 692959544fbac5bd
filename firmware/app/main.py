"""The device application: wires a HAL backend to the tasks that run the board. It decides
nothing itself; each role is its own module:

- **scan** -- ``app.scanner.Scanner``: reads the reed chain ``scan_hz`` times a second,
  debounces it (``bg.sensing``) and signals each stable change;
- **engine** -- ``app.engine_task.EngineTask``: each stable reading to the controller, the
  recogniser's and pubeval's searches in slices with a yield between them (docs/performance.md);
- **buttons** -- ``app.buttons.Gestures`` polls the buttons; ``app.buttons.Presses`` says what
  each gesture does (a press to the controller, pairing, the revoke-all combo);
- **leds** -- repaints the frame (``app.view``) when something changed and while an animation
  runs, then ``leds.show()``;
- **clock** -- the match clock's tick, and ``app.power``'s (idle mode, the battery: a critical
  level closes the journal and halts the game until the cell is charged);
- **link** -- ``app.host_side.HostSide``: ``app.wiring.Wiring`` on every transport this board has,
  and what a host may ask of the match;
- **supervisor** -- ``app.supervisor`` (wired by ``app.watch``): feeds the hardware watchdog
  only while the tasks above beat; a dead or hung task resets the board, which comes back into
  the same match from the journal.

The controller (``app.controller``) is pure; ``app.journal_policy.Recorder`` stores its
confirmed actions through ``bg.journal`` and replays the journal at boot.

Configuration: ``run(backend, config)``. The HAL is the only reader of its platform's settings:
a backend with a ``from_env()`` (the simulator's, ``hal.sim``, reading what its runner set:
docs/simulator.md) gives them first; ``config`` overrides them. Link transports (``config``
keys, docs/controller.md): ``ble`` (default: when the ``bluetooth`` module exists) and
``serial_link`` (default "auto": the protocol on the USB REPL port when there is no BLE); the
simulator uses its socket (``link_port``).
"""

import asyncio
import gc

# isort: off
# The engine first, then the rules and the controller built on it: each import then finds its
# dependencies loaded, so booting nests few module bodies at a time (nested imports hold
# interpreter frames on the C stack: 16 kB on the ESP32; docs/memory.md).
# (``import bg.engine`` binds one name, ``bg``, where ``from bg import engine`` bound two: one
# entry less in this module's dict, which then fits 29 slots instead of 37; docs/memory.md)
import bg.engine  # noqa: F401 - imported for the order only
import bg.recognize  # noqa: F401
from app import rules
from app.controller import Controller

# isort: on
from app import ctl_defs as D
from app import watch
from app.buttons import POLL_MS
from micropython import const

_FRAME_MS = const(40)
_CLOCK_MS = const(100)
# After boot the collector runs every this many bytes allocated (``gc.threshold``), not only
# when the heap is full: see ``App.boot``
_GC_EVERY = const(4096)


def _nothing(i):
    pass


class _Settled:
    """``app.update.Trial`` once nothing is on trial (the built-in firmware or a confirmed
    slot): the version for INFO, and the real ``Trial`` built at the first update request
    (``updater``), whose switch restarts the board into update mode."""

    def __init__(self, named, args):
        self.named = named
        self.args = args  # Trial's arguments
        self.built = None

    def version(self):
        return self.named

    def updater(self):
        if self.built is None:
            from app.update import Trial

            self.built = Trial(*self.args)
        return self.built.updater()

    def healthy(self):
        pass  # nothing to confirm

    async def run(self):
        pass  # no deadline


class App:
    """One board: the HAL's parts and the modules that run it (``scanner``, ``engine``,
    ``presses``, ``host``, ``ctl``, ``view``, ``power``, ``recorder``)."""

    def __init__(self, hw, board, settings, log=None, fw_key=None):
        # the parts' classes are imported where they are used once, not at the module's top,
        # where each kept an entry in this module's dict (13 names more: 29 slots instead of
        # 17; docs/memory.md)
        from app.buttons import Gestures, Presses
        from app.engine_task import EngineTask
        from app.host_side import HostSide
        from app.journal_policy import Recorder
        from app.power import Power
        from app.scanner import Scanner
        from app.update import Trial
        from app.view import View
        from app.wake import Wake
        from bg.leds import Painter

        self.hw = hw
        self.board = board
        self.log = log or _nothing
        self.engine = EngineTask(self)
        self.scanner = Scanner(hw, board, on_change=self.engine.on_board)
        self.sensing = self.scanner.sensing
        self.raw = self.sensing.raw
        self.painter = Painter(board, hw.leds.buf)
        # idle mode and the battery (app.power); fakes in tests may have neither part
        self.power = Power(hw.clock, board, getattr(hw, "battery", None), getattr(hw, "sleep", None))
        self.view = View(self.painter, self.power)
        self.ctl = Controller(
            settings,
            rules,
            self._new_dice,
            self._new_match_id,
            hw.clock.unix_time,
            cap=board.slots_per_point,
            recognizer=rules.recognizer(board.slots_per_point, board.bar_slots, board.tray_slots),
        )
        self.recorder = Recorder(self.ctl, self._log, self._storage_error)
        self.presses = Presses(self)
        roles = [(b[1], b[2]) for b in board.buttons]  # (role, side) per button index
        self.buttons = Gestures(hw.buttons, hw.clock, roles, self.presses)
        self.host = HostSide(self)
        self.wake = Wake()  # the frame loop's wait; ``set()`` repaints at once
        self.running = True
        self.status = None  # the simulator's status line (app.sim_status.Status), else None
        # firmware updates (app.update); fw_key: the HAL's update key, None: the release key
        reset = getattr(hw, "reset", None)  # update mode's restart (a test's fake may have none)
        # the trial's deadline restarts through the HAL too (the board model's machine has no
        # reset(): the unix port's process ends, the simulator starts it again)
        a = (hw.clock, self._log, reset or _restart, None, None, fw_key, reset, self.recorder.close)
        self.trial = Trial(*a)
        if self.trial.settled is not None:
            # nothing on trial: app.update's code (~1.1 kB on the 32-bit board model) is let go
            # and loaded again at the first update request (docs/memory.md)
            self.trial = _Settled(self.trial.named, a)
            del Trial
            import sys

            from bg import forget

            if sys.implementation.name == "micropython":  # CPython's tests may patch it
                forget("app.update")
        self.beat = _nothing  # the supervisor's heartbeat, once it runs
        self.on_healthy = None  # called once at the first "all tasks alive" (app.supervisor)
        self.power.bind(self)

    def _log(self, m):
        self.log(m)  # looked up at each call: the console may be swapped (tests)

    def _storage_error(self, code):
        self.view.storage_error = code

    def _new_dice(self, match_id):
        from bg.dice.fairness import Fairness

        return Fairness.new(self.hw.random, match_id)

    def _new_match_id(self):
        return bytes(self.hw.random.urandom(8))

    def boot(self):
        """Self-test the sensor chain, open the journal and replay the match in progress."""
        from app.journal_policy import release
        from bg.sensing import SelfTest

        hw = self.hw
        st = SelfTest()
        for _ in range(3):
            hw.sensors.read_into(self.raw)
            st.run(self.sensing, self.raw)
        if not st.chain_ok:
            self.log("self-test: sensor chain broken")
        self.view.fault_rows = self.sensing.fault_rows()
        if hw.storage.ok():
            n = self.recorder.open(hw.storage.root, D.MATCH_OVER)
            if n:
                self.log("resumed match: %d actions, phase %s" % (n, D.PHASE_NAMES[self.ctl.phase]))
        else:
            self.view.storage_error = 1
            self.log("storage: %s" % (getattr(hw.storage, "error", "") or "not mounted"))
            release()
            gc.collect()
        if self.ctl.settings.computer >= 0 or self.ctl.config.computer >= 0 or self.ctl.learn:
            # the computer's chooser (two 488-byte weight tables) before the heap fragments:
            # made mid-game, a 64k heap may have no such block left (docs/memory.md)
            try:
                self.ctl.prepare_opponent()
            except MemoryError:
                self.log("computer: no heap for its weights yet")
        # The collector otherwise runs only when an allocation finds no block. Until then the
        # garbage (the boot's replay, a pairing's key work, a request's frames) holds the low
        # heap, so what is made for good meanwhile (the link's modules at the first
        # connection, the host's request modules, the match's objects) goes up the heap past
        # it, and once collected the garbage leaves holes between them: on the board model at
        # 64k the hub's flow (pairing, `gammon play`, watch, sync) died at the match's first
        # press with 4.9 kB free and no 296-byte run. Collected now and every _GC_EVERY bytes
        # from now on, what stays fills the lowest holes first (MicroPython's collector;
        # CPython's runs the tests; docs/memory.md).
        gc.collect()
        if hasattr(gc, "threshold"):
            gc.threshold(_GC_EVERY)

    def drain(self):
        """Store the controller's confirmed actions (``app.journal_policy``)."""
        self.recorder.drain()

    # -- tasks ------------------------------------------------------------------------------------

    async def button_task(self):
        clock = self.hw.clock
        while self.running:
            self.buttons.poll(clock.ticks_ms())
            self.beat(watch.BUTTONS)
            await asyncio.sleep_ms(POLL_MS)

    async def led_task(self):
        hw = self.hw
        last = bytearray(len(hw.leds.buf))
        while self.running:
            now = hw.clock.ticks_ms()
            self.view.paint(self.ctl, now)
            if hw.leds.buf != last:
                last[:] = hw.leds.buf
                hw.leds.show()
            self.wake.clear()
            self.beat(watch.LEDS)
            await self.wake.wait(_FRAME_MS)

    async def clock_task(self):
        while self.running:
            now = self.hw.clock.ticks_ms()
            if self.power.step(now):
                self.wake.set()
            if not self.power.halted and self.ctl.tick(now):
                self.drain()
                self.wake.set()
            if self.status is not None:
                self.status.poll(self.ctl, now)  # the simulator's status panel (app.sim_status)
            self.beat(watch.CLOCK)
            await asyncio.sleep_ms(_CLOCK_MS)

    async def run(self):
        booted = watch.boot_log(self.hw, self.log)  # the crash log: first, before anything stays
        self.boot()
        # the supervisor's first "all tasks alive" confirms a new firmware on trial (app.update)
        healthy = self.on_healthy or self.trial.healthy
        sup = watch.start(self, booted, healthy)  # the watchdog armed
        self.beat = sup.beat
        tasks = [
            sup.guard(watch.SCAN, asyncio.create_task(self.scanner.run())),
            sup.guard(watch.RECOGNISE, asyncio.create_task(self.engine.run())),
            sup.guard(watch.BUTTONS, asyncio.create_task(self.button_task())),
            sup.guard(watch.LEDS, asyncio.create_task(self.led_task())),
            sup.guard(watch.CLOCK, asyncio.create_task(self.clock_task())),
            asyncio.create_task(sup.run()),
        ]
        bus = getattr(self.hw, "bus", None)
        if bus is not None:
            bus.on_quit = self.stop
            tasks.append(asyncio.create_task(bus.run()))
        for co in self.host.coroutines():
            tasks.append(asyncio.create_task(co))  # pyright: ignore[reportArgumentType]
        # a new firmware on trial: confirmed by the supervisor (above), else restarted after
        # its deadline
        tasks.append(asyncio.create_task(self.trial.run()))
        watch.link(sup, self.host.hub)  # BLE / serial: the link is an essential task too
        while self.running:
            await asyncio.sleep_ms(_CLOCK_MS)
        sup.stop()
        self.scanner.stop()
        for t in tasks:
            t.cancel()
        await asyncio.sleep_ms(0)

    # -- power (app.power) ---------------------------------------------------------------------------

    def halt(self):
        """Critical battery: the journal closed before the brown-out, the game halted."""
        self.recorder.close()
        self.log("battery critical: journal closed, game halted until charged")

    def resume(self, now):
        """The cell is charged again after a halt: store what waited, read the board again."""
        self.recorder.reopen()
        self.log("battery charged: game resumed")
        self.engine.on_board(now)

    def stop(self):
        self.running = False


def _restart():
    try:
        import machine  # pyright: ignore[reportMissingImports]

        machine.reset()
    except ImportError:  # the unix port: the process ends, its runner starts it again
        raise SystemExit(3) from None


def settings_from(obj):
    """``Settings`` from a dict (JSON from the host or the simulator)."""
    obj = obj or {}
    names = obj.get("names") or ("white", "black")
    comp = obj.get("computer")  # the side the board's computer plays (app.opponent), or None
    return D.Settings(
        length=int(obj.get("length", 3)),
        crawford=bool(obj.get("crawford", True)),
        jacoby=bool(obj.get("jacoby", False)),
        beaver=bool(obj.get("beaver", False)),
        auto_doubles=int(obj.get("auto_doubles", 0)),
        casual=bool(obj.get("casual", False)),
        clock_s=int(obj.get("clock_s", 0)),
        delay_s=int(obj.get("delay_s", 0)),
        house=bool(obj.get("house", False)),
        names=(names[0], names[1]),
        computer=-1 if comp is None else int(comp),
        strength=str(obj.get("strength", "pubeval")),
        learn=bool(obj.get("learn", False)),
    )


def run(backend=None, config=None, settings=None):
    """Build the hardware and run the board until the backend stops it. A backend with its
    own settings (the simulator's ``from_env``) gives them first; ``config`` overrides them."""
    import hal
    from bg import hwdesc

    mod = hal.load(backend or hal.backend())
    board = hwdesc.load()
    gc.collect()  # the description's parse, before the HAL and the app are made (App.boot)
    # the HAL gets this board: hal.esp32 would load and keep a second one (2,160 B on the board)
    cfg = {"sensor_bytes": board.nbytes, "leds": board.nleds, "buttons": len(board.buttons), "board": board}
    from_env = getattr(mod, "from_env", None)
    if from_env is not None:
        cfg.update(from_env())
    if config:
        cfg.update(config)
    if cfg.get("scan_hz"):
        board.scan_hz = int(cfg["scan_hz"])
    hw = mod.make(cfg)
    bus = getattr(hw, "bus", None)
    log = bus.log if bus is not None else print
    app = App(hw, board, settings or settings_from(cfg.get("settings")), log, cfg.get("fw_key"))
    board.release_wiring()  # the HAL and the app are built: the wiring tables are not kept
    gc.collect()  # (and their holes are the lowest, for what boot makes next)
    app.host.link_port = int(cfg.get("link_port", 0))
    if bus is not None and cfg.get("status", True):
        from app.sim_status import Status  # the simulator's status line

        app.status = Status(bus.send_line)  # pyright: ignore[reportAttributeAccessIssue]
    app.host.links(cfg.get("ble"), cfg.get("serial_link"))
    asyncio.run(app.run())
    return app
