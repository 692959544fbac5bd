"""Firmware updates on the device: the link's ``Updater``, the version in INFO, and the trial of
a new version (docs/update.md).

``Trial.healthy()`` is the ``on_healthy`` callback of the supervisor (its first "all tasks
alive"): a tried slot becomes the active one. ``Trial.run()`` is the deadline: a version on
trial that is not healthy within ``boot.HEALTHY_MS`` restarts the board (``restart``
injected: ``machine.reset`` on the ESP32), which counts as one of its ``boot.MAX_BOOTS``.

An update does not run beside the game (docs/update.md: update mode): while the game runs, the
link's receiver is a ``_Switch`` -- a host's FW_BEGIN is answered "restarting into update mode"
(E_BUSY, retry after ``_Switch.restart_ms``), the journal is closed, the one-shot flag set
(``boot.enter_mode``) and the board restarts. ``serve`` is that boot (``main.py``): the
built-in firmware's link and ``bg.update.slots.Updater`` only, no game; it restarts the board
when the bundle is committed, when no update request came for ``boot.MODE_IDLE_MS``, or after
``boot.MODE_MAX_MS``. Its LEDs say so (``bg.update.show``: waiting, the bytes received,
stored, refused).

``bg.update.boot`` stays loaded only while a version is on trial: ``Trial`` reads the running
version once, and with the built-in firmware, a slot confirmed before, or once the trial is
confirmed, nothing is left to try, confirm or name, so it lets boot (and ``bg.update.bundle``)
go (``main.py`` drops its own reference before the app runs; docs/memory.md). With nothing on
trial ``app.main`` lets this module go too: a stand-in keeps the version and builds ``Trial``
again at the first update request.
"""

import asyncio
import sys

from bg import forget
from micropython import const

_ANSWER_S = 0.3  # from a request to the restart it asked for: the answer's time to go
_FRAME_MS = const(100)  # update mode's period: an LED frame and a look at its host
_SHOWN_MS = const(1000)  # the stored bundle's green on the LEDs before the restart
_DOG_MS = const(30000)  # update mode's watchdog (a signature check takes seconds on an ESP32)


def _boot():
    from bg.update import boot

    return boot


def _release_boot(names=("bg.update.boot", "bg.update.bundle", "bg.update")):
    """Forget ``bg.update.boot`` and ``bg.update.bundle`` (``boot.version`` imports it), and the
    ``bg.update`` package when no other part of it is loaded (sys.modules and the parent's
    attribute): the collector takes their objects back; ``_boot()`` imports them again from
    flash if ever needed."""
    m = sys.modules
    for name in names:
        if name == "bg.update" and any(k.startswith("bg.update.") for k in m):
            return
        forget(name)


def release_key():
    """The key bundles must be signed with unless the HAL names another (``Trial``'s ``key``:
    the simulator's development key, ``hal.sim.from_env``; never on the ESP32)."""
    from bg.update.bundle import RELEASE_PUB

    return RELEASE_PUB


class _Switch:
    """The link's receiver while the game runs: FW_BEGIN restarts the board into update mode
    (``bg.link.fwupdate.begin`` answers E_BUSY with ``restart_ms``: the host comes back then)."""

    restart_ms = 3000

    def __init__(self, trial):
        self.trial = trial

    def restart(self):
        t = self.trial
        if not t.leaving:
            t.leaving = True
            asyncio.create_task(t._to_update_mode())

    def begin(self, *a):
        raise ValueError("no update begun")

    write = commit = begin


