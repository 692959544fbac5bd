"""``gammon remote play`` restarted after a power cut at its board's place: the last remote
decision the host took (``RemoteBrain.last``) is kept in its seat file
(``gammon.remote.SeatFile``) until its board's records show it. The board takes the other
player's play (DECIDE) and shows it on its LEDs; it journals it only once its player has
moved those checkers, so a power cut in between loses it on the board, and the host
process, gone with the power, must hand it in again -- the relay will not send that number
again (the seat says it was taken). Two real controllers behind the link's requests and an
in-memory relay, as tests/host/test_remote_play_restart.py."""

import ctl_helpers as H
import pytest
import remote_helpers as RH
import test_controller_joint as T
from app import controller as C
from app import opponent as O
from gammon import remote
from gammon.errors import UserError


def _power_cut(client, side):
    """The board rebuilt from its journal and seed file (the app's boot), its RAM gone."""
    s = client.board
    seed = s.c.board_seed()
    c2 = T._board(side, 3)
    c2.resume(s.j, seed)
    c2.opp = O.Opponent(H.first_play)
    s.c = s.r.c = c2
    s.r.sense()


def _to_remote_play(tmp_path):
    """Both hosts through the opening; then the player on roll plays and the other board
    shows that play on its LEDs. Returns the boards, the players and the receiving side."""
    o = RH.Opened(tmp_path)
    relay, (ba, bb), (pa, pb), paths = o.relay, o.boards, o.players, o.paths
    sa, sb = ba.board, bb.board
    for _ in range(4):  # a turn with a play to show (a dance shows nothing)
        side = sa.c.side
        here, there = (sa, sb) if side == 0 else (sb, sa)
        steps = here.r.play_turn()
        RH.run((pa, pb))
        if steps:
            break
        mine = sb if side == 0 else sa
        assert mine.r.press(1 - side, C.ROLL)
        RH.run((pa, pb))
    assert steps and there.c.opp.plan is not None  # on the LEDs, not journaled yet
    return relay, (ba, bb), (pa, pb), paths, 1 - side


def test_the_last_remote_play_survives_a_power_cut_of_board_and_host(tmp_path):
    relay, boards, players, paths, n = _to_remote_play(tmp_path)
    board, other = boards[n], boards[1 - n]
    plan = tuple(board.board.c.opp.plan)
    seat = remote.SeatFile(paths[n])
    assert seat.taken == players[n].brain.referee.last_seq  # the number is used up
    assert seat.last == players[n].brain.last is not None  # ... and the play is kept with it
    # the power goes at that place: the board's RAM (the play on its LEDs) and the host
    _power_cut(board, n)
    assert board.board.c.opp is None or board.board.c.opp.plan is None
    p2, out = RH.player(board, relay, n, paths[n])
    RH.run((p2, players[1 - n]))
    c = board.board.c
    assert c.opp.plan is not None and tuple(c.opp.plan) == plan, out.getvalue()
    # its player moves those checkers: both boards record the same play, nothing refused
    T._follow(board.board)
    RH.run((p2, players[1 - n]))
    assert c.last_play == other.board.c.last_play
    assert p2.brain.referee.refused == [] and players[1 - n].brain.referee.refused == []
    assert remote.SeatFile(paths[n]).last is None  # the board's records show it


def test_a_taken_play_is_not_handed_in_twice_after_a_restart(tmp_path):
    """The host restarts after its board journaled the play: the seat's kept play is the
    board's already, so it is dropped, never handed in again as a second play."""
    relay, boards, players, paths, n = _to_remote_play(tmp_path)
    board, other = boards[n], boards[1 - n]
    T._follow(board.board)
    board.board.r.sense()
    played = board.board.c.last_play
    p2, out = RH.player(board, relay, n, paths[n])  # started before the old one saw it
    RH.run((p2, players[1 - n]))
    c = board.board.c
    assert c.last_play == played == other.board.c.last_play
    assert c.opp is None or c.opp.plan is None  # no second play on the LEDs
    assert p2.brain.last is None and p2.brain.referee.refused == []


def test_a_seat_file_with_a_malformed_last_is_refused_clearly(tmp_path):
    p = tmp_path / "r.json"
    p.write_text('{"sent": [], "acked": 0, "taken": 3, "last": "13/10", "data": {}}')
    with pytest.raises(UserError, match="not a readable remote seat"):
        remote.SeatFile(p)
