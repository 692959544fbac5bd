"""Compute the board's power budget from hardware/board.json and write hardware/power.md.

Usage::

    .venv/bin/python -m tools.power_budget            # rewrite hardware/power.md
    .venv/bin/python -m tools.power_budget --check    # exit 1 if power.md is stale

Deterministic: every number comes from board.json (LED count, brightness cap, frame budget,
per-channel current, supply) and from frames composed by the real ``bg.leds.Painter``.
"""

import json
import sys
from pathlib import Path

from bg import hwdesc, leds

ROOT = Path(__file__).resolve().parent.parent

BOARD = ROOT / "hardware" / "board.json"
OUT = ROOT / "hardware" / "power.md"

V_LOGIC = 3.3
HC165_ICC_MA = 0.08  # 74HC165 static supply current, max at 25 C (datasheet: 8 uA typ, 80 uA max)

# ESP32 currents (at the module's 3.3 V; the DevKit's linear regulator passes the same current
# from 5 V). Espressif, "ESP32 Series Datasheet" v4.x, section 5 "Electrical Characteristics":
# "Power Consumption by Power Modes" (modem-sleep, CPU 160 MHz: 27-44 mA; light-sleep: 0.8 mA)
# and "RF Current Consumption" (Bluetooth LE transmit at 0 dBm: 130 mA; receive: 95-100 mA).
ESP_CPU_MA = 44.0  # modem-sleep at 160 MHz, the upper figure: MicroPython's loop never idles
ESP_LIGHT_SLEEP_MA = 0.8
ESP_BLE_TX_MA = 130.0
# assumptions, stated in power.md
DEVKIT_MA = 6.0  # the DevKit's 3.3 V LDO ground current and its idle USB-UART bridge
ADV_EVENT_MS = 2.0  # radio time of one advertising event (3 channels, TX + listen)
CONN_EVENT_MS = 1.5  # radio time of one connection event (a short notification)
CONN_INTERVAL_MS = 30.0  # the host's connection interval (typical for a phone or a PC)
SCAN_AWAKE_MS = 2.0  # one idle scan: waking from light sleep, SPI read, debounce, back
# the LED frames of a typical game, by share of the time (the turn waits for a roll about as
# long as it waits for the play; setting up and results take the rest)
PLAY_MIX = (("await_roll", 0.45), ("moving", 0.45), ("setup", 0.1))


def frames(b):
    """Representative frames of the LED language: (name, painter state after finish)."""
    out = []

    def mk(name, paint):
        p = leds.Painter(b)
        p.clear()
        p.tick(700)  # pulses at their peak: the worst instant of each animation
        paint(p)
        raw = p.current_ma()
        fin = p.finish()
        out.append((name, raw, fin))

    mk("idle: turn + centred cube", lambda p: (p.turn(0), p.cube(1, None)))
    mk(
        "turn with dice 6-6 + 4 destinations",
        lambda p: (p.turn(0), p.cube(2, 1), p.dice(6, 6, 0), p.destinations(0x0F0000, 0, 24)),
    )
    mk(
        "opponent's last move (4 steps) + dice",
        lambda p: (p.turn(1), p.dice(6, 6, 1), p.last_move((24, 18, 18, 12, 13, 7, 7, 1), 0)),
    )
    mk("setup: every row marked", lambda p: p.setup(missing=0x0000FFF, extra=0xFFF000, ok=0xF000000))
    mk("match won: all points + chase + dice", lambda p: p.result(0, 3, match_over=True))

    def all_white(p):
        for i in range(b.nleds):
            p.set(i, leds.WHITE)

    mk("worst case: every LED white at the cap", all_white)
    return out


def mean_ma(b, paint, period_ms=2800, step_ms=20):
    """Mean current of a frame whose animations run for ``period_ms`` (pulses 1.4 s, blinks
    0.3 s, the chase 1.7 s): the real painter sampled every ``step_ms``, after its budget."""
    p = leds.Painter(b)
    total = n = 0
    for t in range(0, period_ms, step_ms):
        p.clear()
        p.tick(t)
        paint(p)
        total += p.finish()
        n += 1
    return total / n


def play_frames():
    """The frames of ``PLAY_MIX``: what a game shows most of the time."""
    return {
        "await_roll": lambda p: (p.turn(1), p.cube(1, None), p.last_move((24, 18, 13, 10), 0)),
        "moving": lambda p: (p.turn(0), p.cube(1, None), p.dice(5, 3, 0), p.destinations(0x000101, 0, 13)),
        "setup": lambda p: p.setup(missing=0x0000300, extra=0x0, ok=0xFFFCFF),
    }


