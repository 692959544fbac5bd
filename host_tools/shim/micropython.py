"""CPython stand-in for MicroPython's ``micropython`` module.

Only on CPython's path (the host tool and pytest put ``host_tools/shim`` there), so the
portable core in ``firmware/bg`` runs unchanged on both interpreters. Every decorator is
the identity: on CPython there is no native or viper emitter, and the code must already be
correct without them.
"""


def const(value):
    """``micropython.const``: on CPython just the value."""
    return value


def native(func):
    return func


def viper(func):
    return func


def ptr8(buf):
    """Viper's byte pointer; a bytearray already indexes like one."""
    return buf


def ptr16(buf):
    return buf


def ptr32(buf):
    return buf


def opt_level(level=None):
    return 0 if level is None else None


def mem_info(verbose=False):
    return None


def qstr_info(verbose=False):
    return None


def stack_use():
    return 0


def heap_lock():
    return 0


def heap_unlock():
    return 0


def kbd_intr(chr):
    return None


def schedule(func, arg):
    """Run the callback now: CPython has no hard IRQs to defer from."""
    func(arg)
