"""What ``gammon watch`` prints for the board's live match: for every action the board
publishes, its lines in the order it happened -- the throw (the opening throw, a roll), then
the play in gnubg notation -- and then the board after it (``screen``). Before the opening
throw nobody is on roll, so the board says so; after it the side to act is at the bottom.

With ``--learn`` (``learning_lines``) each board is followed by the pip counts, on the
opening roll Carlit's book play for it (seed 002, ``bg.aids``), and right after a play the
shots the opponent has at the blots it left (x/36, the board's blocking points counted:
``bg.aids.shots``) and the equity it lost against GNU Backgammon's best play
(``gammon.analyze.play_judge``, when the ``gnubg`` module is there).

In a match with another board (``gammon remote``, its ``JOINT_START``) the side played at
the other board is named "(remote)" in every line, and ``screen`` says when the board waits
for that player (``waiting_line``).

``r`` is the replay the watch folds the actions into (``gammon.model._Replay``): these
functions only read it, but for the remote side, which ``event_lines`` notes on it from the
``JOINT_START`` (no action of the match model)."""

from bg import aids, board, notation, record

from gammon.formats.ids import describe
from gammon.render import render_board

# replay phases in which a side is to act (the others: before the opening, between games, over)
_ACTING = ("choice", "await_roll", "moving", "doubled", "resigning")


def _remote(r):
    """The side played at the other board in a match with another board, or -1."""
    return getattr(r, "remote_side", -1)


def _name(r, side):
    name = r.m.names[side] or "side %d" % side
    return name + " (remote)" if side == _remote(r) else name


def waiting_line(r):
    """In a match with another board: whom the board waits for when it is the player at the
    other board ("waiting for black (remote) to play 31"), or what they offer; else ""."""
    rs = _remote(r)
    if rs < 0 or r.m is None or r.g is None:
        return ""
    mt = r.mt
    ph = r.phase
    who = _name(r, rs)
    if ph == "await_roll" and r.side == rs:
        return "waiting for %s to roll or double" % who
    if ph == "moving" and r.side == rs:
        return "waiting for %s to play %d%d" % (who, r.dice[0], r.dice[1])
    if ph == "doubled" and mt.offer == 1 - rs:
        return "waiting for %s to take or drop" % who
    if ph == "resigning":
        if mt.resign_offer == 1 - rs:
            return "waiting for %s to accept or reject the resignation" % who
        return "%s offers to resign: ROLL accepts, CUBE rejects" % who
    return ""


def event_lines(r, kind, fields, n_before):
    """The lines of one action just fed to ``r`` (``n_before``: the current game's action count
    before it, to find the actions it added)."""
    m = r.m
    if m is None:
        return []
    if kind == record.MATCH_START:
        return [
            "match: %s - %s, %s"
            % (_name(r, 0), _name(r, 1), "%d-point match" % m.length if m.length else "money")
        ]
    if kind == record.GAME_START:
        g = r.g
        return [
            "game %d  (%s %d, %s %d)%s"
            % (
                g.number,
                _name(r, 0),
                g.score[0],
                _name(r, 1),
                g.score[1],
                "  Crawford game" if g.crawford else "",
            )
        ]
    if kind == record.OPENING:
        flags, dice = fields
        if flags & record.OPEN_REROLL:
            out = ["%s throws again: %d%d" % (_name(r, r.side), dice[0], dice[1])]
        elif len(dice) == 4:
            out = [
                "opening throw: %s %d-%d, %s %d-%d"
                % (_name(r, 0), dice[0], dice[1], _name(r, 1), dice[2], dice[3])
            ]
        else:
            out = ["opening throw: %s %d, %s %d" % (_name(r, 0), dice[0], _name(r, 1), dice[1])]
        if r.phase == "moving":
            out.append("%s plays first with %d%d" % (_name(r, r.side), r.dice[0], r.dice[1]))
        elif r.phase == "choice":
            out.append("%s may play %d%d or throw again" % (_name(r, r.side), r.dice[0], r.dice[1]))
        elif r.phase == "opening":
            out.append("a tie: both throw again")
        return out
    if kind == record.ROLL:
        side, d1, d2 = fields
        return ["%s rolls %d%d" % (_name(r, side), d1, d2)]
    if kind == record.JOINT_START:
        r.remote_side = 1 - fields[0]  # (this board plays fields[0])
        who = _name(r, r.remote_side)
        return ["a match with another board: %s plays there (the dice are both boards')" % who]
    out = []
    for a in r.g.actions[n_before:] if r.g is not None else ():
        who = _name(r, a.side) if a.side >= 0 else "board"
        if a.kind == "play":
            out.append("%s plays %s" % (who, a.text or "(no move)"))
        else:
            out.append("%s: %s" % (who, describe(m, a)))
    if kind == record.GAME_END:
        g = r.g
        out.append("%s wins %d point%s" % (_name(r, g.winner), g.points, "" if g.points == 1 else "s"))
    elif kind == record.MATCH_END:
        out.append(m.result_text())
    return out


