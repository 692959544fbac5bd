"""End to end over the simulator transport: the firmware's link (``app.sock_link`` +
``app.link`` + ``bg.link*``) runs under the real MicroPython unix port as a subprocess; the
host tool's ``gammon.link`` pairs, authenticates, lists, fetches (interrupted and resumed),
deletes, reveals, watches, sets the clock and renames. An unpaired client and a replayed
session are refused."""

import hashlib
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import link_scenario as S
import pytest
from bg import link as P
from gammon import link as L

from tools import mpy

ROOT = Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, store="memory"):
        self.port = S.free_port()
        self.proc = subprocess.Popen(
            mpy.command([ROOT / "tests" / "mpy" / "link_server.py", self.port, store], "256k"),
            env=mpy.environ(["tests/mpy"]),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self.lines = []
        self.shown = 0
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(20):
            self.stop()
            raise RuntimeError("link server did not start:\n" + "\n".join(self.lines))
        self.address = "tcp:127.0.0.1:%d" % self.port

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())
            if line.startswith("READY"):
                self.ready.set()

    def code(self, value):
        """The host's ``show_value``: the board must show (print) the same number; its
        owner (``link_server.Owner``) then presses ROLL."""
        for _ in range(100):
            codes = [ln.split()[1] for ln in self.lines if ln.startswith("CODE ")]
            if len(codes) > self.shown:
                self.shown = len(codes)
                assert codes[-1] == value, (codes[-1], value)
                return
            time.sleep(0.05)
        raise AssertionError("no code shown")

    def stop(self):
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    s = Server()
    yield s
    s.stop()


def test_pair_list_fetch_resume_delete_reveal_watch(server):
    bid = L.pair(server.address, server.code, host_name="test-host")
    assert bid == b"SIMBOARD".hex()
    saved = L.Boards().find(None)[1]
    assert saved["address"] == server.address and len(bytes.fromhex(saved["key"])) == 32
    assert (Path(os.environ["GAMMON_CONFIG_DIR"]) / "boards.json").stat().st_mode & 0o077 == 0

    with L.connect() as c:  # the default board
        games = S.list_reference_matches(c)
        S.abandon_fetch(c, games)
    # a new connection resumes from the bytes already received
    with L.connect(server.address) as c:
        S.resume_fetch(c, games, 2000 + 400)  # the first new chunk ends beyond what was kept

        assert c.reveal_seed(games[0]["id"]) == b"S" * 32
        with pytest.raises(L.LinkError) as e:
            c.reveal_seed(games[2]["id"])
        assert e.value.code == P.E_STATE

        S.delete_only_finished(c, games)

        ticks = []
        for rec in c.watch():
            ticks.append(rec)
            if len(ticks) == 3:
                break
        from bg import record

        acts = [a for t in ticks for a in record.decode_stream(t)]
        assert [k for k, f in acts] == [record.ROLL] * 3  # whole records, one action each
        sides = [f[0] for k, f in acts]
        assert sides[0] != sides[1] != sides[2] and all(1 <= f[1] <= 6 and 1 <= f[2] <= 6 for k, f in acts)
        assert c.list_games()  # the session still works after leaving watch

        t = c.set_clock(1800000000)
        assert t == 1800000000
        c.rename("Salon")
        assert c.info()["name"] == "Salon"
        assert c.hosts()[0][1] == "test-host"
    assert any(ln == "CLOCK 1800000000" for ln in server.lines)


def test_unpaired_client_is_refused(server):
    with L.Client(L.open_transport(server.address)) as c:
        info = c.info()
        assert info["authenticated"] is False and info["name"] == "Sim board"
        S.stranger_refused_then_backs_off(c)
    with pytest.raises(ValueError):
        L.connect(server.address)  # not paired: refused before any traffic


def test_pairing_while_another_host_pairs_says_busy_and_not_to_press(server):
    with L.Client(L.open_transport(server.address)) as stranger:
        stranger._send(stranger.host.pair_start(b"STRANGER", "laptop"))  # holds the pairing
        stranger._check(stranger._next(10), P.RSP | P.REQ_PAIR_START)
        with L.Client(L.open_transport(server.address)) as c:
            with pytest.raises(L.LinkError) as e:
                c.pair("owner", server.code)
            assert e.value.code == P.E_BUSY and "do NOT press" in str(e.value)
    assert not any(ln.startswith("CODE ") for ln in server.lines)  # nothing was shown


