"""The storage contract of the board's link (``Store``) and an in-memory implementation.

The journal (``bg.journal``) implements ``Store`` on flash; ``MemoryStore`` serves tests and
the simulator.
"""

from bg.link import (
    STATE_FINISHED,
    STATE_LIVE,
)

# ---------------------------------------------------------------- the board's storage contract


class Store:
    """What the protocol needs from the board's storage (the journal implements it).

    - ``board_id()`` -> 8 bytes, stable for the board's life.
    - ``get_name()`` / ``set_name(str)``: the advertised name.
    - ``list_matches()`` -> list of ``(match_id: 8 bytes, size: int, state: STATE_*)``.
    - ``read_match(match_id, offset, n)`` -> up to ``n`` bytes of the match's record stream
      from ``offset`` (fewer only at the end); KeyError for an unknown id.
    - ``delete_match(match_id)``: remove a finished/abandoned match; KeyError if unknown.
    - ``reveal_seed(match_id)`` -> the board's dice seed of a finished match (ValueError
      while the match is live; the protocol checks the state first anyway).
    - ``load_keys()`` -> bytes or None / ``save_keys(bytes)``: the paired-hosts blob,
      written atomically.
    - ``crash_log(start)`` -> a page of the crash log from entry ``start``
      (``bg.crashlog.page``'s bytes).

    ``MemoryStore`` below is the in-memory implementation used by tests and the simulator.
    """


class MemoryStore(Store):
    """A ``Store`` in RAM: ``add(match_id, data, state, seed)`` adds a match.

    >>> st = MemoryStore(b"BOARD001", "Gammon")
    >>> st.add(b"M0000001", b"records", STATE_FINISHED, b"s" * 32)
    >>> st.list_matches()[0][1]
    7
    """

    def __init__(self, board_id=b"BOARD000", name="Gammon"):
        self._id = bytes(board_id)
        self._name = name
        self.matches = {}
        self.order = []
        self.keys = None
        self.crashes = []  # crash-log entries (seq, time, cause, text), oldest first

    def add(self, match_id, data, state=STATE_FINISHED, seed=b""):
        if match_id not in self.matches:
            self.order.append(match_id)
        self.matches[match_id] = [bytearray(data), state, seed]

    def append(self, match_id, data):
        self.matches[match_id][0] += data

    def board_id(self):
        return self._id

    def get_name(self):
        return self._name

    def set_name(self, name):
        self._name = name

    def list_matches(self):
        return [(m, len(self.matches[m][0]), self.matches[m][1]) for m in self.order]

    def read_match(self, match_id, offset, n):
        return bytes(self.matches[match_id][0][offset : offset + n])

    def delete_match(self, match_id):
        del self.matches[match_id]
        self.order.remove(match_id)

    def reveal_seed(self, match_id):
        m = self.matches[match_id]
        if m[1] == STATE_LIVE:
            raise ValueError("match not finished")
        return m[2]

    def load_keys(self):
        return self.keys

    def save_keys(self, blob):
        self.keys = bytes(blob)

    def crash_log(self, start):
        from bg.crashlog import page

        return page(self.crashes, start)
