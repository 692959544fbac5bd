"""Update mode's way in (both interpreters): the one-shot flag (``bg.update.boot.enter_mode`` /
``take_mode``), and a host's FW_BEGIN while the game runs (``bg.link.fwupdate.begin`` on
``app.update``'s switch): answered E_BUSY "restarting into update mode", then the journal
closed, the flag set and the board reset -- once however many FW_BEGINs; chunks and commits
are refused meanwhile; a version on trial refuses instead (it must prove healthy first).
The update mode itself runs end to end on the board model: tests/host/test_update_mode.py."""

# mpy-heap: 72k
# The 64-bit port (ROM image) failed at 56k and 62k, passed at 60k and 64-74k (the test signs a
# bundle; fragmentation): the last failure + 8k or more. The board model runs it at 64k.

import asyncio

import update_helpers
from app import update as app_update
from app.update import Trial
from bg import link as P
from bg.link import fwupdate
from bg.update import boot
from bg.update.bundle import bundle_id, header_len
from bg.update.slots import Updater


class _Clock:
    def ticks_ms(self):
        return 0

    def ticks_diff(self, a, b):
        return a - b


class _Frame:
    def __init__(self, t, payload):
        self.type = t
        self.seq = 7
        self.payload = payload


class _Board:
    def __init__(self, updater):
        self.updater = updater


class _Session:
    def __init__(self, board):
        self.board = board
        self.errors = []
        self.replies = []

    def _error(self, code, req_type=0, req_seq=0, retry_ms=0, msg=None):
        self.errors.append((code, req_type, retry_ms, msg))

    def _reply(self, ftype, payload):
        self.replies.append((ftype, payload))


def _raises(f, *a):
    try:
        f(*a)
    except ValueError as e:
        return str(e)
    raise AssertionError("not refused")


def test_the_flag_is_one_shot():
    r = update_helpers.root()
    try:
        assert not boot.take_mode(r)
        assert not boot.take_mode(None)  # no firmware root: no updates, no update mode
        boot.enter_mode(r)
        boot.enter_mode(r)  # twice: still one update-mode boot
        assert boot.take_mode(r)
        assert not boot.take_mode(r)  # the next boot is the game's
    finally:
        update_helpers.rm(r)


def _game_with_a_trial(r):
    """A game's ``Trial`` on ``r`` (its log, the journal's closes, the resets), a session on its
    updater and a FW_BEGIN frame for a 4 kB bundle."""
    log = []
    closed = []
    resets = []
    t = Trial(
        _Clock(),
        log.append,
        None,
        r,
        [""],
        reset=lambda: resets.append(1),
        close=lambda: closed.append(1),
    )
    begin = _Frame(P.REQ_FW_BEGIN, bytes(32) + b"\x00\x10\x00\x00")
    return log, closed, resets, _Session(_Board(t.updater)), begin


def test_begin_while_the_game_runs_restarts_into_update_mode_once():
    r = update_helpers.root()
    try:
        log, closed, resets, s, begin = _game_with_a_trial(r)

        async def host():
            fwupdate.begin(s, begin)
            fwupdate.begin(s, begin)  # asked again before the restart: one restart
            # chunks and a commit before update mode: refused, nothing stored
            u = s.board.updater
            assert _raises(u.write, 0, b"x") == "no update begun"
            assert _raises(u.commit) == "no update begun"
            assert not boot.take_mode(r) and not resets  # the answer goes out first
            await asyncio.sleep(0.6)

        asyncio.run(host())
        assert s.errors == [(P.E_BUSY, P.REQ_FW_BEGIN, 3000, fwupdate.MODE)] * 2 and not s.replies
        assert closed == [1] and resets == [1]  # the journal closed, then one reset
        assert "fw: restarting into update mode" in log
        assert boot.take_mode(r)  # the flag for the next boot
        assert boot.read_state(r) == ("-", "-", 0)  # nothing else changed
    finally:
        update_helpers.rm(r)


def test_no_room_to_load_the_switch_leaves_the_game_whole_and_the_next_begin_retries():
    r = update_helpers.root()
    real = app_update._boot
    try:
        log, closed, resets, s, begin = _game_with_a_trial(r)

        def full():
            raise MemoryError("memory allocation failed, allocating 296 bytes")

        async def host():
            app_update._boot = full  # the heap has no block for bg.update.boot
            fwupdate.begin(s, begin)
            await asyncio.sleep(0.6)
            assert not closed and not resets and not boot.take_mode(r)  # the game goes on, whole
            app_update._boot = real
            fwupdate.begin(s, begin)  # the host's retry
            await asyncio.sleep(0.6)

        asyncio.run(host())
        assert "fw: update mode not entered: memory allocation failed, allocating 296 bytes" in log
        assert s.errors == [(P.E_BUSY, P.REQ_FW_BEGIN, 3000, fwupdate.MODE)] * 2
        assert closed == [1] and resets == [1] and boot.take_mode(r)
    finally:
        app_update._boot = real
        update_helpers.rm(r)


def test_a_version_on_trial_refuses_update_mode():
    r = update_helpers.root()
    try:
        blob = update_helpers.make()
        u = Updater(r, [""], update_helpers.pub())
        u.begin(bundle_id(blob[: header_len(blob)]), len(blob))
        update_helpers.send(u, blob)
        u.commit()
        path = [""]
        assert boot.start(path, {}, r) == "a"  # the new version on trial
        resets = []
        t = Trial(
            _Clock(), lambda m: None, None, r, path, key=update_helpers.pub(), reset=lambda: resets.append(1)
        )
        s = _Session(_Board(t.updater))
        why = _raises(fwupdate.begin, s, _Frame(P.REQ_FW_BEGIN, bytes(32) + b"\x00\x10\x00\x00"))
        assert "on trial" in why and not s.errors and not resets
        assert not boot.take_mode(r)
    finally:
        update_helpers.rm(r)


class _S:
    def __init__(self, out=()):
        self.out = list(out)


class _Hub:
    def __init__(self, sessions):
        self.board = _Board(None)
        self.board.sessions = sessions


def test_update_mode_waits_only_for_answers_to_go_out():
    from app.update import _sending

    assert not _sending(None)  # no host has connected yet
    assert not _sending(_Hub([_S(), _S()]))
    assert _sending(_Hub([_S(), _S([b"answer"])]))
