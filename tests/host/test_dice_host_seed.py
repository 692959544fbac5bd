"""The host's player seed end to end on CPython: the real ``app.main.App`` (journal, link hub)
takes a host's seed between the commitment and the opening throw, journals and publishes it
as SEED_PART naming the host; ``gammon``'s side (``gammon.dice_seed``, ``watch_loop``) sends
16 random bytes when it sees a match waiting for them and remembers the commitment."""

import sys

import ctl_helpers as H
import pytest
from app import controller as C
from bg import dice, record
from gammon.commands.library import watch_loop
from gammon.library import Library
from gammon.link import LinkError
from test_controller_links import _names, app  # noqa: F401 - the App fixture

SEED = bytes(range(16))


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _journal_records(a):
    j = a.recorder.journal
    with open(j._path(j.active, ".m"), "rb") as f:
        return list(record.decode_stream(f.read()))


def test_the_board_journals_and_publishes_a_host_seed_before_the_opening(app, monkeypatch):  # noqa: F811
    monkeypatch.setitem(sys.modules, "bluetooth", None)
    app.host.links(False, True)
    _names(app.host.coroutines())
    published = []
    app.host.hub.publish = lambda r: published.append(bytes(r))
    take = app.host.hub.board.on_player_seed
    assert take("laptop", bytes(32), SEED) is None  # no match yet: refused
    H.Robot(app.ctl).set_start()
    assert app.ctl.button(0, C.ROLL)
    app.drain()
    ms = _journal_records(app)
    assert [k for k, _ in ms] == [record.MATCH_START]  # durable before any seed is taken
    com = ms[0][1][9]
    assert take("laptop", bytes(32), SEED) is None  # not this match's commitment
    assert take("laptop", com, SEED) == ms[0][1][0]
    want = [(record.MATCH_START, ms[0][1]), (record.SEED_PART, (dice.SRC_HOST, "laptop", SEED))]
    assert _journal_records(app) == want
    assert [list(record.decode_stream(r))[0] for r in published] == want
    assert app.ctl.button(0, C.ROLL)  # the opening: no seed taken after it
    app.drain()
    assert take("laptop", com, SEED) is None
    assert [k for k, _ in _journal_records(app)][-2:] == [record.GAME_START, record.OPENING]


class _Board:
    """A link client for a board with one live match (its record bytes)."""

    def __init__(self, data, refuse=False):
        self.data = data
        self.refuse = refuse
        self.sent = []

    def list_games(self):
        return [{"id": "00", "finished": False}]

    def fetch_game(self, gid, resume=False, progress=None):
        return self.data

    def watch(self):
        return iter(())

    def send_player_seed(self, commitment, seed, proof=b""):
        if self.refuse:
            raise LinkError("wrong state: no match waiting for a seed", 13)
        self.sent.append((commitment, seed))
        return self.data[2:10]


def _start(ps=b""):
    mid, com = bytes(range(8)), bytes(range(32, 64))
    f = (mid, 0, 3, 1, 0, 0, 0, "Ann", "Bob", com, ps)
    return mid, com, record.encode(record.MATCH_START, f)


def test_watch_sends_a_seed_once_it_saw_the_commitment_and_remembers_both(tmp_path):
    mid, com, data = _start()
    b = _Board(data)
    with Library.open() as lib:
        watch_loop(b, out=open(tmp_path / "o", "w"), clear=False, lib=lib)
        assert len(b.sent) == 1 and b.sent[0][0] == com and len(b.sent[0][1]) == 16
        assert "dice commitment %s" % com.hex() in (tmp_path / "o").read_text()  # shown live
        assert lib.remembered_commitment(mid) == (com, b.sent[0][1])
    # refused (the opening came first): the commitment is still remembered, no seed
    mid2 = bytes(8)
    data2 = record.encode(record.MATCH_START, (mid2, 0, 1, 1, 0, 0, 0, "A", "B", com, b""))
    with Library.open() as lib:
        watch_loop(_Board(data2, refuse=True), out=open(tmp_path / "o", "w"), clear=False, lib=lib)
        assert lib.remembered_commitment(mid2) == (com, b"")


def test_no_seed_is_sent_to_a_match_past_its_window(tmp_path):
    mid, com, data = _start()
    buttons = record.encode(record.SEED_PART, (dice.SRC_BUTTONS, "", SEED))
    game = record.encode(record.GAME_START, (1, 0, 0, 0))
    for d in (data + buttons, data + game, _start(SEED)[2], b""):
        b = _Board(d)
        with Library.open() as lib:
            watch_loop(b, out=open(tmp_path / "o", "w"), clear=False, lib=lib)
            assert b.sent == [] and lib.remembered_commitment(mid) is None


def test_sync_stores_a_match_waiting_for_its_opening_and_sends_it_a_seed():
    from gammon.commands.library import sync

    mid, com, data = _start()
    b = _Board(data)
    b.info = lambda: {"name": "salon"}
    b.list_games = lambda: [{"id": mid.hex(), "size": len(data), "finished": False}]
    lines = []
    with Library.open() as lib:
        stored, deleted, problems = sync(b, lib, delete=True, out=lines.append)
        assert (stored, deleted, problems) == (1, 0, [])
        assert len(b.sent) == 1 and lib.remembered_commitment(mid) == (com, b.sent[0][1])
        assert any("sent a player seed" in x for x in lines), lines
        assert lib.get(mid.hex()).winner is None  # a match without a game yet is stored


class _Sensors:
    def read_into(self, buf):
        for i in range(len(buf)):
            buf[i] = 0


def test_a_power_cut_after_the_host_seed_resumes_it_at_boot(app, tmp_path, monkeypatch):  # noqa: F811
    """The board reboots between the host's seed and the opening: the journal (bg.journal.recover)
    gives back MATCH_START and SEED_PART, the window is still open, the opening throw is the
    one the board would have thrown without the cut."""
    from app import main

    monkeypatch.setitem(sys.modules, "bluetooth", None)
    H.Robot(app.ctl).set_start()
    app.ctl.button(0, C.ROLL)
    app.drain()
    com = app.ctl.fair.commitment
    assert app.ctl.contribute("laptop", SEED, com)
    app.drain()
    again = main.App(app.hw, app.board, main.settings_from(None))
    again.hw.sensors = _Sensors()
    again.boot()
    c = again.ctl
    assert c.phase == C.OPENING and c.fair.open and c.fair.commitment == com
    assert c.seed_parts == [(C.SRC_HOST, SEED)]
    for ctl in (app.ctl, c):  # the same press on both boards: the same throw
        H.Robot(ctl).set_start()
        ctl.button(0, C.ROLL, now=99)
    first = [f for k, f in app.ctl.outbox if k == C.K_OPENING]
    assert first and first == [f for k, f in c.outbox if k == C.K_OPENING]