class Trial:
    def __init__(self, clock, log, restart=None, root=None, path=None, key=None, reset=None, close=None):
        boot = _boot()
        self.key = key  # the HAL's update key (the simulator's development key), None: release
        # update mode: close() the journal, then reset() the board (hal.Hardware.reset)
        self.reset = reset or restart
        self.close = close
        self.leaving = False
        self.clock = clock
        self.log = log
        self.restart = restart
        self.root = boot.root() if root is None else root
        self.path = sys.path if path is None else path
        self.started = clock.ticks_ms()
        self.done = False
        # The running firmware's version, read once (main.py chose the slot at this boot,
        # before the app was imported). Once nothing is on trial -- the built-in firmware, a
        # slot confirmed at an earlier boot or at this one -- ``settled`` holds it and
        # bg.update.boot is let go: nothing is left to try, confirm or name (docs/memory.md).
        self.settled = None
        if self.root is None or boot.running(self.root, self.path) == boot.NONE:
            self.named = boot.BUILTIN
            if boot.app_trial():  # a new app image, confirmed once healthy
                return
        else:
            self.named = boot.version(self.root, self.path, boot.BUILTIN)
            if self.on_trial():
                _release_boot(("bg.update.bundle",))  # read once: the version
                return
        self._settle()

    def _settle(self):
        self.settled = self.named
        _release_boot()

    def version(self):
        return self.named

    def on_trial(self):
        if self.settled is not None:
            return False
        boot = _boot()
        if boot.app_trial():
            return True
        s = boot.running(self.root, self.path)
        return s != boot.NONE and boot.read_state(self.root)[1] == s

    def updater(self):
        """The link's receiver, or None where this board takes no updates: the ``_Switch``
        into update mode; a version on trial gets the ``Updater`` itself, which refuses (it
        must prove healthy before anything replaces it)."""
        if self.root is None:
            return None
        if not self.on_trial():
            return _Switch(self)
        from bg.update.slots import Updater

        return Updater(self.root, self.path, self.key or release_key())

    async def _to_update_mode(self):
        await asyncio.sleep(_ANSWER_S)  # the host's answer goes out first (CPython: no sleep_ms)
        try:
            # loaded again here (let go once nothing was on trial), before anything is closed:
            # a heap that has no room for it leaves the game running whole, and the host's next
            # FW_BEGIN tries again
            boot = _boot()
        except MemoryError as e:
            self.leaving = False
            self.log("fw: update mode not entered: %s" % e)
            return
        if self.close is not None:
            self.close()  # the journal: the throw waiting for its play stored too
        boot.enter_mode(self.root)
        self.log("fw: restarting into update mode")
        if self.reset is not None:
            self.reset()

    def healthy(self):
        if self.done:
            return
        self.done = True
        if self.settled is None:
            if _boot().healthy(self.root, self.path):
                self.log("fw: version %s confirmed" % self.named)
            self._settle()

    def check(self, alive=None):
        """One look at the trial: "healthy" (confirmed now), "restart" (the deadline passed:
        ``restart`` called), or None (still waiting, or nothing on trial)."""
        if self.done:
            return None
        if alive is not None and alive():
            self.healthy()
            return "healthy"
        if self.clock.ticks_diff(self.clock.ticks_ms(), self.started) >= _boot().HEALTHY_MS:
            self.done = True
            self.log("fw: version %s not healthy in time: restarting" % self.version())
            if self.restart is not None:
                self.restart()
            return "restart"
        return None

    async def run(self, alive=None):
        """The trial's deadline, checked every second. ``alive()`` (until the supervisor calls
        ``healthy``): True once the essential tasks run."""
        if not self.on_trial():
            return
        while self.check(alive) is None and not self.done:
            await asyncio.sleep_ms(1000)


# -- update mode (main.py's boot when boot.take_mode() says so) ----------------------------------


def _receiver(root, key, apps=None):
    from bg.update.slots import Updater

    class Receiver(Updater):
        done = None  # the commit's answer: update mode restarts once it is sent
        heard = False  # an update request since update mode last looked
        refused = False  # an update request refused since then (the LEDs say so)

        def begin(self, bid, size):
            self.heard = True
            try:
                return Updater.begin(self, bid, size)
            except Exception:
                self.refused = True
                raise

        def write(self, off, data):
            self.heard = True
            try:
                return Updater.write(self, off, data)
            except Exception:
                # a chunk at another offset is the host's resync (it begins again and goes
                # on from where the stream stands), not a refusal of the bundle
                if off == self.off or self.id is None:
                    self.refused = True
                raise

        def commit(self):
            try:
                v = Updater.commit(self)
            except Exception:
                self.refused = True
                raise
            self.done = v
            return v

    return Receiver(root, [], key or release_key(), apps)


def _wiring(hw, log, updater):
    from app.link import Hub
    from app.wiring import Wiring

    class ModeWiring(Wiring):
        # the link's hub without the journal: sessions, pairing keys (JournalStore's files:
        # the board's id, name and paired hosts) and the update receiver, nothing of a match
        def make_hub(self):
            from bg.link.board import Board
            from bg.link.journal import JournalStore

            bid = getattr(hw, "board_id", None)
            store = JournalStore(None, hw.storage.root, bid() if bid else None)
            board = Board(store, hw.clock, hw.random.urandom, self.show_code, "update mode", updater=updater)
            self.hub = Hub(board)
            return self.hub

    return ModeWiring(hw, None, _nothing, None, log)


def _nothing(*a):
    pass


def _sending(hub):
    # an answer still to send (the commit's, before the restart)
    return hub is not None and any(s.out for s in hub.board.sessions)


