"""The crash log: why the board last reset, kept on flash beside the journal.

One small file ``<root>/crash.log`` holds the last ``MAX_ENTRIES`` entries, oldest first;
an entry is a reset cause (``CAUSE_*``, from ``machine.reset_cause()`` through the HAL) or
an event the supervisor (``app.supervisor``) saw before it let the watchdog reset the board
(a task that died with an exception, a task that stopped making progress), with a short text
(the exception and the innermost lines of its traceback, truncated to ``MAX_TEXT`` bytes).

The file never grows: ``add()`` drops the oldest entry beyond ``MAX_ENTRIES``, so it is at
most ``MAX_FILE`` bytes. It is rewritten whole into ``crash.log.t`` and renamed over the old
one (littlefs rename is atomic, as for the journal's small files): a power cut during a write
leaves the previous log readable. A checksum over the file catches any other damage; a damaged
log reads as empty (``damaged`` True) and the next ``add()`` starts a new one.

File layout (little-endian)::

    b"CL" version(u8 = 1) count(u8) entry*count check(4 bytes: SHA-256 of all before, first 4)
    entry: seq(u32) unix_time(u32) cause(u8) text_len(u8) text(utf-8, <= MAX_TEXT)

``seq`` counts every entry ever added (it goes on across the ring), so a host sees how many
were dropped. The link serves the entries (``REQ_CRASH_LOG``, docs/protocol.md) as they are
stored, ``PAGE`` at a time.

Example::

    log = CrashLog("/flash")
    log.add(CAUSE_WATCHDOG, "", hw.clock.unix_time())
    for seq, t, cause, text in log.entries():
        print(seq, CAUSE_NAMES[cause], text)
"""

import hashlib
import os
import struct

from micropython import const

# Reset causes (what ``machine.reset_cause()`` says, mapped by the HAL) and the supervisor's
# events. One vocabulary: the host names them from ``CAUSE_NAMES``.
CAUSE_UNKNOWN = const(0)
CAUSE_POWER_ON = const(1)
CAUSE_HARD = const(2)
CAUSE_WATCHDOG = const(3)
CAUSE_DEEP_SLEEP = const(4)
CAUSE_SOFT = const(5)
CAUSE_BROWNOUT = const(6)
CAUSE_TASK_DIED = const(7)  # a task ended with an exception: the text says which and why
CAUSE_TASK_HUNG = const(8)  # a task made no progress within its deadline: the text names it
CAUSE_NAMES = (
    "unknown",
    "power-on",
    "hard",
    "watchdog",
    "deep-sleep",
    "soft",
    "brownout",
    "task died",
    "task hung",
)

MAX_ENTRIES = const(8)
MAX_TEXT = const(96)
ENTRY_HEAD = const(10)  # seq u32, time u32, cause u8, text length u8
PAGE = const(4)  # entries per link response: 4 x 106 + 3 fits a frame's 512 bytes
_CHECK = const(4)
MAX_FILE = const(856)  # 4 + MAX_ENTRIES * (ENTRY_HEAD + MAX_TEXT) + _CHECK
_MAGIC = b"CL\x01"
NAME = "crash.log"


def clip(text, limit=MAX_TEXT):
    """``text`` as at most ``limit`` bytes of UTF-8: its end is kept (a traceback's last
    lines say where and what), never a broken character."""
    b = text.encode() if isinstance(text, str) else bytes(text)
    if len(b) <= limit:
        return b
    i = len(b) - limit
    while i < len(b) and (b[i] & 0xC0) == 0x80:
        i += 1  # not in the middle of a character
    return b[i:]


def offsets(data):
    """The byte offset of each entry in a crash-log file's bytes (and of their end), checking
    everything; ValueError when the bytes are not a whole, undamaged log. Builds no entry."""
    n = len(data)
    if n < 4 + _CHECK or n > MAX_FILE or bytes(data[:3]) != _MAGIC:
        raise ValueError("not a crash log")
    end = n - _CHECK
    if _check(memoryview(data)[:end]) != bytes(data[end:]):
        raise ValueError("crash log damaged")
    count = data[3]
    if count > MAX_ENTRIES:
        raise ValueError("crash log damaged")
    out = []
    at = 4
    for _ in range(count):
        if at + ENTRY_HEAD > end:
            raise ValueError("crash log damaged")
        ln = data[at + ENTRY_HEAD - 1]
        out.append(at)
        at += ENTRY_HEAD + ln
        if ln > MAX_TEXT or at > end:
            raise ValueError("crash log damaged")
    if at != end:
        raise ValueError("crash log damaged")
    out.append(end)
    return out


def parse(data):
    """The entries of a crash-log file's bytes, oldest first: ``[(seq, time, cause, text)]``.
    ValueError when the bytes are not a whole, undamaged log."""
    offs = offsets(data)
    out = []
    for k in range(len(offs) - 1):
        at = offs[k]
        seq, t, cause, ln = struct.unpack_from("<IIBB", data, at)
        out.append((seq, t, cause, str(bytes(data[at + ENTRY_HEAD : at + ENTRY_HEAD + ln]), "utf-8")))
    return out


def _check(data):
    return hashlib.sha256(data).digest()[:_CHECK]


