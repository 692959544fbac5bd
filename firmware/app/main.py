"""The device application: wires a HAL backend to the tasks that run the board.

Tasks (all asyncio, none blocks):

- **scan** -- reads the reed chain ``scan_hz`` times a second into a preallocated buffer,
  debounces it (``bg.sensing``) and hands each stable change to the controller;
- **buttons** -- turns the HAL's press counts into PRESS / LONG events (a press held
  ``_LONG_MS`` is a long press; both CUBE buttons held end a money session; both ROLL
  buttons held open the link's pairing window, its code shown on the console/LEDs; all four
  held ``_REVOKE_MS`` unpair every host: ``revoke_all``);
- **leds** -- repaints the frame (``app.view``) when something changed and while an
  animation runs, then ``leds.show()``;
- **clock** -- the match clock's tick;
- **link** -- the host link (``app.link``), when that module is present.

The controller (``app.controller``) is pure; this module is the thin glue: it drains the
controller's confirmed actions into the journal (``bg.journal``) and replays the journal at
boot so a power cut loses nothing confirmed.

Configuration: ``run(backend, config)``. On the unix port ``firmware/main.py`` reads
environment variables (``SG_HAL``, ``SG_SIM_PORT``, ``SG_SIM_IMAGE``, ``SG_SIM_SEED``,
``SG_SETTINGS`` as JSON, ``SG_SCAN_HZ``, ``SG_LINK_PORT``, ``SG_SERIAL_LINK``);
docs/simulator.md lists them. Link transports (``config`` keys, docs/controller.md):
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
from app import controller as C

# isort: on
from app.view import View
from bg import hwdesc
from bg import record as R
from bg.leds import Painter
from bg.sensing import SelfTest, Sensing
from micropython import const

_LONG_MS = const(800)
_REVOKE_MS = const(3000)  # all four buttons held this long: unpair every host
_AUTO = None  # a link transport's "decide from the hardware" setting
_BUTTON_POLL_MS = const(10)
_FRAME_MS = const(40)


def _ticks_us():
    f = getattr(time, "ticks_us", None)
    return f() if f else int(time.time() * 1000000)


# Modules the journal needs only now and then: recovery at boot and a new match
# (bg.journal.recover), game-end compaction (bg.journal.pack, bg.record.packenc,
# bg.record.packdec) and record decoding (bg.record.decode).
# After boot and after a match starts the app drops them (``_release``); they are imported
# again from flash when next needed. Not after every game: measured (docs/memory.md), that
# lowers the heap between games by ~7.7 kB but not the peak (compaction needs them), and in ~5%
# of games a stale pointer on the C stack keeps some of them alive until the next game.
_RARE = ("journal.recover", "journal.pack", "record.packenc", "record.packdec", "record.decode")


def _release(names=_RARE):
    """Forget rarely used ``bg`` modules (sys.modules and the package's attribute) so the
    collector can take their objects back. Qstrs stay interned: only objects come back."""
    import sys

    for n in names:
        if sys.modules.pop("bg." + n, None) is not None:
            pkg, _, mod = n.rpartition(".")
            try:
                delattr(sys.modules["bg." + pkg], mod)
            except (KeyError, AttributeError):
                pass


def _short(f):
    out = []
    for x in f:
        if isinstance(x, (bytes, bytearray)):
            x = "".join("%02x" % b for b in x[:4]) + ".."
        out.append(str(x))
    return " ".join(out)


class App:
    """One board: HAL parts, sensing, controller, view, journal."""

    def __init__(self, hw, board, settings, log=None):
        self.hw = hw
        self.board = board
        self.log = log or (lambda m: None)
        self.sensing = Sensing(board)
        self.raw = bytearray(board.nbytes)
        self.painter = Painter(board, hw.leds.buf)
        self.view = View(self.painter)
        self.ctl = C.Controller(
            settings,
            rules,
            self._new_dice,
            self._new_match_id,
            hw.clock.unix_time,
            cap=board.slots_per_point,
            recognizer=rules.recognizer(board.slots_per_point, board.bar_slots, board.tray_slots),
        )
        self.journal = None
        self.wake = asyncio.Event()
        self.running = True
        self.scan_hz = board.scan_hz
        self.last_change_ms = 0  # ticks of the last stable sensor change (latency bench)
        self._pending_roll = None
        self._unstored = False  # an action of the match in progress could not be stored
        self._btn = [(board.buttons[i][1], board.buttons[i][2]) for i in range(len(board.buttons))]
        self._bstate = None  # (was down, long press fired, down since) per button
        self._all_since = None  # ticks when all four went down; False once the gesture fired
        self.watchers = []  # callables(kind, fields) for live watch (the link)
        self.verbose = True  # the serial console shows every confirmed action
        self.status = None  # the simulator's status line (app.sim_status.Status), else None
        self.link_port = 0  # simulator: the link on a local TCP port
        self.ble_link = _AUTO  # True/False; _AUTO (None): when the bluetooth module exists
        self.serial_link = _AUTO  # True/False; _AUTO: on the USB serial port without BLE
        self.hub = None
        self._pub_buf = None  # the buffer records are published from, made with the hub
        self._lazy_hub = False  # the hub is built on first use (``_get_hub``)
        self.animate = True  # the roll animation (needs the asyncio loop running)
        self._anim = None

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
            from bg.journal import Journal

            self.journal = Journal(hw.storage.root)
            try:
                actions = self.journal.open()
                seed = None
                n = 0
                for k, f in actions:
                    self.ctl.apply(k, f)
                    n += 1
                if self.journal.active is not None and self.ctl.phase != C.MATCH_OVER:
                    seed = self.journal.secret_seed()
                self.ctl.resume((), seed)
                if n:
                    self.log("resumed match: %d actions, phase %s" % (n, C.PHASE_NAMES[self.ctl.phase]))
                if self.journal.error:
                    # a match file damaged in the middle replays up to the damage without
                    # raising: show it now, not only when the next action cannot be stored
                    self.view.storage_error = self.journal.error
                    self.log("journal: error %d at boot" % self.journal.error)
            except Exception as e:  # noqa: BLE001 - a damaged journal must not stop the board
                self.log("journal: %s" % (e,))
                self.view.storage_error = self.journal.error or 4
        else:
            self.view.storage_error = 1
            self.log("storage: %s" % (getattr(hw.storage, "error", "") or "not mounted"))
        _release()
        gc.collect()

    # -- the journal ----------------------------------------------------------------------------

    def drain(self):
        """Store the controller's confirmed actions. A roll waits for its play so the pair
        fits one compact TURN record (the throw is derived from the journal's throw count,
        so a roll lost to a power cut comes back identical on the next press)."""
        ob = self.ctl.outbox
        rare = False
        while ob:
            k, f = ob.pop(0)
            if self.verbose:
                self.log("%s %s" % (R.name(k), _short(f)))
            self._store(k, f)
            # Live watch: every confirmed action, in order -- also when the journal could not
            # store it (storage error), so a watcher still sees the game as it is played.
            for w in self.watchers:
                w(k, f)
            rare = rare or k == R.MATCH_START
        if rare:
            _release()  # the new match's file is made: recovery's modules go until next time

    def _store(self, k, f):
        j = self.journal
        if j is None:
            return
        from bg.journal import JournalError

        if k == R.MATCH_START:
            self._unstored = False
            self._pending_roll = None
        elif self._unstored:
            # An action of this match was not stored: storing later ones (a record that fits
            # again after "storage full") would leave a hole that replays wrongly, so the
            # journal stays a prefix of the match (the next begin_match abandons it, which
            # reveals its dice seed).
            return
        try:
            if k == R.MATCH_START:
                j.begin_match(f, self.ctl.board_seed())
            elif k == R.ROLL:
                self._pending_roll = f
                return
            elif k == R.PLAY and self._pending_roll is not None and self._pending_roll[0] == f[0]:
                r = self._pending_roll
                self._pending_roll = None
                j.append(R.TURN, (f[0], r[1], r[2], f[1], f[2]))
            elif k == R.MATCH_END:
                self._flush_roll(j)
                j.end_match(f[0], f[1], f[2])
            elif k == R.SEED_REVEAL:
                pass  # end_match wrote it
            else:
                self._flush_roll(j)
                j.append(k, f)
            self.view.storage_error = 0
        except JournalError as e:
            self.view.storage_error = e.code
            self._unstored = True
            self.log("journal: %s" % (e,))

    def _flush_roll(self, j):
        if self._pending_roll is not None:
            r = self._pending_roll
            self._pending_roll = None
            j.append(R.ROLL, r)

    # -- events -----------------------------------------------------------------------------------

    def on_button(self, i, kind, now):
        role, side = self._btn[i]
        ctl = self.ctl
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
                if a[0] == C.K_ROLL or a[0] == C.K_OPENING:
                    thrown = True
            self.drain()
            if ctl.selecting and self.verbose:
                r = ctl.rec
                self.log("CHOICE %d %d %s" % (r.selected, r.ncand, r.steps(r.selected)))
            if self.animate and thrown and ctl.phase == C.MOVING and ctl.dice[0]:
                self._animate()
        self.ctl.mix(_ticks_us())
        self.wake.set()

    def on_board(self, now):
        s = self.sensing
        self.ctl.board(s.counts, now, s.cap, s.irregular_mask())
        self.drain()
        self.wake.set()

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

    async def scan_task(self):
        hw = self.hw
        s = self.sensing
        raw = self.raw
        period = 1000 // self.scan_hz
        while self.running:
            hw.sensors.read_into(raw)
            if s.feed(raw):
                now = hw.clock.ticks_ms()
                self.last_change_ms = now
                self.on_board(now)
            await asyncio.sleep_ms(period)

    async def button_task(self):
        clock = self.hw.clock
        while self.running:
            self.poll_buttons(clock.ticks_ms())
            await asyncio.sleep_ms(_BUTTON_POLL_MS)

    def poll_buttons(self, now):
        """One poll of the buttons (the button task calls it every ``_BUTTON_POLL_MS``):
        presses, long presses and the combos. Three or more buttons down at once are the
        revoke-all gesture (all four held ``_REVOKE_MS``): they press nothing, long or short."""
        b = self.hw.buttons
        n = len(self._btn)
        st = self._bstate
        if st is None:
            st = self._bstate = (bytearray(n), bytearray(n), [0] * n)
        was, fired, since = st
        clock = self.hw.clock
        downs = 0
        for i in range(n):
            if b.is_down(i):
                downs += 1
        for i in range(n):
            presses = b.take(i)
            down = 1 if b.is_down(i) else 0
            if down and not was[i]:
                since[i] = now
                fired[i] = 0
            if down and downs >= 3:
                fired[i] = 1  # part of the revoke-all gesture
            if down and not fired[i] and clock.ticks_diff(now, since[i]) >= _LONG_MS:
                fired[i] = 1
                self._long(i, now, was)
            elif was[i] and not down:
                if not fired[i]:
                    self.on_button(i, C.PRESS, now)
            elif presses and not down and not was[i]:
                self.on_button(i, C.PRESS, now)  # a click shorter than the poll period
            was[i] = down
        if downs < n or n < 4:
            self._all_since = None
        elif self._all_since is None:
            self._all_since = now
        elif self._all_since is not False and clock.ticks_diff(now, self._all_since) >= _REVOKE_MS:
            self._all_since = False  # once per hold
            self.revoke_all(now)

    def status_to(self, send):
        """Send the simulator's status line (``app.sim_status``) through ``send(obj)``."""
        from app.sim_status import Status

        self.status = Status(send)

    def revoke_all(self, now):
        """The revoke-all gesture: the link forgets every paired host (on flash), closes the
        pairing window and ends every session; the LEDs say so (``View.show_revoked``)."""
        hub = self._get_hub()
        if hub is not None:
            hub.revoke_all()
        self.view.show_revoked(now)
        self.log("link: every host unpaired" if hub is not None else "link: none (nothing to unpair)")
        self.wake.set()

    def _long(self, i, now, was):
        role, side = self._btn[i]
        other = self._btn.index((role, 1 - side))
        if role == "roll" and self.hw.buttons.is_down(other):
            hub = self._get_hub() if self._lazy_hub else self.hub
            if hub is not None:  # both ROLL buttons held: open the link's pairing window
                hub.open_pairing()
                self.log("pairing window open")
            return
        if role == "cube" and self.hw.buttons.is_down(other):
            if self.ctl.end_money_session():  # both cube buttons held: end the session
                self.drain()
                self.wake.set()
                return
        self.on_button(i, C.LONG, now)

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
            try:
                await asyncio.wait_for_ms(self.wake.wait(), _FRAME_MS)
            except asyncio.TimeoutError:
                pass

    async def clock_task(self):
        while self.running:
            now = self.hw.clock.ticks_ms()
            if self.ctl.tick(now):
                self.drain()
                self.wake.set()
            if self.status is not None:
                self.status.poll(self.ctl, now)  # the simulator's status panel (app.sim_status)
            await asyncio.sleep_ms(100)

    async def run(self):
        self.boot()
        if self.animate:
            self._animate_prepare()
        tasks = [
            asyncio.create_task(self.scan_task()),
            asyncio.create_task(self.button_task()),
            asyncio.create_task(self.led_task()),
            asyncio.create_task(self.clock_task()),
        ]
        bus = getattr(self.hw, "bus", None)
        if bus is not None:
            bus.on_quit = self.stop
            tasks.append(asyncio.create_task(bus.run()))
        for co in self._link():
            tasks.append(asyncio.create_task(co))  # pyright: ignore[reportArgumentType]
        while self.running:
            await asyncio.sleep_ms(100)
        for t in tasks:
            t.cancel()
        await asyncio.sleep_ms(0)

    def _link(self):
        """The host link (docs/protocol.md): one ``app.link.Hub`` over the journal, served
        on every transport this board has. Returns a list of coroutines (maybe empty).

        - ``link_port`` (the simulator): ``app.sock_link`` on 127.0.0.1;
        - ``ble`` (True/False/None = when the ``bluetooth`` module exists): ``app.ble``;
        - ``serial_link`` (True/False/None = "auto": on when there is no BLE): the protocol
          on the USB REPL port (``app.serial_link``; text on the console is skipped by the
          host, Ctrl-C between frames still reaches the REPL).
        """
        if self.journal is None or not (self.link_port or self.ble_link is not False or self.serial_link):
            return []  # no transport wanted (the simulator without --link-port): no heap spent
        if self.link_port and self.ble_link is False and not self.serial_link:
            # the simulator's socket alone: listen now, build the link stack (protocol,
            # sessions, pairing store) when the first host connects or pairing opens
            from app import sock_link

            self._lazy_hub = True
            self.log("link: listening on 127.0.0.1:%d" % self.link_port)
            return [sock_link.serve(self._get_hub, self.link_port)]
        hub = self._make_hub()
        if hub is None:
            return []
        out = []
        if self.link_port:
            from app import sock_link

            self.log("link: listening on 127.0.0.1:%d" % self.link_port)
            out.append(sock_link.serve(hub, self.link_port))
        ble = False
        if self.ble_link is not False:
            try:
                from app.ble import BleTransport

                t = BleTransport(
                    name=hub.board.store.get_name(), show_code=self._show_code, urandom=self.hw.random.urandom
                )
                out.append(hub.add(t).run())
                ble = True
                self.log("link: BLE advertising")
            except Exception as e:  # noqa: BLE001 - no radio (unix port) or it failed: play on
                if self.ble_link:
                    self.log("link: BLE off: %r" % (e,))
        serial = self.serial_link
        if serial is None:
            serial = not ble and not self.link_port
        if serial:
            from app import serial_link

            self.log("link: on the USB serial port")
            out.append(serial_link.serve(hub))
        return out

    def _make_hub(self):
        """The ``app.link.Hub`` over the journal (None, logged, when it cannot be built)."""
        try:
            from app.link import Hub
            from bg.link.board import Board
            from bg.link.journal import JournalStore

            bid = getattr(self.hw, "board_id", None)  # hal.Hardware: 8 bytes, or None
            store = JournalStore(self.journal, self.hw.storage.root, bid() if bid else None)
            hub = Hub(
                Board(
                    store,
                    self.hw.clock,
                    self.hw.random.urandom,
                    show_code=self._show_code,
                    on_player_seed=self._player_seed,
                )
            )
        except Exception as e:  # noqa: BLE001 - the board plays without its link
            self.log("link: %r" % (e,))
            return None
        self.hub = hub
        # one buffer for every published record: encode() would allocate 2 x 259 bytes per
        # action (the hub copies the few bytes of each record into a watching session's queue)
        self._pub_buf = bytearray(2 * R.MAX_RECORD)
        self.watchers.append(self._publish)
        return hub

    def _player_seed(self, name, commitment, part):
        """A host's dice contribution (link request): journaled and published at once."""
        try:
            mid = self.ctl.contribute(name, part, commitment)
        except ValueError:
            return None
        self.drain()
        self.wake.set()
        return mid

    def _get_hub(self):
        """The hub, built on first use (a socket connection, the pairing combo)."""
        if self.hub is None:
            self._make_hub()
        return self.hub

    def _publish(self, k, f):
        hub = self.hub
        if hub is not None:
            try:
                hub.publish(R.encode(k, f, self._pub_buf))
            except ValueError:
                pass

    def _show_code(self, code):
        """The link's pairing value (6 digits; None when pairing ends): on the LED dice
        (``View.show_code``, docs/leds.md) and the console, with the pairing host's name;
        a ROLL press confirms it (``on_button``)."""
        if code is not None and not isinstance(code, str):
            code = "%06d" % code  # the BLE passkey
        self.view.show_code(code, self.hw.clock.ticks_ms())
        if code:
            self.log("pairing code: %s" % (code,))
            name = self.hub.board.pairing_name() if self.hub is not None else None
            if name:
                self.log("pairing host %r: press ROLL if it shows the same number" % (name,))
        else:
            self.log("pairing closed")
        self.wake.set()

    def links(self, ble=_AUTO, serial=_AUTO):
        """Which link transports to run besides ``link_port``: each True, False or
        ``_AUTO`` (None; see ``_link``)."""
        self.ble_link = ble
        self.serial_link = serial

    def stop(self):
        self.running = False


def settings_from(obj):
    """``Settings`` from a dict (JSON from the host or the simulator)."""
    obj = obj or {}
    names = obj.get("names") or ("white", "black")
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
    )


