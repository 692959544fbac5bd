"""Dice the board cannot choose (docs/dice.md): the commitment is journaled before any player
entropy, contributions follow it, and ``gammon verify`` checks that order, says who chose the
dice, and compares with the commitment this host remembers.

Matches are played through the real controller (``ctl_helpers`` robot); a cheating board is a
``Fairness`` that picks its board seed after learning the player seed."""

import hashlib

import ctl_helpers as H
import pytest
from app import controller as C
from app import rules
from bg import record
from bg.dice import DiceStream, commitment
from bg.dice.fairness import Fairness
from gammon.cli import main
from gammon.library import Library

HOST_SEED = bytes(range(100, 116))


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


class Grinder(Fairness):
    """A modified board: once it knows the player seed, it grinds board seeds until side 0
    wins the opening by 4 pips or more, and uses that seed (and its commitment) instead."""

    def fix(self):
        if self._stream is None:
            ps = Fairness.fix(self)
            for i in range(5000):
                seed = hashlib.sha256(b"grind%d" % i).digest()
                d = DiceStream(self.match_id, seed, ps).derive(self.counter)
                if d[0] - d[1] >= 4:
                    break
            self._seed = seed
            self.commitment = commitment(self.match_id, seed)
            self._stream = DiceStream(self.match_id, seed, ps)
        return self._player


def _play(dice=Fairness, host_seed=None, n=3):
    """A finished one-point match's actions: ``host_seed`` is sent by host 'laptop' after the
    commitment, before the opening throw."""
    mid = bytes([0xC0, 0xDE, n, 0, 0, 0, 0, n])
    s = C.Settings(length=1, names=("Ann", "Bob"))
    c = C.Controller(s, rules, lambda m: dice(m, H.seed_for(m)), lambda: mid, lambda: 1767225600)
    r = H.Robot(c, n)
    r.set_start()
    assert r.press(0, C.ROLL) and c.phase == C.OPENING
    if host_seed is not None:
        assert c.contribute("laptop", host_seed, c.outbox[0][1][9]) == mid
    r.play_game()
    assert c.phase == C.MATCH_OVER
    return list(c.outbox)


def _bytes(actions):
    return b"".join(record.encode(k, f) for k, f in actions)


def _verify(tmp_path, capsys, actions, *opts):
    p = tmp_path / "match.m"
    p.write_bytes(_bytes(actions))
    code = main(["verify", str(p), *opts])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_board_that_picks_its_seed_after_the_player_seed_fails_verify(tmp_path, capsys):
    acts = _play(Grinder)
    opening = [f for k, f in acts if k == C.K_OPENING][0][1]
    assert opening[0] - opening[1] >= 4  # the grind worked: side 0 got the opening it wanted
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 1 and "revealed seed does not match the commitment" in out, out
    # an honest board, same robot: passes
    code, out = _verify(tmp_path, capsys, _play())
    assert code == 0 and "PASS" in out, out


def test_a_rewritten_journal_is_caught_by_the_host_that_remembered_the_commitment(tmp_path, capsys):
    acts = _play(Grinder, HOST_SEED)
    published = acts[0][1][9]  # what the board showed the host before the seed was sent
    # the cheat rewrites its journal so the commitment matches the seed it ground
    seed = [f for k, f in acts if k == C.K_SEED_REVEAL][0][0]
    ms = list(acts[0][1])
    ms[9] = commitment(ms[0], seed)
    forged = [(C.K_MATCH_START, tuple(ms))] + acts[1:]
    code, out = _verify(tmp_path, capsys, forged)
    assert code == 0, out  # the journal alone cannot tell
    with Library.open() as lib:
        lib.remember_commitment(ms[0], published, HOST_SEED, "board")
    code, out = _verify(tmp_path, capsys, forged)
    assert code == 1 and "published commitment %s" % published.hex() in out, out
    # a journal that drops the host's seed is caught too
    honest = _play(Fairness, HOST_SEED, 4)
    with Library.open() as lib:
        lib.remember_commitment(honest[0][1][0], honest[0][1][9], HOST_SEED, "board")
    dropped = [a for a in honest if not (a[0] == C.K_SEED_PART and a[1][0] == C.SRC_HOST)]
    code, out = _verify(tmp_path, capsys, dropped)
    assert code == 1 and "the player seed this host sent" in out, out


