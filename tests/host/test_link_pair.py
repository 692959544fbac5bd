"""The host tool's side of pairing (``gammon.link.Client.pair``) against the real board
protocol in memory: the number it shows is the board's, it waits for the board's ROLL press
and says so when it does not come, it retries once after the board's PAIR_START rate limit,
and a busy board tells the user not to press."""

import time

import pytest
from bg import link as P
from bg.link.board import Board
from gammon import link as L
from link_board import make_store
from link_fakes import Rand
from test_link_resume import Loop


class WallClock:
    """The board's clock on real time (the host sleeps real time between retries)."""

    def ticks_ms(self):
        return int(time.monotonic() * 1000) % (1 << 30)

    def ticks_diff(self, a, b):
        return (a - b + (1 << 29)) % (1 << 30) - (1 << 29)


def _board(clock=None):
    codes = []
    b = Board(make_store(), clock or WallClock(), Rand(b"pairing"), show_code=codes.append)
    b.codes = codes
    b.open_pairing(60000)
    return b


def test_the_host_shows_the_boards_number_and_gets_the_key_after_the_press():
    b = _board()
    c = L.Client(Loop(b))
    shown = []

    def owner(value):
        shown.append(value)
        assert b.codes[-1] == value and b.hosts == []  # shown on both; nothing stored yet
        assert b.confirm_pairing()

    host_id, key = c.pair("laptop", owner)
    assert shown and b.hosts == [(host_id, key, "laptop")]
    c.authenticate(host_id, key)


def test_no_press_ends_with_a_clear_message_and_nothing_stored():
    b = _board()
    c = L.Client(Loop(b))
    with pytest.raises(L.LinkError, match="button was not pressed within"):
        c.pair("laptop", lambda v: None, confirm_timeout=0.3)
    assert b.hosts == []


def test_a_pair_start_inside_the_rate_limit_is_retried_once():
    b = _board()
    first = L.Client(Loop(b))
    first._send(first.host.pair_start(b"FIRST001", "other"))
    first._check(first._next(1), P.RSP | P.REQ_PAIR_START)
    b.cancel_pairing()  # that host went away; its PAIR_START still counts for the rate limit
    c = L.Client(Loop(b))
    start = time.monotonic()
    host_id, key = c.pair("laptop", lambda v: b.confirm_pairing())
    assert time.monotonic() - start >= (P.PAIR_GAP_MS - 100) / 1000.0
    assert b.find_host(host_id)[1] == key


def test_a_busy_board_says_not_to_press():
    b = _board()
    other = L.Client(Loop(b))
    other._send(other.host.pair_start(b"STRANGER", "laptop"))
    other._check(other._next(1), P.RSP | P.REQ_PAIR_START)
    c = L.Client(Loop(b))
    shown = []
    with pytest.raises(L.LinkError, match="do NOT press") as e:
        c.pair("laptop", shown.append)
    assert e.value.code == P.E_BUSY and shown == []  # the host showed no number


class Relay:
    """An active relay between ``gammon.link.Client`` and a real board: toward the host it is a
    board of its own (``Board`` + ``Session``, whose button it presses itself), toward the
    real board a host of its own (``HostEnd``); it starts and reveals on the board's side as
    soon as the host does, so both ends show a number at the same time."""

    mtu = 515

    def __init__(self, board):
        from bg.link.host import HostEnd
        from bg.link.session import Session

        self.real = Session(board, 185)
        self.fake_board = _board()
        self.fake = Session(self.fake_board, 185)
        self.h = HostEnd(Rand(b"relay"))
        self.out = bytearray()
        self.challenge = None

    def _to_board(self, frame):
        self.real.feed(frame)
        f = self.real.pump()
        return self.h.feed(f) if f else []

    def send(self, data):
        self.fake.feed(data)
        if self.fake_board.pairing is not None and self.challenge is None:
            r = self._to_board(self.h.pair_start(b"VICTIM01", "laptop"))
            self.challenge = r[0][1]
        if self.fake_board.awaiting_button():
            assert self._to_board(self.h.pair_confirm(self.challenge)) == []
            self.fake_board.confirm_pairing()  # the relay "presses" its own board

    def recv(self, timeout):
        f = self.fake.pump()
        while f is not None:
            self.out += f
            f = self.fake.pump()
        data, self.out = bytes(self.out), bytearray()
        return data

    def close(self):
        self.fake.close()


def test_a_relay_gets_nothing_stored_on_either_side():
    board = _board()
    relay = Relay(board)
    c = L.Client(relay)
    seen = []

    def user(value):  # compares the host's number with the real board's display
        seen.append((value, board.codes[-1]))
        return value == board.codes[-1]

    with pytest.raises(L.LinkError, match="numbers differ"):
        c.pair("laptop", user)
    v_host, v_board = seen[0]
    assert v_host != v_board and v_board == relay.h.value  # the relay could not match them
    assert board.hosts == []  # the user never pressed ROLL on the real board


class Tap(Loop):
    """A passive relay on the current pairing (an open TCP proxy, a sniffed serial line): it
    passes every byte both ways unchanged and keeps a copy of each direction."""

    def __init__(self, board):
        super().__init__(board)
        self.up = bytearray()
        self.down = bytearray()

    def send(self, data):
        self.up += data
        super().send(data)

    def recv(self, timeout):
        data = super().recv(timeout)
        self.down += data
        return data


def test_a_relay_that_records_the_pairing_and_login_can_replay_neither():
    board = _board()
    tap = Tap(board)
    c = L.Client(tap)
    host_id, key = c.pair("laptop", lambda v: v == board.codes[-1] and board.confirm_pairing())
    c.authenticate(host_id, key)
    assert board.hosts == [(host_id, key, "laptop")] and tap.s.authenticated
    assert key not in bytes(tap.up) + bytes(tap.down)  # never on the wire: X25519
    pairing, login = bytes(tap.up), None
    login_at = pairing.rfind(bytes([P.SYNC, P.REQ_AUTH_START]))
    pairing, login = pairing[:login_at], pairing[login_at:]
    # the recorded login, replayed on a new connection: the board's new nonce makes the
    # recorded proof wrong, and the connection stays a stranger's
    again = Loop(board)
    again.send(login)
    frames = L.Client(again).host.feed(again.recv(0))
    assert [f[0] for f in frames] == [P.RSP | P.REQ_AUTH_START, P.ERROR]
    assert P.parse_error(frames[1][1])[0] == P.E_DENIED and not again.s.authenticated
    # the recorded pairing, replayed in a window the owner opens later: the board's fresh key
    # pair makes the host's recorded proof wrong; no number is shown, nothing stored
    board.open_pairing(60000)
    shown = len(board.codes)
    time.sleep(P.PAIR_GAP_MS / 1000.0)
    later = Loop(board)
    later.send(pairing)
    frames = L.Client(later).host.feed(later.recv(0))
    errors = [P.parse_error(f[1])[0] for f in frames if f[0] == P.ERROR]
    assert P.E_DENIED in errors and len(board.codes) == shown
    assert board.hosts == [(host_id, key, "laptop")] and not board.confirm_pairing()