def battery_figures(desc, b):
    """Play time per charge and the battery's margins, every input from board.json."""
    bat = desc["battery"]
    pw = desc["power"]
    idle = desc["idle"]
    n = b.nleds
    quiescent = n * desc["leds"].get("idle_ma_per_led", 1.0)
    closed = 2 * pw["checkers_per_side"] + 1
    pullups = closed * V_LOGIC / pw["sensor_pullup_ohm"] * 1000
    hc165 = b.nbytes * HC165_ICC_MA
    frames = play_frames()
    led_mix = sum(share * mean_ma(b, frames[name]) for name, share in PLAY_MIX)
    conn = ESP_BLE_TX_MA * CONN_EVENT_MS / CONN_INTERVAL_MS
    adv_idle = ESP_BLE_TX_MA * ADV_EVENT_MS / idle["adv_ms"]
    awake = SCAN_AWAKE_MS * idle["scan_hz"] / 1000.0
    esp_idle = awake * ESP_CPU_MA + (1 - awake) * ESP_LIGHT_SLEEP_MA
    cases = [
        (
            "typical play (LED mix below, a host connected)",
            [
                ("LEDs, mean of the play mix", led_mix),
                ("LED quiescent", quiescent),
                ("ESP32 CPU (modem-sleep, 160 MHz)", ESP_CPU_MA),
                ("BLE connection events", conn),
                ("DevKit regulator + USB bridge", DEVKIT_MA),
                ("reed pull-ups (all checkers on reeds)", pullups),
                ("74HC165 chain", hc165),
            ],
        ),
        (
            "worst case (LEDs at the frame budget, radio at its peak)",
            [
                ("LEDs at the frame budget", b.budget_ma),
                ("LED quiescent", quiescent),
                ("ESP32 module peak", pw["mcu_peak_ma"]),
                ("DevKit regulator + USB bridge", DEVKIT_MA),
                ("reed pull-ups", pullups),
                ("74HC165 chain", hc165),
            ],
        ),
        (
            "idle mode (LEDs at level %d, %d scans/s, light sleep, advertising every %d ms)"
            % (idle["leds_level"], idle["scan_hz"], idle["adv_ms"]),
            [
                ("LEDs (frame scaled to the idle level)", led_mix * idle["leds_level"] / 255.0),
                ("LED quiescent", quiescent),
                ("ESP32: awake %.1f %% of the time, else light sleep" % (100 * awake), esp_idle),
                ("BLE advertising", adv_idle),
                ("DevKit regulator + USB bridge", DEVKIT_MA),
                ("reed pull-ups", pullups),
                ("74HC165 chain", hc165),
            ],
        ),
    ]
    out = []
    usable = bat["capacity_mah"] * bat["usable_fraction"]
    for name, parts in cases:
        rail = sum(v for _k, v in parts)
        cell = rail * pw["supply_v"] / (bat["nominal_mv"] / 1000.0 * bat["boost_efficiency"])
        out.append((name, parts, rail, cell, usable / cell))
    return out, usable


