"""Client library for the board's link (the host side of docs/protocol.md).

Transports: ``tcp:HOST:PORT`` (the simulator), ``serial:/dev/ttyUSB0[@BAUD]`` (pyserial, if
installed), ``ble:AA:BB:CC:DD:EE:FF`` (bleak, if installed). Frames, MACs and key derivation
come from the firmware's own ``bg.link``/``bg.link.host`` (one copy of the protocol).

Pairing keys live in the per-user config dir (``platformdirs``; ``GAMMON_CONFIG_DIR``
overrides it), in ``boards.json`` (mode 0600), one entry per board id (each board has its
own: two boards paired from one host keep both keys; an entry saved under the old shared id
``GAMMON00`` moves to the board's real id the first time its key authenticates)::

    {"default": "<board id hex>",
     "boards": {"<board id hex>": {"name": ..., "address": "tcp:127.0.0.1:7607",
                                   "host_id": "<hex>", "key": "<hex>"}}}

Example::

    from gammon.link import connect
    with connect("tcp:127.0.0.1:7607") as c:          # or a saved board's name/id, or None
        for g in c.list_games():
            data = c.fetch_game(g["id"], progress=print)
            if g["finished"]:  # store ``data`` first, then delete exactly what was stored
                c.delete_games([(g["id"], hashlib.sha256(data).digest())])
        for record in c.watch():                       # live actions as they are confirmed
            ...
"""

import random
import socket
import time

from bg import link as P

from gammon.link.base import TIMEOUT, LinkError
from gammon.link.client import BUSY_TEXT, CONFIRM_TIMEOUT, PAIR_TIMEOUT, WINDOW, Client, joined_decodes
from gammon.link.keys import LEGACY_BOARD_ID, Boards, config_dir
from gammon.link.transports import (
    BLE_RX_UUID,
    BLE_SERVICE_UUID,
    BLE_TX_UUID,
    SERIAL_HELLO,
    SERIAL_MAGIC,
    SERIAL_READY,
    BleTransport,
    SerialTransport,
    TcpTransport,
    open_transport,
)

BUSY_WAIT = 30.0  # seconds ``connect`` keeps trying a busy board before it gives up
BUSY_STEP_MAX = 1.0  # the longest pause between two tries

__all__ = [
    "BUSY_TEXT",
    "BUSY_WAIT",
    "BLE_RX_UUID",
    "BLE_SERVICE_UUID",
    "BLE_TX_UUID",
    "CONFIRM_TIMEOUT",
    "LEGACY_BOARD_ID",
    "PAIR_TIMEOUT",
    "SERIAL_HELLO",
    "SERIAL_MAGIC",
    "SERIAL_READY",
    "TIMEOUT",
    "WINDOW",
    "BleTransport",
    "Boards",
    "Client",
    "LinkError",
    "SerialTransport",
    "TcpTransport",
    "config_dir",
    "connect",
    "joined_decodes",
    "open_transport",
    "pair",
    "scan",
]


def connect(board_spec=None, boards=None, busy_wait=None):
    """An authenticated ``Client`` for a saved board (id, name, address, or None for the
    default) or for an address of a board paired earlier.

    The entry used is the one saved under the id the board reports (INFO): several boards
    may have been paired at one address (a simulator started on another flash image). An
    entry saved under ``LEGACY_BOARD_ID`` (firmware before unique board ids: every board
    said ``GAMMON00``) is tried on a board whose id is not saved; when its key authenticates,
    the board proved it holds that key, and the entry moves to the board's real id
    (``Boards.rekey``). A key that fails leaves the store as it was.

    A busy board (E_BUSY, or a connection closed before the login: strangers or another host
    hold its link) is tried again with a jittered back-off for up to ``busy_wait`` seconds
    (``BUSY_WAIT``); then the error says how long and why."""
    busy_wait = BUSY_WAIT if busy_wait is None else busy_wait
    boards = boards or Boards()
    if board_spec and ":" in board_spec and board_spec.split(":")[0] in ("tcp", "serial", "ble"):
        hits = [(b, e) for b, e in boards.data["boards"].items() if e["address"] == board_spec]
        if not hits:
            raise ValueError("board %s is not paired: run 'gammon pair %s'" % (board_spec, board_spec))
        address = board_spec
    else:
        hits = [boards.find(board_spec)]
        address = hits[0][1]["address"]
    end = time.monotonic() + busy_wait
    delay, tries = 0.05, 0
    while True:
        tries += 1
        try:
            return _login(address, hits, boards)
        except LinkError as e:
            if not busy(e):
                raise
            left = end - time.monotonic()
            if left <= 0:
                raise LinkError(
                    "the board at %s stayed busy for %.0f s (%d tries; last: %s): other hosts or "
                    "strangers are holding its link; try again later" % (address, busy_wait, tries, e),
                    e.code,
                    e.retry_ms,
                ) from None
            # back off, jittered so that hosts retrying together spread out
            time.sleep(min(left, delay * random.uniform(0.5, 1.0)))
            delay = min(delay * 2, BUSY_STEP_MAX)


