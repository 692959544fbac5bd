"""The hub (``gammon.hub``) against the firmware's real link (``app.sock_link`` + ``app.link``
under the MicroPython unix port, tests/mpy/link_server.py: three reference matches, a ROLL
record published every 100 ms): several commands at once over the board's one connection,
a command killed in the middle of a transfer, the socket private to its user, the hub ending
when idle, and a board out of reach giving the error a direct connection gives."""

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import link_scenario as S
import pytest
from gammon import hub
from gammon import link as L
from gammon.hub import wire as W
from test_link_e2e import Server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    run = tempfile.mkdtemp(prefix="gh")  # short: a unix socket's path has ~100 bytes
    monkeypatch.setenv("GAMMON_RUNTIME_DIR", run + "/run")
    monkeypatch.setenv("GAMMON_HUB_IDLE", "2")
    monkeypatch.delenv("GAMMON_NO_DAEMON", raising=False)
    yield Path(run) / "run"
    shutil.rmtree(run, ignore_errors=True)


@pytest.fixture
def board(env):
    s = Server()
    L.pair(s.address, s.code, host_name="hub-test")
    yield s
    hub.release(s.address)
    s.stop()


def hub_pid(address):
    for line in hub.log_path(hub.socket_path(address)).read_text().splitlines():
        if " hub " in line and " for " in line:
            return int(line.split(" hub ")[1].split()[0])
    raise AssertionError("no hub in the log")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_for(cond, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(what)


def test_commands_share_the_one_session_watch_fans_out(board):
    """Two watchers, fetches and lists from other commands at the same time: every answer is
    the asker's, both watchers get the same live records in order, and one board session
    (the hub's) served them all."""
    a = hub.connect(board.address)
    pid = hub_pid(board.address)
    seen = {0: [], 1: []}
    errors = []

    def watcher(i, c):
        try:
            for rec in c.watch():
                seen[i].append(rec)
                if len(seen[i]) >= 25:
                    return
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            errors.append(e)

    b = hub.connect(board.address)
    threads = [threading.Thread(target=watcher, args=(i, c), daemon=True) for i, c in enumerate((a, b))]
    for t in threads:
        t.start()
    for _ in range(3):
        with hub.connect(board.address) as c:
            games = S.list_reference_matches(c)
            assert c.fetch_game(games[0]["id"], resume=False) == S.BIG
            assert c.info()["board_id"] == b"SIMBOARD".hex()
    for t in threads:
        t.join(20)
    assert not errors and all(not t.is_alive() for t in threads), errors
    # the same records in the same order, each watcher from the one it joined at
    common = [r for r in seen[0] if r in seen[1]]
    assert len(common) >= 10 and common == [r for r in seen[1] if r in seen[0]]
    assert a.list_games() and b.list_games()  # the sessions work on after their watch
    a.close()
    b.close()
    assert hub_pid(board.address) == pid  # one hub served every command
    assert (
        sum("logged in" in ln for ln in hub.log_path(hub.socket_path(board.address)).read_text().splitlines())
        == 1
    )


_KILLED_CLIENT = """
import os, signal, sys
from gammon import hub
c = hub.connect(sys.argv[1])
gid = [g for g in c.list_games()][0]["id"]
def progress(done, total):
    if done > 1000:
        os.kill(os.getpid(), signal.SIGKILL)
c.fetch_game(gid, progress=progress, resume=False)
"""


def test_a_command_killed_mid_transfer_does_not_wedge_the_hub(board):
    keep = hub.connect(board.address)  # a watcher that stays through it all
    got = []
    stop = threading.Event()

    def watch():
        for rec in keep.watch():
            got.append(rec)
            if stop.is_set():
                return

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "host_tools"), str(ROOT / "firmware")]))
    for _ in range(2):
        p = subprocess.run(
            [sys.executable, "-c", _KILLED_CLIENT, board.address], env=env, timeout=60, check=False
        )
        assert p.returncode == -signal.SIGKILL
        t0 = time.monotonic()
        with hub.connect(board.address) as c:
            games = S.list_reference_matches(c)
            assert c.fetch_game(games[0]["id"], resume=False) == S.BIG
            assert c.fetch_game(games[1]["id"], resume=False) == b"short finished match"
        assert time.monotonic() - t0 < 5
    after = len(got)
    wait_for(lambda: len(got) >= after + 3, 10, "the watch stopped")  # it goes on through both
    stop.set()
    th.join(20)
    assert not th.is_alive()
    keep.close()


