"""Sending a signed firmware bundle to a board (``gammon board update``): begin, chunks from
where the board stands, commit. Resumable: the board keeps what it stored (docs/update.md).

Only a ``call(request type, payload) -> response payload`` is needed (``gammon.link.Client.call``
or a test's in-memory session), so the same loop runs over BLE, serial and the simulator.
"""

import struct

from bg import link as P
from bg.update.bundle import bundle_id
from bg.update.slots import ALREADY  # noqa: F401 - the commit answer for the bundle running

from gammon.release import read_bundle

CHUNK = P.MAX_PAYLOAD - 4  # bytes per CHUNK request (the offset takes 4)


def send(call, blob, progress=None, chunk=CHUNK, stop_at=None):
    """Send the bundle ``blob`` (bytes); returns the version the board will boot next (with
    ``ALREADY`` appended when the board runs this very bundle: nothing was sent or changed).
    A bundle below the board's security counter is refused (LinkError: "downgrade refused").
    ``progress(done, total)`` after each chunk. ``stop_at`` (tests): return None once this
    many bytes are on the board, as a dropped connection would."""
    head, _version, _files, total = read_bundle(blob)  # malformed: refused before sending
    bid = bundle_id(head)
    r = call(P.REQ_FW_BEGIN, bid + struct.pack("<I", total))
    off, size = struct.unpack("<II", r[:8])
    if size != total or off > total:
        raise ValueError("the board answered a different bundle")
    if progress:
        progress(off, total)
    while off < total:
        if stop_at is not None and off >= stop_at:
            return None
        n = min(chunk, total - off)
        r = call(P.REQ_FW_CHUNK, struct.pack("<I", off) + blob[off : off + n])
        nxt = struct.unpack("<I", r[:4])[0]
        if nxt != off + n:
            raise ValueError("the board is at %d, not %d" % (nxt, off + n))
        off = nxt
        if progress:
            progress(off, total)
    return call(P.REQ_FW_COMMIT, b"").decode("ascii", "replace")
