"""The board's link protocol: frames, pairing, authenticated sessions and transfers.

Portable (MicroPython and CPython). The same code runs on the board (``Board`` +
``Session``, one ``Session`` per connected host) and in the host tool (``encode_frame``,
``Decoder``, ``hmac_sha256`` and the key-derivation helpers), so both ends share one
definition of every byte. ``docs/protocol.md`` is the human-readable specification.

A frame (all integers little-endian)::

    0  sync   0xA7
    1  type   request 0x01..0x3F, response = request | 0x40, DATA 0x60, EVENT 0x61, ERROR 0x7F
    2  flags  bit0 MAC present, bit1 LAST (final DATA frame); other bits must be 0
    3  seq    u16  sender's sequence number (the low 16 bits of a 32-bit session counter)
    5  len    u16  payload length, at most MAX_PAYLOAD
    7  payload
       mac    8 bytes, when flags bit0: HMAC-SHA-256(session key, dir [|| epoch u16, when
              not 0] || bytes 1..6 || payload)[:8]; epoch = the counter's high 16 bits
       crc    u16  CRC-16/CCITT-FALSE over everything before it

Example (host side, unauthenticated board-info request)::

    >>> frame = encode_frame(REQ_INFO, 1, b"")
    >>> dec = Decoder()
    >>> dec.feed(frame)
    >>> dec.next()[0] == REQ_INFO
    True

The board's side is ``bg.link.board`` (``Board``, ``Session``), its storage contract
``bg.link.store`` (``Store``, ``MemoryStore``), the host's side ``bg.link.host`` (``HostEnd``).
Each concern is its own module, loaded only when a host connects. Nothing here blocks or
awaits: the app's link task (``app/link.py``) drives it.
"""

import struct

from micropython import const

_SYNC = const(0xA7)
HEADER = const(7)
CRC_LEN = const(2)
MAC_LEN = const(8)
MAX_PAYLOAD = const(512)
_MAX_FRAME = const(529)  # HEADER + MAX_PAYLOAD + MAC_LEN + CRC_LEN

_FLAG_MAC = const(1)
FLAG_LAST = const(2)
_FLAGS_KNOWN = const(3)

# Requests (host -> board). The response to request t has type t | 0x40: every request type is
# below 0x20, so that no response can read as DATA (0x60), EVENT (0x61) or ERROR (0x7F).
# (The others are in _RARE below.)
REQ_INFO = const(0x01)
REQ_AUTH_PROOF = const(0x05)
REQ_DECIDE = const(0x06)  # kind u8 + ...: a host decides for the board's computer (docs/protocol.md)
REQ_JOINT = const(0x07)  # kind u8 + ...: the other board's dice in a two-board match (docs/remote.md)
REQ_LIST = const(0x10)
REQ_FETCH = const(0x11)
REQ_FW_BEGIN = const(0x1C)  # bundle id(32) + size u32 -> offset u32, size u32 (docs/update.md)
REQ_FW_COMMIT = const(0x1E)  # checks the stored bundle, marks it pending -> its version
REQ_CRASH_LOG = const(0x1F)  # start index u8: a page of the crash log (bg.crashlog)
RSP = const(0x40)
DATA = const(0x60)
EVENT = const(0x61)
ERROR = const(0x7F)
BAD = const(-1)  # Decoder.next() result for a frame that failed a check

# Error codes (payload of an ERROR frame: code u8, request type u8, request seq u16,
# retry-after ms u32, ASCII message). (The others are in _RARE below.)
_E_CRC = const(1)
_E_LENGTH = const(2)
_E_FRAME = const(3)
E_TYPE = const(4)
E_PAYLOAD = const(5)
E_AUTH = const(6)
E_MAC = const(7)
E_SEQ = const(8)
E_NOT_FOUND = const(12)
E_BUSY = const(14)
E_STORE = const(15)

# Event kinds (first byte of an EVENT payload).
EV_RECORD = const(0)
EV_LOST = const(1)  # events were dropped (slow link): re-fetch the live match

_MAX_NAME = const(24)
PAIR_TRIES = const(3)  # PAIR_STARTs answered per opened window (a relay's tries: 3 x 10^-6)
UNAUTH_MS = const(10000)  # a connection not authenticated (nor pairing) this long is dropped
EVENT_QUEUE = const(16)
OUT_QUEUE = const(8)
SEQ_MAX = 0xFFFFFFFF  # the last sequence number of an authenticated session (32-bit counter)

