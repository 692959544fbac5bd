"""Which firmware runs: the slot state file, the choice at boot, the confirmation and the
rollback (docs/update.md).

Portable; small, because ``main.py`` imports it at every boot before anything else. The
firmware root holds::

    fw/state     "<active> <pending> <boots>\\n": slots "a", "b" or "-" (the built-in firmware);
                 written as fw/state.new, then renamed over fw/state (atomic on littlefs)
    fw/a/, fw/b/ a slot each: the bundle's files and its header (fw/<slot>/.bundle)
    fw/counter   the highest security counter confirmed (written as fw/counter.new, renamed)
    fw/mode      the one-shot flag: the next boot runs update mode (``enter_mode``, ``take_mode``)
    fw/app       "<partition> <counter>\n": an app image set to boot, not yet confirmed (``app_set``)

``start(path, root)`` runs from ``main.py``: a pending slot is tried at most ``MAX_BOOTS``
times (each boot counted *before* it runs), then rolled back; the chosen slot's modules are
laid over the built-in ones (``bg.update.overlay``). ``healthy(root, path)`` (the
supervisor's first "all tasks alive") makes a tried slot the active one. Anything unreadable
means the built-in firmware: a damaged state file or slot never stops the board from booting.

Updates only go forward: every bundle's signed manifest carries a security counter; the board's
confirmed counter (``confirmed``: the highest of ``COUNTER``, ``fw/counter`` and the active
slot's) rises only when a slot is confirmed healthy, and a slot below it is never installed
(``bg.update.slots``) nor tried.
"""

import os

MAX_BOOTS = 3  # boots a new version gets to become healthy before it is rolled back
HEALTHY_MS = 120000  # ... and how long each of them has (app.update: then it restarts)
# Update mode (app.update.serve) gives way to the game when no update request came for
# MODE_IDLE_MS (the first one gets MODE_WAIT_MS: the host reconnects after the restart), and
# after MODE_MAX_MS whatever happens; a connection alone (a stranger's, an idle host's) never
# holds the board in it.
MODE_WAIT_MS = 30000
MODE_IDLE_MS = 5000
MODE_MAX_MS = 600000
NONE = "-"
BUILTIN = "0.1.0"  # the version of the firmware built into the interpreter (frozen)
# The security counter of this firmware: a release that fixes a flaw raises it, and from then
# on a board refuses every bundle below it (tools/release.py signs it into the manifest).
COUNTER = 1
_BUILTIN_ROOT: list = [None]  # the sys.path entry the built-in ``bg`` came from (start)
_HOOK: list = [None]  # bg.update.overlay while its import hook may be installed
# A slot holding a whole firmware's ROM image: the retired way to ship one (a ROM image's game
# needed 88k of heap on the board model, the app image's runs at the board's 64k). A board whose
# older firmware left one chosen drops it at boot (``choose``), the way a slot that fails to
# start is dropped: this firmware cannot run it, and its modules are not there to lay over.
RETIRED = "fw.romfs"
_BOOTED = [False]  # start() ran as main.py's boot (its slot laid over the built-in modules)


def root():
    """The firmware root: "" on the device (the flash is mounted at /); on the unix port
    (the simulator) the directory in ``SG_FW_ROOT``, or None: no updates there."""
    f = getattr(os, "getenv", None)
    if f is None:
        return ""
    return f("SG_FW_ROOT")


def fw_dir(root):
    return root + "/fw"


def enter_mode(root):
    """Ask the next boot for update mode (``take_mode``): the flag file ``fw/mode``."""
    d = fw_dir(root)
    try:
        os.mkdir(d)
    except OSError:
        pass
    with open(d + "/mode", "w") as f:
        f.write("update\n")


def take_mode(root):
    """Whether this boot runs update mode (``app.update.serve``). The flag is one-shot: it
    is removed here, before update mode runs, so a power cut, a crash or a hang in update
    mode (the watchdog) boots the game again: a board never stays in update mode."""
    if root is None:
        return False
    p = fw_dir(root) + "/mode"
    try:
        os.remove(p)
    except OSError:
        return False  # no flag (the usual boot)
    return True


def read_state(root):
    """(active, pending, boots); ("-", "-", 0) when there is no (readable) state."""
    try:
        with open(fw_dir(root) + "/state") as f:
            parts = f.read().split()
        a, p, n = parts[0], parts[1], int(parts[2])
        if a in ("a", "b", NONE) and p in ("a", "b", NONE) and 0 <= n < 100 and len(parts) == 3:
            return a, p, n
    except (OSError, ValueError, IndexError):
        pass
    return NONE, NONE, 0


