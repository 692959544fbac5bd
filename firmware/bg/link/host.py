"""The host's end of the link protocol without I/O (``HostEnd``): used by the host tool's
``gammon.link`` and by the tests that drive a board ``Session`` directly.
"""

from bg.link import (
    E_AUTH,
    E_BACKOFF,
    E_BUSY,
    E_CRC,
    E_DENIED,
    E_FRAME,
    E_FULL,
    E_LENGTH,
    E_MAC,
    E_NOT_FOUND,
    E_PAIRING,
    E_PAYLOAD,
    E_SEQ,
    E_STATE,
    E_STORE,
    E_TYPE,
    ERROR,
    NONCE_LEN,
    PUB_LEN,
    REQ_AUTH_PROOF,
    REQ_AUTH_START,
    REQ_PAIR_CONFIRM,
    REQ_PAIR_START,
    SEQ_MAX,
    Decoder,
    Frame,
    encode_frame,
    error_payload,
)
from bg.link.crypto import (
    Mac,
    auth_proofs,
    check_seq,
    dh_keypair,
    dh_shared,
    equal,
    pair_commit,
    pair_keys,
    pair_transcript,
    pair_value,
)

# Human-readable error names (host side only: the board sends codes).
ERROR_NAMES = {
    E_CRC: "bad CRC",
    E_LENGTH: "frame too long",
    E_FRAME: "malformed frame",
    E_TYPE: "unknown request",
    E_PAYLOAD: "malformed payload",
    E_AUTH: "not authenticated",
    E_MAC: "bad MAC",
    E_SEQ: "replayed or out-of-order sequence number",
    E_BACKOFF: "too many failed attempts, retry later",
    E_PAIRING: "pairing not open or no pairing in progress",
    E_DENIED: "wrong code or key",
    E_NOT_FOUND: "no such match or host",
    E_STATE: "not allowed in this state",
    E_BUSY: "busy",
    E_STORE: "storage error",
    E_FULL: "too many paired hosts",
}


def error_text(code):
    return ERROR_NAMES.get(code, "error %d" % code)


# ---------------------------------------------------------------- the host's end (sans I/O)


_UNSIGNED = "unsigned or forged frame after login refused"
_REPLAYED = "replayed frame after login refused"


def _local(code, ftype, seq, msg):
    return (ERROR, error_payload(code, ftype, seq, 0, "local: " + msg), 0)


