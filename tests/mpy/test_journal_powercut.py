"""Power cut at every block program and erase of a whole scripted match, on littlefs
(``vfs.VfsLfs2``) with ESP32-like 4096-byte blocks.

At each program/erase ``k`` of the live run, the flash image is copied as it is at that
instant and checked twice: as is (the write is lost; this is also the image just after
write ``k-1``) and torn (half of the write reached the flash). The copy is mounted fresh,
the journal opened: every action whose ``append()`` had returned must be replayed, in order,
plus at most the one in flight, nothing else; the secret seed is intact and never served;
then the journal must resume (one more append, replayed too).
"""

# The checks live in journal_cut.py: this module stays tiny so that, under the runner's 64k
# heap, the firmware modules load first into an unfragmented heap (journal_load).
import gc

gc.collect()
import journal_load  # noqa: E402, F401

gc.collect()
from journal_cut import test_power_cut_at_every_write  # noqa: E402, F401
