"""A damaged journal file on flash (littlefs, 4096-byte blocks): a real recorded match's file
with every byte flipped in turn and cut at every length. The board opens it without raising,
replays exactly the records before the damage, says what it dropped and goes on. Checks in
journal_damage.py."""

# mpy-heap: 76k
# As test_journal_packcut (the same reference match, built and dropped before the checks):
# the 64-bit port with the firmware in its ROM image needs more than the board's 64k; the
# board model runs it with the board's 64k.
import gc

gc.collect()
from journal_damage import test_every_byte_flipped_and_every_truncation_of_a_recorded_match  # noqa: E402, F401

for _m in ("record.decode", "journal.recover", "journal.pack", "record.packdec", "record.packenc"):
    gc.collect()
    __import__("bg." + _m)
gc.collect()
