"""The electrical design of every board, computed from hardware/board.json (no other source).

``system(board)`` returns the boards in chain order (nearest the ESP32 first) and the cables
between them. A board is a list of parts; a part has a reference, a value, a footprint name
(``tools/hardware/pcb.py`` draws it), a ``role`` saying what board.json item it realises (a
register, a reed slot, an LED of the chain) and its pins: ``(number, name, type, net)``.
Pin types (for ``erc.py``): ``in``, ``out``, ``pwr_in``, ``pwr_out``, ``passive``, ``nc``.

Board kinds (one KiCad project each): ``point`` (one 74HC165, one LED, one per board point),
``tray`` (the registers of one tray), ``bar`` (the bar registers, the canaries, the end of the
chain) and ``centre`` (ESP32 DevKitC, level shifter, fuse, bulk capacitor, buttons and every LED
that is not on a strip). Strips are joined by one 12-way cable (``CHAIN_PINS``): IN towards the
ESP32, OUT away from it, pin to pin or reversed (the pin-out is symmetric).
"""

import math

# The 12-way chain cable (JST SH, 1.0 mm): pin number -> signal. ``Q`` carries the serial data towards
# the ESP32 (the farther register's QH to the nearer register's SER; MISO at the centre board).
# Symmetric, so that a reversed cable (pin 1 to pin 12, commonly sold) costs nothing: pin k and
# pin 13 - k carry the same supply, two ESP32 outputs (SCK, PL), CE against Q (each QH leaves
# its board through a series resistor: the contention current stays within both pins' ratings)
# or LED data against a pin that is not connected (``misplug.py`` checks it, every cable).
CHAIN_PINS = ("GND", "SCK", "5V", "CE", "3V3", "LED", "NC", "3V3", "Q", "5V", "PL", "GND")
# the series resistor of every signal that leaves a board through the chain cable from an output
SERIES_OHM = 330
# SCK, PL and CE: every strip takes them from its IN cable into a Schmitt-trigger buffer
# (74LVC3G17) that drives its own registers and, through a source-termination resistor, the
# cable to the next strip: each cable is one point-to-point line, and a ringing edge cannot
# clock a register twice (hardware/README.md: the ngspice transient, tools/hardware/bus.py).
BUS = ("SCK", "PL", "CE")
BUS_BUFFER = "74LVC3G17"
BUS_OHM = 100
# 74LVC3G17 (TI SCES470, DCT/DCU): pin of each buffer's input and output, and its supply
BUS_BUFFER_PINS = {"SCK": (1, 7), "PL": (3, 5), "CE": (6, 2)}
POWER_NETS = ("3V3", "5V", "GND")
# the centre board's 5 V supply (the fused USB, or the boost with the battery option): the
# DevKitC's feed and the LED rail's current-limited switch (``_led_switch``) take it
SUPPLY = "5V_IN"

LETTERS = "ABCDEFGH"
# 74HC165 (SOIC-16): pin number of parallel input A..H
HC165_INPUT_PIN = (11, 12, 13, 14, 3, 4, 5, 6)

# ESP32 (Espressif's datasheet): the strapping pins, read at reset to choose the boot mode and
# the flash voltage, and the pins the module's flash takes
STRAPPING = (0, 2, 5, 12, 15)
FLASH_PINS = (6, 7, 8, 9, 10, 11)

# ESP32-DevKitC-32E header pins (J2 left 1..19, J3 right 1..19), as pad numbers 1..38
DEVKIT = (
    ("3V3", "EN", "GPIO36", "GPIO39", "GPIO34", "GPIO35", "GPIO32", "GPIO33", "GPIO25", "GPIO26")
    + ("GPIO27", "GPIO14", "GPIO12", "GND", "GPIO13", "GPIO9", "GPIO10", "GPIO11", "5V")
    + ("GND", "GPIO23", "GPIO22", "GPIO1", "GPIO3", "GPIO21", "GND", "GPIO19", "GPIO18", "GPIO5")
    + ("GPIO17", "GPIO16", "GPIO4", "GPIO0", "GPIO2", "GPIO15", "GPIO8", "GPIO7", "GPIO6")
)


