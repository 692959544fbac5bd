"""One copy of the match rules: the board's controller and the host's model fold the same
records through ``bg.match.Fold`` and must agree after every record.

100 seeded matches are played through the real ``Controller`` by a seeded random pair of
players (doubles, takes, drops, beavers, automatic doubles, resignations accepted and rejected,
casual plays accepted although illegal, flag falls; Jacoby, beavers and automatic doubles in
money sessions, the Crawford rule in match play). Every record the controller journals is
folded by a second controller from the journal (the boot replay) and by the host's model
(``gammon.model``), and after each one both say the same score, cube, owner, Crawford game,
position and side on roll; after each press the live controller says it too. Then a rule is
changed in one place (the Jacoby rule in ``bg.match``) and the controller, the host model and
an export all follow.
"""

import ctl_helpers as H
import pytest
from app import controller as C
from app import rules
from bg import match as bgmatch
from bg import record
from gammon import model
from gammon.formats import json_export, mat


def _settings(rng, i):
    casual = rng.below(4) == 0
    clock = 60 if rng.below(6) == 0 else 0
    if i % 2:
        return C.Settings(length=1 + rng.below(5), crawford=rng.below(5) != 0, casual=casual, clock_s=clock)
    return C.Settings(
        length=0,
        jacoby=rng.below(2) == 0,
        beaver=rng.below(2) == 0,
        auto_doubles=rng.below(4),
        casual=casual,
        clock_s=clock,
    )


def _state(c):
    """What both sides must agree on, from the controller."""
    on_roll = c.side if c.phase in (C.AWAIT_ROLL, C.MOVING, C.CHOICE, C.DOUBLED) else -1
    return (tuple(c.mt.score), c.mt.cube, c.mt.owner, c.mt.crawford, bytes(c.mt.pos), on_roll, c.mt.game_no)


def _host_state(r):
    """The same, from the host's model (``gammon.model``): its games and actions."""
    m, g = r.m, r.g
    if g is None:
        return ((0, 0), 1, -1, False, bytes(rules.start_position()), -1, 0)
    on_roll = r.side if r.phase in ("await_roll", "moving", "choice", "doubled", "resigning") else -1
    score = tuple(r.score)
    return (score, g.cube, g.owner, g.crawford, bytes(r.pos), on_roll, len(m.games))


class Journal:
    """The records as the app drains them: folded at once by a replaying controller (the boot
    path) and by the host model, compared after every record."""

    def __init__(self):
        self.replay = H.make()
        self.host = model._Replay()
        self.records = []
        self.kinds = set()

    def __call__(self, k, f):
        self.records.append((k, f))
        self.kinds.add(k)
        self.replay.apply(k, f)
        self.host.feed(k, f)
        a, b = _state(self.replay), _host_state(self.host)
        if self.host.phase == "ended":  # decided by a drop/resignation: GAME_END is next
            a, b = a[:5] + a[6:], b[:5] + b[6:]
        assert a == b, (record.name(k), f, a, b)
        if k == record.PLAY and f[2]:
            self.kinds.add("casual")
        if k == record.GAME_END:
            self.kinds.add(("end", f[3], f[2]))


class Players:
    """Two seeded random players at the physical board (``ctl_helpers.Robot`` moves the
    checkers and presses the buttons)."""

    def __init__(self, c, seed, journal):
        self.c = c
        self.j = journal
        self.r = H.Robot(c, seed, drain=self._drain)
        self.rng = H.Lcg(seed * 7 + 3)

    def _drain(self, k, f):
        self.j(k, f)

    def chance(self, n):
        return self.rng.below(n) == 0

    def check(self):
        c = self.c
        assert not c.outbox
        a, b = _state(c), _state(self.j.replay)
        if c.phase in (C.RESIGNING, C.ILLEGAL):  # a press not recorded yet: whose turn is open
            a, b = a[:5] + a[6:], b[:5] + b[6:]
        assert a == b

    def press(self, side, role, kind=C.PRESS):
        done = self.r.press(side, role, kind)
        self.check()
        return done

    def game(self):
        c, r = self.c, self.r
        r.set_start()
        while c.phase == C.OPENING:
            assert self.press(0 if c.house_first is None else 1, C.ROLL)
        turns = 0
        while c.phase not in (C.GAME_OVER, C.MATCH_OVER):
            turns += 1
            assert turns < 700
            ph = c.phase
            if ph == C.AWAIT_ROLL:
                side = c.side
                if c.may_double and c.mt.cube < 256 and self.chance(6):
                    assert self.press(side, C.CUBE)
                    u = self.rng.below(10)
                    if u < 2:
                        assert self.press(1 - side, C.CUBE)  # drop
                    elif u < 4 and c.settings.beaver and not c.settings.length:
                        assert self.press(1 - side, C.CUBE, C.LONG)  # beaver
                    else:
                        assert self.press(1 - side, C.ROLL)  # take
                    continue
                if self.chance(60):
                    self.resign(side)
                    continue
                if c.clock.enabled and self.chance(80):
                    r.now += 61000  # the side on roll lets its clock run out
                    c.tick(r.now)
                    r._drained(None)
                    self.check()
                    continue
                assert self.press(side, C.ROLL)
            elif ph == C.MOVING:
                side = c.side
                if self.chance(90):
                    self.resign(side)
                    continue
                if c.settings.casual and self.chance(6) and self.backwards(side):
                    if self.press(side, C.ROLL) and c.phase == C.ILLEGAL:
                        assert self.press(1 - side, C.ROLL)  # the opponent accepts it
                        continue
                    r.pos[:] = c.turn_start  # refused / not readable: take it back
                    r.sense()
                r.play_turn()
                self.check()
            else:
                raise AssertionError("phase %d" % ph)

    def backwards(self, side):
        """A checker of ``side`` from its 6-point back to its 7-point (never legal), hitting
        a blot there the way a hand would; False when that cannot be done."""
        r = self.r
        try:
            bgmatch.apply_free(r.pos, side, (6, 7))
        except ValueError:
            return False
        r.sense()
        return True

    def resign(self, side):
        c = self.c
        assert self.press(side, C.CUBE, C.LONG) and c.phase == C.RESIGNING
        for _ in range(self.rng.below(3)):
            assert self.press(side, C.CUBE)  # single -> gammon -> backgammon
        if self.chance(2):
            assert self.press(1 - side, C.ROLL)  # accepted
        else:
            assert self.press(1 - side, C.CUBE)  # rejected: play goes on


