"""Board-wide state of the link (``Board``): paired hosts, the failure back-off, the pairing
window and the live-watch fan-out, shared by every connection's ``bg.link.session.Session``.

Frames and crypto live in ``bg.link``; ``docs/protocol.md`` is the specification.
"""

from bg.link import (
    BACKOFF_BASE_MS,
    BACKOFF_MAX_MS,
    EVENT_QUEUE,
    ID_LEN,
    KEY_LEN,
    MAX_HOSTS,
)

# ---------------------------------------------------------------- board-wide state


def pack_hosts(hosts):
    out = bytearray([1, len(hosts)])
    for hid, key, name in hosts:
        nb = name.encode()
        out += hid + key + bytes([len(nb)]) + nb
    return bytes(out)


def unpack_hosts(blob):
    """The paired-hosts list from its stored blob; a damaged blob gives an empty list."""
    hosts = []
    if not blob or len(blob) < 2 or blob[0] != 1:
        return hosts
    i = 2
    try:
        for _ in range(blob[1]):
            hid = bytes(blob[i : i + ID_LEN])
            key = bytes(blob[i + ID_LEN : i + ID_LEN + KEY_LEN])
            i += ID_LEN + KEY_LEN
            n = blob[i]
            name = bytes(blob[i + 1 : i + 1 + n]).decode()
            i += 1 + n
            if len(hid) != ID_LEN or len(key) != KEY_LEN:
                return []
            hosts.append((hid, key, name))
    except (IndexError, UnicodeError):
        return []
    return hosts


class Board:
    """Board-wide link state shared by every session: the store, paired hosts, the failure
    back-off, the pairing window and the live-watch fan-out.

    ``clock`` has ``ticks_ms()`` and ``ticks_diff(a, b)`` (and optionally
    ``set_unix_time(t)``/``unix_time()``); ``urandom(n)`` is the hardware RNG; ``show_code``
    is called with the 6-digit pairing code (a str) or ``None`` to clear it.
    """

    def __init__(
        self,
        store,
        clock,
        urandom,
        show_code=None,
        firmware="0.1.0",
        on_rename=None,
        pair_without_button=False,
        on_player_seed=None,
    ):
        self.store = store
        self.clock = clock
        self.urandom = urandom
        self.show_code = show_code
        self.firmware = firmware
        self.on_rename = on_rename
        # on_player_seed(host name, commitment, seed16) -> match id, or None when no match is
        # waiting for player seeds under that commitment (set by the app; None: refused)
        self.on_player_seed = on_player_seed
        self.pair_without_button = pair_without_button
        self.hosts = unpack_hosts(store.load_keys())
        self.fails = 0
        self.last_fail = 0
        self.pair_until = None
        self.pairing = None  # (session, code, started ticks, x, host_id, name, transcript, board pub)
        self.sessions = []

    # -- back-off
    def backoff_ms(self):
        """Milliseconds until the next pairing/auth attempt is allowed (0 = now)."""
        if not self.fails:
            return 0
        wait = BACKOFF_BASE_MS << min(self.fails - 1, 20)
        if wait > BACKOFF_MAX_MS:
            wait = BACKOFF_MAX_MS
        left = wait - self.clock.ticks_diff(self.clock.ticks_ms(), self.last_fail)
        return left if left > 0 else 0

    def failed(self):
        self.fails += 1
        self.last_fail = self.clock.ticks_ms()

    # -- pairing
    def open_pairing(self, ms=60000):
        """Allow new pairings for ``ms`` (the board's button combo calls this)."""
        self.pair_until = self.clock.ticks_ms() + ms

    def pairing_open(self):
        if self.pair_without_button and not self.hosts:
            return True
        if self.pair_until is None:
            return False
        return self.clock.ticks_diff(self.pair_until, self.clock.ticks_ms()) > 0

    def cancel_pairing(self):
        if self.pairing is not None:
            self.pairing = None
            if self.show_code:
                self.show_code(None)

    def find_host(self, host_id):
        for h in self.hosts:
            if h[0] == host_id:
                return h
        return None

    def _save(self, hosts):
        self.store.save_keys(pack_hosts(hosts))
        self.hosts = hosts

    def add_host(self, host_id, key, name):
        hosts = [h for h in self.hosts if h[0] != host_id]
        if len(hosts) >= MAX_HOSTS:
            raise ValueError("too many paired hosts")
        hosts.append((host_id, key, name))
        self._save(hosts)

    def revoke(self, host_id):
        """Forget one paired host and end its sessions; False if unknown."""
        if self.find_host(host_id) is None:
            return False
        self._save([h for h in self.hosts if h[0] != host_id])
        for s in self.sessions:
            if s.host_id == host_id:
                s.logout("this host was unpaired")
        return True

    def revoke_all(self):
        """Forget every paired host (the board's revoke-all gesture), close the pairing window
        and end every session (each logged-in host is told, in a last MAC'd ERROR)."""
        self._save([])
        self.pair_until = None
        self.cancel_pairing()
        for s in self.sessions:
            s.logout("every host was unpaired on the board")

    # -- live watch
    def publish(self, record):
        """Queue one confirmed action record for every watching session. Never blocks: a
        session whose queue is full counts the loss and later sends an EV_LOST event."""
        for s in self.sessions:
            if s.watching and s.mac_in is not None:
                if len(s.events) < EVENT_QUEUE:
                    s.events.append(bytes(record))
                else:
                    s.lost += 1
