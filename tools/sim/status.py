"""What the simulator page says in words: the firmware's status line (``app.sim_status``)
described for a newcomer, the firmware's console records decoded with sides by colour, and
the LED legend from the firmware's own palette (``bg.leds``).

Nothing here decides a rule: the phase, the dice, the cube, the score, the last play and the
controller's message all come from the firmware; this module only puts them into words
(side 0 plays the "white" checkers, side 1 the "black" ones: docs/leds.md).
"""

from app.ctl_defs import PHASE_NAMES as PHASES
from bg import board as B
from bg import engine as movegen
from bg import leds as L
from bg import notation
from bg import record as R

SIDES = ("white", "black")
WHERE = ("bottom", "top")  # where each player's buttons are on the page
KINDS = ("", "single", "gammon", "backgammon")

# The LED legend: (role, colour name, bg.leds constant). The RGB values come from bg.leds;
# docs/leds.md's palette table is checked against this list (tests/host/test_sim_server.py).
LEGEND = (
    ("side 0", "sky blue", "SKY_BLUE"),
    ("side 1", "orange", "ORANGE"),
    ('legal destination, "right"', "bluish green", "BLUISH_GREEN"),
    ('missing checker ("put one here")', "yellow", "YELLOW"),
    ('extra checker ("take one away")', "vermillion", "VERMILLION"),
    ("sensor fault", "reddish purple", "REDDISH_PURPLE"),
    ("neutral (centred cube)", "white", "WHITE"),
    ("update mode (nothing else uses it)", "blue", "BLUE"),
)


def legend():
    """The LED palette for the page: [{"role", "name", "rgb"}], RGB from ``bg.leds``."""
    return [{"role": role, "name": name, "rgb": list(getattr(L, const))} for role, name, const in LEGEND]


def _pos(hexpos):
    try:
        return bytearray(bytes.fromhex(hexpos or ""))
    except ValueError:
        return None


def _rows(mask, side=0):
    """Row mask (bit r: board points 1..24, 24/25 bar of side 0/1, 26/27 tray) in words, the
    points numbered from ``side``'s side as GNU Backgammon numbers them for the player on
    roll (side 1's point p is board point 25 - p)."""
    out = []
    for r in range(28):
        if mask >> r & 1:
            if r < 24:
                out.append("point %d" % (r + 1 if side != 1 else 24 - r))
            elif r < 26:
                out.append("%s's bar" % SIDES[r - 24])
            else:
                out.append("%s's tray" % SIDES[r - 26])
    return ", ".join(out)


def _remote(st):
    """The side a player at another board plays (``gammon remote``), or -1."""
    cp = st.get("cp", -1)
    return cp if st.get("rm") and cp in (0, 1) else -1


def _who(st, side):
    """A side's name on the panel: "black (remote)" for the player at the other board."""
    return SIDES[side] + (" (remote)" if side == _remote(st) else "")


def describe(st, before=None):
    """The page's status panel from the firmware's status line ``st`` (a dict, keys in
    ``app.sim_status``); ``before`` is the previous status (its position is the one the
    last play started from, for the play's notation). Returns a dict of short strings."""
    ph = st.get("ph", 0)
    phase = PHASES[ph] if 0 <= ph < len(PHASES) else "?"
    s = st.get("s", -1)
    who = SIDES[s] if s in (0, 1) else None
    d = st.get("d") or [0, 0]
    sc = st.get("sc") or [0, 0]
    length = st.get("len", 0)
    cube, owner = st.get("c", 1), st.get("o", -1)
    out = {
        "phase": phase,
        "match": "%d-point match" % length if length else "money session",
        "score": "white %d, black %d" % (sc[0], sc[1]),
        "crawford": "yes: no doubling this game" if st.get("cr") else "no",
        "cube": "%d, centred" % cube if owner not in (0, 1) else "%d, owned by %s" % (cube, SIDES[owner]),
        "turn": _who(st, s) if who else "either player",
        "last": "-",
    }
    out.update(confirmed(st))
    if phase == "game_over":  # the cube goes back to the middle for the next game
        out["cube"] = "1, centred (next game)"
    elif phase == "match_over":
        out["cube"] = "-"
    lp = st.get("lp")
    if lp:
        prev = _pos(before.get("pos")) if before else None
        out["last"] = "%s %s" % (_who(st, lp[0]), play_words(prev, lp[0], tuple(lp[1])))
    lv = st.get("lv")
    if lv and lp:
        prev = _pos(before.get("pos")) if before else None
        mine = play_words(prev, lv[0], tuple(lv[2]))
        if lv[1]:
            out["verdict"] = "%s's %s: the best play" % (SIDES[lv[0]], mine)
        else:
            out["verdict"] = "%s's %s: not the best; the best play was %s%s" % (
                SIDES[lv[0]],
                mine,
                play_words(prev, lv[0], tuple(lv[3])),
                _cost(prev, lv[0], tuple(lv[2]), tuple(lv[3])),
            )
    out["next"] = expect(st, phase, who, d)
    out["side"] = s  # the page numbers the points from this side (the mover's, as gnubg)
    return out


