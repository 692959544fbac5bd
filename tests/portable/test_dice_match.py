"""bg.dice.fairness: one match's secret seed, player seed, counter, seed file and reveal."""

from bg import dice
from bg.dice.fairness import SECRET_LEN, Fairness, TimingMixer, pack_secret, unpack_secret

MID = bytes.fromhex("0123456789abcdef")
SEED = bytes(range(32))
# player_seed_from_text("correct horse battery staple")
PS = bytes.fromhex("16f4511ff9e5b843846f48d513dd8814")


def _raises(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


class FixedRandom:
    """A deterministic stand-in for the HAL ``Random`` part."""

    def __init__(self, data):
        self.data = data
        self.asked = []

    def urandom(self, n):
        self.asked.append(n)
        return self.data[:n]


def test_timing_mixer_vector():
    m = TimingMixer()
    for t in (0, 123456, 0xFFFFFFFF, 2**40 + 5):  # wider than 32 bits: low word only
        m.feed(t)
    assert m.count == 4
    assert m.digest() == bytes.fromhex("a0bd6c20291f28903fbb0fd8fb6fe979")


def test_new_draws_32_bytes_from_the_hal_random():
    rnd = FixedRandom(SEED)
    f = Fairness.new(rnd, MID)
    assert rnd.asked == [32]
    assert f.commitment == dice.commitment(MID, SEED)


def test_new_refuses_an_rng_that_is_not_ready():
    class RadioOff(FixedRandom):
        def ready(self):
            return False

    rnd = RadioOff(SEED)
    assert _raises(Fairness.new, rnd, MID)
    assert rnd.asked == []  # nothing drawn from a pseudo-random source

    class RadioOn(FixedRandom):
        def ready(self):
            return True

    assert Fairness.new(RadioOn(SEED), MID).commitment == dice.commitment(MID, SEED)


def test_new_refuses_a_short_random_source():
    assert _raises(Fairness.new, FixedRandom(b"abc"), MID)


def test_rolls_follow_the_derivation_and_the_counter_advances():
    f = Fairness(MID, SEED, PS)
    assert f.fix() == PS
    got = []
    for _ in range(12):
        d = f.roll()
        got.append((d[0], d[1]))
    assert f.counter == 12
    assert got == dice.derive_rolls(MID, SEED, PS, 12)


def test_no_throw_before_the_player_seed_is_fixed():
    f = Fairness(MID, SEED)
    assert _raises(f.roll)
    f.fix()
    assert f.roll() is not None


def test_player_seed_cannot_change_once_fixed():
    f = Fairness(MID, SEED)
    f.set_player_seed(PS)
    f.set_player_seed(bytes(16))  # still free before fix()
    assert f.fix() == bytes(16)
    assert _raises(f.set_player_seed, PS)
    f.mix_timing(12345)  # ignored once fixed
    assert f.player_seed == bytes(16)


def test_button_timing_makes_the_player_seed():
    f = Fairness(MID, SEED)
    for t in (1000, 250333, 999999):
        f.mix_timing(t)
    m = TimingMixer()
    for t in (1000, 250333, 999999):
        m.feed(t)
    assert f.fix() == m.digest()
    assert f.player_seed != dice.NO_PLAYER_SEED


def test_host_seed_wins_over_button_timing():
    f = Fairness(MID, SEED)
    f.mix_timing(1)
    f.set_player_seed(PS)
    f.mix_timing(2)
    assert f.fix() == PS


def test_no_player_seed_means_zeros():
    f = Fairness(MID, SEED)
    assert f.fix() == bytes(16)


def test_reveal_only_after_the_match():
    f = Fairness(MID, SEED)
    f.fix()
    f.roll()
    assert _raises(f.reveal)
    f.end_match()
    assert f.reveal() == SEED
    assert _raises(f.roll)


def test_seed_file_round_trip_and_vector():
    blob = pack_secret(MID, SEED)
    assert len(blob) == SECRET_LEN == 48
    assert blob == bytes.fromhex(
        "534744310123456789abcdef000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fe3c2e89e"
    )
    assert unpack_secret(blob) == (MID, SEED)
    assert Fairness(MID, SEED).secret() == blob


def test_seed_file_torn_or_flipped_is_refused():
    blob = bytearray(pack_secret(MID, SEED))
    assert _raises(unpack_secret, blob[:47])
    for i in (0, 5, 20, 47):
        bad = bytearray(blob)
        bad[i] ^= 1
        assert _raises(unpack_secret, bad), i


def test_power_cut_resume_gives_the_same_next_throw():
    # The board showed throw 5 but the power went before anything else: the journal holds 5
    # throws, so the resumed board derives throw 5 again -- the same dice, no re-throw.
    f = Fairness(MID, SEED, PS)
    f.fix()
    for _ in range(5):
        f.roll()
    shown = bytes(f.roll())
    g = Fairness.resume(f.secret(), f.commitment, PS, 5)
    assert g.fixed and g.counter == 5
    assert bytes(g.roll()) == shown


def test_resume_refuses_a_seed_file_from_another_match():
    other = Fairness(MID, bytes(32))
    assert _raises(Fairness.resume, other.secret(), dice.commitment(MID, SEED), PS, 0)


def test_resume_after_the_match_can_reveal():
    f = Fairness(MID, SEED, PS)
    g = Fairness.resume(f.secret(), f.commitment, PS, 40, True)
    assert g.reveal() == SEED


def test_resume_with_an_empty_recorded_player_seed_means_zeros():
    f = Fairness(MID, SEED)
    f.fix()
    first = bytes(f.roll())
    g = Fairness.resume(f.secret(), f.commitment, b"", 0)
    assert g.open  # before the first throw: contributions may still come
    assert g.fix() == bytes(16) and bytes(g.roll()) == first


def test_a_fixed_match_keeps_no_mixer():
    # after fix() a match keeps only what its throws and its reveal read: the mixers' hash
    # states are dropped, and nothing can bring a contribution back in
    f = Fairness(bytes(8), bytes(32))
    f.contribute(dice.SRC_HOST, bytes(16))
    f.mix_timing(5)
    ps = f.fix()
    assert f._parts is None and f._mixer is None and f._timing is None
    assert not f.open and f.close_timing() is None
    assert _raises(f.contribute, dice.SRC_HOST, bytes(16)) and _raises(f.set_player_seed, bytes(16))
    f.mix_timing(7)  # ignored once fixed
    assert f.fix() == ps and f.player_seed == ps
    same = Fairness(bytes(8), bytes(32))
    same.contribute(dice.SRC_HOST, bytes(16))
    assert same.close_timing() is None and same.fix() == ps  # a host's part: the press left out
    assert list(f.roll()) == list(same.roll())
