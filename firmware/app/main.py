"""The device application: wires a HAL backend to the tasks that run the board.

Tasks (all asyncio, none blocks):

- **scan** -- ``app.scanner.Scanner``: reads the reed chain ``scan_hz`` times a second into a
  preallocated buffer, debounces it (``bg.sensing``) and signals each stable change
  (``on_board``);
- **recognise** -- takes the latest stable reading to the controller; during a turn the
  recogniser's search runs first, in slices of at most ``SLICE_US`` with a yield between
  them (``Recognizer.feed``/``work``), so the worst position never holds the loop (the
  scan and the LED frames run between slices: docs/performance.md);
- **buttons** -- ``app.buttons.Gestures``: presses, long presses and the combos (both ROLL:
  pairing; both CUBE: end a money session; all four: unpair every host), handled here
  (``press``, ``both``, ``all_held``);
- **leds** -- repaints the frame (``app.view``) when something changed and while an
  animation runs, then ``leds.show()``;
- **clock** -- the match clock's tick, and ``app.power``'s (idle mode, the battery: a
  critical level closes the journal and halts the game until the cell is charged);
- **link** -- ``app.link.Wiring``: the host link on every transport this board has;
- **supervisor** -- ``app.supervisor`` (wired by ``app.watch``): feeds the hardware watchdog
  only while scan, recognise, buttons, leds and clock beat; a dead or hung task resets the board, which
  comes back into the same match from the journal; the crash log says why.

The controller (``app.controller``) is pure; ``app.journal_policy.Recorder`` stores its
confirmed actions through ``bg.journal`` and replays the journal at boot so a power cut loses
nothing confirmed. This module only wires these parts together and decides nothing itself.

Configuration: ``run(backend, config)``; the backend is ``hal.backend()``'s, and the simulator's
HAL reads its own settings from the environment its runner sets (``hal.sim.from_env``,
docs/simulator.md). Link transports (``config`` keys, docs/controller.md):
``ble`` (default: when the ``bluetooth`` module exists) and ``serial_link`` (default "auto":
the protocol on the USB REPL port when there is no BLE); the simulator uses its socket.
"""

import asyncio
import gc
import time

# isort: off
# The engine first, then the rules and the controller built on it: each import then finds its
# dependencies loaded, so booting nests few module bodies at a time (nested imports hold
# interpreter frames on the C stack: 16 kB on the ESP32; docs/memory.md).
from bg import engine  # noqa: F401 - imported for the order only
from bg import recognize  # noqa: F401
from app import rules
from app.controller import Controller

# isort: on
from app import ctl_defs as C  # the controller's vocabulary
from app import watch
from app.buttons import POLL_MS, Gestures
from app.journal_policy import Recorder, release
from app.power import Power
from app.scanner import Scanner
from app.update import Trial
from app.view import View
from bg import hwdesc
from bg import record as R
from bg.leds import Painter
from bg.sensing import SelfTest
from micropython import const

_AUTO = None  # a link transport's "decide from the hardware" setting
_FRAME_MS = const(40)
# The recognition task's slices: the recogniser's search goes on in chunks of CHUNK_PLAYS
# plays until SLICE_US have passed, then yields. A play costs 0.3-10 us on the board model
# (a double whose every subset must be counted is the dear case), ~50x that on the ESP32
# (docs/performance.md): a chunk stays within ~2 ms there, a slice within ~4 + 2 ms, well
# inside the loop's 20 ms budget (tools/bench_stall.py measures it); on a fast CPU a whole
# search fits in one slice.
CHUNK_PLAYS = const(4)
SLICE_US = const(4000)
_RECOG_BEAT_MS = const(500)  # the recognition task's heartbeat while no checker moves


def _no_beat(i):
    pass


def _ticks_us():
    f = getattr(time, "ticks_us", None)
    return f() if f else int(time.time() * 1000000)


def _us_since(t0):
    """Microseconds since ``_ticks_us()`` gave ``t0`` (the ticks wrap on MicroPython)."""
    f = getattr(time, "ticks_diff", None)
    now = _ticks_us()
    return f(now, t0) if f else now - t0


