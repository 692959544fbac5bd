"""The simulator page's panel in a match with another board: from the firmware's own status
line (``app.sim_status``: ``rm``, the computer's side is a player at another board; ``wt``,
the board waits for its host) the panel (``tools.sim.status.describe``) names that side
"(remote)" and says whom the board waits for -- their roll, their play, their answer to a
resignation -- and what they did (their play on the LEDs in notation, their offer to
resign). Two real controllers in a match their hosts carry through a relay
(tests/host/test_remote_resign.py)."""

import test_controller_joint as T
import test_remote_board_dice as B
import test_remote_resign as RR
from app import controller as C
from app.sim_status import Status

from tools.sim import status as words


def _panel(board):
    sent = []
    st = Status(sent.append)
    assert st.poll(board.c, board.r.now) and sent
    line = sent[-1]
    return line, words.describe(line)


def test_the_panel_names_the_remote_player_and_whom_the_board_waits_for():
    a, b = RR._two()
    side, here, there = RR._boards(a, b)
    them = words.SIDES[side] + " (remote)"
    line, p = _panel(there)
    assert line["rm"] == 1 and line["wt"] == 1 and line["cp"] == side
    assert p["turn"] == them
    d = there.c.dice
    assert p["next"] == "waiting for %s to play %d-%d at their board" % (them, d[0], d[1])
    line, p = _panel(here)
    assert line["rm"] == 1 and "remote" not in p["turn"]  # here, its own player moves
    # their play reaches ``there``: shown in notation while its player moves those checkers
    here.r.play_turn()
    B._settle((a, b))
    line, p = _panel(there)
    assert line["pl"] and p["next"].startswith("%s played %d-%d: " % (them, d[0], d[1])), p["next"]
    assert "move those checkers as the LEDs show" in p["next"]
    T._follow(there)
    B._settle((a, b))
    line, p = _panel(there)
    assert p["last"].startswith(them + " "), p["last"]
    # the next player, on ``there``, offers a gammon: on ``here`` the remote's offer
    nxt = 1 - side
    _, p = _panel(here)
    assert p["next"] == "waiting for %s (remote): they roll or double at their board" % words.SIDES[nxt]
    assert there.r.press(nxt, C.CUBE, C.LONG) and there.r.press(nxt, C.CUBE)
    _, p = _panel(there)
    assert p["next"].startswith("%s offers to resign: ROLL sends the offer to %s" % (words.SIDES[nxt], them))
    assert there.r.press(nxt, C.ROLL)
    _, p = _panel(there)
    assert p["next"] == "waiting for %s to accept or reject the resignation" % them
    B._settle((a, b))
    _, p = _panel(here)
    rname = words.SIDES[nxt] + " (remote)"
    assert p["next"] == "%s offers to resign: %s ROLL accepts, CUBE rejects" % (rname, words.SIDES[side])
