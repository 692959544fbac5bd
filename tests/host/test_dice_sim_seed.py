"""Dice the board cannot choose, end to end against the running simulator (the real firmware,
``app.main``, under MicroPython, its link on a local socket): a paired host watching the board
sees the new match's commitment (``MATCH_START``) before the opening, sends 16 random bytes
by itself and remembers the commitment; a second host's ``gammon sync`` sends its own; the
board journals each part naming its host and, once a host gave one, mixes none of its own
(a host's part is the last input); after the match ``gammon verify`` passes and says who could
have chosen the dice: with no host *board alone*, with hosts the one that gave the last input,
and to each host whether its own part was the last; a third party's library holding only the
journal sees every part's key (the proofs travel in it). Run on the ROM image and on the board
model (32-bit, the board's 64k)."""

import io
import random
import threading
import time
from pathlib import Path

import link_scenario as S
import pytest
from bg import board as B
from bg import record
from bg.link import E_BUSY
from gammon import link as L
from gammon.cli import main
from gammon.commands.library import watch_loop
from gammon.library import Library
from test_sim_watch import MODES

from tools.sim import demo, server

ROOT = Path(__file__).resolve().parents[2]


def _wait_log(sim, text, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(text in x for x in sim.log):
            return
        time.sleep(0.05)
    raise AssertionError("%r never logged: %s" % (text, sim.log[-10:]))


def _connect(address, tries=5):
    """Connect as a host does that honours E_BUSY's retry time: at 64k the board may still be
    freeing the previous host's connection."""
    for _ in range(tries - 1):
        try:
            return L.connect(address)
        except L.LinkError as e:
            if e.code != E_BUSY:
                raise
            time.sleep(e.retry_ms / 1000.0)
    return L.connect(address)


# (watching hosts, (rom, heap)): the two-host run, the longest, on the board model at 64k
CASES = [(0, MODES[0]), (1, MODES[0]), (2, MODES[1])]


@pytest.mark.parametrize(
    "hosts,mode", CASES, ids=["no-host-rom-image", "one-host-rom-image", "two-hosts-board-model"]
)
def test_watching_hosts_seed_the_dice_and_verify_names_them(tmp_path, monkeypatch, capsys, hosts, mode):
    from gammon.sync import sync

    rom, heap = mode
    names = ["laptop", "phone"][:hosts]

    def be(name):  # this host's key and library
        monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / name / "cfg"))
        monkeypatch.setenv("GAMMON_HOME", str(tmp_path / name / "home"))

    port = S.free_port()
    img = tmp_path / "flash.lfs"
    sim = server.Sim(image=str(img), settings={"length": 1}, seed="dice", link_port=port, heap=heap, rom=rom)
    sim.start()
    address = "tcp:127.0.0.1:%d" % port
    try:
        _wait_log(sim, "link: listening")
        for name in names:
            be(name)
            S.pair_with_buttons(sim, address, name)
        p = demo.Player(sim, random.Random(3))
        sim.physical.set_start()
        sim.send_bits()
        p.pos = B.start_position()
        time.sleep(p.settle)
        res = {}
        if names:
            be(names[0])
            with L.connect(address) as c:

                def watch():
                    try:
                        with Library.open() as lib:
                            watch_loop(c, out=io.StringIO(), clear=False, max_events=2, lib=lib)
                    except Exception as e:  # noqa: BLE001 - reported by the assertion below
                        res["error"] = e

                th = threading.Thread(target=watch, daemon=True)
                th.start()
                time.sleep(1.5)  # the host is watching now
                p.press("roll0")  # IDLE -> the match exists: MATCH_START (its commitment) goes out
                _wait_log(sim, "SEED_PART")  # the host's part, before anyone threw
                th.join(30)
                assert not th.is_alive() and "error" not in res, res
        else:
            p.press("roll0")
        for name in names[1:]:  # the second host syncs while the match waits for its opening
            be(name)
            lines = []
            with _connect(address) as c, Library.open() as lib:
                sync(c, lib, delete=False, out=lines.append)
            assert any("sent a player seed" in x for x in lines), lines
        p.start_game(False)  # the opening press: GAME_START, OPENING (the buttons' part if no host)
        end = None
        while end is None:
            end = p.turn()
        assert p.con.next(("MATCH_END",), timeout=5)
    finally:
        sim.stop()
    [(path, acts, msg, _)] = demo.check_journal(str(img))
    assert msg.startswith("PASS"), msg
    parts = [f for k, f in acts if k == record.SEED_PART]
    kinds = [k for k, _ in acts]
    assert kinds[: 2 + max(1, hosts)] == [record.MATCH_START] + [record.SEED_PART] * max(1, hosts) + [
        record.GAME_START
    ]
    if hosts:  # no part of the board's own after the hosts'
        assert [f[:2] for f in parts] == [(1, n) for n in names], parts
    else:
        assert [f[:2] for f in parts] == [(2, "")], parts
    f = tmp_path / "match.m"
    f.write_bytes(b"".join(record.encode(k, fl) for k, fl in acts))
    mid = acts[0][1][0]
    for i, name in enumerate(names):
        be(name)
        with Library.open() as lib:
            assert lib.remembered_commitment(mid) == (acts[0][1][9], parts[i][2])
        capsys.readouterr()
        # the hosts after this one watched too: vouched for (a part nobody vouches for fails)
        vouch = [a for n in names[i + 1 :] for a in ("--after-me", n)]
        assert main(["verify", str(f)] + vouch) == 0
        out = capsys.readouterr().out
        assert "host '%s' gave the last input" % names[-1] in out, out
        if i == hosts - 1:
            assert "this host's part is the last input: the board could not have chosen" in out, out
        else:
            assert "this host's part is in, but host '%s' came after it" % names[-1] in out, out
    if hosts:  # a third party with the journal alone: each part's proof travelled in it
        be("third")
        with Library.open() as lib:
            lib.store(f.read_bytes(), board="board")
        capsys.readouterr()
        assert main(["verify", mid.hex()]) == 0  # nothing remembered here, no proof files
        out = capsys.readouterr().out
        assert [len(x) for x in parts] == [4] * hosts and out.count("signature holds") == hosts, out
        assert "the last host part is key" in out and "unproven" not in out, out
    if not hosts:
        capsys.readouterr()
        assert main(["verify", str(f)]) == 0
        out = capsys.readouterr().out
        assert "dice chosen by: board alone: the board could have chosen these dice" in out, out
