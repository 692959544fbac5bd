"""Dice the board cannot choose (docs/dice.md): the commitment is journaled before any player
entropy, contributions follow it, a host's part is the last input (nothing the board measures
enters after it), and ``gammon verify`` checks that order, says who could have chosen the dice,
and compares with the commitment and the seed this host remembers.

Matches are played through the real controller (``ctl_helpers`` robot); a cheating board is a
``Fairness`` that picks its board seed after learning the player seed, or one that takes the
hosts' parts honestly and then grinds a part of its own ("button timing") after them."""

import hashlib

import ctl_helpers as H
import pytest
from app import controller as C
from app import rules
from bg import record
from bg.dice import SRC_BUTTONS, SRC_HOST, DiceStream, SeedMixer, commitment, derive_rolls
from bg.dice.fairness import Fairness
from gammon.cli import main
from gammon.library import Library

HOST_SEED = bytes(range(100, 116))
PHONE_SEED = bytes(range(200, 216))
WANT = [(6, 5), (2, 1)]  # the throws the grinding board wants: side 0 opens with 6-5, then 2-1


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


class GrindingBoard(Fairness):
    """A modified board: it takes the hosts' parts honestly, then grinds a "button timing" part
    of its own until the first throws are ``WANT``, and journals it after the hosts' parts (as
    the last contribution, where the board's timing part always went)."""

    tries = 0

    def contribute(self, source, part):
        self.hosts_parts = getattr(self, "hosts_parts", []) + [(source, bytes(part))]
        Fairness.contribute(self, source, part)

    def close_timing(self):
        if not self.open:
            return None
        for i in range(200000):
            part = hashlib.sha256(b"timing%d" % i).digest()[:16]
            m = SeedMixer()
            for src, p in self.hosts_parts + [(SRC_BUTTONS, part)]:
                m.add(src, p)
            if derive_rolls(self.match_id, self._seed, m.digest(), len(WANT)) == WANT:
                GrindingBoard.tries = i + 1
                self._parts.add(SRC_BUTTONS, part)  # past Fairness.contribute's rule, as a cheat would
                return part
        raise AssertionError("no part found")


def _play(dice=Fairness, host_seed=None, n=3, hosts=None):
    """A finished one-point match's actions: ``host_seed`` is sent by host 'laptop' (``hosts``:
    ``[(name, seed)]`` in order) after the commitment, before the opening throw."""
    mid = bytes([0xC0, 0xDE, n, 0, 0, 0, 0, n])
    s = C.Settings(length=1, names=("Ann", "Bob"))
    c = C.Controller(s, rules, lambda m: dice(m, H.seed_for(m)), lambda: mid, lambda: 1767225600)
    r = H.Robot(c, n)
    r.set_start()
    assert r.press(0, C.ROLL) and c.phase == C.OPENING
    if host_seed is not None:
        hosts = [("laptop", host_seed)]
    for name, seed in hosts or ():
        assert c.contribute(name, seed, c.outbox[0][1][9]) == mid
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


def _remember(actions, seed):
    """This host's library remembers the match's commitment and the seed it sent."""
    with Library.open() as lib:
        lib.remember_commitment(actions[0][1][0], actions[0][1][9], seed, "board")


def test_a_board_that_grinds_its_own_part_after_the_hosts_fails_verify(tmp_path, capsys):
    acts = _play(GrindingBoard, HOST_SEED)
    parts = [f for k, f in acts if k == C.K_SEED_PART]
    assert [(p[0], p[1]) for p in parts] == [(SRC_HOST, "laptop"), (SRC_BUTTONS, "")]
    throws = [f[1] for k, f in acts if k == C.K_OPENING] + [f[1:3] for k, f in acts if k == C.K_ROLL]
    assert throws[:2] == WANT and GrindingBoard.tries > 1  # the grind chose the throws
    _remember(acts, HOST_SEED)  # the host sent its part honestly and remembers it
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 1, out
    assert "dice chosen by: board alone: the board could have chosen these dice" in out, out
    assert "button timing, measured by the board itself, comes after the part of host 'laptop'" in out
    assert "derivation alone: commitment and all" in out  # every throw derives: that proves nothing
    # the honest board, same hosts and robot: it leaves its own timing out once a host's part is in
    honest = _play(Fairness, HOST_SEED)
    assert [k for k, _ in honest][:3] == [C.K_MATCH_START, C.K_SEED_PART, C.K_GAME_START]
    code, out = _verify(tmp_path, capsys, honest)
    assert code == 0 and "PASS" in out, out


