"""The library commands through the real CLI (``gammon.cli.main``): import, list, export in
every format, show, sync and watch against a fake board (an object with the link Client's
methods: ``info``, ``list_games``, ``fetch_game``, ``delete_games``, ``watch``), and the
one-line errors for bad files, unknown games and a full disk."""

import hashlib
import io
import json
import os
import xml.etree.ElementTree as ET

import pytest
from bg import board, record
from bg import ids as bgids
from cli_helpers import run_cli
from export_helpers import MatchWriter, random_match
from gammon import analyze as analyze_mod  # noqa: E402
from gammon import model
from gammon.commands import library as cmds
from gammon.formats import ids, json_export, svg
from gammon.library import Library
from gammon.library_show import show_lines  # noqa: E402

pytestmark = pytest.mark.usefixtures("home")  # every test: a library home of its own
_run = run_cli


def _journal(tmp_path, *matches, name="journal.m"):
    p = tmp_path / name
    p.write_bytes(b"".join(matches))
    return p


def _count():
    with Library.open() as lib:
        return lib.count()


def test_import_list_export_roundtrip(tmp_path, capsys):
    a, b = random_match(1, length=7)[0], random_match(2, length=5)[0]
    j = _journal(tmp_path, a, b)
    code, out, _ = _run(capsys, "import", str(j))
    assert code == 0 and out.count("new ") == 2
    code, out, _ = _run(capsys, "import", str(j))
    assert code == 0 and out.count("same ") == 2 and _count() == 2
    code, out, _ = _run(capsys, "list", "--player", "alice", "--length", "7")
    assert code == 0 and model.load_match(a).id_hex in out and model.load_match(b).id_hex not in out
    mid = model.load_match(a).id_hex
    for fmt in ("mat", "sgf", "json", "ids"):
        dest = tmp_path / ("out." + fmt)
        code, out, _ = _run(capsys, "export", mid[:6], "--format", fmt, "-o", str(dest))
        assert code == 0 and dest.exists()
        assert dest.read_text() == cmds.export_text(model.load_match(a), fmt)
    # straight from a journal file, to standard output
    code, out, _ = _run(capsys, "export", str(_journal(tmp_path, a, name="one.m")), "-f", "mat")
    assert code == 0 and out.startswith('; [Site "')


def test_unknown_game_and_bad_files_are_one_line(tmp_path, capsys):
    _run(capsys, "import", str(_journal(tmp_path, random_match(1)[0])))
    before = _count()
    for argv, msg in (
        (("export", "abcdef", "-f", "mat"), "unknown game 'abcdef'"),
        (("export", "#7", "-f", "sgf"), "no game #7"),
        (("import", str(tmp_path / "missing.m")), "cannot read"),
        (("import", str(_journal(tmp_path, b"\x00not a journal", name="bad.m"))), "not a board record"),
        (("export", str(_journal(tmp_path, b"\x02garbage", name="bad2.m")), "-f", "json"), "bad2.m"),
        (("list", "--since", "yesterday"), "bad date"),
    ):
        code, out, err = _run(capsys, *argv)
        assert code == 2, argv
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("gammon: error:") and msg in lines[0], (argv, err)
    assert _count() == before


def test_damaged_match_in_a_journal_is_reported_and_skipped(tmp_path, capsys):
    good = random_match(1)[0]
    bad = bytearray(random_match(2)[0])
    # make a play illegal but keep every checksum right: rewrite one PLAY record
    w = record.encode
    bad = (
        w(record.MATCH_START, (b"\x09" * 8, 0, 3, 1, 0, 0, 0, "A", "B", bytes(32), b""))
        + w(record.GAME_START, (1, 0, 0, 0))
        + w(record.OPENING, (0, (3, 1)))
        + w(record.PLAY, (0, (24, 20, 6, 5), 0))
    )
    code, out, _ = _run(capsys, "import", str(_journal(tmp_path, good, bad)))
    assert code == 1
    assert "skipped a damaged match: action 4: illegal play" in out and _count() == 1


def test_full_disk_while_writing_an_export_leaves_no_file(tmp_path, capsys, monkeypatch):
    _run(capsys, "import", str(_journal(tmp_path, random_match(1)[0])))

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    dest = tmp_path / "x.mat"
    code, out, err = _run(capsys, "export", "#1", "-o", str(dest))
    assert code == 2 and "No space left on device" in err and len(err.strip().splitlines()) == 1
    assert not dest.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".gammon-")]