# The protocol's other names, each read by a module loaded for one kind of request (pairing,
# login, sync, updates: bg.link.auth, .requests...), on a rare path (a pairing, a failed proof)
# or by the host only: ``bg.link.NAME`` finds them here through ``__getattr__`` (PEP 562; on
# the host too), name then value. A constant table stays in flash; as names of this module
# they took the board's heap 8 bytes each while the link is loaded (94 names, a 97-slot dict).
# fmt: off
_RARE = const((
    "SYNC", _SYNC,
    "PROTO_VERSION", 2,  # 2: pairing by numeric comparison (X25519, docs/protocol.md)
    "MAX_FRAME", _MAX_FRAME,
    "FLAG_MAC", _FLAG_MAC,
    "REQ_PAIR_START", 0x02,
    "REQ_PAIR_CONFIRM", 0x03,
    "REQ_AUTH_START", 0x04,
    "REQ_ACK", 0x12,  # no response: confirms an offset, grants credits
    "REQ_CANCEL", 0x13,
    "REQ_DELETE", 0x14,
    "REQ_WATCH", 0x15,
    "REQ_REVEAL", 0x16,
    "REQ_SET_CLOCK", 0x17,
    "REQ_RENAME", 0x18,
    "REQ_UNPAIR", 0x19,
    "REQ_HOSTS", 0x1A,
    "REQ_PLAYER_SEED", 0x1B,  # commitment(32) + seed(16): a host's dice contribution
    "REQ_FW_CHUNK", 0x1D,  # offset u32 + bytes -> offset u32 (where the stream now stands)
    "E_CRC", _E_CRC,
    "E_LENGTH", _E_LENGTH,
    "E_FRAME", _E_FRAME,
    "E_BACKOFF", 9,
    "E_PAIRING", 10,
    "E_DENIED", 11,
    "E_STATE", 13,
    "E_FULL", 16,
    # match states reported by Store.list_matches()
    "STATE_LIVE", 0,  # being played: cannot be deleted, seed not revealed
    "STATE_FINISHED", 1,  # ended: may be deleted, seed may be revealed
    "STATE_ABANDONED", 2,  # stopped without an end: may be deleted, seed may be revealed
    "STATE_DAMAGED", 3,  # the board's journal found the file damaged: kept as is, not played
    # on; like a live match it cannot be deleted and its seed is not revealed (fetch what is there)
    "ID_LEN", 8,
    "NONCE_LEN", 16,
    "KEY_LEN", 32,
    "PUB_LEN", 32,  # an X25519 public value
    "MAX_HOSTS", 8,
    "MAX_NAME", _MAX_NAME,
    "LIST_PAGE", 32,  # entries per LIST response (13 bytes each)
    "DIGEST_LEN", 32,  # SHA-256 of a match file: a DELETE entry is match id + this
    "MAX_DELETE", 12,  # DELETE entries per request (40 bytes each)
    "BACKOFF_BASE_MS", 1000,
    "BACKOFF_MAX_MS", 300000,
    "PAIR_CODE_MS", 120000,  # a pairing (PAIR_START .. the button press) must end within this
    "PAIR_GAP_MS", 2000,  # at most one PAIR_START (a key generation) per this, board-wide
    "PROVE_MS", 3000,  # after naming a paired host (AUTH_START), its slot is kept this long
))
# fmt: on

# The package's modules, for ``__getattr__`` (``test_link_submodules_are_all_named`` checks
# this against the package's files)
_SUBMODULES = const(
    (
        "auth",
        "board",
        "crypto",
        "decide",
        "fwupdate",
        "host",
        "info",
        "joint",
        "journal",
        "mac",
        "requests",
        "session",
        "store",
    )
)


def __getattr__(name: str) -> int:
    """A name of ``_RARE``, or a submodule (PEP 562: called only for a name this module does
    not hold)."""
    try:
        return _RARE[_RARE.index(name) + 1]
    except ValueError:  # (a value is an int: no name equals one)
        pass
    # MicroPython's ``from bg.link import auth`` asks here first, and imports a submodule only
    # when no attribute answers: a submodule not loaded yet is imported here
    if name not in _SUBMODULES:
        raise AttributeError(name)
    import sys

    __import__("bg.link." + name)
    return sys.modules["bg.link." + name]  # pyright: ignore[reportReturnType] - a submodule


def rare_names():
    """The names ``__getattr__`` finds in ``_RARE`` (they are not in the module's dict)."""
    return tuple(_RARE[i] for i in range(0, len(_RARE), 2))


# ---------------------------------------------------------------- CRC


