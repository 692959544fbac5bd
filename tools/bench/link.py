"""Benchmark of the board's link: time to transfer 100 games over a modelled BLE link and the
bytes on the air per game, using the real framing, MAC and flow-control code.

    .venv/bin/python -m tools.bench.link OUTDIR      -> OUTDIR/link.json

What runs for real: the firmware's ``bg.link.session.Session`` serving a ``MemoryStore`` of
100 games encoded with ``bg.record``, and the host's ``bg.link.host.HostEnd`` (authenticate,
LIST, then FETCH each game with a 16-frame credit window, ACK every 8 frames). Every frame
both ends produce is cut into ATT packets of MTU - 3 bytes.

The radio model (stated, not measured -- there is no radio here):

- ATT MTU 185 (182-byte notifications), LE 1M PHY, Data Length Extension on (a 185-byte ATT
  PDU + 4-byte L2CAP header fits one 251-byte LL PDU), link encrypted (4-byte MIC).
- Connection interval 15 ms; in each connection event the central sends first (its queued
  writes, or an empty PDU), then the board sends up to N = 4 notifications (a common
  phone/PC stack limit), each answered by an empty central PDU. Writes received in an event
  are handled after it, so the board's answer goes out in the next event; the host's
  reaction (an ACK, the next FETCH) also waits for the next event: one request/response
  round trip costs two connection events (30 ms).
- On-air bytes per LL packet: preamble 1 + access address 4 + LL header 2 + payload + MIC 4
  (data PDUs only) + CRC 3. Empty PDUs: 10 bytes.
- Board CPU per DATA frame (CRC-16 + HMAC-SHA-256 tag): measured here under the MicroPython
  unix port and scaled by the same run's unix port -> ESP32 calibration (area ``calib``,
  ``esp32_ratio``: an estimate of how much slower an ESP32 runs the same bytecode than this
  machine); the event fits as many notifications
  as both the radio (N) and the CPU budget (the interval) allow.

Game model: one match record stream per game (MATCH_START, GAME_START, OPENING, 56 compact
TURN records -- a typical money game is ~28 rolls each -- GAME_END, MATCH_END, SEED_REVEAL).
"""

import json
import random
import struct
import sys
import time
from pathlib import Path

from tools import mpy
from tools.bench import calib, size

ROOT = Path(__file__).resolve().parents[2]

from bg import link as P  # noqa: E402
from bg import record  # noqa: E402
from bg.link.board import Board  # noqa: E402
from bg.link.host import HostEnd  # noqa: E402
from bg.link.session import Session  # noqa: E402
from bg.link.store import MemoryStore  # noqa: E402
from link_fakes import Clock, Rand  # noqa: E402

GAMES = size(100, 3)
TURNS = 56
MTU = 185
INTERVAL_MS = 15.0
PACKETS_PER_EVENT = 4
LL_OVERHEAD = 1 + 4 + 2 + 4 + 3  # preamble, access address, header, MIC, CRC
EMPTY_PDU = 10
L2CAP_ATT = 4 + 3  # L2CAP header + ATT opcode/handle


def make_game(rng, i):
    mid = b"G%07d" % i
    out = bytearray(
        record.encode(
            record.MATCH_START,
            (mid, 1767225600 + i, 0, record.OPT_JACOBY, 0, 0, 0, "Alice", "Bob", bytes(32), b""),
        )
    )
    out += record.encode(record.GAME_START, (1, 0, 0, 0))
    out += record.encode(record.OPENING, (0, (3, 1)))
    for t in range(TURNS):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        if d1 == d2:
            steps = (13, 13 - d1, 13, 13 - d1, 8, 8 - d1, 8, 8 - d1)
        else:
            steps = (24, 24 - d1, 13, 13 - d2)
        out += record.encode(record.TURN, (t & 1, d1, d2, steps, 0))
    out += record.encode(record.GAME_END, (0, 1, 1, record.END_BEAROFF))
    out += record.encode(record.MATCH_END, (0, 1, 0))
    out += record.encode(record.SEED_REVEAL, (bytes(range(32)),))
    return mid, bytes(out)


def board_frame_cpu_ms():
    """Time to build one full DATA frame (CRC + MAC) under the MicroPython unix port."""
    code = (
        "import time\n"
        "from bg import link as P\n"
        "from bg.link import crypto as C\n"
        "m = C.Mac(b'k' * 32)\n"
        "d = bytes(range(161)) + b'abcd'\n"
        "n = 400\n"
        "t = time.ticks_us()\n"
        "for i in range(n):\n"
        "    P.encode_frame(P.DATA, i, d, 0, m, b'B')\n"
        "print(time.ticks_diff(time.ticks_us(), t) / n / 1000)\n"
    )
    r = mpy.run(["-c", code], heap=None, timeout=120)
    return float(r.stdout.strip())


def air_bytes(att_payload):
    return LL_OVERHEAD + L2CAP_ATT + att_payload