def confirmed(st):
    """The panel's pips and dice of the confirmed position (the firmware's status line)."""
    d = st.get("d") or [0, 0]
    return {
        "dice": "%d-%d" % (d[0], d[1]) if d[0] else "-",
        "pips": "white %d, black %d" % tuple(st.get("pip") or (0, 0)),
    }


def live_pips(locs):
    """Each side's pips as the checkers lie on the page now (``locs``: the physical board's
    stacks of colours, tools/sim/physical.py; a checker in the hand counts nowhere), by
    ``bg.board.pip_count`` of the position they make."""
    pos = B.new_position()
    for loc in range(24):
        for c in locs[loc]:
            pos[B.idx(c, loc + 1 if c == 0 else 24 - loc)] += 1
    for c in locs[24] + locs[25]:
        pos[B.idx(c, 25)] += 1
    return [B.pip_count(pos, 0), B.pip_count(pos, 1)]


def dice_used(d, used):
    """The dice row's words for the firmware's ``du`` (``bg.recognize``'s ``used``: a mask of
    the dice played, 1 ``d1`` and 2 ``d2``, or a doublet's steps played), or None for none."""
    d1, d2 = d
    if d1 == d2:
        if used >= 4:
            return "%d-%d: all four played" % (d1, d2)
        if used > 0:
            return "%d-%d: %s played, %s to play" % (
                d1,
                d2,
                ("one", "two", "three")[used - 1],
                ("three", "two", "one")[used - 1],
            )
        return None
    if used & 3 == 3:
        return "%d-%d: both played" % (d1, d2)
    if used & 1:
        return "%d-%d: %d played, %d to play" % (d1, d2, d1, d2)
    if used & 2:
        return "%d-%d: %d played, %d to play" % (d1, d2, d2, d1)
    return None


def live(st, locs):
    """The panel's pips and dice while the mover's checkers move, before the confirm: the
    pips as the checkers lie, and which dice they used so far -- the firmware's recogniser's
    word (the status line's ``du``: the dice the LEDs dim; a reading that is no part of a
    play keeps the last legal one's). ``{}`` outside a turn."""
    if st.get("ph") is None or PHASES[st["ph"]] != "moving" or st.get("s") not in (0, 1):
        return {}
    pos = _pos(st.get("pos"))
    d = st.get("d") or [0, 0]
    if pos is None or len(pos) != len(B.new_position()) or not d[0]:
        return {}
    now = live_pips(locs)
    before = [B.pip_count(pos, 0), B.pip_count(pos, 1)]
    out = {}
    if now != before:  # short: the row keeps one line, the controls below stay in place
        out["pips"] = ", ".join(
            "%s %d" % (SIDES[k], now[k]) + (" (was %d)" % before[k] if now[k] != before[k] else "")
            for k in (0, 1)
        )
    words = dice_used(d, st.get("du") or 0)
    if words:
        out["dice"] = words
    return out


def _cost(pos, side, play, best):
    """How much lower pubeval (the board's own judge) rates the play than the best one, in
    its own units (Tesauro's evaluation, not an equity): " (pubeval: 0.123 lower)", or ""."""
    if pos is None or len(pos) != len(B.new_position()):
        return ""
    from bg.engine import pubeval

    ends = []
    try:
        for steps in (play, best):
            end = bytearray(pos)
            for i in range(0, len(steps), 2):
                B.apply_step(end, side, steps[i], steps[i + 1])
            ends.append(end)
    except (ValueError, IndexError):
        return ""
    race = pubeval.is_race(pos, side)  # the weights the choice used (the position before)
    pe = pubeval.PubEval()
    d = pe.score(ends[1], side, race) - pe.score(ends[0], side, race)
    return " (pubeval: %.3f lower)" % (d / 3000000) if d > 0 else ""