def test_replayed_session_is_refused(server):
    L.pair(server.address, server.code, host_name="victim")
    with L.connect(server.address) as c:
        ids = [g["id"] for g in c.list_games()]
        c.delete_games([S.stored(c, ids[1])])
        captured = list(c.sent)
    with L.connect(server.address) as c:
        assert len(c.list_games()) == 2
    # an eavesdropper replays the whole captured session on a new connection
    replies = []
    with socket.create_connection(("127.0.0.1", server.port), timeout=2) as s:
        dec = P.Decoder()
        for f in captured:
            s.sendall(f)
            time.sleep(0.05)
        time.sleep(0.3)
        s.settimeout(0.5)
        try:
            while True:
                data = s.recv(4096)
                if not data:
                    break
                dec.feed(data)
        except TimeoutError:
            pass
        r = dec.next()
        while r is not None:
            replies.append(r[1])
            r = dec.next()
    errors = [P.parse_error(fr.payload)[0] for fr in replies if fr.type == P.ERROR]
    assert P.E_DENIED in errors and P.E_AUTH in errors
    assert not any(fr.type == (P.RSP | P.REQ_LIST) or fr.type == (P.RSP | P.REQ_DELETE) for fr in replies)


def test_cli_pair_boards_and_board_info(server, tmp_path):
    gammon = str(Path(sys.executable).parent / "gammon")
    p = subprocess.Popen(
        [gammon, "pair", server.address, "--name", "cli-host"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = p.communicate("y\n", timeout=30)
    assert p.returncode == 0, err
    assert "paired with Sim board" in out
    shown = [ln.split()[1] for ln in server.lines if ln.startswith("CODE ")]
    assert "Pairing number: %s %s" % (shown[-1][:3], shown[-1][3:]) in out  # the same number
    assert "press its ROLL button" in out
    out = subprocess.run([gammon, "boards"], capture_output=True, text=True, check=True).stdout
    assert "* " + b"SIMBOARD".hex() in out and server.address in out
    r = subprocess.run([gammon, "board", "info", "--board", "Sim board"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "game " + b"MATCH003".hex() in r.stdout and "live" in r.stdout
    r = subprocess.run([gammon, "board", "info", "--board", "nope"], capture_output=True, text=True)
    assert r.returncode == 2 and "no paired board" in r.stderr


def test_journal_backed_board(tmp_path, monkeypatch):
    """The same link over a store on the real journal (bg.journal files on disk)."""
    from bg import record
    from bg.journal import Journal

    root = tmp_path / "flash"
    root.mkdir()
    j = Journal(str(root))
    j.open()
    done, live = b"J0000001", b"J0000002"
    j.begin_match((done, 1767225600, 0, 0, 0, 0, 0, "Ann", "Bo", bytes(32), b""), b"Z" * 32)
    j.append(record.TURN, (0, 3, 1, (8, 5, 6, 5), 0))
    j.end_match(0, 1, 0)
    j.begin_match((live, 1767225601, 0, 0, 0, 0, 0, "Ann", "Bo", bytes(32), b""), b"Y" * 32)
    expected = (root / "journal" / (done.hex() + ".m")).read_bytes()

    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    s = Server("journal:" + str(root))
    try:
        L.pair(s.address, s.code, host_name="j-host")
        assert (root / "link" / "hosts").exists()  # the pairing key is stored next to the journal
        with L.connect(s.address) as c:
            games = {g["id"]: g for g in c.list_games()}
            assert games[done.hex()]["finished"] and not games[live.hex()]["finished"]
            data = c.fetch_game(done.hex())
            assert data == expected
            kinds = [k for k, _ in record.decode_stream(data)]
            assert kinds[0] == record.MATCH_START and record.SEED_REVEAL in kinds
            assert c.reveal_seed(done.hex()) == b"Z" * 32
            with pytest.raises(L.LinkError):
                c.reveal_seed(live.hex())  # the live seed never leaves the board
            with pytest.raises(L.LinkError):
                c.delete_games([S.stored(c, live.hex())])
            assert c.delete_games([(done.hex(), hashlib.sha256(data).digest())]) == 1
            c.rename("Flash board")
        assert not (root / "journal" / (done.hex() + ".m")).exists()
        assert (root / "link" / "name").read_bytes() == b"Flash board"
    finally:
        s.stop()


def test_unauthenticated_connection_is_dropped(server):
    """A connection that never authenticates does not keep the board's link: the board ends
    it after ``UNAUTH_MS`` (the stranger holding BLE's single connection slot)."""
    host, port = server.address[4:].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=P.UNAUTH_MS / 1000.0 + 10) as sk:
        start = time.monotonic()
        assert sk.recv(100) == b""  # EOF: the board closed it
        took = time.monotonic() - start
    assert took >= P.UNAUTH_MS / 1000.0 - 1.0, took
