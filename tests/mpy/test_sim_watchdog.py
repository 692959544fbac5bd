"""The simulator's model of the ESP32 watchdog and resets (hal.sim) on MicroPython: the
watchdog's timeout runs from the last feed, bad timeouts are refused, ``reset_cause()`` is
what the server says (power-on by default, an unknown name is "unknown"), ``reset()`` ends
the firmware with the status the server restarts on, and the fault hook does exactly what
it is told to the task it names only."""

import time

from bg import crashlog as CL
from hal import sim


def _hw(**kw):
    cfg = {"sensor_bytes": 4, "leds": 3, "buttons": 4}
    cfg.update(kw)
    return sim.make(cfg)


def test_watchdog_expires_only_when_not_fed_within_its_timeout():
    w = _hw().watchdog(60)
    for _ in range(4):
        time.sleep_ms(30)
        w.feed()
        assert not w.expired()
    time.sleep_ms(90)
    assert w.expired() and w.feeds == 4
    w.feed()
    assert not w.expired()


def test_bad_watchdog_timeouts_refused():
    hw = _hw()
    for ms in (0, -1, 1 << 29):
        try:
            hw.watchdog(ms)
            raise AssertionError("timeout %d accepted" % ms)
        except ValueError:
            pass


def test_reset_cause_from_the_server():
    assert CL.CAUSE_NAMES[_hw().reset_cause()] in ("power-on", "watchdog", "soft")  # env may say
    assert _hw(reset_cause="power-on").reset_cause() == CL.CAUSE_POWER_ON
    assert _hw(reset_cause="watchdog").reset_cause() == CL.CAUSE_WATCHDOG
    assert _hw(reset_cause="brownout").reset_cause() == CL.CAUSE_BROWNOUT
    assert _hw(reset_cause="nonsense").reset_cause() == CL.CAUSE_UNKNOWN


def test_reset_ends_the_firmware_with_the_restart_status():
    try:
        _hw().reset()
        raise AssertionError("reset returned")
    except SystemExit as e:
        assert e.args[0] == sim.RESET_EXIT == 75


def test_faults_hit_the_named_task_only():
    f = _hw().faults
    assert f.hit("scan") is True  # no fault: the beat counts
    f.want["leds"] = "stall"
    assert f.hit("scan") is True and f.hit("leds") is False and f.hit("leds") is False
    f.want["clock"] = "raise"
    try:
        f.hit("clock")
        raise AssertionError("no fault raised")
    except RuntimeError as e:
        assert "clock" in str(e)
    assert f.hit("clock") is True  # a task dies once: the next board is healthy
