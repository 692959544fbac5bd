"""The portable core of the smart backgammon board (runs on MicroPython and CPython)."""


def forget(name):
    """Drop the module ``name`` (``"bg.journal.pack"``) from ``sys.modules`` and from its
    package, so that the collector takes its objects back once nothing else holds them; the
    next import loads it again from flash (its qstrs stay interned). The one way the firmware
    lets a module go after a rare job (``bg`` and ``app`` alike). The package's attribute is set
    to None before it is deleted: MicroPython's map keeps a deleted name's value in its slot,
    where the collector still finds it (docs/memory.md)."""
    import sys

    if sys.modules.pop(name, None) is not None:
        pkg, _, mod = name.rpartition(".")
        p = sys.modules.get(pkg)
        if p is not None and mod in p.__dict__:
            setattr(p, mod, None)  # (in place: the name is there, the package's dict keeps its size)
            delattr(p, mod)
