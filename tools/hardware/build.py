"""``make hardware``: every generated file under hardware/kicad/ from hardware/board.json.

Usage::

    .venv/bin/python -m tools.hardware.build            # rewrite the outputs
    .venv/bin/python -m tools.hardware.build --check    # exit 1 if a committed output is stale

Per board kind (one KiCad project each, ``hardware/kicad/<kind>/``): ``<kind>.net`` (netlist),
``<kind>-erc.txt`` (the electrical rule check, ``erc.py``), ``<kind>.kicad_sch`` (KiCad 6
schematic, ``kicad_sch.py``). The PCB and the fabrication files
come from ``pcb.py`` and ``fab.py``, which need KiCad's pcbnew (Debian's /usr/bin/python3).
"""

import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import design, erc, kicad_sch, netlist, scad, schematic

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

OUT = ROOT / "hardware" / "kicad"
# KiCad's Python module is built for Debian's interpreter, not for the project's venv
KICAD_PYTHON = os.environ.get("GAMMON_KICAD_PYTHON", "/usr/bin/python3")


def kicad_missing():
    """None when pcbnew imports under KICAD_PYTHON, else why not."""
    try:
        r = subprocess.run([KICAD_PYTHON, "-c", "import pcbnew"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        return str(e)
    return None if r.returncode == 0 else (r.stderr.strip().splitlines() or ["pcbnew does not import"])[-1]


def kicad_env():
    """The environment for KICAD_PYTHON, run from the repository's root: the ``tools`` package
    and ``gammon`` (which ``tools`` imports) on its path, as the venv has them."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "host_tools")]))


def pcb_outputs(outdir):
    """Run pcb.py (placement, routing, DRC, Gerbers, BOM/CPL, SVG) into ``outdir``; its summary."""
    subprocess.run(
        [KICAD_PYTHON, "-m", "tools.hardware.pcb", str(Path(outdir).resolve())],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=kicad_env(),
    )
    return json.loads((Path(outdir) / "pcb-summary.json").read_text())


def stale_pcb_outputs():
    """Generated PCB files that differ from the committed ones (relative paths)."""
    with tempfile.TemporaryDirectory() as tmp:
        pcb_outputs(tmp)
        fresh = {p.relative_to(tmp) for p in Path(tmp).rglob("*") if p.is_file()}
        have = {p.relative_to(OUT) for p in OUT.rglob("*") if p.is_file()}
        have = {
            p
            for p in have
            if p.suffix not in (".net", ".kicad_sch") and not str(p).endswith(("erc.txt", "-schematic.svg"))
        }
        bad = sorted(str(p) for p in fresh ^ have)
        bad += sorted(str(p) for p in fresh & have if not filecmp.cmp(Path(tmp) / p, OUT / p, shallow=False))
        return bad


def load(path=None):
    return json.loads(Path(path or ROOT / "hardware" / "board.json").read_text())


def erc_report(board, count, battery=None):
    errors = erc.check(board)
    if board.kind == "centre":
        errors += erc.check_reset(board) + erc.check_battery(board, battery)
    lines = [
        "ERC %s (%s), %d board(s) of this kind: %d error(s)" % (board.kind, board.title, count, len(errors))
    ]
    return "\n".join(lines + errors) + "\n", errors


def text_outputs(board_json):
    """{relative path: text} of every generated text file (netlists, ERC reports)."""
    boards, cables = design.system(board_json)
    out = {}
    errors = erc.check_system(boards, cables)
    head = "ERC of the whole system: %d boards joined by %d cables: %d error(s)" % (
        len(boards),
        len(cables),
        len(errors),
    )
    out["system-erc.txt"] = "\n".join([head] + errors) + "\n"
    for b in design.kinds(boards):
        count = sum(1 for x in boards if x.kind == b.kind)
        out["%s/%s.net" % (b.kind, b.kind)] = netlist.render(b)
        out["%s/%s-erc.txt" % (b.kind, b.kind)] = erc_report(b, count, board_json.get("battery"))[0]
        out["%s/%s-schematic.svg" % (b.kind, b.kind)] = schematic.render(b)
        out["%s/%s.kicad_sch" % (b.kind, b.kind)] = kicad_sch.render(b)
    return out


def scad_outputs(check):
    """params.scad and the STL of every printable part (hardware/scad/stl/); stale names."""
    text = scad.params(load(), json.loads((OUT / "pcb-summary.json").read_text()))
    path = scad.SCAD / "params.scad"
    if check:
        stale = [] if path.exists() and path.read_text() == text else ["scad/params.scad"]
    else:
        path.write_text(text)
        stale = []
    why = scad.openscad_missing()
    if why:
        print("OpenSCAD is missing (%s): apt-get install openscad" % why)
        return stale + ["(openscad missing)"]
    (scad.SCAD / "stl").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for part in scad.PARTS:
            committed = scad.SCAD / "stl" / (part + ".stl")
            fresh = scad.render(part, Path(tmp) / (part + ".stl"))
            if not committed.exists() or scad.stl_shape(fresh) != scad.stl_shape(committed):
                if check:
                    stale.append("scad/stl/%s.stl" % part)
                else:  # only a changed solid is rewritten (the triangulation varies run to run)
                    shutil.copyfile(fresh, committed)
    return stale


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
    if "--no-pcb" not in argv:
        why = kicad_missing()
        if why:
            print("KiCad's pcbnew is missing (%s): apt-get install --no-install-recommends kicad" % why)
            return 2
        if check:
            stale += stale_pcb_outputs()
        else:
            for d in OUT.iterdir():  # the PCB outputs are rewritten whole
                if (d / "fab").is_dir():
                    shutil.rmtree(d / "fab")
            summary = pcb_outputs(OUT)
            print(json.dumps(summary, sort_keys=True))
    if "--no-scad" not in argv:
        stale += scad_outputs(check)
    if stale:
        print("stale: " + ", ".join(stale) + " (run make hardware)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
