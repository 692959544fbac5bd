"""A two-layer grid router (Lee / A* maze routing with rip-up and retry) for the centre board.

Debian's KiCad 6 has no autorouter, so ``pcb.py`` routes the centre board with this. No pcbnew
here: pads in, tracks and vias out, so it runs (and is tested) under any Python with numpy.

The board is a grid (``PITCH``) on two layers (0 = F.Cu, 1 = B.Cu). A track's centre line runs
from grid point to grid point, in 45-degree steps; a via joins the layers at a grid point. For
every clearance radius in use (each track half-width plus the clearance, the via's radius plus
the clearance) each layer keeps an ``owner`` map: 0 where no copper lies within that radius,
the net's number where only that net's copper does, -1 where two nets' (or a netless pad's)
copper does. A point is free for a net when its map reads 0 or the net. The maps are drawn at
the radius inflated for the step's length (``Router.__init__``): a step whose two ends are
free keeps the clearance all along it, so the grid check is the DRC's, not an estimate.

Nets are routed shortest first (the wide supplies before them: they need the room), each as a
tree: its pads joined in the order of their minimum spanning tree, each pad by a weighted A*
search to any point already on the tree. A pad the search cannot reach is routed again
through the other nets' copper at a high cost; the nets it crossed are ripped up and queued
again, and the points fought over cost more each time (negotiated congestion), so two nets
do not take turns for ever. A supply narrows to a signal's width within ``NECK`` of its own
pads (a 1 mm track cannot reach a 1 mm-pitch connector pin). Ground is left to the pours:
each ground pad gets a short track to a via of its own (a package's exposed pad joined to its
ground pins first), and ground tracks tie the pads where the other tracks cut the pours.
"""

import hashlib
import heapq
import math
from pathlib import Path

import numpy as np

# what a routed board depends on besides board.json: the generator that places and routes it
GENERATOR = ("design.py", "footprints.py", "parts.py", "pcb.py", "reed.py", "route.py")


def routes_key(board_json_text):
    """The key of a board's cached routes (``pcb.py``: the tray strip's routing takes minutes,
    so ``make hardware`` keeps its result): board.json and the generator's sources hashed. A
    cache whose key differs is stale (tests/host/test_hardware_pcb.py)."""
    h = hashlib.sha256(board_json_text.encode())
    here = Path(__file__).resolve().parent
    for name in GENERATOR:
        h.update(name.encode() + b"\0" + (here / name).read_bytes())
    return h.hexdigest()


PITCH = 0.25
CLEARANCE = 0.2
SLACK = 0.01  # rounding margin on every clearance: KiCad's nanometres against our floats
EDGE = 0.5  # copper to board edge (the pours' own inset)
VIA_D, VIA_DRILL, HOLE_GAP = 0.6, 0.3, 0.25
NECK = 1.6
STEP_COST, VIA_COST, FOREIGN_COST, HISTORY_COST = 1.0, 12.0, 400.0, 30.0
WINDOWS = (6.0, 24.0)  # search margins (mm): near first, then wider (soft: then everything)
ESCAPE_COST, ESCAPE_SIDE, ESCAPE_LEN = 25.0, 0.6, 1.5
GREED = 1.5  # weighted A*: paths at most this much longer than the shortest, found far faster
DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]


def _via_near(came, s, reach=(VIA_DRILL + HOLE_GAP + SLACK) / PITCH):
    """Whether the path the search has made to ``s`` changed layer within a hole gap of
    ``s`` (grid steps): a via there would stand too near that one (the maps keep other
    nets' vias and this net's earlier branches away, not the path's own)."""
    a = s
    for _ in range(math.ceil(reach) + 1):
        b = came.get(a)
        if b is None:
            return False
        if b[0] != a[0] and math.hypot(b[1] - s[1], b[2] - s[2]) < reach:
            return True
        a = b
    return False


