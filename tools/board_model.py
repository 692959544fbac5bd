"""The board model: MicroPython's unix port built like the ESP32 firmware, to measure the
board's RAM on this machine (docs/memory.md).

    .venv/bin/python -m tools.board_model          # build it (or bring it up to date); prints its path

The ESP32 runs the firmware frozen into its MicroPython build (firmware/manifest.py): bytecode,
qstrs and constant objects live in flash and the heap holds only what the program creates,
with 32-bit objects in 16-byte GC blocks. The pip-installed unix port (``.venv/bin/micropython``)
is 64-bit and loads the firmware as ``.mpy`` files, so its heap figures are about twice the
board's. This script builds the unix port from MicroPython's own source with the variant in
``tools/mpboard/``: ``MICROPY_FORCE_32BIT=1`` and the firmware frozen in, the ESP32's feature
level. ``<model> -X heapsize=64k tools/sim/heapcheck.py ...`` then runs the whole match in the
board's budget (tests/host/test_sim_heap.py, tools/bench/sim.py).

The source is MicroPython 1.25.0 as Debian ships it (``micropython_1.25.0+ds.orig.tar.xz``, the
upstream release without the git submodules Debian does not need; littlefs, crypto-algorithms,
re1.5, uzlib and libm, which the unix port uses, are in it), fetched from Debian's archive --
the registry ``apt-get`` already uses; the mirrors apt is configured with first -- and checked
against its SHA-256. It needs ``make``, a C
compiler and 32-bit libc headers (Debian: ``gcc-multilib``; ``make board-model`` installs it).
Re-running is cheap: ``make`` rebuilds only what changed (a firmware edit re-freezes the firmware
and relinks, a few seconds).
"""

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
VARIANT_DIR = ROOT / "tools" / "mpboard"
VERSION = "1.25.0"
TARBALL = "micropython_%s+ds.orig.tar.xz" % VERSION
SHA256 = "7b25be99a502f070b2de81dafc08da7051d992325d6e67daa9045a918fffdbea"
URLS = (
    "http://deb.debian.org/debian/pool/main/m/micropython/" + TARBALL,
    "https://deb.debian.org/debian/pool/main/m/micropython/" + TARBALL,
    # the same file, kept forever by Debian's snapshot archive once the pool moves on
    "https://snapshot.debian.org/archive/debian/20250601T000000Z/pool/main/m/micropython/" + TARBALL,
)
SRC = BUILD / ("micropython-%s" % VERSION)
PORT = SRC / "ports" / "unix"
BINARY = PORT / ("build-%s" % VARIANT_DIR.name) / "micropython"


class ModelError(Exception):
    """The model cannot be built here; the message says why and what to install."""


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def apt_mirrors(paths=None):
    """The Debian archive URIs this machine's apt is configured with (``deb`` lines and
    deb822 ``URIs:`` fields), so the tarball comes from the same mirror as every other package
    when it is not deb.debian.org."""
    if paths is None:
        paths = [Path("/etc/apt/sources.list")] + sorted(Path("/etc/apt/sources.list.d").glob("*"))
    out = []
    for path in paths:
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            words = line.split("#", 1)[0].split()
            if words[:1] == ["URIs:"]:
                uris = words[1:]
            elif words[:1] == ["deb"]:
                uris = [w for w in words[1:] if "://" in w][:1]
            else:
                continue
            for u in uris:
                u = u.rstrip("/")
                if u.startswith("http") and u.endswith("/debian") and u not in out:
                    out.append(u)
    return out


def fetch(dest=BUILD / "dl"):
    """The verified source tarball, downloaded once into ``dest``."""
    out = Path(dest) / TARBALL
    if out.exists() and _sha256(out) == SHA256:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    errors = []
    mirrors = [m + "/pool/main/m/micropython/" + TARBALL for m in apt_mirrors()]
    for url in [u for u in mirrors if u not in URLS] + list(URLS):
        tmp = out.with_suffix(".part")
        try:
            with urllib.request.urlopen(url, timeout=120) as r, open(tmp, "wb") as f:
                shutil.copyfileobj(r, f)
        except OSError as e:
            errors.append("%s: %s" % (url, e))
            continue
        got = _sha256(tmp)
        if got != SHA256:
            errors.append("%s: SHA-256 %s, expected %s" % (url, got, SHA256))
            tmp.unlink()
            continue
        tmp.replace(out)
        return out
    raise ModelError("cannot fetch MicroPython %s source:\n  %s" % (VERSION, "\n  ".join(errors)))


