"""Shared set-up for the firmware-update tests (portable): a test release key, signed
bundles of a few small files, a fresh firmware root on the host's filesystem."""

import os

SEED = bytes(range(1, 33))  # the tests' release key (never the board's)
_PUB = []


def pub():
    if not _PUB:
        from bg.update.sign import public_key  # imported when needed: the curve's code is big

        _PUB.append(public_key(SEED))
    return _PUB[0]


def files(tag=b"v2", n=3, size=300):
    """``n`` small firmware files whose bytes differ per ``tag``."""
    out = []
    for i in range(n):
        body = (tag + b"-%d-" % i) * (size // (len(tag) + 3) + 1)
        out.append(("bg/m%d.mpy" % i if i else "app/x.mpy", body[: size + 17 * i]))
    return out


def make(version="2.0.0", tag=b"v2", seed=SEED, n=3, size=300, security=1):
    import gc

    from bg.update.sign import bundle

    gc.collect()
    return bundle(version, files(tag, n, size), seed, security)


def root():
    r = "/tmp/bgu_%s" % "".join("%02x" % b for b in os.urandom(6))
    os.mkdir(r)
    return r


def rm(path):
    try:
        names = os.listdir(path)
    except OSError:
        try:
            os.remove(path)
        except OSError:
            pass
        return
    for n in names:
        rm(path + "/" + n)
    os.rmdir(path)


def send(u, blob, start=0, end=None, step=128):
    """Write ``blob[start:end]`` to an Updater in ``step``-byte chunks; returns its offset."""
    if end is None:
        end = len(blob)
    off = start
    while off < end:
        k = end - off
        if k > step:
            k = step
        off = u.write(off, blob[off : off + k])
    return off
