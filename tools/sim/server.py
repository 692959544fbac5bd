"""The simulator: the real firmware on the MicroPython unix port, a virtual board in the browser.

    .venv/bin/python -m tools.sim.server [--port 8080] [--image .sim/flash.lfs] [--length 3]

compiles the firmware with mpy-cross into a ROMFS image (``tools/romfs.py``), starts it on the
MicroPython unix port with ``DEFAULT_HEAP`` of working heap beside it (docs/simulator.md on the
heap) with the
``sim`` HAL backend, which
connects back to this server over a local TCP socket (JSON lines, see ``firmware/hal/sim.py``),
and serves the page on http://127.0.0.1:8080/. The page only knows where the checkers are;
this server turns that into the raw 74HC165 chain bits (``tools/sim/physical.py``) and sends
them to the firmware, and streams the firmware's LED frames back (server-sent events).

Host tools reach the simulated board's link on ``--link-port`` (127.0.0.1:7607 by default):
the firmware itself listens there (``app.sock_link``), the same protocol as over BLE.

HTTP API (JSON)::

    GET  /                 the page          GET /board.json   hardware/board.json
    GET  /api/state        {"leds": hex, "physical": {...}, "log": [...], "frames": n, "status": {...},
                            "pairing": "NNNNNN" | null, "legend": [...], ...}
    GET  /events           server-sent events: "leds", "log", "physical", "status", "pairing", "exit",
                           "summary" (the match's summary once it ended: tools/sim/after_match.py)
    POST /api/physical     {"locs": [[colour, ...] x 28], "hand": [...]}   (a hand moved)
    POST /api/button       {"i": 0..3, "down": 0|1}
    POST /api/reset        {"setup": "start"|"clear"}  put the checkers on the start / away
    POST /api/match        {"computer": 0|1|null, "learn": bool}  restart the board with these
                           settings (the computer opponent, docs/controller.md): the next match
                           is played against it (a match in progress resumes with its own)
    POST /api/battery      {"mv": 0..6000}    the modelled cell's voltage (hal.sim.Battery)

Only the page this server served may use it: a request whose ``Host`` is not this server on
the loopback, or whose ``Origin`` is another site, gets 403; a POST that is not
``application/json`` gets 415 (``Handler._refused``: no web site open in the browser can press
the board's buttons or read its pairing number).

Stdlib only (http.server + threads).
"""

import argparse
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

from tools import mpy, romfs
from tools.sim import status as words
from tools.sim.physical import BOARD_JSON, Chain, Physical, load_board

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

STATIC = HERE / "static"
RESET_EXIT = 75  # the firmware's exit status after machine.reset() (hal.sim.RESET_EXIT)
# The firmware runs from a ROMFS image (its bytecode outside the heap, as in the ESP32's flash;
# docs/memory.md) with this much working heap. The whole match needs ~120k on this 64-bit host
# (tools/bench/sim.py); pairing (X25519) needs little on top.
DEFAULT_HEAP = "320k"
# On the board model (--board-model) the heap is the board's: the whole -X heapsize. The whole
# product there -- a match, the link with pairing and live watch, the watchdog supervisor, the
# battery's idle mode, firmware updates -- needs 64k since the app runs its collector every
# 4 kB after boot (app.main.App.boot; before, the hub's flow died at 64k at the match's first
# press, 4.9 kB free and no 296-byte run: fragmentation): the board-model cases of
# tests/host/test_hub_sim.py (10 runs of 10 at 64k on two builds; 0 of 3 before), test_sim_watch.py,
# test_dice_sim_seed.py, test_link_strangers.py, test_link_owner.py, test_watchdog_sim.py and
# test_sim_server.py pass at 64k, 68k and 72k (docs/memory.md, "The heap's order: the
# collector every 4 kB"); declared +8k. A match alone (no link) stays within 64k
# (tests/host/test_sim_heap.py).
# The ESP32's MicroPython heap starts at 56 KiB and grows into the IDF heap on demand
# (MICROPY_GC_SPLIT_HEAP_AUTO, ports/esp32/mpconfigport.h: sized "so they can grow the heap
# once (double it)").
BOARD_HEAP = "72k"
MIME = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
}


