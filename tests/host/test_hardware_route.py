"""tools/hardware/route.py, the centre board's grid router, on small boards built to break it:
every track it draws is measured here against every other net's copper with the exact
geometry (not the router's grid), and a pad it cannot reach is reported, never faked.
KiCad's DRC checks the real board (test_hardware_pcb.py)."""

import math

import numpy as np
import pytest

from tools.hardware import route
from tools.hardware.route import CLEARANCE, VIA_D, VIA_DRILL, Pad, Router


def _width(net):
    return {"PWR": 1.0}.get(net, 0.25)


def _copper(r):
    """[(net, layer, kind, geometry)] of every pad, track and via on the router's board."""
    out = []
    for p in r.pads:
        for layer in p.layers:
            out.append((p.net, layer, "pad", p))
    for net, (segs, vias) in list(r.routes.items()) + list(r.fixed.items()):
        for x1, y1, x2, y2, layer, w in segs:
            out.append((net, layer, "seg", (x1, y1, x2, y2, w)))
        for x, y in vias:
            for layer in (0, 1):
                out.append((net, layer, "via", (x, y)))
    return out


def _gap(a, b):
    """Exact copper-to-copper distance between a track and another item (mm): the track
    sampled every 5 um, the other item's distance exact."""
    x1, y1, x2, y2, w = a
    n = max(2, int(math.hypot(x2 - x1, y2 - y1) / 0.005) + 1)
    t = np.linspace(0, 1, n)
    X, Y = x1 + t * (x2 - x1), y1 + t * (y2 - y1)
    kind, g = b
    if kind == "pad":
        d = g.distance(X, Y)
    elif kind == "via":
        d = np.hypot(X - g[0], Y - g[1]) - VIA_D / 2
    else:
        d = route._seg_distance(X, Y, *g[:4]) - g[4] / 2
    return float(d.min()) - w / 2


def violations(r):
    """Every pair of different nets' copper closer than the clearance on one layer, every
    two vias whose holes are closer than the hole gap, every track off the board."""
    items = _copper(r)
    bad = []
    for net, layer, kind, g in items:
        if kind != "seg":
            continue
        x1, y1, x2, y2, w = g
        for x, y in ((x1, y1), (x2, y2)):
            if not (route.EDGE <= x <= r.W - route.EDGE and route.EDGE <= y <= r.H - route.EDGE):
                bad.append(("edge", net, g))
        for net2, layer2, kind2, g2 in items:
            if layer2 != layer or net2 == net:
                continue
            if _gap(g, (kind2, g2)) < CLEARANCE - 1e-6:
                bad.append((net, net2, g, g2))
    vias = [(n, g) for n, layer, k, g in items if k == "via" and layer == 0]
    for i, (n1, a) in enumerate(vias):
        for n2, b in vias[i + 1 :]:
            if math.hypot(a[0] - b[0], a[1] - b[1]) - VIA_DRILL < route.HOLE_GAP - 1e-6:
                bad.append(("holes", n1, n2, a, b))
    return bad


def _touches(seg_end, pad):
    x, y = seg_end
    return abs(x - pad.x) <= pad.w / 2 and abs(y - pad.y) <= pad.h / 2


def connected(r, net):
    """The net's pads joined by its tracks and vias (ends inside pads, ends meeting)."""
    segs, vias = r.routes.get(net, ([], []))
    pads = [p for p in r.pads if p.net == net]
    nodes = [("p", i) for i in range(len(pads))] + [("s", i) for i in range(len(segs))]
    parent = {n: n for n in nodes}

    def find(n):
        while parent[n] != n:
            n = parent[n]
        return n

    def join(a, b):
        parent[find(a)] = find(b)

    ends = {}
    for i, (x1, y1, x2, y2, layer, _w) in enumerate(segs):
        for e in ((x1, y1), (x2, y2)):
            for k, p in enumerate(pads):
                if layer in p.layers and _touches(e, p):
                    join(("s", i), ("p", k))
            key = (round(e[0], 4), round(e[1], 4))
            ends.setdefault(key, []).append((layer, ("s", i)))
    via_at = {(round(x, 4), round(y, 4)) for x, y in vias}
    for key, items in ends.items():
        for layer, n in items:
            for layer2, m in items:
                if layer == layer2 or key in via_at:
                    join(n, m)
    return len({find(("p", k)) for k in range(len(pads))}) == 1


