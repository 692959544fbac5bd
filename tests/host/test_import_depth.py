"""Booting nests few firmware module bodies at a time.

Every import that runs inside another module's body keeps that body's interpreter frames and the
import machinery on the C stack until it returns; MicroPython's task on the ESP32 has a 16 kB
stack. A cold ``import app.main`` used to nest twelve bodies deep (the controller, its state,
the rules, the recogniser, then the engine's five layers); a 32-bit build ran out of C stack
there (docs/memory.md). ``app.main`` and ``bg.engine`` now import bottom-up. This test measures
the nesting in a fresh CPython (the same import statements run in the same order) and holds it.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_NESTING = 5  # firmware module bodies open at once, the booting app.main included

PROBE = r"""
import importlib.abc, importlib.machinery, os, sys
stack, deepest = [], []
roots = os.environ.get("PROBE_ROOTS", "app bg hal").split()

class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return spec
        if name.split(".")[0] not in roots:
            return spec
        inner = spec.loader.exec_module

        def exec_module(module):
            stack.append(name)
            if len(stack) > len(deepest):
                deepest[:] = stack
            try:
                inner(module)
            finally:
                stack.pop()

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Finder())
__import__(sys.argv[1])
print(len(deepest), " -> ".join(deepest))
"""


def nesting(module, extra=(), roots=("app", "bg", "hal")):
    """(depth, chain) of the deepest nesting of ``roots``' module bodies importing ``module``;
    ``extra``: folders put on the path after the firmware."""
    path = [*(str(ROOT / d) for d in ("firmware", "host_tools/shim")), *map(str, extra)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), PROBE_ROOTS=" ".join(roots))
    cmd = [sys.executable, "-c", PROBE, module]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT), env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    depth, _, chain = proc.stdout.strip().partition(" ")
    return int(depth), chain


def test_booting_the_app_nests_few_module_bodies():
    depth, chain = nesting("app.main")
    assert 2 <= depth <= MAX_NESTING, chain  # >= 2: the probe sees nested imports at all


def test_the_probe_sees_a_deep_chain(tmp_path):
    # no firmware module nests deeper than the limit any more: a chain of seven made here shows
    # the measurement can tell, and names the chain
    for i in range(7):
        body = "import deep%d\n" % (i + 1) if i < 6 else ""
        (tmp_path / ("deep%d.py" % i)).write_text(body)
    names = ["deep%d" % i for i in range(7)]
    depth, chain = nesting("deep0", [tmp_path], names)
    assert depth == 7 > MAX_NESTING, chain
    assert chain == " -> ".join(names)


def _firmware_imports():
    """{module: modules it imports anywhere in its body (lazy imports included)}."""
    import ast

    fw = ROOT / "firmware"
    mods = {}
    for p in fw.rglob("*.py"):
        if p.parent == fw:
            continue  # main.py, manifest.py
        parts = p.relative_to(fw).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    graph = {}
    for name, p in mods.items():
        found = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
                found.update(node.module + "." + a.name for a in node.names)
        graph[name] = {d for d in found if d in mods and d != name}
    return graph


def test_no_import_circle_between_sibling_modules():
    # A package's __init__ may load its own parts on demand and a part may use its package's
    # names (a package's helpers); any other circle means two modules each need the other.
    graph = _firmware_imports()
    for name, deps in graph.items():
        graph[name] = {d for d in deps if not name.startswith(d + ".") and not d.startswith(name + ".")}
    state = {}

    def visit(n, path):
        state[n] = 1
        for d in sorted(graph[n]):
            assert state.get(d) != 1, "import circle: " + " -> ".join(path + [d])
            if d not in state:
                visit(d, path + [d])
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n, [n])
    assert len(graph) > 40 and any(graph.values())  # the probe sees the firmware's imports