def _look(u, sign, show, clock, now, refused):
    """Update mode's LEDs for the receiver ``u`` at ``now`` (``show``: ``bg.update.show``);
    ``refused`` is the ticks of the last refusal, or None. Returns it, renewed when ``u``
    refused since. Allocates nothing (one frame every ``_FRAME_MS``)."""
    if u.refused:
        u.refused = False
        refused = now
    if u.done is not None:
        st = show.DONE
    elif refused is not None and clock.ticks_diff(now, refused) < show.REFUSED_MS:
        st = show.REFUSED
    elif u.id is not None:
        st = show.RECEIVE
    else:
        st = show.WAIT
    sign.frame(now, st, u.off, u.size)
    return refused


async def _mode(hw, root, cfg, log, sign=None, apps=None):
    boot = _boot()
    clock = hw.clock
    dog = hw.watchdog(_DOG_MS)  # a hang here resets the board into the game
    u = _receiver(root, cfg.get("fw_key"), apps)
    w = _wiring(hw, log, u)
    tasks = [
        asyncio.create_task(co)
        for co in w.coroutines(cfg.get("link_port", 0), cfg.get("ble"), cfg.get("serial_link"))
    ]
    bus = getattr(hw, "bus", None)
    if bus is not None:
        tasks.append(asyncio.create_task(bus.run()))
    log("fw: update mode")
    start = last = clock.ticks_ms()
    seen = False
    refused = show = None
    if sign is not None:
        from bg.update import show  # the LEDs' states (the sign's own module)

    while True:
        if dog is not None:
            dog.feed()
        now = clock.ticks_ms()
        if sign is not None:
            refused = _look(u, sign, show, clock, now, refused)
        await asyncio.sleep_ms(_FRAME_MS)
        now = clock.ticks_ms()
        if u.done is not None and not _sending(w.hub):
            log("fw: update mode: %s, restarting" % u.done)
            if sign is not None:
                _look(u, sign, show, clock, now, refused)
                await asyncio.sleep_ms(_SHOWN_MS)  # the players see it stored
            break
        # Only update requests hold update mode (a paired host's: strangers never reach
        # them); a connection alone does not (a host that logged in and went idle).
        if u.heard:
            u.heard = False
            seen = True
            last = now
        limit = boot.MODE_IDLE_MS if seen else boot.MODE_WAIT_MS
        if clock.ticks_diff(now, last) > limit or clock.ticks_diff(now, start) > boot.MODE_MAX_MS:
            log("fw: update mode: no host, back to the game")
            break
    for t in tasks:
        t.cancel()
    await asyncio.sleep_ms(0)


def _sign(board, hw):
    # update mode's LEDs (bg.update.show), or None: a board without LEDs or its description
    # still takes updates
    if board is None or getattr(hw.leds, "buf", None) is None or len(hw.leds.buf) != 3 * board.nleds:
        return None
    from bg.update.show import Sign

    return Sign(board, hw.leds)


def _failed(sign, sleep_ms):
    # update mode failed: the points blink vermillion for two seconds before the restart
    from bg.update import show

    for k in range(20):
        sign.frame(k * 100, show.REFUSED)
        sleep_ms(100)


def serve(root):
    """Update mode: the link and the update receiver, nothing of the game; ends by restarting
    the board (into the new version once committed, else into the game). The LEDs say so
    (``bg.update.show``)."""
    import hal

    mod = hal.load(hal.backend())
    cfg = {}
    board = None
    try:
        from bg import hwdesc

        board = hwdesc.load()
        # the HAL gets this board (hal.esp32 would load its own) and the sizes of its parts
        cfg.update(sensor_bytes=board.nbytes, leds=board.nleds, buttons=len(board.buttons), board=board)
    except Exception as e:  # noqa: BLE001 - update mode runs without its LEDs then
        print("fw: update mode without its LEDs:", e)
    f = getattr(mod, "from_env", None)
    if f is not None:
        cfg.update(f())
    cfg["status"] = False
    hw = mod.make(cfg)
    if board is not None:
        board.release_wiring()  # the HAL is built: its wiring tables are not kept
    bus = getattr(hw, "bus", None)
    log = bus.log if bus is not None else print
    sign = None
    try:
        sign = _sign(board, hw)
        apps = getattr(mod, "app_partitions", None)
        asyncio.run(_mode(hw, root, cfg, log, sign, apps() if apps is not None else None))
    except Exception as e:  # noqa: BLE001 - said, then the game boots (the flag is gone)
        log("fw: update mode failed: %r" % (e,))
        if sign is not None:
            import time

            _failed(sign, time.sleep_ms)  # pyright: ignore[reportAttributeAccessIssue] - MicroPython's
    finally:
        hw.reset()
