"""Hostile files handed to ``gammon``: whatever bytes a file holds -- a board journal damaged
anywhere (flips, cuts, splices, repeats), an export of another format (.mat, .sgf, .json) or a
damaged one, a JSON transcript nested a million deep, random bytes, a file far larger than any
board can write -- ``gammon import``, ``verify``, ``dice-stats`` and ``export`` answer with
their documented exit status; a refusal (2) is one line on stderr, never a traceback (an
internal error is exit 70 with a traceback: a bug); nothing already in the library is lost or
changed. A hostile library file (not SQLite, another schema, a stored match whose bytes are
damaged) gets the same: one line, nothing overwritten."""

import os
import sqlite3

import pytest
from bg import record
from cli_helpers import run_cli
from export_helpers import random_match
from gammon.library import Library
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("home")

_OK = {
    "import": (0, 1, 2),
    "verify": (0, 1, 2, 3),
    "dice-stats": (0, 1, 2),
    "export": (0, 2),
}


def _library():
    """{id: stored bytes} of the library (empty if there is none)."""
    try:
        lib = Library.open(create=False)
    except ValueError:
        return {}
    with lib:
        return {e.id: lib.data(e.id) for e in lib.find()}


def _run(capsys, *argv):
    code, out, err = run_cli(capsys, *argv)
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    assert code in _OK[argv[0]], (argv, code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("gammon: error: "), (argv, err)
    return code


_MATCH, _ = random_match(7)
_OTHER, _ = random_match(8)


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """A real match's journal and its .mat, .sgf and .json exports."""
    d = tmp_path_factory.mktemp("exports")
    j = d / "m.bin"
    j.write_bytes(_MATCH)
    out = {"journal": _MATCH}
    for fmt in ("mat", "sgf", "json"):
        p = d / ("m." + fmt)
        assert run_cli_plain("export", str(j), "-f", fmt, "-o", str(p)) == 0
        out[fmt] = p.read_bytes()
    return out


def run_cli_plain(*argv):
    from gammon import cli

    return cli.main(list(argv))


def _starts(data):
    d = record.Decoder(data, split_turns=False, expand=False)
    out = [0]
    for _ in d:
        out.append(d.valid)
    return out


@st.composite
def hostile(draw, exports):
    base = draw(st.sampled_from(sorted(exports)))
    data = bytearray(exports[base])
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(("flip", "cut", "splice", "repeat", "insert", "none")))
        if not data:
            break
        i = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[i] ^= draw(st.integers(1, 255))
        elif op == "cut":
            del data[i:]
        elif op == "splice":
            j = draw(st.integers(i, len(data)))
            data[i:j] = exports[draw(st.sampled_from(sorted(exports)))][: j - i]
        elif op == "repeat":
            j = draw(st.integers(i, min(len(data), i + 400)))
            data[j:j] = data[i:j] * draw(st.integers(1, 20))
        elif op == "insert":
            data[i:i] = draw(st.binary(max_size=40))
    return bytes(data)


_CMDS = (
    ("import",),
    ("verify",),
    ("dice-stats",),
    ("export", "-f", "json"),
    ("export", "-f", "sgf"),
)


def _attack(capsys, tmp_path, data, before):
    p = tmp_path / "hostile.bin"
    p.write_bytes(data)
    for cmd in _CMDS:
        if cmd[0] == "export":
            _run(capsys, cmd[0], str(p), *cmd[1:])
        else:
            _run(capsys, cmd[0], str(p))
    after = _library()
    for mid, b in before.items():
        assert after.get(mid) == b, "a stored match was lost or changed"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_journals_and_exports_get_a_clear_answer_and_lose_nothing(capsys, tmp_path, exports, data):
    p = tmp_path / "other.bin"
    p.write_bytes(_OTHER)
    run_cli(capsys, "import", str(p))
    before = _library()
    assert before
    _attack(capsys, tmp_path, data.draw(hostile(exports)), before)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(max_size=600))
def test_random_bytes_get_a_clear_answer(capsys, tmp_path, blob):
    _attack(capsys, tmp_path, blob, _library())


@pytest.mark.parametrize(
    "text",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"throws": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"seed": "' + b"ab" * 40 + b'", "throws": [[1e999999, -1]], "commitment": {}}',
        b'{"match_id": 12, "throws": "x", "player_seed": [null]}',
        b"\xef\xbb\xbf" + b'{"a": "\\ud800"}',
        b"; [gnubg] " + b"9" * 100_000 + b" point match\n",
        b"(;FF[4]GM[6]" + b"(;" * 100_000,
    ],
    ids=["nested-json", "nested-throws", "huge-number", "wrong-types", "surrogate", "huge-mat", "deep-sgf"],
)
def test_hostile_text_formats_get_a_clear_answer(capsys, tmp_path, text):
    _attack(capsys, tmp_path, text, _library())


def test_a_file_far_larger_than_a_board_writes_is_refused_before_it_is_read(capsys, tmp_path):
    # a sparse file of 4 GiB: reading it whole would take 4 GiB of memory
    p = tmp_path / "huge.bin"
    with open(p, "wb") as f:
        f.write(_MATCH)
        f.truncate(4 << 30)
    for cmd in ("import", "verify", "dice-stats", "export"):
        code, out, err = run_cli(capsys, cmd, str(p))
        assert code == 2 and "too large" in err and len(err.strip().splitlines()) == 1, (cmd, code, err)
    assert _library() == {}


def test_many_valid_matches_in_one_file_are_imported_once(capsys, tmp_path):
    # 256 KiB of copies of one match: one match stored, the copies named as the same match
    p = tmp_path / "many.bin"
    p.write_bytes(_MATCH * ((256 << 10) // len(_MATCH)))
    assert _run(capsys, "import", str(p)) in (0, 1) and len(_library()) == 1


@pytest.mark.parametrize("how", ["garbage", "other-schema", "damaged-row", "empty"])
def test_a_hostile_library_file_gets_one_line_and_is_not_overwritten(capsys, tmp_path, home, how):
    p = tmp_path / "m.bin"
    p.write_bytes(_MATCH)
    run_cli(capsys, "import", str(p))
    lib = Library.open(create=False)
    path = lib.path
    lib.close()
    if how == "garbage":
        path.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "other-schema":
        path.unlink()
        db = sqlite3.connect(str(path))
        db.execute("create table matches (x)")
        db.execute("insert into matches values ('<script>')")
        db.commit()
        db.close()
    else:
        db = sqlite3.connect(str(path))
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        for t in tables:
            cols = [r[1] for r in db.execute("pragma table_info(%s)" % t)]
            for c in cols:
                if c in ("data", "bytes", "blob", "journal"):
                    db.execute("update %s set %s = ?" % (t, c), (b"\xff" * 3000,))
        db.commit()
        db.close()
    held = path.read_bytes()
    assert held or how == "empty"
    for argv in (("list",), ("show", "#1"), ("export", "#1"), ("dice-stats",), ("import", str(p))):
        code, out, err = run_cli(capsys, *argv)
        assert "Traceback" not in err, (how, argv, err)
        assert code in (0, 1, 2), (how, argv, code, err)
        if code == 2:
            assert len(err.strip().splitlines()) == 1, (how, argv, err)
    if how == "garbage":
        assert path.read_bytes() == held, "the damaged library file was overwritten"
    elif how == "other-schema":
        # gammon may add its own tables beside a foreign one, never change what is there
        db = sqlite3.connect(str(path))
        assert db.execute("select x from matches").fetchall() == [("<script>",)]
        db.close()