def test_full_disk_during_import_keeps_the_library(tmp_path, capsys, monkeypatch):
    _run(capsys, "import", str(_journal(tmp_path, random_match(1)[0])))
    real_open = Library.open

    def full_open(path=None, create=True):
        lib = real_open(path, create)
        lib.db.execute("PRAGMA max_page_count=%d" % lib.db.execute("PRAGMA page_count").fetchone()[0])
        return lib

    monkeypatch.setattr(Library, "open", staticmethod(full_open))
    big = MatchWriter(0, length=0).play_match(max_games=40)  # larger than a free page
    code, out, err = _run(capsys, "import", str(_journal(tmp_path, big, name="b.m")))
    assert code == 2 and "disk is full" in err
    monkeypatch.setattr(Library, "open", staticmethod(real_open))
    assert _count() == 1


def test_json_export_follows_the_documented_schema():
    want = {"play", "double", "take", "drop", "beaver", "auto_double", "resign"}
    # the first seeded money session that has every kind of action (the seeds' matches depend on
    # the engine's play order; a handful of seeds always has one)
    for seed in range(40):
        data, _ = random_match(seed, length=0, flags=record.OPT_BEAVER | record.OPT_JACOBY, auto_limit=2)
        m = model.load_match(data)
        doc = json.loads(json_export.export(m))
        if want <= {a["kind"] for g in doc["games"] for a in g["actions"]}:
            break
    assert doc["format"] == "gammon-match" and doc["version"] == 1
    mt = doc["match"]
    assert mt["id"] == m.id_hex and mt["players"] == ["Alice", "Bob"] and mt["money"]
    assert mt["rules"] == {
        "crawford": False,
        "jacoby": True,
        "beaver": True,
        "casual": False,
        "house_opening": False,
        "auto_double_limit": 2,
    }
    assert mt["final_score"] == list(m.final_score) and mt["start_time"] == "2023-11-14T22:13:20Z"
    kinds = {a["kind"] for g in doc["games"] for a in g["actions"]}
    assert want <= kinds
    flat = [a for g in doc["games"] for a in g["actions"] if "position_id" in a]
    assert [a["position_id"] for a in flat] == [r["position_id"] for r in ids.rows(m)]
    for g, gm in zip(doc["games"], m.games):
        assert g["score"] == list(gm.score)
        if gm.finished:
            assert g["result"]["points"] == gm.points and g["result"]["reason"] == gm.reason
        for a in g["actions"]:
            if a["kind"] == "play":
                steps = tuple(x for s in a["steps"] for x in s)
                assert len(a["dice"]) == 2 and len(steps) <= 8
                assert a["notation"] == model.notation.format_play(
                    bgids.decode_position_id(a["position_id"], side_on_roll=a["side"]), a["side"], steps
                )


def test_svg_diagram_draws_every_checker(tmp_path, capsys):
    pos = board.from_points({6: 5, 8: 3, 25: 2, 3: 1}, {24: 2, 13: 5, 25: 1})
    doc = ET.fromstring(svg.position_svg(pos, 0, ("A", "B"), "test"))
    circles = [e for e in doc.iter() if e.tag.endswith("circle")]
    assert len(circles) == 5 + 3 + 2 + 1 + 2 + 5 + 1
    texts = " ".join(e.text or "" for e in doc.iter() if e.tag.endswith("text"))
    assert "off 4" in texts and "off 7" in texts and "test" in texts
    _run(capsys, "import", str(_journal(tmp_path, random_match(1)[0])))
    code, out, _ = _run(capsys, "export", "#1", "-f", "svg", "-o", str(tmp_path / "pics"))
    files = sorted((tmp_path / "pics").rglob("*.svg"))
    assert code == 0 and len(files) == int(out.split()[1])
    m = model.load_match(random_match(1)[0])
    assert len(files) == sum(len(g.plays()) + g.finished for g in m.games)
    for f in files[:5]:
        ET.parse(f)
    code, out, _ = _run(
        capsys, "export", "#1", "-f", "svg", "--game", "1", "--move", "3", "-o", str(tmp_path / "one.svg")
    )
    assert code == 0 and ET.parse(tmp_path / "one.svg")


