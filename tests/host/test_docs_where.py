"""Where things are, as the docs say: ``make sim LINK_PORT=...`` reaches the server's
``--link-port``, and docs/host-tool.md names the pairing keys' file, its directory on Linux
(platformdirs' config dir, the code's) and the variable that moves it -- not a source file."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_make_sim_passes_the_link_port_on():
    for target in ("sim", "sim-board"):
        out = subprocess.run(
            ["make", "-n", target, "LINK_PORT=7700"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        line = [x for x in out.splitlines() if "-m tools.sim.server" in x]
        assert line and "--link-port 7700" in line[-1], out
    out = subprocess.run(["make", "-n", "sim"], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
    assert "--link-port" not in out  # the server's default (7607) otherwise


def test_the_docs_say_where_pairing_keys_live(monkeypatch, tmp_path):
    import platformdirs
    from gammon.link.keys import Boards

    text = (ROOT / "docs" / "host-tool.md").read_text()
    assert "boards.json" in text and "GAMMON_CONFIG_DIR" in text and "keys.py" not in text
    monkeypatch.delenv("GAMMON_CONFIG_DIR", raising=False)
    default = Path(Boards().path)
    assert default == Path(platformdirs.user_config_dir("gammon")) / "boards.json"
    if os.name == "posix" and not os.environ.get("XDG_CONFIG_HOME"):
        assert "`~/.config/gammon/` on Linux" in text
        assert default == Path.home() / ".config" / "gammon" / "boards.json"
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path))
    assert Path(Boards().path) == tmp_path / "boards.json"


def test_gammon_help_says_how_pairing_really_goes():
    from gammon import cli

    text = " ".join(cli.build_parser().format_help().split())
    assert "type the code" not in text
    assert "compare the value it shows with the one printed, press ROLL" in text, text


def test_every_picture_in_docs_img_is_linked():
    import re

    text = (ROOT / "README.md").read_text() + "".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    linked = set(re.findall(r"img/([\w.-]+\.png)", text))
    pictures = {p.name for p in (ROOT / "docs" / "img").glob("*.png")}
    assert pictures and pictures <= linked, sorted(pictures - linked)
    assert linked <= pictures, sorted(linked - pictures)  # and no link to a missing picture
