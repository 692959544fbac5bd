"""The link as the application wires it: the ``Hub`` over the journal (``app.link``), served
on every transport this board has -- BLE (``app.ble``), the USB serial port
(``app.serial_link``), the simulator's socket (``app.sock_link``). The transports import
``app.link`` (``claim``) and ``app.wake`` for their shared parts; this module imports them, so
the link and its transports import no one above them."""

from app.link import Hub


class Wiring:
    """The link as the application wires it: one ``Hub`` over the journal, served on every
    transport this board has (docs/controller.md). Dependencies injected:

    - ``hw``: the HAL (``clock``, ``random``, ``storage``, optional ``board_id()``);
    - ``recorder``: ``app.journal_policy.Recorder`` (its ``journal``; the hub joins its
      ``watchers`` to publish every confirmed action);
    - ``show_code(code)``: the LEDs' pairing value (``View.show_code``; None ends it);
    - ``contribute(name, commitment, part, proof)``: a host's dice contribution and its proof
      (journaled and published by the caller; returns the match id or None);
    - ``log(text)``: the console;
    - ``trial``: ``app.update.Trial`` (the firmware version in INFO, the update receiver);
    - ``brain``: where a host's decisions for the computer go (``Board.brain``: the app).

    Transports (``coroutines``): ``link_port`` (the simulator's socket, ``app.sock_link``), BLE
    (``app.ble``; True/False/None = when the ``bluetooth`` module exists), the USB serial port
    (``app.serial_link``; True/False/None = "auto": on when there is neither BLE nor a socket).
    """

    def __init__(self, hw, recorder, show_code, contribute, log, trial=None, battery=None, brain=None):
        self.hw = hw
        self.brain = brain
        self.recorder = recorder
        self.show_code_cb = show_code
        self.contribute = contribute
        self.log = log
        self.hub = None
        self.ble = None  # the BLE transport, when there is one
        self.battery = battery  # () -> (mV, percent, state) for INFO (app.power), or None
        self._pub_buf = None  # the buffer records are published from, made with the hub
        self._encode = None  # bg.record.encode, taken with the hub
        self.trial = trial  # app.update.Trial: the version in INFO and the update receiver

    def coroutines(self, link_port, ble_link, serial_link):
        """The link tasks' coroutines (maybe none). The simulator's socket alone listens at
        once and builds the protocol stack (sessions, pairing store) when the first host
        connects or pairing opens (``get_hub``): no heap spent before."""
        if link_port and ble_link is False and not serial_link:
            from app import sock_link

            self.log("link: listening on 127.0.0.1:%d" % link_port)
            return [sock_link.serve(self.get_hub, link_port)]
        hub = self.make_hub()
        if hub is None:
            return []
        out = []
        if link_port:
            from app import sock_link

            self.log("link: listening on 127.0.0.1:%d" % link_port)
            out.append(sock_link.serve(hub, link_port))
        ble = False
        if ble_link is not False:
            try:
                from app.ble import BleTransport

                name = hub.board.store.get_name()
                t = BleTransport(name=name, show_code=self.show_code, urandom=self.hw.random.urandom)
                hub.radios.append(t)
                out.append(t.serve(hub))
                self.ble = t  # idle mode changes its advertising interval (app.power)
                ble = True
                self.log("link: BLE advertising")
            except Exception as e:  # noqa: BLE001 - no radio (unix port) or it failed: play on
                if ble_link:
                    self.log("link: BLE off: %r" % (e,))
        serial = serial_link
        if serial is None:
            serial = not ble and not link_port
        if serial:
            from app import serial_link as sl

            self.log("link: on the USB serial port")
            out.append(sl.serve(hub))
        return out

    def make_hub(self):
        """The ``Hub`` over the journal (None, logged, when it cannot be built)."""
        hw = self.hw
        try:
            from bg.link.board import Board
            from bg.link.journal import JournalStore

            bid = getattr(hw, "board_id", None)  # hal.Hardware: 8 bytes, or None
            store = JournalStore(self.recorder.journal, hw.storage.root, bid() if bid else None)
            store.spare = self.recorder.spare  # the journal's reserve, for a fetch between matches
            seed = self.contribute
            board = Board(
                store,
                hw.clock,
                hw.random.urandom,
                show_code=self.show_code,
                on_player_seed=seed,
                unstored=self._unstored,  # WATCH: the throw not in the file yet
            )
            if self.trial is not None:
                board.firmware = self.trial.version()
                board.updater = self.trial.updater  # built at the first update request
            board.battery = self.battery  # INFO's battery block (app.power.Power.info)
            board.brain = self.brain  # DECIDE: a host deciding for the computer (gammon play)
            hub = Hub(board)
        except Exception as e:  # noqa: BLE001 - the board plays without its link
            self.log("link: %r" % (e,))
            return None
        self.hub = hub
        # records are published from the journal's scratch buffer (free between its calls):
        # encode() would allocate 2 x 259 bytes per action, a buffer of our own 518 bytes for
        # good (the hub copies the few bytes of each record into a watching session's queue)
        self._pub_buf = self.recorder.journal.buf
        from bg.record import encode  # loaded by the app anyway; not by the link alone

        self._encode = encode
        self.recorder.watchers.append(self._publish)
        return hub

    def get_hub(self):
        """The hub, built on first use (a socket connection, the pairing combo)."""
        if self.hub is None:
            self.make_hub()
        return self.hub

    def _publish(self, k, f):
        hub = self.hub
        enc = self._encode
        if hub is not None and enc is not None:
            try:
                hub.publish(enc(k, f, self._pub_buf))
            except ValueError:
                pass

    def _unstored(self):
        """The live match's record not in its file yet -- a throw waiting for its play
        (``app.journal_policy``) -- encoded, or None: a host that starts watching gets it first
        (``bg.link.requests.watch``), so that the file it fetched and the events that follow
        join up."""
        f = self.recorder.pending_roll
        enc = self._encode
        if f is None or enc is None:
            return None
        from bg.record import ROLL

        return enc(ROLL, f)

    def show_code(self, code):
        """The pairing value (6 digits; None when pairing ends): on the LED dice and the
        console, with the pairing host's name; a ROLL press confirms it."""
        if code is not None and not isinstance(code, str):
            code = "%06d" % code  # the BLE passkey
        self.show_code_cb(code)
        if code:
            self.log("pairing code: %s" % (code,))
            name = self.hub.board.pairing_name() if self.hub is not None else None
            if name:
                self.log("pairing host %r: press ROLL if it shows the same number" % (name,))
        else:
            self.log("pairing closed")
