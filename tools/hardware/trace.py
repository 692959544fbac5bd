"""Follow the wires of the whole system (every board joined by its cables) and read back what
the firmware will see, to compare with ``bg.hwdesc`` (the firmware's decoding of board.json).

``Wired(boards, cables)`` merges the boards' nets through the cables (pin to pin, or pin 1 to
pin n for a cable marked ``"reversed"``) into global nets. ``sensor_map(...)`` walks MISO ->
(series resistor) -> QH of the first 74HC165 -> its SER -> QH of the next ... and returns, for
every chain bit ``8 * r + s``, what its input is wired to: ``("reed", kind, index, slot)``,
``("closed",)`` (tied to GND), ``("open",)`` (pulled up, nothing else). ``led_map(...)`` walks
the LED data GPIO through the level shifter and the series resistor, then DIN -> DOUT (and a
strip's series resistor to its OUT cable), and returns each LED's role in data order. Wiring
that cannot be followed (a floating input, two registers on one net, a loop) raises ValueError
naming the place.
"""

from . import design


class Wired:
    def __init__(self, boards, cables):
        self.parent = {}
        self.pins = {}  # global net -> [(board, part, pin number, pin name, type)]
        self.parts = {}
        for b in boards:
            for p in b.parts:
                self.parts[(b.name, p.ref)] = p
        byname = {b.name: b for b in boards}
        for cable in cables:
            a, ra, c, rc = cable[:4]
            pa, pc = byname[a].part(ra), byname[c].part(rc)
            # a fifth item "reversed": pin 1 meets pin n (a reversed cable)
            far = pc.pins[::-1] if cable[4:] == ("reversed",) else pc.pins
            for x, y in zip(pa.pins, far):
                if x[3] is not None and y[3] is not None:
                    self._union((a, x[3]), (c, y[3]))
        for b in boards:
            for p in b.parts:
                for num, name, type_, net in p.pins:
                    if net is not None:
                        self.pins.setdefault(self.find((b.name, net)), []).append(
                            (b.name, p, num, name, type_)
                        )

    def find(self, k):
        while self.parent.get(k, k) != k:
            k = self.parent[k]
        return k

    def _union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra

    def net(self, board, part, name):
        n = part.net_of(name)
        return None if n is None else self.find((board, n))

    def on(self, net, pin_name=None, value=None):
        return [
            x
            for x in self.pins.get(net, [])
            if (pin_name is None or x[3] == pin_name) and (value is None or x[1].value == value)
        ]


def _through(w, net, role):
    """The net on the far side of the series resistor of ``role`` on ``net``, or ``net``."""
    rs = [x for x in w.on(net) if x[1].role == (role,)]
    if len(rs) > 1:
        raise ValueError("%d series resistors (%s) on one line" % (len(rs), role))
    if not rs:
        return net
    b, r = rs[0][0], rs[0][1]
    return [w.find((b, q[3])) for q in r.pins if w.find((b, q[3])) != net][0]


def _upstream(w, net):
    """Where a bus line comes from: back through each strip's termination resistor and
    Schmitt buffer (output ``kY`` from input ``kA``) to the net the ESP32 drives."""
    for _ in range(1000):
        rs = [x for x in w.on(net) if x[1].role and x[1].role[0] in ("bus_series", "bus_stub")]
        ys = [x for x in w.on(net, value=design.BUS_BUFFER) if x[3].endswith("Y")]
        if ys:
            b, u, _, name, _ = ys[0]
            net = w.net(b, u, name[:-1] + "A")
        elif rs:
            b, r = rs[0][0], rs[0][1]
            nets = [w.find((b, q[3])) for q in r.pins]
            if nets[1] != net:  # entered from its buffer side: not upstream of this line
                return net
            net = nets[0]
        else:
            return net
    raise ValueError("the bus loops")


def _gpio(w, n):
    for (b, _ref), p in w.parts.items():
        if p.role == ("mcu",):
            return w.net(b, p, "GPIO%d" % n)
    raise ValueError("no ESP32 in the design")


