"""A firmware update end to end: ``gammon board update BUNDLE`` sends a signed bundle of the
whole firmware (compiled for the unix port) to the simulator over its socket link; the board
stores it beside the running firmware; after a restart the simulator's ``main.py`` boots the new
slot, whose own code reports the new version in INFO, and confirms it once healthy. A connection
dropped half-way resumes where it stopped; a version that crashes at start is rolled back at once.

The simulator takes the test's development key through ``SG_FW_KEY`` (the unix port only; an
ESP32 knows only ``bg.update.RELEASE_PUB``)."""

import sys
import time
from pathlib import Path

import link_scenario as S
from gammon import cli, fwupdate
from gammon import link as L
from gammon import release as R

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "sim"))
sys.path.insert(0, str(ROOT / "tools"))

import deploy  # noqa: E402
import release as T  # noqa: E402
import server  # noqa: E402


def _pair(sim, address):
    S.pair_with_buttons(sim, address, "updater")
    end = time.monotonic() + 5
    while not any("pairing confirmed" in x for x in sim.log) and time.monotonic() < end:
        time.sleep(0.05)


def _start(tmp_path, port):
    # A slot's modules are .mpy files on the filesystem: the unix port loads their code into
    # the heap (the built-in firmware runs from the ROM image), so the heap is made roomy here
    # (docs/update.md: the ROMFS-image bundle that would run in place is not done yet).
    image = str(tmp_path / "flash.lfs")
    sim = server.Sim(image=image, seed="upd", link_port=port, status=False, heap="1024k")
    sim.start()
    end = time.monotonic() + 10
    while not any("link: listening" in x for x in sim.log) and time.monotonic() < end:
        time.sleep(0.05)
    return sim


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
