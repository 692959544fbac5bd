"""Electrical rule check over a board's netlist (``design.Board``); what KiCad's ERC checks.

Rules (each violation is one line of the report, ``[]`` means clean):

- **unconnected**: a pin that is not marked no-connect (``nc``) is on a net of its own, or on
  no net at all;
- **nc connected**: a pin marked no-connect sits on a net;
- **outputs tied**: a net has more than one driver (``out`` or ``pwr_out`` pins);
- **unpowered**: a net with a power input (``pwr_in``) has no power source (``pwr_out``; a strip
  gets its power through its IN connector, whose power pins are the sources);
- **undriven input**: a net with inputs (``in``) has no output, power pin or passive part
  (a resistor, switch or connector) that can set its level: a floating input.

``check_reset`` (the centre board): a line the ESP32 drives must rest on a pull resistor while
the ESP32's pins float through reset and boot.
"""

DRIVERS = ("out", "pwr_out")


def check(board):
    errors = []
    nets = board.nets()
    for part in board.parts:
        for num, name, type_, net in part.pins:
            where = "%s/%s pin %s (%s)" % (board.name, part.ref, num, name)
            if type_ == "nc":
                if net is not None:
                    errors.append("nc connected: %s is on net %s" % (where, net))
            elif net is None or len(nets[net]) < 2:
                errors.append("unconnected: %s" % where)
    for net, pins in sorted(nets.items()):
        types = [p[3] for p in pins]
        drivers = [p for p in pins if p[3] in DRIVERS]
        if len(drivers) > 1:
            errors.append(
                "outputs tied: net %s driven by %s"
                % (net, ", ".join("%s.%s" % (p[0], p[2]) for p in drivers))
            )
        if "pwr_in" in types and "pwr_out" not in types:
            errors.append("unpowered: net %s has power inputs and no source" % net)
        if "in" in types and not any(t in ("out", "pwr_out", "pwr_in", "passive") for t in types):
            errors.append("undriven input: net %s has only inputs" % net)
    return errors


def check_system(boards, cables):
    """The same rules over the whole system: every board's nets joined through its cables
    (connector contacts are wires here, not sources). Catches what no single board shows:
    a cable plugged IN to IN puts two registers' QH outputs on one line."""
    from . import trace

    w = trace.Wired(boards, cables)
    errors = []
    for net, pins in sorted(w.pins.items(), key=lambda kv: str(kv[0])):
        pins = [p for p in pins if not p[1].value.startswith("chain ")]
        types = [p[4] for p in pins]
        drivers = [p for p in pins if p[4] in DRIVERS]
        name = "%s:%s" % net
        if len(drivers) > 1:
            errors.append(
                "outputs tied: net %s driven by %s"
                % (name, ", ".join("%s/%s.%s" % (p[0], p[1].ref, p[3]) for p in drivers))
            )
        if "pwr_in" in types and "pwr_out" not in types:
            errors.append("unpowered: net %s has power inputs and no source" % name)
        if "in" in types and not any(t in ("out", "pwr_out", "pwr_in", "passive") for t in types):
            errors.append("undriven input: net %s has only inputs" % name)
    return errors


def check_reset(board):
    """**floats at reset**: a net the ESP32 drives (an ``out`` pin of the module) with no
    resistor to GND or 3V3 on it. The module's pins are inputs until the firmware sets them
    up (reset, the boot ROM, MicroPython's start): whatever they feed must rest meanwhile."""
    errors = []
    nets = board.nets()
    for net, pins in sorted(nets.items()):
        mcu = [p for p in pins if p[3] == "out" and board.part(p[0]).role == ("mcu",)]
        if not mcu:
            continue
        pulls = []
        for ref, _num, _name, _t in pins:
            part = board.part(ref)
            if ref.startswith("R") and not ref.startswith("RN") and len(part.pins) == 2:
                other = [q[3] for q in part.pins if q[3] != net]
                if other and other[0] in ("GND", "3V3"):
                    pulls.append(ref)
        if not pulls:
            errors.append("floats at reset: net %s (%s) has no pull resistor" % (net, mcu[0][2]))
    return errors


ADC_MIN_MV = 150  # the ESP32's ADC at 11 dB reads 150..2450 mV (Espressif: ADC_ATTEN_DB_11)


def check_battery(board, battery):
    """The battery option's rules (board.json ``battery``, the centre board's design):

    - **battery net**: net BAT has the cell as its source and reaches the charger;
    - **divider**: the ADC pin's net is fed by exactly one resistor from BAT and one to GND;
      a full cell (``full_mv``) must read at most ``adc_max_mv`` there (above it the reading
      clips: a full cell and a half-empty one would read alike) and the critical level
      (``critical_mv``) at least ``ADC_MIN_MV`` (below it the ADC reads nothing useful)."""
    if battery is None:
        return []
    errors = []
    nets = board.nets()
    bat = nets.get("BAT", [])
    if not any(t == "pwr_out" for _r, _n, _name, t in bat):
        errors.append("battery net: BAT has no cell (no power source)")
    if not any(board.part(r).role == ("charger",) for r, _n, _name, _t in bat):
        errors.append("battery net: BAT does not reach the charger")
    sense = "GPIO%d" % battery["adc_pin"]
    net = None
    for n, pins in nets.items():
        if any(board.part(r).role == ("mcu",) and name == sense for r, _num, name, _t in pins):
            net = n
    if net is None:
        return errors + ["divider: %s is not connected" % sense]
    top = bottom = None
    for r, _num, _name, _t in nets[net]:
        role = board.part(r).role or ()
        if role[:2] == ("divider", "top") and board.part(r).net_of("1") == "BAT":
            top = role[2]
        elif role[:2] == ("divider", "bottom") and board.part(r).net_of("2") == "GND":
            bottom = role[2]
    if top is None or bottom is None:
        return errors + ["divider: %s (net %s) is not fed from BAT through a divider to GND" % (sense, net)]
    full = battery["full_mv"] * bottom / (top + bottom)
    low = battery["critical_mv"] * bottom / (top + bottom)
    if full > battery["adc_max_mv"]:
        errors.append(
            "divider: a full cell (%d mV) gives %.0f mV at %s, above the ADC's %d mV"
            % (battery["full_mv"], full, sense, battery["adc_max_mv"])
        )
    if low < ADC_MIN_MV:
        errors.append(
            "divider: the critical level (%d mV) gives %.0f mV at %s, below the ADC's %d mV"
            % (battery["critical_mv"], low, sense, ADC_MIN_MV)
        )
    return errors