class Part:
    def __init__(self, ref, value, footprint, role=None):
        self.ref = ref
        self.value = value
        self.footprint = footprint
        self.role = role  # e.g. ("register", r), ("reed", kind, index, slot), ("led", i)
        self.pins = []  # (number, name, type, net or None)

    def pin(self, number, name, type_, net):
        self.pins.append((number, name, type_, net))
        return self

    def wire(self, name, net, type_=None):
        """Put every pin ``name`` on ``net``; ``net`` None marks them no-connect."""
        found = False
        for i, p in enumerate(self.pins):
            if p[1] == name:
                self.pins[i] = (p[0], p[1], "nc" if net is None else (type_ or p[2]), net)
                found = True
        if not found:
            raise ValueError("%s has no pin %s" % (self.ref, name))
        return self

    def net_of(self, name):
        for p in self.pins:
            if p[1] == name:
                return p[3]
        raise ValueError("%s has no pin %s" % (self.ref, name))


class Board:
    def __init__(self, kind, name, title):
        self.kind = kind  # point / tray / bar / centre: the KiCad project
        self.name = name  # instance, e.g. point6
        self.title = title
        self.parts = []
        self._n = {}

    def add(self, prefix, value, footprint, role=None):
        self._n[prefix] = self._n.get(prefix, 0) + 1
        p = Part("%s%d" % (prefix, self._n[prefix]), value, footprint, role)
        self.parts.append(p)
        return p

    def part(self, ref):
        for p in self.parts:
            if p.ref == ref:
                return p
        raise ValueError("%s has no part %s" % (self.name, ref))

    def nets(self):
        out = {}
        for part in self.parts:
            for num, name, type_, net in part.pins:
                if net is not None:
                    out.setdefault(net, []).append((part.ref, num, name, type_))
        return out


def _connector(b, ref_role, source):
    """A chain connector; ``source``: this end brings power in (pins are sources)."""
    j = b.add("J", "chain " + ref_role, "JST_SH_%d" % len(CHAIN_PINS), ("conn", ref_role))
    for i, sig in enumerate(CHAIN_PINS):
        if sig == "NC":
            j.pin(i + 1, sig, "nc", None)
            continue
        first = CHAIN_PINS.index(sig) == i  # the repeated supply pins are plain contacts
        type_ = "pwr_out" if source and first and sig in POWER_NETS else "passive"
        own = sig in ("Q", "LED") or (ref_role == "IN" and sig in BUS)
        net = ref_role + "_" + sig if own else sig
        j.pin(i + 1, sig, type_, net)
    return j