def test_the_socket_is_private_to_its_user(board, env):
    c = hub.connect(board.address)
    path = hub.socket_path(board.address)
    assert stat.S_IMODE(os.stat(env).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and os.stat(path).st_uid == os.getuid()
    if os.getuid() != 0:
        c.close()
        pytest.skip("another user's attempt needs root to become that user")

    def as_nobody():
        """Connect as uid 65534: what the hub says, or the error."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: another user
            try:
                os.close(r)
                os.setgid(65534)
                os.setuid(65534)
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.connect(str(path))
                    s.settimeout(5)
                    got = b""
                    while True:
                        d = s.recv(4096)
                        if not d:
                            break
                        got += d
                    msg = W.Reader().feed(got)
                    out = "answer %r" % (
                        [(k, W.fail_error(a, body)) if k == W.FAIL else k for k, a, _, body in msg],
                    )
                except OSError as e:
                    out = "oserror %d" % e.errno
                os.write(w, out.encode())
            finally:
                os._exit(0)
        os.close(w)
        os.waitpid(pid, 0)
        with os.fdopen(r) as f:
            return f.read()

    import errno

    assert as_nobody() == "oserror %d" % errno.EACCES  # the folder's and the socket's bits
    # opened up to everyone by mistake: the hub still asks the kernel who the peer is
    for p, mode in ((env.parent, 0o755), (env, 0o777), (path, 0o666)):
        os.chmod(p, mode)
    try:
        got = as_nobody()
    finally:
        for p in (env.parent, env, path):
            os.chmod(p, 0o700 if p != path else 0o600)
    assert got.startswith("answer") and "serves only its own user" in got and "READY" not in got
    assert S.list_reference_matches(c)  # the owner's session is unharmed
    c.close()
    # and a folder opened to others is refused before any socket is made in it
    os.chmod(env, 0o755)
    try:
        with pytest.raises(L.LinkError, match="not private"):
            hub.connect(board.address)
    finally:
        os.chmod(env, 0o700)


def test_the_hub_ends_when_idle_and_the_board_is_free_again(board):
    with hub.connect(board.address) as c:
        assert c.list_games()
        pid = hub_pid(board.address)
    path = hub.socket_path(board.address)
    wait_for(lambda: not path.exists() and not alive(pid), 10, "the hub did not end when idle")
    assert not hub.log_path(path).exists()  # a hub that ended well leaves nothing behind
    with L.connect(board.address) as c:  # the board's slot is free: a direct connection logs in
        assert c.list_games()
    # the next command starts a new hub
    with hub.connect(board.address) as c:
        assert c.list_games()
        assert hub_pid(board.address) != pid


def test_a_board_out_of_reach_gives_the_direct_error(env, capsys):
    from gammon import cli

    port = S.free_port()
    address = "tcp:127.0.0.1:%d" % port
    L.Boards().add(b"DEADBORD", "gone", address, os.urandom(8), os.urandom(32))
    with pytest.raises(L.LinkError) as direct:
        L.connect(address)
    with pytest.raises(L.LinkError) as via:
        hub.connect(address)
    assert str(via.value) == str(direct.value) and "cannot connect" in str(via.value)
    # the command says it in one line, whichever way it went
    outs = []
    for extra in ([], ["--direct"]):
        assert cli.main(["board", "info", "--board", address, *extra]) == 2
        outs.append(capsys.readouterr().err)
    assert outs[0] == outs[1] == "gammon: error: %s\n" % direct.value
    with pytest.raises(ValueError, match="not paired"):
        hub.connect("tcp:127.0.0.1:1")
    assert not hub.socket_path(address).exists()  # the hub that could not reach it ended


def test_pair_takes_the_board_from_the_hub(board, monkeypatch, capsys):
    """``gammon pair`` needs the board's only connection: it asks the hub to let go; the
    commands still on the hub hear why, and the next one starts a new hub."""
    from gammon import cli

    c = hub.connect(board.address)
    assert c.list_games()
    pid = hub_pid(board.address)
    monkeypatch.setattr("builtins.input", lambda prompt="": "y")
    assert cli.main(["pair", board.address, "--name", "second"]) == 0, capsys.readouterr()
    assert "paired with" in capsys.readouterr().out
    with pytest.raises(L.LinkError, match="gammon pair"):
        c.list_games()
    c.close()
    wait_for(lambda: not alive(pid), 5, "the hub did not end")
    with hub.connect(board.address) as c2:
        assert [n for _, n in c2.hosts()] == ["hub-test", "second"]


def test_a_peer_sending_garbage_is_dropped_alone(board):
    """Bytes that are no hub message (a length far beyond any board payload, a request before
    HELLO) end that peer's connection; the hub and its other commands go on."""
    c = hub.connect(board.address)
    path = str(hub.socket_path(board.address))
    for junk in (W.HEAD.pack(W.REQ, 1, 0, 1 << 30), W.pack(W.REQ, 0x10, 0, b"\0\0"), b"\xff" * 64):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(junk)
        s.settimeout(5)
        assert s.recv(4096) == b""  # hung up on, nothing answered
        s.close()
    assert S.list_reference_matches(c)
    c.close()
