"""The board boots from a damaged journal file: a real match recorded by the controller through
``app.journal_policy.Recorder`` (one finished game, packed at its end, and one in progress), then
every byte of its file flipped in turn and the file cut at every length. A fresh controller boots
from each copy as the app does (``Recorder.open``), then takes the next sensor reading and button
press. Nothing may raise out of the controller (on the board the task would die and the watchdog
would boot into the same replay: a reset loop); the recorder must replay exactly the actions of
the records before the damage and say in its log what it could not read. (The same damage on
littlefs itself: tests/mpy/test_journal_damage.py.)"""

import os

import ctl_helpers as H
import pytest
from app import controller as C
from app import rules
from app.journal_policy import Recorder
from bg import record as R
from bg.dice.fairness import Fairness
from bg.journal import ERR_CORRUPT


def _record(root):
    logs = []
    c = H.make(length=25)
    rec = Recorder(c, logs.append, lambda code: None)
    rec.verbose = False
    rec.open(root, C.MATCH_OVER)
    r = H.Robot(c, 11, drain=rec.store)
    r.set_start()
    assert r.press(0, C.ROLL)  # MATCH_START
    r.play_game(double_every=40)
    assert c.phase == C.GAME_OVER, C.PHASE_NAMES[c.phase]
    r.set_start()
    assert r.press(0, C.ROLL)
    while c.phase == C.OPENING:
        assert r.press(0, C.ROLL)
    for _ in range(5):
        if c.phase == C.AWAIT_ROLL:
            assert r.press(c.side, C.ROLL)
        r.play_turn()
    (name,) = [n for n in os.listdir(os.path.join(root, "journal")) if n.endswith(".m")]
    files = {}
    for n in os.listdir(os.path.join(root, "journal")):
        with open(os.path.join(root, "journal", n), "rb") as f:
            files[n] = f.read()
    return name, files


def _place(root, files, name, data):
    d = os.path.join(root, "journal")
    for n in os.listdir(d):
        os.remove(os.path.join(d, n))
    for n, b in files.items():
        with open(os.path.join(d, n), "wb") as f:
            f.write(data if n == name else b)


def _fresh():
    # a new match after the boot gets a new id, as the board's random ids do
    ids = H.Ids()
    ids.n = 100
    fair = lambda mid: Fairness(mid, H.seed_for(mid))  # noqa: E731
    return C.Controller(C.Settings(), rules, fair, ids, lambda: 1767225600)


def _boot(root, intact, bounds, start_len):
    logs, errors = [], []
    c = _fresh()
    rec = Recorder(c, logs.append, errors.append)
    n = rec.open(root, C.MATCH_OVER)
    # Only the two reports of damage reach the log: any other line is an exception the
    # recorder caught half-way through the replay (the controller left half-resumed).
    said = [x for x in logs if not x.startswith(("journal: error 3 at boot", "journal: dropped "))]
    assert not said, (intact, said)
    good = max([e for e in bounds if e <= intact], default=0)
    return c, rec, n, good, logs, errors


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("flash"))
    name, files = _record(root)
    stored = files[name]
    d = R.Decoder(stored, split_turns=False, expand=False)
    bounds = []
    kinds = []
    for k, _ in d:
        bounds.append(d.valid)
        kinds.append(k)
    assert R.GAME_PACKED in kinds and kinds[-1] in (R.TURN, R.PLAY), [R.name(k) for k in kinds]
    return root, name, files, stored, bounds


def _go_on(c, rec):
    # the checkers where they stand now and a press: the board carries on, whatever it resumed
    r = H.Robot(c, 5, drain=rec.store)
    r.set_start()
    for side in (0, 1):
        r.press(side, C.ROLL)
    rec.drain()


def _check(root, match, data, intact):
    _, name, files, stored, bounds = match
    _place(root, files, name, data)
    c, rec, n, good, logs, errors = _boot(root, intact, bounds, bounds[0])
    acts = sum(1 for _ in R.Decoder(bytes(data[:good]))) if good else 0
    assert n == acts, (intact, n, acts)
    lost = len(data) - good
    if good and lost:
        # said what it dropped: the damaged tail's size, or the damage kept for the host
        assert ERR_CORRUPT in errors or "journal: dropped %d damaged bytes at the end" % lost in logs, (
            intact,
            logs,
            errors,
        )
    elif len(data) and not good:
        assert ERR_CORRUPT in errors and c.phase == C.IDLE, (intact, errors)  # MATCH_START damaged
    _go_on(c, rec)


def test_every_byte_flipped_the_board_boots_and_goes_on(match, tmp_path):
    root = str(tmp_path)
    os.mkdir(os.path.join(root, "journal"))
    stored = match[3]
    data = bytearray(stored)
    for i in range(len(stored)):
        data[i] ^= 0xFF
        _check(root, match, data, i)
        data[i] ^= 0xFF


def test_every_truncation_the_board_boots_and_goes_on(match, tmp_path):
    root = str(tmp_path)
    os.mkdir(os.path.join(root, "journal"))
    stored = match[3]
    for n in range(len(stored) + 1):
        _check(root, match, stored[:n], n)
