"""The examples in the engine's docstrings are run, so they stay true."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "name", ["bg.board", "bg.engine", "bg.engine.pubeval", "bg.ids", "bg.notation", "bg.match", "bg.aids"]
)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, extraglobs=vars(mod))
    assert res.attempted > 0 and res.failed == 0
