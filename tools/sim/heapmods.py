"""Heap cost of each firmware module imported from the ROMFS image (docs/memory.md).

    .venv/bin/python -m tools.sim.heapmods            # table of every module, dependencies first
    .venv/bin/python -m tools.sim.heapmods app.main   # what importing one module costs in all

Under CPython it orders the firmware's modules so that each one's module-level imports come
before it (read from the source with ``ast``), then runs this same file under MicroPython
through ``tools/rom_boot.py`` with a 256k working heap; there each module is imported in that
order and ``gc.mem_alloc()`` is read after a ``gc.collect()`` before and after, so a row is the
module's own objects (function and class objects, raw-code records, constants, globals dict,
new qstrs), its dependencies already paid for. Prints one ``name bytes qstr`` line per module;
``qstr`` is the growth of the qstr pool's heap part (``micropython.qstr_info()``'s total less the
names' text, which stays in the image) within ``bytes``:
the pool grows in chunks, so a module that opens a new chunk is charged for it.
"""

import gc
import sys

if sys.implementation.name == "micropython":
    import micropython

    for name in sys.argv[1:]:
        micropython.qstr_info()  # "qstr pool: ... n_total_bytes=N": the pool before
        gc.collect()
        a = gc.mem_alloc()
        try:
            __import__(name)
            gc.collect()
            b = gc.mem_alloc() - a
            micropython.qstr_info()
            print("%s %d" % (name, b))
        except Exception as e:  # noqa: BLE001 - e.g. bluetooth/machine absent on the unix port
            print("%s -1 %r" % (name, e))
else:
    import ast
    from pathlib import Path

    ROOT = Path(__file__).resolve().parents[2]
    from tools import mpy

    FW = ROOT / "firmware"

    def modules():
        out = {}
        for pkg in ("bg", "hal", "app"):
            for p in sorted((FW / pkg).rglob("*.py")):
                parts = p.relative_to(FW).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                out[".".join(parts)] = p
        return out

    def deps(path, known):
        tree = ast.parse(path.read_text())
        found = []
        for node in tree.body:  # module level only: lazy imports are not paid at import
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [node.module + "." + a.name for a in node.names]
            elif isinstance(node, ast.Try):
                for sub in node.body:
                    if isinstance(sub, ast.Import):
                        names += [a.name for a in sub.names]
            found += [n for n in names if n in known]
        return found

    def order(mods):
        seen, out = set(), []

        def visit(n):
            if n in seen:
                return
            seen.add(n)
            for d in deps(mods[n], mods):
                visit(d)
            parent = n.rpartition(".")[0]
            if parent in mods:
                visit(parent)  # a package's __init__ runs before its modules
            out.append(n)

        for n in mods:
            visit(n)
        return out

    def measure(names, working="256k"):
        proc = mpy.run([Path(__file__)] + list(names), heap=working, firmware="rom", timeout=120)
        rows, pool = [], []
        for line in proc.stdout.splitlines():
            if line.startswith("qstr pool:"):
                # n_total_bytes counts the names' text too, which stays in the image (the
                # loader interns it in place): the heap holds the pool entries only
                total = int(line.rpartition("n_total_bytes=")[2])
                text = int(line.partition("n_str_data_bytes=")[2].partition(",")[0])
                pool.append(total - text)
                continue
            parts = line.split(" ", 2)
            if len(parts) >= 2 and parts[1].lstrip("-").isdigit():
                q = pool[-1] - pool[-2] if len(pool) >= 2 else 0
                pool = pool[-1:]
                rows.append((parts[0], int(parts[1]), q))
        return rows

    mods = modules()
    names = sys.argv[1:] or [n for n in order(mods) if n not in ("app.ble", "hal.esp32")]
    total = qtotal = 0
    print("%-18s %7s %7s" % ("module", "bytes", "qstr"))
    for name, b, q in measure(names):
        print("%-18s %7d %7d" % (name, b, q))
        total += max(b, 0)
        qtotal += q
    print("%-18s %7d %7d" % ("total", total, qtotal))