class CrashLog:
    """The ring of the last ``MAX_ENTRIES`` reset reasons in ``<root>/crash.log``."""

    def __init__(self, root):
        self.path = root + "/" + NAME
        self.damaged = False

    def _read(self):
        try:
            with open(self.path, "rb") as f:
                return f.read(MAX_FILE + 1)
        except OSError:
            return None

    def entries(self):
        """The stored entries, oldest first (``[]`` when there is no log or it is damaged;
        ``damaged`` then says which)."""
        self.damaged = False
        data = self._read()
        if data is None:
            return []
        try:
            return parse(data)
        except (ValueError, UnicodeError):
            self.damaged = True
            return []

    def add(self, cause, text="", t=0):
        """Append one entry (the oldest goes beyond ``MAX_ENTRIES``); returns its ``seq``.
        OSError (storage full, no filesystem) reaches the caller: the log is then as it was.
        Made to work in a tight heap (it runs when a task failed, maybe of a MemoryError):
        the kept entries are copied as bytes, never decoded (~2 kB at the peak)."""
        if not 0 <= cause <= 255:
            raise ValueError("bad crash cause")
        data = self._read()
        offs = None
        if data is not None:
            try:
                offs = offsets(data)
            except ValueError:
                offs = None  # damaged: a new log
        seq = 1
        first = end = 4
        if offs is not None and len(offs) > 1:
            seq = struct.unpack_from("<I", data, offs[-2])[0] + 1
            first = offs[-MAX_ENTRIES] if len(offs) > MAX_ENTRIES else offs[0]
            end = offs[-1]
        b = clip(text)
        kept = end - first
        out = bytearray(4 + kept + ENTRY_HEAD + len(b))
        out[0:3] = _MAGIC
        out[3] = (len(offs) - 1 - (1 if len(offs) > MAX_ENTRIES else 0) if offs else 0) + 1
        if kept and data is not None:
            out[4 : 4 + kept] = memoryview(data)[first:end]
        struct.pack_into("<IIBB", out, 4 + kept, seq & 0xFFFFFFFF, int(t) & 0xFFFFFFFF, cause, len(b))
        out[4 + kept + ENTRY_HEAD :] = b
        data = None
        out += _check(out)
        tmp = self.path + ".t"
        with open(tmp, "wb") as f:
            f.write(out)
            f.flush()
        os.rename(tmp, self.path)
        return seq

    def page(self, start):
        """The link's answer for entries ``start..`` (``page``)."""
        return page(self.entries(), start)


def page(entries, start):
    """The link's answer for ``entries[start : start + PAGE]``: total count u8, start u8,
    n u8, then each entry as stored (seq u32, time u32, cause u8, length u8, text)."""
    part = entries[start : start + PAGE]
    out = bytearray((len(entries), start & 0xFF, len(part)))
    for seq, t, cause, text in part:
        b = clip(text)
        out += struct.pack("<IIBB", seq, t, cause, len(b))
        out += b
    return out


def parse_page(p):
    """The host's side of ``CrashLog.page``: ``(total, start, [(seq, time, cause, text)])``.
    ValueError on a malformed answer."""
    if len(p) < 3:
        raise ValueError("crash log answer too short")
    total, start, n = p[0], p[1], p[2]
    if n > PAGE or (n and start + n > total):
        raise ValueError("crash log answer malformed")
    out = []
    at = 3
    for _ in range(n):
        if at + ENTRY_HEAD > len(p):
            raise ValueError("crash log answer truncated")
        seq, t, cause, ln = struct.unpack_from("<IIBB", p, at)
        at += ENTRY_HEAD
        if ln > MAX_TEXT or at + ln > len(p):
            raise ValueError("crash log answer truncated")
        out.append((seq, t, cause, str(bytes(p[at : at + ln]), "utf-8")))
        at += ln
    if at != len(p):
        raise ValueError("crash log answer malformed")
    return total, start, out


def exc_text(name, e):
    """``"name: Exception: message | file:line function | ..."`` of exception ``e``: the
    exception first, then the traceback's frames innermost first, as many as fit in
    ``MAX_TEXT`` bytes (MicroPython's ``print_exception``, CPython's ``traceback``)."""
    import sys

    try:
        import io

        s = io.StringIO()
        pe = getattr(sys, "print_exception", None)
        if pe is not None:
            pe(e, s)
        else:
            import traceback

            traceback.print_exception(type(e), e, e.__traceback__, file=s)
        lines = s.getvalue().split("\n")  # pyright: ignore[reportAttributeAccessIssue] - MicroPython has it
    except Exception:  # noqa: BLE001 - no memory for the traceback: the exception alone
        lines = [repr(e)]
    frames = []
    last = ""
    for x in lines:
        x = x.strip()
        if x.startswith('File "'):  # File "app/scanner.py", line 66, in run
            q = x.find('"', 6)
            parts = x[q + 1 :].split(",")
            where = x[6:q].split("/")[-1] + ":" + (parts[1].strip()[5:] if len(parts) > 1 else "")
            if len(parts) > 2:
                where += " " + parts[2].strip()[3:]
            frames.append(where)
        elif x and not x.startswith("Traceback"):
            last = x  # the exception line comes last (source lines in CPython before it)
    out = clip(name, 16) + b": " + clip(last or repr(e), MAX_TEXT - 18)
    for f in reversed(frames):
        b = (" | " + f).encode()
        if len(out) + len(b) > MAX_TEXT:
            break
        out += b
    return str(out, "utf-8")