def write_state(root, active, pending, boots):
    """Replace the state file: the new one is written whole, then renamed over the old."""
    d = fw_dir(root)
    try:
        os.mkdir(d)
    except OSError:
        pass
    tmp = d + "/state.new"
    with open(tmp, "w") as f:
        f.write("%s %s %d\n" % (active, pending, boots))
    os.rename(tmp, d + "/state")


def slot_dir(root, slot):
    return fw_dir(root) + "/" + slot


def slot_counter(root, slot):
    """The security counter of the bundle stored in ``slot`` (bytes 10..13 of its header:
    ``bg.update.bundle.COUNTER_END``); -1 when the slot holds no readable bundle."""
    try:
        with open(slot_dir(root, slot) + "/.bundle", "rb") as f:
            h = f.read(14)
    except OSError:
        return -1
    if len(h) != 14 or h[:4] != b"GBD1" or h[6:10] != b"GFW2":
        return -1
    return h[10] | (h[11] << 8) | (h[12] << 16) | (h[13] << 24)


def _stored_counter(root):
    try:
        with open(fw_dir(root) + "/counter") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 0


def confirmed(root):
    """The board's confirmed security counter: the highest of the built-in firmware's, the
    last one confirmed (``fw/counter``: kept when a slot is later rolled back or fails) and
    the active slot's (which covers a cut between the state's switch and fw/counter)."""
    n = _stored_counter(root)
    if n < COUNTER:
        n = COUNTER
    a = read_state(root)[0]
    if a != NONE:
        k = slot_counter(root, a)
        if k > n:
            n = k
    return n


def _raise_counter(root, n):
    if n <= _stored_counter(root):
        return
    d = fw_dir(root)
    with open(d + "/counter.new", "w") as f:
        f.write("%d\n" % n)
    os.rename(d + "/counter.new", d + "/counter")


def choose(root):
    """The slot to run this boot ("a", "b" or "-"), counting the boot of a pending one and
    rolling it back once it had its ``MAX_BOOTS``, or when it is below the confirmed counter
    (or holds no bundle)."""
    active, pending, boots = read_state(root)
    floor = confirmed(root)
    a = NONE if _retired(root, active) else active
    p = NONE if _retired(root, pending) else pending
    if (a, p) != (active, pending):
        # the counter a confirmed ROM image raised stays (confirmed() counted the active slot's);
        # the state first, then the image's file goes (a cut between them leaves it unnamed)
        if a != active:
            _raise_counter(root, floor)
        write_state(root, a, p, boots if p != NONE else 0)
        for s in (active, pending):
            if s != NONE and s not in (a, p):
                _drop_image(root, s)
        active, pending = a, p
    if pending != NONE:
        if boots >= MAX_BOOTS or slot_counter(root, pending) < floor:
            write_state(root, active, NONE, 0)  # rolled back
            pending = NONE
        else:
            write_state(root, active, pending, boots + 1)
            return pending
    if active != NONE and slot_counter(root, active) >= floor:
        return active
    return NONE


def running(root, path):
    """The slot on ``path`` (``sys.path``): "a", "b" or "-"."""
    for s in ("a", "b"):
        if slot_dir(root, s) in path:
            return s
    return NONE


def _purge(modules):
    # forget the firmware modules imported so far, so the other copies are the ones loaded
    for k in [k for k in modules if k.split(".")[0] in ("bg", "app", "hal")]:
        del modules[k]


def _retired(root, s):
    # True when slot ``s`` holds a ROM image (RETIRED), said on the console
    if s == NONE:
        return False
    try:
        os.stat(slot_dir(root, s) + "/" + RETIRED)
    except OSError:
        return False
    print("fw: slot %s holds a ROM image, retired: not run, dropped" % s)
    return True


def _drop_image(root, s):
    # its bytes back to the flash (a whole firmware: ~240 kB of littlefs)
    try:
        os.remove(slot_dir(root, s) + "/" + RETIRED)
    except OSError:
        pass


def _use(path, modules, root, s, hook):
    # The slot's directory goes last on ``path`` (it names the running slot, and a top-level
    # module only the slot has is found there); with ``hook`` its modules are laid over the
    # built-in ones, module by module (bg.update.overlay: the overlay rule).
    d = slot_dir(root, s)
    if hook:  # main.py's boot (tests of the choice alone lay nothing over)
        pkg = modules.get("bg")
        p = getattr(pkg, "__path__", None)
        if _BUILTIN_ROOT[0] is None and isinstance(p, str) and p.endswith("/bg"):
            _BUILTIN_ROOT[0] = p[:-3]
        if _HOOK[0] is None:
            from bg.update import overlay

            _HOOK[0] = overlay
        _HOOK[0].remove()
        if _BUILTIN_ROOT[0] is not None:
            _HOOK[0].install(d, _BUILTIN_ROOT[0])
    _purge(modules)
    path.append(d)