def busy(e):
    """Whether ``LinkError`` ``e`` means the board's link was taken (E_BUSY, or the board hung
    up before this host logged in: a stranger pushed it out of the slot) and a retry may be
    served. A pairing in progress is not: the user has to act (``BUSY_TEXT``)."""
    if e.code == P.E_BUSY:
        return "pairing" not in str(e)
    return e.code == 0 and ("closed the connection" in str(e) or "link lost" in str(e))


def _login(address, hits, boards):
    """One connection, authenticated with the entry saved for the board's id. INFO and the
    first AUTH_START go out together, so the board sees at once that a paired host is
    connecting (``app.sock_link`` lets it take the slot from a stranger)."""
    c = Client(open_transport(address), address)
    try:
        guess = hits[0]
        hid, key = bytes.fromhex(guess[1]["host_id"]), bytes.fromhex(guess[1]["key"])
        c._send(c.host.request(P.REQ_INFO))  # one frame per send: the serial line frames each
        c._send(c.host.auth_start(hid, key))
        got = c.info(sent=True)["board_id"]
        same = [h for h in hits if h[0] == got]
        old = [h for h in hits if h[0] == LEGACY_BOARD_ID]
        if same:
            bid, entry = same[0]
        elif old and got not in boards.data["boards"]:
            bid, entry = old[0]
        else:
            raise LinkError("the board at %s is %s, not the paired %s" % (address, got, hits[0][0]))
        if entry is guess[1]:
            c.authenticate(None, None, started=True)
        else:
            c._check(c._next(TIMEOUT), P.RSP | P.REQ_AUTH_START)  # the guess's challenge: unused
            c.authenticate(bytes.fromhex(entry["host_id"]), bytes.fromhex(entry["key"]))
        if bid != got:
            boards.rekey(bid, got)
    except BaseException:
        c.close()
        raise
    return c


def pair(address, show_value, host_name=None, boards=None):
    """Pair with the board at ``address`` and save the key. Returns the board id (hex).
    ``show_value(v)`` shows the comparison value (see ``Client.pair``)."""
    boards = boards or Boards()
    host_name = (host_name or socket.gethostname() or "host")[: P.MAX_NAME]
    with Client(open_transport(address), address) as c:
        # E_BUSY (the board refused the connection: another host is pairing, maybe a stranger
        # named like this one) says "do NOT press": the number the board shows is not ours
        host_id, key = c.pair(host_name, show_value, with_info=True)
        info = c.last_info
        c.authenticate(host_id, key)
    return boards.add(bytes.fromhex(info["board_id"]), info["name"], address, host_id, key)


async def scan(timeout=5.0):
    """``[(address, name, rssi)]`` of boards advertising the link service, strongest first
    (needs bleak). Devices whose advertisement lacks the service UUID are left out even when
    a backend lets them through its filter."""
    try:
        from bleak import BleakScanner
    except ImportError:
        raise LinkError("scanning needs bleak: pip install 'gammon[ble]'") from None
    try:
        found = await BleakScanner.discover(
            timeout=timeout, service_uuids=[BLE_SERVICE_UUID], return_adv=True
        )
    except Exception as e:  # noqa: BLE001 - no adapter, Bluetooth off, no D-Bus: BleakError, OSError...
        raise LinkError("BLE scan failed: %s" % (str(e) or type(e).__name__)) from None
    out = []
    for dev, adv in found.values():
        if BLE_SERVICE_UUID not in [str(u).lower() for u in adv.service_uuids or ()]:
            continue
        rssi = adv.rssi if adv.rssi is not None else -127
        out.append((dev.address, adv.local_name or dev.name or "?", rssi))
    return sorted(out, key=lambda x: (-x[2], x[0]))