def _register(b, r, k, reg, board, ser_net, qh_net):
    """One 74HC165 with its pull-up network and decoupling; its reeds per board.json."""
    s = board["sensors"]
    u = b.add("U", "74HC165", "SOIC-16", ("register", r))
    nets = []
    tied = reg.get("tied", {})
    nslots = {"point": s["slots_per_point"], "bar": s["bar_slots"], "tray": s["tray_slots"]}[reg["kind"]]
    for i in range(8):
        nets.append("U%d_%s" % (k + 1, LETTERS[i]))
    for num, name, type_, net in (
        (1, "SH/LD", "in", "PL_R%d" % (k + 1)),
        (2, "CLK", "in", "SCK_R%d" % (k + 1)),
        (7, "~QH", "nc", None),
        (8, "GND", "pwr_in", "GND"),
        (9, "QH", "out", qh_net),
        (10, "SER", "in", ser_net),
        (15, "CLK_INH", "in", "CE_R%d" % (k + 1)),
        (16, "VCC", "pwr_in", "3V3"),
    ):
        u.pin(num, name, type_, net)
    # the pull-ups: two arrays of four isolated 10k (parts.ORDER "10k x4"), one beside each
    # row of the 165's inputs (pins 3-6 below, 11-14 above), each resistor from the input to
    # 3V3 straight across its chip, so every input's line leaves the array on its own side
    arrays = (
        b.add("RN", "10k x4", "R_ARRAY_4x0603", ("pullups", r, 0)),
        b.add("RN", "10k x4", "R_ARRAY_4x0603", ("pullups", r, 1)),
    )
    ups = {}  # array pad -> its net, per array
    for i in range(8):
        level = tied.get(str(i))
        # a canary tied closed goes straight to GND (its resistor left open at both ends);
        # everything else is pulled up
        net = "GND" if level == "closed" else nets[i]
        pin = HC165_INPUT_PIN[i]
        u.pin(pin, LETTERS[i], "in", net)
        half, pad = (0, pin - 2) if pin <= 8 else (1, pin - 6)
        if level != "closed":
            ups.setdefault(half, {}).update({pad: nets[i], 9 - pad: "3V3"})
        slot = reg["slot_base"] + i
        if level is None and slot < nslots:
            fp = "REED_SMD"  # along the strip: under a point's checker, under a flat one in a tray
            sw = b.add("SW", "reed", fp, ("reed", reg["kind"], reg["index"], slot))
            sw.pin(1, "1", "passive", nets[i])
            sw.pin(2, "2", "passive", "GND")
    for half, rn in enumerate(arrays):
        for n in range(1, 9):
            net = ups.get(half, {}).get(n)
            name = "R%d.1" % n if n <= 4 else "R%d.2" % (9 - n)
            rn.pin(n, name, "passive" if net else "nc", net)
    c = b.add("C", "100n", "C_0603", ("decoupling", r))
    c.pin(1, "1", "passive", "3V3").pin(2, "2", "passive", "GND")
    return u


def _bus_buffer(b, last, nregs):
    """The strip's Schmitt buffer: IN's SCK, PL, CE in; out, each through a termination
    resistor, to each of the strip's ``nregs`` registers (nets ``*_R1``, ``*_R2``) and to
    OUT (the last strip drives only its own registers)."""
    u = b.add("U", BUS_BUFFER, "SSOP-8", ("bus_buffer",))
    pins = {8: ("VCC", "pwr_in", "3V3"), 4: ("GND", "pwr_in", "GND")}
    for k, sig in enumerate(BUS):
        a, y = BUS_BUFFER_PINS[sig]
        pins[a] = ("%dA" % (k + 1), "in", "IN_" + sig)
        pins[y] = ("%dY" % (k + 1), "out", sig + "_Y")
    for n in sorted(pins):
        u.pin(n, *pins[n])
    c = b.add("C", "100n", "C_0603", ("decoupling_bus",))
    c.pin(1, "1", "passive", "3V3").pin(2, "2", "passive", "GND")
    for k in range(nregs):  # each register on its own source-terminated stub as well
        for sig in BUS:
            r = b.add("R", ohms(BUS_OHM), "R_0603", ("bus_stub", sig, k))
            r.pin(1, "1", "passive", sig + "_Y").pin(2, "2", "passive", "%s_R%d" % (sig, k + 1))
    if not last:
        for sig in BUS:
            r = b.add("R", ohms(BUS_OHM), "R_0603", ("bus_series", sig))
            r.pin(1, "1", "passive", sig + "_Y").pin(2, "2", "passive", sig)


def _series(b, role, a, c):
    r = b.add("R", ohms(SERIES_OHM), "R_0603", role)
    r.pin(1, "1", "passive", a).pin(2, "2", "passive", c)


def _led(b, i, entry, din, dout):
    d = b.add("D", "WS2812B", "LED_5050", ("led", i, entry["kind"], entry["index"], entry.get("pip")))
    d.pin(1, "VDD", "pwr_in", "5V").pin(2, "DOUT", "out" if dout else "nc", dout)
    d.pin(3, "VSS", "pwr_in", "GND").pin(4, "DIN", "in", din)
    c = b.add("C", "100n", "C_0603", ("decoupling_led", i))
    c.pin(1, "1", "passive", "5V").pin(2, "2", "passive", "GND")


