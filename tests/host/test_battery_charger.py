"""The charger's CHG and PGOOD (board.json ``battery.chg_pin``, ``pgood_pin``): the loader keeps
them only on inputs that are no strapping or flash pin and no other function's, the HAL reads
them (the simulator's fake as the ESP32's, tests/host/test_hardware_esp32hal.py), the INFO
battery state carries them and ``gammon board info`` says "charging" and "on USB"."""

import json

import pytest
from app.power import Power
from bg import battery as B
from bg import hwdesc
from gammon.commands import board as cmd
from hal import sim
from hal.sim_bus import Bus


def _desc():
    with open(hwdesc.find()) as f:
        return json.loads(f.read())


def test_loader_keeps_the_charger_pins_of_board_json():
    b = hwdesc.Board(_desc())
    assert b.battery["chg_pin"] == 35 and b.battery["pgood_pin"] == 13


@pytest.mark.parametrize(
    "patch, why",
    [
        ({"chg_pin": 0}, "strapping or flash"),
        ({"pgood_pin": 12}, "strapping or flash"),
        ({"chg_pin": 8}, "strapping or flash"),
        ({"chg_pin": 32}, "used twice"),  # roll0's button
        ({"pgood_pin": 34}, "used twice"),  # the ADC pin itself
        ({"chg_pin": 40}, "0..39"),
    ],
)
def test_loader_refuses_a_charger_pin_that_cannot_be_an_input(patch, why):
    desc = _desc()
    desc["battery"].update(patch)
    with pytest.raises(ValueError, match=why):
        hwdesc.Board(desc)


def test_loader_wants_both_charger_pins_or_neither():
    desc = _desc()
    del desc["battery"]["pgood_pin"]
    with pytest.raises(ValueError, match="go together"):
        hwdesc.Board(desc)
    del desc["battery"]["chg_pin"]
    assert "chg_pin" not in hwdesc.Board(desc).battery  # a board without them: not read


class _Clock:
    def ticks_ms(self):
        return 0

    def ticks_diff(self, a, b):
        return a - b


def test_info_carries_charging_and_usb_from_the_hal():
    board = hwdesc.Board(_desc())
    cell = sim.Battery(mv=3900)
    power = Power(_Clock(), board, cell, None)
    power.read(0)
    assert power.info()[2] & (B.F_CHARGING | B.F_USB) == 0
    cell.charging, cell.usb = True, True
    flags = power.info()[2]
    assert flags & B.F_BATTERY and flags & B.F_CHARGING and flags & B.F_USB
    cell.charging = False  # the charge ended, USB still in
    assert power.info()[2] & (B.F_CHARGING | B.F_USB) == B.F_USB

    class _Old:  # a HAL battery without the charger's pins: no flag, no error
        def read_mv(self):
            return 3900

    power = Power(_Clock(), board, _Old(), None)
    power.read(0)
    assert power.info()[2] & (B.F_CHARGING | B.F_USB) == 0


def test_the_simulators_battery_line_sets_the_charger_pins():
    hw = sim.make({})
    sent = []
    bus = Bus.__new__(Bus)  # its line handler alone, no socket
    bus.hw, bus._write = hw, sent.append
    bus.handle(b'{"t": "battery", "charging": true, "usb": true}')
    assert hw.battery.charger() == (True, True) and hw.battery.mv == 4000  # mv untouched
    bus.handle(b'{"t": "battery", "mv": 3600, "charging": false}')
    assert hw.battery.charger() == (False, True) and hw.battery.mv == 3600
    assert sent == []


def test_gammon_says_charging_and_on_usb():
    text = cmd.battery_text((4100, 95, B.F_BATTERY | B.F_CHARGING | B.F_USB))
    assert text == "95 % (4.10 V), charging, on USB"
    assert cmd.battery_text((4190, 100, B.F_BATTERY | B.F_USB)) == "100 % (4.19 V), on USB"
    assert "charging" not in cmd.battery_text((3900, 60, B.F_BATTERY))
