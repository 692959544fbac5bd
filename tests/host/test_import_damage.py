"""A journal damaged in the middle (a bad record with well-formed records after it: bit rot,
not a power cut) is an error naming the byte offset, and nothing is stored; ``gammon import
--salvage`` stores the readable part before the damage, on request only. A torn tail (what a
power cut leaves) still imports with a note."""

import pytest
from bg import record
from cli_helpers import run_cli
from export_helpers import random_match
from gammon import model
from gammon.library import Library

pytestmark = pytest.mark.usefixtures("home")  # every test: a library home of its own
_run = run_cli


def _stored():
    try:
        lib = Library.open(create=False)
    except ValueError:
        return []
    with lib:
        return [lib.data(e.id) for e in lib.find()]


def _record_starts(data):
    dec = record.Decoder(data, split_turns=False, expand=False)
    starts, at = [], 0
    for _ in dec:
        starts.append(at)
        at = dec.valid
    assert dec.status == record.OK
    return starts


def _damaged(data, k):
    """``data`` with one bit flipped in the last byte (the checksum) of record ``k``."""
    starts = _record_starts(data) + [len(data)]
    bad = bytearray(data)
    bad[starts[k + 1] - 1] ^= 0x10
    return bytes(bad), starts[k]


def test_damage_in_the_middle_is_an_error_naming_the_offset(tmp_path, capsys):
    data = random_match(1, length=7)[0]
    n = len(_record_starts(data))
    bad, at = _damaged(data, n // 2)
    p = tmp_path / "rot.m"
    p.write_bytes(bad)
    code, out, err = _run(capsys, "import", str(p))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, (code, out, err)
    assert "byte %d" % at in lines[0] and "damaged in the middle" in lines[0] and "--salvage" in lines[0]
    assert _stored() == []  # nothing half-imported as "in progress"
    # reading it directly is the same error, not a silently shortened match
    for argv in (("show", str(p)), ("export", str(p), "-f", "json")):
        code, out, err = _run(capsys, *argv)
        assert code == 2 and out == "" and "byte %d" % at in err, argv
    # on request, the readable part is kept, and the exit status says something was left out
    code, out, err = _run(capsys, "import", str(p), "--salvage")
    assert code == 1 and "salvaged the %d bytes before it" % at in out
    assert _stored() == [bad[:at]]
    assert model.load_match(_stored()[0]).winner is None


def test_damage_in_a_later_match_of_a_file_loses_nothing_silently(tmp_path, capsys):
    first = random_match(2, length=5)[0]
    second = random_match(1, length=7)[0]
    bad, at = _damaged(second, 5)
    p = tmp_path / "two.m"
    p.write_bytes(first + bad)
    code, out, err = _run(capsys, "import", str(p))
    assert code == 2 and "byte %d" % (len(first) + at) in err and _stored() == []
    code, out, err = _run(capsys, "import", str(p), "--salvage")
    assert code == 1 and sorted(_stored()) == sorted([first, bad[:at]])


def test_a_torn_or_bad_last_record_is_still_a_tail_note(tmp_path, capsys):
    data = random_match(2, length=5)[0]
    starts = _record_starts(data)
    torn = data[:-3]  # the last record cut short: a power cut mid-append
    last_bad, at = _damaged(data, len(starts) - 1)  # the last record whole but bad
    for i, blob in enumerate((torn, last_bad)):
        p = tmp_path / ("tail%d.m" % i)
        p.write_bytes(blob)
        code, out, err = _run(capsys, "import", str(p))
        assert code == 0 and "damaged tail" in out, (i, out, err)
        assert _stored() == [data[: starts[-1]]]
        code, out, err = _run(capsys, "show", str(p))  # read directly: the same note, on stderr
        assert code == 0 and "BAR" in out and "note: %s: the record ends with a damaged tail" % p in err
