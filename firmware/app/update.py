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
``boot.MODE_MAX_MS``.

``bg.update.boot`` stays loaded only while a slot runs (pending, on trial or active): with the
built-in firmware there is nothing to try, confirm or name, so ``Trial`` lets it go
(``main.py`` drops its own reference before the app runs; docs/memory.md).
"""

import asyncio
import sys

from micropython import const

_ANSWER_S = 0.3  # from a request to the restart it asked for: the answer's time to go
_POLL_MS = const(250)  # update mode's look at its host
_DOG_MS = const(30000)  # update mode's watchdog (a signature check takes seconds on an ESP32)


def _boot():
    from bg.update import boot

    return boot


def _release_boot():
    """Forget ``bg.update.boot``, and the ``bg.update`` package when no other part of it is
    loaded (sys.modules and the parent's attribute): the collector takes their objects back;
    ``_boot()`` imports them again from flash if ever needed."""
    m = sys.modules
    for name in ("bg.update.boot", "bg.update"):
        if name == "bg.update" and any(k.startswith("bg.update.") for k in m):
            return
        if m.pop(name, None) is not None:
            parent, _, attr = name.rpartition(".")
            try:
                delattr(m[parent], attr)
            except (KeyError, AttributeError):
                pass


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
        # The built-in firmware runs (no slot on the path: main.py chose at this boot, before
        # the app was imported): the version is the built-in one, nothing is on trial and
        # nothing is confirmed -- what boot.version/running/healthy answer then.
        self.builtin = None
        if self.root is None or boot.running(self.root, self.path) == boot.NONE:
            self.builtin = boot.BUILTIN
            _release_boot()

    def version(self):
        if self.builtin is not None:
            return self.builtin
        boot = _boot()
        return boot.version(self.root, self.path, boot.BUILTIN)

    def on_trial(self):
        if self.builtin is not None:
            return False
        boot = _boot()
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
        if self.close is not None:
            self.close()  # the journal: the throw waiting for its play stored too
        _boot().enter_mode(self.root)
        self.log("fw: restarting into update mode")
        if self.reset is not None:
            self.reset()

    def healthy(self):
        if self.done:
            return
        self.done = True
        if self.builtin is None and _boot().healthy(self.root, self.path):
            self.log("fw: version %s confirmed" % self.version())

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


def _receiver(root, key):
    from bg.update.slots import Updater

    class Receiver(Updater):
        done = None  # the commit's answer: update mode restarts once it is sent
        heard = False  # an update request since update mode last looked

        def begin(self, bid, size):
            self.heard = True
            return Updater.begin(self, bid, size)

        def write(self, off, data):
            self.heard = True
            return Updater.write(self, off, data)

        def commit(self):
            v = Updater.commit(self)
            self.done = v
            return v

    return Receiver(root, [], key or release_key())


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


async def _mode(hw, root, cfg, log):
    boot = _boot()
    clock = hw.clock
    dog = hw.watchdog(_DOG_MS)  # a hang here resets the board into the game
    u = _receiver(root, cfg.get("fw_key"))
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
    while True:
        if dog is not None:
            dog.feed()
        await asyncio.sleep_ms(_POLL_MS)
        now = clock.ticks_ms()
        if u.done is not None and not _sending(w.hub):
            log("fw: update mode: %s, restarting" % u.done)
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


def serve(root):
    """Update mode: the link and the update receiver, nothing of the game; ends by restarting
    the board (into the new version once committed, else into the game)."""
    import hal

    mod = hal.load(hal.backend())
    cfg = {}
    f = getattr(mod, "from_env", None)
    if f is not None:
        cfg.update(f())
    cfg["status"] = False
    hw = mod.make(cfg)
    bus = getattr(hw, "bus", None)
    log = bus.log if bus is not None else print
    try:
        asyncio.run(_mode(hw, root, cfg, log))
    except Exception as e:  # noqa: BLE001 - said, then the game boots (the flag is gone)
        log("fw: update mode failed: %r" % (e,))
    finally:
        hw.reset()