def run(cpu_ms_per_frame):
    rng = random.Random(7)
    st = MemoryStore(b"BENCHBRD", "Bench")
    games = [make_game(rng, i) for i in range(GAMES)]
    for mid, data in games:
        st.add(mid, data, P.STATE_FINISHED)
    board = Board(st, Clock(), Rand(b"b"))
    key = b"K" * 32
    board.hosts = [(b"HOST0001", key, "bench")]
    s = Session(board, MTU)
    h = HostEnd(Rand(b"h"))
    att = MTU - 3

    stats = {"events": 0, "air": 0, "notifications": 0, "writes": 0}
    up = []  # host -> board ATT writes waiting for the next event
    down = []  # board -> host notifications waiting (bytes)
    replies = []

    def host_send(frame):
        for i in range(0, len(frame), att):
            up.append(frame[i : i + att])

    cpu_budget = max(1, int(INTERVAL_MS // cpu_ms_per_frame)) if cpu_ms_per_frame > 0 else PACKETS_PER_EVENT

    def event():
        stats["events"] += 1
        # central first: its writes (one per PDU), or one empty PDU
        writes = []
        if not up:
            stats["air"] += EMPTY_PDU
        while up:
            w = up.pop(0)
            stats["writes"] += 1
            stats["air"] += air_bytes(len(w)) + EMPTY_PDU  # + the board's empty reply
            writes.append(w)
        # then the board's notifications queued before this event, up to N
        sent = 0
        while down and sent < PACKETS_PER_EVENT:
            n = down.pop(0)
            sent += 1
            stats["notifications"] += 1
            stats["air"] += air_bytes(len(n)) + EMPTY_PDU
            replies.extend(h.feed(n))  # the host sees them at the end of the event
        # the board handles the writes after the event; its answers go out from the next one
        for w in writes:
            s.feed(w)
        frames = 0
        while len(down) < 2 * PACKETS_PER_EVENT and frames < cpu_budget:
            f = s.pump()
            if f is None:
                break
            frames += 1
            for i in range(0, len(f), att):
                down.append(f[i : i + att])

    def wait_for(pred, limit=100000):
        for _ in range(limit):
            event()
            if pred():
                return
        raise RuntimeError("bench link stalled")

    # authenticate (the nonces and proofs of a real session)
    host_send(h.auth_start(b"HOST0001", key))
    wait_for(lambda: replies)
    ch = replies.pop(0)[1]
    host_send(h.auth_proof(ch))
    h.auth_expect()
    wait_for(lambda: replies)
    h.auth_finish(replies.pop(0)[1])
    auth_events = stats["events"]

    start_events = stats["events"]
    start_air = stats["air"]
    host_send(h.request(P.REQ_LIST, b"\x00\x00"))
    listed = 0
    while listed < GAMES:
        wait_for(lambda: replies)
        t, p, _ = replies.pop(0)
        total, start, n = struct.unpack("<HHB", p[:5])
        listed += n
        if listed < total:
            host_send(h.request(P.REQ_LIST, struct.pack("<H", listed)))
    payload_bytes = 0
    for mid, data in games:
        host_send(h.request(P.REQ_FETCH, mid + struct.pack("<IIB", 0, 0xFFFFFFFF, 16)))
        got = bytearray()
        since = 0
        done = False
        while not done:
            wait_for(lambda: replies)
            while replies:
                t, p, fl = replies.pop(0)
                if t == P.DATA:
                    got += p[4:]
                    since += 1
                    if fl & P.FLAG_LAST:
                        done = True
                    elif since >= 8:
                        host_send(h.request(P.REQ_ACK, struct.pack("<IB", len(got), since)))
                        since = 0
                elif t == P.ERROR:
                    raise RuntimeError("board error %r" % (P.parse_error(p),))
        assert bytes(got) == data
        payload_bytes += len(data)
    events = stats["events"] - start_events
    return {
        "games": GAMES,
        "record_bytes_per_game": round(payload_bytes / GAMES, 1),
        "transfer_100_games_s": round(events * INTERVAL_MS / 1000.0, 3),
        "auth_ms": round(auth_events * INTERVAL_MS, 1),
        "air_bytes_per_game": round((stats["air"] - start_air) / GAMES, 1),
        "air_overhead_ratio": round((stats["air"] - start_air) / payload_bytes, 3),
        "notifications_per_game": round(stats["notifications"] / GAMES, 1),
        "host_writes_per_game": round(stats["writes"] / GAMES, 1),
        "connection_events": events,
        "goodput_bytes_per_s": round(payload_bytes / (events * INTERVAL_MS / 1000.0)),
    }


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    ratio = calib.ratio(out)
    cpu_unix = board_frame_cpu_ms()
    cpu_esp = cpu_unix * ratio
    res = run(cpu_esp)
    res.update(
        {
            "model_mtu": MTU,
            "model_interval_ms": INTERVAL_MS,
            "model_packets_per_event": PACKETS_PER_EVENT,
            "esp32_ratio": ratio,
            "board_frame_cpu_unix_ms": round(cpu_unix, 4),
            "board_frame_cpu_esp32_est_ms": round(cpu_esp, 3),
            "bench_wall_s": round(time.time() - t0, 2),
        }
    )
    (out / "link.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "link: %d games (%.0f B each) in %.2f s over modelled BLE (MTU %d, %g ms x %d pkts); "
        "%.0f B on air per game (x%.2f); board %.3f ms/frame est. ESP32"
        % (
            GAMES,
            res["record_bytes_per_game"],
            res["transfer_100_games_s"],
            MTU,
            INTERVAL_MS,
            PACKETS_PER_EVENT,
            res["air_bytes_per_game"],
            res["air_overhead_ratio"],
            cpu_esp,
        )
    )


if __name__ == "__main__":
    main()
