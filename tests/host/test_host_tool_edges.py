"""The host tool's rough edges, through the real CLI: ``gammon show GAME
--game N``, output piped into ``head``, arguments that are neither a Position ID nor a game, and
what ``gammon watch`` prints (the throw, then the play, then the board after it)."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bg import record
from cli_helpers import run_cli
from export_helpers import random_match
from gammon import model
from gammon.commands import library as cmds
from gammon.library_show import show_lines  # noqa: E402
from gammon.render import render_board

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.usefixtures("home")  # every test: a library home of its own
_run = run_cli


def _import(tmp_path, capsys, data):
    p = tmp_path / "j.m"
    p.write_bytes(data)
    assert _run(capsys, "import", str(p))[0] == 0
    return model.load_match(data)


def test_show_game_n_shows_only_that_game(tmp_path, capsys):
    m = _import(tmp_path, capsys, random_match(1, length=7)[0])
    assert len(m.games) >= 3
    g2 = m.games[1]
    code, out, err = _run(capsys, "show", "#1", "--game", "2")
    assert code == 0, err
    assert "Game 2 " in out and "Game 1 " not in out and "Game 3 " not in out
    assert out.count("BAR") == len(g2.plays())
    assert out == "\n".join(show_lines(m, 2)) + "\n"
    # a game the match does not have is an error, not an empty listing
    code, out, err = _run(capsys, "show", "#1", "--game", str(len(m.games) + 1))
    assert (
        code == 2 and out == "" and "no game %d (the match has %d)" % (len(m.games) + 1, len(m.games)) in err
    )
    # --game makes no sense for a position
    code, out, err = _run(capsys, "show", "4HPwATDgc/ABMA", "--game", "1")
    assert code == 2 and "--game" in err


def test_output_piped_into_head_ends_quietly(tmp_path, capsys):
    m = _import(tmp_path, capsys, random_match(2, length=5)[0])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(ROOT / p) for p in ("host_tools", "firmware")))
    code = "import sys; from gammon.cli import main; sys.exit(main())"
    for argv in (["show", "#1"], ["export", "#1", "-f", "json"], ["list"]):
        p = subprocess.Popen(
            [sys.executable, "-c", code, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        first = p.stdout.readline()  # what `head -1` reads, then it goes away
        p.stdout.close()
        err = p.stderr.read().decode()
        rc = p.wait(timeout=60)
        assert first.strip(), argv
        assert err == "" and rc == 0, (argv, rc, err)
    assert m.id_hex


def test_an_argument_that_is_no_game_says_what_it_could_be(tmp_path, capsys):
    _import(tmp_path, capsys, random_match(1, length=3)[0])
    for arg, msg in (
        ("deadbeef", "unknown game 'deadbeef': not in the library"),
        ("deadbeefdeadbeef0", "neither a Position ID (14 characters) nor a game"),
        (str(tmp_path / "lost.m"), "cannot read %s: no such file" % (tmp_path / "lost.m")),
        ("games/lost.m", "cannot read games/lost.m: no such file"),
        ("not-an-id", "neither a Position ID (14 characters) nor a game"),
    ):
        code, out, err = _run(capsys, "show", arg)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and msg in lines[0], (arg, err)
        assert "has 14 characters, got" not in err, arg
    # a mistyped Position ID still gets the Position ID's own message
    code, out, err = _run(capsys, "show", "4HPwATDgc/AB!A")
    assert code == 2 and "Position ID" in err


class _LiveBoard:
    """A board whose live match is published record by record from its very first one."""

    def __init__(self, records):
        self.records = records

    def list_games(self):
        return []

    def watch(self):
        yield from self.records


def _records(data):
    dec = record.Decoder(data, split_turns=False)
    out, at = [], 0
    for _ in dec:
        out.append(data[at : dec.valid])
        at = dec.valid
    return out


def test_watch_prints_the_throw_then_the_play_then_the_board_after_it():
    data = random_match(2, length=5)[0]
    m = model.load_match(data)
    recs = _records(data)
    out = io.StringIO()
    cmds.watch_loop(_LiveBoard(recs), out=out, clear=False)
    text = out.getvalue()
    screens = text.split("cube ")  # every event ends with the cube line once a game is on
    # nobody is on roll before the opening throw
    head = text[: text.index("opening throw:")]
    assert "BAR" in head and "on roll" not in head
    # the opening throw is printed, with who plays first
    g1 = m.games[0]
    flags, dice = g1.openings[0]
    assert "opening throw: %s %d, %s %d" % (m.names[0], dice[0], m.names[1], dice[1]) in text
    # every play: the throw, then the play in gnubg notation, then the board after it
    at = 0
    for g in m.games:
        for a in g.plays():
            play = "%s plays %s\n" % (m.names[a.side], a.text or "(no move)")
            i = text.index(play, at)
            if not a.opening:
                throw = "%s rolls %d%d\n" % (m.names[a.side], a.dice[0], a.dice[1])
                assert text.rindex(throw, at, i) < i
            board_after = render_board(a.after, 1 - a.side, m.names)
            j = text.index("\n" + board_after.split("\n", 1)[1], i)
            assert j > i and text.index("BAR", i) > i
            at = j
    assert len(screens) > len(recs) // 2


# --- the core/CLI split: gammon's own errors are one line, anything else is a bug ------------


def test_a_bug_shows_its_traceback_and_asks_for_a_report(capsys, monkeypatch):
    """A ValueError that is not one of gammon's errors is a bug: never passed off as the
    user's bad input in one line."""
    from gammon.commands import plays

    def broken(text):
        raise ValueError("an index went wrong")

    monkeypatch.setattr(plays, "parse_dice", broken)
    code, out, err = _run(capsys, "plays", "4HPwATDgc/ABMA", "31")
    assert code == 70 and out == ""
    assert "Traceback (most recent call last)" in err and "ValueError: an index went wrong" in err
    assert "internal error in 'gammon plays'" in err and "please report it" in err
    assert "gammon: error:" not in err


