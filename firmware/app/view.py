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
moving         the mover's turn LED and dice; a lifted checker: its legal destinations pulse
               green (``bg.recognize`` hints); after a refused confirm, the rows that differ
               from the turn's start (yellow/vermillion); when several legal plays read the
               same, the candidate's steps (CUBE: next candidate, ROLL: record it)
doubled        the offered cube value blinks; the taker's turn LED
resigning      die 0 shows the offered value (1/2/3) blinking; the opponent's turn LED
illegal        casual mode: the rows of the illegal play; the opponent's turn LED blinks
game/match     the result chase in the winner's colour, die 0 = 1/2/3 (single/gammon/bg)
storage error  both tray LEDs blink reddish purple (the journal cannot store; nothing lost)
=============  ===============================================================================
"""

from app import controller as C
from bg import leds as L


class View:
    """Paints ``ctl`` into ``painter``'s buffer. ``anim`` is ``(a, b, dim)`` while a roll
    animation runs (``app.dice_anim`` drives it), else None."""

    def __init__(self, painter):
        self.p = painter
        self.anim = None
        self.storage_error = 0
        self.fault_rows = 0

    def show_dice(self, a, b, dim):
        """``app.dice_anim.FuncDisplay`` callback."""
        self.anim = None if not dim else (a, b)

    def paint(self, ctl, now):
        p = self.p
        p.tick(now)
        p.clear()
        ph = ctl.phase
        side = ctl.side
        owner = None if ctl.owner < 0 else ctl.owner
        if ph in (C.IDLE, C.OPENING) and not ctl.board_matches():
            self._guide(ctl)
        elif ph in (C.IDLE, C.OPENING):
            lvl = p.slow.level
            b = p.board
            for s in (0, 1):
                p.set(b.turn_led[s], L.SIDE_COLOURS[s], lvl)
            if ph == C.OPENING and ctl.house_first is not None:
                p.dice(ctl.dice[0], ctl.dice[1], 0)
                p.turn(1)
        elif ph == C.CHOICE:
            p.turn(side)
            p.dice(ctl.dice[0], ctl.dice[1], side)
            p.cube(ctl.cube, owner)
        elif ph == C.AWAIT_ROLL:
            if not ctl.board_matches():
                self._guide(ctl)
            elif ctl.last_play is not None:
                p.last_move(ctl.last_play[1], ctl.last_play[0])
            p.turn(side)
            p.cube(ctl.cube, owner)
        elif ph in (C.MOVING, C.ILLEGAL):
            h = ctl.hinter
            if ctl.choices:
                # several legal plays read the same: show the candidate the next ROLL records
                p.last_move(ctl.choices[ctl.choice], side)
            elif ctl.missing or ctl.extra:
                p.errors(ctl.missing, ctl.extra)
            elif ph == C.MOVING and h is not None and h.mask:
                p.destinations(h.mask, side, h.origin)  # the lifted checker's legal landings
            if ph == C.ILLEGAL:
                b = p.board
                p.set(b.turn_led[1 - side], L.SIDE_COLOURS[1 - side], p.fast.level)
            else:
                p.turn(side)
            p.cube(ctl.cube, owner)
            if self.anim is not None:
                p.dice(self.anim[0], self.anim[1], side, 64)
            else:
                p.dice(ctl.dice[0], ctl.dice[1], side)
        elif ph == C.DOUBLED:
            p.cube(2 * ctl.cube, owner, offered=True)
            p.turn(1 - side)
        elif ph == C.RESIGNING:
            p.turn(1 - side)
            p.dice(ctl.resign_value, 0, side, p.fast.level)
            p.cube(ctl.cube, owner)
        elif ph in (C.GAME_OVER, C.MATCH_OVER) and ctl.result is not None:
            r = ctl.result
            p.result(r[0], r[2], ph == C.MATCH_OVER)
            p.cube(ctl.cube, owner)
        if self.fault_rows:
            p.faults(self.fault_rows)
        if self.storage_error:
            b = p.board
            for s in (0, 1):
                p.set(b.tray_led[s], L.FAULT, p.fast.level)
        return p.finish()

    def _guide(self, ctl):
        exp = ctl.expected()
        sensed = ctl.sensed
        ok = 0
        for r in range(28):
            if exp[r] and sensed[r] == exp[r]:
                ok |= 1 << r
        self.p.setup(ctl.missing, ctl.extra, ok)
