"""Release keys and bundle files on the host (tools/release.py, gammon.release): a key file is
private (0600) and never overwritten; a malformed key or a truncated, padded or damaged bundle
is refused before anything is sent to a board."""

import struct

import pytest
from bg.update.ed25519 import verify
from gammon import release

from tools import release as release_tool


def test_keygen_is_private_and_never_overwrites(tmp_path, capsys):
    key = tmp_path / "k" / "release.key"
    assert release_tool.main(["keygen", str(key)]) == 0
    pub = bytes.fromhex(capsys.readouterr().out.strip())
    assert key.stat().st_mode & 0o077 == 0
    seed = release.read_key(key)
    assert release.public_key(seed) == pub and verify(pub, b"m", release.sign(seed, b"m"))
    before = key.read_bytes()
    assert release_tool.main(["keygen", str(key)]) == 1  # exists: refused, untouched
    assert key.read_bytes() == before
    assert release_tool.main(["pub", str(key)]) == 0 and capsys.readouterr().out.strip() == pub.hex()
    bad = tmp_path / "bad.key"
    for text in ("", "zz" * 32, "ab" * 31):
        bad.write_text(text)
        with pytest.raises(ValueError, match="not a release key"):
            release.read_key(bad)
    capsys.readouterr()
    # the tool says what is wrong with a missing or malformed key file, no trace
    assert release_tool.main(["pub", str(tmp_path / "missing.key")]) == 1
    assert release_tool.main(["pub", str(bad)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "missing.key" in err[0] and "not a release key" in err[1]


def test_host_refuses_a_truncated_or_altered_bundle_before_sending():
    seed = bytes(range(32))
    blob = release.build_bundle("2.0.0", [("bg/a.mpy", b"a" * 100), ("app/b.mpy", b"b" * 50)], seed, 3)
    head, version, files, total = release.read_bundle(blob)
    assert version == "2.0.0" and [f[0] for f in files] == ["app/b.mpy", "bg/a.mpy"] and total == len(blob)
    for bad in (
        blob[:-1],
        blob + b"x",
        blob[:40],
        b"GBD0" + blob[4:],
        blob[:4] + struct.pack("<H", 9000) + blob[6:],
    ):
        with pytest.raises(ValueError):
            release.read_bundle(bad)


def test_release_packs_an_app_image_alone_within_the_app_partition(tmp_path, capsys):
    # a whole firmware as a new app image (fw.app): signed with its counter, alone in its
    # bundle, refused when the app partition (0x180000) cannot hold it
    from bg.update.bundle import MAX_APP, manifest

    img = tmp_path / "micropython.bin"
    img.write_bytes(b"\xe9" + bytes(300000))  # larger than any module (256 kB), within the partition
    out = tmp_path / "out"
    args = ["build", "--app", str(img), "--counter", "7", "--version", "9.0.0", "--out", str(out)]
    assert release_tool.main(args) == 0
    (path,) = out.glob("*.gbun")
    blob = path.read_bytes()
    _, _, files, _ = release.read_bundle(blob)
    assert [(f[0], f[1]) for f in files] == [("fw.app", 300001)] and blob.endswith(img.read_bytes())
    img.write_bytes(bytes(MAX_APP + 1))
    capsys.readouterr()
    again = tmp_path / "again"
    assert release_tool.main(args[:-1] + [str(again)]) == 1
    assert "app partition holds %d" % MAX_APP in capsys.readouterr().err and not again.exists()
    # the ROM image, the retired way to ship a whole firmware: no option builds one, no
    # manifest carries one
    with pytest.raises(SystemExit):
        release_tool.main(["build", "--romfs", "--out", str(tmp_path / "rom")])
    assert "--romfs" in capsys.readouterr().err and not (tmp_path / "rom").exists()
    with pytest.raises(ValueError, match="not a firmware file"):
        manifest("9.0.0", [("fw.romfs", 10, bytes(32))], 7)
    # an app image travels alone; a module may not be as large
    with pytest.raises(ValueError, match="travels alone"):
        manifest("9.0.0", [("fw.app", 10, bytes(32)), ("bg/x.mpy", 10, bytes(32))], 7)
    with pytest.raises(ValueError, match="bad file size"):
        manifest("9.0.0", [("bg/x.mpy", 300000, bytes(32))], 7)
