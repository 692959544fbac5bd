"""``gammon.summary``: what a match came to, checked against GNU Backgammon's own reading of
the match's ``.mat`` export (each game's winner and points, the cube's doublings, each
side's dice), and ``gammon show``'s summary with and without GNU Backgammon's module."""

import sys

import pytest
from export_helpers import random_match
from gammon import model, summary
from gammon.formats import mat

SIDE = {"X": 0, "O": 1}


def _gnubg_view(gm):
    """Per game (winner, points, cube, kind) and per side [pips thrown, doublets, doubles,
    takes, drops], as gnubg's ``match()`` reports the imported match."""
    games, sides = [], [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    for g in gm["games"]:
        cube = 1
        for a in g["game"]:
            s = sides[SIDE[a["player"]]]
            if a["action"] == "move":
                d1, d2 = a["dice"]
                s[0] += 4 * d1 if d1 == d2 else d1 + d2
                s[1] += d1 == d2
            elif a["action"] == "double":
                s[2] += 1
            elif a["action"] == "take":
                s[3] += 1
                cube *= 2
            elif a["action"] == "drop":
                s[4] += 1
        info = g["info"]
        if info.get("winner"):
            pts = info["points-won"]
            games.append((SIDE[info["winner"]], pts, cube, summary.KINDS[pts // cube]))
    return games, sides


@pytest.mark.parametrize("seed,length", [(1, 5), (3, 5), (7, 7), (11, 3)])
def test_the_figures_are_gnubgs(tmp_path, seed, length):
    gnubg = pytest.importorskip("gnubg")
    m = model.load_match(random_match(seed, length=length)[0])
    p = tmp_path / "m.mat"
    p.write_text(mat.export(m))
    gnubg.command("import mat %s" % p)
    games, sides = _gnubg_view(gnubg.match())
    f = summary.facts(m)
    finished = [g for g in f["games"] if g[1] is not None]
    # resigned games: gnubg reads the points (the .mat's "Wins N points"), not how
    assert [(w, pts) for _n, w, pts, _k, _c, _h in finished] == [(w, pts) for w, pts, _c, _k in games]
    assert [(c, k) for _n, w, pts, k, c, h in finished if h != "resigned"] == [
        (c, k) for (w, pts, c, k), g in zip(games, finished) if g[5] != "resigned"
    ]
    for s in (0, 1):
        d = f["sides"][s]
        assert [d["pips_thrown"], d["doublets"], d["doubled"], d["took"], d["dropped"]] == sides[s], s
    assert f["score"] == m.final_score
    text = "\n".join(summary.lines(m))
    assert (
        "%s (player) %d - %s (player) %d, %d-point match: %s won"
        % (
            m.names[0],
            m.final_score[0],
            m.names[1],
            m.final_score[1],
            length,
            m.names[m.winner],
        )
        in text.splitlines()[0]
    )


def test_show_prints_the_summary_and_gnubgs_error_rates_when_it_is_installed(monkeypatch):
    pytest.importorskip("gnubg")
    from gammon.library_show import show_lines

    m = model.load_match(random_match(1, length=5)[0])
    text = "\n".join(show_lines(m))
    assert "\nSummary\n" in text and "by GNU Backgammon: error rate" in text
    from gammon import analyze

    for s, (rolls, total) in enumerate(analyze.luck(m)):  # each side's luck, gnubg's measure
        assert (
            "%s by GNU Backgammon: " % m.names[s] in text and "luck %+.3f (%d rolls)" % (total, rolls) in text
        )
    assert text.count("  costly: game ") == 3
    assert "Summary" not in "\n".join(show_lines(m, 1))  # one game: its moves only
    # without GNU Backgammon's module: the summary, no engine verdict
    monkeypatch.setitem(sys.modules, "gnubg", None)
    text = "\n".join(show_lines(m))
    assert "\nSummary\n" in text and "GNU Backgammon" not in text


def test_who_played_what():
    m = model.Match()
    m.names = ("white", "pubeval, then gnubg 0-ply")
    m.flags = model.record.OPT_COMPUTER1
    assert summary.role(m, 0) == "player"
    assert summary.role(m, 1) == "board's computer, then GNU Backgammon"
    m.flags = 0
    m.names = ("gnubg 2-ply", "Ann")
    assert (summary.role(m, 0), summary.role(m, 1)) == ("GNU Backgammon", "player")
