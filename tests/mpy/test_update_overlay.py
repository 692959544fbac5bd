"""The overlay rule on MicroPython (bg.update.overlay, bg.update.boot.start as main.py calls it):
a bundle of one module, ``bg/notation.py``, installed, booted and confirmed, runs its own
``bg.notation`` while every other module of the package -- ``bg.engine``, ``bg.serialwire`` -- comes
from the built-in firmware (frozen on the board model, the ROM image on the 64-bit port). With
the slot simply ahead on ``sys.path`` (the rule before) ``bg`` would be the slot's directory
alone and ``bg.engine`` unfindable. A failed start takes the hook off again."""

# Runs at the default 64k on both interpreters (the 64-bit port passes from 56k).

import gc
import os
import sys

gc.collect()
import update_helpers  # noqa: E402
from bg.update import boot, overlay  # noqa: E402
from bg.update.bundle import bundle_id, header_len  # noqa: E402
from bg.update.sign import bundle  # noqa: E402
from bg.update.slots import Updater  # noqa: E402

# the slot's notation: it needs two built-in modules, and says where it came from
_SRC = b"from bg.engine import plays\nfrom bg.serialwire import HELLO\n\nFROM_SLOT = 1\n"


def _snapshot():
    return list(sys.path), dict(sys.modules)


def _restore(snap):
    overlay.remove()
    sys.path[:] = snap[0]
    for k in [k for k in sys.modules if k not in snap[1]]:
        del sys.modules[k]
    for k, v in snap[1].items():
        sys.modules[k] = v


def test_one_module_bundle_overlays_the_built_in_package():
    r = update_helpers.root()
    snap = _snapshot()
    builtin = sys.modules["bg"].__path__
    try:
        blob = bundle("2.0.1", [("bg/notation.py", _SRC)], update_helpers.SEED, boot.COUNTER)
        u = Updater(r, [""], update_helpers.pub())
        u.begin(bundle_id(blob[: header_len(blob)]), len(blob))
        update_helpers.send(u, blob)
        assert u.commit() == "2.0.1"
        del u, blob
        gc.collect()
        sys.modules.pop("bg.notation", None)
        assert boot.start(sys.path, sys.modules, r, True) == "a"  # as main.py boots it
        assert "bg" not in sys.modules  # the built-in modules imported so far are forgotten
        import bg.notation

        assert bg.notation.FROM_SLOT == 1  # the slot's own module
        import bg.engine
        import bg.serialwire

        assert bg.engine.plays is bg.notation.plays and bg.serialwire.HELLO is bg.notation.HELLO
        assert bg.__path__ == builtin  # put back after each lookup
        assert sys.modules["bg.engine"].__file__.find(r) < 0  # built-in, not the slot's
        from bg import dice  # a sub-package through ``from``: built-in

        assert dice.__path__.find(r) < 0
        assert boot.healthy(r, sys.path) and boot.read_state(r) == ("a", "-", 0)
        # the slot fails to start: off the path, hook removed, the built-in modules back
        assert boot.fallback(sys.path, sys.modules, r)
        assert overlay.installed() is None
        import bg.notation as n2

        assert not hasattr(n2, "FROM_SLOT")
    finally:
        _restore(snap)
        update_helpers.rm(r)


def test_slot_ahead_on_the_path_hides_the_package():
    # The rule the overlay replaces, shown failing: the slot's directory first on sys.path.
    r = update_helpers.root()
    snap = _snapshot()
    try:
        d = r + "/fw/a/bg"
        os.mkdir(r + "/fw")
        os.mkdir(r + "/fw/a")
        os.mkdir(d)
        with open(d + "/notation.py", "wb") as f:
            f.write(_SRC)
        for k in [k for k in sys.modules if k == "bg" or k.startswith("bg.")]:
            del sys.modules[k]
        sys.path.insert(0, r + "/fw/a")
        try:
            import bg.notation  # noqa: F401
        except ImportError as e:
            assert "engine" in str(e), e
        else:
            raise AssertionError("the slot's package found the built-in engine")
    finally:
        _restore(snap)
        update_helpers.rm(r)
