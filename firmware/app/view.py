"""What the LEDs show for the controller's state: one ``paint()`` call composes a whole frame
with ``bg.leds.Painter`` (the LED language of docs/leds.md). Pure: no asyncio, no HAL.

=============  ===============================================================================
phase          LEDs
=============  ===============================================================================
idle/opening   setup guidance until the checkers are on the start position (green = right,
               yellow pulse = put a checker here, vermillion blink = take one away); then both
               turn LEDs: either player may press ROLL
choice         house opening: the starter's turn LED, its throw on the dice
await_roll     the roller's turn LED, the opponent's last play, the cube; a board out of place
               shows the guidance instead
moving         the mover's turn LED and dice (a played die dims: ``Recognizer.dice_lit``;
               a doublet dims die 1 after two steps, both after four), and what
               ``bg.recognize`` says: a lifted checker's legal destinations pulse green
               (its origin dim); a hit blot still
               on its point blinks "take away" and its bar pulses "put here"; an illegal
               reading, once it lasted 0.5 s or after a refused confirm, the rows to correct
               (yellow = put one back, vermillion = take one away) -- a hand carrying a blot
               to the bar passes through illegal readings, so nothing flickers; several
               legal plays reading alike: the shown candidate's sources blink and its
               destinations stay lit in the mover's colour (CUBE: next, ROLL: record it);
               a roll with no legal play: the dice pulse (ROLL passes)
doubled        the offered cube value blinks in the offerer's colour; the taker's turn LED
resigning      die 0 shows the offered value (1/2/3) blinking; the opponent's turn LED
illegal        casual mode: the rows of the illegal play; the opponent's turn LED blinks
remote away    a match with another board whose player's host is not back since the board
               started: that side's turn LED blinks vermillion (doubles and offers to resign
               are refused meanwhile: "remote player not connected")
game/match     the result chase in the winner's colour, die 0 = 1/2/3 (single/gammon/bg)
storage error  both tray LEDs blink reddish purple (the journal cannot store; nothing lost)
hosts revoked  every point LED blinks vermillion for 3 s after the revoke-all gesture
               (``show_revoked``: every paired host forgotten, every session ended)
pairing code   over everything else on the dice: the link's 6 digits one after another in
               white (``show_code``, docs/leds.md), point LEDs 1..6 say which digit it is
match clock    once the delay is used up, the reserve of the player the clock charges as a bar
               on that player's home board (``leds.clock_bar``; yellow under a minute); it
               yields to every message on the points (guidance, errors, destinations,
               candidates, a hit in progress, casual ``illegal``) and replaces the last move
flag fall      the result, and the loser's home board + turn LED blink vermillion
battery        on request (ROLL held alone, ``app.power``): the charge as a bar on each
               player's points 1..10 for 3 s (green; yellow when low); low battery: the
               same bar in yellow for 2 s every 30 s; critical: the game is halted, only
               each player's point 1 blinks vermillion; idle mode scales the frame down
=============  ===============================================================================
"""

from app import ctl_defs as D
from bg import battery as B
from bg import leds as L
from bg import recognize as _rec
from micropython import const

CODE_DIGIT_MS = const(1200)  # pairing code: each digit 0.95 s on the dice, then 0.25 s dark
_CODE_GAP_MS = const(250)
_CODE_CYCLE_MS = const(9000)  # six digits, then a 1.8 s pause, then again
_REVOKED_MS = const(3000)  # how long the revoke-all gesture's answer blinks
_LOW_EVERY_MS = const(30000)  # low battery: the bar shows for _LOW_SHOW_MS every _LOW_EVERY_MS
_LOW_SHOW_MS = const(2000)
_TICKS_MASK = const(0x3FFFFFFF)  # ticks_ms wraps at 2^30 on the ESP32

# phase groups, built once: a tuple of module attributes in ``paint`` would be built per frame
_SETUP = (D.IDLE, D.OPENING)
_TURN = (D.MOVING, D.ILLEGAL)
_OVER = (D.GAME_OVER, D.MATCH_OVER)


