"""The link as an essential task (``app.watch.link``): a board with a long-lived link (BLE,
USB serial) registers it with the supervisor, every link round beats; a link stuck in its
transport stops the feeding; a board without one (or the simulator's socket alone) does not
watch a link that is not there."""

import asyncio

from app import watch
from app.link import Hub
from app.supervisor import Supervisor


class Clock:
    def __init__(self):
        self.t = 0

    def ticks_ms(self):
        return self.t

    def ticks_diff(self, a, b):
        return a - b


class Wdt:
    feeds = 0

    def feed(self):
        self.feeds += 1


class Transport:
    """A transport with nothing to say; ``stuck`` makes its wait never return (a radio
    driver that hangs)."""

    conn = None
    mtu = 185

    def __init__(self):
        self.stuck = False
        self.rounds = 0

    async def wait(self, ms):
        if self.stuck:
            await asyncio.Event().wait()
        self.rounds += 1
        await asyncio.sleep(0)

    def read(self):
        return None


def _sup():
    clock = Clock()
    return Supervisor(Wdt(), clock), clock


def test_no_long_lived_link_is_not_watched():
    sup, _ = _sup()
    assert watch.link(sup, None) is None
    assert watch.link(sup, Hub(None)) is None  # the simulator's socket: no link until a host
    assert sup.names == []


def test_a_stuck_link_stops_the_feeding():
    sup, clock = _sup()
    for n in watch.NAMES:
        sup.watch(n)
    hub = Hub(None)
    t = Transport()
    link = hub.add(t)
    i = watch.link(sup, hub)
    assert sup.names[i] == "link"
    later = hub.add(Transport())  # a link added later beats too
    assert later.beat is link.beat is not None

    async def main():
        task = asyncio.create_task(link.run())
        for _ in range(3):
            for _ in range(5):
                await asyncio.sleep(0)
            clock.t += 1000
            for k in range(len(watch.NAMES)):
                sup.beat(k)
            assert sup.step(), sup.failed
        t.stuck = True
        for _ in range(5):
            await asyncio.sleep(0)
        ok = True
        for _ in range(6):
            clock.t += 1000
            for k in range(len(watch.NAMES)):
                sup.beat(k)
            ok = sup.step()
            await asyncio.sleep(0)
        link.running = False
        task.cancel()
        return ok

    assert asyncio.run(main()) is False
    assert t.rounds >= 3
    assert sup.failed[1].startswith("link: no progress")
