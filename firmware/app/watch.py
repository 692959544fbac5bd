"""The board's watchdog wiring: the crash log at boot and the supervisor (``app.supervisor``)
over the HAL's watchdog. ``app.main`` calls these; the logic lives in ``app.supervisor`` and
``bg.crashlog``.

- ``boot_log(hw, log)``: once per boot, first thing (the storage is mounted by the HAL): one
  crash-log entry with ``hw.reset_cause()`` (power-on, watchdog, brownout...).
- ``start(app, booted, on_healthy)``: for ``app.main.App`` after its boot: the
  supervisor with the five essential tasks registered (``SCAN``, ``BUTTONS``, ``LEDS``,
  ``CLOCK``, ``RECOGNISE``: the app's loops call ``beat``), the scanner's heartbeat wired.
- ``link(sup, hub)``: the link as a sixth essential task when it has long-lived links (BLE,
  serial), once their coroutines exist.
- ``supervisor(hw, crashlog, log, on_healthy)``: arms the hardware watchdog
  (``WDT_TIMEOUT_MS``) and returns the ``Supervisor`` that alone feeds it; in the simulator
  it also wires the test hook (``hal.sim.Faults``).
"""

from app.supervisor import WDT_TIMEOUT_MS, Supervisor
from bg import forget
from micropython import const

# the essential tasks, in the order ``start`` registers them (``Supervisor.beat`` indices)
SCAN = const(0)
BUTTONS = const(1)
LEDS = const(2)
CLOCK = const(3)
RECOGNISE = const(4)
NAMES = ("scan", "buttons", "leds", "clock", "recognise")


def boot_log(hw, log):
    """The boot's crash-log entry; returns ``(storage root or None, (CAUSE_TASK_DIED,
    CAUSE_TASK_HUNG))`` for ``start``. Called first thing at boot: its module and its ~3 kB
    of work come and go before anything that stays is allocated (no hole in the 64k heap)."""
    from bg.crashlog import CAUSE_NAMES, CAUSE_TASK_DIED, CAUSE_TASK_HUNG, CrashLog

    causes = (CAUSE_TASK_DIED, CAUSE_TASK_HUNG)
    if not hw.storage.ok():
        forget("bg.crashlog")
        return None, causes
    cause = hw.reset_cause()
    try:
        CrashLog(hw.storage.root).add(cause, "", hw.clock.unix_time())
    except OSError as e:  # storage full...: the board plays on without the entry
        log("crash log: not written (errno %s)" % (e.args[0] if e.args else "?",))
    log("reset cause: %s" % (CAUSE_NAMES[cause] if 0 <= cause < len(CAUSE_NAMES) else cause,))
    forget("bg.crashlog")  # bg.crashlog: loaded again only to write (a task failed)
    return hw.storage.root, causes


def supervisor(hw, crashlog, log, on_healthy=None, causes=None):
    sup = Supervisor(
        hw.watchdog(WDT_TIMEOUT_MS),
        hw.clock,
        crashlog,
        log,
        on_healthy,
        unix_time=hw.clock.unix_time,
        causes=causes,
    )
    faults = getattr(hw, "faults", None)  # the simulator's test hook only
    if faults is not None:
        sup.fault = faults.hit
    return sup


def start(app, booted, on_healthy=None):
    """The supervisor for ``app`` after its boot; ``booted`` is what ``boot_log`` returned."""
    sup = supervisor(app.hw, booted[0], app.log, on_healthy, booted[1])
    for n in NAMES:
        sup.watch(n)
    app.scanner.beat = lambda: sup.beat(SCAN)
    return sup


def link(sup, hub):
    """The link as an essential task when the board has a long-lived one (BLE, the USB serial
    port): each of its links beats; a link stuck (or its task dead) stops the feeding. The
    simulator's socket links come and go with their hosts: not watched alone."""
    if hub is None or not hub.links:
        return None
    i = sup.watch("link")

    def beat():
        sup.beat(i)

    hub.beat = beat
    for lk in hub.links:
        lk.beat = beat
    return i
