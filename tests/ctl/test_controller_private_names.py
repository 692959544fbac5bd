"""One public way into the controller: no module of the firmware, the tools or the host reaches
the controller's private names (``Controller``'s ``_x`` methods and attributes, ``app.ctl_defs``'
private names) -- the computer, the app's wiring and the view use ``intent`` and the public state.
CPython only (it reads the sources)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OWN = ("controller.py", "ctl_defs.py")


def _private_names():
    """The ``_x`` names the controller's classes define or assign on ``self``."""
    names = set()
    for f in OWN:
        tree = ast.parse((ROOT / "firmware" / "app" / f).read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.FunctionDef)
                and node.name.startswith("_")
                and not node.name.startswith("__")
            ):
                names.add(node.name)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                names.add(node.attr)
    return names


def _reaches(path, private):
    """``(line, name)`` of each ``x._name`` in ``path`` whose object is not ``self``, for the
    controller's private names."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr in private:
            v = node.value
            if not (isinstance(v, ast.Name) and v.id in ("self", "cls")):
                out.append((node.lineno, ast.unparse(node)))
    return out


def test_the_controllers_private_names_are_its_own():
    private = _private_names()
    assert {
        "_emit",
        "_roll",
        "_end_game",
        "_record_play",
        "_begin_moving",
        "_acting",
    } <= private  # the check sees them
    bad = []
    files = [
        p
        for d in ("firmware", "tools", "host_tools")
        for p in (ROOT / d).rglob("*.py")
        if not (p.parent.name == "app" and p.name in OWN) and "node_modules" not in p.parts
    ]
    assert any(p.name == "opponent.py" for p in files) and any(p.name == "main.py" for p in files)
    for p in files:
        bad += ["%s:%d %s" % (p.relative_to(ROOT), line, text) for line, text in _reaches(p, private)]
    assert not bad, bad


def test_the_check_finds_a_private_reach(tmp_path):
    p = tmp_path / "x.py"
    p.write_text("def f(ctl):\n    ctl._emit(1, ())\n    return self._emit\n")
    assert _reaches(p, {"_emit"}) == [(2, "ctl._emit")]


def test_the_intents_numbers_are_one_list():
    # ctl_defs names them (``I_<name>`` is the index); the controller compares its own
    # constants and its button table holds the numbers: all three must agree
    from app import controller as M
    from app import ctl_defs as D

    assert len(D._INTENTS) == 16
    for i, name in enumerate(D._INTENTS):
        assert getattr(D, "I_" + name) == i == getattr(M, "_I_" + name) == getattr(M, "I_" + name)


def test_the_device_app_reads_no_simulator_setting(monkeypatch):
    # the simulator's settings are its HAL's (hal.sim.from_env: the update key too), the
    # backend's name hal's
    for p in (ROOT / "firmware" / "app").glob("*.py"):
        assert "SG_" not in p.read_text() and "getenv" not in p.read_text(), p.name
    import hal
    from hal import sim

    monkeypatch.setenv("SG_HAL", "sim")
    monkeypatch.setenv("SG_SIM_PORT", "4711")
    monkeypatch.setenv("SG_SIM_SEED", "s5")
    monkeypatch.setenv("SG_SETTINGS", '{"length": 5, "computer": 1}')
    monkeypatch.setenv("SG_SCAN_HZ", "50")
    monkeypatch.setenv("SG_SIM_STATUS", "0")
    monkeypatch.setenv("SG_FW_KEY", "00ff" * 16)
    cfg = sim.from_env()
    assert cfg["fw_key"] == bytes.fromhex("00ff" * 16)
    assert hal.backend() == "sim"
    assert cfg["port"] == 4711 and cfg["seed"] == b"s5" and cfg["scan_hz"] == 50
    assert cfg["settings"] == {"length": 5, "computer": 1} and cfg["status"] is False
    assert cfg["ble"] is False and cfg["serial_link"] is False and "image" not in cfg
    monkeypatch.delenv("SG_HAL")
    assert hal.backend() == "esp32"
