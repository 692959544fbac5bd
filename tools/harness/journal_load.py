"""Load the journal modules one at a time with a collection in between: under the runner's
64k heap, compiling each from source needs the room the previous one's parse tree left
(on the board they are precompiled .mpy files and this is moot)."""

import gc

for _m in ("record", "record.decode", "journal", "journal.recover", "journal.pack"):
    gc.collect()
    __import__("bg." + _m)
gc.collect()