def _led_chain(b, leds, din, last_nc=False):
    """LEDs ``leds`` = [(chain index, entry)] in data order from net ``din``; returns DOUT net."""
    for k, (i, entry) in enumerate(leds):
        dout = "D%d_DOUT" % (k + 1) if k + 1 < len(leds) or not last_nc else None
        _led(b, i, entry, din, dout)
        din = dout
    return din


def _groups(board):
    """The strips in chain order: [(kind, name, [register numbers])]."""
    groups = []
    for r, reg in enumerate(board["sensors"]["registers"]):
        kind = reg["kind"]
        name = "bar" if kind == "bar" else "%s%d" % (kind, reg["index"])
        if groups and groups[-1][1] == name:
            groups[-1][2].append(r)
        elif any(g[1] == name for g in groups):
            raise ValueError("board.json: the registers of %s are not next to each other" % name)
        else:
            groups.append((kind, name, [r]))
    if groups[-1][0] != "bar":
        raise ValueError("board.json: the bar registers must end the chain (the canaries)")
    return groups


def _strip_leds(board, kind, index):
    return [
        (i, e)
        for i, e in enumerate(board["leds"]["chain"])
        if kind != "bar" and e["kind"] == kind and e["index"] == index
    ]


def system(board):
    """(boards, cables): boards in chain order, centre board first; cables as
    ``(board_a, ref_a, board_b, ref_b)`` joining two chain connectors pin to pin."""
    regs = board["sensors"]["registers"]
    chain = board["leds"]["chain"]
    pins = board["pins"]
    boards, cables = [], []
    centre = Board("centre", "centre", "centre board: ESP32, level shifter, power, buttons, centre LEDs")
    boards.append(centre)
    on_strips = []
    prev = (centre, "J1")  # the centre board's CHAIN connector, added below
    for kind, name, rs in _groups(board):
        reg0 = regs[rs[0]]
        b = Board(kind, name, "%s strip" % kind)
        jin = _connector(b, "IN", True)
        jout = _connector(b, "OUT", False)
        # registers nearest first: the first one's QH leaves on the IN connector's Q through
        # the series resistor (a misplugged cable can meet another output there)
        qh = "U1_QH"
        _series(b, ("q_series",), "U1_QH", "IN_Q")
        for k, r in enumerate(rs):
            last = k == len(rs) - 1
            ser = ("OUT_Q" if kind != "bar" else "3V3") if last else "U%d_SER" % (k + 1)
            _register(b, r, k, regs[r], board, ser, qh)
            qh = ser
        _bus_buffer(b, kind == "bar", len(rs))
        leds = _strip_leds(board, kind, reg0["index"])
        on_strips += [i for i, _ in leds]
        # OUT's LED pin: our last LED's DOUT through the series resistor, or IN's LED passed
        # through (the bar has none)
        dout = _led_chain(b, leds, "IN_LED")
        if leds:
            _series(b, ("led_out_series",), dout, "OUT_LED")
            dout = "OUT_LED"
        jout.wire("LED", dout)
        if kind == "bar":
            jout.wire("Q", None)  # nothing beyond the chain's end
            for sig in BUS:  # the centre's RETURN connector takes none of them
                jout.wire(sig, None)
        boards.append(b)
        cables.append((prev[0].name, prev[1], b.name, jin.ref))
        prev = (b, jout.ref)
    if on_strips != list(range(len(on_strips))):
        raise ValueError("board.json: the strip LEDs must come first in the LED chain, in strip order")
    # the centre board
    jc = _connector(centre, "CHAIN", False)  # J1: to the first strip's IN
    jc.wire("Q", "MISO").wire("LED", "LED_OUT")
    jr = _connector(centre, "RETURN", False)  # J2: from the bar strip's OUT (LEDs come back)
    for sig in ("3V3", "SCK", "PL", "CE", "Q"):
        jr.wire(sig, None)
    cables.append((prev[0].name, prev[1], centre.name, jr.ref))
    gpio = {}
    for key, type_ in (("sck", "out"), ("miso", "in"), ("pl", "out"), ("ce", "out"), ("led_data", "out")):
        gpio[pins[key]] = ({"led_data": "LED_GPIO", "miso": "MISO"}.get(key, key.upper() + "_Y"), type_)
    gpio[pins["mosi"]] = (None, "nc")  # claimed by the SPI peripheral, not connected
    for btn in board["buttons"]:
        gpio[btn["pin"]] = ("BTN_" + btn["name"], "in")
    bat = board.get("battery")
    if bat is not None:
        gpio[bat["adc_pin"]] = ("BAT_SENSE", "in")
        # the charger's open-drain status outputs, each on an input that is no strapping pin:
        # the charger pulls them low whenever it likes, a reset included
        for key, net in (("chg_pin", "CHG_N"), ("pgood_pin", "PGOOD_N")):
            if bat[key] in STRAPPING or bat[key] in FLASH_PINS:
                why = "board.json: battery.%s GPIO %d is a strapping or flash pin"
                raise ValueError(why % (key, bat[key]))
            gpio[bat[key]] = (net, "in")
    if len(gpio) != 6 + len(board["buttons"]) + 3 * (bat is not None):
        raise ValueError("board.json: two functions share one GPIO")
    mcu = centre.add("U", "ESP32-DevKitC-32E", "DEVKITC_38", ("mcu",))
    for n, name in enumerate(DEVKIT):
        if name == "3V3":
            mcu.pin(n + 1, name, "pwr_out", "3V3")
        elif name == "5V":
            # the DevKitC's own USB drives this pin when plugged: a source of its own, kept
            # off the board's rail by the diode below (the board's supply feeds the DevKitC)
            mcu.pin(n + 1, name, "pwr_out", "DEVKIT_5V")
        elif name == "GND":
            mcu.pin(n + 1, name, "passive", "GND")
        else:
            g = int(name[4:]) if name.startswith("GPIO") else -1
            net, type_ = gpio.pop(g, (None, "nc"))
            mcu.pin(n + 1, name, type_, net)
    if gpio:
        raise ValueError("board.json: GPIO %r is not on the ESP32-DevKitC header" % sorted(gpio))
    # the bus leaves through source-termination resistors, as from every strip's buffer
    for sig in BUS:
        r = centre.add("R", ohms(BUS_OHM), "R_0603", ("bus_series", sig))
        r.pin(1, "1", "passive", sig + "_Y").pin(2, "2", "passive", sig)
    d = centre.add("D", "B5819W", "D_SOD-123", ("devkit_feed",))
    d.pin(1, "K", "passive", "DEVKIT_5V").pin(2, "A", "passive", SUPPLY)
    # the ESP32's pins float through reset and boot: each line it drives is held at its idle
    # level meanwhile (SCK low, PL and CE high: no load, clock inhibited; LED data low, so
    # the LEDs do not take noise for a frame)
    for net, rail, role in (
        ("SCK_Y", "GND", "sck_pull"),
        ("PL_Y", "3V3", "pl_pull"),
        ("CE_Y", "3V3", "ce_pull"),
        ("LED_GPIO", "GND", "led_pull"),
    ):
        centre.add("R", "10k", "R_0603", (role,)).pin(1, "1", "passive", net).pin(2, "2", "passive", rail)
    # MISO pull-up: an unplugged chain reads all-open (fails the closed canary)
    centre.add("R", "10k", "R_0603", ("miso_pullup",)).pin(1, "1", "passive", "MISO").pin(
        2, "2", "passive", "3V3"
    )
    ls = centre.add("U", "74AHCT1G125", "SOT-23-5", ("level_shifter",))
    ls.pin(1, "OE", "in", "GND").pin(2, "A", "in", "LED_GPIO").pin(3, "GND", "pwr_in", "GND")
    ls.pin(4, "Y", "out", "LED_5V").pin(5, "VCC", "pwr_in", "5V")
    c = centre.add("C", "100n", "C_0603", ("decoupling_ls",))
    c.pin(1, "1", "passive", "5V").pin(2, "2", "passive", "GND")
    centre.add("R", "330", "R_0603", ("led_series",)).pin(1, "1", "passive", "LED_5V").pin(
        2, "2", "passive", "LED_OUT"
    )
    usb = centre.add("J", "USB-C power", "USBC_BREAKOUT", ("usb",))
    usb.pin(1, "VBUS", "pwr_out", "VBUS").pin(2, "GND", "pwr_out", "GND")
    # surges and discharges on the cable clamp at VBUS, before the fuse (5 V stand-off)
    tvs = centre.add("D", "SMF5.0A", "D_SOD-123F", ("vbus_tvs",))
    tvs.pin(1, "K", "passive", "VBUS").pin(2, "A", "passive", "GND")
    # without the battery the fused USB is the board's 5 V supply; with it, the charger's input
    fused = "VIN" if bat is not None else SUPPLY
    centre.add("F", "PTC 750mA", "F_1206", ("fuse",)).pin(1, "1", "passive", "VBUS").pin(
        2, "2", "passive", fused
    )
    # KiCad's PWR_FLAG: the fuse's output is a source (no footprint, not on the PCB)
    centre.add("#FLG", "PWR_FLAG", None, ("flag",)).pin(1, "pwr", "pwr_out", fused)
    if bat is not None:
        _battery(centre, bat)
    centre.add("C", "1000u", "CP_D8", ("bulk",)).pin(1, "+", "passive", "5V").pin(2, "-", "passive", "GND")
    for btn in board["buttons"]:
        sw = centre.add("SW", btn["name"], "BTN_12MM", ("button", btn["name"]))
        sw.pin(1, "1", "passive", "BTN_" + btn["name"]).pin(2, "2", "passive", "GND")
        # a finger's discharge reaches the button's line before the ESP32's pin
        esd = centre.add("D", "PESD5V0S1BA", "D_SOD-323", ("button_esd", btn["name"]))
        esd.pin(1, "1", "passive", "BTN_" + btn["name"]).pin(2, "2", "passive", "GND")
    rest = [(i, e) for i, e in enumerate(chain) if i not in on_strips]
    _led_chain(centre, rest, "RETURN_LED", last_nc=True)
    # rev B's additions last, so that every earlier part keeps its reference
    _led_switch(centre)
    if bat is not None:
        _battery_status(centre)
    return boards, cables


