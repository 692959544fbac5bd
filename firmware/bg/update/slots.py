"""Receiving a bundle into the free slot (``Updater``): resumable, checked, then pending.

Portable; the link's update requests (``bg.link.fwupdate``) drive it. The bundle arrives as
one byte stream in order (``begin`` names it by its id and size and answers where to go on;
``write`` takes the bytes at that offset; ``commit`` checks it and marks it pending). The
header (magic, manifest, signature) is kept in RAM until it is whole; its signature is
checked before one byte is written to flash, and a bundle whose id differs from the header's
hash is refused. The files are appended to the slot directory as they come; nothing else is
kept, so after a dropped connection or a reboot ``begin`` finds the resume point from the
files' sizes on flash. ``commit`` re-reads every file and compares its SHA-256 with the
manifest's before the state file says "pending": the next boot tries it (``bg.update.boot``).

A whole firmware is an app image (``bundle.APP``, alone in its bundle: MicroPython with the
firmware frozen in): it never touches the slot's directory but its header. It is written straight
into the next OTA app partition as it arrives (``apps``: ``esp32.Partition`` or its fake; a 4 MB
flash cannot hold 1.5 MB twice), each 4096-byte block erased before its first byte; ``commit``
hashes it back from the partition, records it in ``fw/app`` (``bg.update.boot.app_set``) and
asks the bootloader to boot it next (``set_boot``). Every 64 kB written, the offset reached
(a block boundary, its blocks all written) and the partition's address go into ``.app`` beside
the header (littlefs makes its rewrite atomic); after a reboot the same bundle into the same
partition resumes there, anything else (no file, garbage, another partition) from the image's
first byte, the header kept. No running hash is needed: ``commit`` hashes the whole image back,
so a block changed behind the receiver's back fails there and the update is refused.

Updates only go forward: a bundle whose signed security counter is below the board's confirmed
one (``bg.update.boot.confirmed``) is refused as soon as its header verified, and again at
commit. The bundle the board already runs (active or on trial) is answered "already installed"
and changes nothing.
"""

import hashlib
import os

from bg import forget
from bg.update.boot import NONE, app_set, app_trial, confirmed, read_state, running, slot_dir, write_state
from bg.update.bundle import (
    APP,
    HEAD,
    MAGIC,
    RELEASE_PUB,
    SIG_LEN,
    bundle_id,
    check_signature,
    counter,
    entries,
    header_len,
    parse_manifest,
)

ALREADY = " (already installed)"  # what commit adds to the version of the bundle running

_READ = 512  # bytes read at a time while hashing a file on flash
_BLOCK = 4096  # the flash's erase sector: an app partition's block
_MARK = 16 * _BLOCK  # an app image's progress is recorded this often (a small littlefs write)


def _rmtree(d):
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        p = d + "/" + n
        try:
            os.remove(p)
        except OSError:
            _rmtree(p)
    try:
        os.rmdir(d)
    except OSError:
        pass


def _makedirs(d):
    at = 1
    while True:
        i = d.find("/", at)
        part = d if i < 0 else d[:i]
        try:
            os.mkdir(part)
        except OSError:
            pass
        if i < 0:
            return
        at = i + 1


def _forget_crypto():
    # The signature is checked once per transfer: its modules (the curve's constants, SHA-512,
    # ~0.9 kB on the board model) go back to the heap for the rest of it, which the app and
    # its link are using meanwhile (docs/update.md: receiving while the app runs).
    forget("bg.update.ed25519")
    forget("bg.update.sha512")


def _size(p):
    try:
        return os.stat(p)[6]
    except OSError:
        return -1


