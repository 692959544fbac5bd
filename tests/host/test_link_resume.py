"""``gammon.link.Client.fetch_game`` resuming over a live match whose file the board rewrote.

The board's journal compacts a finished game at GAME_END (``bg.journal.pack``: the game's records
become one GAME_PACKED record and the match file is swapped), so bytes a host fetched from a
live match earlier may no longer be the file's prefix. The firmware's link (``bg.link.board``,
``bg.link.session``, ``bg.link.journal`` over a real ``bg.journal`` directory) runs in process
here; the host client talks to it through an in-memory transport."""

import fcntl
from pathlib import Path

import pytest
from bg import record
from bg.journal import Journal
from bg.link.board import Board
from bg.link.journal import JournalStore
from bg.link.session import Session
from export_helpers import random_match
from gammon import link as L
from link_fakes import Clock, Rand


class Loop:
    """An in-memory transport: frames go straight into a board ``Session``."""

    mtu = 515

    def __init__(self, board):
        self.s = Session(board, self.mtu)
        self.out = bytearray()

    def _pump(self):
        f = self.s.pump()
        while f is not None:
            self.out += f
            f = self.s.pump()

    def send(self, data):
        self.s.feed(data)
        self._pump()

    def recv(self, timeout):
        self._pump()
        data = bytes(self.out)
        self.out = bytearray()
        return data

    def close(self):
        self.s.close()


def _live_journal(root):
    """A 3-point match journaled record by record; returns (journal, match id, file path,
    [file bytes after each stored action of the first game])."""
    data = random_match(4, length=3)[0]
    acts = list(record.decode_stream(data))
    j = Journal(str(root))
    j.open()
    j.begin_match(acts[0][1], bytes(range(32)))
    mid = bytes(acts[0][1][0])
    path = Path(j._path(mid, ".m"))
    snaps = []
    for k, f in acts[1:]:
        if k == record.MATCH_END:
            break
        j.append(k, f)
        snaps.append(path.read_bytes())
        if k == record.GAME_END:
            break  # the first game ended: the board compacted it
    return j, mid, path, snaps


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    root = tmp_path / "flash"
    root.mkdir()
    j, mid, path, snaps = _live_journal(root)
    codes = []
    board = Board(JournalStore(j, str(root)), Clock(), Rand(b"resume"), show_code=codes.append)
    board.open_pairing(60000)
    c = L.Client(Loop(board))

    def press_if_same(value):  # the owner compares the numbers and presses ROLL
        assert codes[-1] == value
        assert board.confirm_pairing()

    host_id, key = c.pair("tester", press_if_same)
    c.close()
    c = L.Client(Loop(board))
    c.authenticate(host_id, key)
    c.info()
    yield c, mid.hex(), path, snaps
    c.close()


@pytest.mark.parametrize("kept", ["inside", "beyond"])
def test_the_board_rewrote_the_live_match_so_the_host_fetches_it_again(client, kept):
    c, gid, path, snaps = client
    before = snaps[-2]  # the game not yet over: raw records
    after = path.read_bytes()  # GAME_END stored: the game is one packed record now
    assert [k for k, f in record.Decoder(after, expand=False)] == [record.MATCH_START, record.GAME_PACKED]
    # what an interrupted fetch kept: less than the compacted file (the joined bytes do not
    # decode), or more (the board refuses to resume beyond its end)
    k = len(after) - 30 if kept == "inside" else len(before) - 5
    assert before[:k] != after[:k]
    if kept == "inside":
        assert not L.joined_decodes(before[:k], before[:k] + after[k:])
    part = c._partial_path(gid)
    part.parent.mkdir(parents=True, exist_ok=True)
    part.write_bytes(before[:k])
    seen = []
    data = c.fetch_game(gid, progress=lambda d, t: seen.append(d))
    assert data == after and not part.exists()  # the board's copy, not the stale prefix
    assert seen[-1] == len(after) and len(seen) == (2 if kept == "inside" else 1)  # resumed, then from 0
    acts = list(record.decode_stream(data))
    assert acts[-1][0] == record.GAME_END


def test_an_unchanged_live_match_resumes_where_it_stopped(client):
    c, gid, path, snaps = client
    now = path.read_bytes()
    k = len(now) // 2
    part = c._partial_path(gid)
    part.parent.mkdir(parents=True, exist_ok=True)
    part.write_bytes(now[:k])
    seen = []
    assert c.fetch_game(gid, progress=lambda d, t: seen.append(d)) == now
    assert seen[0] > k  # only the rest came over the link


def test_a_one_off_copy_leaves_the_kept_bytes_alone(client):
    """``gammon watch`` takes the live match as a one-off copy while a ``sync`` of the same
    match may be interrupted with bytes kept: the copy neither reads nor replaces them."""
    c, gid, path, snaps = client
    now = path.read_bytes()
    part = c._partial_path(gid)
    part.parent.mkdir(parents=True, exist_ok=True)
    part.write_bytes(now[:40])
    assert c.fetch_game(gid, resume=False) == now
    assert part.read_bytes() == now[:40]  # still there for the sync to resume
    assert c.fetch_game(gid) == now and not part.exists()


def test_a_second_fetch_of_the_same_match_does_not_write_into_the_first(client):
    """Two commands fetch one match at once (through the hub): the one that holds the kept
    file keeps it; the other fetches whole without reading or writing it."""
    c, gid, path, snaps = client
    now = path.read_bytes()
    part = c._partial_path(gid)
    part.parent.mkdir(parents=True, exist_ok=True)
    part.write_bytes(now[:40])
    with open(part, "a+b") as holder:  # the first command, mid-fetch
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert c.fetch_game(gid) == now
        assert part.read_bytes() == now[:40]  # neither appended to nor removed
    assert c.fetch_game(gid) == now and not part.exists()  # the lock gone: resumed, done


def test_joined_decodes_accepts_whole_records_only():
    data = random_match(2, length=1)[0]
    assert L.joined_decodes(data[:40], data)
    assert not L.joined_decodes(data[:40], data[:-1])  # torn at the end
    assert not L.joined_decodes(data[:40], data[:40] + data[41:])  # a byte lost at the join
    assert L.joined_decodes(b"\xff" * 40, b"\xff" * 80)  # not a record stream: nothing to check
