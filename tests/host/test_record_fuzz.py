"""bg.record under hypothesis: any valid turn round-trips (compact or not), any byte string
decodes without an exception, and a decoded prefix is always a prefix of what was written."""

from bg import record as R
from hypothesis import given, settings
from hypothesis import strategies as st

die = st.integers(1, 6)
point = st.integers(1, 25)


@st.composite
def turns(draw):
    d1, d2 = draw(die), draw(die)
    n = draw(st.integers(0, 4 if d1 == d2 else 2))
    steps = []
    for k in range(n):
        f = draw(point)
        d = d1 if d1 == d2 or k == 0 else d2
        if draw(st.integers(0, 9)) == 0:  # sometimes a step no die explains
            t = draw(st.integers(0, 24))
        else:
            t = max(f - d, 0)
        steps += [f, t]
    flags = draw(st.sampled_from((0, 0, 0, R.PLAY_CASUAL_ACCEPTED_ILLEGAL)))
    return (draw(st.integers(0, 1)), d1, d2, tuple(steps), flags)


@settings(max_examples=1200, deadline=None)
@given(turns())
def test_any_turn_round_trips(t):
    b = R.encode(R.TURN, t)
    s, d1, d2, steps, flags = t
    d = R.decode_stream(b)
    assert list(d) == [(R.ROLL, (s, d1, d2)), (R.PLAY, (s, steps, flags))]
    assert d.valid == len(b)
    assert len(b) <= 5 or b[0] == R.ROLL


@settings(max_examples=1200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_decode_without_exception(data):
    d = R.decode_stream(data)
    n = 0
    for _ in d:
        n += 1
    assert 0 <= d.valid <= len(data)
    assert (d.status == R.OK) == (d.valid == len(data))


@settings(max_examples=500, deadline=None)
@given(st.lists(turns(), min_size=1, max_size=30), st.integers(0, 10**6), st.integers(1, 255))
def test_damage_never_yields_a_wrong_action(ts, where, flip):
    data = b"".join(R.encode(R.TURN, t) for t in ts)
    # record boundaries and the number of actions before each record
    starts, before = [], []
    i = n = 0
    while i < len(data):
        starts.append(i)
        before.append(n)
        kind, _, i = R.decode_record(data, i)
        n += 2 if kind == R.TURN else 1
    exp = list(R.decode_stream(data))
    at = where % len(data)
    r = max(k for k in range(len(starts)) if starts[k] <= at)
    bad = bytearray(data)
    bad[at] ^= flip
    got = list(R.decode_stream(bytes(bad)))
    # records wholly before the damage decode exactly
    assert got[: before[r]] == exp[: before[r]]
    framing = at == starts[r] or (data[starts[r]] < 0x80 and at == starts[r] + 1)
    if not framing:
        # a byte changed inside a record's payload or checksum is always caught there
        assert got == exp[: before[r]]