class View:
    """Paints ``ctl`` into ``painter``'s buffer. ``anim`` is ``(a, b, dim)`` while a roll
    animation runs (``app.dice_anim`` drives it), else None."""

    def __init__(self, painter, power=None):
        self.p = painter
        self.code = None  # the link's pairing code while pairing is open (6 digits, str)
        self.code_since = 0
        self.revoked_at = None  # ticks of the revoke-all gesture, while its answer shows
        self.anim = None
        self.storage_error = 0
        self.fault_rows = 0
        self.busy = False  # the turn's message uses the point LEDs (the clock bar yields)
        self.power = power  # an ``app.power.Power`` (battery, idle mode), or None

    def show_dice(self, a, b, dim):
        """A frame of the roll animation (``app.dice_anim``, through ``app.buttons.Presses``)."""
        self.anim = None if not dim else (a, b)

    def show_code(self, code, now):
        """Show the link's pairing code (a 6-digit str; None clears it) from ``now`` on."""
        if code is not None and (len(code) != 6 or not code.isdigit()):
            raise ValueError("pairing code must be 6 digits")
        self.code = code
        self.code_since = now

    def show_revoked(self, now):
        """Every paired host was forgotten: all point LEDs blink vermillion ``_REVOKED_MS``."""
        self.revoked_at = now

    def _paint_revoked(self, now):
        p = self.p
        if ((now - self.revoked_at) & _TICKS_MASK) >= _REVOKED_MS:  # ticks_diff, wrap-safe
            self.revoked_at = None
            return
        lvl = p.fast.level
        for pt in range(1, 25):
            p.point(pt, L.EXTRA, lvl)

    def code_digit(self, now):
        """``(index, digit)`` of the pairing code shown at ``now``; index -1 = the pause
        between repetitions (dice dark)."""
        code = self.code
        t = ((now - self.code_since) & _TICKS_MASK) % _CODE_CYCLE_MS  # ticks_diff, wrap-safe
        k = t // CODE_DIGIT_MS
        if code is None or k >= 6 or t % CODE_DIGIT_MS >= CODE_DIGIT_MS - _CODE_GAP_MS:
            return -1, 0
        return k, ord(code[k]) - 48

    def _paint_code(self, now):
        """Digit ``d`` on the two dice: 1..6 = die 0 alone; 7..9 = 6 on die 0 plus 1..3 on
        die 1 (add them); 0 = both dice with all 7 pips. Point k+1 (side 0's home board) is
        lit for the k-th digit, earlier digits dim: the players read 1..6 along the board."""
        p = self.p
        b = p.board
        k, d = self.code_digit(now)
        if d == 0:
            a = c = 0x7F
        elif d <= 6:
            a, c = L.DIE_FACES[d], 0
        else:
            a, c = L.DIE_FACES[6], L.DIE_FACES[d - 6]
        if k < 0:
            a = c = 0
        for pip in range(7):
            p.set(b.die_led[pip], L.WHITE, 255 if a >> pip & 1 else 0)
            p.set(b.die_led[7 + pip], L.WHITE, 255 if c >> pip & 1 else 0)
        for j in range(6):
            p.point(j + 1, L.WHITE, 255 if j == k else (L.DIM if j < k or k < 0 else 0))

    def paint(self, ctl, now):
        p = self.p
        p.tick(now)
        p.clear()
        pw = self.power
        if pw is not None and pw.halted:
            # critical battery: the journal is closed and the game halted; nothing else lit
            L.battery_bar(p, 1, L.EXTRA, p.fast.level)
            return p.finish()
        ph = ctl.phase
        side = ctl.side
        owner = None if ctl.mt.owner < 0 else ctl.mt.owner
        left = self.clock_left(ctl, now)
        if ph in _SETUP and not ctl.board_matches():
            self._guide(ctl)
        elif ph in _SETUP:
            lvl = p.slow.level
            b = p.board
            for s in (0, 1):
                p.set(b.turn_led[s], L.SIDE_COLOURS[s], lvl)
            if ph == D.OPENING and ctl.house_first is not None:
                p.dice(ctl.dice[0], ctl.dice[1], 0)
                p.turn(1)
        elif ph == D.CHOICE:
            p.turn(side)
            p.dice(ctl.dice[0], ctl.dice[1], side)
            p.cube(ctl.mt.cube, owner)
        elif ph == D.AWAIT_ROLL:
            if not ctl.board_matches():
                self._guide(ctl)
                left = -1
            elif left >= 0:
                pass  # the reserve is running: the bar replaces the last move
            elif ctl.last_play is not None:
                p.last_move(ctl.last_play[1], ctl.last_play[0])
            p.turn(side)
            p.cube(ctl.mt.cube, owner)
        elif ph in _TURN:
            lvl = 255
            if ph == D.ILLEGAL:
                p.errors(ctl.missing, ctl.extra)  # the rows of the play the opponent judges
                left = -1
            else:
                lvl = self._turn(ctl, side, now)
                if self.busy:
                    left = -1
            if ph == D.ILLEGAL:
                b = p.board
                p.set(b.turn_led[1 - side], L.SIDE_COLOURS[1 - side], p.fast.level)
            else:
                p.turn(side)
            p.cube(ctl.mt.cube, owner)
            if self.anim is not None:
                p.dice(self.anim[0], self.anim[1], side, 64)
            else:
                # a played die dims (bg.recognize's ``used``: the last legal reading's dice)
                lit = ctl.rec.dice_lit() if ph == D.MOVING and ctl.rec_turn else 3
                p.dice(ctl.dice[0], ctl.dice[1], side, lvl, lit)
        elif ph == D.DOUBLED:
            p.cube(2 * ctl.mt.cube, owner, offered=True, by=side)
            p.turn(1 - side)
        elif ph == D.RESIGNING:
            p.turn(1 - side)
            p.dice(ctl.resign_value, 0, side, p.fast.level)
            p.cube(ctl.mt.cube, owner)
        elif ph in _OVER and ctl.mt.result is not None:
            r = ctl.mt.result
            p.result(r[0], r[2], ph == D.MATCH_OVER)
            p.cube(ctl.mt.cube, owner)
            if r[3] == D.END_TIME:
                L.flag_fall(p, 1 - r[0])
        if left >= 0:
            L.clock_bar(p, ctl.clock.side, left, ctl.settings.clock_s * 1000)
        o = ctl.opp
        if ctl.joint_side >= 0 and ph not in _OVER and (o is None or o.brain_at < 0):
            # a match with another board, their host not back since this board started: its
            # player's double and offer to resign are refused ("remote player not connected")
            p.set(p.board.turn_led[1 - ctl.joint_side], L.EXTRA, p.fast.level)
        if o is not None and o.verdict is not None:
            v = o.verdict_on(now)  # learning mode: was the play the best? (the mover's tray)
            if v is not None:
                p.set(p.board.tray_led[v[0]], L.OK if v[1] else L.EXTRA, 255 if v[1] else p.fast.level)
        if self.fault_rows:
            p.faults(self.fault_rows)
        if self.storage_error:
            b = p.board
            for s in (0, 1):
                p.set(b.tray_led[s], L.FAULT, p.fast.level)
        if self.revoked_at is not None:
            self._paint_revoked(now)
        if self.code is not None:
            self._paint_code(now)
        if pw is not None:
            self._paint_battery(pw, now)
        return p.finish()

    def _paint_battery(self, pw, now):
        """The gauge on request or the low warning (over everything); idle mode's dimming."""
        p = self.p
        low = pw.level() == B.LOW
        if pw.showing(now) or (low and (now & _TICKS_MASK) % _LOW_EVERY_MS < _LOW_SHOW_MS):
            L.battery_bar(p, pw.percent(), L.YELLOW if low else L.BLUISH_GREEN)
        s = pw.leds_scale()
        if s < 255:
            L.scale(p, s)

    def clock_left(self, ctl, now):
        """The reserve (ms) of the side the match clock charges at ``now``, once its delay
        is used up; -1 while the delay runs, when no clock runs, or in a phase nobody is
        charged. Reads the clock without charging it (``ctl.tick`` does that), so the bar
        moves smoothly between ticks. Ints only: nothing allocates."""
        ph = ctl.phase
        if ph in _SETUP or ph in _OVER:
            return -1
        return ctl.clock.remaining(now)

    def _turn(self, ctl, side, now):
        """The recogniser's state on the LEDs during a turn; returns the dice level and sets
        ``busy`` when the message uses the point LEDs (the clock bar yields to it)."""
        p = self.p
        r = ctl.rec
        st = r.state if ctl.rec_turn else -1
        c = L.SIDE_COLOURS[side]
        self.busy = True
        o = ctl.opp
        if o is not None and o.showing(ctl) and self._plan(ctl, o, side, st, now):
            return 255
        if st == _rec.AMBIGUOUS and (ctl.selecting or r.ncand > 1):
            src, dst = r.show(r.selected)  # the steps that tell the candidates apart
            p.rows(dst, c, 255)
            p.rows(src, c, p.fast.level)
            return 255
        if st == _rec.ILLEGAL and ctl.show_errors(now):
            p.errors(ctl.missing, ctl.extra)
            return 255
        if st == _rec.LIFTED:
            p.destinations(r.dest_points(), side, r.lifted_point())
            return 255
        if st == _rec.PARTIAL and r.pending:
            p.errors(1 << (_rec.ROW_BAR0 + 1 - side), r.pending)  # hit blot: to its bar
            return 255
        self.busy = False
        if st == _rec.NO_PLAY:
            return p.slow.level
        return 255

    def _plan(self, ctl, o, side, st, now):
        """The computer's play (its colour) or the coach's (bluish green) step by step
        (``app.opponent``): the next step's from-point blinks, its to-point is steady, later
        steps dim; a hit blot still on its point blinks "take away" and its bar pulses "put
        here". A complete play that is not the computer's, or an illegal reading once it
        lasted (as in any turn), shows the rows to correct instead. The coach's play shows
        only while the board reads one of its stages. Returns False to paint the turn as
        usual."""
        p = self.p
        if o.wrong:
            p.errors(o.missing, o.extra)
            return True
        if st == _rec.ILLEGAL and ctl.show_errors(now):
            return False
        k = o.stage
        if o.coaching and ctl.sensed != o.stage_counts(k):
            return False
        c = L.DEST if o.coaching else L.SIDE_COLOURS[side]
        p.plan(o.plan, side, k, c)
        if k < o.nstages - 1 and o.hits[k]:
            bar = _rec.ROW_BAR0 + 1 - side
            if ctl.sensed[bar] == o.stage_counts(k)[bar]:  # the blot is not on the bar yet
                p.errors(1 << bar, 1 << _rec.row_of(side, o.plan[2 * k + 1]))
        return True

    def _guide(self, ctl):
        exp = ctl.expected()
        sensed = ctl.sensed
        ok = 0
        for r in range(28):
            if exp[r] and sensed[r] == exp[r]:
                ok |= 1 << r
        self.p.setup(ctl.missing, ctl.extra, ok)
