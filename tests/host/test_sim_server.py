"""The simulator end to end: the server starts the real firmware on MicroPython, robot players
move checkers through the simulated reed sensors and press the buttons, and the match lands
in the journal on the littlefs image; a power cut mid-game resumes where it stopped; the
page's HTTP API refuses bad input."""

import json
import random
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from bg import hwdesc, record

from tools.sim import demo, physical, server

ROOT = Path(__file__).resolve().parents[2]


def test_chain_bits_match_the_firmware_board_description():
    chain = physical.Chain()
    board = hwdesc.load(str(ROOT / "hardware" / "board.json"))
    rng = random.Random(3)
    for _ in range(200):
        counts = (
            [rng.randint(0, 9) for _ in range(24)]
            + [rng.randint(0, 6) for _ in range(2)]
            + [rng.randint(0, 15) for _ in range(2)]
        )
        capped = bytearray(min(c, s) for c, s in zip(counts, [6] * 26 + [15] * 2))
        assert chain.bits(counts) == bytes(board.fill_chain(capped)), counts


def test_physical_hand_lifting_and_stacking():
    p = physical.Physical()
    p.set_start()
    assert p.counts()[5] == 5 and sum(p.counts()) == 30
    c = p.lift(5)
    assert c == 0 and p.counts()[5] == 4 and p.hand == [0]  # lifted: its slot is open now
    p.drop(7)
    assert p.counts()[7] == 4 and p.hand == []
    with pytest.raises(ValueError):
        p.lift(2)  # nothing on board point 3
    with pytest.raises(ValueError):
        p.from_json({"locs": [[0] * 16] + [[]] * 27})  # 16 white checkers


def test_demo_match_completes_and_is_stored(tmp_path):
    img = tmp_path / "flash.lfs"
    rc = demo.main(["--length", "1", "--image", str(img), "--seed", "t1"])
    assert rc == 0
    [(path, acts, msg, size)] = demo.check_journal(img)
    kinds = [k for k, f in acts]
    assert kinds[0] == record.MATCH_START and kinds[-2:] == [record.MATCH_END, record.SEED_REVEAL]
    assert msg.startswith("PASS"), msg
    assert kinds.count(record.PLAY) > 20


def test_power_cut_mid_game_resumes_from_the_journal(tmp_path):
    img = tmp_path / "flash.lfs"
    sim = server.Sim(image=str(img), settings={"length": 1}, seed="cut")
    sim.start()
    try:
        p = demo.Player(sim, random.Random(5))
        p.start_game(True)
        for _ in range(6):
            assert p.turn() is None
        plays = sum(1 for line in sim.log if line.startswith("PLAY"))
    finally:
        sim._proc.kill()  # the power cut: no clean shutdown
        sim._proc.wait()
        sim.stop()
    sim2 = server.Sim(image=str(img), settings={"length": 1}, seed="cut")
    sim2.physical = sim.physical  # the checkers stay where they were
    sim2.start()
    try:
        deadline = time.monotonic() + 10
        while not any("resumed match" in x for x in sim2.log) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert plays >= 6 and any("resumed match" in x for x in sim2.log), sim2.log
        # the side on roll rolls again (a roll not yet played is derived again, identically)
        p.sim = sim2
        p.con = demo.Console(sim2)
        kind, text = p.press_until("roll%d" % p.side, ("ROLL",))
        nums = [int(x) for x in text.split()]
        assert (nums[1], nums[2]) == p.dice  # the same throw as before the cut
        end = None
        while end is None:
            end = p.turn()
        assert p.con.next(("MATCH_END",), timeout=2)
    finally:
        sim2.stop()
    [(path, acts, msg, size)] = demo.check_journal(img)
    assert msg.startswith("PASS"), msg


