"""Dice statistics for ``gammon dice-stats`` and the statistical test: counts, chi-square with
p-values (the chi-square survival function written here with ``math`` only), doubles rate,
serial correlation, and an SVG picture.

Example::

    >>> s = DiceStats()
    >>> for d in [(1, 2), (3, 3), (6, 5)]:
    ...     s.add(d[0], d[1])
    >>> s.throws, s.doubles
    (3, 1)
    >>> round(chi2_sf(11.0705, 5), 4)
    0.05
"""

import math

_EPS = 1e-15
_TINY = 1e-300


# Distributions ------------------------------------------------------------------------


def gamma_q(a, x):
    """Regularised upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a): a power series
    for x < a + 1, Lentz's continued fraction otherwise (Numerical Recipes, ch. 6.2), both
    accurate to ~1e-14 relative, including far tails (Q ~ 1e-12)."""
    if a <= 0:
        raise ValueError("gamma_q needs a > 0")
    if x <= 0:
        return 1.0
    lead = math.exp(-x + a * math.log(x) - math.lgamma(a))
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(100000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * _EPS:
                break
        return max(0.0, 1.0 - total * lead)
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPS:
            break
    return lead * h


def chi2_sf(x, df):
    """P(X >= x) for X chi-square with ``df`` degrees of freedom."""
    return gamma_q(df / 2.0, x / 2.0)


def chi2_isf(p, df):
    """The x with ``chi2_sf(x, df) == p`` (bisection; used for the documented thresholds)."""
    lo, hi = 0.0, 1.0
    while chi2_sf(hi, df) > p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if chi2_sf(mid, df) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def normal_sf2(z):
    """Two-sided normal tail P(|Z| >= |z|)."""
    return math.erfc(abs(z) / math.sqrt(2))


def normal_isf2(p):
    """|z| with ``normal_sf2(z) == p``."""
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if normal_sf2(mid) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def chi2_stat(counts, probs):
    n = sum(counts)
    if n == 0:
        return 0.0
    return sum((c - n * p) ** 2 / (n * p) for c, p in zip(counts, probs))


# Counting -------------------------------------------------------------------------------

_MEAN = 3.5
_VAR = 35.0 / 12.0  # variance of a fair die


class DiceStats:
    """Accumulates throws ``(d1, d2)`` in order (order matters for the serial statistics)."""

    def __init__(self):
        self.faces = [0] * 6
        self.pairs = [0] * 36  # ordered (d1, d2): index 6 * (d1 - 1) + (d2 - 1)
        self.across = [0] * 36  # (first die of throw 2j, first die of throw 2j + 1)
        self.throws = 0
        self.doubles = 0
        self._lag_sum = 0.0  # sum of (f_i - 3.5)(f_{i+1} - 3.5) over the face sequence
        self._lag_n = 0
        self._last = 0
        self._held = 0

    def add(self, d1, d2):
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError("die faces are 1..6, got %r-%r" % (d1, d2))
        self.faces[d1 - 1] += 1
        self.faces[d2 - 1] += 1
        self.pairs[6 * d1 + d2 - 7] += 1
        if d1 == d2:
            self.doubles += 1
        if self._held:
            self.across[6 * self._held + d1 - 7] += 1
            self._held = 0
        else:
            self._held = d1
        if self._last:
            self._lag_sum += (self._last - _MEAN) * (d1 - _MEAN)
            self._lag_n += 1
        self._lag_sum += (d1 - _MEAN) * (d2 - _MEAN)
        self._lag_n += 1
        self._last = d2
        self.throws += 1

    def add_all(self, rolls):
        for r in rolls:
            self.add(r[0], r[1])
        return self

    def unordered(self):
        """Counts of the 21 throws players tell apart: ``{(hi, lo): count}``."""
        out = {}
        for a in range(1, 7):
            for b in range(1, a + 1):
                c = self.pairs[6 * a + b - 7]
                if a != b:
                    c += self.pairs[6 * b + a - 7]
                out[(a, b)] = c
        return out

    def tests(self):
        """Every test as ``{name: (statistic, df or None, p_value)}``."""
        u = self.unordered()
        keys = sorted(u)
        uprobs = [(1 if a == b else 2) / 36.0 for a, b in keys]
        n = self.throws
        out = {
            "faces": (chi2_stat(self.faces, [1 / 6.0] * 6), 5),
            "pairs_ordered": (chi2_stat(self.pairs, [1 / 36.0] * 36), 35),
            "pairs_unordered": (chi2_stat([u[k] for k in keys], uprobs), 20),
            "across_throws": (chi2_stat(self.across, [1 / 36.0] * 36), 35),
        }
        res = {name: (x, df, chi2_sf(x, df)) for name, (x, df) in out.items()}
        if n:
            z = (self.doubles - n / 6.0) / math.sqrt(n * (1 / 6.0) * (5 / 6.0))
            res["doubles"] = (z, None, normal_sf2(z))
        if self._lag_n:
            z = self._lag_sum / (_VAR * math.sqrt(self._lag_n))
            res["serial_lag1"] = (z, None, normal_sf2(z))
        return res

    def serial_r(self):
        """Lag-1 correlation of the face sequence (d1, d2, d1, d2, ...) about the fair mean."""
        return self._lag_sum / (_VAR * self._lag_n) if self._lag_n else 0.0


# Picture ---------------------------------------------------------------------------------

# Okabe-Ito colour-blind-safe: blue below expectation, orange above, grey neutral.
_BLUE = (0, 114, 178)
_ORANGE = (230, 159, 0)


def _mix(z):
    t = min(1.0, abs(z) / 3.0)
    c = _ORANGE if z > 0 else _BLUE
    r, g, b = (int(255 + (ci - 255) * t) for ci in c)
    return "#%02x%02x%02x" % (r, g, b)


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg(stats, title="Dice"):
    """An SVG picture: face counts against the fair expectation (with a 2-sigma band) and the
    36 ordered pairs as a heat map coloured by their deviation in standard deviations."""
    W, H = 760, 380
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="sans-serif" font-size="12">' % (W, H, W, H),
        '<rect width="100%" height="100%" fill="white"/>',
    ]
    t = stats.tests()
    head = "%s: %d throws, doubles %.2f%% (fair 16.67%%)" % (
        title,
        stats.throws,
        100.0 * stats.doubles / stats.throws if stats.throws else 0.0,
    )
    out.append('<text x="20" y="24" font-size="15" font-weight="bold">%s</text>' % _esc(head))
    if "faces" in t:
        out.append(
            '<text x="20" y="44">faces: chi-square %.2f (df 5), p = %.3g; '
            "pairs: chi-square %.2f (df 35), p = %.3g</text>"
            % (t["faces"][0], t["faces"][2], t["pairs_ordered"][0], t["pairs_ordered"][2])
        )
    # bar chart
    x0, y0, bw, ch = 40, 330, 45, 240
    n = sum(stats.faces)
    exp = n / 6.0
    top = max(max(stats.faces), exp + 2 * math.sqrt(exp * 5 / 6.0) if n else 1, 1) * 1.1
    sd = math.sqrt(exp * 5 / 6.0) if n else 0

    def ypos(v):
        return y0 - ch * v / top

    out.append(
        '<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="#ececec"/>'
        % (x0 - 5, ypos(exp + 2 * sd), 6 * (bw + 10) + 5, ypos(exp - 2 * sd) - ypos(exp + 2 * sd))
    )
    for i, c in enumerate(stats.faces):
        x = x0 + i * (bw + 10)
        z = (c - exp) / sd if sd else 0
        out.append(
            '<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s" stroke="#333"/>'
            % (x, ypos(c), bw, y0 - ypos(c), _mix(z) if abs(z) > 0.5 else "#b8b8b8")
        )
        out.append('<text x="%d" y="%d" text-anchor="middle">%d</text>' % (x + bw // 2, y0 + 16, i + 1))
        out.append(
            '<text x="%d" y="%.1f" text-anchor="middle" font-size="10">%d</text>'
            % (x + bw // 2, ypos(c) - 3, c)
        )
    out.append(
        '<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="4 3"/>'
        % (x0 - 5, x0 + 6 * (bw + 10), ypos(exp), ypos(exp))
    )
    out.append('<text x="%d" y="%d">faces (dashed: fair; grey band: 2 sigma)</text>' % (x0, y0 + 36))
    # heat map
    hx, hy, cs = 430, 70, 40
    pe = stats.throws / 36.0
    psd = math.sqrt(pe * 35 / 36.0) if stats.throws else 0
    for a in range(6):
        mid = a * cs + cs // 2
        out.append('<text x="%d" y="%d" text-anchor="middle">%d</text>' % (hx + mid, hy - 6, a + 1))
        out.append('<text x="%d" y="%d" text-anchor="end">%d</text>' % (hx - 6, hy + mid + 4, a + 1))
        for b in range(6):
            c = stats.pairs[6 * a + b]
            z = (c - pe) / psd if psd else 0
            out.append(
                '<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="white"/>'
                % (hx + b * cs, hy + a * cs, cs, cs, _mix(z))
            )
            out.append(
                '<text x="%d" y="%d" text-anchor="middle" font-size="10">%d</text>'
                % (hx + b * cs + cs // 2, hy + a * cs + cs // 2 + 4, c)
            )
    out.append('<text x="%d" y="%d">pairs: row = first die, column = second</text>' % (hx, hy + 6 * cs + 20))
    out.append(
        '<text x="%d" y="%d">blue: fewer than fair, orange: more (3 sigma = full colour)</text>'
        % (hx, hy + 6 * cs + 36)
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"