def ohms(v):
    """A resistor value as a part value: 100000 -> "100k", 2200000 -> "2.2M", 887 -> "887"."""
    for div, unit in ((1000000, "M"), (1000, "k")):
        if v >= div:
            return "%g%s" % (v / div, unit)
    return "%d" % v


E96 = (100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133, 137, 140, 143, 147, 150)
E96 += (154, 158, 162, 165, 169, 174, 178, 182, 187, 191, 196, 200, 205, 210, 215, 221, 226, 232)
E96 += (237, 243, 249, 255, 261, 267, 274, 280, 287, 294, 301, 309, 316, 324, 332, 340, 348, 357)
E96 += (365, 374, 383, 392, 402, 412, 422, 432, 442, 453, 464, 475, 487, 499, 511, 523, 536, 549)
E96 += (562, 576, 590, 604, 619, 634, 649, 665, 681, 698, 715, 732, 750, 768, 787, 806, 825, 845)
E96 += (866, 887, 909, 931, 953, 976)


def e96(ohm):
    """The E96 value nearest ``ohm`` (by ratio): 890 -> 887, 3100 -> 3090."""
    decade = 10 ** (len(str(int(ohm))) - 3)
    best = min((abs(math.log(v * d / ohm)), v * d) for d in (decade / 10, decade, decade * 10) for v in E96)
    return int(round(best[1]))


