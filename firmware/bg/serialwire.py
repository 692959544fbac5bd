"""The USB-serial line's framing around ``bg.link`` frames (docs/protocol.md, "USB
serial"): the markers both ends use and the host -> board byte stuffing.

Every frame on the line is preceded by ``MAGIC``. Host -> board, the frame's bytes ``0x00``
(so a raw NUL always starts a magic), ``0x03`` and ``0x0D`` (so Ctrl-C and the ``\\r`` before
it never occur raw inside a frame) and ``ESC`` itself are sent as ``ESC``, byte xor ``0x20``.
The board unstuffs in ``app.serial_link``; board -> host frames are not stuffed (the host
checks each frame's CRC and hunts for the next magic after a bad one).

>>> stuff(b"\\xa7\\x00\\x03\\r\\x10A")
b'\\xa7\\x10 \\x10#\\x10-\\x100A'
"""

MAGIC = b"\x00GMN"
HELLO = b"\x00GMNHELO"  # host -> board: a new connection
READY = b"\x00GMNR"  # board -> host: the answer to HELLO
ESC = 0x10
STUFFED = b"\x00\x03\x0d\x10"  # the bytes that never travel raw inside a host -> board frame


def stuff(frame):
    """``frame`` as the host sends it after ``MAGIC`` (bytes)."""
    out = bytearray()
    for b in frame:
        if b in STUFFED:
            out.append(ESC)
            b ^= 0x20
        out.append(b)
    return bytes(out)
