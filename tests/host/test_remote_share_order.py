"""A board's share of a throw goes to the other host before any decision of its side on that
throw (``gammon remote play``, ``remote_player``). The other host takes its seat's messages in
their numbers' order and holds a decision for a turn its board has not reached
(``RemoteBrain.decide``); its board reaches that turn only with this board's share. So a play
sent before the share of the throw it answers stops the match on both boards: the other board
waits for the share, its host for the turn, and this board for the other player's next play.

Where the player on roll cannot be doubled by the other side (a 1-point match, the Crawford
game, the cube on their side) the other board asks for the roll at once and its share is here
before the press: the board throws on the press, and its player's play can be journaled before
its host has looked at the board again -- its host was out of reach of the relay (it waits a
second between tries), the machine was loaded, or the link dropped and the board's copy
brought both records at once. Two real controllers behind clients that answer the link's
requests as the app does, an in-memory relay that answers as the club's does
(tests/host/remote_helpers.py)."""

import pytest
import remote_helpers as RH
import test_controller_joint as T
from app import controller as C
from app import search as S
from gammon.club.push import ClubError
from gammon.commands import remote as RC
from gammon.link import LinkError


def _to_the_other_players_roll(tmp_path):
    """A 1-point match played past the opening to a player on roll whose board holds the other
    board's share of that throw before the press (asked for at once there: the side on roll
    may not double). Returns the match (``Opened``), the side on roll and both boards (the
    one on roll first)."""
    o = RH.Opened(tmp_path, length=1)
    sa, sb = (b.board for b in o.boards)
    for _ in range(6):
        side = sa.c.side
        here, there = (sa, sb) if side == 0 else (sb, sa)
        steps = here.r.play_turn()
        o.run()
        if steps:
            T._follow(there)  # the other player moves the checkers their LEDs show
            o.run()
        roller = 1 - side
        mine = there  # the board of the player now on roll
        assert mine.c.phase == C.AWAIT_ROLL and mine.c.side == roller
        k = mine.c.throws
        if mine.c.joint.other is not None and mine.c.joint.other[0] == k:
            return o, roller, mine, here
        assert mine.r.press(roller, C.ROLL)
        o.run()
    raise AssertionError("no turn with the other board's share in before the press")


def _roll_and_play(mine, roller):
    """The player on roll throws (the board has both shares: it throws on the press) and plays."""
    k = mine.c.throws
    assert mine.r.press(roller, C.ROLL) and mine.c.phase == C.MOVING and mine.c.throws == k + 1
    return mine.r.play_turn()


def _the_play_shows_on_the_other_board(o, roller, mine, other, steps):
    """Both hosts run: the other board throws the same dice and shows the play ``steps`` (a play
    to the same position),
    its player moves those checkers; the roller's seat sent the share before the play."""
    for _ in range(4):
        if other.c.throws == mine.c.throws and (not steps or other.c.opp.plan is not None):
            break
        o.run()
    assert other.c.throws == mine.c.throws, (other.c.throws, mine.c.throws, o.outs[1 - roller].getvalue())
    assert T._throws(other.j) == T._throws(mine.j)  # the same dice, from both boards' shares
    if steps:
        # the play as its board's journal holds it: the recogniser's order of a checker's steps
        # (8/4/3 for 8/7/3 with 4-1) may differ from the order the player moved them in
        plan, scratch = other.c.opp.plan, (bytearray(52), bytearray(52))
        assert S.same_play(other.c.turn_start, roller, plan, steps, scratch), (tuple(plan), steps)
        T._follow(other)
        o.run()
        assert other.c.last_play == mine.c.last_play
    # in the roller's seat, the share of the throw comes before the play on it
    msgs = o.relay.msgs[roller]
    kinds = [(m["kind"], m.get("k", m.get("turn"))) for m in msgs]
    k = mine.c.throws - 1
    share = kinds.index(("share", k))
    assert all(i > share for i, x in enumerate(kinds) if x[0] == "play" and x[1] == k + 1), kinds
    assert [p.brain.referee.refused for p in o.players] == [[], []]


def test_a_throw_and_its_play_seen_together_send_the_share_first(tmp_path):
    """The player throws and plays before the host looks at the board again: both records
    reach the host in one batch of events."""
    o, roller, mine, other = _to_the_other_players_roll(tmp_path)
    steps = _roll_and_play(mine, roller)
    _the_play_shows_on_the_other_board(o, roller, mine, other, steps)


def test_a_throw_and_its_play_while_the_relay_is_out_of_reach(tmp_path):
    """As the two simulators met it: the roller's host cannot reach the relay (it tries again
    a second later); its player throws and plays meanwhile."""
    o, roller, mine, other = _to_the_other_players_roll(tmp_path)
    player = o.players[roller]
    seat = player.brain.relay  # (the seat ``remote_player`` sends and receives through)
    send, recv = seat.send, seat.recv
    down = [True]

    def cut(f):
        def call(*a, **kw):
            if down[0]:
                raise ClubError("cannot reach the club at http://127.0.0.1:9 (refused)")
            return f(*a, **kw)

        return call

    seat.send, seat.recv = cut(send), cut(recv)
    player.run(idle=0.4)
    steps = _roll_and_play(mine, roller)
    player.run(idle=0.4)  # the throw and the play seen, nothing sent
    out = o.outs[roller].getvalue()
    assert "the relay is out of reach" in out and "the relay answers again" not in out, out
    down[0] = False
    _the_play_shows_on_the_other_board(o, roller, mine, other, steps)
    assert "the relay answers again" in o.outs[roller].getvalue()


def test_a_throw_and_its_play_in_the_boards_copy_after_a_lost_link(tmp_path):
    """The host's link drops; its player throws and plays before it is back; the new link's
    copy of the match holds both records."""
    o, roller, mine, other = _to_the_other_players_roll(tmp_path)
    board, player = o.boards[roller], o.players[roller]
    made = []

    def meanwhile(seconds):  # the host waits to connect again
        if not made:
            made.append(_roll_and_play(mine, roller))

    wait = board.wait_events

    def lost(timeout):
        board.wait_events = wait
        raise LinkError("the board closed the connection")

    player.sleep, board.wait_events = meanwhile, lost
    o.run()
    assert made and "link back" in o.outs[roller].getvalue(), o.outs[roller].getvalue()
    _the_play_shows_on_the_other_board(o, roller, mine, other, made[0])


@pytest.fixture(autouse=True)
def _quick_retries(monkeypatch):
    monkeypatch.setattr(RC, "RELAY_RETRY_S", 0)  # (the relay out of reach: tried again at once)