def _ground(hosts):
    return _play(GrindingBoard, n=5, hosts=hosts)


def _without(actions, source):
    return [a for a in actions if not (a[0] == C.K_SEED_PART and a[1][0] == source)]


def _board_part_first(actions):
    """The ground part moved in front of the hosts' parts: the journal claims it came first."""
    parts = [a for a in actions if a[0] == C.K_SEED_PART]
    return actions[:1] + [parts[-1]] + parts[:-1] + actions[1 + len(parts) :]


@pytest.mark.parametrize(
    "variant,hosts,forge,why",
    [
        (
            "an extra board part after two hosts",
            [("laptop", HOST_SEED), ("phone", PHONE_SEED)],
            list,
            "comes after the part of hosts 'laptop', 'phone'",
        ),
        ("the parts reordered", [("laptop", HOST_SEED)], _board_part_first, "comes after the button timing"),
        (
            "the host's part dropped",
            [("laptop", HOST_SEED)],
            lambda a: _without(a, SRC_HOST),
            "FAIL: throw 0 recorded 6-5",
        ),
    ],
)
def test_the_grinding_board_is_caught_however_it_writes_its_journal(
    tmp_path, capsys, variant, hosts, forge, why
):
    acts = forge(_ground(hosts))
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 1 and why in out, (variant, out)
    assert "PASS" not in out and "could not have chosen" not in out, out
    assert "dice chosen by: board alone: the board could have chosen these dice" in out, out
    # the host that sent its part and remembers it catches the journal even without the throws
    _remember(acts, hosts[0][1])
    code, out = _verify(tmp_path, capsys, [a for a in acts if a[0] != C.K_SEED_REVEAL], "--seed", "00" * 32)
    assert code == 1, (variant, out)


def test_verify_names_who_could_have_chosen_the_dice(tmp_path, capsys):
    acts = _play(Fairness, HOST_SEED)
    ks = [k for k, _ in acts]
    assert ks[:3] == [C.K_MATCH_START, C.K_SEED_PART, C.K_GAME_START]  # no board part after the host's
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 0 and "PASS" in out, out
    assert (
        "dice chosen by: host 'laptop' gave the last input, after the board had committed to its seed: "
        "the board could not have chosen these dice without the help of host 'laptop' "
        "(or by making its part up)"
    ) in out, out
    code, out = _verify(tmp_path, capsys, acts, "--player-seed-hex", HOST_SEED.hex())
    assert code == 0 and "your player seed is the last input" in out, out
    code, out = _verify(tmp_path, capsys, acts, "--player-seed-hex", bytes(16).hex())
    assert code == 1 and "not the one you gave" in out, out
    _remember(acts, HOST_SEED)
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 0 and "this host's part is the last input: the board could not have chosen" in out, out
    # nobody watching: the board's own timing is mixed in, and verify says what that is worth
    alone = _play(n=8)  # another match: this host remembers nothing of it
    assert [f[0] for k, f in alone if k == C.K_SEED_PART] == [SRC_BUTTONS]
    code, out = _verify(tmp_path, capsys, alone)
    assert code == 0 and "PASS" in out, out
    assert "dice chosen by: board alone: the board could have chosen these dice (button timing" in out, out