def _cap(b, value, net, role):
    c = b.add("C", value, "C_0603", (role,))
    c.pin(1, "1", "passive", net).pin(2, "2", "passive", "GND")


def _battery(b, bat):
    """The battery option (board.json ``battery``) on the centre board: the cell on a 2-way
    connector (+, -), a power-path charger (BQ24074: OUT runs the board from USB while the cell
    charges, and from the cell without USB) with an on/off switch on its SYSOFF and its CHG /
    PGOOD outputs on two ESP32 inputs (board.json ``chg_pin``, ``pgood_pin``), a 5 V boost
    (TPS61023) from the charger's OUT to the board's supply, and the cell's voltage halved
    (board.json divider) on an ADC1 pin with a filter capacitor. Pin numbers: BQ24074RGT
    (QFN-16) and TPS61023DRL (SOT-563) as their datasheets' pin tables give them."""
    j = b.add("J", "battery 1S Li-ion", "JST_PH_2", ("battery",))
    j.pin(1, "+", "pwr_out", "BAT").pin(2, "-", "passive", "GND")
    u = b.add("U", "BQ24074", "QFN-16", ("charger",))
    for num, name, type_, net in (
        (1, "TS", "passive", "TS"),
        (2, "BAT", "passive", "BAT"),
        (3, "BAT", "passive", "BAT"),
        (4, "~CE", "in", "GND"),  # charging always enabled
        (5, "EN2", "in", "SYS"),  # EN2 = 1, EN1 = 0: input current limit set by ILIM
        (6, "EN1", "in", "GND"),
        (7, "~PGOOD", "out", "PGOOD_N"),
        (8, "VSS", "pwr_in", "GND"),
        (9, "~CHG", "out", "CHG_N"),
        (10, "OUT", "pwr_out", "SYS"),
        (11, "OUT", "passive", "SYS"),
        (12, "ILIM", "passive", "ILIM"),
        (13, "IN", "pwr_in", "VIN"),
        (14, "TMR", "nc", None),  # open: the default safety timers
        (15, "SYSOFF", "in", "SYSOFF"),  # the on/off switch below
        (16, "ISET", "passive", "ISET"),
        (17, "EP", "passive", "GND"),
    ):
        u.pin(num, name, type_, net)
    # ICHG = 890 A*ohm / RISET; input limit = 1550 A*ohm / RILIM (datasheet K_ISET, K_ILIM)
    # each the nearest E96 value (1 %, what a pick-and-place library stocks)
    riset = e96(890000.0 / bat["charge_ma"])
    rilim = e96(1550000.0 / 500)  # the USB port's 500 mA
    b.add("R", ohms(riset), "R_0603", ("iset",)).pin(1, "1", "passive", "ISET").pin(2, "2", "passive", "GND")
    b.add("R", ohms(rilim), "R_0603", ("ilim",)).pin(1, "1", "passive", "ILIM").pin(2, "2", "passive", "GND")
    for net, role in (("VIN", "charger_in"), ("SYS", "charger_out"), ("BAT", "charger_bat")):
        _cap(b, "4u7", net, role)
    boost = b.add("U", "TPS61023", "SOT-563", ("boost",))
    # TI TPS61023 datasheet (SLVSF14), DRL pin functions: 1 FB, 2 EN, 3 VIN, 4 GND, 5 SW, 6 VOUT
    for num, name, type_, net in (
        (1, "FB", "in", "FB"),
        (2, "EN", "in", "SYS"),
        (3, "VIN", "pwr_in", "SYS"),
        (4, "GND", "pwr_in", "GND"),
        (5, "SW", "passive", "SW"),
        (6, "VOUT", "pwr_out", SUPPLY),
    ):
        boost.pin(num, name, type_, net)
    b.add("L", "1u", "L_XFL4020", ("boost_l",)).pin(1, "1", "passive", "SYS").pin(2, "2", "passive", "SW")
    # VOUT = 0.6 V x (1 + 732k / 100k) = 5.0 V
    b.add("R", "732k", "R_0603", ("fb_top",)).pin(1, "1", "passive", SUPPLY).pin(2, "2", "passive", "FB")
    b.add("R", "100k", "R_0603", ("fb_bottom",)).pin(1, "1", "passive", "FB").pin(2, "2", "passive", "GND")
    _cap(b, "22u", SUPPLY, "boost_out")
    top, bottom = bat["divider_top_ohm"], bat["divider_bottom_ohm"]
    r = b.add("R", ohms(top), "R_0603", ("divider", "top", top))
    r.pin(1, "1", "passive", "BAT").pin(2, "2", "passive", "BAT_SENSE")
    r = b.add("R", ohms(bottom), "R_0603", ("divider", "bottom", bottom))
    r.pin(1, "1", "passive", "BAT_SENSE").pin(2, "2", "passive", "GND")
    _cap(b, "100n", "BAT_SENSE", "divider_filter")


