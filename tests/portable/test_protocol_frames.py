"""bg.link frames: CRC, encoding, the total stream decoder, names.

Runs unchanged under CPython and the MicroPython unix port.
"""

from bg import link as P
from bg.link import crypto


def _h(s):
    return bytes.fromhex(s)


def test_crc16_ccitt_false_check_value():
    assert P.crc16(b"123456789") == 0x29B1
    assert P.crc16(b"") == 0xFFFF


def test_crc16_table_is_the_polynomials():
    # the table is a bytes constant read in place: every entry is the polynomial's (computed
    # bit by bit here), and the CRC agrees with the records' own nibble-table CRC-16 on data
    # of every byte value and length 0..300
    from bg import record

    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        assert P._CRC_T[i] == c & 0xFFFF, i
    data = bytes((7 * i + (i >> 3)) & 0xFF for i in range(300))
    for n in (0, 1, 2, 17, 255, 256, 300):
        assert P.crc16(data, 0, n) == record.crc16(data, 0, n), n
    assert P.crc16(bytes(range(256))) == record.crc16(bytes(range(256)))


def test_frame_layout():
    f = P.encode_frame(P.REQ_LIST, 0x1234, b"\x05\x00")
    assert f[0] == P.SYNC and f[1] == P.REQ_LIST and f[2] == 0
    assert f[3:5] == b"\x34\x12" and f[5:7] == b"\x02\x00" and f[7:9] == b"\x05\x00"
    c = P.crc16(f[:-2])
    assert f[-2] == c & 0xFF and f[-1] == c >> 8
    assert len(f) == P.HEADER + 2 + P.CRC_LEN


def test_roundtrip_with_mac():
    mac = crypto.Mac(b"x" * 32)
    f = P.encode_frame(P.DATA, 9, b"hello", P.FLAG_LAST, mac, b"B")
    d = P.Decoder()
    d.feed(f)
    t, fr = d.next()
    assert t == P.DATA and fr.seq == 9 and fr.payload == b"hello"
    assert fr.flags == P.FLAG_LAST | P.FLAG_MAC
    assert fr.mac == mac.tag(b"B", fr.header, fr.payload)
    assert d.next() is None


def test_payload_too_long_is_a_value_error():
    try:
        P.encode_frame(P.DATA, 1, bytes(P.MAX_PAYLOAD + 1))
    except ValueError as e:
        assert "too long" in str(e)
    else:
        raise AssertionError("no error")


def test_decoder_byte_at_a_time():
    frames = [P.encode_frame(P.REQ_INFO, i, bytes([i]) * i) for i in range(1, 6)]
    d = P.Decoder()
    got = []
    for b in b"".join(frames):
        d.feed(bytes([b]))
        r = d.next()
        while r is not None:
            got.append(r[1].payload)
            r = d.next()
    assert got == [bytes([i]) * i for i in range(1, 6)]


def test_decoder_bad_crc_reported_then_resyncs():
    good = P.encode_frame(P.REQ_INFO, 1, b"ok")
    bad = bytearray(good)
    bad[8] ^= 0x40
    d = P.Decoder()
    d.feed(bytes(bad) + good)
    assert d.next() == (P.BAD, P.E_CRC)
    t, fr = d.next()
    assert t == P.REQ_INFO and fr.payload == b"ok"


def test_decoder_oversized_length_and_unknown_flags():
    d = P.Decoder()
    d.feed(bytes([P.SYNC, 1, 0, 0, 0, 0xFF, 0xFF]))
    assert d.next() == (P.BAD, P.E_LENGTH)
    d.feed(bytes([P.SYNC, 1, 0x80, 0, 0, 0, 0]))
    assert d.next() == (P.BAD, P.E_FRAME)


def test_decoder_skips_noise_and_finds_hidden_frame():
    good = P.encode_frame(P.REQ_INFO, 3, b"")
    d = P.Decoder()
    # a fake header claiming 40 bytes swallows the good frame, which is found on rescan
    d.feed(b"garbage" + bytes([P.SYNC, 1, 0, 0, 0, 40, 0]) + good + bytes(40))
    results = []
    r = d.next()
    while r is not None:
        results.append(r)
        r = d.next()
    assert (P.BAD, P.E_CRC) in results
    assert any(r[0] == P.REQ_INFO for r in results)
    assert d.noise >= 7


def test_decoder_feed_reports_partial_take_when_full():
    d = P.Decoder()
    data = bytes(2 * P.MAX_FRAME)  # zeros: all noise
    took = d.feed(data)
    assert took == P.MAX_FRAME
    assert d.next() is None and d.pending() == 0
    assert d.feed(data, took) == P.MAX_FRAME


def test_decoder_holds_no_buffer_at_rest():
    # a session's decoder between requests keeps no bytes (docs/memory.md): whole frames,
    # noise alone, a bad frame and a reset all leave it empty
    d = P.Decoder()
    assert d.buf is None
    for data in (
        P.encode_frame(P.REQ_INFO, 1, b"abc") + P.encode_frame(P.REQ_LIST, 2, b""),
        b"noise only",
        bytes([P.SYNC, 1, 0, 0, 0, 0xFF, 0xFF]),
    ):
        d.feed(data)
        while d.next() is not None:
            pass
        assert d.buf is None and d.pending() == 0, data
    d.feed(P.encode_frame(P.REQ_INFO, 3, b"x" * 40)[:20])
    assert d.next() is None and d.pending() == 20
    d.reset()
    assert d.buf is None and d.pending() == 0