class HostEnd:
    """The host's half of a session, without I/O: builds request frames (MAC'd and numbered
    once authenticated) and checks the board's frames. The host tool's ``gammon.link`` wraps
    it with a transport; tests drive a ``Session`` with it directly.

    >>> h = HostEnd(urandom)
    >>> frame = h.request(REQ_INFO)
    """

    def __init__(self, urandom):
        self.urandom = urandom
        self.dec = Decoder()
        self.seq = 0
        self.mac_in = None
        self.mac_out = None
        self.last_seq = 0
        self._pair = None
        self._paired = None
        self.value = None  # the pairing's comparison value (6 digits) once known
        self._auth = None
        self._authed = None

    def request(self, ftype, payload=b""):
        if self.mac_out is None:
            self.seq = (self.seq + 1) & 0xFFFF
        elif self.seq >= SEQ_MAX:
            raise ValueError("session sequence numbers exhausted: authenticate again")
        else:
            self.seq += 1  # 32-bit: the header carries the low half, the MAC the epoch
        return encode_frame(ftype, self.seq, payload, 0, self.mac_out, b"H")

    def feed(self, data):
        """Frames from the board in ``data``: a list of ``(type, payload, flags)``; a frame
        that fails the CRC, MAC or sequence check comes out as ``(ERROR, error payload, 0)``
        with a local code (the host treats it as a broken link)."""
        out = []
        i = 0
        while True:
            i += self.dec.feed(data, i)
            while True:
                r = self.dec.next()
                if r is None:
                    break
                fr = r[1]
                if not isinstance(fr, Frame):  # (BAD, code)
                    out.append(_local(fr, 0, 0, ERROR_NAMES[fr]))
                    continue
                if self.mac_in is not None:
                    if fr.mac is None and fr.type == ERROR and self.mac_out is None:
                        # the board's refusal of our AUTH_PROOF: it has no session key yet
                        out.append((fr.type, fr.payload, fr.flags))
                        continue
                    full = check_seq(self.mac_in, b"B", fr, self.last_seq)
                    if full < 0:  # its content (an ERROR's text too) is not trusted: dropped
                        why = _REPLAYED if full == -E_SEQ else _UNSIGNED
                        out.append(_local(-full, fr.type, fr.seq, why))
                        continue
                    self.last_seq = full
                out.append((fr.type, fr.payload, fr.flags))
            if i >= len(data):
                return out

    # -- pairing (numeric comparison, docs/protocol.md)
    def pair_start(self, host_id, name):
        """PAIR_START: the host commits to its public value and nonce before it sees the
        board's, so a relay cannot pick values that make both ends show the same number."""
        x, pub = dh_keypair(self.urandom)
        nonce = self.urandom(NONCE_LEN)
        nb = name.encode()
        self._pair = (host_id, nonce, x, pub, nb)
        self.value = None
        return self.request(REQ_PAIR_START, host_id + pair_commit(host_id, pub, nonce) + pub + nb)

    def pair_confirm(self, challenge):
        """PAIR_CONFIRM for the board's answer (its nonce and public value): reveals the host's
        nonce with its key proof. Sets ``value``, the 6 digits the user compares with the
        board's display before pressing its button."""
        if self._pair is None or len(challenge) != NONCE_LEN + PUB_LEN:
            raise ValueError("unexpected pairing challenge")
        host_id, nonce, x, pub, nb = self._pair
        board_nonce = bytes(challenge[:NONCE_LEN])
        board_pub = bytes(challenge[NONCE_LEN:])
        shared = dh_shared(x, board_pub)
        hp, bp, key = pair_keys(shared, pair_transcript(host_id, nb, pub, board_pub, nonce, board_nonce))
        self.value = pair_value(pub, board_pub, nonce, board_nonce)
        self._pair = None
        self._paired = (bp, key)
        return self.request(REQ_PAIR_CONFIRM, nonce + hp)

    def pair_finish(self, payload):
        """The long-term key once the board's proof checks out; ValueError otherwise."""
        p = self._paired
        self._paired = None
        if p is None or not equal(p[0], payload):
            raise ValueError("the board's pairing proof is wrong")
        return p[1]

    # -- authentication
    def auth_start(self, host_id, key):
        self.mac_in = self.mac_out = None
        nonce = self.urandom(NONCE_LEN)
        self._auth = (host_id, key, nonce)
        return self.request(REQ_AUTH_START, host_id + nonce)

    def auth_proof(self, challenge):
        if self._auth is None or len(challenge) != NONCE_LEN:
            raise ValueError("unexpected auth challenge")
        host_id, key, nonce = self._auth
        hp, bp, skey = auth_proofs(key, host_id, nonce, bytes(challenge))
        self._auth = None
        self._authed = (bp, skey)
        return self.request(REQ_AUTH_PROOF, hp)

    def auth_expect(self):
        """Arm the session key before the board's AUTH reply arrives (that reply is MAC'd)."""
        if self._authed is None:
            raise ValueError("no authentication in progress")
        bp, skey = self._authed
        self.mac_in = Mac(skey)
        self.last_seq = 0

    def auth_finish(self, payload):
        if self._authed is None:
            raise ValueError("no authentication in progress")
        bp, skey = self._authed
        self._authed = None
        if not equal(bp, payload):
            self.mac_in = None
            raise ValueError("the board's authentication proof is wrong")
        self.mac_out = Mac(skey)
        self.seq = 0
