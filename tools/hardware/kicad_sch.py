"""KiCad 6 schematic (``.kicad_sch``, file version 20211123) of one board, from the design.

One symbol per part (its own library symbol: a box with its pins, inputs and power inputs on
the left, the rest on the right), placed on a grid; every connected pin ends in a short wire
with a net label of its net (KiCad joins pins through labels of the same name on a sheet);
every no-connect pin carries KiCad's no-connect flag. Coordinates sit on KiCad's 1.27 mm grid.
UUIDs are derived from the board and the item (uuid5), so the file is the same on every run.

``read(text)`` is the other direction, for the test that checks the file: the s-expression
parsed, every pin's end point found from its library symbol and the symbol's position, pins
joined through wires and labels, and the nets returned in ``netlist.parse``'s shape.
"""

import uuid

GRID = 1.27
PIN_LEN = 2.54
PIN_STEP = 2.54
BOX_W = 20.32
COL_W = 76.2
COLS = 8
NS = uuid.UUID("6a1d3f4e-0b9c-4f55-9b1e-7e3c2b1a0d11")
KTYPE = {"in": "input", "out": "output", "pwr_in": "power_in", "pwr_out": "power_out"}


def _q(s):
    return '"%s"' % str(s).replace("\\", "\\\\").replace('"', '\\"')


def _mm(v):
    return "%g" % round(v, 4)


def _uuid(*key):
    return str(uuid.uuid5(NS, "/".join(str(k) for k in key)))


def _font():
    return "(effects (font (size 1.27 1.27)))"


def _sides(part):
    """(left pins, right pins): what flows in on the left, the rest on the right."""
    left = [p for p in part.pins if p[2] in ("in", "pwr_in")]
    right = [p for p in part.pins if p[2] not in ("in", "pwr_in")]
    if not left:  # two-terminal parts: first pin left, the others right
        half = (len(part.pins) + 1) // 2
        left, right = part.pins[:half], part.pins[half:]
    return left, right


def _pin_ends(part):
    """{(pin number, index): (x, y, angle)}: each pin's connection point in the symbol's own
    coordinates (y up) and the direction the pin points into the body."""
    left, right = _sides(part)
    out = {}
    for side, pins in ((-1, left), (1, right)):
        for k, p in enumerate(pins):
            y = -k * PIN_STEP
            x = side * (BOX_W / 2 + PIN_LEN)
            out[id(p)] = (p, x, y, 0 if side < 0 else 180)
    return out


def _height(part):
    left, right = _sides(part)
    return max(len(left), len(right), 1) * PIN_STEP