class Pad:
    """One copper pad: centre, size, ``round`` (a circle of diameter w), layers (0, 1 or
    both), net ("" for a mechanical pad: every net keeps clear of it), drill (0 for SMD)."""

    def __init__(self, x, y, w, h, layers, net, drill=0.0, round_=False, key=None, part_xy=None):
        self.x, self.y, self.w, self.h = x, y, w, h
        self.part_xy = part_xy  # the centre of its part: a stitch leaves the part outwards
        self.layers, self.net, self.drill, self.round = tuple(layers), net, drill, round_
        self.key = key

    def distance(self, X, Y):
        if self.round:
            return np.hypot(X - self.x, Y - self.y) - self.w / 2
        dx = np.maximum(np.abs(X - self.x) - self.w / 2, 0)
        dy = np.maximum(np.abs(Y - self.y) - self.h / 2, 0)
        return np.hypot(dx, dy)

    def bbox(self):
        return self.x - self.w / 2, self.y - self.h / 2, self.x + self.w / 2, self.y + self.h / 2


def _seg_distance(X, Y, x1, y1, x2, y2):
    vx, vy = x2 - x1, y2 - y1
    n = vx * vx + vy * vy
    if n == 0:
        return np.hypot(X - x1, Y - y1)
    t = np.clip(((X - x1) * vx + (Y - y1) * vy) / n, 0, 1)
    return np.hypot(X - (x1 + t * vx), Y - (y1 + t * vy))


def _exposed(pad):
    # an SMD pad wider than 1.5 mm both ways is a package's exposed pad, boxed in by its pins
    return not pad.drill and pad.w > 1.5 and pad.h > 1.5