def test_errors_the_core_raises_are_its_own_and_the_cli_prints_them(tmp_path, capsys):
    from gammon import analyze, errors, library_show

    with pytest.raises(errors.UserError):
        library_show.library_show("neither-id-nor-game")
    with pytest.raises(errors.UserError):
        library_show.load_game(str(tmp_path / "missing"))  # an empty library: no such game
    m = model.load_match(random_match(1, length=3)[0])
    with pytest.raises(errors.UserError, match="no game 99"):
        library_show.pick_game(m, 99)
    assert library_show.pick_game(m, None) is m.games[-1]
    assert (
        issubclass(errors.MissingPackage, errors.GammonError)
        and analyze.MissingPackage is errors.MissingPackage
    )
    code, out, err = _run(capsys, "show", "#7")
    assert code == 2 and err.startswith("gammon: error:") and err.count("\n") == 1


def test_core_modules_never_import_the_command_line():
    """Only gammon.cli and gammon/commands may import gammon.cli or a command module.
    (club/checks.py reuses ``gammon verify``'s logic from its command module: not yet split.)"""
    import ast

    pkg = ROOT / "host_tools" / "gammon"
    bad = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg)
        if rel.parts[0] in ("commands", "cli.py", "_fw") or rel == Path("club", "checks.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [node.module + "." + a.name for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if any(n == "gammon.cli" or n.startswith("gammon.commands") for n in names):
                bad.append("%s:%d" % (rel, node.lineno))
    assert not bad, bad


def test_board_update_progress_keeps_no_state_between_updates(capsys):
    from gammon.commands import board

    for _ in range(2):  # two updates in one process: each prints its own tenths
        p = board._Progress()
        for done in (0, 50, 100, 100):
            p(done, 100)
        assert capsys.readouterr().out.count("bytes (") == 3


@pytest.mark.parametrize(
    "argv, why",
    [
        (("board", "info", "--board", "nosuch", "--direct"), "no paired board 'nosuch'"),
        (("boards", "--forget", "nosuch"), "no paired board 'nosuch'"),
        (("boards", "--default", "nosuch"), "no paired board 'nosuch'"),
        (("pair", "carrier-pigeon:7"), "unknown board address"),
    ],
)
def test_the_links_bad_input_is_one_line_not_a_bug(capsys, argv, why):
    """The link signals a board never paired or an address that is none with ValueError; the
    commands say so in one line (exit 2), not as an internal error."""
    code, out, err = _run(capsys, *argv)
    assert code == 2 and err.startswith("gammon: error:") and err.count("\n") == 1 and why in err, err
