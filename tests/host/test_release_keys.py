"""Release keys and bundle files on the host (tools/release.py, gammon.release): a key file is
private (0600) and never overwritten; a malformed key or a truncated, padded or damaged bundle
is refused before anything is sent to a board."""

import struct
from pathlib import Path

import pytest
from bg.update.ed25519 import verify
from gammon import release as R

ROOT = Path(__file__).resolve().parents[2]

from tools import release as T  # noqa: E402


def test_keygen_is_private_and_never_overwrites(tmp_path, capsys):
    key = tmp_path / "k" / "release.key"
    assert T.main(["keygen", str(key)]) == 0
    pub = bytes.fromhex(capsys.readouterr().out.strip())
    assert key.stat().st_mode & 0o077 == 0
    seed = R.read_key(key)
    assert R.public_key(seed) == pub and verify(pub, b"m", R.sign(seed, b"m"))
    before = key.read_bytes()
    assert T.main(["keygen", str(key)]) == 1  # exists: refused, untouched
    assert key.read_bytes() == before
    assert T.main(["pub", str(key)]) == 0 and capsys.readouterr().out.strip() == pub.hex()
    bad = tmp_path / "bad.key"
    for text in ("", "zz" * 32, "ab" * 31):
        bad.write_text(text)
        with pytest.raises(ValueError, match="not a release key"):
            R.read_key(bad)


def test_host_refuses_a_truncated_or_altered_bundle_before_sending():
    seed = bytes(range(32))
    blob = R.build_bundle("2.0.0", [("bg/a.mpy", b"a" * 100), ("app/b.mpy", b"b" * 50)], seed, 3)
    head, version, files, total = R.read_bundle(blob)
    assert version == "2.0.0" and [f[0] for f in files] == ["app/b.mpy", "bg/a.mpy"] and total == len(blob)
    for bad in (
        blob[:-1],
        blob + b"x",
        blob[:40],
        b"GBD0" + blob[4:],
        blob[:4] + struct.pack("<H", 9000) + blob[6:],
    ):
        with pytest.raises(ValueError):
            R.read_bundle(bad)


def test_release_refuses_a_rom_image_for_the_esp32(tmp_path, capsys):
    # the ESP32 cannot map a ROM image kept in a littlefs slot: no bundle it would only roll back
    assert T.main(["build", "--romfs", "--arch", "xtensawin", "--out", str(tmp_path)]) == 1
    assert "cannot boot a ROM image" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
