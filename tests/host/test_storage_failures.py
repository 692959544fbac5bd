"""Storage failures at the app level: the real firmware on MicroPython (``tools/sim``)
with its journal on a littlefs image, driven by the robot players of ``tools/sim/demo.py``.

For a flash that fills up mid-match, a match file damaged in the middle, and a filesystem that
cannot be mounted, each test checks that

- the LEDs show the documented storage-error state (``app.view``: both tray LEDs blink
  reddish purple), read from the simulator's LED frames and mapped with hardware/board.json;
- the game goes on: turns are still played and confirmed;
- everything stored before the failure is still in the image afterwards (decoded with
  ``bg.record`` from a dump of the image).

The image is changed between two runs of the firmware (a clean stop, then MicroPython's own
littlefs writes to it: ``_IMG_TOOL``), so the failure is exact and the same on every run.
"""

import json
import random
import time
from pathlib import Path

from bg import hwdesc, leds, record

from tools import mpy
from tools.sim import demo, server

ROOT = Path(__file__).resolve().parents[2]

BOARD = hwdesc.load(str(ROOT / "hardware" / "board.json"))

# Runs on MicroPython: edits a littlefs image through vfs.VfsLfs2 (the firmware's own
# filesystem code), so the image stays a valid filesystem.
#   fill IMAGE            -> files of zeros until ENOSPC (the flash is full)
#   flip IMAGE PATH OFF   -> invert the byte at OFF of the file PATH (a damaged record)
_IMG_TOOL = r"""
import os
import sys

import vfs
from hal.sim import FileBlockDev

op, path = sys.argv[1], sys.argv[2]
bd = FileBlockDev(path)
vfs.mount(vfs.VfsLfs2(bd), "/img")
if op == "fill":
    i = 0
    for size in (4096, 512, 64, 8, 1):
        while True:
            try:
                with open("/img/fill%d" % i, "wb") as f:
                    f.write(bytes(size))
                    f.flush()
                i += 1
            except OSError:
                break
    print("fill files", i)
elif op == "flip":
    p = "/img" + sys.argv[3]
    with open(p, "rb") as f:
        data = bytearray(f.read())
    data[int(sys.argv[4])] ^= 0xFF
    with open(p, "wb") as f:
        f.write(data)
        f.flush()
vfs.umount("/img")
"""


