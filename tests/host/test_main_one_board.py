"""app.main.run hands the board description it loaded to the HAL: hal.esp32 builds its parts
from ``config["board"]`` when given one and otherwise loads and keeps a second ``Board``
(2,160 B of the board's heap for good, its wiring dicts never released)."""

import types

import hal
import pytest
from app import main as M
from bg import hwdesc


class _Built(Exception):
    pass


def test_the_hal_is_given_the_board_main_loaded(monkeypatch):
    seen = {}
    loaded = []
    real_load = hwdesc.load

    def load(path=None):
        b = real_load(path)
        loaded.append(b)
        return b

    def make(config):
        seen.update(config)
        raise _Built  # the hardware is all this test needs: stop before the app runs

    monkeypatch.setattr(hwdesc, "load", load)
    monkeypatch.setattr(hal, "load", lambda name: types.SimpleNamespace(make=make))
    with pytest.raises(_Built):
        M.run("esp32", config={"status": False})
    assert len(loaded) == 1, "main.run loaded the board description more than once"
    assert seen["board"] is loaded[0]
    assert (seen["sensor_bytes"], seen["leds"]) == (loaded[0].nbytes, loaded[0].nleds)