def _two_pads_and_a_wall(gap):
    """A and B on either side of a row of netless pads across the board, with a ``gap``
    (mm) in the middle of the row."""
    pads = [Pad(3, 10, 1, 1, (0,), "A", key="A1"), Pad(17, 10, 1, 1, (0,), "A", key="A2")]
    y = 0.0
    while y < 20:
        if not gap or not (10 - gap / 2 < y + 0.6 and y - 0.6 < 10 + gap / 2):
            pads.append(Pad(10, y + 0.5, 1.2, 1.2, (0, 1), "", key="W%g" % y))
        y += 1.2
    return pads


def test_a_net_goes_round_or_under_a_wall_and_clears_everything_exactly():
    r = Router(20, 20, _two_pads_and_a_wall(gap=2.0), _width)
    assert r.route(["A"]) == []
    assert connected(r, "A")
    assert violations(r) == []


def test_a_wall_on_both_layers_with_no_gap_leaves_the_net_unrouted_and_says_so():
    r = Router(20, 20, _two_pads_and_a_wall(gap=0.0), _width)
    assert r.route(["A"]) == ["A"]
    assert "A" not in r.routes


def test_two_crossing_nets_change_layer_and_keep_their_clearance():
    pads = [
        Pad(2, 10, 1, 1, (0,), "A", key="A1"),
        Pad(18, 10, 1, 1, (0,), "A", key="A2"),
        Pad(10, 2, 1, 1, (0,), "B", key="B1"),
        Pad(10, 18, 1, 1, (0,), "B", key="B2"),
    ]
    r = Router(20, 20, pads, _width)
    assert r.route(["A", "B"]) == []
    assert connected(r, "A") and connected(r, "B")
    assert sum(len(v) for _, v in r.routes.values()) >= 2  # a via down and one up
    assert violations(r) == []


def test_pads_at_fine_pitch_get_their_own_tracks_and_a_supply_narrows_at_its_pin():
    # a 1 mm-pitch header: PWR (1 mm wide) on the middle pin, signals either side; a 0.5 mm
    # QFN-like row; every pin to a pad on the far side of the board
    pads, nets = [], []
    for k, net in enumerate(("S1", "PWR", "S2")):
        pads.append(Pad(9 + k, 3, 0.6, 1.55, (0,), net, key="J.%d" % k))
        pads.append(Pad(4 + 6 * k, 17, 1.5, 1.5, (0,), net, key="P.%d" % k))
        nets.append(net)
    for k in range(4):
        net = "Q%d" % k
        pads.append(Pad(14 + 0.5 * k, 8, 0.25, 0.8, (0,), net, key="U.%d" % k))
        pads.append(Pad(3 + 4 * k, 12, 1, 1, (0,), net, key="R.%d" % k))
        nets.append(net)
    r = Router(22, 20, pads, _width)
    assert r.route(nets) == []
    assert all(connected(r, n) for n in nets)
    assert violations(r) == []
    widths = {w for *_, w in r.routes["PWR"][0]}
    assert widths == {0.25, 1.0}  # narrow at the header's pin, its width on the way
    near = [s for s in r.routes["PWR"][0] if s[5] == 1.0]
    assert all(min(s[1], s[3]) > 3 + 0.775 for s in near)  # never wide beside the header


def test_the_same_pads_give_the_same_tracks():
    def once():
        r = Router(20, 20, _two_pads_and_a_wall(gap=2.0), _width)
        r.route(["A"])
        return r.routes

    assert once() == once()


