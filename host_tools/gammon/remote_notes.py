"""What the referee of remote play refused, for ``gammon watch``: ``gammon remote play`` posts
each refused message of the other board (an illegal play, one out of turn, a replay, a throw
that is not the agreed one) to a small file of this host, one per board
(``$GAMMON_HOME/remote/refused-<board id>.txt``); ``gammon watch`` on the same board shows the
lines that arrive while it runs. A refused message never reaches the board (it is never
journaled), and the link has no request that carries a host's text to the board's panel, so
the host's watch is where the player sees it.

The file is bounded (``MAX_BYTES``: the older half is dropped, atomically), each line is one
note without control characters, so nothing the other board sends can draw on the terminal."""

import os
import time

MAX_BYTES = 16384
MAX_LINE = 240


def path_for(board_id):
    """The notes file of the board ``board_id`` (bytes, or its hex) in this host's library."""
    from gammon.library import home

    bid = board_id.hex() if isinstance(board_id, (bytes, bytearray)) else str(board_id)
    if not bid or any(ch not in "0123456789abcdef" for ch in bid):
        raise ValueError("a board id is hex, got %r" % (bid,))
    return home() / "remote" / ("refused-%s.txt" % bid)


def clean(text):
    """One printable line: control characters (escapes, newlines) become spaces; cut long."""
    out = "".join(ch if ch.isprintable() else " " for ch in str(text))
    return out if len(out) <= MAX_LINE else out[: MAX_LINE - 3] + "..."


def post(path, text, now=None):
    """Append one note (``HH:MM:SS text``); past ``MAX_BYTES`` keep the newer half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%H:%M:%S", time.localtime(time.time() if now is None else now))
    line = ("%s %s\n" % (stamp, clean(text))).encode("utf-8")
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = 0
    if size + len(line) > MAX_BYTES:
        data = path.read_bytes()
        keep = data[len(data) // 2 :]
        keep = keep[keep.find(b"\n") + 1 :]
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(keep + line)
        os.replace(tmp, path)
        return
    with open(path, "ab") as fh:
        fh.write(line)


class Reader:
    """The notes posted after it was made: ``new()`` returns the lines that arrived since the
    last call. A file ``post`` trimmed (a new file: its inode changes) is read from its end on,
    its last line shown (the note whose post trimmed it)."""

    def __init__(self, path):
        self.path = path
        self.ino, self.pos = self._stat()
        self.rest = b""

    def _stat(self):
        try:
            st = self.path.stat()
        except OSError:
            return None, 0
        return st.st_ino, st.st_size

    def _read(self, start, end):
        try:
            with open(self.path, "rb") as fh:
                fh.seek(start)
                return fh.read(end - start)
        except OSError:
            return b""

    def new(self):
        ino, size = self._stat()
        if ino is None:
            return []
        if ino != self.ino or size < self.pos:
            if self.ino is None:  # created since: every line is new
                self.ino, self.pos = ino, 0
            else:
                self.ino, self.pos, self.rest = ino, size, b""
                lines = self._read(0, size).splitlines()
                return [clean(lines[-1].decode("utf-8", "replace"))] if lines else []
        if size == self.pos:
            return []
        data = self._read(self.pos, size)
        self.pos += len(data)
        data = self.rest + data
        cut = data.rfind(b"\n") + 1
        self.rest = data[cut:]
        return [clean(x.decode("utf-8", "replace")) for x in data[:cut].splitlines()]
