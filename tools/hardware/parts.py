"""What is ordered for each part value, and what the part is inside, from its datasheet.

``ORDER[value] = (manufacturer part, LCSC part number, source)``: the BOM (``fab.py``) and the
checks below read the same line, so the part the checks model is the part a maker buys. The
manufacturer part is the one the part's datasheet orders; the LCSC number is the one LCSC lists
for exactly that manufacturer part, as public JLCPCB assembly BOMs pair them (``source`` says
which). Where that pairing could not be confirmed the number is left empty and ``source`` says
why: a maker looks the part up by its manufacturer number before ordering (hardware/bom.md).

``network(mpn)``: the resistors inside a resistor network, from its order code: ``[(pin,
pin)]``. A UNI-ROYAL chip array (``4D03`` 0603 x 4, ``2D03`` x 2; the datasheet's equivalent
circuit): isolated, pin n to the pin across the chip. A Bourns 4800P thick-film network (``48
16 P - c - 103``: ``c`` = 1 isolated, 2 bussed; datasheet "How to Order" and its schematics):
isolated, 8 resistors, pin n to pin 17 - n; bussed, 15 resistors, pins 1..15 each to the
common pin 16.
"""

import re

_BOMS = "LCSC's number for this MPN as public JLCPCB assembly BOMs list it"
_ONE = "LCSC's number for this MPN as one public JLCPCB assembly BOM lists it"
_UNSURE = "unconfirmed: "
_SH = (
    "JST SM12B-SRSS-TB",
    "C160411",
    "LCSC's number for this MPN as one public parts library gives it (BerkeleyHCI/"
    "PolymorphicBlocks, edg/parts/connector/Jst.py at 3fc9d5d2, JstShSmHorizontal: 12 pins, "
    "C160411, footprint JST_SH_SM12B-SRSS-TB, MPN SM12B-SRSS-TB; its 2- and 10-way numbers "
    "C160402 and C160409 are the ones other public lists give for SM02B and SM10B)",
)
ORDER = {
    "74HC165": ("Nexperia 74HC165D,653", "C5613", _BOMS),
    # two per register (design._register): no public source pairs a bussed 16-pin network
    # (Bourns 4816P-2 / -T02, Vishay SOMC16-01, CTS 767-161) with an LCSC number
    "10k x4": (
        "UNI-ROYAL 4D03WGJ0103T5E (4 x 10 k isolated, 0603 x 4 convex)",
        "C29718",
        "LCSC's number for this MPN as public part lists and designs give it (tscircuit/jlcsearch "
        "docs/generated/resistors.md; a public KiCad schematic's datasheet link "
        "Uniroyal-Elec-4D03WGJ0103T5E_C29718.pdf; public JLCPCB part tables with 4x10k on "
        "R_Array_Convex_4x0603)",
    ),
    "100n": ("Yageo CC0603KRX7R9BB104", "C14663", _BOMS),
    "WS2812B": ("Worldsemi WS2812B-B/W", "C114586", _BOMS + " (LCSC's own datasheet link names it)"),
    "74AHCT1G125": ("TI SN74AHCT1G125DBVR", "C7484", _BOMS),
    "74LVC3G17": ("TI SN74LVC3G17DCTR", "C18213", _BOMS),
    "100": ("UNI-ROYAL 0603WAF1000T5E", "C22775", _BOMS),
    "330": ("UNI-ROYAL 0603WAF3300T5E", "C23138", _BOMS),
    "10k": ("UNI-ROYAL 0603WAF1002T5E", "C25804", _BOMS),
    "100k": ("UNI-ROYAL 0603WAF1003T5E", "C25803", _BOMS),
    "3.09k": ("UNI-ROYAL 0603WAF3091T5E", "C22992", _ONE),
    # the charger's ISET (890 mA): two public part lists pair the two (schollz/jlcpcb-resistors
    # resistors.json, JLCPCB's part page C21190 for 0603WAF1001T5E; tscircuit/jlcsearch
    # docs/generated/resistors.md)
    "1k": ("UNI-ROYAL 0603WAF1001T5E", "C21190", _BOMS),
    # an EasyEDA part import (tscircuit) carries LCSC's own pairing of the two
    "732k": (
        "UNI-ROYAL 0603WAF7323T5E",
        "C23239",
        "LCSC's number for this MPN as one public design's EasyEDA part import gives it "
        "(Abse2001/g350-linux-handheld, imports/A_0603WAF7323T5E.tsx)",
    ),
    "4u7": ("Samsung CL10A475KO8NNNC (4.7 uF X5R 0603 16 V)", "C19666", _BOMS),
    "22u": ("Samsung CL10A226MQ8NRNC (22 uF X5R 0603 6.3 V)", "C59461", _BOMS),
    "PTC 750mA": ("Littelfuse 1206L075/16WR", "C371166", _BOMS + " (LCSC's datasheet link names it)"),
    "B5819W": ("CJ B5819W SL (40 V 1 A Schottky, SOD-123)", "C8598", _BOMS),
    "SMF5.0A": ("MDD SMF5.0A (the Littelfuse SMF5.0A's ratings, SOD-123FL)", "C193402", _BOMS),
    "PESD5V0S1BA": (
        "Nexperia PESD5V0S1BA,115",
        "C19224",
        _BOMS + " (three of them, one with LCSC's part page as Nexperia's; one other BOM gives C88660)",
    ),
    "chain IN": _SH,
    "chain OUT": _SH,
    "chain CHAIN": _SH,
    "chain RETURN": _SH,
    # the battery option (board.json "battery"; hardware/bom.md)
    "battery 1S Li-ion": ("JST S2B-PH-K-S", "", "through-hole, hand-soldered"),
    "power on/off": ("C&K OS102011MS2QN1 (SPDT slide)", "", "through-hole, hand-soldered"),
    # the LED rail's current limit (design.LED_SWITCH) and its ISET resistor
    "SY6280AAC": ("Silergy SY6280AAC", "C55136", _BOMS),
    "15k": ("UNI-ROYAL 0603WAF1502T5E", "C22809", _BOMS),
    "BQ24074": ("TI BQ24074RGTR", "C54313", _ONE),
    "TPS61023": ("TI TPS61023DRLR", "C919459", _BOMS),
    # the boost's inductor: ``BOOST_INDUCTOR`` below says why this one
    "1u": (
        "Coilcraft XFL4020-102MEC (1.0 uH, Isat 5.4 A, 4 x 4 x 2.1 mm)",
        "C5355380",
        "LCSC's number for this MPN as one public design's EasyEDA part import gives it "
        "(a tscircuit buck design's inductor, jlcpcb C5355380 with MPN XFL4020-102MEC)",
    ),
}


def network(mpn):
    """The resistors inside a UNI-ROYAL chip array or a Bourns 48xxP network, ``[(pin, pin)]``."""
    m = re.search(r"\b([24])D0[23]\w*", mpn)
    if m is not None:  # n isolated resistors straight across the chip
        n = int(m.group(1))
        return [(k, 2 * n + 1 - k) for k in range(1, n + 1)]
    m = re.search(r"48(\d\d)P-(\d)-\d{3}", mpn)
    if m is None:
        raise ValueError("not a UNI-ROYAL array's or a Bourns 4800P's order code: %s" % mpn)
    pins, circuit = int(m.group(1)), int(m.group(2))
    if circuit in (1, 4):  # isolated: each resistor across the package
        return [(n, pins + 1 - n) for n in range(1, pins // 2 + 1)]
    if circuit == 2:  # bussed: the last pin is common
        return [(n, pins) for n in range(1, pins)]
    raise ValueError("Bourns circuit %d (%s) is not modelled" % (circuit, mpn))
