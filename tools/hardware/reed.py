"""The checker's magnet against the reeds: closing window and margin to the neighbouring reed.

Model (every number from board.json ``mechanics``):

- The magnet (``magnet_d_mm`` x ``magnet_h_mm`` disc, remanence ``magnet_br_t``) is a point
  dipole at its centre, moment m = Br V / mu0, its axis vertical for a checker lying flat (a
  checker turned over reverses it: the reed does not care, the sum over several checkers is
  taken with the worst signs).
- A reed is the straight segment of its blades (``reed_len_mm``, leads included: they are the
  blades' continuation and carry the flux), its axis ``reed_depth_mm`` under the playing
  surface. What closes it is the magnetic potential difference between its two ends (the
  line integral of H along it, in amperes): exactly what a test coil applies to it, so the
  datasheet's pull-in in ampere-turns compares with it directly for a coil as long as the
  reed. Makers' coils differ, and Littelfuse's note on AT versus mT calls any such
  conversion good to a factor of 2: ``COIL`` = (0.5, 2) brackets it, and every margin below
  is taken at the worse end.
- A reed closes for sure when |MMF| >= pull-in max (``reed_at`` high) x 2, and stays open for
  sure when |MMF| <= pull-in min (``reed_at`` low) x 0.5.

``point_figures(board_json)``: the closing window of a point's reed (how far the checker may
slide along the point, from its place, before its reed may open) and the margin to the next
reed (the worst MMF that checkers 0..s put on reed s+1, against the open limit). The same
figures for a tray scheme (``tray_figures``): checkers on edge at ``tray_pitch_mm`` (the rev A
tray) or lying flat in two or three staggered rows (``tray_spots``), each reed under its
checker as on a point.

Run ``.venv/bin/python -m tools.hardware.reed`` for the table in hardware/README.md.
"""

import json
import math
import sys
from pathlib import Path

MU0 = 4e-7 * math.pi
COIL = (0.5, 2.0)


def moment(m):
    """The magnet's dipole moment (A m^2)."""
    volume = math.pi * (m["magnet_d_mm"] / 2.0) ** 2 * m["magnet_h_mm"] * 1e-9
    return m["magnet_br_t"] * volume / MU0


def potential(mag, axis, moment_am2, p):
    """Magnetic scalar potential (A) of a dipole at ``mag`` (mm) with unit ``axis`` at ``p``."""
    r = [(p[i] - mag[i]) * 1e-3 for i in range(3)]
    d = math.sqrt(sum(x * x for x in r))
    return moment_am2 * sum(axis[i] * r[i] for i in range(3)) / (4 * math.pi * d**3)


def mmf(magnets, reed, moment_am2):
    """Potential difference (A) between the reed's ends; ``magnets``: [(centre, axis, sign)],
    ``reed``: (end, end)."""
    a, b = reed
    return sum(
        s * (potential(c, ax, moment_am2, a) - potential(c, ax, moment_am2, b)) for c, ax, s in magnets
    )


def limits(m):
    """(MMF that surely closes, MMF that surely leaves open), amperes."""
    lo, hi = m["reed_at"]
    return hi * COIL[1], lo * COIL[0]


def magnet_height(m):
    """The magnet's centre over the reed's axis (checker lying flat on the surface)."""
    return m["reed_depth_mm"] + m["surface_mm"] + m["checker_base_mm"] + m["magnet_h_mm"] / 2.0


def _reed_along_x(x_centre, y=0.0, length=None, m=None):
    half = (length or m["reed_len_mm"]) / 2.0
    return ((x_centre - half, y, 0.0), (x_centre + half, y, 0.0))


def _window(m, mom, reed, centre, axis, step=0.25, reach=30.0):
    """How far the magnet may move along x either way from ``centre`` with |MMF| >= the
    closing limit all the way: (minus, plus) mm."""
    close, _ = limits(m)
    out = []
    for sign in (-1, 1):
        d = 0.0
        while d < reach:
            c = (centre[0] + sign * (d + step), centre[1], centre[2])
            if abs(mmf([(c, axis, 1)], reed, mom)) < close:
                break
            d += step
        out.append(round(d, 2))
    return tuple(out)


