"""Draw hardware/wiring.svg from hardware/board.json (deterministic: same JSON, same bytes).

Usage::

    .venv/bin/python -m tools.wiring_svg            # rewrite hardware/wiring.svg
    .venv/bin/python -m tools.wiring_svg --check    # exit 1 if the committed SVG is stale

The drawing is a wiring diagram, not a layout: the ESP32 with its pins, the 74HC165 chain in
read order (register 0's QH drives MISO; register r+1's QH drives register r's SER; the last
register's SER is tied high), the shared SCK/PL/CE lines, the LED chain in data order, buttons
and power.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOARD = ROOT / "hardware" / "board.json"
OUT = ROOT / "hardware" / "wiring.svg"

COLS = 6  # registers per row in the drawing
REG_W, REG_H, REG_GX, REG_GY = 150, 74, 22, 40
LED_COLS = 13
LED_R, LED_GX, LED_GY = 13, 58, 62

SHORT = {
    "point": "P",
    "bar": "BAR",
    "tray": "TRAY",
    "turn": "TURN",
    "cube_owner": "OWN",
    "cube_value": "x",
    "die": "D",
}


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


class Svg:
    def __init__(self):
        self.parts = []

    def add(self, s):
        self.parts.append(s)

    def rect(self, x, y, w, h, cls):
        self.add('<rect x="%d" y="%d" width="%d" height="%d" class="%s"/>' % (x, y, w, h, cls))

    def text(self, x, y, s, cls="t", anchor="start"):
        self.add('<text x="%d" y="%d" class="%s" text-anchor="%s">%s</text>' % (x, y, cls, anchor, esc(s)))

    def line(self, x1, y1, x2, y2, cls):
        self.add('<line x1="%d" y1="%d" x2="%d" y2="%d" class="%s"/>' % (x1, y1, x2, y2, cls))

    def path(self, d, cls):
        self.add('<path d="%s" class="%s"/>' % (d, cls))


def reg_label(reg, slots):
    kind, idx, base = reg["kind"], reg["index"], reg.get("slot_base", 0)
    n = slots[kind]
    used = max(0, min(8, n - base))
    name = {"point": "point %d" % idx, "bar": "bar side %d" % idx, "tray": "tray side %d" % idx}[kind]
    if used:
        rng = "slots %d-%d on A-%s" % (base, base + used - 1, "ABCDEFGH"[used - 1])
    else:
        rng = "no slots"
    return name, rng


def led_label(e):
    k = e["kind"]
    if k == "die":
        return "D%d.%d" % (e["index"], e["pip"])
    if k == "cube_value":
        return "x%d" % e["index"]
    if k == "point":
        return "P%d" % e["index"]
    return "%s%d" % (SHORT[k], e["index"])


def render(board):
    s = board["sensors"]
    regs = s["registers"]
    slots = {"point": s["slots_per_point"], "bar": s["bar_slots"], "tray": s["tray_slots"]}
    pins = board["pins"]
    leds = board["leds"]["chain"]
    rows = (len(regs) + COLS - 1) // COLS
    led_rows = (len(leds) + LED_COLS - 1) // LED_COLS
    x0, y0 = 300, 110
    chain_h = rows * (REG_H + REG_GY)
    led_y0 = y0 + chain_h + 70
    height = led_y0 + led_rows * LED_GY + 250
    width = x0 + COLS * (REG_W + REG_GX) + 40
    g = Svg()
    g.add(
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="DejaVu Sans, Arial, sans-serif">' % (width, height, width, height)
    )
    g.add(
        "<style>.t{font-size:12px;fill:#222}.s{font-size:10px;fill:#444}.h{font-size:16px;"
        "font-weight:bold;fill:#111}.box{fill:#f4f4f4;stroke:#333;stroke-width:1.2}"
        ".mcu{fill:#e8f1fa;stroke:#0072b2;stroke-width:2}.clk{stroke:#0072b2;stroke-width:1.4;fill:none}"
        ".pl{stroke:#009e73;stroke-width:1.4;fill:none}.ce{stroke:#cc79a7;stroke-width:1.4;fill:none}"
        ".dat{stroke:#d55e00;stroke-width:2;fill:none}.led{fill:#fff;stroke:#e69f00;stroke-width:2}"
        ".pwr{stroke:#555;stroke-width:1.4;stroke-dasharray:5 3;fill:none}"
        ".btn{fill:#fdf6e3;stroke:#333;stroke-width:1.2}</style>"
    )
    g.add('<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>' % (width, height))
    g.text(
        20,
        30,
        "%s - wiring (generated from hardware/board.json by tools/wiring_svg.py)"
        % board.get("name", "board"),
        "h",
    )
    g.text(
        20,
        52,
        "sensor chain: %d x %s, %d bits read per scan; %d slots/point, bar %d/side, "
        "tray %d/side; reeds pull inputs %s (10k pull-ups)"
        % (
            len(regs),
            s.get("device", "74HC165"),
            8 * len(regs),
            slots["point"],
            slots["bar"],
            slots["tray"],
            "LOW when closed" if s.get("active_low", True) else "HIGH when closed",
        ),
        "t",
    )
    spi = board["spi"]
    g.text(
        20,
        70,
        "SPI id %d, %d Hz, mode %d%d, MSB first: register 0 is read first; "
        "input A = bit 0 = slot_base" % (pins["spi_id"], spi["baudrate"], spi["polarity"], spi["phase"]),
        "t",
    )
    # ESP32
    bat = board.get("battery")
    mx, my, mw, mh = 20, 100, 220, 330 + (26 if bat else 0)
    g.rect(mx, my, mw, mh, "mcu")
    g.text(mx + mw // 2, my + 22, board.get("mcu", {}).get("module", "ESP32"), "s", "middle")
    plist = [
        ("sck", "SCK"),
        ("miso", "MISO <- QH"),
        ("mosi", "MOSI (n.c.)"),
        ("pl", "PL (latch)"),
        ("ce", "CE (clk inhibit)"),
        ("led_data", "LED data"),
    ]
    for i, (k, label) in enumerate(plist):
        g.text(mx + mw - 8, my + 60 + 26 * i, "GPIO%d %s" % (pins[k], label), "t", "end")
    for i, b in enumerate(board["buttons"]):
        g.text(
            mx + mw - 8,
            my + 60 + 26 * (len(plist) + i),
            "GPIO%d %s (pull-up)" % (b["pin"], b["name"]),
            "t",
            "end",
        )
    if bat:
        g.text(
            mx + mw - 8,
            my + 60 + 26 * (len(plist) + len(board["buttons"])),
            "GPIO%d battery (ADC1)" % bat["adc_pin"],
            "t",
            "end",
        )
    # shared buses
    bus_y = {"clk": y0 - 34, "pl": y0 - 24, "ce": y0 - 14}
    for cls, key, label in (("clk", "sck", "SCK"), ("pl", "pl", "PL"), ("ce", "ce", "CE")):
        py = my + 60 + 26 * [p[0] for p in plist].index(key) - 4
        g.path(
            "M %d %d H %d V %d H %d"
            % (mx + mw, py, 262 + 8 * ["clk", "pl", "ce"].index(cls), bus_y[cls], width - 30),
            cls,
        )
        g.text(width - 28, bus_y[cls] + 4, label, "s")
    # registers
    for r, reg in enumerate(regs):
        row, col = divmod(r, COLS)
        if row % 2:
            col = COLS - 1 - col  # snake, like the cable run
        x = x0 + col * (REG_W + REG_GX)
        y = y0 + row * (REG_H + REG_GY)
        g.rect(x, y, REG_W, REG_H, "box")
        name, rng = reg_label(reg, slots)
        g.text(x + 6, y + 15, "U%d  74HC165  #%d" % (r + 1, r), "t")
        g.text(x + 6, y + 33, name, "t")
        g.text(x + 6, y + 49, rng, "s")
        tied = reg.get("tied", {})
        if tied:
            g.text(
                x + 6,
                y + 65,
                "canary: " + ", ".join("%s=%s" % ("ABCDEFGH"[int(k)], v) for k, v in sorted(tied.items())),
                "s",
            )
        for k, (cls, dy) in enumerate((("clk", -34), ("pl", -24), ("ce", -14))):
            g.line(x + 20 + 10 * k, y, x + 20 + 10 * k, y + dy if row == 0 else y - 6, cls)
        # serial data: this register's SER comes from the next register's QH
        if r + 1 < len(regs):
            nrow, ncol = divmod(r + 1, COLS)
            if nrow % 2:
                ncol = COLS - 1 - ncol
            nx = x0 + ncol * (REG_W + REG_GX)
            ny = y0 + nrow * (REG_H + REG_GY)
            if nrow == row:
                if ncol > col:
                    g.path("M %d %d H %d" % (nx, ny + REG_H // 2, x + REG_W), "dat")
                else:
                    g.path("M %d %d H %d" % (nx + REG_W, ny + REG_H // 2, x), "dat")
            else:
                g.path("M %d %d V %d" % (nx + REG_W // 2, ny, y + REG_H), "dat")
        else:
            g.text(x + REG_W // 2, y + REG_H + 14, "SER tied to 3V3", "s", "middle")
    miso_y = my + 60 + 26 * 1 - 4
    g.path("M %d %d H %d V %d H %d" % (mx + mw, miso_y, 282, y0 + REG_H // 2, x0), "dat")
    g.text(x0 - 4, y0 + REG_H // 2 - 6, "QH", "s", "end")
    # LEDs
    g.text(
        x0,
        led_y0 - 30,
        "WS2812B chain (%d LEDs, %s, cap %d/255, budget %d mA): data order"
        % (
            len(leds),
            board["leds"].get("order", "GRB"),
            board["leds"]["brightness_cap"],
            board["leds"]["budget_ma"],
        ),
        "t",
    )
    dpy = my + 60 + 26 * 5 - 4
    g.path("M %d %d H %d V %d H %d" % (mx + mw, dpy, 270, led_y0 + LED_R, x0 + 6), "dat")
    g.text(
        x0 + 6,
        led_y0 - 12,
        "GPIO%d -> 74AHCT1G125 (3.3 V -> 5 V) -> 330R -> DIN of LED 0" % pins["led_data"],
        "s",
    )
    for i, e in enumerate(leds):
        row, col = divmod(i, LED_COLS)
        if row % 2:
            col = LED_COLS - 1 - col
        cx = x0 + 20 + col * LED_GX
        cy = led_y0 + LED_R + row * LED_GY
        g.add('<circle cx="%d" cy="%d" r="%d" class="led"/>' % (cx, cy, LED_R))
        g.text(cx, cy + 4, str(i), "s", "middle")
        g.text(cx, cy + LED_R + 13, led_label(e), "s", "middle")
        if i + 1 < len(leds):
            nrow, ncol = divmod(i + 1, LED_COLS)
            if nrow % 2:
                ncol = LED_COLS - 1 - ncol
            nx = x0 + 20 + ncol * LED_GX
            ny = led_y0 + LED_R + nrow * LED_GY
            if nrow == row:
                off = LED_R if nx > cx else -LED_R
                g.line(cx + off, cy, nx - off, ny, "dat")
            else:
                g.line(cx, cy + LED_R + 16, nx, ny - LED_R, "dat")
    # power and buttons
    py = led_y0 + led_rows * LED_GY + 40
    pw = board["power"]
    g.text(
        20,
        py,
        "Power: USB %.1f V / %d mA -> LED 5 V rail (1000 uF at the first LED) and the module's "
        "3.3 V regulator -> 74HC165 chain, pull-ups, ESP32." % (pw["supply_v"], pw["supply_ma"]),
        "t",
    )
    if bat:
        g.text(
            20,
            py + 24,
            "Battery: %s %d mAh -> %s (USB runs the board and charges) -> %s -> the 5 V rail; "
            "the cell / %.1f on GPIO%d (ADC1, 11 dB)."
            % (
                bat["cell"].split(",")[0],
                bat["capacity_mah"],
                bat["charger"],
                bat["boost"],
                (bat["divider_top_ohm"] + bat["divider_bottom_ohm"]) / float(bat["divider_bottom_ohm"]),
                bat["adc_pin"],
            ),
            "s",
        )
    g.path("M %d %d H %d" % (20, py + 12, width - 40), "pwr")
    g.text(20, py + 40, "Buttons (to GND, internal pull-ups, IRQ on the falling edge):", "t")
    for i, b in enumerate(board["buttons"]):
        bx = 20 + i * 200
        g.rect(bx, py + 52, 180, 40, "btn")
        g.text(bx + 90, py + 70, "%s  (%s, side %d)" % (b["name"], b["role"], b["side"]), "t", "middle")
        g.text(bx + 90, py + 85, "GPIO%d" % b["pin"], "s", "middle")
    pips = ", ".join("%d=%s" % (i, n) for i, n in enumerate(board["dice_pips"]))
    g.text(20, py + 130, "Dice pips: " + pips, "s")
    g.text(
        20,
        py + 148,
        "LED labels: P = point, BAR/TRAY/TURN/OWN + side, xN = cube value N, Dd.p = die d pip p.",
        "s",
    )
    g.add("</svg>")
    return "\n".join(g.parts) + "\n"


def main(argv):
    board = json.loads(BOARD.read_text())
    svg = render(board)
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != svg:
            print("hardware/wiring.svg is stale: run python -m tools.wiring_svg")
            return 1
        print("hardware/wiring.svg is up to date")
        return 0
    OUT.write_text(svg)
    print("wrote", OUT.relative_to(ROOT), "(%d bytes)" % len(svg))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
