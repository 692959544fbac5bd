"""board.json's battery section as bg.hwdesc loads it: the ADC pin must be an ADC1 pin no other
function uses, the discharge curve must rise; a board without the section has no gauge.
(Apart from test_battery_gauge: parsing board.json again wants a big block of the 64k heap.)"""

from bg import battery, hwdesc


def _raises(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


def _desc():
    import json

    with open(hwdesc.find()) as f:
        return json.loads(f.read())


def test_a_board_without_battery_has_no_gauge():
    desc = _desc()
    del desc["battery"]
    b = hwdesc.Board(desc)
    assert b.battery is None and b.battery_mv is None
    assert _raises(battery.Gauge, b)


def test_loader_refuses_an_adc2_pin_and_a_falling_curve():
    desc = _desc()  # parsed once: the 64k heap holds one copy, not one per case
    good = desc["battery"]
    for patch in (
        {"adc_pin": 26},  # ADC2: unreadable with the radio on (and a button's pin)
        {"adc_pin": 4},
        {"curve": [[3300, 0], [3200, 50], [4200, 100]]},
        {"curve": [[3300, 10], [3800, 5], [4200, 100]]},
        {"curve": [[3300, 0]]},
        {"critical_mv": 3600, "low_mv": 3500},
    ):
        bad = dict(good)
        bad.update(patch)
        desc["battery"] = bad
        assert _raises(hwdesc.Board, desc), patch
    desc["battery"] = good
    kept = hwdesc.Board(desc).battery  # the numbers only: the texts and the curve list go
    assert kept["adc_pin"] == good["adc_pin"] and "curve" not in kept and "_doc" not in kept


def test_loader_refuses_the_battery_on_a_used_pin():
    desc = _desc()
    desc["battery"]["adc_pin"] = desc["buttons"][0]["pin"]  # GPIO 32: ADC1, but a button's
    assert _raises(hwdesc.Board, desc)
