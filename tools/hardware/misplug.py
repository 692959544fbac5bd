"""What a misplugged cable does to the system, from the netlist: ``check(boards, cables)``.

Misplugs tried (``misplugs``): every cable reversed (pin 1 meets pin n: such cables are sold
as commonly as straight ones) and every strip turned end for end (the cable meant for its IN
in its OUT and the other way round: IN meets IN, OUT meets OUT). Each is judged on the joined
nets (``trace.Wired``) by three rules, with the parts' absolute maximum ratings (``RATINGS``):

- **supply shorted**: one net joins two power sources (the ESP32's 3V3, the fused 5 V or the
  boost, the DevKitC's own USB, the battery's rails, ground);
- **over voltage**: a net can be driven higher (by a supply or an output on it; without one,
  by the sources one resistor away, as they divide) than a pin on it is rated for; a part's
  rating follows its own supply pin, so an unpowered register driven from a live line counts
  (it is back-powered);
- **contention**: two sources on one net (at least one an output) with no resistor between
  them, or with one whose current (worst levels, driver resistance ignored) exceeds an
  output's rating.

Resistor networks and passive parts other than resistors join nothing here.
"""

import re

from . import trace

# power source net -> volts (a source: a ``pwr_out`` pin of a part that is not a connector)
SUPPLY_V = {
    "GND": 0.0,
    "3V3": 3.3,
    "5V": 5.0,
    "5V_IN": 5.0,
    "VBUS": 5.0,
    "VIN": 5.0,
    "SYS": 4.4,
    "BAT": 4.2,
    "DEVKIT_5V": 5.0,
}

# part value -> (supply pin, pin voltage limit above that supply or None, a fixed limit for
# every rated pin or None, output current limit in A). From the datasheets' absolute maximum
# ratings: Nexperia 74HC165 (VI, VO -0.5 .. VCC + 0.5 V; IO +-25 mA), Espressif ESP32
# (VDD33 -0.3 .. 3.6 V on the pads; 40 mA the strongest drive), Worldsemi WS2812B (VI -0.5 ..
# VDD + 0.5 V; no output current given: the 74HC's 25 mA is taken), TI SN74AHCT1G125 (VI -0.5
# .. 7 V, VO -0.5 .. VCC + 0.5 V, IO +-25 mA), TI SN74LVC3G17 (VI -0.5 .. 6.5 V, VO -0.5 ..
# VCC + 0.5 V, IO +-50 mA).
RATINGS = {
    "74HC165": ("VCC", 0.5, None, 0.025),
    "ESP32-DevKitC-32E": (None, None, 3.6, 0.040),
    "WS2812B": ("VDD", 0.5, None, 0.025),
    "74AHCT1G125": ("VCC", 0.5, None, 0.025),
    "74LVC3G17": ("VCC", 0.5, None, 0.050),
}
# pins of a rated part that are checked against its supply: its logic pins (the supply pins
# themselves are what the rating is relative to); the buffers' inputs take their fixed limits
# at any VCC
FIXED_INPUTS = {"74AHCT1G125": {"A": 7.0, "OE": 7.0}, "74LVC3G17": {"1A": 6.5, "2A": 6.5, "3A": 6.5}}


