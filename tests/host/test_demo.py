"""``make demo`` never flakes: a seeded demo replays the same match, record
for record (the simulator's dice come from the seed alone, not from button timing), and 20
seeded 1-point demos -- half of them with the house opening (seed 004) -- all complete while
two CPU hogs compete for the cores (the demo waits on the firmware's console, never on a fixed
sleep racing it). ``SG_DEMO_RUNS`` sets the number of loaded demos (default 20)."""

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from bg import record  # noqa: E402

from tools.sim import demo  # noqa: E402


def _records(image):
    """The journal's records, the wall-clock time of MATCH_START left out (the only field a
    replay may change)."""
    [(path, acts, msg, size)] = demo.check_journal(image)
    assert msg.startswith("PASS"), msg
    out = []
    for k, f in acts:
        if k == record.MATCH_START:
            f = f[:1] + f[2:]
        out.append((k, f))
    return out


def test_a_seed_replays_the_same_match(tmp_path):
    runs = []
    for i in range(2):
        img = tmp_path / ("r%d.lfs" % i)
        assert demo.main(["--length", "1", "--seed", "replay-7", "--image", str(img), "--quiet"]) == 0
        runs.append(_records(img))
    assert runs[0] == runs[1]
    kinds = [k for k, f in runs[0]]
    # the button timing is still journaled (a seeded player seed, from the seed alone)
    assert record.SEED_PART in kinds and kinds.count(record.PLAY) > 10
    # another seed: another match (the seed does decide the dice)
    img = tmp_path / "other.lfs"
    assert demo.main(["--length", "1", "--seed", "replay-8", "--image", str(img), "--quiet"]) == 0
    assert _records(img) != runs[0]


def _loaded_demo(tmp_path, i):
    img = tmp_path / ("d%d.lfs" % i)
    args = ["--length", "1", "--seed", "load-%d" % i, "--image", str(img), "--quiet", "--step-ms", "3"]
    if i % 2:
        args.append("--house")
    assert demo.main(args) == 0, "demo %d did not finish its match" % i
    [(path, acts, msg, size)] = demo.check_journal(img)
    kinds = [k for k, f in acts]
    assert kinds[-2:] == [record.MATCH_END, record.SEED_REVEAL] and msg.startswith("PASS"), msg
    if i % 2:  # the house opening: side 0's and side 1's two dice in one OPENING
        first = [f for k, f in acts if k == record.OPENING][0]
        assert len(first[1]) == 4, first
    return i


def test_seeded_demos_complete_under_cpu_load(tmp_path):
    """Four demos at a time (a demo mostly waits for the firmware's scans; each has its own
    simulator), beside two busy processes."""
    from concurrent.futures import ThreadPoolExecutor

    n = int(os.environ.get("SG_DEMO_RUNS", "20"))
    hog = [sys.executable, "-c", "while True: pass"]
    hogs = [subprocess.Popen(hog) for _ in range(2)]
    t0 = time.monotonic()
    try:
        with ThreadPoolExecutor(4) as ex:
            done = sorted(ex.map(lambda i: _loaded_demo(tmp_path, i), range(n)))
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert done == list(range(n))
    print("%d loaded demos in %.0f s" % (n, time.monotonic() - t0))


def test_watch_serves_the_page_while_the_robots_play(tmp_path, capsys):
    import json
    import re
    import threading
    import urllib.request

    rc = []
    img = tmp_path / "w.lfs"
    args = ["--length", "1", "--seed", "watch", "--image", str(img), "--quiet", "--watch", "--port", "0"]
    args += ["--linger", "3"]
    t = threading.Thread(target=lambda: rc.append(demo.main(args + ["--step-ms", "3"])), daemon=True)
    t.start()
    url = None
    end = time.monotonic() + 120
    seen = ""
    while url is None and time.monotonic() < end:
        seen += capsys.readouterr().out
        m = re.search(r"http://127\.0\.0\.1:\d+/", seen)
        url = m.group(0) if m else None
        time.sleep(0.05)
    assert url, seen
    page = urllib.request.urlopen(url, timeout=30).read()
    assert b"<html" in page.lower()
    plays = []
    while not plays and time.monotonic() < end:  # the page's state shows the robots' plays
        state = json.loads(urllib.request.urlopen(url + "api/state", timeout=30).read())
        plays = [x for x in state["log"] if x.startswith("PLAY")]
        time.sleep(0.2)
    assert plays
    # the match's end: the page still runs and says so (never frozen mid-game)
    final = ""
    while "match over" not in final and time.monotonic() < end:
        state = json.loads(urllib.request.urlopen(url + "api/state", timeout=30).read())
        final = state["status"].get("next", "")
        time.sleep(0.1)
    assert re.match(r"(white|black) wins \d+ points? \(\w+\)\. match over", final), final
    t.join(300)
    assert rc == [0]
    # the terminal's summary in words
    out = seen + capsys.readouterr().out
    assert re.search(
        r"played 1 game, \d+ turns in [\d.]+ s; (white|black) wins the match, white \d+ - black \d+", out
    ), out
    assert "result:" not in out
