"""The owner always gets through: three strangers reconnect to the simulator's link port every
2 ms while the paired owner runs ``gammon board info`` 50 times and ``gammon sync`` 5 times.
The real simulator (``app.main``: scanner, controller, journal, link) runs on the 64-bit port
and on the board model (32-bit, firmware frozen, the board's heap). At least 99% of the
owner's commands succeed: an authenticating host with a known key takes the slot from an
unauthenticated holder at once (``app.sock_link``), strangers' reconnects are rate-limited,
and ``gammon`` retries E_BUSY with a bounded back-off (``gammon.link.connect``)."""

import io
import random
import socket
import threading
import time
from contextlib import redirect_stderr, redirect_stdout

import link_scenario as S
import pytest
from bg import link as P
from gammon import cli

test_link_e2e = pytest.importorskip("test_link_e2e")
from tools.sim import server  # noqa: E402

STRANGER_S = 30.0  # the owner's commands are spread over this long, the strangers churning
INFOS, SYNCS = 50, 5


class Churn:
    """``n`` strangers, each in its own thread: connect, send an INFO request (or a few random
    bytes), hang up 2 ms later, again, until ``stop()`` (at most ``seconds``). ``connects``
    counts the connections the board accepted."""

    def __init__(self, port, n=3, seconds=STRANGER_S + 60):
        self.port = port
        self.end = time.monotonic() + seconds
        self.connects = 0
        self.done = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(n)]
        for t in self.threads:
            t.start()

    def _run(self, i):
        rng = random.Random(i)
        info = P.encode_frame(P.REQ_INFO, 1, b"")
        while time.monotonic() < self.end and not self.done.is_set():
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=1)
                self.connects += 1
                s.sendall(info if rng.random() < 0.5 else rng.randbytes(rng.randint(1, 40)))
                time.sleep(0.002)
                s.close()
            except OSError:
                time.sleep(0.002)

    def stop(self):
        self.done.set()
        for t in self.threads:
            t.join(STRANGER_S + 5)


def owner_runs(commands, seconds=0.0):
    """Run the owner's ``gammon`` commands in turn, spread over ``seconds``; returns ``(ok,
    failures)``."""
    ok, failed = 0, []
    t0 = time.monotonic()
    for k, argv in enumerate(commands):
        time.sleep(max(0.0, t0 + k * seconds / len(commands) - time.monotonic()))
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = cli.main(argv)
        if rc == 0:
            ok += 1
        else:
            failed.append((argv, err.getvalue().strip()))
    return ok, failed


@pytest.mark.parametrize("rom", [True, "board"], ids=["rom-image", "board-model"])
def test_the_owner_gets_through_strangers_reconnecting_every_2ms(tmp_path, monkeypatch, rom):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    port = S.free_port()
    image = str(tmp_path / "flash.lfs")
    sim = server.Sim(image=image, settings={"length": 3}, seed="owner", link_port=port, rom=rom)
    sim.start()
    try:
        end = time.monotonic() + 10
        while not any("link: listening" in x for x in sim.log) and time.monotonic() < end:
            time.sleep(0.05)
        address = "tcp:127.0.0.1:%d" % port
        S.pair_with_buttons(sim, address, "owner")
        churn = Churn(port)
        time.sleep(0.5)  # the strangers are at it
        cmds = [["board", "info"]] * INFOS
        for k in range(SYNCS):  # a sync after every tenth info
            cmds.insert(11 * k + 10, ["sync"])
        t0 = time.monotonic()
        try:
            ok, failed = owner_runs(cmds, STRANGER_S)
        finally:
            churn.stop()
        rate = ok / len(cmds)
        print(
            "owner: %d of %d succeeded (%.1f%%) in %.1f s, %d stranger connections"
            % (ok, len(cmds), 100 * rate, time.monotonic() - t0, churn.connects)
        )
        assert time.monotonic() - t0 >= STRANGER_S - 1
        assert churn.connects > 3000, churn.connects  # the strangers really churned
        assert rate >= 0.99, failed[:5]
        # every failure says why, in words the owner can act on
        assert all("busy" in why or "answer" in why for _, why in failed), failed
        assert sim._proc.poll() is None
        assert not [x for x in sim.log if "Traceback" in x], sim.log[-30:]
    finally:
        sim.stop()


def test_a_stranger_pairing_first_is_ended_and_the_owner_told_not_to_press(tmp_path, monkeypatch):
    """The pairing race on the real simulator: the owner opens the window, a stranger named
    like the owner's host starts a pairing first and the board shows its number; the
    owner's ``gammon pair`` then prints "do NOT press" (not "busy: too many connections")
    and shows no number, the stranger's number goes away, its host is told, nothing is
    stored; afterwards the owner pairs."""
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setattr("builtins.input", lambda prompt="": "y")
    port = S.free_port()
    sim = server.Sim(image=str(tmp_path / "flash.lfs"), settings={"length": 3}, seed="race", link_port=port)
    sim.start()
    try:
        end = time.monotonic() + 10
        while not any("link: listening" in x for x in sim.log) and time.monotonic() < end:
            time.sleep(0.05)
        address = "tcp:127.0.0.1:%d" % port
        names = [b["name"] for b in sim.board["buttons"]]
        a, b = names.index("roll0"), names.index("roll1")
        sim.button(a, 1)
        sim.button(b, 1)
        time.sleep(1.2)  # the owner opens the pairing window
        sim.button(a, 0)
        sim.button(b, 0)
        from gammon import link as L

        stranger = L.Client(L.open_transport(address))
        stranger._send(stranger.host.pair_start(b"STRANGER", "owner"))
        ch = stranger._check(stranger._next(10), P.RSP | P.REQ_PAIR_START)
        stranger._send(stranger.host.pair_confirm(ch))
        end = time.monotonic() + 10
        while not any(x.startswith("pairing code: ") for x in sim.log) and time.monotonic() < end:
            time.sleep(0.05)
        assert [x for x in sim.log if x.startswith("pairing code: ")][-1].endswith(stranger.host.value)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = cli.main(["pair", address, "--name", "owner"])
        assert rc != 0 and "Pairing number" not in out.getvalue()  # no number shown
        assert "do NOT press" in err.getvalue() and "too many connections" not in err.getvalue()
        # the stranger's pairing ended: its host was told, the board's number went away
        with pytest.raises(L.LinkError) as e:
            stranger._check(stranger._next(5), P.RSP | P.REQ_PAIR_CONFIRM)
        assert e.value.code == P.E_BUSY
        stranger.close()
        shown = [i for i, x in enumerate(sim.log) if x.startswith("pairing code: ")][-1]
        assert "pairing closed" in sim.log[shown:]
        assert not L.Boards().data["boards"]
        time.sleep(2.1)  # the board's rate limit: one PAIR_START per 2 s
        S.pair_with_buttons(sim, address, "owner")
        with L.connect(address) as c:
            assert c.info()["authenticated"]
    finally:
        sim.stop()