def render_battery(desc, b):
    from bg import battery

    bat = desc["battery"]
    lines = []
    w = lines.append
    cases, usable = battery_figures(desc, b)
    w("## Battery")
    w("")
    w(
        "board.json `battery` (hardware/README.md): %s, %d mAh; %s; %s."
        % (bat["cell"], bat["capacity_mah"], bat["charger"], bat["boost"])
    )
    w("")
    w("### Play time per charge")
    w("")
    w("Every consumer draws from the 5 V rail (the 3.3 V parts through the DevKit's linear")
    w("regulator: the same current). The boost makes that rail from the cell:")
    w("")
    w(
        "    I_cell = I_rail x %.1f V / (%.2f V x %.2f)      hours = %d mAh x %.2f / I_cell"
        % (
            desc["power"]["supply_v"],
            bat["nominal_mv"] / 1000.0,
            bat["boost_efficiency"],
            bat["capacity_mah"],
            bat["usable_fraction"],
        )
    )
    w("")
    w("(rail voltage x rail current / (the cell's nominal voltage x the boost's efficiency);")
    w(
        "%.0f mAh usable: the board stops at %d mV, above the cell's own end, and cells age)."
        % (usable, bat["cutoff_mv"])
    )
    w("")
    w("| case | 5 V rail (mA) | cell (mA) | **play time** |")
    w("|---|---|---|---|")
    for name, _parts, rail, cell, hours in cases:
        w("| %s | %.0f | %.0f | **%.1f h** |" % (name, rail, cell, hours))
    w("")
    for name, parts, rail, _cell, _h in cases:
        w("%s%s:" % (name[0].upper(), name[1:]))
        w("")
        w("| consumer | mA |")
        w("|---|---|")
        for k, v in parts:
            w("| %s | %.1f |" % (k, v))
        w("| **5 V rail** | **%.0f** |" % rail)
        w("")
    w("Assumptions (the sources in `tools/power_budget.py`):")
    w("")
    w("- ESP32 currents from Espressif's *ESP32 Series Datasheet* (section 5, \"Power Consumption")
    w('  by Power Modes" and "RF Current Consumption"): CPU at 160 MHz in modem-sleep %.0f mA' % ESP_CPU_MA)
    w(
        "  (the upper figure: MicroPython's event loop never idles the CPU), light sleep %.1f mA,"
        % ESP_LIGHT_SLEEP_MA
    )
    w(
        "  Bluetooth LE transmit %.0f mA. The radio is on only in its events: an advertising event"
        % ESP_BLE_TX_MA
    )
    w(
        "  %.1f ms, a connection event %.1f ms every %.0f ms (the host's interval)."
        % (ADV_EVENT_MS, CONN_EVENT_MS, CONN_INTERVAL_MS)
    )
    w("- LED current by the frame content: the real `bg.leds.Painter` frames of a game, their")
    w(
        "  animations averaged over 2.8 s, mixed %s."
        % ", ".join("%s %.0f %%" % (k, 100 * s) for k, s in PLAY_MIX)
    )
    w(
        "- The LED chain's quiescent current (%.1f mA per LED) flows whatever the frame: it is the"
        % (desc["leds"].get("idle_ma_per_led", 1.0))
    )
    w("  largest part of idle mode. The LED rail's current-limited switch could remove it (off in")
    w("  idle mode) were its EN on a GPIO: rev B ties EN on, the switch only limits.")
    w(
        "- The reed pull-ups draw while checkers sit on their switches (%d closed: all checkers"
        % (2 * desc["power"]["checkers_per_side"] + 1)
    )
    w("  and the canary), scanning or not.")
    w("- Idle mode light-sleeps only without a connected host (the connection events need the")
    w("  CPU); one idle scan keeps it awake %.0f ms." % SCAN_AWAKE_MS)
    w("")
    w("### Charging")
    w("")
    w("The charger is a power-path (load-sharing) charger: its OUT runs the board from USB and")
    w("the rest of the input current (limit 500 mA, the USB port's) charges the cell at up to")
    w(
        "%d mA; when the board alone needs more than the port gives (the worst case above), the"
        % bat["charge_ma"]
    )
    w(
        "cell supplements it. Typical play on USB leaves about %.0f mA for the cell: a full"
        % (500 - cases[0][2] * 1.0 / bat["boost_efficiency"])
    )
    w(
        "charge while playing in about %.1f h, %.1f h with the board idle."
        % (
            bat["capacity_mah"] / max(1.0, 500 - cases[0][2] / bat["boost_efficiency"]),
            bat["capacity_mah"] / min(bat["charge_ma"], 500 - cases[2][2] / bat["boost_efficiency"]),
        )
    )
    w("")
    w("### Levels and the brown-out margin")
    w("")
    mv, pct = b.battery_mv, b.battery_pct
    top, bottom = bat["divider_top_ohm"], bat["divider_bottom_ohm"]
    ratio = bottom / float(top + bottom)
    worst = cases[1][3]
    typical = cases[0][3]
    sag = worst * bat["internal_mohm"] / 1000.0
    p_low = battery.percent(bat["low_mv"], mv, pct)
    p_crit = battery.percent(bat["critical_mv"], mv, pct)
    w(
        "| level | cell | ADC pin (divider %s / %s) | charge | what the board does |"
        % (_ohms(top), _ohms(bottom))
    )
    w("|---|---|---|---|---|")
    w(
        "| full (charger's float voltage) | %d mV | %.0f mV (ADC reads up to %d mV at 11 dB) | 100 %% | - |"
        % (bat["full_mv"], bat["full_mv"] * ratio, bat["adc_max_mv"])
    )
    w(
        "| low | < %d mV | %.0f mV | %d %% | the battery bar in yellow, 2 s every 30 s |"
        % (bat["low_mv"], bat["low_mv"] * ratio, p_low)
    )
    w(
        "| critical (%d readings in a row) | < %d mV | %.0f mV | %d %% | journal closed, game halted |"
        % (battery.CONFIRM, bat["critical_mv"], bat["critical_mv"] * ratio, p_crit)
    )
    w("| cutoff (brown-out) | %d mV | %.0f mV | 0 %% | - |" % (bat["cutoff_mv"], bat["cutoff_mv"] * ratio))
    w("")
    w(
        "Leaving LOW or CRITICAL needs %d mV more than the threshold (a charged cell, not one that"
        % (bat["hysteresis_mv"])
    )
    w("recovered when the load dropped).")
    w("")
    w(
        "- Brown-out margin: critical %d mV - cutoff %d mV - the sag at the worst-case cell"
        % (bat["critical_mv"], bat["cutoff_mv"])
    )
    w(
        "  current (%.0f mA x %d mOhm = %.0f mV) = **%.0f mV**."
        % (worst, bat["internal_mohm"], sag, bat["critical_mv"] - bat["cutoff_mv"] - sag)
    )
    w(
        "- Time from critical to cutoff: %d %% of %.0f mAh at the worst-case %.0f mA = **%.1f min**"
        % (p_crit, usable, worst, p_crit / 100.0 * usable / worst * 60)
    )
    w(
        "  (the journal closes within one battery poll, %d s, after %d readings)."
        % (bat["poll_s"], battery.CONFIRM)
    )
    w(
        "- Warning before the halt: from low (%d %%) to critical (%d %%) in typical play: **%.0f min**."
        % (p_low, p_crit, (p_low - p_crit) / 100.0 * usable / typical * 60)
    )
    return lines