def img_tool(tmp_path, *args):
    script = tmp_path / "imgtool.py"
    script.write_text(_IMG_TOOL)
    out = mpy.run([script, *args], heap="256k", timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def match_file(image):
    """(path, bytes) of the one match file in the image."""
    [(path, data)] = [(p, d) for p, d in demo.dump_image(image).items() if p.endswith(".m")]
    return path, data


def raw_records(data):
    """[(kind, start, end)] of the records of a match file, stopping at the first bad one."""
    out = []
    i = 0
    while i < len(data):
        try:
            kind, _, nxt = record.decode_record(data, i, len(data))
        except (EOFError, ValueError):
            break
        out.append((kind, i, nxt))
        i = nxt
    return out


def _rgb_off():
    return bytes(3)


def _fault_rgb():
    """The bytes a tray LED holds when lit in the fault colour (GRB, brightness cap)."""
    p = leds.Painter(BOARD)
    i = BOARD.tray_led[0]
    p.set(i, leds.FAULT, 255)
    return bytes(p.buf[3 * i : 3 * i + 3])


def tray_frames(sim, seconds):
    """The set of (tray LED 0, tray LED 1) byte triples seen in the frames of ``seconds``."""
    seen = set()
    end = time.monotonic() + seconds
    n = sim.frames
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        n = sim.wait_frame(n, timeout=left)
        frame = sim.leds
        seen.add(tuple(bytes(frame[3 * i : 3 * i + 3]) for i in BOARD.tray_led))
    return seen


def assert_storage_error_shown(sim):
    """Both tray LEDs blink reddish purple: lit together in FAULT, and dark together."""
    seen = tray_frames(sim, 1.0)  # the fast blink's period is 300 ms
    fault = _fault_rgb()
    assert (fault, fault) in seen, (seen, sim.log[-10:])
    assert (_rgb_off(), _rgb_off()) in seen, seen


def assert_no_storage_error_shown(sim):
    fault = _fault_rgb()
    assert all(fault not in pair for pair in tray_frames(sim, 0.5))


def wait_log(sim, text, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for line in list(sim.log):
            if text in line:
                return line
        time.sleep(0.02)
    raise AssertionError("no %r in the console:\n%s" % (text, "\n".join(sim.log[-20:])))


def restart(sim, image, seed):
    """The same board powered on again (the checkers stay where they are)."""
    sim2 = server.Sim(image=str(image), settings={"length": 1}, seed=seed)
    sim2.physical = sim.physical
    sim2.start()
    return sim2


def roll(p, sim):
    """Hand the robots to ``sim`` and press ROLL for the side on roll (a roll not stored with
    its play is thrown again after a reboot)."""
    p.sim = sim
    p.con = demo.Console(sim)
    kind, text = p.press_until("roll%d" % p.side, ("ROLL",))
    nums = [int(x) for x in text.split()]
    p.dice = (nums[1], nums[2])


def plays_logged(sim):
    return sum(1 for line in sim.log if line.startswith("PLAY "))


def test_flash_full_mid_match_shows_the_error_and_keeps_what_was_stored(tmp_path):
    img = tmp_path / "flash.lfs"
    sim = server.Sim(image=str(img), settings={"length": 1}, seed="full")
    sim.start()
    try:
        p = demo.Player(sim, random.Random(5))
        p.start_game(True)
        for _ in range(4):
            assert p.turn() is None
        assert_no_storage_error_shown(sim)  # the control: a healthy journal shows nothing
    finally:
        sim.stop()
    _, before = match_file(img)
    acts_before = list(record.decode_stream(before))
    assert [k for k, _ in acts_before].count(record.PLAY) == 4

    img_tool(tmp_path, "fill", img)  # nothing left on the flash
    sim2 = restart(sim, img, "full")
    try:
        wait_log(sim2, "resumed match: %d actions" % len(acts_before))
        roll(p, sim2)
        turns = 0
        while not any("storage full" in x for x in sim2.log):  # a record or two may still fit
            assert p.turn() is None
            turns += 1
            assert turns < 8, sim2.log[-10:]
        assert_storage_error_shown(sim2)
        n = plays_logged(sim2)
        for _ in range(4):  # the game goes on: each play confirmed (only not stored)
            assert p.turn() is None
        assert plays_logged(sim2) == n + 4
        assert_storage_error_shown(sim2)  # shorter records later must not fill a hole
    finally:
        sim2.stop()
    lines = list(sim2.log)
    full_at = next(i for i, x in enumerate(lines) if "storage full" in x)
    # drain() logs an action, then stores it: the PLAY just before the message is the first
    # one not stored; the ones before it since the reboot were stored, none after it
    assert lines[full_at - 1].startswith("PLAY "), lines[full_at - 3 : full_at + 1]
    played = [x for x in lines if x.startswith("PLAY ")]
    stored_after = sum(1 for x in lines[:full_at] if x.startswith("PLAY ")) - 1
    _, after = match_file(img)
    acts_after = list(record.decode_stream(after))
    assert after[: len(before)] == before  # not a byte of the stored match changed
    assert raw_records(after)[-1][2] == len(after)  # and the file ends on a whole record
    assert acts_after[: len(acts_before)] == acts_before
    stored = ["PLAY %d %s %d" % (f[0], tuple(f[1]), f[2]) for k, f in acts_after if k == record.PLAY]
    assert stored[4:] == played[:stored_after], (stored, played)  # the match's prefix, no hole

    sim3 = restart(sim2, img, "full")  # and it all replays
    try:
        wait_log(sim3, "resumed match: %d actions" % len(acts_after))
        assert not any(x.startswith("journal:") and "at boot" not in x for x in sim3.log), sim3.log
    finally:
        sim3.stop()


def test_damaged_match_file_shows_the_error_and_keeps_every_byte(tmp_path):
    img = tmp_path / "flash.lfs"
    sim = server.Sim(image=str(img), settings={"length": 1}, seed="flip")
    sim.start()
    try:
        p = demo.Player(sim, random.Random(7))
        p.start_game(True)
        assert p.turn() is None
        # where the board stands after the first turn (the replay will stop here)
        after_one = (json.loads(json.dumps(sim.physical.to_json())), bytearray(p.pos), p.side)
        for _ in range(3):
            assert p.turn() is None
    finally:
        sim.stop()
    path, good = match_file(img)
    recs = raw_records(good)
    kinds = [k for k, _, _ in recs]
    # MATCH_START, GAME_START, OPENING (one more per tied throw), the opening PLAY, 3 TURNs
    first = kinds.index(record.PLAY)
    assert kinds[first + 1 :] == [record.TURN] * 3 and recs[-1][2] == len(good), kinds
    # damage the record of the second turn (its last byte: the checksum); records follow it
    _, start, end = recs[first + 1]
    img_tool(tmp_path, "flip", img, path, end - 1)
    _, damaged = match_file(img)
    assert damaged != good and len(damaged) == len(good)
    replayable = list(record.decode_stream(good[:start]))

    sim.physical.from_json(after_one[0])  # the players put the board back as the LEDs guide
    sim2 = restart(sim, img, "flip")
    try:
        wait_log(sim2, "resumed match: %d actions" % len(replayable))
        assert_storage_error_shown(sim2)  # at once, before anyone touches the board
        p.pos, p.side = after_one[1], after_one[2]
        roll(p, sim2)
        n = plays_logged(sim2)
        for _ in range(2):
            assert p.turn() is None
        assert plays_logged(sim2) == n + 2  # confirmed on the board (not stored)
        wait_log(sim2, "journal damaged")
        assert_storage_error_shown(sim2)
    finally:
        sim2.stop()
    _, kept = match_file(img)
    assert kept == damaged  # kept untouched for the host: nothing dropped, nothing overwritten
    assert list(record.decode_stream(kept))[: len(replayable)] == replayable


def test_missing_filesystem_shows_the_error_and_the_game_goes_on(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()  # a directory where the image should be: nothing can be mounted there
    (flash / "keep.txt").write_bytes(b"stored before")
    sim = server.Sim(image=str(flash), settings={"length": 1}, seed="nofs")
    sim.start()
    try:
        wait_log(sim, "storage: cannot mount")
        p = demo.Player(sim, random.Random(9))
        p.start_game(True)
        assert_storage_error_shown(sim)
        for _ in range(3):
            assert p.turn() is None
        assert plays_logged(sim) == 3  # every play confirmed
        assert_storage_error_shown(sim)
        assert sim.exit_code is None
    finally:
        sim.stop()
    assert sorted(x.name for x in flash.iterdir()) == ["keep.txt"]
    assert (flash / "keep.txt").read_bytes() == b"stored before"
