"""``gammon remote play`` takes the board's live match as ``gammon play`` and ``gammon watch``
do (``gammon.live_copy.settled``): each record once, in the copy or as an event, never both
nor neither, and this board's decisions go to the other board as soon as the copy holds
them. The board is scripted (tests/host/scripted_board.py: its link answers as
``gammon.link.Client`` does) and its player confirms at the worst moment: right after the
host read the board's copy, before the watch was on; the relay is in memory."""

import io

import remote_helpers as RH
import scripted_board
from bg import record
from export_helpers import random_match
from gammon import remote
from gammon.commands import remote as RC


def _recs():
    data, _ = random_match(11, length=1)
    return [bytes(record.encode(k, f)) for k, f in record.decode_stream(data)]


def _sent(recs, mine):
    """The messages for the other board of ``mine``'s decisions in ``recs``."""
    f = remote.RecordingFollow(1 - mine)
    for rec in recs:
        f.feed_bytes(rec)
    return f.outgoing


def _player(board, mine):
    relay = RH.RelaySeat()
    p = RC.remote_player(board.client, relay, 1 - mine, io.StringIO())
    p.sleep = lambda s: None
    return p, relay


def _side(rec):
    return next(iter(record.decode_stream(rec)))[1][0]


def test_a_play_journaled_between_the_copy_and_the_watch_goes_to_the_other_board_at_once():
    """This board's player confirms a play right after the host read the board's copy, with
    the watch still off: it is in neither that copy nor the events, and the board then waits
    for the other board's answer. The host's second copy (the watch on) holds it and sends it
    at once (before: the copy with the watch off was the host's; the play went only after a
    second look at the copy a second later, the other board waiting meanwhile)."""
    recs = _recs()
    n0 = next(i for i, r in enumerate(recs) if r[:1] == bytes([record.GAME_START])) + 1
    k = next(i for i, r in enumerate(recs) if i > n0 + 4 and r[:1] == bytes([record.PLAY]))
    mine = _side(recs[k])
    b = scripted_board.Board(recs, k, hello=bytes([0x80 | (1 - mine)]) + b"remote")
    b.during_copy = {1: "after"}
    b.waits = k + 1  # the players wait for the other board's play
    p, relay = _player(b, mine)
    p._open()
    assert b.j == k + 1 and len(p.follow.records) == k + 1
    want = _sent(recs[: k + 1], mine)
    assert relay.got == want and want[-1]["kind"] == "play", (relay.got, want)
    assert b.fetches == 4  # the copy, the second (it had grown), then two alike


def test_the_matchs_end_journaled_between_the_copy_and_the_watch_is_seen():
    """The winning play and the match's end are confirmed right after the host read the
    board's copy, with the watch still off: the board's list no longer shows the match live.
    The host copies the match it began with to its end: the winning play goes to the other
    board and the match is over here (before: the host's copy was the one without the end; the
    winning play went only after a second look at the copy a second later)."""
    recs = _recs()
    last = max(i for i, r in enumerate(recs) if r[:1] == bytes([record.PLAY]))
    mine = _side(recs[last])
    b = scripted_board.Board(recs, last, hello=bytes([0x80 | (1 - mine)]) + b"remote")
    b.during_copy = {1: "rest"}
    p, relay = _player(b, mine)
    p._open()
    assert b.j == len(recs) and b.list_games()[0]["finished"]
    assert p.over() and len(p.follow.records) == len(list(record.decode_stream(b"".join(recs))))
    want = _sent(recs, mine)
    assert relay.got == want and want[-1]["kind"] == "play", (relay.got, want)
    assert p.run(matches=1, idle=1) == 0  # (over already: nothing more counted, nothing sent again)
    assert relay.got == want
