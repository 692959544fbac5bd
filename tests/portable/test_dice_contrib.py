"""Player-seed contributions on the board (docs/dice.md): the commitment is journaled before
any player entropy; host seeds follow it, each as a SEED_PART record; button timing (measured
by the board itself) is the last part only when no host gave one: nothing the board controls
enters after a host's part; none is accepted after the first throw; a power cut between the
commitment and the opening throw resumes with the same contributions and gives the same throw.

Runs unchanged under CPython and MicroPython (the board model at 64k)."""

# mpy-heap: 124k
# (make bench heapmargin, 2026-11-27: smallest passing 116k on the 64-bit port; declared +8k)
# The 64-bit port with the firmware in its ROM image needs 112k here (the whole controller and
# its rules engine incl. bg.match's fold, objects twice the ESP32's size; 100k before the
# controller imported bg.match); declared with 8k to spare. On the board model it runs with
# the board's 64k (needs 48k): tools/bench/heapmargin.py.

import ctl_helpers as H
from app import controller as C
from bg import dice, record
from bg.dice.fairness import Fairness

SEED = bytes(range(16))
OTHER = bytes(range(16, 32))


def _created():
    c = H.make(length=3)
    r = H.Robot(c)
    r.set_start()
    assert r.press(0, C.ROLL) and c.phase == C.OPENING
    return c, r


def test_the_commitment_is_journaled_before_any_player_entropy():
    c, r = _created()
    ((k, f),) = c.outbox
    assert k == C.K_MATCH_START and f[9] == c.fair.commitment and f[10] == b""
    mid = c.contribute("laptop", SEED, f[9])
    assert mid == f[0] and c.outbox[-1] == (C.K_SEED_PART, (C.SRC_HOST, "laptop", SEED))
    c.button(0, C.ROLL, now=123456)  # the opening press: the host's part was the last input
    ks = H.kinds(c)
    assert ks[:3] == [C.K_MATCH_START, C.K_SEED_PART, C.K_GAME_START]
    m = dice.SeedMixer()
    m.add(C.SRC_HOST, SEED)
    assert c.fair.player_seed == m.digest()
    # nobody sent a part: the opening press's timing is the one contribution
    c, r = _created()
    c.button(0, C.ROLL, now=123456)
    assert H.kinds(c)[:3] == [C.K_MATCH_START, C.K_SEED_PART, C.K_GAME_START]
    assert c.outbox[1][1][0] == C.SRC_BUTTONS and len(c.outbox[1][1][2]) == 16
    m = dice.SeedMixer()
    m.add(C.SRC_BUTTONS, c.outbox[1][1][2])
    assert c.fair.player_seed == m.digest()


def test_a_contribution_is_refused_outside_its_window_and_changes_nothing():
    c = H.make(length=3)
    try:
        c.contribute("laptop", SEED)  # no match yet
        raise AssertionError("accepted")
    except ValueError:
        pass
    c, r = _created()
    for bad in ((SEED, bytes(32)), (SEED[:15], None), (SEED + b"x", None)):
        try:
            c.contribute("laptop", bad[0], bad[1])  # wrong commitment, wrong lengths
            raise AssertionError("accepted %r" % (bad,))
        except ValueError:
            pass
    assert H.kinds(c) == [C.K_MATCH_START]
    r.press(0, C.ROLL)
    while c.phase == C.OPENING:
        r.press(0 if c.house_first is None else 1, C.ROLL)
    n = len(c.outbox)
    try:
        c.contribute("laptop", SEED)  # after the first throw
        raise AssertionError("accepted")
    except ValueError:
        pass
    assert len(c.outbox) == n


def test_a_long_host_name_is_cut_at_a_character_boundary():
    c, r = _created()
    c.contribute("portátil-de-señora", SEED)
    name = c.outbox[-1][1][1]
    assert len(name.encode()) <= 16 and "portátil-de-señora".startswith(name)
    record.encode(record.SEED_PART, c.outbox[-1][1])  # the journal can store it


def test_a_power_cut_between_commitment_and_opening_resumes_the_same_seed():
    c, r = _created()
    c.contribute("laptop", SEED)
    seed = c.board_seed()
    journal = list(c.outbox)  # MATCH_START, SEED_PART: durable when the power went
    d = H.make(length=3)
    d.resume(iter(journal), seed)
    H.Robot(d).set_start()
    assert d.phase == C.OPENING and d.fair.open
    d.contribute("phone", OTHER)  # the window is still open after the reboot
    c.contribute("phone", OTHER)
    c.button(0, C.ROLL, now=7)
    d.button(0, C.ROLL, now=7)
    assert C.K_OPENING in H.kinds(d) and c.outbox[len(journal) :] == d.outbox
    # cut after the opening press's GAME_START, before the throw: the same seed, no more parts
    e = H.make(length=3)
    e.resume(iter(c.outbox[: len(journal) + 2]), seed)
    assert not e.fair.open and e.fair.fix() == c.fair.player_seed


