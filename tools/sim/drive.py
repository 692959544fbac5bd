"""What a test or a benchmark does to a running simulator from outside, as a person or a host
would: a free loopback port for its link, and pairing a host the way the board's owner does
(both ROLL buttons, then ROLL to confirm the number the board shows)."""

import socket
import time


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pair_with_buttons(sim, address, host_name, timeout=10.0):
    """Pair ``host_name`` with the running simulator ``sim`` (``tools.sim.server.Sim``) over its
    link at ``address``: both ROLL buttons held open the pairing window; once the board shows
    the host's number (its console), a ROLL press confirms it. RuntimeError when the board
    shows no number within ``timeout`` seconds."""
    from gammon import link as L

    names = [b["name"] for b in sim.board["buttons"]]
    a, b = names.index("roll0"), names.index("roll1")
    sim.button(a, 1)
    sim.button(b, 1)
    time.sleep(1.2)  # both ROLL buttons held: the pairing window
    sim.button(a, 0)
    sim.button(b, 0)

    def code(value):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            codes = [x.split()[-1] for x in sim.log if x.startswith("pairing code: ")]
            if codes and codes[-1] == value:
                time.sleep(0.3)
                sim.click(a, 0.15)  # the owner presses ROLL: the numbers agree
                return
            time.sleep(0.05)
        raise RuntimeError("no pairing code shown")

    L.pair(address, code, host_name=host_name)