def test_two_hosts_each_learn_whether_their_part_was_the_last(tmp_path, capsys, monkeypatch):
    acts = _play(Fairness, n=6, hosts=[("laptop", HOST_SEED), ("phone", PHONE_SEED)])
    assert [(f[0], f[1]) for k, f in acts if k == C.K_SEED_PART] == [
        (SRC_HOST, "laptop"),
        (SRC_HOST, "phone"),
    ]
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 0 and "PASS" in out, out
    assert "hosts 'laptop', 'phone' (in that order); host 'phone' gave the last input" in out, out
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "phone"))
    _remember(acts, PHONE_SEED)
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 0 and "this host's part is the last input" in out, out
    # the laptop cannot tell the phone's part from one the board made up after its own: it
    # passes only when the user vouches that the phone watched too
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "laptop"))
    _remember(acts, HOST_SEED)
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 1 and "this host's part is in, but host 'phone' came after it" in out, out
    assert "FAIL: host 'phone' gave a part after this host's" in out and "--after-me phone" in out, out
    code, out = _verify(tmp_path, capsys, acts, "--after-me", "phone")
    assert code == 0 and "PASS" in out, out


def test_a_part_the_board_makes_up_after_the_hosts_fails_on_that_host(tmp_path, capsys, monkeypatch):
    """A modified board takes the laptop's part honestly, then appends a part of its own under
    another host's name (one it could grind until the throws suit it, as the button-timing
    grinder above does). To anyone without the laptop's library the journal looks like two
    watching hosts; the laptop, which remembers its part, fails the match: nothing it did not
    vouch for may follow its part."""
    acts = _play(Fairness, n=6, hosts=[("laptop", HOST_SEED), ("phone", bytes(range(16)))])
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 0 and "host 'phone' gave the last input" in out, out  # a third party is fooled
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "laptop"))
    _remember(acts, HOST_SEED)
    code, out = _verify(tmp_path, capsys, acts)
    assert code == 1 and "FAIL: host 'phone' gave a part after this host's" in out, out
    assert "PASS" not in out, out
    code, out = _verify(tmp_path, capsys, acts, "--after-me", "tablet")  # vouching for another name
    assert code == 1, out


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
    alone = _play()
    buttons = [i for i, a in enumerate(alone) if a[0] == C.K_SEED_PART][0]
    after = alone[: buttons + 1] + [part] + alone[buttons + 1 :]
    code, out = _verify(tmp_path, capsys, after)
    assert code == 1 and "after the button timing" in out, out


def test_a_journal_from_before_the_rule_still_derives_and_is_reported_honestly(tmp_path, capsys):
    """Firmware before the rule mixed its button timing in after a host's part: such a journal
    cannot be told from a grinding board's, so it fails; its throws still derive, and a board
    resuming it after a firmware update throws on with the same seed."""
    acts = _play(Fairness, n=7)
    mid, seed = acts[0][1][0], [f for k, f in acts if k == C.K_SEED_REVEAL][0][0]
    timing = [f[2] for k, f in acts if k == C.K_SEED_PART][0]
    old = Fairness(mid, seed, None, 0, False, [(SRC_HOST, HOST_SEED), (SRC_BUTTONS, timing)])
    assert old._parts.late and not old.open  # the board resumes it as it was written
    m = SeedMixer()
    m.add(SRC_HOST, HOST_SEED)
    m.add(SRC_BUTTONS, timing)
    assert old.fix() == m.digest()
    n = len([1 for k, _ in acts if k in (C.K_OPENING, C.K_ROLL)])
    throws = derive_rolls(mid, seed, m.digest(), n)
    it = iter(throws)
    redone = []
    for k, f in acts:
        if k == C.K_SEED_PART:
            redone += [(k, (SRC_HOST, "laptop", HOST_SEED)), (k, f)]
            continue
        if k == C.K_OPENING:
            f = (f[0], next(it))
        elif k == C.K_ROLL:
            f = (f[0],) + next(it)
        redone.append((k, f))
    code, out = _verify(tmp_path, capsys, redone)
    assert code == 1 and "derivation alone: commitment and all %d throws match" % n in out, out
    assert "button timing, measured by the board itself, comes after the part of host 'laptop'" in out


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
    assert [(p["source"], p["name"]) for p in parts] == [("host", "laptop")]
    assert parts[0]["part"] == HOST_SEED.hex() and doc["match"]["dice"]["player_seed"] == ""