# The LED rail's current limit: a current-limited power switch (Silergy SY6280AAC, SOT-23-5;
# AN_SY6280 pin table: 1 OUT, 2 GND, 3 ISET, 4 EN, 5 IN; I_lim = 6800 A*ohm / R_ISET)
LED_SWITCH = "SY6280AAC"
LED_ISET = "15k"


def _led_switch(b):
    """The LED rail (``5V``: every WS2812B, the level shifter, the chain cables) behind a
    current-limited switch from the board's supply (``SUPPLY``: the fused USB or the boost):
    the firmware's frame budget is the working limit, this one holds when the firmware does
    not (3.1 A at full white) or a cable shorts, below the fuse's hold current so the DevKitC's
    supply stays up (``tools/hardware/ledlimit.py`` checks the window, with ngspice)."""
    u = b.add("U", LED_SWITCH, "SOT-23-5", ("led_switch",))
    u.pin(1, "OUT", "pwr_out", "5V").pin(2, "GND", "pwr_in", "GND").pin(3, "ISET", "passive", "LED_ISET")
    u.pin(4, "EN", "in", SUPPLY).pin(5, "IN", "pwr_in", SUPPLY)  # EN: "do not float", always on
    r = b.add("R", LED_ISET, "R_0603", ("led_iset",))
    r.pin(1, "1", "passive", "LED_ISET").pin(2, "2", "passive", "GND")
    _cap(b, "4u7", SUPPLY, "led_switch_in")