class App:
    """One board: HAL parts, scanner, controller, view, journal policy, link wiring.

    The gesture handler of ``app.buttons.Gestures`` (``press``, ``both``, ``all_held``)."""

    def __init__(self, hw, board, settings, log=None):
        self.hw = hw
        self.board = board
        self.log = log or (lambda m: None)
        self.scanner = Scanner(hw, board, on_change=self.on_board)
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
        roles = [(b[1], b[2]) for b in board.buttons]  # (role, side) per button index
        self.buttons = Gestures(hw.buttons, hw.clock, roles, self)
        self.wake = asyncio.Event()
        self.running = True
        self.status = None  # the simulator's status line (app.sim_status.Status), else None
        self.link_port = 0  # simulator: the link on a local TCP port
        self.ble_link = _AUTO  # True/False; _AUTO (None): when the bluetooth module exists
        self.serial_link = _AUTO  # True/False; _AUTO: on the USB serial port without BLE
        self.wiring = None  # app.link.Wiring, made when a transport is wanted
        self.trial = Trial(hw.clock, self._log, _restart)  # firmware updates (app.update)
        self.animate = True  # the roll animation (needs the asyncio loop running)
        self._anim = None
        self.sup = None  # app.supervisor.Supervisor, made by run()
        self.beat = _no_beat  # the supervisor's heartbeat, once it runs
        self.on_healthy = None  # called once at the first "all tasks alive" (app.supervisor)
        self.power.bind(self.scanner, self._halt, self._resume, self._connected, self._advertise)
        # the recognition task (recognise_task): the reading it works on, and its state
        self._recog = None  # its Event while it runs; None: on_board delivers at once
        self._reading = bytearray(hwdesc.NROWS)
        self._rcaps = bytearray(hwdesc.NROWS)
        self._rirr = 0
        self._rat = 0  # ticks of the reading's change
        self._fresh = False  # the scanner has a reading not yet taken
        self._busy = False  # the task holds a reading not yet delivered
        self.slice_us = SLICE_US  # the longest piece of search between two yields
        self.slices = 0  # yields made by the recognition task (tests, the bench)

    def _log(self, m):
        self.log(m)

    def _storage_error(self, code):
        self.view.storage_error = code

    @property
    def hub(self):
        """The link's ``Hub`` (None until a transport or a combo needs it)."""
        w = self.wiring
        return w.hub if w is not None else None

    # -- dice and ids -----------------------------------------------------------------------

    def _new_dice(self, match_id):
        from bg.dice.fairness import Fairness

        return Fairness.new(self.hw.random, match_id)

    def _new_match_id(self):
        return bytes(self.hw.random.urandom(8))

    # -- boot ---------------------------------------------------------------------------------

    def boot(self):
        """Self-test the sensor chain, open the journal and replay the match in progress."""
        hw = self.hw
        st = SelfTest()
        for _ in range(3):
            hw.sensors.read_into(self.raw)
            st.run(self.sensing, self.raw)
        if not st.chain_ok:
            self.log("self-test: sensor chain broken")
        self.view.fault_rows = self.sensing.fault_rows()
        if hw.storage.ok():
            n = self.recorder.open(hw.storage.root, C.MATCH_OVER)
            if n:
                self.log("resumed match: %d actions, phase %s" % (n, C.PHASE_NAMES[self.ctl.phase]))
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

    def drain(self):
        """Store the controller's confirmed actions (``app.journal_policy``)."""
        self.recorder.drain()

    # -- events -----------------------------------------------------------------------------------

    def on_button(self, i, kind, now):
        role, side = self.buttons.roles[i]
        self._settle()  # a press refers to the board as it is now
        # ROLL held alone: the battery gauge (docs/controller.md) -- except the mover's while it
        # moves, which asks the coach (app.opponent); halted: nothing reaches the game
        ctl = self.ctl
        coach = ctl.phase == C.MOVING and side == ctl.side
        if self.power.input(now, kind == C.LONG and role == "roll" and not coach):
            self.wake.set()
            return
        hub = self.hub
        if kind == C.PRESS and hub is not None and hub.board.awaiting_button():
            # a pairing value is shown: ROLL confirms it, CUBE refuses it; the game sees neither
            if role == "roll" and hub.confirm_pairing():
                self.log("pairing confirmed")
            elif role == "cube" and hub.reject_pairing():
                self.log("pairing refused")
            self.wake.set()
            return
        if ctl.button(side, C.ROLL if role == "roll" else C.CUBE, kind, now):
            thrown = False
            for a in ctl.outbox:
                if a[0] == R.ROLL or a[0] == R.OPENING:
                    thrown = True
            self.drain()
            if ctl.selecting and self.recorder.verbose:
                r = ctl.rec
                self.log("CHOICE %d %d %s" % (r.selected, r.ncand, r.steps(r.selected)))
            if self.animate and thrown and ctl.phase == C.MOVING and ctl.dice[0]:
                self._animate()
        self.ctl.mix(_ticks_us())
        self._kick()
        self.wake.set()

    # the gesture handler (app.buttons.Gestures)
    press = on_button

    def both(self, role, now):
        """Both buttons of ``role`` held long: ROLL opens the link's pairing window, CUBE ends
        a money session (False: not now, the hold is an ordinary long press)."""
        if role == "roll":
            hub = self._get_hub() if self.wiring is not None else None  # no transport: no pairing
            if hub is not None:
                hub.open_pairing()
                self.log("pairing window open")
            return True
        if self.ctl.intent(0, C.I_END, None, now):
            self.drain()
            self.wake.set()
            return True
        return False

    def all_held(self, now):
        """All four buttons held: the revoke-all gesture. The link forgets every paired host
        (on flash), closes the pairing window and ends every session; the LEDs say so."""
        hub = self._get_hub()
        if hub is not None:
            hub.revoke_all()
        self.view.show_revoked(now)
        self.log("link: every host unpaired" if hub is not None else "link: none (nothing to unpair)")
        self.wake.set()

    revoke_all = all_held

    def poll_buttons(self, now):
        """One poll of the buttons (``app.buttons``; the button task calls it)."""
        self.buttons.poll(now)

    def on_board(self, now):
        """The scanner's callback: a stable change. Taken by the recognition task when it
        runs, else delivered at once (tests that drive the scanner by hand)."""
        if self.power.input(now):
            return  # halted (critical battery): the board is read again on resume
        self._fresh = True
        self._rat = now
        if self._recog is not None:
            self._recog.set()
        else:
            self._settle()

    def _take(self):
        """Copy the scanner's latest reading for recognition (the scanner goes on meanwhile)."""
        s = self.sensing
        self._reading[:] = s.counts
        self._rcaps[:] = s.cap
        self._rirr = s.irregular_mask()
        self._fresh = False

    def _deliver(self):
        self._busy = False
        self.ctl.board(self._reading, self._rat, self._rcaps, self._rirr)
        self.drain()
        self.wake.set()

    def _settle(self):
        """Deliver now whatever the scanner saw, the search run to its end (a button press
        refers to the board as it is; without the task, every change)."""
        if self._busy:
            self.ctl.rec.work(0)  # the task's reading: finish its search
            self._deliver()
        if self._fresh:
            self._take()
            self._deliver()

    async def recognise_task(self):
        """The engine task. Each stable reading to the controller, the recogniser's search in
        slices of at most ``slice_us`` (chunks of ``CHUNK_PLAYS`` plays) with a yield between
        them; a reading that changes meanwhile is taken once this one is delivered (a
        flapping sensor cannot starve the controller). Then, when the turn in progress needs
        its best play (the computer's turn, the coach, learning mode: ``Opponent.wants``),
        pubeval's search in the same slices, and ``Controller.thought``."""
        ev = self._recog = asyncio.Event()
        ctl = self.ctl
        ctl.sliced = True
        try:
            while self.running:
                try:
                    await asyncio.wait_for_ms(ev.wait(), _RECOG_BEAT_MS)
                except asyncio.TimeoutError:
                    pass
                ev.clear()
                self.beat(watch.RECOGNISE)
                if self._fresh:
                    self._take()
                    self._busy = True
                    t0 = _ticks_us()  # (the set-up counts in the first slice)
                    if ctl.recognise(self._reading, self._rcaps, self._rirr):
                        await self._slices(self._recognise_step, t0)
                    if self._busy:  # (else a button press delivered it meanwhile: _settle)
                        self._deliver()
                if self._thinking():
                    await self._slices(self._think_step, _ticks_us())
                    ctl.thought(self.hw.clock.ticks_ms())
                    self.drain()
                    self.wake.set()
                if self._fresh or self._thinking():
                    ev.set()
        finally:
            ctl.sliced = False
            self._recog = None
            self._busy = False

    async def _slices(self, step, t0):
        """Run ``step(CHUNK_PLAYS)`` until it returns True, giving the loop back each time
        ``slice_us`` have passed since ``t0`` (the scan, the LEDs, the link run there)."""
        while not step(CHUNK_PLAYS):
            if _us_since(t0) >= self.slice_us:
                self.slices += 1
                await asyncio.sleep_ms(0)
                self.beat(watch.RECOGNISE)
                t0 = _ticks_us()

    def _recognise_step(self, n):
        # the reading's search; over when a button press delivered it meanwhile (_settle)
        return not self._busy or self.ctl.rec.work(n)

    def _think_step(self, n):
        return self.ctl.opp.think(self.ctl, n)

    def _thinking(self):
        """True when the turn in progress needs its best play computed (``Opponent.wants``);
        never while a flat battery halts the board (the journal is closed)."""
        opp = self.ctl.opp
        return opp is not None and not self.power.halted and opp.wants(self.ctl)

    def _kick(self):
        """Wake the engine task: an input may have begun a turn whose best play is wanted."""
        if self._recog is not None:
            self._recog.set()

    def _animate(self):
        """The roll animation (cosmetic: without heap for it the dice just appear)."""
        a = self._anim
        if a is None:
            try:
                from app.dice_anim import DiceAnimator, FuncDisplay

                a = self._anim = DiceAnimator(FuncDisplay(self._anim_frame))
            except (ImportError, MemoryError):
                self.animate = False
                return
        try:
            a.start(self.ctl.dice[0], self.ctl.dice[1])
        except MemoryError:
            self.view.anim = None

    def _animate_prepare(self):
        """Load the animation at boot, before the heap fragments (the link needs it too)."""
        try:
            from app.dice_anim import DiceAnimator, FuncDisplay

            self._anim = DiceAnimator(FuncDisplay(self._anim_frame))
        except (ImportError, MemoryError) as e:
            self.animate = False
            self.log("roll animation off: %r" % (e,))

    def _anim_frame(self, a, b, dim):
        self.view.show_dice(a, b, dim)
        self.wake.set()

    # -- tasks ------------------------------------------------------------------------------------

    async def button_task(self):
        clock = self.hw.clock
        while self.running:
            self.buttons.poll(clock.ticks_ms())
            self.beat(watch.BUTTONS)
            await asyncio.sleep_ms(POLL_MS)

    def status_to(self, send):
        """Send the simulator's status line (``app.sim_status``) through ``send(obj)``."""
        from app.sim_status import Status

        self.status = Status(send)

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
            try:
                await asyncio.wait_for_ms(self.wake.wait(), _FRAME_MS)
            except asyncio.TimeoutError:
                pass

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
            await asyncio.sleep_ms(100)

    async def run(self):
        booted = watch.boot_log(self.hw, self.log)  # the crash log: first, before anything stays
        self.boot()
        if self.animate:
            self._animate_prepare()
        # the supervisor's first "all tasks alive" confirms a new firmware on trial (app.update)
        healthy = self.on_healthy or self.trial.healthy
        sup = self.sup = watch.start(self, booted, healthy)  # the watchdog armed
        self.beat = sup.beat
        tasks = [
            asyncio.create_task(sup.guard(watch.SCAN, self.scanner.run())),
            asyncio.create_task(sup.guard(watch.RECOGNISE, self.recognise_task())),
            asyncio.create_task(sup.guard(watch.BUTTONS, self.button_task())),
            asyncio.create_task(sup.guard(watch.LEDS, self.led_task())),
            asyncio.create_task(sup.guard(watch.CLOCK, self.clock_task())),
            asyncio.create_task(sup.run()),
        ]
        bus = getattr(self.hw, "bus", None)
        if bus is not None:
            bus.on_quit = self.stop
            tasks.append(asyncio.create_task(bus.run()))
        for co in self._link():
            tasks.append(asyncio.create_task(co))  # pyright: ignore[reportArgumentType]
        # a new firmware on trial: confirmed by the supervisor (above), else restarted after
        # its deadline
        tasks.append(asyncio.create_task(self.trial.run()))
        watch.link(sup, self.hub)  # BLE / serial: the link is an essential task too
        while self.running:
            await asyncio.sleep_ms(100)
        sup.stop()
        self.scanner.stop()
        for t in tasks:
            t.cancel()
        await asyncio.sleep_ms(0)

    # -- the link (app.link.Wiring) -----------------------------------------------------------------

    def _link(self):
        """The host link's coroutines (docs/protocol.md), maybe none: ``app.link.Wiring`` over
        the journal on every transport wanted (``links``, ``link_port``)."""
        wanted = self.link_port or self.ble_link is not False or self.serial_link
        if self.recorder.journal is None or not wanted:
            return []  # no transport wanted (the simulator without --link-port): no heap spent
        return self._wiring().coroutines(self.link_port, self.ble_link, self.serial_link)

    def _wiring(self):
        if self.wiring is None:
            from app.link import Wiring

            self.wiring = Wiring(
                self.hw,
                self.recorder,
                self._show_code,
                self._player_seed,
                self._log,
                self.trial,
                self.power.info,
                self,
            )
        return self.wiring

    def _get_hub(self):
        """The hub, built on first use (a socket connection, the pairing combo); None without
        a journal (nothing to serve)."""
        if self.recorder.journal is None:
            return self.hub
        return self._wiring().get_hub()

    # -- power (app.power) ---------------------------------------------------------------------------

    def _halt(self):
        """Critical battery: the journal closed before the brown-out, the game halted."""
        self.recorder.close()
        self.log("battery critical: journal closed, game halted until charged")

    def _resume(self, now):
        """The cell is charged again after a halt: store what waited, read the board again."""
        self.recorder.reopen()
        self.log("battery charged: game resumed")
        self.on_board(now)

    def _connected(self):
        hub = self.hub
        return hub is not None and bool(hub.board.sessions)

    def _advertise(self, ms):
        ble = self.wiring.ble if self.wiring is not None else None
        if ble is not None:
            ble.advertise_every(ms)

    def _player_seed(self, name, commitment, part):
        """A host's dice contribution (link request): journaled and published at once."""
        try:
            mid = self.ctl.contribute(name, part, commitment)
        except ValueError:
            return None
        self.drain()
        self.wake.set()
        return mid

    # a host deciding for the computer (link request DECIDE: ``gammon play``; app.opponent)
    def brain_hello(self, side, name, now):
        return self._decided(self.ctl.hello(side, name, now))

    def brain_play(self, turn, steps, now):
        return self._decided(self.ctl.decide(turn, steps, now))

    def brain_cube(self, turn, yes, now):
        return self._decided(self.ctl.decide(turn, yes, now))

    def brain_resign(self, turn, value, now):
        return self._decided(self.ctl.decide(turn, value, now))

    # a match with another board (link request JOINT: ``gammon remote play``; bg.dice.joint)
    def joint_start(self, side, commitment):
        try:
            r = self.ctl.joint_start(side, commitment)
        except ValueError as e:
            return str(e)
        self._decided(None)
        return r

    def joint_take(self, k, share, now):
        try:
            self.ctl.joint_take(k, share, now)
        except ValueError as e:
            return str(e)
        return self._decided(None)

    def joint_share(self, k):
        return self.ctl.joint_share(k)

    def _decided(self, err):
        if err is None:
            self.drain()
            self.wake.set()
        return err

    def _show_code(self, code):
        """The link's pairing value on the LED dice (``View.show_code``, docs/leds.md)."""
        self.view.show_code(code, self.hw.clock.ticks_ms())
        self.wake.set()

    def links(self, ble=_AUTO, serial=_AUTO):
        """Which link transports to run besides ``link_port``: each True, False or
        ``_AUTO`` (None; see ``app.link.Wiring``)."""
        self.ble_link = ble
        self.serial_link = serial

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
    return C.Settings(
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

    mod = hal.load(backend or hal.backend())
    board = hwdesc.load()
    cfg = {"sensor_bytes": board.nbytes, "leds": board.nleds, "buttons": len(board.buttons)}
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
    app = App(hw, board, settings or settings_from(cfg.get("settings")), log)
    app.link_port = int(cfg.get("link_port", 0))
    if bus is not None and cfg.get("status", True):
        app.status_to(bus.send_line)
    app.links(cfg.get("ble"), cfg.get("serial_link"))
    asyncio.run(app.run())
    return app
