"""The host tool installs like any Python tool: its wheel, built from host_tools/ (the engine
copied from firmware/bg and its move generator compiled with Cython, host_tools/setup.py), is
installed into a fresh virtual environment outside the checkout and run from another folder.
What it prints there must equal what the repository's own engine (pure Python, from
firmware/bg) prints; the compiled engine must also pass the engine's own tests, and the
wheel's pure-Python files must run on their own where the extensions are missing."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from export_helpers import random_match
from gammon import model
from gammon.commands import library as cmds

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT.parent / "shared" / "bench" / "positions_2000.json"
START = "4HPwATDgc/ABMA"
ENGINE_TESTS = [
    "tests/host/test_engine_oracle.py",
    "tests/host/test_engine_ids_notation.py",
    "tests/host/test_engine_cli.py",
    "tests/host/test_engine_doctests.py",
]


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    """(gammon's python, its gammon script, a clean environment, a folder outside the checkout)."""
    base = tmp_path_factory.mktemp("wheel")
    wheels = base / "wheels"
    # pip's ordinary build (an isolated build environment from the registry: setuptools, Cython);
    # the dependencies' wheels land beside gammon's, so the install below needs no index
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--disable-pip-version-check",
            "-w",
            str(wheels),
            str(ROOT / "host_tools"),
        ],
        check=True,
        cwd=str(base),
        timeout=600,
    )
    (whl,) = wheels.glob("gammon-*.whl")
    assert "-cp3" in whl.name, "the wheel carries no compiled engine: %s" % whl.name
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [
            str(py),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-index",
            "--find-links",
            str(wheels),
            "gammon",
        ],
        check=True,
        timeout=300,
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "GAMMON_"))}
    env["GAMMON_HOME"] = str(base / "home")
    work = base / "elsewhere"
    work.mkdir()
    return py, env_dir / "bin" / "gammon", env, work


def _run(tool, *argv):
    py, gammon, env, work = tool
    p = subprocess.run(
        [str(gammon), *argv], cwd=str(work), env=env, capture_output=True, text=True, timeout=120
    )
    return p.returncode, p.stdout, p.stderr


def _pure(capsys, *argv):
    from gammon import cli

    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_installed_tool_uses_its_own_compiled_engine(tool):
    py, _gammon, env, work = tool
    code = "import gammon._paths as p, bg; print(bg.__file__); print(p.engine_compiled())"
    p = subprocess.run(
        [str(py), "-c", code], cwd=str(work), env=env, capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0, p.stderr
    where, compiled = p.stdout.split()
    assert Path(where).is_relative_to(py.parent.parent) and not Path(where).is_relative_to(ROOT)
    assert compiled == "True"


def test_plays_and_show_outside_the_checkout(tool, capsys):
    for argv in (("plays", START, "31"), ("plays", "--notation", START, "66"), ("show", START)):
        code, out, err = _run(tool, *argv)
        assert code == 0, err
        assert (code, out) == _pure(capsys, *argv)[:2]
    assert len(_run(tool, "plays", START, "31")[1].split()) == 16
    code, out, err = _run(tool, "plays", START, "71")
    assert code == 2 and "Traceback" not in err  # bad input: a clear one-line error there too


def test_import_show_export_outside_the_checkout(tool, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    data = random_match(3, length=5)[0]
    journal = tool[3] / "journal.m"
    journal.write_bytes(data)
    code, out, err = _run(tool, "import", str(journal))
    assert code == 0 and "new " in out, err
    mid = model.load_match(data).id_hex
    for fmt in ("mat", "sgf", "json"):
        dest = tool[3] / ("out." + fmt)
        code, _out, err = _run(tool, "export", mid[:8], "-f", fmt, "-o", str(dest))
        assert code == 0, err
        assert dest.read_text() == cmds.export_text(model.load_match(data), fmt)
    code, out, err = _run(tool, "show", mid[:8], "--game", "1")
    assert code == 0, err
    _pure(capsys, "import", str(journal))
    assert out == _pure(capsys, "show", mid[:8], "--game", "1")[1]


PLAYS_DIGEST = r"""
import hashlib, json, sys
from gammon import _paths
from bg import engine, ids
h = hashlib.sha256()
gen = engine.MoveGen()
for d in json.load(open(sys.argv[1]))["positions"]:
    pos = ids.decode_position_id(d["id"], side_on_roll=0)
    for steps, end in gen.plays(pos, 0, d["dice"][0], d["dice"][1]):
        h.update(bytes(steps) + end)
    h.update(b"|")
print(_paths.engine_compiled(), h.hexdigest())
"""


def _digest(py, env, work):
    p = subprocess.run(
        [str(py), "-c", PLAYS_DIGEST, str(BENCH)],
        cwd=str(work),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def _repository_digest():
    from bg import engine, ids

    assert engine._core.__file__.endswith(".py")  # this process: firmware/bg as it is
    h = hashlib.sha256()
    gen = engine.MoveGen()
    for d in json.loads(BENCH.read_text())["positions"]:
        pos = ids.decode_position_id(d["id"], side_on_roll=0)
        for steps, end in gen.plays(pos, 0, d["dice"][0], d["dice"][1]):
            h.update(bytes(steps) + end)
        h.update(b"|")
    return h.hexdigest()


def test_compiled_engine_lists_the_same_plays_in_the_same_order(tool):
    """Every play of the 2,000 benchmark positions, steps and end, in generation order."""
    assert BENCH.exists(), "benchmark set missing: %s (../shared from the project root)" % BENCH
    py, _gammon, env, work = tool
    assert _digest(py, env, work) == ["True", _repository_digest()]


def test_the_wheels_pure_python_fallback_runs_without_the_extensions(tool, tmp_path):
    """Where the extensions could not be built (no C compiler) the wheel's .py files run."""
    py, gammon, env, work = tool
    (pkg,) = py.parent.parent.glob("lib/python3*/site-packages/gammon")
    shutil.copytree(pkg, tmp_path / "gammon", ignore=shutil.ignore_patterns("*.so", "*.pyd"))
    assert not list((tmp_path / "gammon").rglob("*.so"))
    env = dict(env, PYTHONPATH=str(tmp_path))  # this copy of gammon before the installed one
    assert _digest(py, env, work) == ["False", _repository_digest()]
    p = subprocess.run(
        [str(gammon), "plays", START, "31"],
        cwd=str(work),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and len(p.stdout.split()) == 16, p.stderr


def test_engine_tests_pass_on_the_compiled_engine(tool):
    py, _gammon, _env, _work = tool
    (fw,) = py.parent.parent.glob("lib/python3*/site-packages/gammon/_fw")
    env = dict(os.environ, GAMMON_ENGINE_PATH=str(fw))  # the tools package puts it first (tests/conftest.py)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *ENGINE_TESTS]
    p = subprocess.run(cmd, cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    header = [ln for ln in p.stdout.splitlines() if ln.startswith("bg engine: ")]
    assert header and Path(header[0].split(": ", 1)[1]).parent == fw / "bg" / "engine"
    assert not header[0].endswith(".py")
    assert " passed" in p.stdout and " failed" not in p.stdout
