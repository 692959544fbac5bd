"""What the LEDs show during a turn (``app.view`` over ``bg.leds.Painter``), driven through
the controller like players do: an illegal reading appears only once it lasted half a second,
a lifted checker's destinations pulse, the candidates of an ambiguous reading are shown."""

import ctl_helpers as H
from app import controller as C
from app import rules
from bg import leds as L
from bg import recognize as R

_view = H.view
_started = H.started


def _lit(painter, led):
    return painter.get(led) != (0, 0, 0)


def test_illegal_reading_lights_only_after_half_a_second():
    board, v = _view()
    c, r = _started()
    side = c.side
    b = 25 if side else 0
    r.pos[b + 6 - 1] -= 1
    r.pos[b + 7 - 1] += 1  # backwards: illegal
    r.sense()
    t = r.now
    row = R.row_of(side, 6)  # the checker is missing here (yellow, slow pulse: never dark)
    led = v.p.row_led(row)
    v.paint(c, t + 100)
    assert not _lit(v.p, led)
    v.paint(c, t + 600)
    assert _lit(v.p, led) and c.missing >> row & 1


def test_lifted_checker_destinations_pulse_green():
    board, v = _view()
    c, r = _started()
    side = c.side
    r.pos[(25 if side else 0) + 13 - 1] -= 1
    r.sense()
    assert c.rec.state == R.LIFTED
    mask = c.rec.dest_points()
    v.paint(c, r.now)
    for p in range(1, 25):
        if mask >> (p - 1) & 1:
            g = v.p.get(board.point_led[p])
            assert g[1] > g[0], (p, g)  # bluish green


def test_ambiguous_candidates_are_shown_and_cycled():
    board, v = _view()
    pos = bytearray(
        [
            9,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            2,
            0,
            0,
            1,
            0,
            2,
            1,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            1,
            1,
            0,
            0,
            0,
            0,
            1,
            1,
            0,
            1,
            2,
            0,
            1,
            2,
            3,
            2,
            0,
            0,
            0,
            0,
        ]
    )
    c, r = _started(length=0)
    H.roll_at(c, pos, 0, 5, 4)
    r.pos = bytearray(pos)
    rules.apply_steps(r.pos, 0, (21, 16, 15, 11))
    r.sense()
    assert c.rec.state == R.AMBIGUOUS and c.choices is None
    assert r.press(0, C.ROLL) and c.choices is not None and len(c.choices) == 2
    shown = []
    for _ in range(2):
        src, dst = c.rec.show(c.choice)
        v.paint(c, r.now)
        for row in range(28):
            if dst >> row & 1:
                assert v.p.get(v.p.row_led(row)) != (0, 0, 0)
        shown.append((src, dst))
        assert r.press(0, C.CUBE)
    assert shown[0] != shown[1]


def _die_mask(v, board, d):
    m = 0
    for pip in range(7):
        if v.p.get(board.die_led[7 * d + pip]) != (0, 0, 0):
            m |= 1 << pip
    return m


def test_pairing_code_digits_one_after_another_on_the_dice():
    from app import view as V

    board, v = _view()
    c, r = _started()
    v.show_code("907315", 1000)
    want = {
        9: (L.DIE_FACES[6], L.DIE_FACES[3]),
        0: (0x7F, 0x7F),
        7: (L.DIE_FACES[6], L.DIE_FACES[1]),
        3: (L.DIE_FACES[3], 0),
        1: (L.DIE_FACES[1], 0),
        5: (L.DIE_FACES[5], 0),
    }
    for k, d in enumerate((9, 0, 7, 3, 1, 5)):
        t = 1000 + k * V.CODE_DIGIT_MS + 100
        assert v.code_digit(t) == (k, d)
        v.paint(c, t)
        assert (_die_mask(v, board, 0), _die_mask(v, board, 1)) == want[d], (k, d)
        g = v.p.get(board.point_led[k + 1])
        assert g[0] and g[0] == g[1] == g[2]  # point k+1 white: the k-th digit
        if k + 2 <= 6:
            assert v.p.get(board.point_led[k + 2]) == (0, 0, 0)
    v.paint(c, 1000 + 6 * V.CODE_DIGIT_MS + 100)  # the pause: dice dark
    assert _die_mask(v, board, 0) == 0 and _die_mask(v, board, 1) == 0
    v.show_code(None, 0)
    v.paint(c, 5000)
    assert v.code is None
    try:
        v.show_code("12a456", 0)
        raise AssertionError("a bad code was accepted")
    except ValueError:
        pass


def test_double_offer_blinks_the_new_value_in_the_offerers_colour():
    # docs/leds.md: "double offered | the new value's LED | offerer's colour | fast blink" --
    # with the cube centred too (it blinked white, the neutral colour, which names nobody)
    board, v = _view()
    c, r = _started()
    r.play_turn()
    side = c.side
    assert c.phase == C.AWAIT_ROLL and c.mt.owner == -1
    assert r.press(side, C.CUBE) and c.phase == C.DOUBLED
    led = board.cube_value_led[0]  # the "2"
    seen = set()
    for t in range(0, 1200, 50):
        v.paint(c, r.now + t)
        g = v.p.get(led)
        if g != (0, 0, 0):
            seen.add(g)
    assert seen, "the offered value never lit"
    sc = L.SIDE_COLOURS[side]
    for g in seen:  # (R, G, B) after the cap and the blink level: the offerer's hue
        assert not (g[0] == g[1] == g[2]), "white: %r" % (g,)
        assert sorted(range(3), key=lambda i: g[i]) == sorted(range(3), key=lambda i: sc[i]), (g, sc)
    for s in (0, 1):  # nobody owns the cube while the double waits for its answer
        assert v.p.get(board.cube_owner_led[s]) == (0, 0, 0)
