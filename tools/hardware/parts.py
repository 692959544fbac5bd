"""What is ordered for each part value, and what the part is inside, from its datasheet.

``ORDER[value] = (manufacturer part, LCSC part number)``: the BOM (``fab.py``) and the checks
below read the same line, so the part the checks model is the part a maker buys.

``network(mpn)``: the resistors inside a Bourns 4800P thick-film network, from its order code
(``48 16 P - c - 103``: ``c`` = 1 isolated, 2 bussed; datasheet "How to Order" and its
schematics): ``[(pin, pin)]``. Isolated: 8 resistors, pin n to pin 17 - n. Bussed: 15
resistors, pins 1..15 each to the common pin 16.
"""

import re

ORDER = {
    "74HC165": ("Nexperia 74HC165D,653", ""),
    "10k x15 bussed": ("Bourns 4816P-2-103LF", ""),
    "100n": ("generic 100nF X7R 0603", "C14663"),
    "WS2812B": ("Worldsemi WS2812B-B/T", ""),
    "74AHCT1G125": ("TI SN74AHCT1G125DBVR", ""),
    "74LVC3G17": ("TI SN74LVC3G17DCTR", ""),
    "100": ("generic 100R 0603", ""),
    "330": ("generic 330R 0603", "C23138"),
    "10k": ("generic 10k 0603", "C25804"),
    "PTC 750mA": ("Littelfuse 1206L075", ""),
    "B5819W": ("Schottky 40 V 1 A SOD-123, B5819W", ""),
    "SMF5.0A": ("Littelfuse SMF5.0A", ""),
    "PESD5V0S1BA": ("Nexperia PESD5V0S1BA", ""),
    "chain IN": ("JST SM12B-SRSS-TB", ""),
    "chain OUT": ("JST SM12B-SRSS-TB", ""),
    "chain CHAIN": ("JST SM12B-SRSS-TB", ""),
    "chain RETURN": ("JST SM12B-SRSS-TB", ""),
    # the battery option (board.json "battery"; hardware/bom.md)
    "battery 1S Li-ion": ("JST S3B-PH-K-S", ""),
    "BQ24074": ("TI BQ24074RGTR", ""),
    "TPS61023": ("TI TPS61023DRLR", ""),
    "1u": ("1 uH 4 x 4 mm shielded inductor, Isat >= 4 A", ""),
    "4u7": ("generic 4.7uF X5R 0603 10 V", ""),
    "22u": ("generic 22uF X5R 0603 10 V", ""),
    "100k": ("generic 100k 1% 0603", ""),
    "732k": ("generic 732k 1% 0603", ""),
}


def network(mpn):
    """The resistors inside a Bourns 48xxP network, ``[(pin, pin)]``."""
    m = re.search(r"48(\d\d)P-(\d)-\d{3}", mpn)
    if m is None:
        raise ValueError("not a Bourns 4800P order code: %s" % mpn)
    pins, circuit = int(m.group(1)), int(m.group(2))
    if circuit in (1, 4):  # isolated: each resistor across the package
        return [(n, pins + 1 - n) for n in range(1, pins // 2 + 1)]
    if circuit == 2:  # bussed: the last pin is common
        return [(n, pins) for n in range(1, pins)]
    raise ValueError("Bourns circuit %d (%s) is not modelled" % (circuit, mpn))