def _pt(p):
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def play_words(pos, side, steps):
    """A play's steps (flat, the mover's numbering) in GNU Backgammon's notation ("24/21",
    "6/4*/1*": one checker's hops joined, hits marked) when ``pos`` (the position it was
    played from, bg.board layout) is known and holds the play; else hop by hop."""
    if not steps:
        return "cannot move"
    if pos is not None and len(pos) == len(B.new_position()):
        try:
            scratch = bytearray(pos)
            for i in range(0, len(steps), 2):
                B.apply_step(scratch, side, steps[i], steps[i + 1])
            return notation.format_play(pos, side, tuple(steps))
        except (ValueError, IndexError):
            pass  # not the position it was played from
    return " ".join("%s/%s" % (_pt(steps[i]), _pt(steps[i + 1])) for i in range(0, len(steps), 2))


def expect(st, phase, who, d):
    """ONE line: what the board expects next, in words."""
    where = WHERE[st.get("s")] if who else ""
    msg = st.get("m") or ""
    err = st.get("err")
    rs = _remote(st)
    if rs >= 0 and phase in ("await_roll", "moving", "doubled", "resigning"):
        text = _remote_expect(st, phase, rs, d)
        if text:
            return text
    if phase == "idle":
        return "press ROLL to start the match (the checkers on the start position: 'set up checkers')"
    if phase == "opening":
        return "press ROLL for the opening throw (one die each; the higher die starts)"
    if phase == "choice":
        return "%s: ROLL keeps the opening throw, CUBE throws again" % who
    if phase == "await_roll":
        text = "%s to roll: press ROLL (%s)" % (who, where)
        if st.get("cr"):
            text += " (Crawford game: no doubling)"
        elif st.get("md"):  # the firmware's word (bg.match's rules): CUBE only when it doubles
            text += ", or CUBE to double"
        return "%s -- %s" % (text, msg) if msg else text
    if phase == "moving":
        if err:
            parts = []
            if err[1]:
                parts.append("a checker too many on " + _rows(err[1], st.get("s")))
            if err[0]:
                parts.append("a checker missing on " + _rows(err[0], st.get("s")))
            return "illegal: %s; correct it, then press ROLL" % "; ".join(parts)
        pos = _pos(st.get("pos"))  # the turn's start (the play is not confirmed yet)
        if (
            not msg
            and pos is not None
            and len(pos) == len(B.new_position())
            and d[0]
            and st.get("cp") != st.get("s")  # (the computer passes by itself)
            and movegen.no_play(pos, st["s"], d[0], d[1])
        ):
            return "%s to play %d-%d: no legal play -- press ROLL (%s) to pass" % (who, d[0], d[1], where)
        plan = st.get("pl")
        steps = ""
        if plan:
            steps = play_words(pos, st["s"], tuple(plan[0])) if plan[0] else ""
        if st.get("cp") == st.get("s") and who:
            head = "the computer (%s) plays %d-%d: %s" % (who, d[0], d[1], steps or "no move")
            if msg:
                return "%s -- %s" % (head, msg)
            return head + " -- move those checkers as the LEDs show; the board records the play itself"
        if msg:
            return "%s: %s" % (who, msg)
        if plan and plan[1] and steps:
            return "%s to play %d-%d: the coach shows %s on the LEDs; press ROLL (%s) to confirm" % (
                who,
                d[0],
                d[1],
                steps,
                where,
            )
        return "%s to play %d-%d: move the checkers, then press ROLL (%s) to confirm" % (
            who,
            d[0],
            d[1],
            where,
        )
    if phase == "doubled":
        taker = SIDES[1 - st["s"]] if who else "the opponent"
        return "double offered: %s ROLL takes, CUBE drops" % taker
    if phase == "resigning":
        return "%s offers to resign: the opponent's ROLL accepts, CUBE rejects" % who
    if phase == "illegal":
        return "%s confirmed an illegal play: the opponent's ROLL accepts it, CUBE refuses" % who
    res = st.get("res")
    won = ""
    if res:
        won = "%s wins %d point%s (%s). " % (
            SIDES[res[0]],
            res[1],
            "" if res[1] == 1 else "s",
            KINDS[res[2] & 3],
        )
    if phase == "game_over":
        return won + "set up the checkers, then press ROLL for the next game"
    if phase == "match_over":
        return won + "match over: press ROLL"
    return msg or "-"


AWAY = "remote player not connected"


