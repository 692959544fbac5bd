"""One copy of each vocabulary: the record kinds and flags live in ``bg.record``, the sensor rows
in ``bg.hwdesc``, the checker count in ``bg.board``; every other firmware module imports them.

A module that writes one of these numbers itself (``K_PLAY = const(5)``) can silently disagree
with the journal's format the day the number changes; this test finds every such literal.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FW = ROOT / "firmware"

OWNERS = {
    "bg/record/__init__.py": None,  # the record vocabulary (kinds, option and event flags)
    "bg/hwdesc/__init__.py": {"NROWS", "ROW_POINT0", "ROW_BAR0", "ROW_TRAY0"},
    "bg/board.py": {"NCHECKERS"},
}


FLAG_PREFIXES = ("OPT_", "GAME_", "OPEN_", "PLAY_", "END_", "SRC_")


def _record_names():
    """{name: value} of bg.record's kinds (the names ``record.name()`` knows) and flags."""
    from bg import record as R

    kinds = {R.name(k) for k in range(1, 64)} - {"0x%02x" % k for k in range(64)}
    tree = ast.parse((FW / "bg" / "record" / "__init__.py").read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            n = node.targets[0].id
            v = _literal_int(node.value)
            if v is not None and (n in kinds or n.startswith(FLAG_PREFIXES)):
                names[n] = v
    return names


def _literal_int(v):
    if isinstance(v, ast.Call) and getattr(v.func, "id", None) == "const" and v.args:
        v = v.args[0]
    return v.value if isinstance(v, ast.Constant) and isinstance(v.value, int) else None


def _watched():
    rec = _record_names()
    watched = {"K_" + n for n in rec} | {n for n in rec if n.startswith(FLAG_PREFIXES)} | {"NLOC"}
    for names in OWNERS.values():
        watched |= names or set()
    return rec, watched


def test_vocabulary_numbers_are_written_once():
    rec, watched = _watched()
    # the probe reads bg.record
    assert {"MATCH_START", "PLAY", "SEED_PART", "OPT_JACOBY", "END_TIME"} <= set(rec)
    copies = []
    for p in sorted(FW.rglob("*.py")):
        rel = p.relative_to(FW).as_posix()
        if rel == "bg/record/__init__.py":
            continue
        own = OWNERS.get(rel) or set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                n = node.targets[0].id
                v = _literal_int(node.value)
                if v is None or n in own:
                    continue
                # a kind's bare name is a copy only with the kind's value (ROLL is also a button)
                if n in watched or rec.get(n) == v and not n.startswith(FLAG_PREFIXES):
                    copies.append("%s:%d %s" % (rel, node.lineno, n))
    assert not copies, "vocabulary written again instead of imported: " + ", ".join(copies)


def test_the_controllers_names_are_the_records_values():
    # the K_* names the controller reads are bg.record's values (imported, so this holds by
    # construction; the test guards the aliases' spelling, e.g. PLAY_ILLEGAL_ACCEPTED)
    from app import ctl_defs as D
    from bg import record as R

    assert D.K_PLAY == R.PLAY and D.K_SEED_PART == R.SEED_PART
    assert D.PLAY_ILLEGAL_ACCEPTED == R.PLAY_CASUAL_ACCEPTED_ILLEGAL


def test_the_link_identifiers_are_written_once():
    """The BLE UUIDs and the serial line's markers live in ``bg.serialwire``; the board's radio
    (app/ble.py), the host (gammon/link/) and the test fakes import them. A second copy
    (the way the host and the board each had one) is found here."""
    owner = FW / "bg" / "serialwire.py"
    uuids = ("b6a7" + "0001-", "b6a7" + "0002-", "b6a7" + "0003-")  # not spelt out: this file
    magic = 'b"\\x00' + "GMN"  # code only: a test may put the magic inside a payload
    found = {}
    for d in ("firmware", "host_tools", "tests", "tools"):
        for p in (ROOT / d).rglob("*.py"):
            if _generated(p.relative_to(ROOT)) or p == owner:
                continue
            text = p.read_text()
            for lit in uuids + ((magic,) if d != "tests" else ()):
                if lit in text:
                    found.setdefault(lit, []).append(str(p.relative_to(ROOT)))
    assert all(lit in owner.read_text() for lit in uuids + (magic,))
    assert found == {}, found


# Folders of copies, not sources: a wheel build (host_tools/build, its gammon/_fw holds a copy of
# firmware/bg), a packaging run's dist/ and *.egg-info, a virtual environment; .gitignore keeps
# them out of the repository.
GENERATED = {"build", "dist", ".venv", "__pycache__"}


def _generated(rel):
    return any(part in GENERATED or part.endswith(".egg-info") for part in rel.parts[:-1])


def test_build_folders_are_left_out_but_sources_are_not():
    assert _generated(Path("host_tools/build/lib.linux-x86_64-cpython-311/gammon/_fw/bg/serialwire.py"))
    assert _generated(Path("host_tools/dist/x.py")) and _generated(Path("host_tools/gammon.egg-info/x.py"))
    # a source whose own name says build is still read
    assert not _generated(Path("tools/build.py")) and not _generated(Path("host_tools/gammon/link/client.py"))
