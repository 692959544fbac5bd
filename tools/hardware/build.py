"""``make hardware``: every generated file under hardware/kicad/ from hardware/board.json.

Usage::

    .venv/bin/python tools/hardware/build.py            # rewrite the outputs
    .venv/bin/python tools/hardware/build.py --check    # exit 1 if a committed output is stale

Per board kind (one KiCad project each, ``hardware/kicad/<kind>/``): ``<kind>.net`` (netlist),
``<kind>-erc.txt`` (the electrical rule check, ``erc.py``). The PCB and the fabrication files
come from ``pcb.py`` and ``fab.py``, which need KiCad's pcbnew (Debian's /usr/bin/python3).
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from hardware import design, erc, netlist  # noqa: E402

OUT = ROOT / "hardware" / "kicad"


def load(path=None):
    return json.loads(Path(path or ROOT / "hardware" / "board.json").read_text())


def erc_report(board, count):
    errors = erc.check(board)
    lines = [
        "ERC %s (%s), %d board(s) of this kind: %d error(s)" % (board.kind, board.title, count, len(errors))
    ]
    return "\n".join(lines + errors) + "\n", errors


def text_outputs(board_json):
    """{relative path: text} of every generated text file (netlists, ERC reports)."""
    boards, _ = design.system(board_json)
    out = {}
    for b in design.kinds(boards):
        count = sum(1 for x in boards if x.kind == b.kind)
        out["%s/%s.net" % (b.kind, b.kind)] = netlist.render(b)
        out["%s/%s-erc.txt" % (b.kind, b.kind)] = erc_report(b, count)[0]
    return out


def main(argv):
    check = "--check" in argv
    stale = []
    for rel, text in sorted(text_outputs(load()).items()):
        path = OUT / rel
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(rel)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print("stale: " + ", ".join(stale) + " (run make hardware)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
