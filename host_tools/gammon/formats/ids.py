"""The GNU Backgammon Position ID and Match ID and the eXtreme Gammon XGID of every position
of a match where a player decides something (a roll to play, a cube offer to answer, a
resignation to answer), computed by the engine (``bg.ids``), so they paste straight into
gnubg (``set gnubgid PosID:MatchID``) or XG.

Output: one tab-separated line per decision::

    game  move  player  action      position_id     match_id      xgid
    1     1     Bob     45 24/20 8/3  4HPwATDgc/ABMA  cImlAAAAAAAE  XGID=-b----E-C---eE---c-e----B-:0:0:...

Example::

    >>> from gammon.formats import ids
    >>> for row in ids.rows(match): print(row["position_id"])      # doctest: +SKIP
"""

from bg import ids as bgids  # noqa: E402

from gammon import _paths  # noqa: F401
from gammon.errors import UserError
from gammon.formats import crawford_game

_ANSWER = {"take", "drop", "beaver"}


def parse_dice(text):
    """``"31"``, ``"3-1"``, ``"3,1"`` or ``"3 1"`` -> (3, 1); UserError otherwise."""
    t = text.strip().replace("-", "").replace(",", "").replace(" ", "")
    if len(t) != 2 or not t.isdigit() or not all("1" <= c <= "6" for c in t):
        raise UserError("dice must be two digits 1..6 such as 31 or 3-1, got %r" % text)
    return int(t[0]), int(t[1])


def parse_position_id(text):
    """The position a Position ID typed by the user names; UserError (the decoder's one-line
    reason) when it is none."""
    try:
        return bgids.decode_position_id(text)
    except ValueError as e:
        raise UserError(str(e)) from None


def action_ids(match, game, a):
    """``(position_id, match_id, xgid)`` of the state in which action ``a`` is decided, or
    None for actions that are not a decision (automatic doubles)."""
    if a.kind == "auto_double":
        return None
    if a.kind == "play":
        roller, turn, dice, doubled, resign = a.side, a.side, a.dice, False, 0
    elif a.kind == "double":
        # the doubler's decision: on roll, before rolling
        roller, turn, dice, doubled, resign = a.side, a.side, (0, 0), False, 0
    elif a.kind in _ANSWER:
        # the state while the cube is offered (the doubler owns the "dice", the taker acts)
        doubler = 1 - a.side
        roller, turn, dice, doubled, resign = doubler, 1 - doubler, (0, 0), True, 0
    elif a.kind == "resign":
        # the offerer's decision (gnubg shows no resignation pending yet)
        roller, turn, dice, doubled, resign = a.side, a.side, (0, 0), False, 0
    else:  # the answer to a resignation
        offerer = 1 - a.side
        roller, turn, dice, doubled, resign = offerer, a.side, (0, 0), False, a.value
    pos_id = bgids.position_id(a.pos, roller)
    crawford = crawford_game(match, game)  # gnubg's rule: never in a 1-point match
    m_id = bgids.match_id(
        cube_value=a.cube,
        cube_owner=a.owner,
        dice_owner=roller,
        crawford=crawford,
        game_state=bgids.GAME_PLAYING,
        turn=turn,
        doubled=doubled,
        resign=resign,
        dice=dice,
        length=match.length,
        score=game.score,
        jacoby=match.jacoby and not match.length,
    )
    xg = bgids.xgid(
        a.pos,
        roller,
        cube_value=a.cube,
        cube_owner=a.owner,
        dice=dice,
        score=game.score,
        length=match.length,
        crawford=crawford,
        jacoby=match.jacoby,
        beaver=match.beaver,
        doubled=doubled,
    )
    return pos_id, m_id, xg


def describe(match, a):
    """Short text of an action for listings: ``45 24/20 8/3``, ``doubles to 2``..."""
    if a.kind == "play":
        return "%d%d %s" % (a.dice[0], a.dice[1], a.text or "(no move)")
    if a.kind == "double":
        return "doubles to %d" % a.value
    if a.kind == "take":
        return "takes"
    if a.kind == "drop":
        return "drops"
    if a.kind == "beaver":
        return "beavers to %d" % a.value
    if a.kind == "auto_double":
        return "automatic double to %d" % a.value
    v = ("", "single", "gammon", "backgammon")[a.value]
    if a.kind == "resign":
        return "offers to resign a %s" % v
    return "accepts the resignation" if a.kind == "resign_accept" else "rejects the resignation"


def rows(match):
    """Every decision of ``match`` as dicts: game, move, side, player, action, position_id,
    match_id, xgid."""
    out = []
    for g in match.games:
        n = 0
        for a in g.actions:
            r = action_ids(match, g, a)
            if r is None:
                continue
            n += 1
            out.append(
                {
                    "game": g.number,
                    "move": n,
                    "side": a.side,
                    "player": match.names[a.side],
                    "action": describe(match, a),
                    "position_id": r[0],
                    "match_id": r[1],
                    "xgid": r[2],
                }
            )
    return out


def export(match):
    """Tab-separated text, one line per decision (header first)."""
    lines = ["game\tmove\tplayer\taction\tposition_id\tmatch_id\txgid"]
    for r in rows(match):
        lines.append(
            "%d\t%d\t%s\t%s\t%s\t%s\t%s"
            % (r["game"], r["move"], r["player"], r["action"], r["position_id"], r["match_id"], r["xgid"])
        )
    return "\n".join(lines) + "\n"