mpy_cross_binary = romfs.mpy_cross_binary


def build_firmware(out=None):
    """Compile firmware/{bg,hal,app} to .mpy (as ``make deploy`` does for the ESP32), so the
    64k heap holds the game and not the compiler's work. Only changed files are rebuilt.
    Returns the directory to put on MICROPYPATH."""
    out = Path(out or ROOT / ".sim" / "mpy")
    src = ROOT / "firmware"
    sources = sorted(p for p in src.rglob("*.py") if p.parent != src and "__pycache__" not in p.parts)
    wanted = {out / p.relative_to(src).with_suffix(".mpy") for p in sources}
    for old in out.rglob("*.mpy") if out.exists() else ():
        if old not in wanted:
            old.unlink()  # a module moved or removed: never import a stale copy
    for py in sources:
        dst = out / py.relative_to(src).with_suffix(".mpy")
        if dst.exists() and dst.stat().st_mtime >= py.stat().st_mtime:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [mpy_cross_binary(), "-march=x64", "-s", py.relative_to(src).as_posix(), "-o", str(dst), str(py)],
            capture_output=True,
            text=True,
        )
        if proc.returncode:
            raise RuntimeError("mpy-cross failed on %s:\n%s" % (py, proc.stderr))
    # the entry script runs from here, so the script's directory (first on sys.path) holds
    # the compiled modules and not the sources
    (out / "main.py").write_text((src / "main.py").read_text())
    return str(out)


micropython_binary = mpy.binary


