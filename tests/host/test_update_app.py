"""A whole firmware as a new app image, on the board model at the board's 64k.

The board model's flash is faked as the ESP32's (``hal.sim_ota``: two OTA app partitions and
otadata, files), and the simulator plays the ESP-IDF bootloader (``tools/sim/bootloader.py``):
at each reset it runs the board-model binary held in the partition otadata chooses, and rolls
back an app that reset before it was confirmed. The release is a board-model binary built from a
tree whose firmware is the new version (``tools.board_model.build_release``, once per run).

- update mode, at 64k, receives the app image into the other partition (streamed: the image
  never in RAM), checks it, sets it to boot; the bootloader boots it; the new app plays at 64k,
  becomes healthy and confirms itself; INFO says the new version; the counter rose;
- a power cut during the transfer leaves the old app booting, the match intact;
- an older app image, validly signed, is refused;
- a new app that never becomes healthy is rolled back by the bootloader to the old app, which
  forgets it; the counter does not rise;
- the LEDs say update mode (bg.update.show, read from the simulator's LED frames:
  ``test_update_mode.Lights``): every point dim blue while waiting, a blue bar of the bytes
  received, green once stored, a vermillion blink on a refusal; never a dark board.
"""

import os
import shutil
from pathlib import Path

import link_scenario as S
import pytest
import test_update_mode as M
import update_sim_helpers as U
from gammon import cli, fwupdate
from gammon import release as R
from hal import sim_ota as O

from tools import board_model, mpy
from tools import release as T
from tools.sim import bootloader

ROOT = Path(__file__).resolve().parents[2]
HEAP = "64k"  # every boot: update mode, the old app, the new one
BOOT_PY = ROOT / "firmware" / "bg" / "update" / "boot.py"


def _release(tmp, name, version, counter, healthy=True):
    # the firmware's tree with its version and counter raised, frozen into a board model
    src = tmp / name
    shutil.copytree(ROOT / "firmware", src, ignore=shutil.ignore_patterns("__pycache__"))
    b = src / "bg" / "update" / "boot.py"
    text = b.read_text()
    text = text.replace('BUILTIN = "0.1.0"', 'BUILTIN = "%s"' % version, 1)
    text = text.replace("COUNTER = %d\n" % T.default_counter(), "COUNTER = %d\n" % counter, 1)
    if not healthy:  # a release that never becomes healthy: its trial's deadline is 3 s
        text = text.replace("HEALTHY_MS = 120000", "HEALTHY_MS = 3000", 1)
        u = src / "app" / "update.py"
        body = u.read_text()
        for old, nw in (
            ("    def healthy(self):\n", "    def healthy(self):\n        return\n"),
            ("if alive is not None and alive():", "if False:"),
        ):
            assert old in body
            body = body.replace(old, nw, 1)
        u.write_text(body)
    assert 'BUILTIN = "%s"' % version in text and "COUNTER = %d\n" % counter in text
    b.write_text(text)
    return board_model.build_release(src, name)


@pytest.fixture(scope="session")
def apps(tmp_path_factory):
    """The old app (the board model as built) and two releases of the next counter: one
    healthy (version 4.0.0), one that never is (4.0.1)."""
    try:
        old = mpy.board_model()
    except Exception as e:  # noqa: BLE001 - no 32-bit toolchain here
        pytest.skip("no board model: %s" % e)
    tmp = tmp_path_factory.mktemp("apps")
    c0 = T.default_counter()
    new = _release(tmp, "app-new", "4.0.0", c0 + 1)
    bad = _release(tmp, "app-bad", "4.0.1", c0 + 1, healthy=False)
    return {"old": Path(old), "new": Path(new), "bad": Path(bad), "c0": c0}


def _bundle(tmp_path, seed, image, version, counter):
    p = tmp_path / ("app-%s.gbun" % version)
    p.write_bytes(R.build_bundle(version, T.app_files(image), seed, counter))
    return p


def _board(tmp_path, monkeypatch, apps):
    seed, fw_root = U.setup(tmp_path, monkeypatch)
    ota = tmp_path / "flash-ota"
    bootloader.flash(ota, apps["old"])
    port = S.free_port()
    sim = M.ModeSim(
        fw_root, HEAP, image=str(tmp_path / "flash.lfs"), seed="app", link_port=port, ota=str(ota)
    )
    sim.start()
    assert M._wait(lambda: any("link: listening" in x for x in sim.log), 15), sim.log[-10:]
    return sim, seed, fw_root, ota, "tcp:127.0.0.1:%d" % port


def _counter(fw_root):
    p = fw_root / "fw" / "counter"
    return int(p.read_text()) if p.exists() else None


