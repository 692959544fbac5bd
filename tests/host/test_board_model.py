"""tools/board_model.py: where the MicroPython source comes from and what is refused (the
build itself is exercised by every test that runs on the board model)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

from tools import board_model  # noqa: E402


def test_apt_mirrors_reads_one_line_and_deb822_sources(tmp_path):
    a = tmp_path / "a.list"
    a.write_text(
        "deb http://mirror.example/debian bookworm main  # a comment\n"
        "# deb http://commented.example/debian bookworm main\n"
        "deb [arch=amd64] https://m2.example/debian/ trixie main\n"
        "deb-src http://src.example/debian bookworm main\n"
    )
    b = tmp_path / "b.sources"
    b.write_text("Types: deb\nURIs: http://m3.example/debian http://other.example/ubuntu\nSuites: trixie\n")
    got = board_model.apt_mirrors([a, b, tmp_path / "missing"])
    assert got == ["http://mirror.example/debian", "https://m2.example/debian", "http://m3.example/debian"]


def test_fetch_refuses_a_tarball_with_another_hash(tmp_path, monkeypatch):
    bad = tmp_path / "served.tar.xz"
    bad.write_bytes(b"not the MicroPython source")
    monkeypatch.setattr(board_model, "apt_mirrors", lambda: [])
    monkeypatch.setattr(board_model, "URLS", (bad.as_uri(),))
    with pytest.raises(board_model.ModelError) as e:
        board_model.fetch(tmp_path / "dl")
    assert "SHA-256" in str(e.value) and board_model.SHA256 in str(e.value)
    assert not (tmp_path / "dl" / board_model.TARBALL).exists()  # nothing unverified is kept


def test_fetch_reuses_a_verified_download(tmp_path, monkeypatch):
    # the real tarball is in build/dl once the model was built; without it, nothing to reuse
    real = ROOT / "build" / "dl" / board_model.TARBALL
    if not real.exists():
        pytest.skip("the board model was not built in this checkout")
    monkeypatch.setattr(board_model, "URLS", ())
    monkeypatch.setattr(board_model, "apt_mirrors", lambda: [])
    assert board_model.fetch(real.parent) == real  # no URL needed: the hash matches