# A whole firmware's app image (bg.update.slots): the ESP-IDF bootloader boots it from its OTA
# partition and rolls it back by itself when it resets before it is confirmed
# (CONFIG_BOOTLOADER_APP_ROLLBACK_ENABLE, on in MicroPython's ESP32 sdkconfig.base).
# _APP: [the app partitions' class, the counter of the image on trial] while this boot runs it
_APP: list = [None, 0]


def app_set(root, label, n):
    """Record the app image just stored in partition ``label`` with security counter ``n``, set
    to boot next (written whole, renamed)."""
    d = fw_dir(root)
    with open(d + "/app.new", "w") as f:
        f.write("%s %d\n" % (label, n))
    os.rename(d + "/app.new", d + "/app")


def _app_read(root):
    try:
        with open(fw_dir(root) + "/app") as f:
            w = f.read().split()
        return w[0], int(w[1])
    except (OSError, ValueError, IndexError):
        return None


def app_start(root, apps):
    """At boot: True when the running app is the new image on trial (``healthy`` confirms it).
    An image recorded in ``fw/app`` that is not the running app was rolled back by the
    bootloader, or never set to boot (a cut before ``set_boot``): forgotten, the counter
    untouched."""
    _APP[0] = None
    rec = _app_read(root) if apps is not None else None
    if rec is None or apps is None:
        return False
    if apps(apps.RUNNING).info()[4] != rec[0]:
        try:
            os.remove(fw_dir(root) + "/app")
        except OSError:
            pass
        print("fw: the new app was rolled back")
        return False
    _APP[0] = apps
    _APP[1] = rec[1]
    return True


def app_trial():
    """True while this boot runs an app image not yet confirmed."""
    return _APP[0] is not None


def _app_healthy(root):
    # the bootloader's mark first (a cut after it leaves a valid app, whose own built-in COUNTER
    # is the new one, and fw/app still names it: the next boot confirms again), then fw/counter,
    # then fw/app goes: the counter never rises for an app the bootloader may still roll back
    apps = _APP[0]
    apps.mark_app_valid_cancel_rollback()
    _raise_counter(root, _APP[1])
    try:
        os.remove(fw_dir(root) + "/app")
    except OSError:
        pass
    _APP[0] = None
    return True


def start(path, modules, root, hook=False):
    """At boot: the chosen slot runs (on ``path``; with ``hook``, main.py's boot, its modules
    are laid over the built-in ones). Returns the slot."""
    if root is None:
        return NONE
    _BOOTED[0] = hook
    s = choose(root)
    if s != NONE:
        _use(path, modules, root, s, hook)
    return s


def fallback(path, modules, root):
    """The running slot's firmware failed to start: it goes off the path and is rolled back
    now; the previous active slot (else the built-in firmware) goes on. False when no slot
    was running (nothing left to fall back to)."""
    s = running(root, path) if root is not None else NONE
    if s == NONE:
        return False
    path.remove(slot_dir(root, s))
    hook = _BOOTED[0]
    if _HOOK[0] is not None:
        _HOOK[0].remove()
    _purge(modules)
    active, pending, _ = read_state(root)
    if pending == s:
        write_state(root, active, NONE, 0)
    elif active == s:
        write_state(root, NONE, NONE, 0)
        active = NONE
    if active != NONE and slot_counter(root, active) >= confirmed(root):
        _use(path, modules, root, active, hook)
    return True


def healthy(root, path):
    """The running firmware reached its healthy state: a tried slot becomes the active one, an
    app image on trial is confirmed to the bootloader. True when this changed the state."""
    if _APP[0] is not None:
        return _app_healthy(root)
    s = running(root, path)
    active, pending, _ = read_state(root)
    if s != NONE and pending == s:
        write_state(root, s, NONE, 0)  # first: confirmed() counts the active slot's counter
        _raise_counter(root, slot_counter(root, s))
        return True
    return False


def version(root, path, builtin):
    """The running firmware's version: the slot's manifest's, else ``builtin``."""
    s = running(root, path)
    if s == NONE:
        return builtin
    try:
        from bg.update.bundle import HEAD, parse_manifest

        with open(slot_dir(root, s) + "/.bundle", "rb") as f:
            head = f.read()
        mlen = head[4] | (head[5] << 8)
        return parse_manifest(head[HEAD : HEAD + mlen])[0]
    except (OSError, ValueError, IndexError):
        return builtin
