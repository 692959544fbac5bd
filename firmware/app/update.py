"""Firmware updates on the device: the link's ``Updater``, the version in INFO, and the trial of
a new version (docs/update.md).

``Trial.healthy()`` is the ``on_healthy`` callback of the supervisor (its first "all tasks
alive"): a tried slot becomes the active one. ``Trial.run()`` is the deadline: a version on
trial that is not healthy within ``boot.HEALTHY_MS`` restarts the board (``restart``
injected: ``machine.reset`` on the ESP32), which counts as one of its ``boot.MAX_BOOTS``.

``bg.update.boot`` stays loaded only while a slot runs (pending, on trial or active): with the
built-in firmware there is nothing to try, confirm or name, so ``Trial`` lets it go
(``main.py`` drops its own reference before the app runs; docs/memory.md).
"""

import asyncio
import sys


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


class Trial:
    def __init__(self, clock, log, restart=None, root=None, path=None, key=None):
        boot = _boot()
        self.key = key  # the HAL's update key (the simulator's development key), None: release
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
        """The link's Updater, or None where this board takes no updates."""
        if self.root is None:
            return None
        from bg.update.slots import Updater

        return Updater(self.root, self.path, self.key or release_key())

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
