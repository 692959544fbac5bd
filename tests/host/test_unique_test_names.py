"""Every test module's file name is unique across tests/: pytest imports them by bare name (the
folders are on its path, pytest.ini), and two of one name stop the collection of the whole
suite ("import file mismatch") -- no test runs at all. (tests/mpy and tests/fakes run only on
MicroPython, each module alone: conftest.py's collect_ignore_glob.)"""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_test_modules_share_a_name():
    skip = {"mpy", "fakes", "__pycache__"}
    names = Counter(p.name for p in TESTS.rglob("test_*.py") if not skip & set(p.relative_to(TESTS).parts))
    assert [n for n, k in names.items() if k > 1] == []


def test_no_two_helper_modules_share_a_name():
    # A helper imported by bare name (``import update_sim_helpers``) is the first of that name on
    # the path: a second one in another folder hides the first from every test that imports it
    # after ("module 'update_helpers' has no attribute 'root'" failed 21 tests once).
    skip = {"mpy", "fakes", "__pycache__"}
    names = Counter(
        p.name
        for p in TESTS.rglob("*.py")
        if not p.name.startswith("test_")
        and p.name not in ("conftest.py", "__init__.py")
        and not skip & set(p.relative_to(TESTS).parts)
    )
    assert [n for n, k in names.items() if k > 1] == []