def _ohms(v):
    return "%gk" % (v / 1000.0) if v < 1000000 else "%gM" % (v / 1000000.0)


def render(desc, droop=None):
    """power.md; ``droop``: ``tools/hardware/droop.py``'s figures (ngspice) for its section."""
    b = hwdesc.Board(desc)
    pw = desc["power"]
    ld = desc["leds"]
    n = b.nleds
    cap = b.brightness_cap
    mpc = b.ma_per_channel
    full_white = 3 * mpc * n
    capped_white = full_white * cap / 255
    idle = n * ld.get("idle_ma_per_led", 1.0)
    nreg = b.nbytes
    closed_max = 2 * pw["checkers_per_side"] + 1  # every checker closes at most one reed, + canary
    pullup_ma = closed_max * V_LOGIC / pw["sensor_pullup_ohm"] * 1000
    hc165 = nreg * HC165_ICC_MA
    mcu = pw["mcu_peak_ma"]
    others = idle + pullup_ma + hc165 + mcu
    total = b.budget_ma + others
    supply = pw["supply_ma"]
    lines = []
    w = lines.append
    w("# Power budget (generated)")
    w("")
    w("Generated by `tools/power_budget.py` from `hardware/board.json`; do not edit by hand")
    w("(`tests/host/test_hardware_docs.py` checks it is current).")
    w("")
    w("## Inputs (board.json)")
    w("")
    w("| quantity | value |")
    w("|---|---|")
    w("| LEDs (WS2812B) | %d |" % n)
    w("| current per colour channel at 255 | %.1f mA (datasheet max; real parts ~12-16 mA) |" % mpc)
    w("| brightness cap (highest channel value sent) | %d / 255 (%.0f %%) |" % (cap, 100.0 * cap / 255))
    w("| firmware frame budget (`leds.budget_ma`) | %d mA |" % b.budget_ma)
    w("| LED quiescent current | %.1f mA each |" % ld.get("idle_ma_per_led", 1.0))
    w("| ESP32 module peak (BLE advertising/connected, CPU 160 MHz) | %d mA |" % mcu)
    w("| 74HC165 registers | %d (%.2f mA each, max) |" % (nreg, HC165_ICC_MA))
    w("| reed pull-ups | %d ohm at %.1f V |" % (pw["sensor_pullup_ohm"], V_LOGIC))
    w("| supply | USB %.1f V, %d mA |" % (pw["supply_v"], supply))
    w("")
    w("## LED current")
    w("")
    w("| case | mA |")
    w("|---|---|")
    w("| every LED full white, no cap (never sent) | %.0f |" % full_white)
    w("| every LED white at the cap | %.0f |" % capped_white)
    w("| after the firmware budget (`Painter.finish` scales the frame) | <= %d |" % b.budget_ma)
    w("")
    w("The cap alone does not keep a pathological frame inside a 500 mA port (%.0f mA), so" % capped_white)
    w("`bg.leds.Painter.finish()` sums the frame's channel values and scales the whole frame down")
    w("when the estimate exceeds the budget. Frames of the LED language, composed by the real")
    w("painter at the brightest instant of their animations:")
    w("")
    w("| frame | before budget (mA) | sent (mA) |")
    w("|---|---|---|")
    for name, raw, fin in frames(b):
        w("| %s | %d | %d |" % (name, raw, fin))
    w("")
    w("## Whole board, worst case")
    w("")
    w("| consumer | mA |")
    w("|---|---|")
    w("| LEDs at the frame budget | %d |" % b.budget_ma)
    w("| LED quiescent (%d x %.1f mA) | %.0f |" % (n, ld.get("idle_ma_per_led", 1.0), idle))
    w("| ESP32 module peak | %d |" % mcu)
    w("| reed pull-ups, all %d checkers + canary closed | %.1f |" % (2 * pw["checkers_per_side"], pullup_ma))
    w("| 74HC165 chain | %.1f |" % hc165)
    w("| **total** | **%.0f** |" % total)
    w("| supply | %d |" % supply)
    w("| **margin** | **%.0f (%.0f %%)** |" % (supply - total, 100.0 * (supply - total) / supply))
    w("")
    verdict = "fits" if total <= supply else "DOES NOT FIT"
    w("Verdict: the board %s a %d mA USB port with the budget above." % (verdict, supply))
    w("")
    w("A bigger supply does not raise the budget by itself: the PTC fuse holds 750 mA, which leaves")
    w(
        "%.0f mA of LED current, and the strips' supply ring drops more at every step (below). Brightness"
        % (750 - others)
    )
    w("is a comfort setting, the budget is the safety setting: change `leds.budget_ma` only")
    w("together with the supply, the fuse, the LED rail's limit and the droop figures below.")
    w("")
    w("The budget is kept by the firmware; the hardware keeps a limit of its own: the LED rail")
    w("(every LED, the level shifter, the chain cables' 5 V) comes through a current-limited")
    w("switch (Silergy SY6280AAC, I_lim = 6800 A*ohm / R_ISET; 15 k: 453 mA, 340..567 mA over")
    w("its +-25 % spread). At its lowest it still gives the budget with the quiescent current")
    w("(302 mA); at its highest it stays under what the fuse leaves the LEDs (607 mA), so a")
    w("frame the budget missed (3.2 A asked) or a shorted cable stops at the switch, not at the")
    w("fuse, and the ESP32 keeps its supply (`tools/hardware/ledlimit.py`, ngspice; hardware/README.md).")
    w("")
    w("The LED 5 V rail has a 1000 uF electrolytic at the first LED (inrush of the chain, per the")
    w("WS2812B application note) and a 100 nF ceramic per LED on the strip PCBs.")
    if droop:
        w("")
        w("## LED supply droop (ngspice)")
        w("")
        w("`tools/hardware/droop.py`: the 5 V rail and its ground from the centre board through every")
        w("strip's power lane, connector contacts and cable, back to the centre (a ring fed from both")
        w("ends), solved by ngspice; the figure is 5 V minus VDD - VSS at the worst strip LED.")
        w("")
        w("| load | LED mA (strips) | worst LED | droop rev A (0.25 mm lanes) | droop rev B |")
        w("|---|---|---|---|---|")
        for name, what in (
            ("budget", "the budget, all on the strip LEDs"),
            ("full", "every strip LED full white"),
        ):
            a, r = droop["rev A"][name], droop["rev B"][name]
            w(
                "| %s | %d | %s | %.2f V | %.2f V |"
                % (what, r["ma_total"], r["worst_led"], a["droop_v"], r["droop_v"])
            )
        w("")
        w(
            "Rev B's supply lanes are %.1f mm wide (5 V, GND): at the budget the worst LED gets"
            % droop["track_mm"]
        )
        w("%.2f V (at most 0.25 V of droop is the rule)." % (5.0 - droop["rev B"]["budget"]["droop_v"]))
    if desc.get("battery"):
        w("")
        lines.extend(render_battery(desc, b))
    return "\n".join(lines) + "\n"


def droop_figures(desc):
    """``tools/hardware/droop.py``'s figures for both revisions (needs ngspice)."""
    from tools.hardware import droop, footprints

    width = footprints.POWER_TRACK["5V"]
    return {
        "rev A": droop.figures(desc, droop.REV_A_TRACK),
        "rev B": droop.figures(desc, width),
        "track_mm": width,
    }


def main(argv):
    desc = json.loads(BOARD.read_text())
    text = render(desc, droop_figures(desc))
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print("hardware/power.md is stale: run python -m tools.power_budget")
            return 1
        print("hardware/power.md is up to date")
        return 0
    OUT.write_text(text)
    print("wrote", OUT.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
