"""Board-wide state of the link (``Board``): paired hosts, the pairing window, the pairing in
progress, the deadlines and the live-watch fan-out, shared by every connection's ``bg.link.session.Session``.

Frames and crypto live in ``bg.link``; ``docs/protocol.md`` is the specification.
"""

from bg import link as P

# Board.pairing: a list [session, started ticks, stage, ...] (stage 1: answered PAIR_START,
# waiting for the host's nonce; stage 2: the value is shown, waiting for the button)
_P_SESSION = 0
_P_START = 1
_P_STAGE = 2
P_SHARED = 3
P_HOST_ID = 4
P_NAME = 5
P_HOST_PUB = 6
P_COMMIT = 7
P_BOARD_NONCE = 8
P_BOARD_PUB = 9
P_KEYS = 10

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
            hid = bytes(blob[i : i + P.ID_LEN])
            key = bytes(blob[i + P.ID_LEN : i + P.ID_LEN + P.KEY_LEN])
            i += P.ID_LEN + P.KEY_LEN
            n = blob[i]
            name = bytes(blob[i + 1 : i + 1 + n]).decode()
            i += 1 + n
            if len(hid) != P.ID_LEN or len(key) != P.KEY_LEN:
                return []
            hosts.append((hid, key, name))
    except (IndexError, UnicodeError):
        return []
    return hosts


