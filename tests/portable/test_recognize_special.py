"""Recognition of hits, bar entries, bear-offs, stacks beyond the slots (asked, never guessed),
colour-blind readings and turns with no legal play.

The table (tests/portable/recognize_helpers.py) reads hands through the real sensing model and
debouncer; a confirm press records only what the recogniser calls complete (or the player
picked in a selection).
"""

# everything through the helpers: their source compiles first, while the heap is empty
from recognize_helpers import Table, movegen, position, recognize


def _recorded_end(t, play):
    return bytes(t.end_of(play))


def test_hit_blot_goes_to_bar():
    # side 0 to play 3-1; side 1 has a blot on side 0's point 21 (side 1's point 4)
    start = position({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 4, 8: 3, 6: 5, 4: 1})
    t = Table(start, 0, 3, 1)
    t.move(24, 21)  # onto the blot: the blot is still there
    assert t.r.state == recognize.PARTIAL
    assert t.r.pending == 1 << recognize.row_of(0, 21)  # that blot must go to the bar
    t.hit(21)
    assert t.r.state == recognize.PARTIAL and t.r.pending == 0
    t.move(21, 20)
    assert t.settle() == recognize.COMPLETE
    play = t.r.confirm()
    end = t.end_of(play)
    assert end == t.pos and end[49] == 1  # the blot is on side 1's bar


def test_bar_entry_first():
    start = position({13: 5, 8: 3, 6: 5, 24: 1}, {24: 2, 13: 5, 8: 3, 6: 5}, bar0=1)
    t = Table(start, 0, 5, 2)
    t.lift(0, 25)
    assert t.r.state == recognize.LIFTED and t.r.lifted == recognize.ROW_BAR0 and t.r.lifted_point() == 25
    assert t.r.hints == (1 << recognize.row_of(0, 20)) | (1 << recognize.row_of(0, 23)) | (
        1 << recognize.row_of(0, 18)
    )
    t.put(0, 20)
    assert t.r.state == recognize.PARTIAL
    t.move(20, 18)
    assert t.settle() == recognize.COMPLETE
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_bear_off_into_tray():
    start = position({6: 3, 5: 4, 3: 3, 2: 2, 1: 3}, {24: 5, 23: 5, 22: 5}, off0=0)
    t = Table(start, 0, 6, 3)
    t.lift(0, 6)
    assert t.r.hints >> recognize.row_of(0, 0) & 1  # the tray is a legal destination
    assert t.r.dest_points() >> 24 & 1
    t.put(0, 0)
    assert t.r.state == recognize.PARTIAL
    t.move(3, 0)
    assert t.settle() == recognize.COMPLETE
    play = t.r.confirm()
    assert t.end_of(play) == t.pos and t.pos[50] == 2


def test_stack_beyond_slots_is_asked_not_guessed():
    # 5-4 for side 0: 6/1 4/off and 6/2 4/off end on points holding 7+ checkers, which
    # 6 slots read as "6 or more": two legal plays, one reading
    start = position({1: 7, 2: 6, 4: 1, 6: 1}, {1: 3, 2: 6, 3: 3, 5: 1})
    t = Table(start, 0, 5, 4)
    t.move(6, 2)
    t.move(4, 0)
    assert t.settle() == recognize.AMBIGUOUS
    r = t.r
    assert r.ncand == 2
    shows = [r.show(k) for k in range(2)]
    assert shows[0] != shows[1]  # the LEDs tell the candidates apart
    # the shared step (4/off) is not blinked, the differing ones are
    for src, dst in shows:
        assert src == 1 << recognize.row_of(0, 6) and dst in (
            1 << recognize.row_of(0, 1),
            1 << recognize.row_of(0, 2),
        )
    # the player cycles with the cube button until the shown play is theirs, then confirms
    k = 0
    while r.end(r.selected) != bytes(t.pos):
        r.next_candidate()
        k += 1
        assert k < 3
    play = r.confirm()
    assert _recorded_end(t, play) == bytes(t.pos)


def test_more_slots_remove_the_stack_ambiguity():
    start = position({1: 7, 2: 6, 4: 1, 6: 1}, {1: 3, 2: 6, 3: 3, 5: 1})
    r = recognize.Recognizer(slots=8)
    r.begin(start, 0, 5, 4)
    end = bytearray(start)
    movegen.apply(end, 0, (6, 2, 4, 0))
    assert r.update(recognize.observe(end, bytearray(28), r.caps)) == recognize.COMPLETE
    assert r.end(0) == bytes(end)


