"""The transports' wire identifiers (the BLE UUIDs) and the USB-serial line's framing around
``bg.link`` frames (docs/protocol.md, "USB serial"): the markers both ends use and the host ->
board byte stuffing.

Every frame on the line is preceded by ``MAGIC``. Host -> board, the frame's bytes ``0x00``
(so a raw NUL always starts a magic), ``0x03`` and ``0x0D`` (so Ctrl-C and the ``\\r`` before
it never occur raw inside a frame) and ``ESC`` itself are sent as ``ESC``, byte xor ``0x20``.
The board unstuffs in ``app.serial_link``; board -> host frames are not stuffed (the host
checks each frame's CRC and hunts for the next magic after a bad one).

>>> stuff(b"\\xa7\\x00\\x03\\r\\x10A")
b'\\xa7\\x10 \\x10#\\x10-\\x100A'
"""

# The BLE link's GATT service and characteristics (app.ble, the host's gammon.link): here, not
# in bg.link, so the board's radio module names them without loading the protocol.
BLE_SERVICE_UUID = "b6a70001-3b1c-4a4e-9c8e-6d5f0a7e2b10"
BLE_RX_UUID = "b6a70002-3b1c-4a4e-9c8e-6d5f0a7e2b10"  # host -> board (write)
BLE_TX_UUID = "b6a70003-3b1c-4a4e-9c8e-6d5f0a7e2b10"  # board -> host (notify)

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
