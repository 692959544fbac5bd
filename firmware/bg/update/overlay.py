"""A slot of modules laid over the built-in firmware, one module at a time (docs/update.md).

Portable (MicroPython and CPython). MicroPython's packages have one directory each: a package's
``__path__`` is a single string, so a slot directory put ahead of the built-in (frozen / ROMFS)
modules on ``sys.path`` would hide the built-in package whole: a bundle holding only
``bg/notation.mpy`` would leave ``bg.engine`` unfindable. The overlay rule instead: **each module
comes from the slot when the slot holds it, else from the built-in firmware.** ``install``
replaces ``builtins.__import__`` (``MICROPY_CAN_OVERRIDE_BUILTINS``, the ESP32's feature level)
with a hook that, for each module not loaded yet, points its parent package's ``__path__`` at
the slot or at the built-in directory just for that one lookup, and puts it back after. A
package (its ``__init__``) comes from the slot the same way when the slot holds one.

    >>> o = Overlay("/fw/a", ".frozen", lambda p: p == "/fw/a/bg/notation.mpy", {})
    >>> o.where("bg.notation"), o.where("bg.engine"), o.where("bg")
    ('/fw/a/bg', '.frozen/bg', None)
"""

import builtins
import gc
import os
import sys

_KINDS = (".mpy", ".py", "/__init__.mpy", "/__init__.py")
# The hook installed, if any: MicroPython reads ``builtins.__import__`` from its own table
# whatever was assigned over it, so the hook cannot be found there again.
_ON: list = [None]


def _exists(p):
    try:
        os.stat(p)
        return True
    except OSError:
        return False


class Overlay:
    """The import hook of one slot ``slot`` over the built-in modules under ``builtin``
    (the ``sys.path`` entry the built-in ``bg`` came from). ``exists`` is ``os.stat`` as a
    predicate (tests give their own), ``modules`` is ``sys.modules``."""

    def __init__(self, slot, builtin, exists=_exists, modules=None):
        self.slot = slot
        self.builtin = builtin
        self.exists = exists
        self.modules = sys.modules if modules is None else modules
        self.orig = builtins.__import__  # the import it hands each lookup to
        self.loading = []  # the modules being loaded through the hook, innermost last

    def held(self, name):
        """True when the slot holds module ``name`` (a module file or a package's __init__)."""
        p = self.slot + "/" + name.replace(".", "/")
        for k in _KINDS:
            if self.exists(p + k):
                return True
        return False

    def where(self, name):
        """The directory the parent package's ``__path__`` names while ``name`` loads (None
        for a top-level name: that one goes by ``sys.path``)."""
        parent, _, _ = name.rpartition(".")
        if not parent:
            return None
        rel = "/" + parent.replace(".", "/")
        return (self.slot if self.held(name) else self.builtin) + rel

    def _run(self, name):
        self.loading.append(name)
        try:
            self.orig(name, None, None, (), 0)
        finally:
            self.loading.pop()
        # The heap's order (docs/memory.md): each lookup's os.stat tuples and path strings
        # are garbage between the modules that stay; collected after each module, the next
        # module's objects fill those holes instead of leaving them. Without it a one-module
        # slot's boot at 64k had 18 kB free but no 858-byte run (the crash log's read).
        gc.collect()

    def _load(self, name):
        mods = self.modules
        if name in mods:
            return
        parent, _, _ = name.rpartition(".")
        if not parent:
            if self.held(name):  # the slot's own package __init__: the slot first, once
                sys.path.insert(0, self.slot)
                try:
                    self._run(name)
                finally:
                    sys.path.remove(self.slot)
            else:
                self._run(name)
            return
        self._load(parent)
        pkg = mods.get(parent)
        old = getattr(pkg, "__path__", None)
        if old is None:
            return  # not a package: the built-in import says what is wrong
        if not self.held(name) and not old.startswith(self.slot):
            self._run(name)  # a built-in package's own module: its path already says where
            return
        pkg.__path__ = self.where(name)  # pyright: ignore - a module's attribute, set
        try:
            self._run(name)
        finally:
            pkg.__path__ = old  # pyright: ignore

    def _absolute(self, name, level):
        # A relative import's absolute name. MicroPython resolves one against the module
        # whose code calls the import -- here the hook's own -- and passes no globals, so the
        # caller is taken to be the module being loaded (asyncio's "from .core import *");
        # after import time (asyncio's lazy attributes) the package outside the firmware
        # that holds ``name``.
        mods = self.modules
        if self.loading:
            base = self.loading[-1]
            if getattr(mods.get(base), "__path__", None) is None:
                base = base.rpartition(".")[0]
            for _ in range(level - 1):
                base = base.rpartition(".")[0]
            return base + "." + name if name else base
        for k in list(mods):
            if "." in k or k in ("bg", "app", "hal") or getattr(mods[k], "__path__", None) is None:
                continue
            full = k + "." + name if name else k
            if full in mods:
                return full
            try:
                self._run(full)
                return full
            except ImportError:
                pass
        raise ImportError("relative import of %s with no package" % name)

    def __call__(self, name, globs=None, locs=None, fromlist=(), level=0):
        # ``from p import m`` where m is no attribute of p yet comes back here as "p.m"
        # (mp_import_from), so the fromlist needs nothing of its own.
        if level > 0:
            name = self._absolute(name, level)
            level = 0
        if name not in self.modules:
            self._load(name)
        return self.orig(name, globs, locs, fromlist, level)


def install(slot, builtin):
    """Lay ``slot`` over the built-in modules under ``builtin``; returns the hook."""
    remove()
    o = Overlay(slot, builtin)
    builtins.__import__ = o
    _ON[0] = o
    return o


def installed():
    """The hook in place, or None."""
    return _ON[0]


def remove():
    """Back to the plain import (a slot that failed to start is taken off)."""
    o = _ON[0]
    if o is not None:
        builtins.__import__ = o.orig
        _ON[0] = None