def test_hidden_play_is_never_recorded_from_the_start_reading():
    # 5-2: only 6/4 can be played, and 6 -> 4 moves a checker between two stacks of 7+
    start = position({6: 8, 4: 7}, {24: 2})
    t = Table(start, 0, 5, 2)
    t.move(6, 4)
    r = t.r
    assert t.settle() == recognize.WAITING and r.ncand == 1  # nothing visible changed
    assert r.confirm() is None  # the first press does not record...
    assert r.state == recognize.AMBIGUOUS  # ...it asks: the LEDs show 6/4
    assert r.show(0) == (1 << recognize.row_of(0, 6), 1 << recognize.row_of(0, 4))
    assert t.scan(5) == recognize.AMBIGUOUS  # the same reading keeps the question open
    assert r.confirm() == (6, 4)


def test_colour_blind_hit_reads_like_unfinished_play():
    # 4-1 for side 0: 6/2/1* (hits on 1) reads exactly like the half play 6/5* (hits on 5):
    # one point loses a checker, one blot is replaced, one checker reaches side 1's bar
    start = position(
        {2: 2, 4: 1, 6: 3, 7: 1, 8: 3, 13: 3, 24: 2}, {2: 1, 4: 1, 6: 3, 8: 3, 13: 5, 20: 1, 24: 1}
    )
    for strict in (True, False):
        t = Table(start, 0, 4, 1, strict=strict)
        t.move(6, 2)
        t.move(2, 1)
        t.hit(1)
        t.settle()
        if strict:
            assert t.r.state == recognize.PARTIAL and t.r.ncand == 1
            assert t.r.confirm() is None and t.r.state == recognize.AMBIGUOUS
        else:
            assert t.r.state == recognize.COMPLETE
        assert t.end_of(t.r.confirm()) == t.pos


def test_no_play_passes_only_untouched():
    # side 0 on the bar against a closed home board
    start = position({13: 5, 8: 3, 6: 5, 24: 1}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}, bar0=1)
    t = Table(start, 0, 6, 6)
    assert t.r.state == recognize.NO_PLAY
    assert t.r.confirm() == ()
    t.move(13, 7)
    assert t.r.state == recognize.ILLEGAL and t.r.confirm() is None
    t.move(7, 13)
    assert t.settle() == recognize.NO_PLAY and t.r.confirm() == ()


def test_selection_cycles_and_a_new_reading_leaves_it():
    start = position({1: 7, 2: 6, 4: 1, 6: 1}, {1: 3, 2: 6, 3: 3, 5: 1})
    t = Table(start, 0, 5, 4)
    t.move(6, 2)
    t.move(4, 0)
    r = t.r
    assert t.settle() == recognize.AMBIGUOUS
    assert [r.next_candidate(), r.next_candidate(), r.next_candidate()] == [1, 0, 1]
    t.lift(0, 0)  # the checker comes back out of the tray: a new reading, no selection
    assert r.state in (recognize.LIFTED, recognize.PARTIAL, recognize.ILLEGAL) and r.ncand == 0
    assert r.confirm() is None
    t.put(0, 0)
    assert t.settle() == recognize.AMBIGUOUS and r.selected == 0


def test_lowered_cap_from_a_faulty_top_switch():
    # sensing marks point 6's top reed faulty: that row now reads "5 or more"
    start = position({6: 6, 8: 3, 13: 4, 24: 2}, {24: 2, 13: 5, 8: 3, 6: 5})
    r = recognize.Recognizer()
    r.begin(start, 0, 2, 1)
    caps = recognize.make_caps()
    caps[recognize.row_of(0, 6)] = 5
    end = bytearray(start)
    movegen.apply(end, 0, (8, 6, 6, 5))  # 8/6 6/5: point 6 still holds 6
    obs = recognize.observe(end, bytearray(28), caps)  # point 6 reads 5 = "5 or more"
    assert r.update(obs) == recognize.LIFTED  # read as "exactly 5": one checker would be in the hand
    assert r.update(obs, caps) == recognize.COMPLETE  # with the cap sensing reports, it is 8/6 6/5
    assert r.end(0) == bytes(end)


def test_hit_with_the_blot_moved_to_the_bar_first():
    start = position({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 4, 8: 3, 6: 5, 4: 1})
    t = Table(start, 0, 3, 1)
    t.hit(21)  # the blot goes to the bar before the hitting checker arrives
    assert t.r.state == recognize.ILLEGAL  # a moment with nothing legal on the board...
    t.lift(0, 24)
    assert t.r.state == recognize.LIFTED and t.r.dest_points() >> 20 & 1  # ...until the hand is in the air
    t.put(0, 21)
    assert t.r.state == recognize.PARTIAL
    t.move(21, 20)
    assert t.settle() == recognize.COMPLETE
    assert t.end_of(t.r.confirm()) == t.pos
