"""The controller's three layers are honest: ``State`` (``ctl_state``) and ``Turns``
(``ctl_turns``) reach only their own names and those of the layers below -- never one that only
a layer above defines (the computer opponent ``opp``, ``_computer``, ``Controller``'s inputs) --
and a layer above that redefines a method extends it (calls the one below), never replaces a
stub the layer below calls. CPython only (it reads the sources)."""

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "firmware" / "app"
LAYERS = ("ctl_state.py", "ctl_turns.py", "controller.py")  # bottom to top
# the computer opponent's names: the top layer's alone (it makes the opponent, the layers below
# are told what they need of it)
OPPONENT = {"opp", "_opponent", "_computer", "_acting"}


def _defined(tree):
    """The names a layer's class defines: methods, class attributes, ``self.x = ...``."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    out.add(item.name)
                elif isinstance(item, ast.Assign):
                    out.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    out.add(t.attr)
    return out


def _used(tree):
    """``(line, name)`` of each ``self.name`` a layer reads, assigns or calls."""
    return [
        (n.lineno, n.attr)
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
    ]


def _upward(sources):
    """``(file, line, name)`` of each name a layer uses that only a layer above defines."""
    trees = [ast.parse(s) for s in sources]
    defs = [_defined(t) for t in trees]
    out = []
    for i, tree in enumerate(trees):
        below = set().union(*defs[: i + 1])
        above = set().union(*defs[i + 1 :]) if i + 1 < len(defs) else set()
        out += [(LAYERS[i], line, name) for line, name in _used(tree) if name in above - below]
    return out


def _replaced(sources):
    """``(file, name)`` of each method a layer redefines without calling the layer below's
    (``Below.name(self, ...)``)."""
    trees = [ast.parse(s) for s in sources]
    methods = []
    for tree in trees:
        cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
        methods.append({f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)})
    out = []
    for i in range(1, len(trees)):
        for name, f in methods[i].items():
            if name == "__init__" or not any(name in m for m in methods[:i]):
                continue
            calls = {
                c.func.attr
                for c in ast.walk(f)
                if isinstance(c, ast.Call)
                and isinstance(c.func, ast.Attribute)
                and isinstance(c.func.value, ast.Name)
                and c.func.value.id != "self"
            }
            if name not in calls:
                out.append((LAYERS[i], name))
    return out


def test_no_layer_reaches_a_name_of_a_layer_above():
    assert _upward([(APP / f).read_text() for f in LAYERS]) == []


def test_the_layers_below_never_name_the_opponent():
    for f in LAYERS[:-1]:
        named = [(line, n) for line, n in _used(ast.parse((APP / f).read_text())) if n in OPPONENT]
        assert named == [], f
    assert {n for _, n in _used(ast.parse((APP / LAYERS[-1]).read_text()))} >= OPPONENT  # the names are real


def test_a_layer_above_extends_the_methods_below_never_replaces_them():
    assert _replaced([(APP / f).read_text() for f in LAYERS]) == []


def test_the_check_finds_an_upward_reference():
    # the attacker: State asking the opponent again, Turns calling the controller's computer
    src = [(APP / f).read_text() for f in LAYERS]
    state = src[0].replace(
        "    def expected(self):",
        "    def peek(self):\n        return self.opp\n\n    def expected(self):",
        1,
    )
    turns = src[1].replace(
        "    def joint_share(self, k):",
        "    def poke(self, now):\n        return self._computer(now)\n\n    def joint_share(self, k):",
        1,
    )
    assert state != src[0] and turns != src[1]
    found = {(f, name) for f, _, name in _upward([state, turns, src[2]])}
    assert found == {("ctl_state.py", "opp"), ("ctl_turns.py", "_computer")}


def test_the_check_finds_a_replaced_stub():
    # the attacker: the transitions' stub for the computer, replaced by the controller's
    src = [(APP / f).read_text() for f in LAYERS]
    stub = "    def _computer(self, now):\n        return False\n\n    def joint_share(self, k):"
    turns = src[1].replace("    def joint_share(self, k):", stub, 1)
    assert turns != src[1] and "    def _computer(self, now):" in src[2]
    assert _replaced([src[0], turns, src[2]]) == [("controller.py", "_computer")]