class Board:
    """Board-wide link state shared by every session: the store, paired hosts, the pairing
    window, the pairing in progress and the live-watch fan-out.

    ``clock`` has ``ticks_ms()`` and ``ticks_diff(a, b)`` (and optionally
    ``set_unix_time(t)``/``unix_time()``); ``urandom(n)`` is the hardware RNG; ``show_code``
    is called with the 6-digit comparison value (a str) or ``None`` to clear it.

    Every deadline is a recorded start plus a length, checked with ``ticks_diff`` and cleared
    once it has passed; ``poll()`` (the link task calls it every round) clears them even when
    nobody asks, so a deadline never comes back when ``ticks_ms`` wraps (2^30 ms on the ESP32).
    """

    # Defaults read from the class unless given: MicroPython's instance dict of 17 names has
    # 17 slots, of 18-23 names 23 (48 B more of the board's heap for as long as the link runs)
    on_rename = None
    pair_without_button = False

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
        updater=None,
        unstored=None,
    ):
        self.store = store
        self.clock = clock
        self.urandom = urandom
        self.show_code = show_code
        self.firmware = firmware
        if on_rename is not None:
            self.on_rename = on_rename
        # on_player_seed(host name, commitment, seed16, proof) -> match id, or None when no match is
        # waiting for player seeds under that commitment (set by the app; None: refused)
        self.on_player_seed = on_player_seed
        if pair_without_button:
            self.pair_without_button = True
        # a bg.update.slots.Updater where this board takes firmware updates, or a function
        # that makes one (or None) at the first update request (None: updates refused)
        self.updater = updater
        self.hosts = unpack_hosts(store.load_keys())
        self.window_at = None  # ticks when the pairing window opened
        self.window_ms = 0
        self.tries = 0  # PAIR_STARTs answered in this window
        self.last_start = None  # ticks of the last PAIR_START answered (rate limit)
        self.pairing = None  # see _P_SESSION..P_KEYS
        self.sessions = []
        # battery() -> (mV, percent, state) for INFO (bg.link.info; set by the app's power
        # module); None: the board reports no battery block
        self.battery = None
        # the computer's decisions from a host (DECIDE, bg.link.decide): an object
        # with brain_hello(side, name, now), brain_play(turn, steps, now),
        # brain_cube(turn, yes, now) and brain_resign(turn, value, now), each returning None or
        # why not (set by the app; None:
        # refused); for a two-board match (JOINT, bg.link.joint) also joint_start(side,
        # commitment) -> (match id, own commitment) or why not, joint_take(k, share, now) -> None
        # or why not, joint_share(k) -> this board's share or None
        self.brain = None
        # unstored() -> the live match's record not yet in its file (a throw waiting for its
        # play), encoded, or None: sent first to a session that starts watching (set by the
        # app; None: nothing is ever held back)
        self.unstored = unstored

    def elapsed(self, start):
        """Milliseconds since ``start`` (ticks); negative when the clock wrapped past it."""
        return self.clock.ticks_diff(self.clock.ticks_ms(), start)

    def within(self, start, ms):
        d = self.elapsed(start)
        return 0 <= d < ms

    # -- pairing window
    def open_pairing(self, ms=60000):
        """Allow new pairings for ``ms`` (the board's button combo calls this)."""
        self.window_at = self.clock.ticks_ms()
        self.window_ms = ms
        self.tries = 0

    def close_pairing(self):
        self.window_at = None

    def pairing_open(self):
        """True while a PAIR_START may be answered: the window is open and has tries left."""
        if self.tries >= P.PAIR_TRIES:
            return False
        if self.pair_without_button and not self.hosts:
            return True
        if self.window_at is not None and not self.within(self.window_at, self.window_ms):
            self.window_at = None
        return self.window_at is not None

    def start_gap_ms(self):
        """Milliseconds until the next PAIR_START may generate a key (0 = now)."""
        if self.last_start is not None:
            d = self.elapsed(self.last_start)
            if 0 <= d < P.PAIR_GAP_MS:
                return P.PAIR_GAP_MS - d
            self.last_start = None
        return 0

    # -- the pairing in progress
    def current_pairing(self):
        """The pairing in progress (None when there is none or it timed out: then cleared).
        A host reveals its nonce at once (stage 1 lasts at most ``UNAUTH_MS``); the user has
        ``PAIR_CODE_MS`` from PAIR_START to compare and press."""
        pr = self.pairing
        if pr is not None and not self.within(
            pr[_P_START], P.PAIR_CODE_MS if pr[_P_STAGE] == 2 else P.UNAUTH_MS
        ):
            self._end_pairing(pr, P.E_PAIRING, "not confirmed on the board in time")
            pr = None
        return pr

    def begin_pairing(self, session, state):
        """Record a pairing (stage 1) answered to ``session``; ``state`` fills P_SHARED.."""
        now = self.clock.ticks_ms()
        self.last_start = now
        self.tries += 1
        self.pairing = [session, now, 1] + state

    def show_value(self, pr, value):
        """Stage 2 of ``pr``: the comparison value is shown; the board waits for its button."""
        pr[_P_STAGE] = 2
        if self.show_code:
            self.show_code(value)

    def awaiting_button(self):
        pr = self.current_pairing()
        return pr is not None and pr[_P_STAGE] == 2

    def pairing_name(self):
        """The name of the host whose value is shown (None when none is)."""
        pr = self.pairing
        return pr[P_NAME] if pr is not None else None

    def cancel_pairing(self):
        pr = self.pairing
        if pr is not None:
            self.pairing = None
            if pr[_P_STAGE] == 2 and self.show_code:
                self.show_code(None)  # the value was shown: clear it

    def confirm_pairing(self):
        """The board's confirm button (ROLL) while a value is shown: store the host, answer
        its PAIR_CONFIRM and close the window. False when no value is waiting."""
        pr = self.current_pairing()
        if pr is None or pr[_P_STAGE] != 2:
            return False
        s = pr[_P_SESSION]
        keys = pr[P_KEYS]
        self.cancel_pairing()
        self.close_pairing()
        try:
            self.add_host(pr[P_HOST_ID], keys[2], pr[P_NAME])
        except ValueError:
            s._error(P.E_FULL, P.REQ_PAIR_CONFIRM)
            return False
        except (OSError, MemoryError):  # the key file could not be written: nothing stored
            s._error(P.E_STORE, P.REQ_PAIR_CONFIRM, 0, 0, "could not store the key")
            return False
        s.opened = self.clock.ticks_ms()  # a fresh unauthenticated deadline to log in
        s._reply(P.RSP | P.REQ_PAIR_CONFIRM, keys[1])
        return True

    def reject_pairing(self):
        """The board's CUBE button while a value is shown: the numbers differ, end that
        pairing now (its host gets E_DENIED). False when no value is waiting."""
        pr = self.current_pairing()
        if pr is None or pr[_P_STAGE] != 2:
            return False
        self._end_pairing(pr, P.E_DENIED, "rejected on the board")
        return True

    def contest_pairing(self):
        """A second host tries to pair while a pairing is in progress: end that pairing, so
        the number the board shows (maybe a stranger's, under any name it chose) goes away
        before the owner could take it for theirs; its host gets E_BUSY. Both hosts start
        again (the newcomer is told not to press: ``gammon.link.client.BUSY_TEXT``)."""
        pr = self.current_pairing()
        if pr is not None:
            self._end_pairing(pr, P.E_BUSY, "another host tried to pair at the same time: start again")

    def _end_pairing(self, pr, code, msg):
        """End ``pr`` without a key; a host waiting for the answer (stage 2) gets ``code``, and
        its connection a fresh unauthenticated deadline so the answer is sent before any drop."""
        self.cancel_pairing()
        if pr[_P_STAGE] == 2:
            s = pr[_P_SESSION]
            s._error(code, P.REQ_PAIR_CONFIRM, 0, 0, msg)
            s.opened = self.clock.ticks_ms()

    # -- deadlines
    def poll(self):
        """Clear every deadline that has passed and mark sessions that stayed unauthenticated
        too long (``expired``: the link drops their connection)."""
        self.pairing_open()
        self.start_gap_ms()
        pr = self.current_pairing()
        for s in self.sessions:
            s.backoff_ms()
            if s.mac_in is None and (pr is None or pr[_P_SESSION] is not s):
                if not self.within(s.opened, P.UNAUTH_MS):
                    s.expired = True

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
        if len(hosts) >= P.MAX_HOSTS:
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
        self.close_pairing()
        self.cancel_pairing()
        for s in self.sessions:
            s.logout("every host was unpaired on the board")

    # -- live watch
    def publish(self, record):
        """Queue one confirmed action record for every watching session. Never blocks: a
        session whose queue is full counts the loss and later sends an EV_LOST event."""
        for s in self.sessions:
            if s.watching and s.mac_in is not None:
                if len(s.events) < P.EVENT_QUEUE:
                    s.events.append(bytes(record))
                else:
                    s.lost += 1
