"""``gammon.remote_notes``: what ``gammon remote play``'s referee refused, for ``gammon watch``
on the same board. The notes a watch shows are the ones posted while it runs, each one line that
cannot draw on the terminal, the file bounded; ``watch_loop`` prints them under the board (the
last three) during an idle second, and a link without a board id (no notes) watches as before.
The referee's side, a cheating remote's play refused and shown: tests/host/
test_remote_refused_watch.py."""

import io

from gammon import remote_notes
from gammon.commands import library as cmds


class WatchClient:
    """A board with no live match; ``meanwhile(k)`` before each of five idle seconds
    (``tick``)."""

    def __init__(self, board_id, meanwhile):
        self.board_id = board_id
        self.meanwhile = meanwhile

    def list_games(self):
        return []

    def fetch_game(self, gid, resume=True):
        raise AssertionError("no live match")

    def watch(self, tick=None):
        for k in range(5):
            self.meanwhile(k)
            if tick is not None:
                tick()
        return
        yield


def test_watch_shows_the_notes_posted_while_it_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path))
    bid = bytes.fromhex("0011223344556677")
    path = remote_notes.path_for(bid)
    remote_notes.post(path, "message 1: an old refusal")  # before the watch: not shown

    def meanwhile(k):
        if k in (1, 3):
            remote_notes.post(path, "message %d: illegal play" % (k + 1))

    out = io.StringIO()
    cmds.watch_loop(WatchClient(bid, meanwhile), out=out, clear=False)
    shown = [x for x in out.getvalue().splitlines() if x.startswith("refused from the other board: ")]
    assert shown and shown[-1].endswith("message 4: illegal play") and "message 2:" in shown[-2], shown
    assert not any("old refusal" in x for x in shown)
    # another board's watch shows none of them
    out = io.StringIO()
    cmds.watch_loop(WatchClient(bytes(8), meanwhile), out=out, clear=False)
    assert "refused from" not in out.getvalue()


def test_notes_are_new_lines_only_printable_and_bounded(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path))
    path = remote_notes.path_for(bytes.fromhex("0011223344556677"))
    assert path.parent == tmp_path / "remote"
    remote_notes.post(path, "before the watch started")
    rd = remote_notes.Reader(path)
    assert rd.new() == []  # only what comes while watching
    remote_notes.post(path, "message 4: \x1b[2J\x1b[Hyou won\nfake line")  # an attacker's text
    got = rd.new()
    assert (
        len(got) == 1 and "\x1b" not in got[0] and "\n" not in got[0] and got[0].endswith("you won fake line")
    )
    remote_notes.post(path, "x" * 5000)
    assert len(rd.new()[0]) <= remote_notes.MAX_LINE
    for k in range(200):  # bounded: the older half goes, the reader goes on
        remote_notes.post(path, "message %d: refused" % k)
        assert path.stat().st_size <= remote_notes.MAX_BYTES
        new = rd.new()
        assert new and new[-1].endswith("message %d: refused" % k), (k, new)
    for bad in ("", "../x", "ABC"):
        try:
            remote_notes.path_for(bad)
        except ValueError:
            continue
        raise AssertionError("a board id %r was taken" % bad)