# The CRC's 256 16-bit entries (poly 0x1021, one per byte value) as little-endian bytes: frozen
# into the firmware they stay in flash and are read in place through a ``uctypes`` array (an
# array built at import kept 512 bytes of the board's heap while the link is loaded);
# ``test_crc16_table_is_the_polynomials`` recomputes every entry on both interpreters.
_CRC_B = (
    b"\x00\x00\x21\x10\x42\x20\x63\x30\x84\x40\xa5\x50\xc6\x60\xe7\x70\x08\x81\x29\x91\x4a\xa1\x6b\xb1"
    b"\x8c\xc1\xad\xd1\xce\xe1\xef\xf1\x31\x12\x10\x02\x73\x32\x52\x22\xb5\x52\x94\x42\xf7\x72\xd6\x62"
    b"\x39\x93\x18\x83\x7b\xb3\x5a\xa3\xbd\xd3\x9c\xc3\xff\xf3\xde\xe3\x62\x24\x43\x34\x20\x04\x01\x14"
    b"\xe6\x64\xc7\x74\xa4\x44\x85\x54\x6a\xa5\x4b\xb5\x28\x85\x09\x95\xee\xe5\xcf\xf5\xac\xc5\x8d\xd5"
    b"\x53\x36\x72\x26\x11\x16\x30\x06\xd7\x76\xf6\x66\x95\x56\xb4\x46\x5b\xb7\x7a\xa7\x19\x97\x38\x87"
    b"\xdf\xf7\xfe\xe7\x9d\xd7\xbc\xc7\xc4\x48\xe5\x58\x86\x68\xa7\x78\x40\x08\x61\x18\x02\x28\x23\x38"
    b"\xcc\xc9\xed\xd9\x8e\xe9\xaf\xf9\x48\x89\x69\x99\x0a\xa9\x2b\xb9\xf5\x5a\xd4\x4a\xb7\x7a\x96\x6a"
    b"\x71\x1a\x50\x0a\x33\x3a\x12\x2a\xfd\xdb\xdc\xcb\xbf\xfb\x9e\xeb\x79\x9b\x58\x8b\x3b\xbb\x1a\xab"
    b"\xa6\x6c\x87\x7c\xe4\x4c\xc5\x5c\x22\x2c\x03\x3c\x60\x0c\x41\x1c\xae\xed\x8f\xfd\xec\xcd\xcd\xdd"
    b"\x2a\xad\x0b\xbd\x68\x8d\x49\x9d\x97\x7e\xb6\x6e\xd5\x5e\xf4\x4e\x13\x3e\x32\x2e\x51\x1e\x70\x0e"
    b"\x9f\xff\xbe\xef\xdd\xdf\xfc\xcf\x1b\xbf\x3a\xaf\x59\x9f\x78\x8f\x88\x91\xa9\x81\xca\xb1\xeb\xa1"
    b"\x0c\xd1\x2d\xc1\x4e\xf1\x6f\xe1\x80\x10\xa1\x00\xc2\x30\xe3\x20\x04\x50\x25\x40\x46\x70\x67\x60"
    b"\xb9\x83\x98\x93\xfb\xa3\xda\xb3\x3d\xc3\x1c\xd3\x7f\xe3\x5e\xf3\xb1\x02\x90\x12\xf3\x22\xd2\x32"
    b"\x35\x42\x14\x52\x77\x62\x56\x72\xea\xb5\xcb\xa5\xa8\x95\x89\x85\x6e\xf5\x4f\xe5\x2c\xd5\x0d\xc5"
    b"\xe2\x34\xc3\x24\xa0\x14\x81\x04\x66\x74\x47\x64\x24\x54\x05\x44\xdb\xa7\xfa\xb7\x99\x87\xb8\x97"
    b"\x5f\xe7\x7e\xf7\x1d\xc7\x3c\xd7\xd3\x26\xf2\x36\x91\x06\xb0\x16\x57\x66\x76\x76\x15\x46\x34\x56"
    b"\x4c\xd9\x6d\xc9\x0e\xf9\x2f\xe9\xc8\x99\xe9\x89\x8a\xb9\xab\xa9\x44\x58\x65\x48\x06\x78\x27\x68"
    b"\xc0\x18\xe1\x08\x82\x38\xa3\x28\x7d\xcb\x5c\xdb\x3f\xeb\x1e\xfb\xf9\x8b\xd8\x9b\xbb\xab\x9a\xbb"
    b"\x75\x4a\x54\x5a\x37\x6a\x16\x7a\xf1\x0a\xd0\x1a\xb3\x2a\x92\x3a\x2e\xfd\x0f\xed\x6c\xdd\x4d\xcd"
    b"\xaa\xbd\x8b\xad\xe8\x9d\xc9\x8d\x26\x7c\x07\x6c\x64\x5c\x45\x4c\xa2\x3c\x83\x2c\xe0\x1c\xc1\x0c"
    b"\x1f\xef\x3e\xff\x5d\xcf\x7c\xdf\x9b\xaf\xba\xbf\xd9\x8f\xf8\x9f\x17\x6e\x36\x7e\x55\x4e\x74\x5e"
    b"\x93\x2e\xb2\x3e\xd1\x0e\xf0\x1e"
)


