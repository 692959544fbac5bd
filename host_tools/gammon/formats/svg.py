"""SVG board diagrams: one position (``position_svg``), or a whole match as a folder of images
(``export_folder``: ``game-01/001.svg`` ... the position before every play, then the final one).

The side on roll is drawn at the bottom, its points 1..12 along the bottom edge from right to
left and 13..24 along the top (as GNU Backgammon draws it); side 0's checkers are white, side 1's
dark; checkers on the bar sit in the middle, borne-off ones are counted in the tray on the right.

Example::

    >>> from bg import board
    >>> from gammon.formats.svg import position_svg
    >>> svg = position_svg(board.start_position(), 0, ("Alice", "Bob"))
    >>> svg.startswith("<svg")
    True
"""

from pathlib import Path

from bg import board  # noqa: E402

from gammon import _paths  # noqa: F401

W, H = 560, 420
PW = 36  # point width
MARGIN = 20
BAR = 40
TRAY = 40
R = 16  # checker radius
FILL = ("#f4f1e8", "#2b2b2b")
STROKE = ("#555", "#000")
TEXT = ("#222", "#f4f1e8")


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _x(p):
    """Centre x of the bottom player's point p (1..24)."""
    if p <= 12:
        i = 12 - p  # 0 = point 12 (left) .. 11 = point 1 (right)
    else:
        i = p - 13  # 0 = point 13 (left) .. 11 = point 24 (right)
    x = MARGIN + i * PW + PW / 2
    if i >= 6:
        x += BAR
    return x


def _stack(out, x, top, n, side):
    """Checkers of ``side`` on a point, from the edge inwards (5 drawn, then a count)."""
    shown = min(n, 5)
    for k in range(shown):
        y = (MARGIN + R + 2 * R * k) if top else (H - 40 - R - 2 * R * k)
        out.append(
            '<circle cx="%.1f" cy="%.1f" r="%d" fill="%s" stroke="%s"/>'
            % (x, y, R - 1, FILL[side], STROKE[side])
        )
    if n > 5:
        out.append(
            '<text x="%.1f" y="%.1f" font-size="13" text-anchor="middle" fill="%s">%d</text>'
            % (x, y + 5, TEXT[side], n)
        )


def position_svg(pos, side_on_roll, names=None, caption=""):
    """An SVG document (text) of ``pos`` seen by ``side_on_roll``."""
    names = names or ("side 0", "side 1")
    bottom, top = side_on_roll, 1 - side_on_roll
    bb, tb = board.base(bottom), board.base(top)
    inner = 12 * PW + BAR
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="sans-serif">' % (W, H, W, H),
        '<rect width="%d" height="%d" fill="#fff"/>' % (W, H),
        '<rect x="%d" y="%d" width="%d" height="%d" fill="#c9a66b" stroke="#5a3d1e" stroke-width="3"/>'
        % (MARGIN, MARGIN, inner, H - 40 - MARGIN),
        '<rect x="%d" y="%d" width="%d" height="%d" fill="#8b5a2b"/>'
        % (MARGIN + 6 * PW, MARGIN, BAR, H - 40 - MARGIN),
    ]
    bot_edge = H - 40
    for p in range(1, 25):
        x = _x(p)
        colour = "#7a1f1f" if p % 2 else "#e8dcc0"
        if p <= 12:
            pts = "%.1f,%d %.1f,%d %.1f,%d" % (x - PW / 2, bot_edge, x + PW / 2, bot_edge, x, bot_edge - 150)
            ny = bot_edge + 14
        else:
            pts = "%.1f,%d %.1f,%d %.1f,%d" % (x - PW / 2, MARGIN, x + PW / 2, MARGIN, x, MARGIN + 150)
            ny = MARGIN - 6
        out.append('<polygon points="%s" fill="%s"/>' % (pts, colour))
        out.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle">%d</text>' % (x, ny, p))
        n = pos[bb + p - 1]
        if n:
            _stack(out, x, p > 12, n, bottom)
        n = pos[tb + 24 - p]
        if n:
            _stack(out, x, p > 12, n, top)
    bx = MARGIN + 6 * PW + BAR / 2
    for side, n, up in ((top, pos[tb + 24], True), (bottom, pos[bb + 24], False)):
        for k in range(min(n, 3)):
            y = (H / 2 - 30 - 2 * R * k) if up else (H / 2 + 10 + 2 * R * k)
            out.append(
                '<circle cx="%.1f" cy="%.1f" r="%d" fill="%s" stroke="%s"/>'
                % (bx, y, R - 1, FILL[side], STROKE[side])
            )
        if n > 3:
            out.append(
                '<text x="%.1f" y="%.1f" font-size="12" text-anchor="middle" fill="%s">%d</text>'
                % (bx, (H / 2 - 25) if up else (H / 2 + 15), TEXT[side], n)
            )
    tx = MARGIN + inner + 8
    for side, y in ((top, MARGIN + 14), (bottom, bot_edge - 6)):
        out.append('<text x="%d" y="%d" font-size="11">off %d</text>' % (tx, y, pos[50 + side]))
    out.append(
        '<text x="%d" y="%d" font-size="12">%s (%s): %d pips</text>'
        % (
            MARGIN,
            H - 8,
            _esc(names[bottom]),
            "white" if bottom == 0 else "dark",
            board.pip_count(pos, bottom),
        )
    )
    out.append(
        '<text x="%d" y="%d" font-size="12" text-anchor="end">%s (%s): %d pips</text>'
        % (W - 10, H - 8, _esc(names[top]), "white" if top == 0 else "dark", board.pip_count(pos, top))
    )
    if caption:
        out.append(
            '<text x="%d" y="%d" font-size="12" text-anchor="middle">%s</text>'
            % (MARGIN + inner // 2, H / 2 - 2, _esc(caption))
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def export_folder(match, out_dir, game=None):
    """Write one SVG per play (the position before it, the mover at the bottom) plus the final
    position, for every game (or only game number ``game``). Returns the paths written."""
    out_dir = Path(out_dir)
    written = []
    for g in match.games:
        if game is not None and g.number != game:
            continue
        d = out_dir / ("game-%02d" % g.number)
        d.mkdir(parents=True, exist_ok=True)
        k = 0
        for a in g.actions:
            if a.kind != "play":
                continue
            k += 1
            cap = "%s to play %d%d: %s" % (match.names[a.side], a.dice[0], a.dice[1], a.text or "no move")
            p = d / ("%03d.svg" % k)
            p.write_text(position_svg(a.pos, a.side, match.names, cap))
            written.append(p)
        if g.finished:
            p = d / ("%03d-final.svg" % (k + 1))
            cap = "%s wins %d point%s (%s)" % (
                match.names[g.winner],
                g.points,
                "" if g.points == 1 else "s",
                g.reason,
            )
            p.write_text(position_svg(g.final_pos, g.winner, match.names, cap))
            written.append(p)
    return written