class Router:
    def __init__(self, width, height, pads, track_width, signal=0.25):
        """``track_width(net)``: the net's width in mm; within NECK of its pads a net runs at
        ``signal``."""
        self.W, self.H = width, height
        self.nx, self.ny = int(round(width / PITCH)) + 1, int(round(height / PITCH)) + 1
        self.pads = pads
        self.signal = signal
        self.width = track_width
        nets = sorted({p.net for p in pads if p.net})
        self.code = {n: i + 1 for i, n in enumerate(nets)}
        widths = sorted({signal} | {track_width(n) for n in nets})
        # clearance radii: two per track width, one for a via. A step between two grid points
        # each at least sqrt(r^2 + (step/2)^2) from a shape keeps r from it all along the
        # step (the parallelogram law at the shape's nearest point): the map at 2c serves
        # straight steps of class c, 2c + 1 diagonal ones
        self.radii = []
        for w in widths:
            r = w / 2 + CLEARANCE + SLACK
            self.radii += [math.sqrt(r * r + PITCH * PITCH / 4), math.sqrt(r * r + PITCH * PITCH / 2)]
        self.radii.append(VIA_D / 2 + CLEARANCE + SLACK)
        self.wclass = {w: i for i, w in enumerate(widths)}
        # a ground pad's track to its via: short, at most a supply's half width
        self.stitching, self.stitch_width = False, widths[len(widths) // 2]
        self.via_class = len(self.radii) - 1
        self.X, self.Y = np.meshgrid(np.arange(self.nx) * PITCH, np.arange(self.ny) * PITCH)
        self.routes = {}  # net -> ([(x1, y1, x2, y2, layer, width)], [(x, y)])
        self.fixed = {}  # the same, for copper no rip-up may move (the ground stitches)
        self.joined = set()  # pads joined to their package's exposed pad
        # negotiated congestion (PathFinder): points two nets fought over cost more each time
        self.history = {}
        self._static()

    # --- the owner maps -------------------------------------------------------------------
    def _static(self):
        shape = (len(self.radii), 2, self.ny, self.nx)
        self.base = np.zeros(shape, dtype=np.int32)
        for k, r in enumerate(self.radii):  # the board's edge
            out = (self.X < EDGE + r - CLEARANCE) | (self.X > self.W - EDGE - r + CLEARANCE)
            out |= (self.Y < EDGE + r - CLEARANCE) | (self.Y > self.H - EDGE - r + CLEARANCE)
            self.base[k, :, out] = -1
        # where no via may go: near any pad (no via in or beside a pad, whatever its net) and
        # near any hole (hole to hole)
        self.novia = np.zeros((self.ny, self.nx), dtype=bool)
        for p in self.pads:
            code = self.code.get(p.net, -1)
            for k, r in enumerate(self.radii):
                for layer in p.layers:
                    self._mark(self.base[k, layer], p.bbox(), r, p.distance, code)
            self._mark_bool(self.novia, p.bbox(), VIA_D / 2 + CLEARANCE + SLACK, p.distance)
            if p.drill:
                hole = Pad(p.x, p.y, p.drill, p.drill, (), "", round_=True)
                self._mark_bool(self.novia, hole.bbox(), VIA_DRILL / 2 + HOLE_GAP + SLACK, hole.distance)
        self.own = self.base.copy()
        self.holes = self.novia.copy()

    def _window(self, box, r):
        x0, y0, x1, y1 = box
        i0 = max(int(math.floor((x0 - r) / PITCH)), 0)
        i1 = min(int(math.ceil((x1 + r) / PITCH)) + 1, self.nx)
        j0 = max(int(math.floor((y0 - r) / PITCH)), 0)
        j1 = min(int(math.ceil((y1 + r) / PITCH)) + 1, self.ny)
        return slice(j0, j1), slice(i0, i1)

    def _mark(self, grid, box, r, dist, code):
        sl = self._window(box, r)
        near = dist(self.X[sl], self.Y[sl]) < r
        cur = grid[sl]
        grid[sl] = np.where(near, np.where((cur == 0) | (cur == code), code, -1), cur)

    def _mark_bool(self, grid, box, r, dist):
        sl = self._window(box, r)
        grid[sl] |= dist(self.X[sl], self.Y[sl]) < r

    def _add_copper(self, net, segs, vias, fixed=False):
        """Mark the copper in the current maps (and, ``fixed``, in the base maps a rip-up
        rebuilds from)."""
        if fixed:
            own, holes = self.own, self.holes
            self.own, self.holes = self.base, self.novia
            self._add_copper(net, segs, vias)
            self.own, self.holes = own, holes
        code = self.code[net]
        for x1, y1, x2, y2, layer, w in segs:
            h = w / 2
            box = (min(x1, x2) - h, min(y1, y2) - h, max(x1, x2) + h, max(y1, y2) + h)

            def dist(X, Y, a=(x1, y1, x2, y2), h=h):
                return _seg_distance(X, Y, *a) - h

            for k, r in enumerate(self.radii):
                self._mark(self.own[k, layer], box, r, dist, code)
        for x, y in vias:
            via = Pad(x, y, VIA_D, VIA_D, (0, 1), net, round_=True)
            for k, r in enumerate(self.radii):
                for layer in (0, 1):
                    self._mark(self.own[k, layer], via.bbox(), r, via.distance, code)
            hole = Pad(x, y, VIA_DRILL, VIA_DRILL, (), "", round_=True)
            self._mark_bool(self.holes, hole.bbox(), VIA_DRILL / 2 + HOLE_GAP + SLACK, hole.distance)

    def _rebuild(self):
        self.own = self.base.copy()
        self.holes = self.novia.copy()
        for net in sorted(self.routes):
            self._add_copper(net, *self.routes[net])

    # --- one net --------------------------------------------------------------------------
    def _escapes(self, net):
        """The way out of every other net's pad (ESCAPE_LEN outwards from its part, the pad's
        width and ESCAPE_SIDE either side), costly for ``net``: a stitch routed first keeps
        its track and via off them."""
        cost = {}
        for p in self.pads:
            if p.net in ("", net) or not p.part_xy:
                continue
            dx, dy = p.x - p.part_xy[0], p.y - p.part_xy[1]
            if abs(dx) < 0.1 and abs(dy) < 0.1:
                continue
            x0, y0, x1, y1 = p.bbox()
            if abs(dx) >= abs(dy):
                x0, x1 = (x1, x1 + ESCAPE_LEN) if dx > 0 else (x0 - ESCAPE_LEN, x0)
                y0, y1 = y0 - ESCAPE_SIDE, y1 + ESCAPE_SIDE
            else:
                y0, y1 = (y1, y1 + ESCAPE_LEN) if dy > 0 else (y0 - ESCAPE_LEN, y0)
                x0, x1 = x0 - ESCAPE_SIDE, x1 + ESCAPE_SIDE
            sl = self._window((x0, y0, x1, y1), 0)
            for j in range(sl[0].start, sl[0].stop):
                for i in range(sl[1].start, sl[1].stop):
                    if x0 <= i * PITCH <= x1 and y0 <= j * PITCH <= y1:
                        for layer in p.layers:
                            cost[(layer, j, i)] = ESCAPE_COST
        return cost

    def _outwards(self, p):
        """A grid point 2 mm out from the pad, away from its part's centre (the pad itself
        for a pad at the centre): a stitch steered there leaves its neighbours' way free."""
        dx, dy = (p.x - p.part_xy[0], p.y - p.part_xy[1]) if p.part_xy else (0.0, 0.0)
        n = math.hypot(dx, dy)
        if n < 0.1:
            return self._cell(p.x, p.y)
        return self._cell(p.x + 2.0 * dx / n, p.y + 2.0 * dy / n)

    def _width(self, net):
        return self.stitch_width if self.stitching else self.width(net)

    def _cell(self, x, y):
        return int(round(y / PITCH)), int(round(x / PITCH))

    def _access(self, pad):
        """Grid points inside the pad (a track ending there touches it), per layer."""
        x0, y0, x1, y1 = pad.bbox()
        sl = self._window((x0, y0, x1, y1), 0)
        inside = pad.distance(self.X[sl], self.Y[sl]) <= 0
        inside &= np.abs(self.X[sl] - pad.x) <= pad.w / 2 - 0.02
        inside &= np.abs(self.Y[sl] - pad.y) <= pad.h / 2 - 0.02
        js, is_ = np.nonzero(inside)
        out = []
        for layer in pad.layers:
            for j, i in zip(js + sl[0].start, is_ + sl[1].start):
                out.append((layer, int(j), int(i)))
        if not out:
            raise ValueError("pad %s (%.2f x %.2f mm) holds no grid point" % (pad.key, pad.w, pad.h))
        return out

    def _passable(self, net, soft):
        """Per layer, a bytes map of free points for ``net`` (1 free, 2 free but costly)."""
        code = self.code[net]
        wide = self.wclass[self._width(net)]
        narrow = self.wclass[self.signal]
        neck = np.zeros((self.ny, self.nx), dtype=bool)
        if wide != narrow:
            for p in self.pads:
                if p.net == net:
                    self._mark_bool(neck, p.bbox(), NECK, p.distance)
        maps = []
        for layer in (0, 1):
            for mode in (0, 1):  # straight, diagonal steps
                own = np.where(neck, self.own[2 * narrow + mode, layer], self.own[2 * wide + mode, layer])
                free = (own == 0) | (own == code)
                m = free.astype(np.uint8)
                if soft:
                    base = np.where(
                        neck, self.base[2 * narrow + mode, layer], self.base[2 * wide + mode, layer]
                    )
                    m[(~free) & ((base == 0) | (base == code))] = 2
                maps.append(m.ravel().tobytes())
        vown = self.own[self.via_class]
        vfree = ((vown[0] == 0) | (vown[0] == code)) & ((vown[1] == 0) | (vown[1] == code)) & ~self.holes
        vm = vfree.astype(np.uint8)
        if soft:
            vb = self.base[self.via_class]
            ok = ((vb[0] == 0) | (vb[0] == code)) & ((vb[1] == 0) | (vb[1] == code)) & ~self.novia
            vm[(~vfree) & ok] = 2
        return maps, vm.ravel().tobytes(), neck.ravel().tobytes()

    def _search(self, starts, is_target, goal, maps, vias, soft, margin=None):
        """A* from ``starts`` (a set of (layer, j, i)) to any point ``is_target`` accepts;
        ``goal`` (j, i) steers it; within ``margin`` (mm) of the box around the starts and
        the goal (a failing search otherwise scans the whole board: a second with margins
        twice as wide follows). Returns the path as [(layer, j, i)] or None."""
        if margin is None:
            for m in WINDOWS + ((max(self.W, self.H),) if soft else ()):
                path = self._search(starts, is_target, goal, maps, vias, soft, m)
                if path is not None:
                    return path
            return None
        nx = self.nx
        k = int(margin / PITCH)
        js = [s[1] for s in starts] + [goal[0]]
        is_ = [s[2] for s in starts] + [goal[1]]
        lo_j, hi_j = max(min(js) - k, 0), min(max(js) + k, self.ny - 1)
        lo_i, hi_i = max(min(is_) - k, 0), min(max(is_) + k, nx - 1)
        gj, gi = goal
        hist = self.history

        def h(j, i):
            a, b = abs(j - gj), abs(i - gi)
            return GREED * (max(a, b) + 0.414 * min(a, b))

        best = {}
        heap = []
        for s in sorted(starts):
            best[s] = 0.0
            heapq.heappush(heap, (h(s[1], s[2]), 0.0, s, None))
        came = {}
        closed = set()
        while heap:
            _f, g, s, prev = heapq.heappop(heap)
            if s in closed:
                continue
            closed.add(s)
            came[s] = prev
            if is_target(s):
                path = [s]
                while came[path[-1]] is not None:
                    path.append(came[path[-1]])
                return path[::-1]
            layer, j, i = s
            straight, diagonal = maps[2 * layer], maps[2 * layer + 1]
            for dj, di in DIRS:
                jj, ii = j + dj, i + di
                if jj < lo_j or ii < lo_i or jj > hi_j or ii > hi_i:
                    continue
                m = diagonal if dj and di else straight
                v = m[jj * nx + ii]
                if not v or (v == 2 and not soft) or not m[j * nx + i]:
                    continue
                step = 1.414 if dj and di else 1.0
                t = (layer, jj, ii)
                ng = g + step * STEP_COST + (FOREIGN_COST if v == 2 else 0) + hist.get(t, 0)
                if ng < best.get(t, 1e18):
                    best[t] = ng
                    heapq.heappush(heap, (ng + h(jj, ii), ng, t, s))
            v = vias[j * nx + i]
            if v and (v == 1 or soft) and not _via_near(came, s):
                t = (1 - layer, j, i)
                ng = g + VIA_COST + (FOREIGN_COST if v == 2 else 0) + hist.get(t, 0)
                if ng < best.get(t, 1e18):
                    best[t] = ng
                    heapq.heappush(heap, (ng + h(j, i), ng, t, s))
        return None

    def _joined(self, path, pads, segs):
        """KiCad joins a track to a pad it reaches the centre of and to a track whose end it
        meets (its DRC calls a track that ends inside a pad off its centre, or on another
        track's middle, dangling): ``segs`` with a piece from the pad's centre to each end of
        ``path`` inside a pad, and the track a path ends on the middle of split there."""
        out = list(segs)
        for layer, j, i in (path[0], path[-1]):
            x, y = i * PITCH, j * PITCH
            pad = [
                p for p in pads if layer in p.layers and abs(x - p.x) <= p.w / 2 and abs(y - p.y) <= p.h / 2
            ]
            if pad:
                if (x, y) != (pad[0].x, pad[0].y):
                    out.append((pad[0].x, pad[0].y, x, y, layer, self.signal))
                continue
            for k, (x1, y1, x2, y2, lay, w) in enumerate(out):
                inside = min(x1, x2) <= x <= max(x1, x2) and min(y1, y2) <= y <= max(y1, y2)
                if lay == layer and inside and (x, y) not in ((x1, y1), (x2, y2)):
                    if abs((x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)) < 1e-9:
                        out[k : k + 1] = [(x1, y1, x, y, lay, w), (x, y, x2, y2, lay, w)]
                        break
        return out

    def _emit(self, path, net, neck):
        """Tracks and vias of a grid path: straight runs merged, narrow inside the neck."""
        segs, vias = [], []
        wide = self._width(net)

        def w_at(s):
            return self.signal if neck[s[1] * self.nx + s[2]] else wide

        run = [path[0]]
        for a, b in zip(path, path[1:]):
            if a[0] != b[0]:
                vias.append((a[2] * PITCH, a[1] * PITCH))
                run = [b]
                continue
            w = min(w_at(a), w_at(b))
            if len(run) >= 2:
                p, q = run[-2], run[-1]
                same_dir = (q[1] - p[1], q[2] - p[2]) == (b[1] - a[1], b[2] - a[2])
                if same_dir and segs and segs[-1][5] == w:
                    x1, y1 = segs[-1][0], segs[-1][1]
                    segs[-1] = (x1, y1, b[2] * PITCH, b[1] * PITCH, a[0], w)
                    run.append(b)
                    continue
            segs.append((a[2] * PITCH, a[1] * PITCH, b[2] * PITCH, b[1] * PITCH, a[0], w))
            run = [a, b]
        return segs, vias

    def _order(self, pads):
        """Prim's minimum spanning tree over the pads: [(pad, nearest pad already joined)]."""
        joined = [pads[0]]
        rest = list(pads[1:])
        out = []
        while rest:
            d, a, b = min(
                (math.hypot(p.x - q.x, p.y - q.y), k, joined.index(q))
                for k, p in enumerate(rest)
                for q in joined
            )
            p = rest.pop(a)
            out.append((p, joined[b]))
            joined.append(p)
        return out

    def route_net(self, net, soft=False, partial=False):
        """Route ``net`` on the current maps; its tracks and vias, or None with the nets whose
        copper its cheapest path crosses (soft), or None, [] when even that fails."""
        pads = [p for p in self.pads if p.net == net]
        maps, vias, neck = self._passable(net, soft)
        segs, vs = [], []
        no_via = np.zeros((self.ny, self.nx), dtype=bool)
        tree = set(self._access(pads[0]))
        self.skipped = []
        for p, q in self._order(pads):
            starts = self._starts(p, net)
            if starts & tree:
                tree |= starts
                continue
            path = self._search(starts, tree.__contains__, self._cell(q.x, q.y), maps, vias, soft)
            if path is None and partial:
                self.skipped.append(p)
                continue
            if path is None:
                return None
            s, v = self._emit(path, net, neck)
            segs[:] = self._joined(path, pads, segs)
            segs += s
            vs += v
            tree |= set(path) | starts
            for x, y in v:  # hole to hole: no second via of the net beside this one
                self._mark_bool(
                    no_via,
                    (x, y, x, y),
                    VIA_DRILL + HOLE_GAP + SLACK,
                    lambda X, Y, x=x, y=y: np.hypot(X - x, Y - y),
                )
                vias = bytes(np.where(no_via.ravel(), 0, np.frombuffer(vias, dtype=np.uint8)))
        self.tree = tree
        return segs, vs

    def _starts(self, p, net):
        starts = set(self._access(p))
        for x, y in self.fixed.get(net, ([], []))[1]:  # a thermal via: the pad's other side
            if abs(x - p.x) < p.w / 2 and abs(y - p.y) < p.h / 2:
                starts |= {(1, *self._cell(x, y)), (0, *self._cell(x, y))}
        return starts

    def join_exposed(self, net, width=0.2):
        """Each pin of ``net`` beside its package's exposed pad joined to it by a straight
        track (the narrowest the rules allow), checked exactly against every other pad: a
        corner pin's grid point is too near its neighbour, its centre line is not. Fixed
        copper, before anything else is routed."""
        segs = []
        others = [p for p in self.pads if p.net != net]
        for e in (p for p in self.pads if p.net == net and _exposed(p)):
            ref = e.key.split(".")[0]
            for q in self.pads:
                if q is e or q.net != net or q.key.split(".")[0] != ref:
                    continue
                ex0, ey0, ex1, ey1 = e.bbox()
                for off in (0.0, -0.05, 0.05):  # along the pin's centre line, or just beside
                    if ex0 <= q.x <= ex1:  # above or below the pad
                        a, b = (q.x + off, q.y), (q.x + off, ey0 + 0.1 if q.y < e.y else ey1 - 0.1)
                    elif ey0 <= q.y <= ey1:
                        a, b = (q.x, q.y + off), (ex0 + 0.1 if q.x < e.x else ex1 - 0.1, q.y + off)
                    else:
                        break
                    t = np.linspace(0, 1, 200)
                    X, Y = a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])
                    if all(o.distance(X, Y).min() - width / 2 >= CLEARANCE + SLACK for o in others):
                        segs.append((a[0], a[1], b[0], b[1], 0, width))
                        self.joined.add(q.key)
                        break
        self._add_copper(net, segs, [], fixed=True)
        self.fixed[net] = (segs, [])

    def stitch(self, net):
        """Each of ``net``'s SMD pads gets a short track to a via of its own (the pours join
        them); a package's exposed pad (boxed in by its pins) and the package's pins of the
        net are joined first and share one. Through-hole pads touch both pours already.
        Returns the pads it could not stitch."""
        out_s, out_v, failed = [], [], []
        victims = set()
        tht = set()
        for p in self.pads:
            if p.net == net and p.drill:
                tht |= set(self._access(p))
        smd = [p for p in self.pads if p.net == net and not p.drill]
        groups = []
        for p in smd:
            if _exposed(p):
                ref = p.key.split(".")[0]
                groups.append([p] + [q for q in smd if q is not p and q.key.split(".")[0] == ref])
        grouped = {id(q) for g in groups for q in g}
        groups += [[p] for p in smd if id(p) not in grouped]
        self.stitching = True
        history, self.history = self.history, self._escapes(net)
        nx = self.nx
        for g in groups:
            maps, vias, neck = self._passable(net, False)
            joined = set(self._access(g[0]))
            segs = []
            for q in g[1:]:
                if q.key in self.joined:
                    joined |= set(self._access(q))
                    continue
                # each pin straight in to the exposed pad (a search kept to the pin's own
                # width: around a neighbour pin it would box that one in); a pin that cannot
                # is stitched alone
                path = self._search(
                    set(self._access(q)),
                    joined.__contains__,
                    self._cell(g[0].x, g[0].y),
                    maps,
                    vias,
                    False,
                    PITCH,
                )
                if path is None:
                    groups.append([q])
                    continue
                segs += self._emit(path, net, neck)[0]
                joined |= set(path)

            # any point where a via fits (never in or beside a pad: ``novia``), or a through-
            # hole pad of the net
            def fits(s, vias=vias):
                return s in tht or vias[s[1] * nx + s[2]] == 1

            path = self._search(joined, fits, self._outwards(g[0]), maps, vias, False)
            if path is None:  # through the routed nets at a cost: they are routed again
                maps, vias, neck = self._passable(net, True)

                def fits(s, vias=vias):
                    return s in tht or vias[s[1] * nx + s[2]] in (1, 2)

                path = self._search(joined, fits, self._outwards(g[0]), maps, vias, True)
            if path is None:
                failed.append(g[0].key)
                continue
            segs += self._emit(path, net, neck)[0]
            last = path[-1]
            v = [] if last in tht else [(last[2] * PITCH, last[1] * PITCH)]
            hit = self._crossed(net, segs, v)
            if hit:
                for n in hit:
                    del self.routes[n]
                victims.update(hit)
                self._rebuild()
            # fixed: the nets routed again go round the stitches, never rip them
            self._add_copper(net, segs, v, fixed=True)
            out_s += segs
            out_v += v
        self.stitching, self.history = False, history
        fs, fv = self.fixed.get(net, ([], []))
        self.fixed[net] = (fs + out_s, fv + out_v)
        return failed + self.route(sorted(victims))

    def route(self, nets, max_rips=400, log=None):
        """Route ``nets`` (wide ones first, then by spanning-tree length); rip up and retry.
        Returns the nets left unrouted."""

        def length(n):
            pads = [p for p in self.pads if p.net == n]
            return sum(math.hypot(p.x - q.x, p.y - q.y) for p, q in self._order(pads)) if len(pads) > 1 else 0

        queue = sorted(nets, key=lambda n: (-self.width(n), length(n), n))
        failed = []
        rips = 0
        while queue:
            net = queue.pop(0)
            got = self.route_net(net)
            if got is not None:
                self.routes[net] = got
                self._add_copper(net, *got)
                continue
            soft = self.route_net(net, soft=True) if rips < max_rips else None
            if soft is None:
                failed.append(net)
                continue
            victims = self._crossed(net, *soft)
            rips += 1
            if log:
                log("rip %s for %s" % (victims, net))
            for v in victims:
                del self.routes[v]
            self._rebuild()
            got = self.route_net(net)
            if got is None:
                if log:
                    log("failed %s" % net)
                failed.append(net)
            else:
                self.routes[net] = got
                self._add_copper(net, *got)
            queue = sorted(victims, key=lambda n: (-self.width(n), length(n), n)) + queue
        return failed

    def tie(self, net, log=None):
        """``net``'s pads also joined by tracks (at the stitches' width): a pour cut into
        pieces by the other tracks still leaves its pads joined. A pad the tracks cannot
        reach goes through the other nets at a cost; the nets crossed are routed again."""
        self.stitching = True
        segs, vias = self.route_net(net, partial=True)
        self._add_copper(net, segs, vias, fixed=True)
        skipped, tree = self.skipped, self.tree
        victims = set()
        for p in skipped:
            maps, vm, neck = self._passable(net, True)
            path = self._search(self._starts(p, net), tree.__contains__, self._cell(p.x, p.y), maps, vm, True)
            if path is None:
                continue
            s, v = self._emit(path, net, neck)
            hit = self._crossed(net, s, v)
            if log:
                log("tie %s through %s" % (p.key, hit))
            for n in hit:
                del self.routes[n]
            victims.update(hit)
            self._rebuild()
            self._add_copper(net, s, v, fixed=True)
            self._add_copper(net, s, v)
            segs, vias = segs + s, vias + v
            tree |= set(path)
        self.stitching = False
        fs, fv = self.fixed.get(net, ([], []))
        self.fixed[net] = (fs + segs, fv + vias)
        return self.route(sorted(victims), log=log)

    def _crossed(self, net, segs, vias):
        """The routed nets whose copper the tracks ``segs`` and ``vias`` would violate."""
        code = self.code[net]
        hit = set()
        for x1, y1, x2, y2, layer, w in segs:
            for t in np.linspace(0, 1, int(round(max(abs(x2 - x1), abs(y2 - y1)) / PITCH)) + 1):
                j, i = self._cell(x1 + t * (x2 - x1), y1 + t * (y2 - y1))
                v = self.own[2 * self.wclass[w] + 1, layer, j, i]
                if v not in (0, code):
                    hit |= self._owners(layer, j, i, self.radii[2 * self.wclass[w] + 1])
                    for dj in range(-2, 3):  # the point and its neighbours: both nets avoid it
                        for di in range(-2, 3):
                            t = (layer, j + dj, i + di)
                            self.history[t] = self.history.get(t, 0) + HISTORY_COST
        for x, y in vias:
            j, i = self._cell(x, y)
            for layer in (0, 1):
                hit |= self._owners(layer, j, i, VIA_D / 2 + CLEARANCE + SLACK)
        hit.discard(net)
        return sorted(hit)

    def _owners(self, layer, j, i, r):
        x, y = i * PITCH, j * PITCH
        out = set()
        for n, (segs, vias) in self.routes.items():
            for x1, y1, x2, y2, lay, w in segs:
                if lay == layer and _seg_distance(x, y, x1, y1, x2, y2) - w / 2 < r:
                    out.add(n)
            for vx, vy in vias:
                if math.hypot(vx - x, vy - y) - VIA_D / 2 < r:
                    out.add(n)
        return out
