"""tools/romfs.py and tools/rom_boot.py: the firmware as a ROMFS image, run in place by the
MicroPython unix port with an exact working heap beside it (docs/memory.md)."""

from pathlib import Path

import pytest

from tools import mpy, romfs

ROOT = Path(__file__).resolve().parents[2]

needs_mpy = pytest.mark.skipif(
    not (Path(mpy.binary()).exists() and Path(romfs.mpy_cross_binary()).exists()),
    reason="no micropython/mpy-cross",
)


def tiny_firmware(root):
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "fast.py").write_text(
        "import micropython\n\n\n@micropython.native\ndef add(a, b):\n    return a + b\n"
    )
    (root / "main.py").write_text("print('main ran')\n")
    (root / "manifest.py").write_text("freeze('.')\n")
    return root


def test_pack_matches_mpremote_romfs_writer():
    from mpremote.romfs import VfsRomWriter  # the reference writer of `mpremote romfs build`

    files = {"a.mpy": b"\x4d\x06" + bytes(range(200)), "d/b.mpy": b"xyz", "d/e/c.txt": b"", "z.mpy": b"1"}
    ref = VfsRomWriter()
    ref.mkfile("a.mpy", files["a.mpy"])
    ref.opendir("d")
    ref.mkfile("b.mpy", files["d/b.mpy"])
    ref.opendir("e")
    ref.mkfile("c.txt", b"")
    ref.closedir()
    ref.closedir()
    ref.mkfile("z.mpy", b"1")
    assert romfs.pack(files) == ref.finalise()
    # order of the dict does not matter: entries are sorted
    assert romfs.pack(dict(reversed(list(files.items())))) == romfs.pack(files)


def test_pack_refuses_a_file_used_as_a_directory():
    with pytest.raises(ValueError, match="is a file"):
        romfs.pack({"a": b"1", "a/b": b"2"})


def test_parse_size():
    assert romfs.parse_size("64k") == 65536
    assert romfs.parse_size("1m") == 1 << 20
    assert romfs.parse_size(1000) == 1000
    with pytest.raises(ValueError, match="bad heap size"):
        romfs.parse_size("lots")


def test_heapsize_leaves_the_working_heap_whatever_the_alignment():
    for working in ("48k", "64k", "100000"):
        for size in (1, 31, 32, 4097, 136034):
            h = romfs.heapsize_for(working, size)
            blocks = -(-size // romfs.GC_BLOCK) + romfs.IMAGE_SLACK_BLOCKS
            for mis in range(romfs.GC_BLOCK):
                left = romfs.gc_total(h, mis) - blocks * romfs.GC_BLOCK
                assert left >= romfs.gc_total(romfs.parse_size(working))
            # and it is the smallest such size
            assert romfs.gc_total(h - 1, romfs.GC_BLOCK - 1) < romfs.gc_total(romfs.parse_size(working)) + (
                blocks * romfs.GC_BLOCK
            )


@needs_mpy
def test_build_is_deterministic_and_cached(tmp_path):
    fw = tiny_firmware(tmp_path / "fw")
    a = romfs.build(firmware=fw, out_dir=tmp_path / "a")
    b = romfs.build(firmware=fw, out_dir=tmp_path / "b")
    assert a.name == b.name and a.read_bytes() == b.read_bytes()
    mtime = a.stat().st_mtime_ns
    assert romfs.build(firmware=fw, out_dir=tmp_path / "a") == a and a.stat().st_mtime_ns == mtime
    (fw / "pkg" / "fast.py").write_text((fw / "pkg" / "fast.py").read_text() + "\nX = 1\n")
    c = romfs.build(firmware=fw, out_dir=tmp_path / "a")
    assert c != a and c.read_bytes() != a.read_bytes()
    assert romfs.sources(fw) == ["main.py", "pkg/__init__.py", "pkg/fast.py"]  # not manifest.py


@needs_mpy
def test_boot_runs_native_code_in_place_from_rom_with_the_working_heap(tmp_path):
    fw = tiny_firmware(tmp_path / "fw")
    img = romfs.build(firmware=fw, out_dir=tmp_path / "out")
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys\nimport pkg.fast\nprint(pkg.fast.__file__, pkg.fast.add(2, 3), sys.argv, sys.path[0])\n"
    )
    proc = mpy.run([script, "x"], heap="64k", firmware="rom", image=img, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "/rom/pkg/fast.mpy 5 ['probe', 'x'] /rom" in proc.stdout
    boot = romfs.boot_figures(proc.stdout)
    assert boot["image_bytes"] == img.stat().st_size
    target = romfs.gc_total(65536)
    assert 0 <= boot["working_bytes"] - target <= 8 * romfs.GC_BLOCK, boot
    # a module name as the target: main.mpy from the image
    proc = mpy.run(["main"], heap="64k", firmware="rom", image=img, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0 and "main ran" in proc.stdout, proc.stdout + proc.stderr


@needs_mpy
def test_the_firmware_image_mounts_and_imports_from_rom():
    # the engine's rules tests, firmware from the image (as the bridge runs every module)
    runner = ROOT / "tests" / "mpy_runner.py"
    path = ["tests/fakes", "tests/portable"]
    proc = mpy.run([runner, "test_rules_movement"], heap="64k", firmware="rom", path=path, timeout=60)
    assert proc.returncode == 0 and "0 failed" in proc.stdout, proc.stdout + proc.stderr
    assert romfs.boot_figures(proc.stdout)["image_bytes"] > 50000


@needs_mpy
def test_unit_costs_private_consts_are_free_and_code_objects_are_not():
    """The facts the firmware's style leans on (docs/memory.md, measured on this interpreter):
    a private ``const()`` name is folded away at compile time, a public one is a globals entry
    plus a qstr; every function and class is a heap object even when its bytecode is in ROM."""
    from tools.sim import heapunits

    u = heapunits.unit_costs()
    assert u["private_const"] < 4  # rounding of the module's dict, not per name
    assert u["public_const"] >= 16
    assert u["function"] >= 32 and u["method"] >= 32
    assert u["class"] > u["function"]
    assert u["string_constant"] >= 16  # a str object per long string, its text in ROM


def test_match_construct_count_reads_the_firmware():
    from tools.sim import heapunits

    c = heapunits.count(["bg/hwdesc/__init__"])
    assert c["modules"] == 1 and c["classes"] == 1
    assert c["functions"] >= 5  # Board's run-time methods and the module's helpers
    assert c["public_consts"] >= 10  # ROW_*, BIT_*, LED_*
    whole = heapunits.count()
    assert whole["modules"] == len(heapunits.MATCH) and whole["functions"] > c["functions"]