def test_app_image_installs_boots_at_64k_and_only_goes_forward(tmp_path, monkeypatch, capsys, apps):
    sim, seed, fw_root, ota, address = _board(tmp_path, monkeypatch, apps)
    c0 = apps["c0"]
    new = _bundle(tmp_path, seed, apps["new"], "4.0.0", c0 + 1)
    older = _bundle(tmp_path, seed, apps["old"], "0.0.9", c0)
    blob = new.read_bytes()
    try:
        match = M._game(sim, address)
        assert sim.booted == ["ota_0"]
        # a power cut a third of the way through the image: the old app boots, the match intact
        with M._into_mode(sim, address, blob) as c:
            assert fwupdate.send(c.call, blob, stop_at=len(blob) // 3) is None
            sim.restart("power")
        assert M._wait(lambda: len(sim.booted) == 3 and not sim.heaps[-1][1], 30), sim.log[-20:]
        assert sim.booted == ["ota_0"] * 3 and O.read_otadata(str(ota) + "/")[0][0] == 0
        with U.connect(address) as c:
            assert c.info()["firmware"] == "0.1.0"
        mid, size = M._live(address)
        assert mid == match[0] and size >= match[1]
        # the whole image through update mode at 64k: the bootloader boots it from ota_1
        capsys.readouterr()
        boots, booted = len(sim.heaps), len(sim.booted)
        lights = M.Lights(sim)
        assert cli.main(["board", "update", str(new)]) == 0, sim.log[-20:]
        out = capsys.readouterr().out
        assert "version 4.0.0 pending" in out, out
        # after the reboot the image was sent again from its first byte (its header kept)
        first = [ln for ln in out.splitlines() if "bytes (" in ln][0]
        assert int(first.split("/")[0]) < len(blob) // 3, out
        # (the simulator counts a boot's heap before the bootloader has chosen and copied its app)
        assert M._wait(lambda: len(sim.heaps) == boots + 2 and len(sim.booted) == booted + 2, 60), sim.log[
            -20:
        ]
        assert sim.booted[-2:] == ["ota_0", "ota_1"], (sim.booted, sim.log[-30:])
        assert all(h == HEAP for h, _ in sim.heaps)
        assert M._count(sim, "fw: update mode: 4.0.0, restarting") == 1, sim.log[-20:]
        with U.connect(address) as c:
            assert c.info()["firmware"] == "4.0.0", sim.log[-20:]
        # the LEDs: waiting, then a bar that only grows (a frame every 100 ms), then stored
        # (green, held before the restart), then the game again; never dark
        seen = M._mode_frames(lights.close())
        assert seen[0] == ("wait",) and ("done",) in seen, seen
        bars = [f[1] for f in seen if f[0] == "bar"]
        assert bars and bars == sorted(bars) and 0 < bars[-1] <= 12, seen
        done = seen.index(("done",))
        assert all(f == ("done",) for f in seen[done:]) and ("dark",) not in seen, seen
        # healthy: confirmed to the bootloader, the counter raised, fw/app gone
        assert M._wait(lambda: _counter(fw_root) == c0 + 1, 30), sim.log[-20:]
        e = O.read_otadata(str(ota) + "/")
        assert [O.label_of(s) for s, st in e if st == O.VALID] == ["ota_1"], e
        assert not (fw_root / "fw" / "app").exists()
        # the new app resumed the match
        mid, size = M._live(address)
        assert mid == match[0] and size >= match[1]
        # a reset: the confirmed app boots again
        sim.restart("power")
        assert M._wait(
            lambda: sim.booted[-1] == "ota_1" and any("link: listening" in x for x in sim.log[-5:]), 30
        )
        with U.connect(address) as c:
            assert c.info()["firmware"] == "4.0.0"
        # an older app image, validly signed: refused, and the board goes back to its game
        capsys.readouterr()
        lights = M.Lights(sim)
        assert cli.main(["board", "update", str(older)]) == 2
        err = capsys.readouterr().err
        assert "downgrade refused" in err and "counter %d < board's %d" % (c0, c0 + 1) in err, err
        M._back_to_game(sim)
        # the refusal on the LEDs (at the header, within a frame or two of the restart): the
        # players' halves blink vermillion in turn, then waiting until update mode gives way;
        # nothing green, never dark
        seen = M._mode_frames(lights.close())
        assert seen[0] == ("wait",) and ("done",) not in seen and ("dark",) not in seen, seen
        blink = [i for i, f in enumerate(seen) if f[0] == "refused"]
        assert len(blink) >= 5 and {seen[i] for i in blink} == {("refused", 0), ("refused", 1)}, seen
        assert set(seen[blink[-1] + 1 :]) == {("wait",)}, seen
        assert [m for _, m in sim.heaps].count(True) == 3  # the cut, the image, the refusal
        assert sim.booted[-1] == "ota_1" and _counter(fw_root) == c0 + 1
        with U.connect(address) as c:
            assert c.info()["firmware"] == "4.0.0"
    finally:
        sim.stop()


def test_app_never_healthy_is_rolled_back_by_the_bootloader(tmp_path, monkeypatch, capsys, apps):
    sim, seed, fw_root, ota, address = _board(tmp_path, monkeypatch, apps)
    bad = _bundle(tmp_path, seed, apps["bad"], "4.0.1", apps["c0"] + 1)
    try:
        M.S.pair_with_buttons(sim, address, "updater")
        assert M._wait(lambda: any("pairing confirmed" in x for x in sim.log), 10), sim.log[-10:]
        assert cli.main(["board", "update", str(bad)]) == 0, sim.log[-20:]
        # the new app boots (ota_1), misses its deadline, resets; the bootloader rolls it back
        ok = M._wait(lambda: sim.booted[-3:] == ["ota_0", "ota_1", "ota_0"], 60)
        assert ok, (sim.booted, sim.log[-20:])
        assert M._wait(lambda: M._count(sim, "fw: the new app was rolled back") == 1, 20), sim.log[-20:]
        e = O.read_otadata(str(ota) + "/")
        assert [st for s, st in e if s and O.label_of(s) == "ota_1"] == [O.ABORTED], e
        with U.connect(address) as c:
            assert c.info()["firmware"] == "0.1.0"
        assert _counter(fw_root) is None and not (fw_root / "fw" / "app").exists()
        # and stays there at the next reset
        sim.restart("power")
        assert M._wait(lambda: len(sim.booted) == 5, 30) and sim.booted[-1] == "ota_0"
    finally:
        sim.stop()


def _cut_board(tmp_path, monkeypatch, k):
    # a board whose flash (hal.sim_ota) loses power after ``k`` erases and writes
    ota = tmp_path / ("ota-%d" % k)
    old = tmp_path / "old.elf"
    if not old.exists():
        old.write_bytes(b"\x7fELF" + b"old app " * 900)
    bootloader.flash(ota, old)
    monkeypatch.setenv("SG_OTA_DIR", str(ota))
    monkeypatch.setenv("SG_OTA_RUNNING", bootloader.choose(ota))
    root = tmp_path / ("root-%d" % k)
    root.mkdir()
    O.CUT[:] = [k, 0]
    return ota, str(root)


def _received(root, seed, bid, blob):
    # the receiver of a board at ``root``, the whole bundle written in 700-byte chunks (not
    # committed): a power cut of the flash raises from here
    from bg.update.slots import Updater

    u = Updater(root, [], R.public_key(seed), O.Partition)
    u.begin(bid, len(blob))
    off = 0
    while off < len(blob):
        off = u.write(off, blob[off : off + 700])
    return u


def test_power_cut_at_every_flash_operation_leaves_an_app_that_boots(tmp_path, monkeypatch):
    # the receiver and the boot on CPython over the faked partitions, the power cut after every
    # erase and write of the transfer and the commit: the bootloader then boots the old app, or
    # the whole new image on trial (a cut after set_boot), which it rolls back unless confirmed;
    # the counter never rises for an app not confirmed
    from bg.update import boot
    from bg.update.bundle import bundle_id, header_len

    seed = R.new_key()
    image = b"\x7fELF" + bytes(range(256)) * 40 + b"new app"  # 3 blocks and a bit
    blob = R.build_bundle("4.0.0", [("fw.app", image)], seed, 5)
    bid = bundle_id(blob[: header_len(blob)])
    outcomes = set()
    k = 0
    try:
        while True:
            ota, root = _cut_board(tmp_path, monkeypatch, k)
            try:
                _received(root, seed, bid, blob).commit()
                done = True
            except O.PowerCut:
                done = False
            O.CUT[:] = [-1, 0]
            label = bootloader.choose(ota)  # the reset
            monkeypatch.setenv("SG_OTA_RUNNING", label)
            trial = boot.app_start(root, O.Partition)
            assert trial == (label == "ota_1"), (k, label)
            if label == "ota_1":  # only ever the whole image
                assert (ota / "ota_1").read_bytes()[: len(image)] == image
                label = bootloader.choose(ota)  # reset again before confirming: rolled back
                assert label == "ota_0"
                monkeypatch.setenv("SG_OTA_RUNNING", label)
                assert boot.app_start(root, O.Partition) is False
            assert not os.path.exists(root + "/fw/app") and boot.confirmed(root) == boot.COUNTER
            outcomes.add((done, label))
            if done:
                break
            k += 1
    finally:
        O.CUT[:] = [-1, 0]
    assert k > 8 and outcomes == {(False, "ota_0"), (True, "ota_0")}, (k, outcomes)
    # a cut between fw/app and otadata (set_boot): the old app boots and forgets the image
    ota, root = _cut_board(tmp_path, monkeypatch, -2)
    u = _received(root, seed, bid, blob)

    def cut(self):
        raise O.PowerCut("power cut before set_boot")

    monkeypatch.setattr(O.Partition, "set_boot", cut)
    with pytest.raises(O.PowerCut):
        u.commit()
    monkeypatch.undo()
    monkeypatch.setenv("SG_OTA_DIR", str(ota))
    assert os.path.exists(root + "/fw/app") and bootloader.choose(ota) == "ota_0"
    monkeypatch.setenv("SG_OTA_RUNNING", "ota_0")
    assert boot.app_start(root, O.Partition) is False and not os.path.exists(root + "/fw/app")
    assert boot.confirmed(root) == boot.COUNTER
    # uncut, then confirmed: the new app stays and the counter rose
    ota, root = _cut_board(tmp_path, monkeypatch, -1)
    u = _received(root, seed, bid, blob)
    assert u.commit() == "4.0.0"
    monkeypatch.setenv("SG_OTA_RUNNING", bootloader.choose(ota))
    assert boot.app_start(root, O.Partition) and boot.healthy(root, [])
    assert boot.confirmed(root) == 5 and bootloader.choose(ota) == "ota_1"


def test_app_image_resumes_after_a_power_cut_from_its_last_mark(tmp_path, monkeypatch):
    # a cut at about a third of a 200 kB image, then a reboot: the next begin resumes from the
    # last 64 kB mark (a block boundary, all its blocks written), not from byte 0; garbage in
    # the progress file starts again from byte 0; a block changed in the partition behind the
    # receiver's back fails the commit's hash-back: refused, the old app boots, counter unchanged
    from bg.update import boot
    from bg.update.bundle import bundle_id, header_len
    from bg.update.slots import Updater

    seed = R.new_key()
    image = b"\x7fELF" + bytes(range(256)) * 800  # 200 kB: 51 blocks
    blob = R.build_bundle("4.0.0", [("fw.app", image)], seed, 5)
    head = header_len(blob)
    bid = bundle_id(blob[:head])

    def cut_then_resume(n):
        ota, root = _cut_board(tmp_path, monkeypatch, n)  # n < 0: its own flash, no cut yet
        u = Updater(root, [], R.public_key(seed), O.Partition)
        off = u.begin(bid, len(blob))
        O.CUT[:] = [150, 0]  # about a third of the image's erases and writes (8 a block)
        try:
            with pytest.raises(O.PowerCut):
                while off < len(blob):
                    off = u.write(off, blob[off : off + 700])
        finally:
            O.CUT[:] = [-1, 0]
        return ota, root, off

    ota, root, reached = cut_then_resume(-10)
    assert len(blob) // 4 < reached < len(blob) // 2, reached
    u = Updater(root, [], R.public_key(seed), O.Partition)  # the reboot
    off = u.begin(bid, len(blob))
    done = off - head
    assert 0 < done <= reached - head and done % 4096 == 0 and done % 65536 == 0, (done, reached)
    resent = len(blob) - off
    unwritten = len(blob) - reached
    assert resent < unwritten + 65536, (resent, unwritten)
    while off < len(blob):
        off = u.write(off, blob[off : off + 700])
    assert u.commit() == "4.0.0" and bootloader.choose(ota) == "ota_1"
    assert (ota / "ota_1").read_bytes()[: len(image)] == image
    # garbage in the progress file: from the image's first byte, the header kept
    ota, root, reached = cut_then_resume(-11)
    (marks,) = Path(root).rglob(".app")
    for junk in (b"garbage", b"", b"4096", b"99999999 %d" % O.Partition("ota_1").info()[2]):
        marks.write_bytes(junk)
        assert Updater(root, [], R.public_key(seed), O.Partition).begin(bid, len(blob)) == head
    marks.write_bytes(b"65536 12345")  # another partition's address
    assert Updater(root, [], R.public_key(seed), O.Partition).begin(bid, len(blob)) == head
    # a block changed in the partition before the resume: the commit refuses, nothing lost
    ota, root, reached = cut_then_resume(-12)
    part = ota / "ota_1"
    data = bytearray(part.read_bytes())
    data[5000] ^= 0xFF
    part.write_bytes(bytes(data))
    u = Updater(root, [], R.public_key(seed), O.Partition)
    off = u.begin(bid, len(blob))
    assert off > head
    while off < len(blob):
        off = u.write(off, blob[off : off + 700])
    with pytest.raises(ValueError, match="stored file differs from the manifest: fw.app"):
        u.commit()
    assert bootloader.choose(ota) == "ota_0" and boot.confirmed(root) == boot.COUNTER
    assert not os.path.exists(root + "/fw/app")
    # the next try trusts no block: from the image's first byte
    assert Updater(root, [], R.public_key(seed), O.Partition).begin(bid, len(blob)) == head
