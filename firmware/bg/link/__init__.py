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

# One CRC-16/CCITT-FALSE for frames and journal records: the records' table, read in place
from bg.record import crc16

PROTO_VERSION = const(2)  # 2: pairing by numeric comparison (X25519, docs/protocol.md)
SYNC = const(0xA7)
HEADER = const(7)
CRC_LEN = const(2)
MAC_LEN = const(8)
MAX_PAYLOAD = const(512)
MAX_FRAME = const(529)  # HEADER + MAX_PAYLOAD + MAC_LEN + CRC_LEN

FLAG_MAC = const(1)
FLAG_LAST = const(2)
_FLAGS_KNOWN = const(3)

# Requests (host -> board). The response to request t has type t | 0x40: every request type is
# below 0x20, so that no response can read as DATA (0x60), EVENT (0x61) or ERROR (0x7F).
REQ_INFO = const(0x01)
REQ_PAIR_START = const(0x02)
REQ_PAIR_CONFIRM = const(0x03)
REQ_AUTH_START = const(0x04)
REQ_AUTH_PROOF = const(0x05)
REQ_DECIDE = const(0x06)  # kind u8 + ...: a host decides for the board's computer (docs/protocol.md)
REQ_JOINT = const(0x07)  # kind u8 + ...: the other board's dice in a two-board match (docs/remote.md)
REQ_LIST = const(0x10)
REQ_FETCH = const(0x11)
REQ_ACK = const(0x12)  # no response: confirms an offset, grants credits
REQ_CANCEL = const(0x13)
REQ_DELETE = const(0x14)
REQ_WATCH = const(0x15)
REQ_REVEAL = const(0x16)
REQ_SET_CLOCK = const(0x17)
REQ_RENAME = const(0x18)
REQ_UNPAIR = const(0x19)
REQ_HOSTS = const(0x1A)
REQ_PLAYER_SEED = const(0x1B)  # commitment(32) + seed(16): a host's dice contribution
REQ_FW_BEGIN = const(0x1C)  # bundle id(32) + size u32 -> offset u32, size u32 (docs/update.md)
REQ_FW_CHUNK = const(0x1D)  # offset u32 + bytes -> offset u32 (where the stream now stands)
REQ_FW_COMMIT = const(0x1E)  # checks the stored bundle, marks it pending -> its version
REQ_CRASH_LOG = const(0x1F)  # start index u8: a page of the crash log (bg.crashlog)
RSP = const(0x40)
DATA = const(0x60)
EVENT = const(0x61)
ERROR = const(0x7F)
BAD = const(-1)  # Decoder.next() result for a frame that failed a check

# Error codes (payload of an ERROR frame: code u8, request type u8, request seq u16,
# retry-after ms u32, ASCII message).
E_CRC = const(1)
E_LENGTH = const(2)
E_FRAME = const(3)
E_TYPE = const(4)
E_PAYLOAD = const(5)
E_AUTH = const(6)
E_MAC = const(7)
E_SEQ = const(8)
E_BACKOFF = const(9)
E_PAIRING = const(10)
E_DENIED = const(11)
E_NOT_FOUND = const(12)
E_STATE = const(13)
E_BUSY = const(14)
E_STORE = const(15)
E_FULL = const(16)

# Match states reported by Store.list_matches().
STATE_LIVE = const(0)  # being played: cannot be deleted, seed not revealed
STATE_FINISHED = const(1)  # ended: may be deleted, seed may be revealed
STATE_ABANDONED = const(2)  # stopped without an end: may be deleted, seed may be revealed
STATE_DAMAGED = const(3)  # the board's journal found the file damaged: kept as is, not played on;
# like a live match it cannot be deleted and its seed is not revealed (fetch what is there)

# Event kinds (first byte of an EVENT payload).
EV_RECORD = const(0)
EV_LOST = const(1)  # events were dropped (slow link): re-fetch the live match

ID_LEN = const(8)
NONCE_LEN = const(16)
KEY_LEN = const(32)
PUB_LEN = const(32)  # an X25519 public value
MAX_HOSTS = const(8)
MAX_NAME = const(24)
LIST_PAGE = const(32)  # entries per LIST response (13 bytes each)
DIGEST_LEN = const(32)  # SHA-256 of a match file: a DELETE entry is match id + this
MAX_DELETE = const(12)  # DELETE entries per request (40 bytes each)

