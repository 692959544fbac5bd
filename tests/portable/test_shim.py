"""The micropython module is importable on both interpreters and const() is the identity."""

from micropython import const

_K = const(7)


def test_const_is_value():
    assert _K == 7
    assert const(3) + 1 == 4