def _http(port, path, obj=None, headers=None, data=None):
    req = urllib.request.Request(
        "http://127.0.0.1:%d%s" % (port, path),
        data=data if data is not None else None if obj is None else json.dumps(obj).encode(),
        headers=headers or {"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_http_api_serves_the_page_and_refuses_bad_input(tmp_path):
    import threading

    sim = server.Sim(image=str(tmp_path / "f.lfs"), settings={"length": 1})
    sim.physical.set_start()
    sim.start()
    httpd = server.serve(sim, port=0)
    port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        code, body = _http(port, "/")
        assert code == 200 and b"smartgammon" in body
        code, body = _http(port, "/board.json")
        assert code == 200 and json.loads(body)["format"] == "smartgammon-board-v1"
        code, body = _http(port, "/static/sim.js")
        assert code == 200 and b"locAt" in body
        code, body = _http(port, "/api/state")
        st = json.loads(body)
        assert code == 200 and len(st["physical"]["locs"]) == 28 and st["exit"] is None
        before = sim.physical.counts()
        code, body = _http(port, "/api/physical", {"locs": [[0, 1, 7]] + [[]] * 27})
        assert code == 400 and b"colours" in body and sim.physical.counts() == before
        code, body = _http(port, "/api/button", {"down": 1})
        assert code == 400
        code, _ = _http(port, "/api/reset", {"setup": "clear"})
        assert code == 200 and sum(sim.physical.counts()) == 0
        n = sim.frames
        assert sim.wait_frame(n, timeout=3) > n  # the LEDs answer (setup guidance)
        code, _ = _http(port, "/static/../server.py")
        assert code == 404
    finally:
        httpd.shutdown()
        httpd.server_close()
        sim.stop()


def test_http_api_refuses_requests_from_other_sites(tmp_path):
    """A page of another site open in the user's browser (a "simple" POST: text/plain, no
    preflight; or a name of its own that resolves to 127.0.0.1) presses no button, sets no
    battery and reads no pairing number; the page's own requests are served."""
    import threading

    sim = server.Sim(image=str(tmp_path / "f.lfs"), settings={"length": 1})
    sent = []
    sim._send = sent.append  # what would reach the firmware (nothing runs: no sim.start())
    httpd = server.serve(sim, port=0)
    port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    here = "127.0.0.1:%d" % port
    try:
        for path, body in (("/api/button", {"i": 0, "down": 1}), ("/api/battery", {"mv": 3000})):
            data = json.dumps(body).encode()
            foreign = {"Content-Type": "text/plain", "Origin": "http://evil.example"}
            assert _http(port, path, headers=foreign, data=data)[0] == 403
            foreign_json = {"Content-Type": "application/json", "Origin": "https://evil.example"}
            assert _http(port, path, headers=foreign_json, data=data)[0] == 403
            own_plain = {"Content-Type": "text/plain", "Origin": "http://" + here}
            assert _http(port, path, headers=own_plain, data=data)[0] == 415
            rebound = {"Content-Type": "application/json", "Host": "evil.example:%d" % port}
            assert _http(port, path, headers=rebound, data=data)[0] == 403
        assert sent == []  # nothing reached the board
        code, body = _http(port, "/api/state", headers={"Host": "evil.example:%d" % port})
        assert code == 403 and b"pairing" not in body
        assert _http(port, "/api/state", headers={"Origin": "http://evil.example"})[0] == 403
        # the page's own requests (its Origin, JSON) and tools without an Origin are served
        own = {"Content-Type": "application/json", "Origin": "http://" + here}
        assert _http(port, "/api/button", headers=own, data=b'{"i": 0, "down": 1}')[0] == 200
        assert _http(port, "/api/battery", {"mv": 3000})[0] == 200
        assert [m["t"] for m in sent] == ["btn", "battery"]
        assert _http(port, "/api/state")[0] == 200
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_status_line_the_panel_cannot_read_loses_that_line_not_the_simulator():
    """The reader thread carries the LEDs, the console and the status: a status line without
    the keys the panel needs (a line with only what changed, arriving before any whole one)
    is said in the console, and the lines after it are still read."""
    from bg import board

    sim = server.Sim(rom="board")
    moving = server.words.PHASES.index("moving")
    pos = bytes(board.start_position()).hex()
    lines = [  # no side ("s"): the panel cannot say whose move it is
        '{"t":"st","ph":%d,"pos":"%s","d":[3,1],"cp":1}\n' % (moving, pos),
        '{"t":"log","m":"still reading"}\n',
        '{"t":"leds","d":"%s"}\n' % ("01" * len(sim.leds)),
    ]
    sim._read_firmware(iter(lines))
    assert any("status line not understood" in m for m in sim.log), sim.log
    assert any("still reading" in m for m in sim.log)
    assert sim.frames == 1 and sim.leds == b"\x01" * len(sim.leds)