def unpack(tarball):
    """Extract the source tree into build/ (once)."""
    done = SRC / ".unpacked"
    if done.exists():
        return SRC
    with tempfile.TemporaryDirectory(dir=BUILD) as tmp:
        with tarfile.open(tarball) as t:
            try:
                t.extractall(tmp, filter="data")  # refuses links and paths out of the tree
            except TypeError:  # Python without extraction filters: the hash is pinned anyway
                t.extractall(tmp)
        shutil.rmtree(SRC, ignore_errors=True)
        (Path(tmp) / SRC.name).rename(SRC)
    done.write_text(TARBALL + "\n")
    return SRC


# The unix port sizes the path buffer that every nested import keeps on the C stack by the
# host's PATH_MAX (4096 bytes); the ESP32 port uses 128. The model lets its variant choose
# (tools/mpboard/mpconfigvariant.h), or a chain of imports overflows the unix port's stack
# limit long before it would on the board.
_PATH_MAX_LINE = "#define MICROPY_ALLOC_PATH_MAX      (PATH_MAX)\n"
_PATH_MAX_NEW = "#ifndef MICROPY_ALLOC_PATH_MAX\n" + _PATH_MAX_LINE + "#endif\n"


def configure(src=SRC):
    """The two changes the model makes to the unpacked source (idempotent)."""
    # The frozen-manifest step refuses to run without the micropython-lib submodule, which
    # Debian's tarball leaves empty; the model's manifest uses nothing from it.
    readme = src / "lib" / "micropython-lib" / "README.md"
    if not readme.exists():
        readme.write_text("empty: not used by the board model\n")
    cfg = src / "ports" / "unix" / "mpconfigport.h"
    text = cfg.read_text()
    if _PATH_MAX_NEW not in text:
        if _PATH_MAX_LINE not in text:
            raise ModelError("%s: no MICROPY_ALLOC_PATH_MAX line to make overridable" % cfg)
        cfg.write_text(text.replace(_PATH_MAX_LINE, _PATH_MAX_NEW, 1))


def _check_compiler():
    probe = subprocess.run(
        ["cc", "-m32", "-x", "c", "-", "-o", os.devnull],
        input="#include <stdio.h>\nint main(void) { return 0; }\n",
        capture_output=True,
        text=True,
    )
    if probe.returncode:
        raise ModelError(
            "no 32-bit C toolchain (cc -m32 failed): install gcc-multilib (make board-model does)\n"
            + probe.stderr[-500:]
        )


def build(jobs=None):
    """Path of the model's ``micropython``, built or brought up to date."""
    _check_compiler()
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / "board-model.lock", "w") as lock:
        # one build at a time: two makes in one tree (two test processes finding the firmware
        # changed) race at the link and delete each other's binary
        fcntl.flock(lock, fcntl.LOCK_EX)
        configure(unpack(fetch()))
        cmd = ["make", "-j%d" % (jobs or os.cpu_count() or 1), "VARIANT_DIR=%s" % VARIANT_DIR]
        proc = subprocess.run(cmd, cwd=PORT, capture_output=True, text=True)
    if proc.returncode or not BINARY.exists():
        raise ModelError("building the board model failed:\n" + (proc.stdout + proc.stderr)[-3000:])
    return BINARY


def build_release(firmware, name="release"):
    """Path of a board-model binary whose frozen firmware is the tree ``firmware`` (a release's
    source: a whole firmware's app image, tools/release.py ``--app``). Built in its own folder of
    the port (``build-mpboard-<name>``), started as a copy of the model's own build so only the
    frozen firmware is compiled again and the binary relinked."""
    base = build()
    out = PORT / ("build-mpboard-" + name)
    with open(BUILD / "board-model.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists():
            shutil.copytree(base.parent, out, symlinks=True)  # mtimes kept: objects reused
        fw = Path(firmware).resolve()
        text = (VARIANT_DIR / "manifest.py").read_text().replace('"../../firmware"', repr(str(fw)))
        man = out / "release-manifest.py"
        if not man.exists() or man.read_text() != text:
            man.write_text(text)
        cmd = ["make", "-j%d" % (os.cpu_count() or 1), "VARIANT_DIR=%s" % VARIANT_DIR]
        cmd += ["BUILD=%s" % out.name, "FROZEN_MANIFEST=%s" % man]
        proc = subprocess.run(cmd, cwd=PORT, capture_output=True, text=True)
    exe = out / "micropython"
    if proc.returncode or not exe.exists():
        raise ModelError("building the release's board model failed:\n" + (proc.stdout + proc.stderr)[-3000:])
    return exe


def main():
    try:
        print(build())
    except ModelError as e:
        print("board_model: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