def test_show_game_prints_boards_and_results(tmp_path, capsys):
    data = random_match(1, length=7)[0]
    m = model.load_match(data)
    lines = show_lines(m)
    text = "\n".join(lines)
    assert text.count("BAR") == sum(len(g.plays()) for g in m.games)
    assert "Crawford game" in text and lines[-1] == m.result_text()
    assert "Bob: 46 13/9 13/7" in text


# --- sync and watch against a fake board ------------------------------------------------------


class FakeBoard:
    """What the link Client offers, over an in-memory list of journals."""

    def __init__(self, matches, name="Test board"):
        self.games = {model.load_match(d).id_hex: d for d in matches}
        self.live = set()
        self.name = name
        self.fetched = []
        self.deleted = []
        self.fail_on = None
        self.events = []

    def info(self):
        return {"name": self.name, "board_id": "00" * 8}

    def list_games(self):
        return [
            {"id": k, "size": len(v), "state": 0 if k in self.live else 1, "finished": k not in self.live}
            for k, v in self.games.items()
        ]

    def fetch_game(self, gid, progress=None, resume=True):
        if gid == self.fail_on:
            raise KeyboardInterrupt
        data = self.games[gid]
        if progress:
            progress(len(data) // 2, len(data))
            progress(len(data), len(data))
        self.fetched.append(gid)
        return data

    def delete_games(self, entries):
        for i, digest in entries:  # as the board checks them (docs/protocol.md)
            assert i not in self.live and hashlib.sha256(self.games[i]).digest() == digest
        for i, _ in entries:
            del self.games[i]
        self.deleted += [i for i, _ in entries]
        return len(entries)

    def watch(self):
        yield from self.events


def _cut(data, n_actions):
    """The bytes of the first ``n_actions`` records of ``data``."""
    dec = record.Decoder(data, split_turns=False)
    n = 0
    for _ in dec:
        n += 1
        if n == n_actions:
            break
    return data[: dec.valid]


def test_sync_is_incremental_and_deletes_only_committed_games(tmp_path):
    a, b, c = (random_match(s, length=5)[0] for s in (1, 2, 3))
    live_full = random_match(4, length=7)[0]
    live = _cut(live_full, 30)
    fb = FakeBoard([a, b, c, live])
    lid = model.load_match(live).id_hex
    fb.live.add(lid)
    seen = []
    with Library.open() as lib:
        stored, deleted, problems = cmds.sync(
            fb, lib, progress=lambda d, t: seen.append((d, t)), out=lambda s: None
        )
        assert (stored, deleted, problems) == (4, 3, [])
        assert lib.count() == 4 and set(fb.games) == {lid} and seen
        assert lib.get(lid).winner is None and lib.get(lid).board == "Test board"
        # rerun: nothing new is fetched
        fb.fetched.clear()
        assert cmds.sync(fb, lib, out=lambda s: None) == (0, 0, [])
        assert fb.fetched == []
        # the live match went on and finished: fetched again, updated, then deleted
        fb.games[lid] = live_full
        fb.live.clear()
        assert cmds.sync(fb, lib, out=lambda s: None) == (1, 1, [])
        assert lib.data(lid) == live_full and fb.games == {}


def test_interrupted_sync_keeps_what_was_committed_and_resumes(tmp_path):
    ms = [random_match(s, length=5)[0] for s in (1, 2, 3)]
    fb = FakeBoard(ms)
    ids_ = list(fb.games)
    fb.fail_on = ids_[1]
    with Library.open() as lib:
        with pytest.raises(KeyboardInterrupt):
            cmds.sync(fb, lib, out=lambda s: None)
        assert lib.count() == 1 and lib.has(ids_[0]) and fb.deleted == []
        fb.fail_on = None
        fb.fetched.clear()
        assert cmds.sync(fb, lib, out=lambda s: None) == (2, 3, [])
        assert ids_[0] not in fb.fetched and lib.count() == 3


def test_sync_never_deletes_a_game_it_could_not_store(tmp_path):
    good = random_match(1)[0]
    w = record.encode
    bad = (
        w(record.MATCH_START, (b"\x07" * 8, 0, 3, 1, 0, 0, 0, "A", "B", bytes(32), b""))
        + w(record.GAME_START, (1, 0, 0, 0))
        + w(record.OPENING, (0, (3, 1)))
        + w(record.PLAY, (0, (24, 20, 6, 5), 0))
    )
    fb = FakeBoard([good])
    fb.games["0707070707070707"] = bad
    msgs = []
    with Library.open() as lib:
        stored, deleted, problems = cmds.sync(fb, lib, out=msgs.append)
    assert stored == 1 and deleted == 1 and len(problems) == 1
    assert "0707070707070707" in fb.games and "damaged on the board" in problems[0]


def test_watch_follows_the_live_match(tmp_path):
    full = random_match(2, length=5)[0]
    start = _cut(full, 12)
    dec = record.Decoder(full, split_turns=False)
    recs = []
    at = 0
    for _ in dec:
        recs.append(full[at : dec.valid])
        at = dec.valid
    fb = FakeBoard([start])
    fb.live.add(model.load_match(start).id_hex)
    lid = model.load_match(start).id_hex

    def events():
        yield from recs[12:20]
        fb.games[lid] = b"".join(recs[:20])  # what the board holds when events were lost
        yield None
        yield from recs[20:]

    fb.watch = events
    n_events = len(recs) - 12 + 1
    out = io.StringIO()
    r = cmds.watch_loop(fb, out=out, clear=False)
    m = model.load_match(full)
    assert r.m.id_hex == m.id_hex and tuple(r.score) == m.final_score
    assert bytes(r.pos) == m.games[-1].final_pos
    text = out.getvalue()
    assert "(resynchronised)" in text and text.count("BAR") == 1 + n_events


class _Ctx:
    def __init__(self, board):
        self.board = board

    def __enter__(self):
        return self.board

    def __exit__(self, *exc):
        return False


def test_gammon_sync_command_against_a_fake_board(capsys, monkeypatch):
    from gammon import board_args

    fb = FakeBoard([random_match(s, length=5)[0] for s in (1, 2)])
    monkeypatch.setattr(board_args, "open_board", lambda args: _Ctx(fb))
    code, out, _ = _run(capsys, "sync")
    assert code == 0 and out.count("new      ") == 2 and "2 new or updated matches, 2 deleted" in out
    code, out, _ = _run(capsys, "sync")
    assert code == 0 and "0 new or updated matches, 0 deleted" in out and _count() == 2


def test_analyze_reports_error_rates_and_the_biggest_mistakes(tmp_path, capsys):
    pytest.importorskip("gnubg")
    m = model.load_match(random_match(1, length=7)[0])
    per, worst = analyze_mod.analyze(m, top=2)
    plays = [a for g in m.games for a in g.plays() if a.steps]
    assert 0 < per[0][0] + per[1][0] <= len(plays)
    assert per[0][1] > 0 and per[1][1] > 0  # random play makes mistakes
    assert len(worst) == 2 and worst[0][0] >= worst[1][0] > 0
    _run(capsys, "import", str(_journal(tmp_path, random_match(1, length=7)[0])))
    code, out, _ = _run(capsys, "analyze", "#1", "--top", "2")
    assert code == 0 and "Alice" in out and "error rate" in out and out.count("BAR") == 2
    assert out.count("    luck:") == 2  # each side's, gnubg's measure (tests/host/test_analyze_luck.py)


def test_gammon_show_game_through_the_cli(tmp_path, capsys):
    data = random_match(2, length=5)[0]
    _run(capsys, "import", str(_journal(tmp_path, data)))
    m = model.load_match(data)
    code, out, _ = _run(capsys, "show", "#1")
    assert code == 0 and out == "\n".join(show_lines(m)) + "\n"
    code, out, err = _run(capsys, "show", "#5")
    assert code == 2 and "no game #5" in err
    code, out, err = _run(capsys, "show", "not-an-id")  # neither: both are named
    assert code == 2 and "neither a Position ID" in err and "#N" in err


def test_reading_commands_never_create_a_library(home, capsys):
    code, out, _ = _run(capsys, "list")
    assert code == 0 and "library is empty" in out
    code, out, err = _run(capsys, "export", "#1")
    assert code == 2 and "library is empty" in err
    assert not home.exists()