def _env(name):
    import os

    f = getattr(os, "getenv", None)
    return f(name) if f else None


def run(backend=None, config=None, settings=None):
    """Build the hardware and run the board until the backend stops it."""
    import hal

    backend = backend or _env("SG_HAL") or "esp32"
    board = hwdesc.load()
    cfg = {"sensor_bytes": board.nbytes, "leds": board.nleds, "buttons": len(board.buttons)}
    if backend == "sim":
        import json

        port = _env("SG_SIM_PORT")
        if port:
            cfg["port"] = int(port)
        img = _env("SG_SIM_IMAGE")
        if img:
            cfg["image"] = img
        seed = _env("SG_SIM_SEED")
        if seed:
            cfg["seed"] = seed.encode()
        if settings is None:
            raw = _env("SG_SETTINGS")
            settings = settings_from(json.loads(raw) if raw else None)
        lp = _env("SG_LINK_PORT")
        if lp:
            cfg["link_port"] = int(lp)
        hz = _env("SG_SCAN_HZ")
        if hz:
            board.scan_hz = int(hz)
        cfg["ble"] = False  # the simulator's link is the socket (app.sock_link)
        # the page's status panel (app.sim_status) is the simulator's, not the board's: the
        # server turns it off on the board model, whose 64k heap is the board's, not the page's
        cfg["status"] = _env("SG_SIM_STATUS") != "0"
        sl = _env("SG_SERIAL_LINK")
        cfg["serial_link"] = sl == "1"
    if config:
        cfg.update(config)
    hw = hal.load(backend).make(cfg)
    bus = getattr(hw, "bus", None)
    log = bus.log if bus is not None else print
    app = App(hw, board, settings or settings_from(None), log)
    app.link_port = int(cfg.get("link_port", 0))
    if bus is not None and cfg.get("status", True):
        app.status_to(bus.send_line)
    app.links(cfg.get("ble"), cfg.get("serial_link"))
    asyncio.run(app.run())
    return app
