"""End to end against a simulated board: the firmware's link and journal (``bg.journal`` files,
``app.link`` over a socket) run under the real MicroPython unix port; ``gammon sync`` pairs
with it like with a real board, copies the matches into the library, deletes on the board only
what is committed, and a second sync finds nothing new; the synced match exports and imports
into GNU Backgammon."""

import pytest
from bg import record
from bg.journal import Journal
from export_helpers import mismatches, random_match
from gammon import cli, link, model
from gammon.library import Library

test_link_e2e = pytest.importorskip("test_link_e2e")


def _write_journal(root, data, finish=True):
    """Replay one match's records into a real on-disk journal, as the board writes them."""
    j = Journal(str(root))
    j.open()
    kinds = list(record.decode_stream(data))
    assert kinds[0][0] == record.MATCH_START
    j.begin_match(kinds[0][1], bytes(range(32)))
    for k, f in kinds[1:]:
        if k == record.GAME_END and not finish:
            break  # still being played
        if k == record.MATCH_END:
            if finish:
                j.end_match(*f)
            break
        j.append(k, f)
    return model.load_match(data).id_hex


def test_gammon_sync_with_the_simulated_board(tmp_path, monkeypatch, capsys):
    gnubg = pytest.importorskip("gnubg")
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    root = tmp_path / "flash"
    root.mkdir()
    done = [_write_journal(root, random_match(s, length=5)[0]) for s in (1, 2)]
    live = _write_journal(root, random_match(3, length=7)[0], finish=False)
    s = test_link_e2e.Server("journal:" + str(root))
    try:
        link.pair(s.address, s.code, host_name="lib-host")
        assert cli.main(["sync"]) == 0
        out = capsys.readouterr().out
        assert "3 new or updated matches, 2 deleted on the board" in out
        with Library.open() as lib:
            assert lib.count() == 3
            assert lib.get(live).winner is None
            for mid in done:
                e = lib.get(mid)
                assert e.finished and e.complete and e.board
                assert not (root / "journal" / (mid + ".m")).exists()
            m = lib.load(done[0])
        assert (root / "journal" / (live + ".m")).exists()
        assert cli.main(["sync"]) == 0
        assert "0 new or updated matches, 0 deleted" in capsys.readouterr().out
    finally:
        s.stop()
    # the synced match goes on to GNU Backgammon
    assert cli.main(["export", done[0], "-f", "mat", "-o", str(tmp_path / "m.mat")]) == 0
    gnubg.command("import mat %s" % (tmp_path / "m.mat"))
    assert mismatches(m, gnubg.match()) == []