def _play_match(i):
    rng = H.Lcg(1000 + i)
    s = _settings(rng, i)
    c = H.make(s)
    j = Journal()
    p = Players(c, 1000 + i, j)
    p.r.set_start()
    assert p.press(0, C.ROLL) and c.phase == C.OPENING
    games = 0
    while c.phase != C.MATCH_OVER:
        if c.phase == C.GAME_OVER:
            if not s.length and games >= 1 + rng.below(3):
                assert c.intent(0, C.I_END)
                p.r._drained(None)
                p.check()
                break
            assert p.press(0, C.ROLL)
        p.game()
        games += 1
    return s, j


def test_controller_and_host_model_agree_after_every_record_of_100_matches():
    seen = set()
    options = set()
    for i in range(100):
        s, j = _play_match(i)
        seen |= j.kinds
        m = model.build(j.records)  # the whole match is a valid one for the host
        assert m.complete and list(m.final_score) == j.replay.mt.score
        assert json_export.export(m)
        if not s.casual and not any(g.auto_doubles for g in m.games):
            assert mat.export(m)
        options.add((bool(s.length), s.jacoby, s.beaver, s.auto_doubles > 0, s.crawford, s.casual))
    # the seeds cover every rule the fold owns
    for k in (
        record.DOUBLE,
        record.TAKE,
        record.DROP,
        record.BEAVER,
        record.AUTO_DOUBLE,
        record.RESIGN_ACCEPT,
        record.RESIGN_REJECT,
        "casual",
    ):
        assert k in seen, k
    ends = {e[1] for e in seen if isinstance(e, tuple)}
    assert ends == {record.END_BEAROFF, record.END_DROP, record.END_RESIGN, record.END_TIME}
    assert {e[2] for e in seen if isinstance(e, tuple) and e[1] == record.END_BEAROFF} >= {1, 2}
    assert any(o[1] for o in options) and any(o[0] and o[4] for o in options)


def _jacoby_gammon_resigned():
    """A money session with the Jacoby rule: the side on roll resigns a gammon with the cube
    centred and the opponent accepts. Returns (controller, journal)."""
    c = H.make(length=0, jacoby=True)
    j = Journal()
    p = Players(c, 7, j)
    p.r.set_start()
    assert p.press(0, C.ROLL)
    while c.phase == C.OPENING:
        assert p.press(0, C.ROLL)
    side = c.side
    assert p.press(side, C.CUBE, C.LONG) and p.press(side, C.CUBE)  # a gammon
    assert c.mt.owner == -1 and p.press(1 - side, C.ROLL)
    assert c.intent(0, C.I_END)
    p.r._drained(None)
    return c, j


@pytest.mark.parametrize("jacoby", [True, False])
def test_the_jacoby_rule_changed_in_bg_match_changes_every_consumer(monkeypatch, jacoby):
    if not jacoby:
        # the rule changed in one place: gammons always count
        monkeypatch.setattr(bgmatch.Match, "jacoby_applies", lambda self: False)
    want = 1 if jacoby else 2
    c, j = _jacoby_gammon_resigned()
    end = [f for k, f in j.records if k == record.GAME_END][0]
    assert end[1] == want and c.mt.result[1] == want  # the controller scores it
    assert max(c.mt.score) == want
    m = model.build(j.records)  # the host model accepts exactly that
    assert m.games[0].points == want and max(m.final_score) == want
    js = json_export.to_dict(m)
    assert max(js["match"]["final_score"]) == want  # and the exports write it
    assert js["games"][0]["result"]["points"] == want
    assert "Wins %d point" % want in mat.export(m)
    # a record scored by the other rule is refused by the host
    bad = [(k, (f[0], 3 - want, f[2], f[3]) if k == record.GAME_END else f) for k, f in j.records]
    with pytest.raises(ValueError, match="GAME_END"):
        model.build(bad)