def ohms(value):
    """``"330"`` -> 330.0, ``"10k"`` -> 10000.0, ``"2.2M"`` -> 2.2e6; None if not a resistance."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kM]?)", value)
    if m is None:
        return None
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6}[m.group(2)]


def _resistors(w):
    out = []
    for (b, ref), p in w.parts.items():
        r = ohms(p.value) if ref.startswith("R") and not ref.startswith("RN") else None
        if r is not None and len(p.pins) == 2 and all(q[3] for q in p.pins):
            out.append((b, p, r, w.find((b, p.pins[0][3])), w.find((b, p.pins[1][3]))))
    return out


def check(boards, cables):
    """The rules above over the joined system; ``[]`` when nothing is at risk."""
    w = trace.Wired(boards, cables)
    errors = []
    roots = {}  # net -> {supply name: {the parts that source it}}
    for net, pins in w.pins.items():
        for b, p, _num, name, type_ in pins:
            if type_ == "pwr_out" and not p.value.startswith("chain "):
                roots.setdefault(net, {}).setdefault(p.net_of(name), set()).add("%s/%s" % (b, p.ref))
    for net, names in sorted(roots.items(), key=lambda kv: str(kv[0])):
        parts = sorted(set().union(*names.values()))
        if len(parts) > 1:
            errors.append(
                "supply shorted: %s on one net (%s:%s): %s"
                % (" and ".join(sorted(names)), net[0], net[1], ", ".join(parts))
            )

    def volts(net):
        names = roots.get(net, ())
        return max(SUPPLY_V.get(n, 0.0) for n in names) if names else 0.0

    def vcc(b, p):
        pin = RATINGS[p.value][0]
        return 3.3 if pin is None else volts(w.net(b, p, pin))  # the DevKit makes its own 3.3 V

    # drive points of each net: (volts high, volts low, ohms in between, amps limit, who)
    drive = {}
    for net, pins in w.pins.items():
        for name in roots.get(net, ()):
            v = SUPPLY_V.get(name, 0.0)
            drive.setdefault(net, []).append((v, v, 0.0, float("inf"), "supply " + name))
        for b, p, _num, name, type_ in pins:
            if type_ == "out" and p.value in RATINGS:
                drive.setdefault(net, []).append(
                    (vcc(b, p), 0.0, 0.0, RATINGS[p.value][3], "%s/%s.%s" % (b, p.ref, name))
                )
    via = {}
    for b, p, r, n1, n2 in _resistors(w):
        for near, far in ((n1, n2), (n2, n1)):
            for hi, lo, r0, amps, who in drive.get(far, []):
                if r0 == 0.0:
                    via.setdefault(near, []).append((hi, lo, r, amps, "%s via %s/%s" % (who, b, p.ref)))
    for net in sorted(set(drive) | set(via), key=str):
        points = drive.get(net, []) + via.get(net, [])
        for i in range(len(points)):
            for j in range(i + 1, len(points)):
                a, c = points[i], points[j]
                if a[4].startswith("supply") and c[4].startswith("supply") and a[2] == c[2] == 0.0:
                    continue  # reported as a short above
                dv = max(abs(a[0] - c[1]), abs(c[0] - a[1]))
                ohm = a[2] + c[2]
                if dv == 0:
                    continue
                if ohm == 0.0:
                    errors.append("contention: %s and %s tied (%s:%s)" % (a[4], c[4], *net))
                elif dv / ohm > min(a[3], c[3]):
                    errors.append(
                        "contention: %s and %s, %.0f mA through %.0f ohm (%s:%s)"
                        % (a[4], c[4], 1000 * dv / ohm, ohm, *net)
                    )
        # the highest level: the strongest (direct) sources set it; without one, the sources
        # behind resistors divide (a divider's middle is not its top)
        direct = [p[0] for p in points if p[2] == 0.0]
        vmax = max(direct) if direct else sum(p[0] / p[2] for p in points) / sum(1 / p[2] for p in points)
        for b, p, _num, name, type_ in w.pins.get(net, []):
            if p.value not in RATINGS or type_ not in ("in", "out"):
                continue
            fixed = FIXED_INPUTS.get(p.value, {}).get(name)
            rating = RATINGS[p.value]
            limit = fixed or rating[2] or vcc(b, p) + rating[1]
            if vmax > limit + 1e-9:
                errors.append(
                    "over voltage: %s/%s %s sees %.1f V, rated %.1f V (%s:%s)"
                    % (b, p.ref, name, vmax, limit, *net)
                )
    return errors


def misplugs(boards, cables):
    """``[(what, cables)]``: every cable reversed, every strip turned end for end."""
    out = []
    for i, c in enumerate(cables):
        out.append(
            ("cable %s/%s - %s/%s reversed" % c[:4], cables[:i] + [c[:4] + ("reversed",)] + cables[i + 1 :])
        )
    for b in boards:
        if b.kind == "centre":
            continue
        jin, jout = b.part("J1"), b.part("J2")
        swap = {jin.ref: jout.ref, jout.ref: jin.ref}
        turned = [
            (a, swap[ra] if a == b.name else ra, c, swap[rc] if c == b.name else rc)
            for a, ra, c, rc in cables
        ]
        out.append(("%s turned end for end (IN into IN, OUT into OUT)" % b.name, turned))
    return out


def report(boards, cables):
    """``{misplug: [errors]}`` for every misplug with something at risk, and the design as
    cabled (key ``"as designed"``)."""
    out = {}
    for what, cab in [("as designed", cables)] + misplugs(boards, cables):
        errors = check(boards, cab)
        if errors:
            out[what] = errors
    return out
