"""The simulator's battery end to end: the page's POST /api/battery sets the modelled cell
(hal.sim.Battery, through the sim bus), the firmware reads it at its next poll, and ROLL held
alone shows it on the LEDs (app.power, app.view); nonsense is refused with 400."""

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from bg import battery, hwdesc, leds

from tools.sim import server

ROOT = Path(__file__).resolve().parents[2]


def _http(port, path, obj=None):
    req = urllib.request.Request(
        "http://127.0.0.1:%d%s" % (port, path),
        data=None if obj is None else json.dumps(obj).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _lit_points(frame, board, side):
    """Own points 1..10 of ``side`` whose LED is on in the GRB ``frame``."""
    out = []
    for q in range(1, 11):
        i = board.point_led[q if side == 0 else 25 - q]
        if any(frame[3 * i : 3 * i + 3]):
            out.append(q)
    return out


def test_page_sets_the_battery_and_the_gauge_shows_it(tmp_path):
    board = hwdesc.load()
    sim = server.Sim(image=str(tmp_path / "f.lfs"), settings={"length": 1})
    sim.physical.set_start()
    sim.start()
    httpd = server.serve(sim, port=0)
    port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        for bad in ({"mv": "3800"}, {"mv": 7000}, {"mv": -1}, {"mv": True}, {}):
            code, body = _http(port, "/api/battery", bad)
            assert code == 400 and b"0..6000" in body, bad
        mv = 3800
        code, _ = _http(port, "/api/battery", {"mv": mv})
        assert code == 200
        time.sleep(board.battery["poll_s"] + 0.5)  # the firmware's next battery poll
        roll0 = [b[1:3] for b in board.buttons].index(("roll", 0))
        sim.click(roll0, hold=1.2)  # ROLL held alone: the gauge for 3 s
        time.sleep(0.3)
        frame = bytes.fromhex(json.loads(_http(port, "/api/state")[1])["leds"])
        n = leds.battery_segments(battery.percent(mv, board.battery_mv, board.battery_pct))
        assert 0 < n < 10
        assert _lit_points(frame, board, 0) == list(range(1, n + 1))
        assert _lit_points(frame, board, 1) == list(range(1, n + 1))
    finally:
        httpd.shutdown()
        httpd.server_close()
        sim.stop()
