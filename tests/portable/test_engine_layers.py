"""The device's generator: the recogniser (and the computer's chooser, the journal's packer)
visits plays with ``bg.engine.MoveGenVisit`` alone, so that the searches' modules
(``bg.engine._search``, ``_hints``: recognition by end position, hints, forced plays,
``is_legal``) stay out of the board's heap until something asks for them."""

import sys

# nothing above imports the searches: this module runs in its own interpreter on MicroPython
from bg import engine, recognize
from bg.board import apply_step, from_points, start_position
from sensing_helpers import SkipTest

_MPY = sys.implementation.name == "micropython"


def test_a_recogniser_loads_no_search():
    r = recognize.Recognizer()
    assert type(r.gen) is engine.MoveGenVisit
    start = start_position()
    r.begin(start, 0, 6, 1)
    end = bytearray(start)
    for f, t in ((13, 7), (8, 7)):
        apply_step(end, 0, f, t)
    obs = recognize.observe(end, bytearray(28), r.caps)
    assert r.update(obs) == recognize.COMPLETE and r.confirm() == (13, 7, 8, 7)
    # a play sent by another board or a host is checked on the same generator
    assert r.gen.is_legal(start, 0, 6, 1, (13, 7, 8, 7)) and not r.gen.is_legal(start, 0, 6, 1, (13, 7))
    if not _MPY:
        raise SkipTest("a CPython host holds the whole generator from the start")
    assert "bg.engine._search" not in sys.modules and "bg.engine._hints" not in sys.modules


def test_the_whole_generator_comes_on_first_use_and_agrees():
    g = engine.MoveGen()  # bg.engine's __getattr__ on MicroPython: the searches imported now
    assert "bg.engine._search" in sys.modules and "bg.engine._hints" in sys.modules
    assert isinstance(g, engine.MoveGenVisit) and engine.MoveGen is type(g)
    v = engine.MoveGenVisit()
    start = start_position()
    blocked = from_points({1: 15}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})  # behind a prime
    for pos, d1, d2 in ((start, 6, 5), (start, 1, 1), (blocked, 6, 6), (blocked, 1, 2)):
        assert g.no_play(pos, 0, d1, d2) == v.no_play(pos, 0, d1, d2)
        ends = []
        n = v.for_each_end(pos, 0, d1, d2, lambda w, st, k, ends=ends: ends.append(bytes(w)))
        assert n == len(ends) and set(ends) == set(r for _, r in g.plays(pos, 0, d1, d2))
        assert (n == 0) == v.no_play(pos, 0, d1, d2)
    assert engine.is_legal(start, 0, 6, 5, (24, 18, 18, 13)) and not engine.is_legal(start, 0, 6, 5, (24, 18))
    assert g.hints(start, 0, 3, 1, start, 13) == (1 << 10) | (1 << 9)  # as test_rules_device has it


def test_a_submodule_still_imports_by_name():
    from bg.engine import pubeval

    assert pubeval.PubEval(engine.MoveGenVisit()).gen is not None
    try:
        engine.no_such_name  # noqa: B018 - the attribute is the test
    except AttributeError:
        pass
    else:
        raise AssertionError("bg.engine answered a name it does not have")