def test_decoder_split_frame_one_buffer_of_its_length():
    # a frame over many small reads (BLE packets of MTU - 3 = 20 bytes): once its header is
    # in, one buffer the frame's size holds it; no read is lost or taken twice
    frame = P.encode_frame(P.REQ_FETCH, 9, bytes(range(200)) * 2 + b"end")
    d = P.Decoder()
    sizes = []
    for i in range(0, len(frame), 20):
        assert d.feed(frame[i : i + 20]) == len(frame[i : i + 20])
        sizes.append(len(d.buf) if d.buf is not None else None)
        r = d.next()
        if i + 20 < len(frame):
            assert r is None
    assert r is not None and r[1].payload == bytes(range(200)) * 2 + b"end"
    assert d.buf is None
    assert set(sizes[:-1]) == {len(frame)}, sizes


def test_decoder_keeps_a_partial_frame_after_whole_ones():
    a = P.encode_frame(P.REQ_INFO, 1, b"first")
    b = P.encode_frame(P.REQ_LIST, 2, b"second" * 30)
    d = P.Decoder()
    d.feed(a + b[:11])
    t, fr = d.next()
    assert t == P.REQ_INFO and fr.payload == b"first"
    assert d.next() is None and d.pending() == 11
    # the rest, then noise and another whole frame in one read
    d.feed(b[11:] + b"zz" + a)
    got = []
    r = d.next()
    while r is not None:
        got.append(r[1].payload)
        r = d.next()
    assert got == [b"second" * 30, b"first"] and d.buf is None


def test_two_streams_interleaved_stay_apart():
    # two connections' partial frames, fed in turns: each decoder assembles its own stream
    fa = [P.encode_frame(P.REQ_INFO, i, b"a" * (10 * i)) for i in range(1, 5)]
    fb = [P.encode_frame(P.REQ_HOSTS, i, b"b" * (7 * i)) for i in range(1, 5)]
    sa, sb = b"".join(fa), b"".join(fb)
    da, db = P.Decoder(), P.Decoder()
    ga, gb = [], []
    for i in range(0, max(len(sa), len(sb)), 13):
        for d, s, g in ((da, sa, ga), (db, sb, gb)):
            d.feed(s[i : i + 13])
            r = d.next()
            while r is not None:
                g.append((r[0], r[1].payload))
                r = d.next()
    assert ga == [(P.REQ_INFO, b"a" * (10 * i)) for i in range(1, 5)]
    assert gb == [(P.REQ_HOSTS, b"b" * (7 * i)) for i in range(1, 5)]
    assert da.buf is None and db.buf is None


def test_rare_names_are_found_as_the_module_s_own():
    # the names kept out of bg.link's dict (``_RARE``, docs/memory.md) read as any other, by
    # attribute and by ``from bg.link import``; an unknown name is still an AttributeError
    from bg.link import E_STATE, REQ_PAIR_START

    rare = P.rare_names()
    own = [n for n in P.__dict__ if not n.startswith("_")]  # (dir() on MicroPython asks getattr)
    assert len(rare) == len(set(rare)) >= 40 and not set(rare) & set(own)
    for n in rare:
        assert isinstance(getattr(P, n), int), n
    assert (E_STATE, REQ_PAIR_START, P.SYNC, P.MAX_FRAME) == (13, 2, 0xA7, 529)
    assert P.MAX_FRAME == P.HEADER + P.MAX_PAYLOAD + P.MAC_LEN + P.CRC_LEN
    codes = [getattr(P, n) for n in own + list(rare) if n.startswith("E_")]
    assert sorted(codes) == list(range(1, 17))
    for bad in ("E_NOPE", "rare_names_", "REQ_"):
        assert not hasattr(P, bad)
        try:
            getattr(P, bad)
        except AttributeError as e:
            assert bad in str(e)
        else:
            raise AssertionError(bad)


def test_link_submodules_are_all_named():
    # MicroPython's ``from bg.link import x`` asks the package's ``__getattr__`` first: it
    # imports the submodules it knows, and only those (another name is no attribute)
    import sys

    from bg.link import mac

    assert P.mac is mac and P.__getattr__("mac") is mac
    for bad in ("nope", "sys", "struct_"):
        try:
            P.__getattr__(bad)
        except AttributeError:
            continue
        raise AssertionError(bad)
    if sys.implementation.name != "micropython":  # (frozen on the board: no files to list)
        import os

        here = os.path.dirname(P.__file__)
        files = sorted(f[:-3] for f in os.listdir(here) if f.endswith(".py") and f != "__init__.py")
        assert files == sorted(P._SUBMODULES)


def test_link_module_dict_stays_small():
    # bg.link's own names (its submodules aside) fit a 59-slot dict with the link's modules
    # (session, board, mac, journal, and auth, crypto, info, requests... while used): one
    # more rare name here is 8 bytes of the board's heap, and past 59 names 584 B instead of 472
    own = [
        n
        for n, v in P.__dict__.items()
        if not n.startswith("__")
        and type(v) is not type(P)
        # a private const() (an int or a tuple) is no name on MicroPython: its compiler folds it
        and not (n.startswith("_") and type(v) in (int, tuple))
    ]
    assert len(own) <= 45, sorted(own)


def test_check_name():
    assert P.check_name(b"Kitchen") == "Kitchen"
    assert P.check_name("Küche".encode()) == "Küche"
    for bad in (b"", b"x" * 25, b"a\x00b", b"\xff\xfe"):
        try:
            P.check_name(bad)
        except ValueError:
            continue
        raise AssertionError(bad)