def sensor_map(w, pins):
    out = []
    net = _gpio(w, pins["miso"])
    gnd = w.find(("centre", "GND"))
    v33 = w.find(("centre", "3V3"))
    seen = set()
    while net != v33:
        net = _through(w, net, "q_series")
        qh = w.on(net, "QH", "74HC165")
        if len(qh) != 1:
            raise ValueError("register %d: %d 74HC165 outputs on its data line" % (len(out) // 8, len(qh)))
        b, u, _, _, _ = qh[0]
        if (b, u.ref) in seen:
            raise ValueError("the chain loops at %s/%s" % (b, u.ref))
        seen.add((b, u.ref))
        for sig, pin in (("sck", "CLK"), ("pl", "SH/LD"), ("ce", "CLK_INH")):
            if _upstream(w, w.net(b, u, pin)) != _gpio(w, pins[sig]):
                raise ValueError("%s/%s %s is not on GPIO %d" % (b, u.ref, pin, pins[sig]))
        if w.net(b, u, "VCC") != v33 or w.net(b, u, "GND") != gnd:
            raise ValueError("%s/%s is not powered from 3V3" % (b, u.ref))
        for s in range(8):
            n = w.net(b, u, design.LETTERS[s])
            if n == gnd:
                out.append(("closed",))
                continue
            reeds = [x for x in w.pins.get(n, []) if x[1].value == "reed"]
            pull = [x for x in w.pins.get(n, []) if x[1].value.startswith("10k")]
            if len(pull) != 1:
                raise ValueError("%s/%s input %s has %d pull-ups" % (b, u.ref, design.LETTERS[s], len(pull)))
            if len(reeds) > 1:
                raise ValueError("%s/%s input %s has %d reeds" % (b, u.ref, design.LETTERS[s], len(reeds)))
            if reeds:
                sw = reeds[0][1]
                other = [q for q in sw.pins if w.find((reeds[0][0], q[3])) != n]
                if len(other) != 1 or w.find((reeds[0][0], other[0][3])) != gnd:
                    raise ValueError("%s/%s does not switch to GND" % (reeds[0][0], sw.ref))
                out.append(tuple(sw.role))
            else:
                out.append(("open",))
        net = w.net(b, u, "SER")
        if net is None:
            raise ValueError("%s/%s SER floats" % (b, u.ref))
    return out


def led_map(w, pins):
    net = _gpio(w, pins["led_data"])
    # through the 74AHCT1G125 and the series resistor
    buf = w.on(net, "A", "74AHCT1G125")
    if len(buf) != 1:
        raise ValueError("the LED data GPIO does not reach the level shifter")
    net = w.net(buf[0][0], buf[0][1], "Y")
    r = [x for x in w.on(net) if x[1].value == "330"]
    if len(r) != 1:
        raise ValueError("no 330 ohm series resistor after the level shifter")
    net = [w.net(r[0][0], r[0][1], q[1]) for q in r[0][1].pins if w.net(r[0][0], r[0][1], q[1]) != net][0]
    out = []
    while net is not None:
        din = w.on(net, "DIN", "WS2812B")
        if not din:
            break
        if len(din) != 1:
            raise ValueError("LED %d: %d LEDs share one data line" % (len(out), len(din)))
        b, d, _, _, _ = din[0]
        out.append(d.role[2:])
        if len(out) > 1000:
            raise ValueError("the LED chain loops")
        net = w.net(b, d, "DOUT")
        if net is not None:
            net = _through(w, net, "led_out_series")
    return out


def button_map(w, board):
    out = []
    gnd = w.find(("centre", "GND"))
    for btn in board["buttons"]:
        sws = [x for x in w.on(_gpio(w, btn["pin"])) if x[1].role and x[1].role[0] == "button"]
        ok = len(sws) == 1 and any(w.find((sws[0][0], q[3])) == gnd for q in sws[0][1].pins)
        out.append(sws[0][1].role[1] if ok else None)
    return out


def agreement(boards, cables, board_json, hw):
    """Mismatches between the wiring and ``hw`` (a ``bg.hwdesc.Board`` of the same board.json):
    every chain bit, every LED index, every button pin. ``[]`` means they agree."""
    from bg import hwdesc  # the firmware's decoder, on the caller's path

    w = Wired(boards, cables)
    bad = []
    bits = sensor_map(w, board_json["pins"])
    if len(bits) != hw.nbits:
        bad.append("the wiring has %d chain bits, the firmware reads %d" % (len(bits), hw.nbits))
    for bit, what in enumerate(bits[: hw.nbits]):
        kind = hw.bit_kind[bit]
        if what[0] == "reed":
            row = hwdesc.row_of(what[1], what[2])
            ok = kind == hwdesc.BIT_SLOT and hw.bit_row[bit] == row and hw.bit_slot[bit] == what[3]
        elif what[0] == "closed":
            ok = kind == hwdesc.BIT_TIED_CLOSED
        else:
            ok = kind in (hwdesc.BIT_NONE, hwdesc.BIT_TIED_OPEN)
        if not ok:
            bad.append(
                "chain bit %d (register %d input %s): wired to %r, firmware expects kind %d row %d slot %d"
                % (bit, bit >> 3, design.LETTERS[bit & 7], what, kind, hw.bit_row[bit], hw.bit_slot[bit])
            )
    leds = led_map(w, board_json["pins"])
    if len(leds) != hw.nleds:
        bad.append("the wiring has %d LEDs, the firmware drives %d" % (len(leds), hw.nleds))
    tables = {
        "point": hw.point_led,
        "bar": hw.bar_led,
        "tray": hw.tray_led,
        "turn": hw.turn_led,
        "cube_owner": hw.cube_owner_led,
    }
    for i, (kind, index, pip) in enumerate(leds):
        if kind == "die":
            want = hw.die_led[7 * index + pip]
        elif kind == "cube_value":
            want = hw.cube_value_led[hwdesc.CUBE_VALUES.index(index)]
        else:
            want = tables[kind][index]
        if want != i:
            bad.append(
                "LED %d is wired as %s %s%s, the firmware drives it as LED %d"
                % (i, kind, index, "" if pip is None else " pip %d" % pip, want)
            )
    names = button_map(w, board_json)
    for k, btn in enumerate(hw.buttons):
        if names[k] != btn[0]:
            bad.append("button %s: GPIO %d is wired to %r" % (btn[0], btn[3], names[k]))
    return bad