def test_seed_part_records_round_trip_and_bad_ones_are_refused():
    f = (dice.SRC_HOST, "laptop", SEED)
    b = record.encode(record.SEED_PART, f)
    assert list(record.decode_stream(b)) == [(record.SEED_PART, f)]
    for bad in ((3, "x", SEED), (1, "x", SEED[:8]), (2, "", b"")):
        try:
            record.encode(record.SEED_PART, bad)
            raise AssertionError("encoded %r" % (bad,))
        except ValueError:
            pass
    raw = bytearray(b)
    raw[2] = 9  # a source nobody defined, with a valid checksum: the reader stops there
    c = record.crc16(raw, 0, len(raw) - 2)
    raw[-2], raw[-1] = c >> 8, c & 255
    d = record.decode_stream(bytes(raw))
    assert list(d) == [] and d.status == record.CORRUPT


def test_fairness_contributions_close_with_button_timing():
    f = Fairness(bytes(8), bytes(32))
    f.mix_timing(5)
    t = f.close_timing()
    assert t is not None and not f.open
    try:
        f.contribute(dice.SRC_HOST, SEED)
        raise AssertionError("accepted after the button timing")
    except ValueError:
        pass
    g = Fairness(bytes(8), bytes(32), None, 0, False, [(dice.SRC_BUTTONS, t)])
    assert g.fix() == f.fix() and bytes(g.roll()) == bytes(f.roll())


def test_nothing_the_board_measures_enters_after_a_hosts_part():
    f = Fairness(bytes(8), bytes(32))
    f.mix_timing(5)  # a press before the host's part, one after: both left out
    f.contribute(dice.SRC_HOST, SEED)
    f.mix_timing(6)
    assert f.close_timing() is None and not f.open
    try:
        Fairness(bytes(8), bytes(32), None, 0, False, [(dice.SRC_HOST, SEED)]).contribute(
            dice.SRC_BUTTONS, OTHER
        )
        raise AssertionError("a board part accepted after a host's")
    except ValueError:
        pass
    one = dice.SeedMixer()
    one.add(dice.SRC_HOST, SEED)
    host_only = one.digest()  # (a MicroPython hash gives its digest once)
    assert f.fix() == host_only and not one.late
    # a journal written before the rule (timing after the host's part) resumes as written: the
    # same seed, the same throws, flagged ``late`` (gammon verify fails such a journal)
    old = Fairness(bytes(8), bytes(32), None, 0, False, [(dice.SRC_HOST, SEED), (dice.SRC_BUTTONS, OTHER)])
    m = dice.SeedMixer()
    m.add(dice.SRC_HOST, SEED)
    m.add(dice.SRC_BUTTONS, OTHER)
    assert m.late and old._parts.late and not old.open and old.fix() == m.digest() != host_only


def test_the_combination_follows_the_documented_layout():
    import hashlib

    m = dice.SeedMixer()
    m.add(dice.SRC_HOST, bytes(16))
    m.add(dice.SRC_BUTTONS, SEED)
    want = hashlib.sha256(b"smartgammon-seed-v2" + b"\x01" + bytes(16) + b"\x02" + SEED).digest()[:16]
    assert m.digest() == want
    one = dice.SeedMixer()
    one.add(dice.SRC_HOST, bytes(16))
    assert one.digest().hex() == "3b7af7f8170a3a93f38055aba32f345c"  # docs/dice.md test vector
    assert dice.SeedMixer().digest() == bytes(16)  # no contribution: the board alone


class _Replayable:
    """A random source like the seeded simulator's (hal/sim.py ``Random``): fixed bytes and
    press times replaced by their count."""

    def __init__(self):
        self.n = 0

    def urandom(self, n):
        return bytes(n)

    def timing(self, ticks):
        self.n += 1
        return self.n


def test_a_replayable_source_makes_button_timing_depend_on_the_presses_alone():
    digests = []
    for times in ((1234, 99999, 7), (5, 6000000, 2**31 + 3)):  # other times, same presses
        f = Fairness.new(_Replayable(), bytes(8))
        for t in times:
            f.mix_timing(t)
        digests.append(f.close_timing())
    assert digests[0] == digests[1]
    # a source without ``timing`` (the ESP32's): the press times themselves count
    a = Fairness(bytes(8), bytes(32))
    b = Fairness(bytes(8), bytes(32))
    a.mix_timing(1234)
    b.mix_timing(1235)
    assert a.close_timing() != b.close_timing()