def test_ground_pads_are_stitched_with_vias_clear_of_every_pad():
    pads = [
        Pad(5, 5, 0.8, 0.9, (0,), "G", key="C1.2"),
        Pad(3.45, 5, 0.8, 0.9, (0,), "S", key="C1.1"),
        Pad(10, 10, 1.6, 1.6, (0,), "G", key="U1.17"),  # an exposed pad and its pins
        *[
            Pad(10 - 0.75 + 0.5 * i, 11.45, 0.25, 0.8, (0,), "G" if i == 1 else "N%d" % i, key="U1.%d" % i)
            for i in range(4)
        ],
        *[
            Pad(10 - 0.75 + 0.5 * i, 8.55, 0.25, 0.8, (0,), "N%d" % (4 + i), key="U1.%d" % (4 + i))
            for i in range(4)
        ],
        *[
            Pad(8.55, 10 - 0.75 + 0.5 * i, 0.8, 0.25, (0,), "N%d" % (8 + i), key="U1.%d" % (8 + i))
            for i in range(4)
        ],
        *[
            Pad(11.45, 10 - 0.75 + 0.5 * i, 0.8, 0.25, (0,), "N%d" % (12 + i), key="U1.%d" % (12 + i))
            for i in range(4)
        ],
    ]
    for p in pads:
        p.part_xy = (10, 10) if p.key.startswith("U1") else (4.225, 5)
    r = Router(20, 20, pads, _width)
    r.join_exposed("G")
    assert r.stitch("G") == []
    segs, vias = r.fixed["G"]
    assert "U1.1" in r.joined and vias
    r.routes["G"] = r.fixed.pop("G")
    assert violations(r) == []
    for x, y in vias:  # never in or beside a pad
        for p in pads:
            assert p.distance(np.array([x]), np.array([y]))[0] - VIA_D / 2 >= CLEARANCE - 1e-6, (x, y, p.key)


def test_the_checker_here_catches_a_track_too_close():
    # the measuring stick above must be able to fail: a track 0.1 mm from a foreign pad
    r = Router(20, 20, _two_pads_and_a_wall(gap=2.0), _width)
    r.routes["A"] = ([(3, 1.7, 9.4 - 0.1 - 0.125, 1.7, 0, 0.25)], [])
    assert violations(r)
    assert not connected(r, "A")


@pytest.mark.parametrize("size", [(0.2, 0.2), (0.1, 0.5)])
def test_a_pad_too_small_for_the_grid_is_an_error_not_a_silent_skip(size):
    pads = [Pad(5.1, 5.1, size[0], size[1], (0,), "A", key="A1"), Pad(15, 5, 1, 1, (0,), "A", key="A2")]
    r = Router(20, 10, pads, _width)
    with pytest.raises(ValueError, match="holds no grid point"):
        r.route(["A"])


def test_a_path_never_changes_layer_twice_within_a_hole_gap():
    # the search's own path: a via at (0, 10, 10), then B.Cu steps; a second via within
    # VIA_DRILL + HOLE_GAP of the first (holes closer than KiCad's hole-to-hole rule) is
    # refused, one further on allowed, and a path without a via is never held back
    reach = (VIA_DRILL + route.HOLE_GAP) / route.PITCH
    came = {(0, 10, 10): None, (1, 10, 10): (0, 10, 10), (1, 10, 11): (1, 10, 10), (1, 10, 12): (1, 10, 11)}
    came[(1, 10, 13)] = (1, 10, 12)
    assert route._via_near(came, (1, 10, 11)) and route._via_near(came, (1, 10, 12))
    assert 2 < reach < 3 and not route._via_near(came, (1, 10, 13))
    flat = {(0, 5, 5): None, (0, 5, 6): (0, 5, 5)}
    assert not route._via_near(flat, (0, 5, 6))


def test_every_track_end_in_a_pad_reaches_its_centre_and_tracks_meet_end_to_end():
    # KiCad calls a track that ends inside a pad off its centre, or on another track's
    # middle, dangling: every pad of a three-pad net has a track end at its centre (pads off
    # the grid), and every end of a track not in a pad is another track's end or a via
    pads = [
        Pad(2.1, 2.1, 1.2, 1.2, (0,), "A", key="A1"),
        Pad(17.9, 3.1, 1.2, 1.2, (0,), "A", key="A2"),
        Pad(10.1, 17.9, 1.2, 1.2, (0,), "A", key="A3"),
    ]
    r = Router(20, 20, pads, _width)
    assert r.route(["A"]) == []
    segs, vias = r.routes["A"]
    ends = [
        (round(x, 6), round(y, 6), layer)
        for x1, y1, x2, y2, layer, _ in segs
        for x, y in ((x1, y1), (x2, y2))
    ]
    for p in pads:
        assert (round(p.x, 6), round(p.y, 6), 0) in ends, p.key
    at_vias = {(round(x, 6), round(y, 6)) for x, y in vias}
    for x, y, layer in ends:
        if any(abs(x - p.x) <= p.w / 2 and abs(y - p.y) <= p.h / 2 for p in pads):
            continue
        assert ends.count((x, y, layer)) >= 2 or (x, y) in at_vias, (x, y, layer)
    assert violations(r) == []