def screen(r):
    """The score line, the board (the side to act at the bottom, marked on roll only when
    someone is) and the cube."""
    if r.m is None:
        return "waiting for a match to start...\n"
    m = r.m
    score = r.score
    acting = r.side >= 0 and r.phase in _ACTING
    out = "%s %d - %s %d   %s\n" % (
        m.names[0],
        score[0],
        m.names[1],
        score[1],
        "%d-point match" % m.length if m.length else "money",
    )
    out += render_board(r.pos, r.side if acting else 0, m.names, on_roll=acting) + "\n"
    if r.g is not None:
        out += "cube %d%s\n" % (r.g.cube, "" if r.g.owner < 0 else " (%s)" % m.names[r.g.owner])
    w = waiting_line(r)
    if w:
        out += w + "\n"
    return out


def learning_lines(r, judge=None):
    """Learning mode: the pip counts (who leads the race, by how much); while the first play
    of a game is to be made from the start position, the booklet's play for the roll; right
    after a play (the next roll not thrown yet), the shots at the blots the mover left and,
    with ``judge`` (``gammon.analyze.play_judge``), the equity the play lost."""
    if r.m is None or r.g is None:
        return []
    pips = (board.pip_count(r.pos, 0), board.pip_count(r.pos, 1))
    if pips[0] == pips[1]:
        lead = "even"
    else:
        ahead = 0 if pips[0] < pips[1] else 1
        lead = "%s leads by %d" % (_name(r, ahead), abs(pips[0] - pips[1]))
    out = ["pips: %s %d, %s %d (%s)" % (_name(r, 0), pips[0], _name(r, 1), pips[1], lead)]
    start = board.start_position()
    if r.phase in ("moving", "choice") and r.dice and bytes(r.pos) == bytes(start):
        d1, d2 = r.dice[0], r.dice[1]
        alts = "".join(" or " + notation.format_play(start, 0, a) for a in aids.opening_alternatives(d1, d2))
        out.append("book play for %d%d (Carlit): %s%s" % (d1, d2, aids.opening_text(d1, d2), alts))
    a = r.g.actions[-1] if r.g.actions else None
    if a is not None and a.kind == "play" and r.phase == "await_roll":
        out.append(shots_line(r, a.side))
        if judge is not None:
            out.append(verdict_line(_name(r, a.side), judge(r.m, r.g, a)))
    return out


def verdict_line(name, got):
    """GNU Backgammon's verdict on ``name``'s play in words: ``got`` is ``play_judge``'s
    answer (None: the roll left no choice). ``gammon watch --learn`` and ``gammon play
    --learn`` print it."""
    if got is None:
        return "%s had no choice" % name
    if got[0] < 0.0005:
        return "%s made GNU Backgammon's best play" % name
    return "equity lost by %s: %.3f (best: %s)" % (name, got[0], got[1])


def blot_shots(pos, side):
    """``[(point, shots)]``: each blot of ``side`` (its own points 1..24) and how many of the
    36 rolls let the opponent hit it (``bg.aids.shots``: a legal play that hits, the blocking
    points and the bar rule counted)."""
    b = board.base(side)
    out = []
    for q in range(1, 25):
        if pos[b + q - 1] == 1:
            out.append((q, aids.shots(pos, 1 - side, 25 - q)))
    return out


def shots_line(r, side):
    """The line after ``side``'s play: its blots and the shots at each, or that it left none."""
    found = blot_shots(r.pos, side)
    if not found:
        return "%s left no blot" % _name(r, side)
    return "shots at %s's blots: %s" % (
        _name(r, side),
        ", ".join("%d-pt %d/36" % (q, n) for q, n in found),
    )
