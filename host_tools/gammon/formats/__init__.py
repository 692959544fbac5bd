"""Export formats of a decoded match (``gammon.model.Match``): ``mat`` (Jellyfish, read by
eXtreme Gammon and GNU Backgammon), ``sgf`` (GNU Backgammon), ``json`` (docs/export-json.md),
``svg`` (board diagrams) and ``ids`` (gnubg Position ID / Match ID and XGID of every position).

Each module has ``export(match, **options) -> str`` (``svg`` also writes folders).
``joint_transcript`` is not an export: it is the dice of a match between two boards as one
board's host holds them (``gammon remote verify``)."""

from gammon.errors import UserError

FORMATS = ("mat", "sgf", "json", "svg", "ids")


def check_exportable(match, what, auto_doubles=True):
    """UserError (a ValueError) when ``match`` holds something the format cannot carry
    faithfully."""
    for g in match.games:
        if g.auto_doubles and not auto_doubles:
            raise UserError(
                "game %d began with automatic doubles, which %s cannot represent; "
                "export it as sgf or json" % (g.number, what)
            )
        for a in g.actions:
            if a.kind == "play" and a.illegal:
                raise UserError(
                    "game %d has an illegal play accepted in casual mode (%s %s); %s cannot "
                    "represent it" % (g.number, "%d%d" % a.dice, a.text or "no move", what)
                )


def safe_name(name, default):
    """A player name for the text formats: never empty, no characters that break them."""
    name = (name or "").strip() or default
    for ch in ":[]\\\n\r\t":
        name = name.replace(ch, "_")
    return name


def crawford_rule(match):
    """True when GNU Backgammon plays ``match`` under the Crawford rule: a match of more than one
    point played with it. gnubg never applies it to a 1-point match (``pmr->g.fCrawford =
    fAutoCrawford && ms.nMatchTo > 1`` in its ``play.c``): at 0-0 both sides are already at
    match point, so there is no Crawford game to play."""
    return bool(match.length > 1 and match.crawford)


def crawford_game(match, game):
    """True when gnubg marks ``game`` as the Crawford game (its Match ID's Crawford bit, SGF's
    ``RU[Crawford:CrawfordGame]``): the board's Crawford game of a match longer than 1 point.
    The board's rules (``bg.match``) mark the only game of a 1-point match Crawford (no cube in
    it: there it makes no difference); the exports mirror gnubg."""
    return bool(crawford_rule(match) and game.crawford)
