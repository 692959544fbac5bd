"""The hub's local wire (``gammon.hub``): between the ``gammon`` commands and the one process
that holds the board's link, over a unix socket.

Every message is ``kind u8, a u8, b u8, length u32 (little-endian), body``:

==========  =====  ====================================================================
kind        dir    meaning
==========  =====  ====================================================================
HELLO       C->H   body: the board's address; answered by READY or FAIL
REQ         C->H   a = request type, body = its payload (sent to the board unchanged)
QUIT        C->H   let go of the board now (``gammon pair`` needs its only slot)
READY       H->C   body: the board's id (8 bytes): the session is authenticated
FRAME       H->C   a = frame type, b = flags, body = payload: a board frame for this client
FAIL        H->C   a = protocol code, body = retry ms u32 + UTF-8 text; the hub hangs up
SENT        H->C   this client's request went to the board now (it may have waited its turn)
==========  =====  ====================================================================

Board frames travel checked: the hub verifies their MACs and sequence numbers (the session's
keys stay in the hub), so a client trusts what arrives as much as the same user's files."""

import struct

from gammon.link.base import LinkError

HEAD = struct.Struct("<BBBI")
MAX_BODY = 1 << 16  # a board payload is at most 512 bytes; anything far bigger is not ours

HELLO = 1
REQ = 2
QUIT = 3
READY = 0x81
FRAME = 0x82
FAIL = 0x83
SENT = 0x84


def pack(kind, a=0, b=0, body=b""):
    return HEAD.pack(kind, a, b, len(body)) + bytes(body)


def fail(text, code=0, retry_ms=0):
    return pack(FAIL, code & 0xFF, 0, struct.pack("<I", retry_ms & 0xFFFFFFFF) + text.encode("utf-8"))


def fail_error(code, body):
    """The ``LinkError`` a FAIL message carries: the text and code the hub got."""
    retry = struct.unpack("<I", body[:4])[0] if len(body) >= 4 else 0
    return LinkError(bytes(body[4:]).decode("utf-8", "replace"), code, retry)


class Reader:
    """Whole messages out of a byte stream: ``feed(data)`` -> ``[(kind, a, b, body)]``.
    A length beyond ``MAX_BODY`` is a ``ValueError`` (the peer is not a gammon hub/client)."""

    def __init__(self):
        self.buf = bytearray()

    def feed(self, data):
        self.buf += data
        out = []
        while len(self.buf) >= HEAD.size:
            kind, a, b, n = HEAD.unpack_from(self.buf)
            if n > MAX_BODY:
                raise ValueError("message of %d bytes" % n)
            if len(self.buf) < HEAD.size + n:
                break
            out.append((kind, a, b, bytes(self.buf[HEAD.size : HEAD.size + n])))
            del self.buf[: HEAD.size + n]
        return out
