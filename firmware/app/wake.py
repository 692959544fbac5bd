"""A loop's wait that another task ends early: the LED frame loop's, the engine task's and every
link transport's (the simulator's socket, each BLE connection) between rounds.

``wait(ms)`` sleeps up to ``ms``; ``set()`` (a transport's ``wake()``) cancels that sleep. It is
called from a task, never an interrupt: it touches the task queue. A ``set()`` while nobody
waits makes the next wait return at once; ``wait`` returns with the flag cleared, and
``clear()`` drops a ``set()`` made before. A cancel that is no ``set()`` still ends the task.

Allocation: the wait holds nothing but its own task's sleep. ``asyncio.wait_for_ms`` on an
``Event`` made two tasks and a closure for every wait, ~0.6 kB of the board's heap held while a
loop waits (docs/memory.md). One small module, so the frame loop does not import the link for it
and the link does not import the engine task.

Example::

    w = Wake()
    await w.wait(250)  # in the loop: returns after 250 ms, or at once after w.set()
"""

import asyncio


class Wake:
    def __init__(self):
        self.flag = False
        self.sleeper = None  # the task sleeping in wait(), while it sleeps

    def set(self):
        self.flag = True
        t = self.sleeper
        if t is not None:
            self.sleeper = None
            t.cancel()

    wake = set  # a link transport's name for it (app.link: ``Hub.publish`` wakes a transport)

    def clear(self):
        self.flag = False

    async def wait(self, ms):
        if not self.flag:
            self.sleeper = asyncio.current_task()
            try:
                await asyncio.sleep_ms(ms)
            except asyncio.CancelledError:
                if not self.flag:
                    raise  # cancelled by someone else: the task is to end
            self.sleeper = None
        self.flag = False
