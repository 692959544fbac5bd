"""JSON export with a documented schema (docs/export-json.md): the whole match, every action
with the position it was decided in (gnubg Position ID / Match ID, XGID) and the move in
standard notation and as steps.

Example::

    >>> from gammon.formats import json_export
    >>> doc = json_export.to_dict(match)       # doctest: +SKIP
    >>> doc["games"][0]["actions"][0]["notation"]      # doctest: +SKIP
    '13/9 13/7'
"""

import json
import time

from gammon import model
from gammon.formats.ids import action_ids

FORMAT = "gammon-match"
VERSION = 1


def _hex(b):
    return bytes(b).hex() if b is not None else None


def _seed_part(f):
    """A SEED_PART's fields (source, name, part[, proof]) as the export shows them."""
    d = {"source": "host" if f[0] == 1 else "buttons", "name": f[1], "part": _hex(f[2])}
    if len(f) > 3:
        d["proof"] = _hex(f[3])  # the host's packed proof (docs/dice.md, gammon.dice_proof.pack)
    return d


def _action(match, g, a):
    d = {
        "kind": a.kind,
        "side": a.side if a.side >= 0 else None,
        "player": match.names[a.side] if a.side >= 0 else None,
        "cube": a.cube,
        "cube_owner": a.owner if a.owner >= 0 else None,
    }
    if a.kind == "play":
        d["dice"] = list(a.dice)
        d["steps"] = [[a.steps[i], a.steps[i + 1]] for i in range(0, len(a.steps), 2)]
        d["notation"] = a.text
        d["opening"] = a.opening
        d["illegal"] = a.illegal
    elif a.kind in ("double", "take", "drop", "beaver", "auto_double"):
        d["value"] = a.value
    else:
        d["value"] = a.value
        d["value_name"] = model.KIND_NAMES[a.value]
    r = action_ids(match, g, a)
    if r:
        d["position_id"], d["match_id"], d["xgid"] = r
    return d


def to_dict(match):
    """The export as plain Python data (see docs/export-json.md)."""
    t = match.date_time()
    from bg import ids as bgids

    games = []
    for g in match.games:
        gd = {
            "number": g.number,
            "score": list(g.score),
            "crawford": g.crawford,
            "openings": [list(d) for _f, d in g.openings],
            "starter": g.starter if g.starter >= 0 else None,
            "actions": [_action(match, g, a) for a in g.actions],
            "result": None,
        }
        if g.finished:
            gd["result"] = {
                "winner": g.winner,
                "points": g.points,
                "kind": model.KIND_NAMES.get(g.result_kind),
                "reason": g.reason,
            }
            gd["final_position_id"] = bgids.position_id(g.final_pos, g.winner)
        games.append(gd)
    return {
        "format": FORMAT,
        "version": VERSION,
        "match": {
            "id": match.id_hex,
            "start_time": time.strftime("%Y-%m-%dT%H:%M:%SZ", t) if t else None,
            "unix_time": match.unix_time,
            "length": match.length,
            "money": match.money,
            "players": list(match.names),
            "rules": {
                "crawford": match.crawford,
                "jacoby": match.jacoby,
                "beaver": match.beaver,
                "casual": match.casual,
                "house_opening": match.house_opening,
                "auto_double_limit": match.auto_limit,
            },
            "clock": {"reserve_s": match.clock[0], "delay_s": match.clock[1]},
            "dice": {
                "commitment": _hex(match.commitment),
                "player_seed": _hex(match.player_seed),
                "seed_parts": [_seed_part(f) for f in match.seed_parts],
                "board_seed": _hex(match.seed),
            },
            "final_score": list(match.final_score),
            "winner": match.winner,
            "complete": match.complete,
        },
        "games": games,
    }


def export(match, indent=2):
    """The JSON text of ``match``."""
    return json.dumps(to_dict(match), indent=indent, ensure_ascii=False) + "\n"
