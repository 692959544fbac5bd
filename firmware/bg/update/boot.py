"""Which firmware runs: the slot state file, the choice at boot, the confirmation and the
rollback (docs/update.md).

Portable; small, because ``main.py`` imports it at every boot before anything else. The
firmware root holds::

    fw/state     "<active> <pending> <boots>\\n": slots "a", "b" or "-" (the built-in firmware);
                 written as fw/state.new, then renamed over fw/state (atomic on littlefs)
    fw/a/, fw/b/ a slot each: the bundle's files and its header (fw/<slot>/.bundle)

``start(path, root)`` runs from ``main.py``: a pending slot is tried at most ``MAX_BOOTS``
times (each boot counted *before* it runs), then rolled back; the chosen slot goes first on
``sys.path``, ahead of the built-in modules. ``healthy(root, path)`` (the supervisor's first
"all tasks alive") makes a tried slot the active one. Anything unreadable means the built-in
firmware: a damaged state file or slot never stops the board from booting.
"""

import os

MAX_BOOTS = 3  # boots a new version gets to become healthy before it is rolled back
HEALTHY_MS = 120000  # ... and how long each of them has (app.update: then it restarts)
NONE = "-"
BUILTIN = "0.1.0"  # the version of the firmware built into the interpreter (frozen / ROMFS)


def root():
    """The firmware root: "" on the device (the flash is mounted at /); on the unix port
    (the simulator) the directory in ``SG_FW_ROOT``, or None: no updates there."""
    f = getattr(os, "getenv", None)
    if f is None:
        return ""
    return f("SG_FW_ROOT")


def fw_dir(root):
    return root + "/fw"


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


def _has_bundle(root, slot):
    try:
        os.stat(slot_dir(root, slot) + "/.bundle")
        return True
    except OSError:
        return False


def choose(root):
    """The slot to run this boot ("a", "b" or "-"), counting the boot of a pending one and
    rolling it back once it had its ``MAX_BOOTS``."""
    active, pending, boots = read_state(root)
    if pending != NONE:
        if boots >= MAX_BOOTS or not _has_bundle(root, pending):
            write_state(root, active, NONE, 0)  # rolled back
            pending = NONE
        else:
            write_state(root, active, pending, boots + 1)
            return pending
    if active != NONE and _has_bundle(root, active):
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


def start(path, modules, root):
    """At boot: put the chosen slot's directory first on ``path``. Returns the slot."""
    if root is None:
        return NONE
    s = choose(root)
    if s != NONE:
        path.insert(0, slot_dir(root, s))
        _purge(modules)
    return s


def fallback(path, modules, root):
    """The running slot's firmware failed to start: it goes off the path and is rolled back
    now; the previous active slot (else the built-in firmware) goes on. False when no slot
    was running (nothing left to fall back to)."""
    s = running(root, path) if root is not None else NONE
    if s == NONE:
        return False
    path.remove(slot_dir(root, s))
    _purge(modules)
    active, pending, _ = read_state(root)
    if pending == s:
        write_state(root, active, NONE, 0)
    elif active == s:
        write_state(root, NONE, NONE, 0)
        active = NONE
    if active != NONE and _has_bundle(root, active):
        path.insert(0, slot_dir(root, active))
    return True


def healthy(root, path):
    """The running firmware reached its healthy state: a tried slot becomes the active one.
    True when this changed the state."""
    s = running(root, path)
    active, pending, _ = read_state(root)
    if s != NONE and pending == s:
        write_state(root, s, NONE, 0)
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