class Sim:
    """The firmware subprocess, the physical board and everything the page sees."""

    def __init__(
        self,
        image=None,
        heap=None,
        settings=None,
        seed=None,
        link_port=0,
        quiet=True,
        scan_hz=None,
        rom=True,
        status=None,
        heap_probe=False,
        ota=None,
    ):
        self.board = load_board()
        self.chain = Chain(self.board)
        self.physical = Physical()
        self.image = image
        self.heap = heap or (BOARD_HEAP if rom == "board" else DEFAULT_HEAP)
        self.rom = rom
        # the page's status panel costs the firmware ~2 kB and a line per change: on by
        # default on the 64-bit port, off on the board model (its 64k heap is the board's)
        self.status_panel = status if status is not None else rom != "board"
        # the firmware's heap probe (hal.sim_bus: a collection every 0.5 s, the most held
        # and least free since it started: ``heap_figures``)
        self.heap_probe = heap_probe
        # the board model's flash as the ESP32's OTA app partitions (hal.sim_ota): a folder
        # whose ota_0/ota_1 hold board-model binaries; at each reset the bootloader's model
        # (tools/sim/bootloader.py) chooses the one that runs
        self.ota = ota
        self.booted = []  # the app partition of each boot, with ``ota``
        self._heap = None
        self.settings = settings or {}
        self.seed = seed
        self._restarts = 0  # restart_with's count (a seeded board's new seed each time)
        self._verdict = (None, "")  # (the play, learning mode's verdict on it in words)
        self.quiet = quiet
        self.scan_hz = scan_hz
        self.leds = bytes(3 * len(self.board["leds"]["chain"]))
        self.frames = 0
        self.frame_times = []  # (monotonic time, frame number)
        self.log = []
        self._log_dropped = 0  # lines dropped from the front of ``log`` (it keeps the last 300+)
        self.hello = None
        self.exit_code = None
        self.status = {}  # the firmware's last status line (app.sim_status), described
        self._st = {}  # the raw status line and the one before it (the last play's start)
        self._st_before = {}
        self.pairing = None  # the pairing value the firmware shows (its console), else None
        self.summary = None  # the last match's summary (lines) once it ended, else None
        self._match = None  # the id prefix of the match being played (the console's MATCH_START)
        self._ended = None  # the id prefix of the match that ended, until its summary is made
        self._subs = []
        self._lock = threading.Lock()
        self._frame_cv = threading.Condition(self._lock)
        self._fw = None  # socket to the firmware
        self._proc = None
        self.link_port = link_port
        # the board's hardware watchdog (hal.sim.Watchdog): this server is its timer, so a
        # firmware whose event loop is blocked is still reset (killed, started again)
        self.wdt_ms = 0  # armed timeout, 0 = not armed (a reset disarms it, as on the ESP32)
        self._fed = 0.0  # monotonic time of the last feed
        self.resets = []  # reset causes, in order ("watchdog", "soft")
        self._gen = 0  # the firmware process's generation (one per start)
        self._restart_lock = threading.Lock()
        self._wdt_thread = None
        self._stopping = False

    # -- firmware ---------------------------------------------------------------------

    def start(self, timeout=20, reset_cause=None):
        lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind(("127.0.0.1", 0))
        lsock.listen(1)
        port = lsock.getsockname()[1]
        env = dict(os.environ)
        build = build_firmware()
        env["SG_HAL"] = "sim"
        env["SG_SIM_PORT"] = str(port)
        env["SG_SIM_STATUS"] = "1" if self.status_panel else "0"
        env["SG_SIM_HEAP_PROBE"] = "1" if self.heap_probe else "0"
        self._heap = None  # (this start's figures)
        if reset_cause:
            env["SG_SIM_RESET_CAUSE"] = reset_cause  # machine.reset_cause() after the reset
        if self.image:
            Path(self.image).parent.mkdir(parents=True, exist_ok=True)
            env["SG_SIM_IMAGE"] = str(Path(self.image).resolve())
        if self.seed is not None:
            env["SG_SIM_SEED"] = str(self.seed)
        if self.settings:
            env["SG_SETTINGS"] = json.dumps(self.settings, separators=(",", ":"))
        if self.scan_hz:
            env["SG_SCAN_HZ"] = str(self.scan_hz)
        if self.link_port:
            env["SG_LINK_PORT"] = str(self.link_port)
        if self.rom == "board":
            # The board model (tools/board_model.py): the firmware frozen into a 32-bit build,
            # as on the ESP32; the heap is the whole -X heapsize (the board's 64k by default).
            firmware, path, target = "board", (), ["-m", "main"]  # the frozen main.py
        elif self.rom:
            # The firmware from a ROMFS image, as on the ESP32's flash (docs/memory.md): only
            # what it allocates counts against the working heap.
            firmware, path, target = "rom", (), ["main"]
        else:
            firmware, path, target = None, [build], [Path(build) / "main.py"]
        argv = mpy.command(target, self.heap, firmware)
        env = mpy.environ(path, firmware, env)
        if self.ota and self.rom == "board":
            from tools.sim import bootloader

            argv[0], label = bootloader.boot(self.ota)
            env["SG_OTA_DIR"] = str(Path(self.ota).resolve())
            env["SG_OTA_RUNNING"] = label
            self.booted.append(label)
        self._gen += 1
        self.wdt_ms = 0
        with self._lock:
            self.exit_code = None
        self._proc = subprocess.Popen(
            argv,
            cwd=str(ROOT),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._pump_stdout, args=(self._proc, self._gen), daemon=True).start()
        lsock.settimeout(0.2)
        end = time.monotonic() + timeout
        conn = None
        try:
            while conn is None:
                try:
                    conn, _ = lsock.accept()
                except TimeoutError:
                    if self._proc.poll() is not None or time.monotonic() > end:
                        time.sleep(0.2)  # let the stdout pump catch the traceback
                        self.stop()
                        tail = "\n".join(self.log[-30:])
                        raise RuntimeError("the firmware did not connect:\n" + tail) from None
        finally:
            lsock.close()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._fw = conn
        threading.Thread(target=self._pump_firmware, args=(conn,), daemon=True).start()
        self.send_bits()
        self._send({"t": "time", "unix": int(time.time())})
        if self._wdt_thread is None:
            self._wdt_thread = threading.Thread(target=self._watchdog, daemon=True)
            self._wdt_thread.start()
        return self

    # -- the hardware watchdog and resets (hal.sim.Watchdog) ----------------------------

    def _watchdog(self):
        while not self._stopping:
            time.sleep(0.05)
            ms = self.wdt_ms
            gen = self._gen
            if ms and time.monotonic() - self._fed > ms / 1000 and self.exit_code is None:
                self.restart("watchdog", gen)

    def restart(self, cause, gen=None):
        """The board resets: the firmware process ends at once (as the chip's reset) and
        starts again on the same flash image, the physical board as it was; its
        ``machine.reset_cause()`` then says ``cause``."""
        with self._restart_lock:
            if self._stopping or (gen is not None and gen != self._gen):
                return  # that firmware was reset already
            self.wdt_ms = 0
            self._gen += 1  # the old process's pumps go quiet from here
            proc = self._proc
            if proc is not None and proc.poll() is None:
                proc.kill()
            if proc is not None:
                proc.wait()
            if self._fw is not None:
                self._fw.close()
                self._fw = None
            self.resets.append(cause)
            self._log("[simulator: board reset (%s)]" % cause)
            self._publish("reset", {"cause": cause, "n": len(self.resets)})
            try:
                self.start(reset_cause=cause)
            except RuntimeError as e:  # it did not come back: say so, as a dead board would
                self._log("[simulator: the firmware did not start again: %s]" % e)
                with self._lock:
                    self.exit_code = -1
                    self._frame_cv.notify_all()

    def stop(self):
        self._stopping = True
        if self._fw is not None:
            try:
                self._send({"t": "quit"})
            except OSError:
                pass
        if self._proc is not None:
            try:
                self._proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._fw is not None:
            self._fw.close()
            self._fw = None

    def restart_with(self, **changes):
        """Restart the firmware with changed settings (``SG_SETTINGS``), e.g. ``computer=1``
        (the board plays black) or ``learn=True``; None removes a setting. The journal and
        the checkers stay: a match in progress resumes with its own settings."""
        s = dict(self.settings)
        for k, v in changes.items():
            if v is None:
                s.pop(k, None)
            else:
                s[k] = v
        self.stop()
        with self._lock:
            self.exit_code = None
        self.settings = s
        if self.seed is not None:
            # a seeded stream starts over at each boot: the restarted board would draw the
            # ids (and dice seeds) of the matches it already journaled ("match id already in
            # use"); a seed per restart keeps a seeded session replayable and its ids new
            self._restarts += 1
            self.seed = "%s/restart-%d" % (str(self.seed).split("/restart-")[0], self._restarts)
        self.start()
        self._publish("settings", s)
        return s

    def _pump_stdout(self, proc, gen):
        for line in proc.stdout:
            self._log(line.rstrip("\n"))
        code = proc.wait()
        if gen != self._gen:
            return  # a reset already started the next one
        if code == RESET_EXIT and not self._stopping:
            # machine.reset() (hal.sim): the board starts again
            threading.Thread(target=self.restart, args=("soft", gen), daemon=True).start()
            return
        with self._lock:
            self.exit_code = code
            self._frame_cv.notify_all()
        self._publish("exit", {"code": code})

    def _log(self, text):
        with self._lock:
            self.log.append(text)
            if len(self.log) > 600:
                self._log_dropped += len(self.log) - 300
                del self.log[:-300]
        if not self.quiet:
            print("firmware:", text, flush=True)
        ev = {"m": text}
        decoded = words.decode_log(text, self._play_from(text))
        if decoded:
            ev["d"] = decoded
        self._publish("log", ev)
        self._pairing_from_log(text)
        self._summary_from_log(text)

    def _summary_from_log(self, text):
        """A new match hides the last one's summary; its end reads the journal for it (in a
        thread: the image is read by MicroPython, the summary made by ``gammon.summary``) --
        once a page is there to show it (tests and demos without one pay nothing)."""
        if text.startswith("MATCH_START "):
            self._match = text.split()[1].rstrip(".")
            self._ended = None
            if self.summary is not None:
                self.summary = None
                self._publish("summary", {"lines": None})
        elif text.startswith("MATCH_END ") and self._match and self.image:
            self._ended = self._match
            if self._subs:
                self._summarise_soon()

    def _summarise_soon(self):
        prefix, self._ended = self._ended, None
        if prefix:
            threading.Thread(target=self._summarise, args=(prefix,), daemon=True).start()

    def _summarise(self, prefix):
        from tools.sim import after_match

        lines = after_match.summary_lines(self.image, prefix)
        if lines and self._match == prefix:
            self.summary = lines
            self._publish("summary", {"lines": lines})

    def _play_from(self, text):
        """The position a logged PLAY was played from (hex), for its notation's hit marks:
        the status line's, or the one before it when the status already shows this play."""
        if not text.startswith("PLAY "):
            return None
        with self._lock:
            st, before = self._st, self._st_before
        lp = st.get("lp")
        if lp and text.startswith("PLAY %d %s " % (lp[0], tuple(lp[1]))):
            return before.get("pos")
        return st.get("pos")

    def _pairing_from_log(self, text):
        """The pairing value as the firmware shows it (``app.main`` logs ``pairing code:
        NNNNNN`` while it is on the LED dice, and how the window ends)."""
        if text.startswith("pairing code: "):
            code = text[len("pairing code: ") :].strip()
        elif text in ("pairing closed", "pairing confirmed", "pairing refused", "link: every host unpaired"):
            code = None
        else:
            return
        with self._lock:
            self.pairing = code
        self._publish("pairing", {"code": code})

    def _status_line(self, msg):
        with self._lock:
            # a line carries what changed since the one before (app.sim_status; the first
            # after a start has every key): the status is the last one with it merged in
            msg = dict(self._st, **msg)
            if msg.get("lp") != self._st.get("lp"):
                self._st_before = self._st  # the last play started from the previous position
            self._st = msg
            self.status = words.describe(msg, self._st_before)
            self.status.update(words.live(msg, self.physical.locs))  # before the confirm
            # learning mode's verdict stays in the panel until the next play (the tray LED
            # shows it 3 s)
            if "verdict" in self.status:
                self._verdict = (msg.get("lp"), self.status["verdict"])
            elif self._verdict[0] is not None and self._verdict[0] == msg.get("lp"):
                self.status["verdict"] = self._verdict[1]
            st = self.status
        self._publish("status", st)

    def heap_figures(self):
        """The firmware's heap probe (``heap_probe``): bytes ``{"most", "least_free"}`` after a
        collection since the firmware (re)started; None before its first reading or with the
        probe off."""
        with self._lock:
            return None if self._heap is None else dict(self._heap)

    def log_since(self, n):
        """Console lines number ``n`` (counted from the start) onwards, and the next number."""
        with self._lock:
            i = max(0, n - self._log_dropped)
            lines = self.log[i:]
            return lines, self._log_dropped + len(self.log)

    def _pump_firmware(self, conn):
        try:
            self._read_firmware(conn.makefile("rb"))
        except (OSError, ValueError):
            pass  # the connection closed under us (a reset)

    def _read_firmware(self, f):
        for raw in f:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            t = msg.get("t")
            if t == "leds":
                data = bytes.fromhex(msg["d"])
                with self._lock:
                    self.leds = data
                    self.frames += 1
                    self.frame_times.append((time.monotonic(), self.frames))
                    del self.frame_times[:-50]
                    self._frame_cv.notify_all()
                self._publish("leds", {"d": msg["d"], "n": self.frames})
            elif t == "log":
                self._log(msg.get("m", ""))
            elif t == "st":
                try:
                    self._status_line(msg)
                except (KeyError, TypeError, ValueError, IndexError) as e:
                    # a status the panel cannot read loses that line, not the simulator: this
                    # thread also carries the LEDs and the console
                    self._log("simulator: status line not understood (%r): %s" % (e, raw[:200]))
            elif t == "feed":
                self._fed = time.monotonic()
            elif t == "wdt":
                self._fed = time.monotonic()
                self.wdt_ms = int(msg.get("ms", 0))
            elif t == "hello":
                self.hello = msg
            elif t == "hp":  # the heap probe's mark moved (hal.sim_bus)
                with self._lock:
                    self._heap = {"most": int(msg.get("most", 0)), "least_free": int(msg.get("free", 0))}

    def _send(self, obj):
        fw = self._fw
        if fw is None:
            return
        with self._lock:
            try:
                fw.sendall((json.dumps(obj, separators=(",", ":")) + "\n").encode())
            except OSError:
                if self._fw is fw:
                    raise
                # the board is resetting: what was sent is lost, as a press during a reset

    def fault(self, task, how):
        """Test hook (hal.sim.Faults): make the firmware's essential task ``task`` ("scan",
        "buttons", "leds", "clock", "link") ``how`` = "raise" / "block" / "stall"."""
        self._send({"t": "fault", "task": task, "how": how})

    # -- the physical board and the buttons ---------------------------------------------

    def send_bits(self):
        bits = self.chain.bits(self.physical.counts())
        self._send({"t": "bits", "d": bits.hex()})
        self._publish("physical", self.physical.to_json())
        return bits

    def set_physical(self, obj):
        self.physical.from_json(obj)
        sent = self.send_bits()
        self._live()
        return sent

    def _live(self):
        """The panel's live rows (``status.live``): pips as the checkers lie now, shown before
        the firmware's status line changes; the dice used as the firmware's recogniser says
        (its status line's ``du``), so they follow at its next line."""
        with self._lock:
            if not self._st:
                return
            st = dict(self.status)
            st.update(words.confirmed(self._st))
            st.update(words.live(self._st, self.physical.locs))
            if st == self.status:
                return
            self.status = st
        self._publish("status", st)

    def button(self, i, down):
        self._send({"t": "btn", "i": int(i), "down": 1 if down else 0})

    def battery(self, mv):
        """The modelled cell's voltage (millivolts); the firmware reads it at its next poll."""
        if isinstance(mv, bool) or not isinstance(mv, int) or not 0 <= mv <= 6000:
            raise ValueError("battery mv must be an integer 0..6000")
        self._send({"t": "battery", "mv": mv})

    def click(self, i, hold=0.0):
        self.button(i, 1)
        if hold:
            time.sleep(hold)
        self.button(i, 0)

    def wait_frame(self, after, timeout=5.0):
        """Block until an LED frame numbered > ``after`` arrives; returns the frame number."""
        end = time.monotonic() + timeout
        with self._lock:
            while self.frames <= after and self.exit_code is None:
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._frame_cv.wait(left)
            return self.frames

    # -- page subscribers --------------------------------------------------------------------

    def subscribe(self):
        q = queue.Queue(maxsize=500)
        with self._lock:
            self._subs.append(q)
        self._summarise_soon()  # a match that ended before any page looked
        return q

    def unsubscribe(self, q):
        with self._lock:
            if q in self._subs:
                self._subs.remove(q)

    def _publish(self, event, data):
        with self._lock:
            subs = list(self._subs)
        for q in subs:
            try:
                q.put_nowait((event, data))
            except queue.Full:
                pass

    def state(self):
        with self._lock:
            return {
                "leds": self.leds.hex(),
                "frames": self.frames,
                "physical": self.physical.to_json(),
                "log": self.log[-50:],
                "exit": self.exit_code,
                "link_port": self.link_port,
                "status": self.status,
                "pairing": self.pairing,
                "summary": self.summary,
                "legend": words.legend(),
                "settings": self.settings,
                "resets": list(self.resets),
            }