def _remote_expect(st, phase, rs, d):
    """What the board expects next when a player at another board is involved, or "" (the
    local player's usual line)."""
    s = st.get("s")
    them = _who(st, rs)
    plan = st.get("pl")
    if phase == "await_roll" and s == rs:
        return "waiting for %s: they roll or double at their board" % them
    if phase == "await_roll" and st.get("m") == AWAY:
        # the firmware's word (app.controller): this player's double or offer to resign was
        # refused because the other player's host is not back; a roll is still taken
        return (
            "%s to roll: press ROLL (%s) -- %s is not connected: no double or resignation until they are"
            % (
                _who(st, s),
                WHERE[s],
                them,
            )
        )
    if phase == "moving" and s == rs:
        if plan:
            pos = _pos(st.get("pos"))
            steps = play_words(pos, rs, tuple(plan[0])) if plan[0] else "no move"
            head = "%s played %d-%d: %s" % (them, d[0], d[1], steps)
            msg = st.get("m")
            if msg:
                return "%s -- %s" % (head, msg)
            return head + " -- move those checkers as the LEDs show; the board records the play itself"
        return "waiting for %s to play %d-%d at their board" % (them, d[0], d[1])
    if phase == "doubled":
        if s == rs:
            return "%s doubles: %s ROLL takes, CUBE drops" % (them, SIDES[1 - rs])
        return "waiting for %s to take or drop" % them
    if phase == "resigning":
        if s == rs:
            return "%s offers to resign: %s ROLL accepts, CUBE rejects" % (them, SIDES[1 - rs])
        if st.get("wt"):
            return "waiting for %s to accept or reject the resignation" % them
        return "%s offers to resign: ROLL sends the offer to %s (CUBE raises it, hold CUBE withdraws)" % (
            SIDES[s],
            them,
        )
    return ""


# record kinds whose first field is a side (or a winner)
_SIDED = (
    "ROLL",
    "PLAY",
    "DOUBLE",
    "TAKE",
    "DROP",
    "BEAVER",
    "RESIGN",
    "RESIGN_ACCEPT",
    "RESIGN_REJECT",
    "CLOCK",
)


def decode_log(line, pos=None):
    """A console line naming a record (``app.main`` logs ``NAME fields``) in words with the
    sides by colour, or None for any other line. ``pos``: the position a PLAY was played
    from (bg.board layout; its notation then marks the hits), if known."""
    name, _, rest = line.partition(" ")
    known = [R.name(k) for k in range(1, 0x14)]
    if name not in known:
        return None
    f = rest.split()
    try:
        if name in _SIDED:
            side = SIDES[int(f[0])]
            if name == "ROLL":
                return "%s rolls %s-%s" % (side, f[1], f[2])
            if name == "PLAY":
                inner = rest.split(" ", 1)[1].rsplit(" ", 1)[0].strip("()").replace(",", " ").split()
                steps = tuple(int(x) for x in inner)
                if len(steps) % 2 or any(not 0 <= x <= 25 for x in steps):
                    return None
                return "%s plays %s" % (side, play_words(_pos(pos) if pos else None, int(f[0]), steps))
            if name == "DOUBLE":
                return "%s doubles to %s" % (side, f[1])
            if name == "RESIGN":
                return "%s offers to resign (%s)" % (side, KINDS[int(f[1]) & 3])
            words = {
                "TAKE": "takes",
                "DROP": "drops",
                "BEAVER": "beavers",
                "RESIGN_ACCEPT": "accepts the resignation",
                "RESIGN_REJECT": "rejects the resignation",
                "CLOCK": "clock",
            }
            return "%s %s" % (side, words[name])
        if name == "OPENING":
            dice = [int(x) for x in rest.split(" ", 1)[1].strip("()").split(",")]
            if len(dice) == 2:  # one die each: (side 0's, side 1's)
                return "opening throw: white %d, black %d" % (dice[0], dice[1])
            return "opening throw " + rest.split(" ", 1)[1]
        if name == "GAME_START":
            return "game %s starts: white %s, black %s%s" % (
                f[0],
                f[1],
                f[2],
                " (Crawford)" if int(f[3]) & R.GAME_CRAWFORD else "",
            )
        if name == "GAME_END":
            return "%s wins %s point%s (%s)" % (
                SIDES[int(f[0])],
                f[1],
                "" if f[1] == "1" else "s",
                KINDS[int(f[2]) & 3],
            )
        if name == "MATCH_END":
            return "%s wins the match %s-%s" % (SIDES[int(f[0])], f[1], f[2])
        if name == "MATCH_START":
            return "new match: %s" % ("%s points" % f[2] if f[2] != "0" else "money session")
    except (IndexError, ValueError, KeyError):
        return None
    return None