class Updater:
    """One board's update receiver. ``root`` is the firmware root (``bg.update.boot``),
    ``path`` the running ``sys.path`` (which slot runs), ``pub`` the release key, ``apps`` the
    app partitions' class (``esp32.Partition``; None: no app image is taken)."""

    def __init__(self, root, path, pub=RELEASE_PUB, apps=None):
        self.root = root
        self.path = path
        self.pub = pub
        self.apps = apps
        self.part = None  # the app partition an app image goes into
        self._reset()

    def _reset(self):
        self.id = None
        self.size = 0
        self.off = 0
        self.head = None  # bytearray while the header arrives, then bytes
        self.man = None  # the manifest (a memoryview into head) once the header verified
        self.cur = None  # (name, size, stream offset) of the file being written
        self.version = None
        self.installed = None  # the version, when the bundle begun is the one running

    def target(self):
        """The slot an update goes into: neither the active nor the running one. ValueError
        while a new version is on trial (it must prove healthy first)."""
        if app_trial():
            raise ValueError("the new version is on trial: wait until it is healthy")
        active, pending, _ = read_state(self.root)
        run = running(self.root, self.path)
        if run != NONE and run != active:
            raise ValueError("the new version is on trial: wait until it is healthy")
        return "b" if active == "a" else "a"

    # -- begin
    def begin(self, bid, size):
        """Start (or resume) the update ``bid`` (SHA-256 of its header) of ``size`` bytes;
        returns the offset the host sends from."""
        if len(bid) != 32 or size < HEAD + SIG_LEN:
            raise ValueError("begin needs a bundle id and its size")
        if self.id == bid and self.size == size:
            return self.off
        v = self._running_version(bid)
        if v is not None:  # the same bundle again: nothing to send, nothing changes
            self._reset()
            self.id = bytes(bid)
            self.size = self.off = size
            self.installed = v
            return size
        slot = self.target()
        self._reset()
        d = slot_dir(self.root, slot)
        off = self._resume(d, bid, size)
        if off is None:  # a new bundle: the slot is emptied first
            active, pending, _ = read_state(self.root)
            if pending == slot:
                write_state(self.root, active, NONE, 0)
            _rmtree(d)
            off = 0
        self.id = bytes(bid)
        self.size = size
        self.off = off
        self.slot = slot
        return off

    def _running_version(self, bid):
        # The version of the bundle ``bid`` when it is the active or the running slot's.
        active, _, _ = read_state(self.root)
        for s in (active, running(self.root, self.path)):
            if s == NONE:
                continue
            try:
                with open(slot_dir(self.root, s) + "/.bundle", "rb") as f:
                    head = f.read()
                if bundle_id(head) == bid:
                    return parse_manifest(memoryview(head)[HEAD : len(head) - SIG_LEN])[0]
            except (OSError, ValueError):
                pass
        return None

    def _forward(self, man):
        # Updates only go forward: ValueError (the transfer forgotten) below the counter.
        n = counter(man)
        floor = confirmed(self.root)
        if n < floor:
            # short: an ERROR frame's text is cut at 60 bytes
            self._fail("downgrade refused: counter %d < board's %d" % (n, floor))

    def _resume(self, d, bid, size):
        # The offset reached by an earlier transfer of the same bundle into ``d``, or None.
        try:
            with open(d + "/.bundle", "rb") as f:
                head = f.read()
        except OSError:
            return None
        try:
            if bundle_id(head) != bid:
                return None
            man = memoryview(head)[HEAD : len(head) - SIG_LEN]
            check_signature(man, head[len(head) - SIG_LEN :], self.pub)
            version, _, total = parse_manifest(man)
        except ValueError:
            return None
        finally:
            _forget_crypto()
        if counter(man) < confirmed(self.root):
            return None  # emptied: the header, sent again, is refused
        if len(head) + total != size:
            return None
        off = len(head)
        if self._app(man):  # an app image resumes from its recorded block boundary
            self.head = head
            self.man = man
            self.version = version
            return off + self._app_done(d, total)
        for name, fsize, _ in entries(man):
            n = _size(d + "/" + name)
            if n < 0:
                break
            if n > fsize:
                return None
            off += n
            if n < fsize:
                break
        self.head = head
        self.man = man
        self.version = version
        return off

    # -- write
    def write(self, off, data):
        """Store ``data`` at ``off`` (which must be where the stream stands); returns the new
        offset. The header's signature is checked as soon as it is whole."""
        if self.id is None:
            raise ValueError("no update begun")
        if off != self.off:
            raise ValueError("expected offset %d" % self.off)
        if off + len(data) > self.size:
            raise ValueError("more bytes than the bundle has")
        i = 0
        n = len(data)
        while i < n:
            if self.man is None:
                i += self._take_head(data, i)
            else:
                i += self._take_file(data, i)
        return self.off

    def _take_head(self, data, i):
        # The header arrives into one buffer of its final size (allocated once, when the
        # first HEAD bytes tell it), its signature checked as soon as it is whole.
        h = self.head
        if h is None:
            h = self.head = bytearray(HEAD)
        got = self.off
        want = len(h)
        k = len(data) - i
        if k > want - got:
            k = want - got
        h[got : got + k] = data[i : i + k]
        self.off += k
        if self.off == HEAD:
            if bytes(h[:4]) != MAGIC:
                self._fail("not a firmware bundle")
            try:
                n = header_len(h)
            except ValueError as e:  # a manifest longer than MAX_MANIFEST
                self._fail(str(e))
                raise
            if n > self.size:
                self._fail("bundle size differs from its manifest")
            big = bytearray(n)
            big[:HEAD] = h
            self.head = big
        elif self.off == want:
            self._header_done()
        return k

    def _fail(self, msg):
        self._reset()
        raise ValueError(msg)

    def _header_done(self):
        head = self.head or b""  # the whole header (never copied: up to 8 kB)
        if bundle_id(head) != self.id:
            self._fail("bundle header does not match its id")
        man = memoryview(head)[HEAD : len(head) - SIG_LEN]
        try:
            check_signature(man, head[len(head) - SIG_LEN :], self.pub)
            version, _, total = parse_manifest(man)
        except ValueError as e:
            self._fail(str(e))
        _forget_crypto()
        if len(head) + total != self.size:
            self._fail("bundle size differs from its manifest")
        self._forward(man)
        self._app(man)
        d = slot_dir(self.root, self.slot)
        _makedirs(d)
        with open(d + "/.bundle", "wb") as f:
            f.write(head)
        self.man = man
        self.version = version

    def _app(self, man):
        # True for an app image's bundle, its partition (the next OTA one) chosen; ValueError
        # where the board has no app partitions
        for name, size, _ in entries(man):
            if name != APP:
                return False
            a = self.apps
            if a is None:
                self._fail("this board takes no app image")
            p = a(a.RUNNING).get_next_update()
            if size > p.ioctl(4, 0) * p.ioctl(5, 0):
                self._fail("app image larger than its partition")
            self.part = p
            return True
        return False

    def _app_done(self, d, total):
        # the bytes of the app image recorded as written into this partition, else 0
        try:
            with open(d + "/.app") as f:
                n, addr = f.read().split()
            n = int(n)
            addr = int(addr)
        except (OSError, ValueError):
            return 0
        p = self.part
        if p is None or addr != p.info()[2] or n <= 0 or n % _BLOCK or n > total:
            return 0
        return n

    def _file_at(self, off):
        # (name, size, start) of the file holding stream offset ``off`` (writes go in order:
        # the manifest is scanned once per file, never held as a list)
        c = self.cur
        if c is not None and c[2] <= off < c[2] + c[1]:
            return c
        start = len(self.head or b"")
        for name, size, _ in entries(self.man):
            if off < start + size:
                self.cur = (name, size, start)
                return self.cur
            start += size
        raise ValueError("more bytes than the bundle has")

    def _take_file(self, data, i):
        name, fsize, start = self._file_at(self.off)
        pos = self.off - start
        k = len(data) - i
        if k > fsize - pos:
            k = fsize - pos
        if name == APP:
            return self._take_app(data, i, k, pos)
        p = slot_dir(self.root, self.slot) + "/" + name
        if pos == 0:
            j = p.rfind("/")
            _makedirs(p[:j])
        with open(p, "ab" if pos else "wb") as f:
            f.write(data[i : i + k])
        self.off += k
        return k

    def _take_app(self, data, i, k, pos):
        # into the partition, never across a block: each block erased before its first byte
        # (NOR flash: a write only clears bits)
        blk = pos // _BLOCK
        at = pos - blk * _BLOCK
        if k > _BLOCK - at:
            k = _BLOCK - at
        p = self.part
        if p is None:
            raise ValueError("no update begun")
        if at == 0:
            p.ioctl(6, blk)
        p.writeblocks(blk, memoryview(data)[i : i + k], at)
        self.off += k
        if (pos + k) % _MARK == 0:  # written only once the blocks before it are all written
            with open(slot_dir(self.root, self.slot) + "/.app", "w") as f:
                f.write("%d %d" % (pos + k, p.info()[2]))
        return k

    def _check_app(self, size, digest):
        # the image hashed back from the partition, 512 bytes at a time
        p = self.part
        if p is None:
            raise ValueError("no update begun")
        buf = bytearray(_READ)
        h = hashlib.sha256()
        off = 0
        while off < size:
            blk = off // _BLOCK
            p.readblocks(blk, buf, off - blk * _BLOCK)
            k = size - off if size - off < _READ else _READ
            h.update(buf if k == _READ else memoryview(buf)[:k])
            off += k
        if h.digest() != digest:
            try:  # the next transfer starts from the image's first byte, trusting no block
                os.remove(slot_dir(self.root, self.slot) + "/.app")
            except OSError:
                pass
            self._reset()
            raise ValueError("stored file differs from the manifest: " + APP)
        # fw/app first, then otadata: a cut between the two boots the old app, which finds
        # fw/app naming a partition it does not run and forgets it (boot.app_start)
        app_set(self.root, p.info()[4], counter(self.man))
        p.set_boot()

    # -- commit
    def commit(self):
        """Check every stored file against the manifest, then mark the slot pending (the
        next boot tries it). Returns the new version. A damaged slot is emptied."""
        if self.installed is not None:
            v = self.installed
            self._reset()
            return v + ALREADY
        if self.id is None or self.man is None:
            raise ValueError("no update begun")
        self._forward(self.man)  # a newer version confirmed since this one was begun
        if self.off != self.size:
            raise ValueError("bundle incomplete: %d of %d bytes" % (self.off, self.size))
        d = slot_dir(self.root, self.slot)
        for name, fsize, digest in entries(self.man):
            if name == APP:
                self._check_app(fsize, digest)
                version = self.version
                self._reset()
                return version
            break
        buf = bytearray(_READ)
        for name, fsize, digest in entries(self.man):
            h = hashlib.sha256()
            n = 0
            try:
                with open(d + "/" + name, "rb") as f:
                    while True:
                        k = f.readinto(buf)
                        if not k:
                            break
                        h.update(buf if k == _READ else memoryview(buf)[:k])
                        n += k
            except OSError:
                n = -1
            if n != fsize or h.digest() != digest:
                _rmtree(d)
                self._reset()
                raise ValueError("stored file differs from the manifest: " + name)
        active, _, _ = read_state(self.root)
        write_state(self.root, active, self.slot, 0)
        version = self.version
        self._reset()
        return version

    def cancel(self):
        """Forget the transfer in RAM (what is on flash stays for a later resume)."""
        self._reset()
