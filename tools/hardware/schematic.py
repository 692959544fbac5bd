"""A schematic sheet of one board as SVG (deterministic), drawn from the design: every part a
box with its pins (number, function) and, on each pin, the label of its net, KiCad's
"net label" style of schematic (pins on the same label are connected). Power nets and
no-connect pins are marked. It is what a maker reads to check or repair a board; the copper
is in the PCB files."""

COLS = 4
BOX_W, PIN_H, GAP_X, GAP_Y, LABEL_W = 150, 14, 120, 40, 110
POWER = ("3V3", "5V", "GND", "VBUS")


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(board):
    parts = [p for p in board.parts if p.footprint]
    col_w = BOX_W + 2 * LABEL_W + GAP_X
    heights = [max(2, (len(p.pins) + 1) // 2) * PIN_H + 34 for p in parts]
    rows = [heights[i : i + COLS] for i in range(0, len(parts), COLS)]
    row_y, y = [], 60
    for r in rows:
        row_y.append(y)
        y += max(r) + GAP_Y
    width, height = COLS * col_w + 40, y + 20
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'
        % (width, height, width, height),
        "<style>text{font-family:monospace;font-size:10px}.t{font-size:16px;font-weight:bold}"
        ".b{fill:#fffbe6;stroke:#840000;stroke-width:1.5}.w{stroke:#006400}.p{fill:#c00000}.n{fill:#004080}"
        ".x{stroke:#0000c0}</style>",
        '<rect width="100%" height="100%" fill="white"/>',
        '<text x="20" y="30" class="t">%s: schematic (net labels), generated from hardware/board.json</text>'
        % _esc(board.title),
    ]
    for i, p in enumerate(parts):
        x0 = 20 + (i % COLS) * col_w + LABEL_W
        y0 = row_y[i // COLS]
        h = heights[i]
        out.append('<rect x="%d" y="%d" width="%d" height="%d" class="b"/>' % (x0, y0, BOX_W, h - 10))
        out.append('<text x="%d" y="%d">%s  %s</text>' % (x0 + 4, y0 + 12, _esc(p.ref), _esc(p.value)))
        half = (len(p.pins) + 1) // 2
        for k, (num, name, type_, net) in enumerate(p.pins):
            left = k < half
            py = y0 + 28 + (k if left else k - half) * PIN_H
            px = x0 if left else x0 + BOX_W
            end = px - 24 if left else px + 24
            anchor = "start" if left else "end"
            ix = px + 4 if left else px - 4
            out.append(
                '<text x="%d" y="%d" text-anchor="%s">%s %s</text>'
                % (ix, py + 3, anchor, _esc(num), _esc(name))
            )
            if type_ == "nc" or net is None:
                out.append(
                    '<line x1="%d" y1="%d" x2="%d" y2="%d" class="x"/>' % (px - 4, py - 4, px + 4, py + 4)
                )
                out.append(
                    '<line x1="%d" y1="%d" x2="%d" y2="%d" class="x"/>' % (px - 4, py + 4, px + 4, py - 4)
                )
                continue
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" class="w"/>' % (px, py, end, py))
            cls = "p" if net in POWER else "n"
            lx = end - 2 if left else end + 2
            out.append(
                '<text x="%d" y="%d" text-anchor="%s" class="%s">%s</text>'
                % (lx, py + 3, "end" if left else "start", cls, _esc(net))
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"
