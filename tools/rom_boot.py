# Runs on MicroPython (unix port): boot like an ESP32 whose firmware is a ROMFS partition.
#
#   micropython -X heapsize=H tools/rom_boot.py IMAGE TARGET [ARGS...]
#
# reads IMAGE (built by tools/romfs.py) into one bytearray before anything else, so it sits at
# the start of the heap where no later allocation can fragment around it -- the ESP32 keeps the
# same bytes in flash, outside its RAM -- mounts it with vfs.VfsRom at /rom (bytecode then runs
# in place: importing a module costs its objects, not a copy of its code) and puts /rom first on
# sys.path. It prints one line with the image size and the working heap left beside it, then
# imports TARGET with sys.argv = [TARGET, ARGS...]: a module name ("main", "mpy_runner") or the
# path of a script ("tools/sim/heapcheck.py", whose directory joins sys.path). tools/romfs.py's
# heapsize_for() gives the H that leaves exactly a given working heap; see docs/memory.md.
import gc
import os
import sys

import vfs

gc.collect()
_a = gc.mem_alloc()
_img = bytearray(os.stat(sys.argv[1])[6])
_f = open(sys.argv[1], "rb")
_f.readinto(_img)
_f.close()
del _f
gc.collect()
_rom = gc.mem_alloc() - _a  # the image's share of the heap (its data and its object)
vfs.mount(vfs.VfsRom(_img), "/rom")
sys.path[0] = "/rom"  # instead of this script's directory
_t = sys.argv[2]
_d = None
if _t.endswith(".py"):
    _d, _, _t = _t.rpartition("/")
    sys.path.append(_d or ".")  # a script: its folder on the path, as `micropython script.py` puts it
    _t = _t[:-3]
sys.argv[:] = [_t] + sys.argv[3:]
del _a, _d
gc.collect()
print(
    "rom: image %d bytes in /rom (heap %d); working heap %d bytes: in use %d, free %d"
    % (len(_img), _rom, gc.mem_free() + gc.mem_alloc() - _rom, gc.mem_alloc() - _rom, gc.mem_free())
)
del _rom  # _img stays referenced here: the mount points into it
__import__(_t)