def render(board):
    parts = list(board.parts)
    out = ["(kicad_sch (version 20211123) (generator smartgammon)"]
    out.append("  (uuid %s)" % _uuid(board.kind, "sheet"))
    rows, y, row_h = [], 20.32, 0.0
    for i, p in enumerate(parts):
        if i % COLS == 0 and i:
            y += row_h + 15.24
            row_h = 0.0
        rows.append((25.4 + (i % COLS) * COL_W, y))
        row_h = max(row_h, _height(p))
    width = int(COLS * COL_W + 50.8)
    height = int(y + row_h + 30.48)
    out.append('  (paper "User" %d %d)' % (width, height))
    out.append(
        "  (title_block (title %s) (comment 1 %s))"
        % (_q(board.title), _q("generated from hardware/board.json"))
    )
    out.append("  (lib_symbols")
    for p in parts:
        h = _height(p)
        name = "smartgammon:" + p.ref
        out.append("    (symbol %s (in_bom yes) (on_board %s)" % (_q(name), "yes" if p.footprint else "no"))
        out.append('      (property "Reference" %s (id 0) (at 0 %s 0) %s)' % (_q(p.ref), _mm(2.54), _font()))
        out.append(
            '      (property "Value" %s (id 1) (at 0 %s 0) %s)' % (_q(p.value), _mm(-h - 2.54), _font())
        )
        out.append('      (property "Footprint" "" (id 2) (at 0 0 0) (effects (font (size 1.27 1.27)) hide))')
        out.append('      (property "Datasheet" "" (id 3) (at 0 0 0) (effects (font (size 1.27 1.27)) hide))')
        out.append(
            "      (symbol %s (rectangle (start %s %s) (end %s %s) (stroke (width 0.254) (type default)"
            " (color 0 0 0 0)) (fill (type background))))"
            % (_q(p.ref + "_0_1"), _mm(-BOX_W / 2), _mm(1.27), _mm(BOX_W / 2), _mm(-h + 1.27))
        )
        out.append("      (symbol %s" % _q(p.ref + "_1_1"))
        for pin, x, yy, ang in _pin_ends(p).values():
            num, fn, type_, _net = pin
            kt = "no_connect" if type_ == "nc" else KTYPE.get(type_, "passive")
            out.append(
                "        (pin %s line (at %s %s %d) (length %s) (name %s %s) (number %s %s))"
                % (kt, _mm(x), _mm(yy), ang, _mm(PIN_LEN), _q(fn), _font(), _q(num), _font())
            )
        out.append("      )")
        out.append("    )")
    out.append("  )")
    instances = []
    for p, (sx, sy) in zip(parts, rows):
        u = _uuid(board.kind, "symbol", p.ref)
        fp = "smartgammon:" + p.footprint if p.footprint else ""
        out.append(
            "  (symbol (lib_id %s) (at %s %s 0) (unit 1) (in_bom yes) (on_board %s) (uuid %s)"
            % (_q("smartgammon:" + p.ref), _mm(sx), _mm(sy), "yes" if p.footprint else "no", u)
        )
        out.append(
            '    (property "Reference" %s (id 0) (at %s %s 0) %s)'
            % (_q(p.ref), _mm(sx), _mm(sy - 2.54), _font())
        )
        out.append(
            '    (property "Value" %s (id 1) (at %s %s 0) %s)'
            % (_q(p.value), _mm(sx), _mm(sy + _height(p) + 2.54), _font())
        )
        out.append(
            '    (property "Footprint" %s (id 2) (at %s %s 0) (effects (font (size 1.27 1.27)) hide))'
            % (_q(fp), _mm(sx), _mm(sy))
        )
        role = " ".join(str(x) for x in p.role) if p.role else ""
        out.append(
            '    (property "role" %s (id 4) (at %s %s 0) (effects (font (size 1.27 1.27)) hide))'
            % (_q(role), _mm(sx), _mm(sy))
        )
        for pin in p.pins:
            out.append(
                "    (pin %s (uuid %s))" % (_q(pin[0]), _uuid(board.kind, "pin", p.ref, pin[0], pin[1]))
            )
        out.append("  )")
        instances.append((u, p))
        for pin, x, yy, _ang in _pin_ends(p).values():
            num, fn, type_, net = pin
            px, py = sx + x, sy - yy
            key = (board.kind, p.ref, num, fn)
            if net is None:
                out.append("  (no_connect (at %s %s) (uuid %s))" % (_mm(px), _mm(py), _uuid(*key + ("nc",))))
                continue
            ex = px + (-PIN_STEP if x < 0 else PIN_STEP)
            out.append(
                "  (wire (pts (xy %s %s) (xy %s %s))"
                " (stroke (width 0) (type default) (color 0 0 0 0)) (uuid %s))"
                % (_mm(px), _mm(py), _mm(ex), _mm(py), _uuid(*key + ("wire",)))
            )
            out.append(
                "  (label %s (at %s %s %d) (effects (font (size 1.27 1.27)) (justify %s bottom)) (uuid %s))"
                % (
                    _q(net),
                    _mm(ex),
                    _mm(py),
                    180 if x < 0 else 0,
                    "right" if x < 0 else "left",
                    _uuid(*key + ("label",)),
                )
            )
    out.append('  (sheet_instances (path "/" (page "1")))')
    out.append("  (symbol_instances")
    for u, p in instances:
        fp = "smartgammon:" + p.footprint if p.footprint else ""
        out.append(
            '    (path "/%s" (reference %s) (unit 1) (value %s) (footprint %s))'
            % (u, _q(p.ref), _q(p.value), _q(fp))
        )
    out.append("  )")
    out.append(")")
    return "\n".join(out) + "\n"