def static_file(folder, name):
    """The file ``name`` (as it appears in the URL, percent-encoded) inside ``folder``, or
    None: only plain names of regular files directly in the folder, never a path, a dot file,
    an encoded separator or a symlink (which could point anywhere)."""
    name = unquote(name)
    if not name or name.startswith(".") or "/" in name or "\\" in name or "\0" in name:
        return None
    f = Path(folder) / name
    try:
        if f.is_symlink() or not f.is_file() or f.resolve().parent != Path(folder).resolve():
            return None
    except (OSError, ValueError):
        return None
    return f


def make_handler(sim, static=STATIC):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            pass

        def _json(self, obj, code=200):
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _file(self, path):
            try:
                body = path.read_bytes()
            except OSError:
                return self._json({"error": "not found"}, 404)
            self.send_response(200)
            self.send_header("Content-Type", MIME.get(path.suffix, "application/octet-stream"))
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _refused(self, post=False):
            """Refuse a request a web page elsewhere made (answered 403/415, True), so that
            no site open in the user's browser can press the board's buttons or read its
            pairing number:

            - ``Host`` must name this server on the loopback (``127.0.0.1``, ``localhost``,
              ``[::1]``, or the address it was started on): a name of another site that
              resolves here (DNS rebinding) is refused;
            - an ``Origin`` (browsers send it with every cross-site request and every POST)
              must be this server's own;
            - a POST must be ``application/json``: the one kind a foreign page cannot send
              without a CORS preflight, which this server never grants."""
            host = self.headers.get("Host", "")
            bind, port = self.server.server_address[:2]
            names = {"127.0.0.1", "localhost", "[::1]", str(bind)}
            ok = names | {"%s:%d" % (n, port) for n in names}
            if str(bind) not in ("0.0.0.0", "::", "") and host not in ok:
                self._json({"error": "foreign host %r" % host}, 403)
                return True
            origin = self.headers.get("Origin")
            if origin is not None and origin != "http://" + host:
                self._json({"error": "cross-site request from %r refused" % origin}, 403)
                return True
            ctype = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
            if post and ctype != "application/json":
                self._json({"error": "Content-Type must be application/json"}, 415)
                return True
            return False

        def do_GET(self):
            if self._refused():
                return
            p = self.path.split("?", 1)[0]
            if p in ("/", "/index.html"):
                return self._file(STATIC / "index.html")
            if p.startswith("/static/"):
                f = static_file(static, p[len("/static/") :])
                return self._file(f) if f else self._json({"error": "not found"}, 404)
            if p == "/board.json":
                return self._file(BOARD_JSON)
            if p == "/api/state":
                return self._json(sim.state())
            if p == "/events":
                return self._events()
            return self._json({"error": "not found"}, 404)

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            if self._refused(post=True):
                self.rfile.read(n)  # the body is not ours to act on; the connection stays sane
                return
            try:
                obj = json.loads(self.rfile.read(n) or b"{}")
                if self.path == "/api/physical":
                    sim.set_physical(obj)
                elif self.path == "/api/button":
                    sim.button(int(obj["i"]), bool(obj.get("down")))
                elif self.path == "/api/match":
                    comp = obj.get("computer")
                    if comp not in (None, 0, 1):
                        raise ValueError("computer: 0, 1 or null")
                    sim.restart_with(computer=comp, learn=bool(obj.get("learn")) or None)
                elif self.path == "/api/battery":
                    sim.battery(obj.get("mv"))
                elif self.path == "/api/reset":
                    if obj.get("setup") == "clear":
                        sim.physical.__init__()
                    else:
                        sim.physical.set_start()
                    sim.send_bits()
                else:
                    return self._json({"error": "not found"}, 404)
            except (ValueError, KeyError, TypeError) as e:
                return self._json({"error": str(e)}, 400)
            return self._json({"ok": True})

        def _events(self):
            q = sim.subscribe()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                st = sim.state()
                self._sse("leds", {"d": st["leds"], "n": st["frames"]})
                self._sse("physical", st["physical"])
                self._sse("status", st["status"])
                self._sse("pairing", {"code": st["pairing"]})
                self._sse("summary", {"lines": st["summary"]})
                while True:
                    try:
                        ev, data = q.get(timeout=15)
                    except queue.Empty:
                        self.wfile.write(b": keepalive\n\n")
                        self.wfile.flush()
                        continue
                    self._sse(ev, data)
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass
            finally:
                sim.unsubscribe(q)

        def _sse(self, ev, data):
            self.wfile.write(("event: %s\ndata: %s\n\n" % (ev, json.dumps(data))).encode())
            self.wfile.flush()

    return Handler


