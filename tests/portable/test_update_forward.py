"""Updates only go forward (bg.update.slots, bg.update.boot): a validly signed bundle below the
board's confirmed security counter is refused before a byte of it is stored, and again at
commit and at boot; the bundle the board runs, sent again, changes nothing; the counter rises
only when a version is confirmed healthy, and a rollback, a failed start, a cut between the
confirmation's two writes or a damaged counter file never lowers it."""

# mpy-heap: 72k
# The 64-bit port (ROM image) passes from 64k, fails at 56k (the test signs its bundles: the
# signer's big ints are twice the board's); declared + 8k. The board model runs it at 64k.

import gc
import os

gc.collect()
from bg.update import boot  # noqa: E402
from bg.update.slots import Updater  # noqa: E402

gc.collect()
import update_helpers  # noqa: E402
from bg.update.bundle import bundle_id, header_len  # noqa: E402


def _id(blob):
    return bundle_id(blob[: header_len(blob)])


def _install(r, blob):
    """Send and commit ``blob``; returns the commit's answer, or the refusal's text."""
    u = Updater(r, [""], update_helpers.pub())
    try:
        off = u.begin(_id(blob), len(blob))
        update_helpers.send(u, blob, off)
        return u.commit()
    except ValueError as e:
        return "refused: " + str(e)


def _boot_and_confirm(r):
    path = [""]
    s = boot.start(path, {}, r)
    assert s != boot.NONE
    assert boot.healthy(r, path)
    return path


def _exists(p):
    try:
        os.stat(p)
        return True
    except OSError:
        return False


def test_older_signed_bundle_refused_same_bundle_harmless():
    r = update_helpers.root()
    try:
        assert boot.confirmed(r) == boot.COUNTER
        v3 = update_helpers.make("3.0.0", b"v3", security=boot.COUNTER + 2)
        assert _install(r, v3) == "3.0.0"
        path = _boot_and_confirm(r)
        assert boot.confirmed(r) == boot.COUNTER + 2 and boot.read_state(r) == ("a", "-", 0)
        # an older release, validly signed: refused when its header arrives, nothing stored
        old = update_helpers.make("2.0.0", b"v2", security=boot.COUNTER + 1)
        u = Updater(r, path, update_helpers.pub())
        u.begin(_id(old), len(old))
        try:
            update_helpers.send(u, old)
        except ValueError as e:
            msg = str(e)
        else:
            raise AssertionError("older bundle accepted")
        assert msg.startswith("downgrade refused") and "%d" % (boot.COUNTER + 1) in msg, msg
        assert not _exists(r + "/fw/b/.bundle") and u.id is None
        assert boot.read_state(r) == ("a", "-", 0)
        # the bundle running, sent again: nothing to send, nothing changes
        u = Updater(r, path, update_helpers.pub())
        assert u.begin(_id(v3), len(v3)) == len(v3)
        assert u.commit() == "3.0.0 (already installed)"
        assert boot.read_state(r) == ("a", "-", 0) and not _exists(r + "/fw/b")
        # the same counter in another bundle is no downgrade (a rebuild, a fix of no flaw)
        same = update_helpers.make("3.0.1", b"w3", security=boot.COUNTER + 2)
        assert _install(r, same) == "3.0.1"
        assert boot.read_state(r) == ("a", "b", 0)
    finally:
        update_helpers.rm(r)


def test_counter_survives_rollback_failed_start_cut_and_damage():
    r = update_helpers.root()
    try:
        assert _install(r, update_helpers.make("3.0.0", b"v3", security=5)) == "3.0.0"
        _boot_and_confirm(r)
        assert boot.confirmed(r) == 5
        # a newer version never becomes healthy: rolled back, the counter stays
        v9 = update_helpers.make("9.0.0", b"v9", security=9)
        assert _install(r, v9) == "9.0.0"
        for _ in range(boot.MAX_BOOTS):
            assert boot.start([""], {}, r) == "b"
        assert boot.start([""], {}, r) == "a" and boot.read_state(r) == ("a", "-", 0)
        assert boot.confirmed(r) == 5
        assert _install(r, update_helpers.make("4.0.0", b"v4", security=4)).startswith("refused: downgrade")
        # the active version fails to start: the built-in firmware runs, the counter stays
        path = [""]
        assert boot.start(path, {}, r) == "a" and boot.fallback(path, {}, r)
        assert boot.read_state(r) == ("-", "-", 0) and boot.confirmed(r) == 5
        assert _install(r, update_helpers.make("4.0.0", b"v4", security=4)).startswith("refused: downgrade")
        # a cut between the confirmation's state switch and fw/counter: the active slot's
        # counter counts
        assert _install(r, update_helpers.make("7.0.0", b"v7", security=7)) == "7.0.0"
        slot = boot.read_state(r)[1]
        boot.write_state(r, slot, "-", 0)
        assert boot.confirmed(r) == 7
        # a damaged counter file: still the active slot's, never below the built-in's
        with open(r + "/fw/counter", "w") as f:
            f.write("zz")
        assert boot.confirmed(r) == 7
        # a slot below the counter is neither tried nor run (the state names it anyway)
        boot.write_state(r, "-", "-", 0)
        assert boot.confirmed(r) == boot.COUNTER
        with open(r + "/fw/counter", "w") as f:
            f.write("8\n")
        boot.write_state(r, "-", slot, 0)
        assert boot.start([""], {}, r) == "-" and boot.read_state(r) == ("-", "-", 0)
        boot.write_state(r, slot, "-", 0)
        assert boot.start([""], {}, r) == "-"
    finally:
        update_helpers.rm(r)


