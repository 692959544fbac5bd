"""Row-level stand-in for ``bg.sensing.Sensing`` in the MicroPython runs of the recognition
tests (see recognize_helpers.py for why)."""


class RowSensing:
    """Row-level stand-in for ``bg.sensing.Sensing`` (MicroPython runs): ``feed(masks)``
    takes the closed-slot bitmask of every row; a row's change counts after ``debounce``
    equal scans; ``counts``/``cap``/``irregular_mask()`` mean what they mean there."""

    def __init__(self, caps, debounce):
        self.debounce = debounce
        self.cap = bytearray(caps)
        self.stable = [0] * 28
        self.pend = [0] * 28
        self.cnt = bytearray(28)
        self.counts = bytearray(28)
        self.irreg = 0
        self.primed = False
        self.bad_frames = 0

    def feed(self, masks):
        moved = False
        for r in range(28):
            v = masks[r]
            if not self.primed or v == self.stable[r]:
                self.cnt[r] = 0
                if not self.primed and v != self.stable[r]:
                    self.stable[r] = v
                    moved = True
                continue
            if v != self.pend[r]:
                self.pend[r] = v
                self.cnt[r] = 0
            self.cnt[r] += 1
            if self.cnt[r] >= self.debounce:
                self.stable[r] = v
                self.cnt[r] = 0
                moved = True
        self.primed = True
        if moved:
            self.irreg = 0
            for r in range(28):
                m = self.stable[r]
                k = 0
                while m >> k & 1:
                    k += 1
                n = 0
                while m:
                    n += m & 1
                    m >>= 1
                self.counts[r] = n
                if n != k:  # a closed slot above an open one
                    self.irreg |= 1 << r
        return moved

    def irregular_mask(self):
        return self.irreg
