"""The match rules the exports carry into GNU Backgammon: gnubg's ``.mat``
import ignores ``[Jacoby]`` and ``[Crawford]`` (its own ``set jacoby`` decides, the Crawford
rule is assumed), so the export tells the user what to set or which game gnubg gets wrong --
checked by importing the file into gnubg the way a user would; and a 1-point match has no
Crawford game in gnubg, so neither the SGF nor the Match IDs mark one."""

import os

import pytest
from bg import ids as bgids
from bg import record
from export_helpers import GNUBG_CLI, gnubg_cli_load_sgf, mismatches, random_match
from gammon import cli, model
from gammon.formats import ids, mat, sgf

gnubg = pytest.importorskip("gnubg")


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    yield
    gnubg.command("set jacoby on")  # gnubg's default, for the other tests in this process


def _export_mat(tmp_path, capsys, data, name):
    j = tmp_path / (name + ".m")
    j.write_bytes(data)
    out = tmp_path / (name + ".mat")
    code = cli.main(["export", str(j), "--format", "mat", "-o", str(out)])
    _o, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def _user_imports(path, users_setting):
    """What a user gets: gnubg as they left it, then the commands the file asks for, then
    ``import mat``."""
    gnubg.command(users_setting)
    for line in path.read_text().splitlines():
        if line.startswith("; " + mat.GNUBG_PREFIX):
            gnubg.command(line[len("; " + mat.GNUBG_PREFIX) :])
    gnubg.command("import mat %s" % path)
    return gnubg.match()


def _doubled(g):
    return any(a.kind in ("double", "auto_double") for a in g.actions)


@pytest.mark.parametrize(
    "flags,users_setting",
    [(record.OPT_BEAVER, "set jacoby on"), (record.OPT_BEAVER | record.OPT_JACOBY, "set jacoby off")],
    ids=["no-jacoby-into-gnubg-default", "jacoby-into-gnubg-jacoby-off"],
)
def test_money_mat_gives_gnubg_the_same_scores_after_the_printed_setting(
    tmp_path, capsys, flags, users_setting
):
    # the case must matter: a session gnubg scores differently under the other Jacoby rule (a
    # gammon with the cube centred) -- the first seeded one (the seeds' games follow the engine)
    gnubg.command(users_setting)
    plain = tmp_path / "plain.mat"
    for seed in range(4, 80):
        data = random_match(seed, length=0, flags=flags)[0]
        m = model.load_match(data)
        if not any(g.finished and g.result_kind >= 2 and not _doubled(g) for g in m.games):
            continue
        plain.write_text(
            "\n".join(x for x in mat.export(m).splitlines() if not x.startswith("; Before")) + "\n"
        )
        gnubg.command("import mat %s" % plain)
        if mismatches(m, gnubg.match()) != []:
            break
    else:
        raise AssertionError("no seeded session that the Jacoby setting changes")
    path, err = _export_mat(tmp_path, capsys, data, "money")
    want = "set jacoby %s" % ("on" if m.jacoby else "off")
    assert ("warning: " + mat.GNUBG_PREFIX + want) in err
    assert mismatches(m, _user_imports(path, users_setting)) == []


def test_mat_of_a_match_without_crawford_names_the_game_gnubg_gets_wrong(tmp_path, capsys):
    data = random_match(4, length=3, flags=0)[0]
    m = model.load_match(data)
    path, err = _export_mat(tmp_path, capsys, data, "nocrawford")
    g = next(g for g in m.games if 2 in g.score and g.score != (2, 2))
    assert not g.crawford and any(a.kind == "double" for a in g.actions)  # doubling was allowed
    note = "marks game %d (%d-%d) as the Crawford game" % (g.number, g.score[0], g.score[1])
    assert note in err and note in path.read_text() and ".sgf" in err
    # what the note says is true: gnubg's import marks that game Crawford
    gnubg.command("import mat %s" % path)
    gnubg.navigate(game=-1000)
    for _ in range(g.number - 1):
        gnubg.navigate(game=1)
    gnubg.navigate(next=1)
    assert bgids.decode_match_id(gnubg.match_id())["crawford"] is True
    # a match with the rule gets no such note
    _p, err = _export_mat(tmp_path, capsys, random_match(1, length=7)[0], "crawford")
    assert "Crawford" not in err


def test_one_point_match_has_no_crawford_game_in_gnubg(tmp_path):
    m = model.load_match(random_match(1, length=1)[0])
    assert m.length == 1 and len(m.games) == 1
    # the Match IDs: every state gnubg shows while stepping through the imported match is ours
    p = tmp_path / "one.mat"
    p.write_text(mat.export(m))
    gnubg.command("import mat %s" % p)
    ours = {(r["position_id"], r["match_id"]) for r in ids.rows(m)}
    gnubg.navigate(game=-1000)
    seen = 0
    for _ in range(1000):
        moved = gnubg.navigate(next=1)
        if gnubg.posinfo()["gamestate"] != 1:
            break
        assert (gnubg.position_id(), gnubg.match_id()) in ours
        seen += 1
        if moved is not None:
            break
    assert seen >= len(m.games[0].plays()) - 2
    # the SGF: no Crawford rule, as gnubg's own 1-point match
    text = sgf.export(m)
    assert "Crawford" not in text and "MI[length:1]" in text
    if os.path.exists(GNUBG_CLI):
        sp = tmp_path / "one.sgf"
        sp.write_text(text)
        gm = gnubg_cli_load_sgf(sp, tmp_path)
        assert "rules" not in gm["match-info"] and mismatches(m, gm) == []
