"""bg.dice.verify_transcript: PASS for the real dice, FAIL naming the first bad throw."""

from bg.dice import commitment, derive_rolls, player_seed_from_text, verify_transcript

MID = bytes.fromhex("1122334455667788")
SEED = bytes.fromhex("00112233445566778899aabbccddeeff0f1e2d3c4b5a69788796a5b4c3d2e1f0")
PS = player_seed_from_text("my lucky phrase")
COMMIT = commitment(MID, SEED)
N = 60


def _rolls():
    return derive_rolls(MID, SEED, PS, N)


def test_pass_for_the_real_dice():
    ok, idx, msg = verify_transcript(MID, COMMIT, SEED, PS, _rolls())
    assert ok and idx == -1 and msg.startswith("PASS") and "60" in msg


def test_pass_for_lists_as_well_as_tuples():
    rolls = [list(r) for r in _rolls()]
    assert verify_transcript(MID, COMMIT, SEED, PS, rolls)[0]


def test_tampered_throw_is_named():
    rolls = _rolls()
    d1, d2 = rolls[17]
    rolls[17] = (d1 % 6 + 1, d2)
    ok, idx, msg = verify_transcript(MID, COMMIT, SEED, PS, rolls)
    assert not ok and idx == 17 and msg.startswith("FAIL") and "throw 17" in msg


def test_swapped_dice_within_a_throw_are_detected():
    rolls = _rolls()
    k = next(i for i, r in enumerate(rolls) if r[0] != r[1])
    rolls[k] = (rolls[k][1], rolls[k][0])
    assert verify_transcript(MID, COMMIT, SEED, PS, rolls)[:2] == (False, k)


def test_missing_throw_is_detected():
    rolls = _rolls()
    k = next(i for i in range(10, N - 1) if rolls[i] != rolls[i + 1])
    del rolls[k]
    ok, idx, _ = verify_transcript(MID, COMMIT, SEED, PS, rolls)
    assert not ok and idx == k


def test_reordered_throws_are_detected():
    rolls = _rolls()
    k = next(i for i in range(5, N - 1) if rolls[i] != rolls[i + 1])
    rolls[k], rolls[k + 1] = rolls[k + 1], rolls[k]
    ok, idx, _ = verify_transcript(MID, COMMIT, SEED, PS, rolls)
    assert not ok and idx == k


def test_wrong_seed_fails_the_commitment():
    bad = bytes([SEED[0] ^ 1]) + SEED[1:]
    ok, idx, msg = verify_transcript(MID, COMMIT, bad, PS, _rolls())
    assert not ok and idx == -1 and "commitment" in msg


def test_wrong_seed_with_a_matching_forged_commitment_fails_on_a_throw():
    bad = bytes(32)
    ok, idx, _ = verify_transcript(MID, commitment(MID, bad), bad, PS, _rolls())
    assert not ok and 0 <= idx < N


def test_wrong_player_seed_or_match_id_fails():
    assert not verify_transcript(MID, COMMIT, SEED, bytes(16), _rolls())[0]
    other = bytes(8)
    assert not verify_transcript(other, commitment(other, SEED), SEED, PS, _rolls())[0]


def test_malformed_inputs_fail_cleanly():
    ok, idx, msg = verify_transcript(MID, COMMIT, SEED[:31], PS, _rolls())
    assert not ok and idx == -1 and "board seed" in msg
    rolls = _rolls()
    rolls[3] = (rolls[3][0],)
    assert verify_transcript(MID, COMMIT, SEED, PS, rolls)[:2] == (False, 3)


def test_empty_transcript_passes_the_commitment_only():
    ok, idx, msg = verify_transcript(MID, COMMIT, SEED, PS, [])
    assert ok and "0 throws" in msg


def test_empty_player_seed_means_zeros():
    rolls = derive_rolls(MID, SEED, None, 10)
    assert verify_transcript(MID, COMMIT, SEED, b"", rolls)[0]
    assert verify_transcript(MID, COMMIT, SEED, bytes(16), rolls)[0]