def serve(sim, host="127.0.0.1", port=8080, static=STATIC):
    httpd = ThreadingHTTPServer((host, port), make_handler(sim, static))
    httpd.daemon_threads = True
    return httpd


def parse_settings(args):
    s = {}
    if args.length is not None:
        s["length"] = args.length
    for name in ("jacoby", "beaver", "casual", "house"):
        if getattr(args, name):
            s[name] = True
    if args.auto_doubles:
        s["auto_doubles"] = args.auto_doubles
    if args.computer is not None:
        s["computer"] = args.computer
    if args.learn:
        s["learn"] = True
    if args.clock:
        s["clock_s"] = int(args.clock * 60)
        s["delay_s"] = int(args.delay)
    return s


def add_setting_args(ap):
    ap.add_argument("--length", type=int, default=None, help="match length (0 = money play; default 3)")
    ap.add_argument("--jacoby", action="store_true", help="money play: Jacoby rule")
    ap.add_argument("--beaver", action="store_true", help="money play: beavers allowed")
    ap.add_argument("--auto-doubles", type=int, default=0, help="money play: automatic doubles limit")
    ap.add_argument("--casual", action="store_true", help="the opponent may accept an illegal play")
    ap.add_argument("--house", action="store_true", help="seed-004 opening (highest total starts)")
    ap.add_argument(
        "--computer", type=int, choices=(0, 1), default=None, help="the board plays this side (pubeval)"
    )
    ap.add_argument("--learn", action="store_true", help="learning mode: the coach judges every play")
    ap.add_argument("--clock", type=float, default=0, help="match clock: reserve per player, minutes")
    ap.add_argument("--delay", type=float, default=12, help="match clock: delay per move, seconds")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Run the firmware against a virtual board in the browser.")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--link-port", type=int, default=7607, help="TCP port of the board's link (0 = off)")
    ap.add_argument(
        "--image",
        default=str(ROOT / ".sim" / "flash.lfs"),
        help="littlefs image holding the journal (kept between runs)",
    )
    ap.add_argument(
        "--heap",
        default=None,
        help="MicroPython working heap; the firmware's code is in a ROMFS image beside it (default %s; "
        "with --board-model the whole heap, default %s)" % (DEFAULT_HEAP, BOARD_HEAP),
    )
    ap.add_argument(
        "--board-model",
        action="store_true",
        help="run the firmware on the board model: MicroPython built 32-bit with the firmware frozen "
        "in, as on the ESP32 (tools/board_model.py; builds it first)",
    )
    ap.add_argument("--seed", default=None, help="deterministic randomness (demos)")
    ap.add_argument("--no-setup", action="store_true", help="start with the checkers off the board")
    add_setting_args(ap)
    args = ap.parse_args(argv)
    sim = Sim(
        image=args.image,
        heap=args.heap,
        settings=parse_settings(args),
        seed=args.seed,
        link_port=args.link_port,
        quiet=False,
        rom="board" if args.board_model else True,
    )
    if not args.no_setup:
        sim.physical.set_start()
    # Claim the page's port before starting the firmware, so a busy port is one clear line.
    try:
        httpd = serve(sim, args.host, args.port)
    except OSError as e:
        print(
            "simulator: cannot serve on %s:%d (%s); choose another port: make sim SIM_PORT=8081"
            % (args.host, args.port, e.strerror or e),
            file=sys.stderr,
        )
        return 2
    try:
        sim.start()
    except Exception as e:  # noqa: BLE001 - one clear line for the user, then exit
        httpd.server_close()
        print("simulator: the firmware did not start: %s" % e, file=sys.stderr)
        return 2

    def _term(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _term)
    print(
        "smartgammon simulator: http://%s:%d/  (board link: %s; Ctrl-C stops)"
        % (
            args.host,
            httpd.server_address[1],
            "tcp:127.0.0.1:%d" % sim.link_port if sim.link_port else "off",
        ),
        flush=True,
    )
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
        sim.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