def _battery_status(b):
    """The charger's TS, CHG, PGOOD and SYSOFF (BQ24074 pin table)."""
    # the cell holder has no thermistor: TS on the datasheet's fixed 10 k to VSS (the pin
    # table: "for applications that do not utilize the TS function"); floating, TS stops charging
    b.add("R", "10k", "R_0603", ("ts",)).pin(1, "1", "passive", "TS").pin(2, "2", "passive", "GND")
    # CHG and PGOOD are open drain (low: charging, USB present); pulled up to the ESP32's 3.3 V,
    # not 5 V: its pins take at most 3.6 V (the datasheet allows 1 k to 100 k to any rail)
    for net, role in (("CHG_N", "chg_pullup"), ("PGOOD_N", "pgood_pullup")):
        b.add("R", "100k", "R_0603", (role,)).pin(1, "1", "passive", net).pin(2, "2", "passive", "3V3")
    # on/off: SYSOFF high opens the FET between the cell and OUT (the cell then gives only the
    # charger's leakage); the common contact on SYSOFF, ON throws it to GND, OFF to BAT. With
    # USB plugged and the switch off the board runs from USB but the cell does not charge
    # (the datasheet: "when an adapter is connected, charging is also disabled")
    sw = b.add("SW", "power on/off", "SW_SLIDE_SPDT", ("power_switch",))
    sw.pin(1, "1", "passive", "GND").pin(2, "2", "passive", "SYSOFF").pin(3, "3", "passive", "BAT")


def kinds(boards):
    """One board per KiCad project (the first instance of each kind)."""
    seen = {}
    for b in boards:
        seen.setdefault(b.kind, b)
    return list(seen.values())