def sexp(text):
    """Parse an s-expression: lists of atoms (str) and lists; quoted strings unquoted."""
    stack, cur, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "(":
            stack.append(cur)
            cur = []
            i += 1
        elif c == ")":
            if not stack:
                raise ValueError("unbalanced ')' at %d" % i)
            done, cur = cur, stack.pop()
            cur.append(done)
            i += 1
        elif c == '"':
            j, buf = i + 1, []
            while text[j] != '"':
                if text[j] == "\\":
                    j += 1
                buf.append(text[j])
                j += 1
            cur.append("".join(buf))
            i = j + 1
        elif c.isspace():
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in '()"':
                j += 1
            cur.append(text[i:j])
            i = j
    if stack:
        raise ValueError("unbalanced '(': %d open" % len(stack))
    return cur


def _find(node, head):
    return [x for x in node if isinstance(x, list) and x and x[0] == head]


def _one(node, head):
    found = _find(node, head)
    if len(found) != 1:
        raise ValueError("expected one (%s ...), found %d" % (head, len(found)))
    return found[0]


def read(text):
    """The nets of a .kicad_sch as ``netlist.parse`` gives them for a .net file:
    ({net: [(ref, pin, function, type)]}, {ref: role}), and the no-connect pins [(ref, pin)]."""
    tree = sexp(text)
    if len(tree) != 1 or tree[0][0] != "kicad_sch":
        raise ValueError("not a kicad_sch file")
    root = tree[0]
    libs = {}
    for sym in _find(_one(root, "lib_symbols"), "symbol"):
        pins = []
        for unit in _find(sym, "symbol"):
            for pin in _find(unit, "pin"):
                at = _one(pin, "at")
                pins.append(
                    (_one(pin, "number")[1], _one(pin, "name")[1], pin[1], float(at[1]), float(at[2]))
                )
        libs[sym[1]] = pins

    def key(x, y):
        return (round(float(x) / GRID), round(float(y) / GRID))

    parent = {}

    def find(a):
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def join(a, b):
        parent[find(a)] = find(b)

    pin_at, roles = [], {}
    for sym in _find(root, "symbol"):
        at = _one(sym, "at")
        if float(at[3]) != 0:
            raise ValueError("rotated symbols are not read")
        props = {p[1]: p[2] for p in _find(sym, "property")}
        ref = props["Reference"]
        roles[ref] = props.get("role", "")
        for num, fn, kt, x, y in libs[_one(sym, "lib_id")[1]]:
            pin_at.append((ref, num, fn, kt, key(float(at[1]) + x, float(at[2]) - y)))
    for w in _find(root, "wire"):
        pts = _one(w, "pts")
        ends = [key(p[1], p[2]) for p in _find(pts, "xy")]
        for a in ends[1:]:
            join(ends[0], a)
    for lab in _find(root, "label"):
        at = _one(lab, "at")
        join(key(at[1], at[2]), ("label", lab[1]))
    flags = {key(f[1][1], f[1][2]) for f in _find(root, "no_connect")}
    name_of = {}
    for lab in _find(root, "label"):
        r = find(("label", lab[1]))
        if name_of.setdefault(r, lab[1]) != lab[1]:
            raise ValueError("labels %s and %s are joined" % (name_of[r], lab[1]))
    nets, nc = {}, []
    for ref, num, fn, kt, pt in pin_at:
        if pt in flags:
            nc.append((ref, num))
            continue
        r = find(pt)
        if r not in name_of:
            raise ValueError("%s pin %s is on no labelled net" % (ref, num))
        kt = "passive" if kt == "no_connect" else kt
        nets.setdefault(name_of[r], []).append((ref, num, fn, kt))
    for v in nets.values():
        v.sort(key=lambda p: (p[0], p[1]))
    return nets, roles, nc
