"""The revoke-all gesture at app level (``app.buttons.Gestures.poll``, docs/controller.md): all
four buttons held 3 s make the link forget every paired host and end every session (a logged-in
host is told in a last signed frame), and the point LEDs blink vermillion; a shorter hold, two
buttons, or the gesture itself press nothing else. Runs on CPython and MicroPython (the real
``App``, ``Hub``, ``Board`` and ``Session`` over a memory store; the HAL parts are stand-ins).
On the board model it needs 56k of the board's 64k (tools/bench/heapmargin.py): keep it lean
(no ``bg.link.host``: the host's side of the login is done by hand)."""

from bg import hwdesc

_DESC = hwdesc.load()  # first: parsing board.json wants a big block the imports below split

from app import main  # noqa: E402
from app.link import Hub  # noqa: E402
from bg import leds as L  # noqa: E402
from bg import link as P  # noqa: E402
from bg.link.board import unpack_hosts  # noqa: E402
from bg.link.crypto import Mac, auth_proofs  # noqa: E402
from bg.link.session import Session  # noqa: E402
from link_board import make_board  # noqa: E402

HOST_ID = b"HOST0001"


class _Buttons:
    def __init__(self, n):
        self.down = bytearray(n)

    def take(self, i):
        return 0

    def is_down(self, i):
        return bool(self.down[i])


class _Clock:
    def __init__(self):
        self.ms = 5000

    def ticks_ms(self):
        return self.ms

    def ticks_diff(self, a, b):
        return a - b

    def unix_time(self):
        return 1767225600


class _Random:
    def urandom(self, n):
        return bytes(n)


class _Leds:
    def __init__(self, n):
        self.buf = bytearray(3 * n)


class _Hw:
    def __init__(self, board):
        self.buttons = _Buttons(len(board.buttons))
        self.clock = _Clock()
        self.random = _Random()
        self.leds = _Leds(board.nleds)


def _frames(data):
    d = P.Decoder()
    d.feed(data)
    out = []
    r = d.next()
    while r is not None:
        out.append(r[1])
        r = d.next()
    return out


def _login(link, key):
    """A logged-in session, the host's side done by hand (bg.link.host is not loaded: this
    module runs in the board's 64k with the whole app). Returns (session, session MAC)."""
    s = Session(link, 185)
    nonce = b"N" * 16
    s.feed(P.encode_frame(P.REQ_AUTH_START, 1, HOST_ID + nonce, 0, None, b"H"))
    board_nonce = _frames(s.pump())[0].payload
    hp, bp, skey = auth_proofs(key, HOST_ID, nonce, board_nonce)
    s.feed(P.encode_frame(P.REQ_AUTH_PROOF, 2, hp, 0, None, b"H"))
    assert _frames(s.pump())[0].payload == bp
    return s, Mac(skey)


def _app():
    import gc

    gc.collect()
    desc = _DESC
    hw = _Hw(desc)
    logs = []
    app = main.App(hw, desc, main.settings_from(None), logs.append)
    link = make_board()
    app.host.make_wiring().hub = Hub(link)
    key = b"K" * 32
    link.add_host(HOST_ID, key, "laptop")  # paired earlier (pairing itself: test_protocol_auth)
    s, mac = _login(link, key)
    assert s.authenticated and len(link.hosts) == 1
    return app, hw, link, s, mac, logs


def _idx(app, role):
    return [i for i in range(len(app.buttons.roles)) if app.buttons.roles[i][0] == role]


def _hold(app, hw, buttons, ms):
    for i in buttons:
        hw.buttons.down[i] = 1
    t = 0
    while t <= ms:
        app.buttons.poll(hw.clock.ms)
        hw.clock.ms += 10
        t += 10
    for i in buttons:
        hw.buttons.down[i] = 0
    app.buttons.poll(hw.clock.ms)


def _vermillion_points(app, now):
    app.view.paint(app.ctl, now)
    n = 0
    for pt in range(1, 25):
        c = app.view.p.get(app.view.p.board.point_led[pt])
        if c != (0, 0, 0) and c[1] < c[0] // 2 and c[2] == 0:  # vermillion-ish: red, some green
            n += 1
    return n


def test_holding_all_four_buttons_three_seconds_unpairs_every_host():
    app, hw, link, s, mac, logs = _app()
    link.open_pairing(60000)
    _hold(app, hw, range(4), 3100)
    assert link.hosts == [] and unpack_hosts(link.store.load_keys()) == []
    assert not link.pairing_open() and not s.authenticated
    [fr] = _frames(s.pump())  # the logged-in host is told, in a frame it can still check
    assert fr.type == P.ERROR and P.parse_error(fr.payload)[0] == P.E_AUTH
    assert fr.mac == mac.tag(b"B", fr.header, fr.payload)
    assert "every host unpaired" in " ".join(logs)


def test_the_leds_say_so_for_three_seconds():
    app, hw, link, s, mac, logs = _app()
    assert max(_vermillion_points(app, hw.clock.ms + t) for t in (0, 150, 300, 450)) == 0
    _hold(app, hw, range(4), 3100)
    now = hw.clock.ms
    assert max(_vermillion_points(app, now + t) for t in (0, 150, 300, 450)) == 24
    assert max(_vermillion_points(app, now + 3100 + t) for t in (0, 150, 300, 450)) == 0


def test_a_shorter_hold_or_two_buttons_unpair_nothing():
    app, hw, link, s, mac, logs = _app()
    _hold(app, hw, range(4), 2900)
    _hold(app, hw, _idx(app, "cube"), 5000)
    _hold(app, hw, _idx(app, "roll"), 5000)  # the pairing combo: opens the window only
    _hold(app, hw, range(3), 5000)
    assert len(link.hosts) == 1 and s.authenticated
    assert link.pairing_open()


def test_the_gesture_presses_nothing_else():
    app, hw, link, s, mac, logs = _app()
    phase = app.ctl.phase
    _hold(app, hw, range(4), 3100)
    _hold(app, hw, range(4), 500)  # let go early: no short presses leak either
    assert app.ctl.phase == phase and app.ctl.outbox == []
    assert not link.pairing_open()  # the both-ROLL combo inside the gesture did not fire
    assert L.EXTRA == L.VERMILLION