def test_verify_names_who_chose_the_dice(tmp_path, capsys):
    acts = _play(Fairness, HOST_SEED)
    ks = [k for k, _ in acts]
    assert ks[:4] == [C.K_MATCH_START, C.K_SEED_PART, C.K_SEED_PART, C.K_GAME_START]
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 0 and "player seed from host 'laptop' + button timing" in out, out
    code, out = _verify(tmp_path, capsys, acts, "--player-seed-hex", HOST_SEED.hex())
    assert code == 0, out
    code, out = _verify(tmp_path, capsys, acts, "--player-seed-hex", bytes(16).hex())
    assert code == 1 and "not the one you gave" in out, out
    code, out = _verify(tmp_path, capsys, _play())
    assert code == 0 and "board alone: the board could have chosen these dice" in out, out


def test_verify_fails_when_the_record_order_proves_nothing(tmp_path, capsys):
    acts = _play(Fairness, HOST_SEED)
    part = acts[1]
    assert part[0] == C.K_SEED_PART and part[1][1] == "laptop"
    rest = acts[:1] + acts[2:]
    first = [i for i, a in enumerate(rest) if a[0] == C.K_OPENING][0]
    late = rest[: first + 1] + [part] + rest[first + 1 :]
    code, out = _verify(tmp_path, capsys, late)
    assert code == 1 and "(host 'laptop') comes after the first throw" in out, out
    early = [part] + rest
    code, out = _verify(tmp_path, capsys, early)
    assert code == 1 and "comes before the commitment" in out, out
    # a host part after the button timing (which closes the contributions)
    buttons = [i for i, a in enumerate(rest) if a[0] == C.K_SEED_PART][0]
    after = rest[: buttons + 1] + [part] + rest[buttons + 1 :]
    code, out = _verify(tmp_path, capsys, after)
    assert code == 1 and "after the button timing" in out, out


def test_an_old_journal_still_verifies_as_board_alone(tmp_path, capsys):
    """Journals from before SEED_PART: MATCH_START carried the player seed (button timing)."""
    mid, seed, ps = bytes(range(8)), bytes(range(32)), bytes(range(16))
    s = DiceStream(mid, seed, ps)
    throws = [tuple(s.derive(k)) for k in range(4)]
    assert throws[0][0] != throws[0][1]
    start = (mid, 1767225600, 1, 1, 0, 0, 0, "Ann", "Bob", commitment(mid, seed), ps)
    acts = [(record.MATCH_START, start), (record.GAME_START, (1, 0, 0, 0)), (record.OPENING, (0, throws[0]))]
    side = 0 if throws[0][0] > throws[0][1] else 1
    for k in range(1, 4):
        side = 1 - side
        acts.append((record.ROLL, (side,) + throws[k]))
    acts += [(record.MATCH_END, (0, 1, 0)), (record.SEED_REVEAL, (seed,))]
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 0 and "PASS" in out, out
    assert "board alone" in out and "recorded with the commitment" in out, out


def test_the_json_export_carries_the_contributions():
    import json

    from gammon import model
    from gammon.formats import json_export

    acts = _play(Fairness, HOST_SEED, 5)
    doc = json.loads(json_export.export(model.load_match(_bytes(acts))))
    parts = doc["match"]["dice"]["seed_parts"]
    assert [(p["source"], p["name"]) for p in parts] == [("host", "laptop"), ("buttons", "")]
    assert parts[0]["part"] == HOST_SEED.hex() and doc["match"]["dice"]["player_seed"] == ""
