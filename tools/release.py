"""Build and sign a firmware bundle (docs/update.md): what `make release` runs.

    python -m tools.release build [--key FILE] [--version V] [--counter N] [--arch xtensawin]
                                  [--only bg/notation.py ... | --app IMAGE] [--out DIR]
    python -m tools.release keygen FILE      # a new release key (hex seed, mode 0600)
    python -m tools.release pub FILE         # its public half, for bg/update/bundle.py

``build`` compiles every firmware module as ``make deploy`` does (``tools.deploy.build``, mpy-cross
for ``--arch``) and packs the ``.mpy`` files of ``bg``, ``app`` and ``hal`` into a bundle signed
with ``--key`` (``make release RELEASE_KEY=...``). Without a key it signs with a development
key generated once into ``build/dev-release.key``: a board only installs bundles signed by the
key whose public half is ``bg.update.bundle.RELEASE_PUB``; the simulator takes the development key
when started with ``SG_FW_KEY`` (tests do).

The manifest's security counter is ``bg.update.boot.COUNTER`` of the firmware built (``--counter``
overrides it): a board refuses a bundle below the counter it last confirmed, so a release that
fixes a flaw raises ``COUNTER`` in the source and older releases can never be put back.
``--only`` packs just the named modules: the board lays them over its built-in firmware.
``--app IMAGE`` packs a whole firmware as a new app image (``fw.app``): MicroPython's ESP-IDF build
with the firmware frozen in (``micropython.bin``, docs/update.md: how a maker builds it), or for
the board model its binary built from the release's tree (``tools.board_model.build_release``);
the board writes it into its other OTA app partition and boots it (the bootloader rolls it back
unless it is confirmed healthy). The manifest's counter is then the one the image was built with:
pass ``--counter`` (the image's ``bg.update.boot.COUNTER``). The app image is the one way to ship
a whole firmware: the ROM image (``--romfs``) was retired, its game needing 88k of heap where the
app image's runs at the board's 64k (docs/update.md).
"""

import argparse
import subprocess
import sys
from pathlib import Path

from gammon import release as R

ROOT = Path(__file__).resolve().parent.parent

DEV_KEY = ROOT / "build" / "dev-release.key"


def dev_key():
    """The development key (created on first use); never a release key."""
    if not DEV_KEY.exists():
        R.write_key(DEV_KEY, R.new_key())
    return R.read_key(DEV_KEY)


def default_version():
    try:
        git = ["git", "rev-parse", "--short=7", "HEAD"]
        h = subprocess.run(git, cwd=str(ROOT), capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        h = "dev"
    from bg.update.boot import BUILTIN

    return "%s-%s" % (BUILTIN, h)


def bundle_files(arch, out, only=None):
    """[(slot path, bytes)] of the compiled firmware (not main.py: the built-in one boots);
    ``only``: just these modules (firmware-relative source paths, e.g. ``bg/notation.py``)."""
    from tools import deploy

    want = None if not only else {o[:-3] + ".mpy" if o.endswith(".py") else o for o in only}
    files = []
    for local, dev in deploy.build(Path(out), arch):
        if dev.endswith(".mpy") and dev.split("/")[0] in ("bg", "app", "hal"):
            if want is None or dev in want:
                files.append((dev, Path(local).read_bytes()))
    if want is not None and len(files) != len(want):
        missing = sorted(want - {n for n, _ in files})
        raise ValueError("not firmware modules: %s" % ", ".join(missing))
    return files


def app_files(image):
    """[("fw.app", image)]: a whole firmware's app image, alone in its bundle; refused when it
    does not fit the app partition (``bg.update.bundle.MAX_APP``)."""
    from bg.update.bundle import APP, MAX_APP

    data = Path(image).read_bytes()
    if not 0 < len(data) <= MAX_APP:
        raise ValueError("--app: image of %d bytes; the app partition holds %d" % (len(data), MAX_APP))
    return [(APP, data)]


def default_counter():
    from bg.update.boot import COUNTER

    return COUNTER


def build(key, version, arch, out, counter=None, only=None, app=None):
    seed = R.read_key(key) if key else dev_key()
    if app:
        files = app_files(app)
    else:
        files = bundle_files(arch, Path(out) / ("mpy-" + arch), only)
    blob = R.build_bundle(version, files, seed, default_counter() if counter is None else counter)
    path = Path(out) / ("gammon-fw-%s-%s.gbun" % (version, arch))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(blob)
    return path, len(files), len(blob)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.release", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--key", help="the release key file (default: the development key in build/)")
    b.add_argument("--version", help="the bundle's version (default: %s-<commit>)" % "0.1.0")
    b.add_argument("--arch", default="xtensawin", help="mpy-cross -march (x64 for the simulator)")
    b.add_argument("--counter", type=int, help="the security counter (default: bg.update.boot.COUNTER)")
    b.add_argument("--only", nargs="+", help="just these modules (bg/notation.py ...)")
    b.add_argument("--app", help="the whole firmware as this app image (micropython.bin, frozen)")
    b.add_argument("--out", default=str(ROOT / "build" / "release"))
    k = sub.add_parser("keygen")
    k.add_argument("file")
    p = sub.add_parser("pub")
    p.add_argument("file")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "keygen":
            if Path(a.file).exists():
                raise ValueError("%s exists: not overwritten" % a.file)
            seed = R.new_key()
            R.write_key(a.file, seed)
            print(R.public_key(seed).hex())
        elif a.cmd == "pub":
            print(R.public_key(R.read_key(a.file)).hex())
        else:
            v = a.version or default_version()
            path, n, size = build(a.key, v, a.arch, a.out, a.counter, a.only, a.app)
            print("%s: %d files, %d bytes%s" % (path, n, size, "" if a.key else " (development key)"))
    except (ValueError, OSError) as e:  # a bad key file or output folder: said, not a trace
        print("release: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