def point_figures(board_json):
    m = board_json["mechanics"]
    n = board_json["sensors"]["slots_per_point"]
    mom = moment(m)
    h = magnet_height(m)
    close, open_ = limits(m)
    up = (0.0, 0.0, 1.0)
    pitch = m["checker_d_mm"]
    # reed s: one end of its glass under checker s's centre (the strip's placement)
    reeds = [_reed_along_x(pitch * (s + 0.5) + m["reed_offset_mm"], m=m) for s in range(n + 1)]
    centres = [(pitch * (s + 0.5), 0.0, h) for s in range(n + 1)]
    own = abs(mmf([(centres[0], up, 1)], reeds[0], mom))
    window = _window(m, mom, reeds[0], centres[0], up)
    worst = 0.0
    for k in range(1, n + 1):  # checkers 0..k-1 on the point, reed k must stay open
        contrib = [abs(mmf([(centres[s], up, 1)], reeds[k], mom)) for s in range(k)]
        worst = max(worst, sum(contrib))  # every checker's sign the worst way
    # sideways: the checker off the point's axis by up to a third of its radius
    side = abs(mmf([((centres[0][0], m["checker_d_mm"] / 6.0, h), up, 1)], reeds[0], mom))
    return {
        "moment_am2": round(mom, 4),
        "magnet_over_reed_mm": h,
        "close_limit_a": close,
        "open_limit_a": open_,
        "own_a": round(own, 1),
        "own_off_axis_a": round(side, 1),
        "window_mm": window,
        "neighbour_a": round(worst, 2),
        "close_margin": round(min(own, side) / close, 2),
        "neighbour_margin": round(open_ / worst, 1) if worst else float("inf"),
    }


def tray_figures(board_json, scheme):
    """``scheme``: "edge" (checkers on edge at tray_pitch_mm, magnets' axes along the trough
    either way, a reed along the trough in the side wall at the magnets' height, ``edge_gap``
    from their centres) or "flat2" (checkers flat in two staggered rows, each reed under its
    checker as on a point)."""
    m = board_json["mechanics"]
    n = board_json["sensors"]["tray_slots"]
    mom = moment(m)
    close, open_ = limits(m)
    if scheme == "edge":
        pitch = m["tray_pitch_mm"]
        gap = m["checker_h_mm"] / 2.0 + 2.0 + m["reed_w_mm"] / 2.0  # half a checker, wall, reed
        axis = (1.0, 0.0, 0.0)
        centres = [(pitch * s, 0.0, 0.0) for s in range(n)]
        reeds = [_reed_along_x(pitch * s, y=gap, m=m) for s in range(n)]
    elif scheme in ("flat2", "flat3"):
        pitch, _ = tray_rows(m)
        h = magnet_height(m)
        axis = (0.0, 0.0, 1.0)
        spots = tray_spots(m, n, int(scheme[-1]))
        centres = [(x, y, h) for x, y in spots]
        reeds = [_reed_along_x(x + m["reed_offset_mm"], y=y, m=m) for x, y in spots]
    else:
        raise ValueError("tray scheme: edge, flat2 or flat3, not %r" % scheme)
    own = abs(mmf([(centres[0], axis, 1)], reeds[0], mom))
    worst = 0.0
    for k in range(1, n):
        worst = max(worst, sum(abs(mmf([(centres[s], axis, 1)], reeds[k], mom)) for s in range(k)))
    return {
        "scheme": scheme,
        "pitch_mm": round(pitch, 2),
        "own_a": round(own, 1),
        "neighbour_a": round(worst, 2),
        "close_margin": round(own / close, 2),
        "neighbour_margin": round(open_ / worst, 2),
        "works": own >= close and worst <= open_,
    }


def tray_rows(m):
    """Two staggered rows of flat checkers, every neighbour a checker's diameter away (plus
    ``tray_clear_mm``): (pitch along the trough, distance between the rows)."""
    d = m["checker_d_mm"] + m["tray_clear_mm"]
    return d / 2.0, d * math.sqrt(3) / 2.0


def tray_spots(m, n, rows):
    """Where checker ``s`` of a tray lies (x along the trough from slot 0's centre, y across),
    flat, in ``rows`` staggered rows: two rows zig-zag (slot s in row s % 2); three rows fill
    a column of three (rows 0 and 2 in line, row 1 half a pitch on) before the next."""
    pitch, row = tray_rows(m)
    if rows == 2:
        return [(pitch * s, row * (s % 2)) for s in range(n)]
    if rows == 3:
        return [(2 * pitch * (s // 3) + pitch * (s % 3 % 2), row * (s % 3)) for s in range(n)]
    raise ValueError("rows: 2 or 3")


def main():
    board_json = json.loads((Path(__file__).resolve().parents[2] / "hardware" / "board.json").read_text())
    print(json.dumps({"point": point_figures(board_json)}, indent=1))
    for scheme in ("edge", "flat2", "flat3"):
        print(json.dumps(tray_figures(board_json, scheme), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
