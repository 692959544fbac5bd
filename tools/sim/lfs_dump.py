# Runs on MicroPython: print every file of a littlefs image (the simulator's flash), one JSON
# line per file: {"path": ..., "hex": ...}. Usage: micropython tools/sim/lfs_dump.py IMAGE
import os
import sys
from binascii import hexlify

import vfs
from hal.sim import FileBlockDev

bd = FileBlockDev(sys.argv[1])
vfs.mount(vfs.VfsLfs2(bd), "/img")


def walk(d):
    for e in os.ilistdir(d):
        p = d + "/" + e[0]
        if e[1] & 0x4000:
            walk(p)
            continue
        sys.stdout.write('{"path": "%s", "hex": "' % p[len("/img") :])
        with open(p, "rb") as f:
            while True:
                chunk = f.read(512)
                if not chunk:
                    break
                sys.stdout.write(hexlify(chunk).decode())
        sys.stdout.write('"}\n')


walk("/img")
vfs.umount("/img")
