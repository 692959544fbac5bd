"""bg.battery: millivolts to percent on board.json's discharge curve, and the warning levels
with their hysteresis -- fed the readings a sagging, bouncing, charging or broken cell gives."""

from bg import battery
from sensing_helpers import board


def _raises(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


def _gauge():
    return battery.Gauge(board())


def test_board_json_describes_a_battery_on_an_adc1_pin():
    b = board()
    assert b.battery is not None
    assert 32 <= b.battery["adc_pin"] <= 39  # ADC2 cannot be read with the radio on
    assert b.battery_mv[0] < b.battery_mv[len(b.battery_mv) - 1]


def test_percent_follows_the_curve_and_clamps():
    b = board()
    mv, pct = b.battery_mv, b.battery_pct
    n = len(mv)
    for i in range(n):
        assert battery.percent(mv[i], mv, pct) == pct[i]
    # half way between two points: half way between their percentages
    mid = (mv[3] + mv[4]) // 2
    lo, hi = pct[3], pct[4]
    assert lo <= battery.percent(mid, mv, pct) <= hi
    assert battery.percent(mid, mv, pct) == lo + (hi - lo) * (mid - mv[3]) // (mv[4] - mv[3])
    # beyond the ends: 0 and 100, never below or above
    assert battery.percent(0, mv, pct) == pct[0] == 0
    assert battery.percent(mv[0] - 1, mv, pct) == 0
    assert battery.percent(mv[n - 1] + 500, mv, pct) == 100
    # never decreasing with the voltage
    last = -1
    for v in range(mv[0] - 100, mv[n - 1] + 100, 7):
        p = battery.percent(v, mv, pct)
        assert 0 <= p <= 100 and p >= last
        last = p


def test_first_reading_sets_the_percentage():
    g = _gauge()
    assert g.pct == battery.NO_BATTERY
    g.update(3800)
    assert g.pct == battery.percent(3800, g.curve_mv, g.curve_pct)
    assert g.level == battery.OK


def test_percentage_does_not_flicker_up_after_a_load_step():
    g = _gauge()
    g.update(3800)
    p = g.pct
    g.update(3780)  # LEDs on: the cell sags
    sagged = g.pct
    assert sagged <= p
    g.update(3790)  # LEDs off: it recovers a little -- not a charge
    assert g.pct == sagged
    g.update(3950)  # a charger: a real rise is shown
    assert g.pct == battery.percent(3950, g.curve_mv, g.curve_pct) > sagged


def test_low_warns_and_needs_the_hysteresis_to_clear():
    g = _gauge()
    low, hyst = g.low_mv, g.hysteresis_mv
    assert not g.update(low + 50)
    assert g.update(low - 1) and g.level == battery.LOW
    # bouncing just above the threshold (load removed) does not clear it
    assert not g.update(low + 1)
    assert not g.update(low + hyst - 1)
    assert g.level == battery.LOW
    assert g.update(low + hyst) and g.level == battery.OK


def test_one_sag_under_critical_is_not_critical_two_are():
    g = _gauge()
    crit = g.critical_mv
    g.update(crit + 100)
    g.update(crit - 10)  # one reading: an LED burst on a tired cell
    assert g.level != battery.CRITICAL
    g.update(crit + 20)  # back above: the count restarts
    g.update(crit - 10)
    assert g.level != battery.CRITICAL
    assert g.update(crit - 10)
    assert g.level == battery.CRITICAL


def test_critical_stays_until_the_cell_is_charged():
    g = _gauge()
    crit = g.critical_mv
    for _ in range(battery.CONFIRM):
        g.update(crit - 50)
    assert g.level == battery.CRITICAL
    # the load is off (journal closed, LEDs dark): the voltage recovers, the level does not
    assert not g.update(crit + 100)
    assert not g.update(g.low_mv + g.hysteresis_mv - 1)
    assert g.level == battery.CRITICAL
    assert g.update(g.low_mv + g.hysteresis_mv)
    assert g.level == battery.OK


def test_broken_readings_are_refused_and_change_nothing():
    g = _gauge()
    g.update(3700)
    before = (g.mv, g.pct, g.level)
    assert _raises(g.update, -1)
    assert _raises(g.update, battery.MAX_MV + 1)
    assert (g.mv, g.pct, g.level) == before