def test_pending_bundle_overtaken_is_refused_at_commit():
    r = update_helpers.root()
    try:
        low = update_helpers.make("3.0.0", b"v3", security=3)
        u = Updater(r, [""], update_helpers.pub())
        u.begin(_id(low), len(low))
        update_helpers.send(u, low, 0, len(low) - 10)  # all but the end: then a newer one is confirmed
        with open(r + "/fw/counter", "w") as f:
            f.write("4\n")
        update_helpers.send(u, low, len(low) - 10)
        try:
            u.commit()
        except ValueError as e:
            assert str(e).startswith("downgrade refused"), e
        else:
            raise AssertionError("committed below the counter")
        assert boot.read_state(r) == ("-", "-", 0)
    finally:
        update_helpers.rm(r)


def _rom_slot(r, version, security):
    """A slot left by an older firmware holding a whole firmware's ROM image (the retired way to
    ship one): its signed header, and ``fw.romfs`` beside it; the slot's name."""
    assert _install(r, update_helpers.make(version, b"r" + version.encode(), security=security)) == version
    s = boot.read_state(r)[1]
    with open(boot.slot_dir(r, s) + "/" + boot.RETIRED, "wb") as f:
        f.write(b"\xd2\xcd\x31" + b"R" * 600)  # a ROMFS image's header, then its bytes
    return s


def test_leftover_rom_image_slot_is_dropped_not_run_counter_kept():
    from bg.update.bundle import check_name

    # a new bundle cannot carry one: the receiver refuses the name before a byte is stored
    for name in (boot.RETIRED, "bg/x.romfs"):
        try:
            check_name(name)
            raise AssertionError("took " + name)
        except ValueError as e:
            assert "not a firmware file" in str(e)
    r = update_helpers.root()
    try:
        # pending (received by the older firmware, not yet booted): rolled back, the image gone
        s = _rom_slot(r, "3.0.0", boot.COUNTER + 2)
        boot.write_state(r, "-", s, 1)
        assert boot.start([""], {}, r) == boot.NONE and boot.read_state(r) == ("-", "-", 0)
        assert not _exists(boot.slot_dir(r, s) + "/" + boot.RETIRED)
        assert boot.confirmed(r) == boot.COUNTER  # never confirmed: the counter did not rise
        # active (confirmed by the older firmware, cut before fw/counter): the built-in firmware
        # runs, and the counter the ROM image raised stays
        s = _rom_slot(r, "5.0.0", boot.COUNTER + 4)
        boot.write_state(r, s, "-", 0)
        assert boot.confirmed(r) == boot.COUNTER + 4 and not _exists(r + "/fw/counter")
        path = [""]
        assert boot.start(path, {}, r) == boot.NONE and path == [""]
        assert boot.read_state(r) == ("-", "-", 0) and boot.confirmed(r) == boot.COUNTER + 4
        assert boot.version(r, path, boot.BUILTIN) == boot.BUILTIN
        assert not boot.healthy(r, path) and not _exists(boot.slot_dir(r, s) + "/" + boot.RETIRED)
        # a module slot active, a ROM image pending beside it: the module slot runs on
        v6 = update_helpers.make("6.0.0", b"v6", security=boot.COUNTER + 4)
        assert _install(r, v6) == "6.0.0"
        _boot_and_confirm(r)
        a = boot.read_state(r)[0]
        b = _rom_slot(r, "7.0.0", boot.COUNTER + 5)
        boot.write_state(r, a, b, 2)
        path = [""]
        assert boot.start(path, {}, r) == a and boot.read_state(r) == (a, "-", 0)
        assert boot.version(r, path, boot.BUILTIN) == "6.0.0" and boot.confirmed(r) == boot.COUNTER + 4
        # and the next update takes the dropped slot as any other
        assert _install(r, update_helpers.make("8.0.0", b"v8", security=boot.COUNTER + 5)) == "8.0.0"
        assert boot.read_state(r) == (a, b, 0) and boot.start([""], {}, r) == b
    finally:
        update_helpers.rm(r)