BACKOFF_BASE_MS = const(1000)
BACKOFF_MAX_MS = const(300000)
PAIR_CODE_MS = const(120000)  # a pairing (PAIR_START .. the button press) must end within this
PAIR_TRIES = const(3)  # PAIR_STARTs answered per opened window (a relay's tries: 3 x 10^-6)
PAIR_GAP_MS = const(2000)  # at most one PAIR_START (a key generation) per this, board-wide
UNAUTH_MS = const(10000)  # a connection not authenticated (nor pairing) this long is dropped
PROVE_MS = const(3000)  # after naming a paired host (AUTH_START), its slot is kept this long
EVENT_QUEUE = const(16)
OUT_QUEUE = const(8)
SEQ_MAX = 0xFFFFFFFF  # the last sequence number of an authenticated session (32-bit counter)


# ---------------------------------------------------------------- CRC


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
        flags |= FLAG_MAC
    head = struct.pack("<BBBHH", SYNC, ftype, flags, seq & 0xFFFF, n)
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
    """

    def __init__(self):
        self.buf = bytearray(MAX_FRAME)
        self.start = 0
        self.end = 0
        self.noise = 0

    def reset(self):
        """Forget a partial frame (the link calls this after an idle timeout)."""
        self.start = self.end = 0

    def pending(self):
        return self.end - self.start

    def feed(self, data, off=0):
        """Buffer bytes from ``data[off:]``; returns how many were taken (fewer than offered
        only when the buffer is full: call ``next()`` until None, then feed the rest)."""
        n = len(data) - off
        if self.start and self.end + n > MAX_FRAME:
            k = self.end - self.start
            self.buf[0:k] = self.buf[self.start : self.end]
            self.start, self.end = 0, k
        room = MAX_FRAME - self.end
        if n > room:
            n = room
        if n > 0:
            self.buf[self.end : self.end + n] = data[off : off + n]
            self.end += n
        return n if n > 0 else 0

    def next(self):
        buf = self.buf
        while True:
            s, e = self.start, self.end
            if s == e:
                return None
            if buf[s] != SYNC:
                i = s + 1
                while i < e and buf[i] != SYNC:
                    i += 1
                self.noise += i - s
                self.start = i
                continue
            if e - s < HEADER:
                return None
            flags = buf[s + 2]
            n = buf[s + 5] | (buf[s + 6] << 8)
            if n > MAX_PAYLOAD:
                return self._drop(E_LENGTH)
            if flags & ~_FLAGS_KNOWN:
                return self._drop(E_FRAME)
            total = HEADER + n + (MAC_LEN if flags & FLAG_MAC else 0) + CRC_LEN
            if e - s < total:
                return None
            c = crc16(buf, s, s + total - CRC_LEN)
            if (c & 0xFF) != buf[s + total - 2] or (c >> 8) != buf[s + total - 1]:
                return self._drop(E_CRC)
            p = s + HEADER
            mac = None
            if flags & FLAG_MAC:
                mac = bytes(buf[p + n : p + n + MAC_LEN])
            fr = Frame(
                buf[s + 1],
                flags,
                buf[s + 3] | (buf[s + 4] << 8),
                bytes(buf[p : p + n]),
                mac,
                bytes(buf[s + 1 : s + HEADER]),
            )
            self.start = s + total
            if self.start == self.end:
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
        return (E_FRAME, 0, 0, 0, "short error frame")
    code, t, s, r = struct.unpack("<BBHI", payload[:8])
    try:
        msg = payload[8:].decode()
    except UnicodeError:
        msg = "?"
    return code, t, s, r, msg


def check_name(raw):
    """A board or host name: 1..MAX_NAME bytes of UTF-8 without control characters."""
    if not 1 <= len(raw) <= MAX_NAME:
        raise ValueError("name must be 1..%d bytes" % MAX_NAME)
    try:
        name = bytes(raw).decode()
    except UnicodeError:
        raise ValueError("name is not UTF-8") from None
    for ch in name:
        if ord(ch) < 32 or ord(ch) == 127:
            raise ValueError("name has a control character")
    return name