def _crc_view(b):
    try:
        import uctypes
    except ImportError:  # CPython
        import sys
        from array import array

        a = array("H", b)
        if sys.byteorder != "little":
            a.byteswap()
        return a
    return uctypes.struct(
        uctypes.addressof(b), {"t": (uctypes.ARRAY | 0, uctypes.UINT16 | 256)}, uctypes.LITTLE_ENDIAN
    ).t


_CRC_T = _crc_view(_CRC_B)  # _CRC_B stays bound: the view holds only its address
# not read again (nor ``const``, once this module is compiled): their slots in this module's
# dict are left for the link's submodules (docs/memory.md: under 60 names, 59 slots)
del _crc_view, const


def crc16(buf, start=0, end=-1, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of ``buf[start:end]``.

    >>> crc16(b"123456789") == 0x29B1
    True
    """
    if end < 0:
        end = len(buf)
    t = _CRC_T
    for i in range(start, end):
        crc = ((crc << 8) & 0xFFFF) ^ t[((crc >> 8) ^ buf[i]) & 0xFF]
    return crc


# ---------------------------------------------------------------- frames


def encode_frame(ftype, seq, payload, flags=0, mac=None, direction=b"B"):
    """One frame as bytes. With ``mac`` (a ``Mac``) the MAC flag is set and the tag appended;
    ``seq`` is then the session's 32-bit counter: its low 16 bits go in the header, its high
    16 bits (the epoch) into the MAC only.

    >>> len(encode_frame(REQ_INFO, 7, b"abc"))
    12
    """
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise ValueError("payload too long: %d > %d" % (n, MAX_PAYLOAD))
    if mac is not None:
        flags |= _FLAG_MAC
    head = struct.pack("<BBBHH", _SYNC, ftype, flags, seq & 0xFFFF, n)
    out = bytearray(head)
    out += payload
    if mac is not None:
        epoch = (seq >> 16) & 0xFFFF
        if epoch:
            out += mac.tag(direction, head[1:], payload, epoch)
        else:  # the first 65,535 frames: tagged as by the 16-bit protocol
            out += mac.tag(direction, head[1:], payload)
    c = crc16(out)
    out.append(c & 0xFF)
    out.append(c >> 8)
    return bytes(out)


class Frame:
    """A decoded frame: ``type``, ``flags``, ``seq``, ``payload`` (bytes), ``mac`` (bytes or
    None) and ``header`` (the six bytes after sync, as covered by the MAC)."""

    __slots__ = ("type", "flags", "seq", "payload", "mac", "header")

    def __init__(self, ftype, flags, seq, payload, mac, header):
        self.type = ftype
        self.flags = flags
        self.seq = seq
        self.payload = payload
        self.mac = mac
        self.header = header


class Decoder:
    """A total stream parser: any bytes in, frames or error codes out, never an exception.

    ``feed(data)`` buffers bytes (at most ``MAX_FRAME`` pending); ``next()`` returns
    ``(frame_type, Frame)`` for a good frame, ``(BAD, code)`` for a bad one, or ``None``
    when more bytes are needed. Bytes before a sync byte are skipped (counted in ``noise``).
    After a bad length, flags or CRC the parser drops the sync byte and rescans, so a valid
    frame hidden behind garbage is still found.

    The pending bytes live in a buffer made when bytes arrive and dropped once all of them
    are parsed: between a host's requests a session keeps none (a ``MAX_FRAME`` buffer held
    for every connection cost 560 B of the board's heap, docs/memory.md). Each stream has its
    own decoder, so no stream's leftover bytes meet another's. A frame split over several
    reads is assembled in one buffer sized for the whole frame once its header is in.
    """

    def __init__(self):
        self.buf = None  # bytearray while bytes are pending, else None
        self.start = 0
        self.end = 0
        self.noise = 0

    def reset(self):
        """Forget a partial frame (the link calls this after an idle timeout)."""
        self.buf = None
        self.start = self.end = 0

    def pending(self):
        return self.end - self.start

    def feed(self, data, off=0):
        """Buffer bytes from ``data[off:]``; returns how many were taken (fewer than offered
        only when ``MAX_FRAME`` bytes would be pending: call ``next()`` until None, then feed
        the rest)."""
        s, e = self.start, self.end
        k = e - s
        n = len(data) - off
        if n > _MAX_FRAME - k:
            n = _MAX_FRAME - k
        if n <= 0:
            return 0
        buf = self.buf
        if buf is None or e + n > len(buf):
            want = k + n
            # a frame in flight (its header in): room for all of it at once, not a buffer per read
            b, i = (buf, s) if k >= HEADER else (data, off) if not k and n >= HEADER else (None, 0)
            if b is not None and b[i] == _SYNC:
                f = HEADER + (b[i + 5] | (b[i + 6] << 8)) + CRC_LEN + (MAC_LEN if b[i + 2] & _FLAG_MAC else 0)
                if f > want:
                    want = f if f < _MAX_FRAME else _MAX_FRAME
            if buf is not None and len(buf) >= want:
                buf[0:k] = buf[s:e]  # room enough once the parsed bytes are gone
            else:
                new = bytearray(want)
                if buf is not None:  # (None: nothing pending)
                    new[0:k] = buf[s:e]
                self.buf = buf = new
            self.start, self.end = s, e = 0, k
        buf[e : e + n] = data[off : off + n]
        self.end = e + n
        return n

    def next(self):
        buf = self.buf
        if buf is None:
            return None  # nothing pending
        while True:
            s, e = self.start, self.end
            if s == e:
                self.buf = None  # all parsed: nothing held between requests
                self.start = self.end = 0
                return None
            if buf[s] != _SYNC:
                i = s + 1
                while i < e and buf[i] != _SYNC:
                    i += 1
                self.noise += i - s
                self.start = i
                continue
            if e - s < HEADER:
                return None
            flags = buf[s + 2]
            n = buf[s + 5] | (buf[s + 6] << 8)
            if n > MAX_PAYLOAD:
                return self._drop(_E_LENGTH)
            if flags & ~_FLAGS_KNOWN:
                return self._drop(_E_FRAME)
            total = HEADER + n + (MAC_LEN if flags & _FLAG_MAC else 0) + CRC_LEN
            if e - s < total:
                return None
            c = crc16(buf, s, s + total - CRC_LEN)
            if (c & 0xFF) != buf[s + total - 2] or (c >> 8) != buf[s + total - 1]:
                return self._drop(_E_CRC)
            p = s + HEADER
            mac = None
            if flags & _FLAG_MAC:
                mac = bytes(buf[p + n : p + n + MAC_LEN])
            fr = Frame(
                buf[s + 1],
                flags,
                buf[s + 3] | (buf[s + 4] << 8),
                bytes(buf[p : p + n]),
                mac,
                bytes(buf[s + 1 : s + HEADER]),
            )
            self.start = s = s + total
            if s == e:
                self.buf = None
                self.start = self.end = 0
            return fr.type, fr

    def _drop(self, code):
        self.start += 1
        return BAD, code


def error_payload(code, req_type=0, req_seq=0, retry_ms=0, msg=None):
    if msg is None:
        msg = ""  # the host has the long names (bg.link.host.ERROR_NAMES); save the board's RAM
    return struct.pack("<BBHI", code, req_type, req_seq & 0xFFFF, retry_ms) + msg.encode()[:60]


def parse_error(payload):
    """(code, request type, request seq, retry ms, message) of an ERROR payload."""
    if len(payload) < 8:
        return (_E_FRAME, 0, 0, 0, "short error frame")
    code, t, s, r = struct.unpack("<BBHI", payload[:8])
    try:
        msg = payload[8:].decode()
    except UnicodeError:
        msg = "?"
    return code, t, s, r, msg


def check_name(raw):
    """A board or host name: 1..MAX_NAME bytes of UTF-8 without control characters."""
    if not 1 <= len(raw) <= _MAX_NAME:
        raise ValueError("name must be 1..%d bytes" % _MAX_NAME)
    try:
        name = bytes(raw).decode()
    except UnicodeError:
        raise ValueError("name is not UTF-8") from None
    for ch in name:
        if ord(ch) < 32 or ord(ch) == 127:
            raise ValueError("name has a control character")
    return name
