"""``gammon board update``'s side of update mode, against a scripted board: the board's "restarting
into update mode" is waited out (it comes back within ``_MODE_S``, unreachable meanwhile), a
board that comes back still running the game is reported instead of asked again forever, a
board that never comes back is given up on with a hint, a board busy for a moment (out of memory,
a stranger in the slot) is asked again and resumes, one busy for good is given up on, and a refusal
is final. The real board
model runs the same command in tests/host/test_update_mode.py."""

import types

import pytest
from bg import link as P
from bg.link.fwupdate import MODE
from gammon import fwupdate
from gammon import link as L
from gammon import release as R
from gammon.commands import board as B
from gammon.errors import UserError


class _Conn:
    call = None

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _run(tmp_path, monkeypatch, script):
    """cmd_update with each connection attempt taking the next step of ``script``: "down"
    (unreachable), an exception to raise from ``send``, or the string ``send`` returns."""
    path = tmp_path / "b.gbun"
    path.write_bytes(R.build_bundle("1.2.3", [("bg/x.py", b"x = 1\n")], R.new_key(), 1))
    steps = list(script)
    now = [0.0]

    def open_board(args):
        if steps[0] == "down":
            steps.pop(0)
            raise UserError("cannot connect")
        return _Conn()

    def send(call, blob, progress=None):
        s = steps.pop(0)
        if isinstance(s, Exception):
            raise s
        return s

    def sleep(s):
        now[0] += s

    monkeypatch.setattr(B, "open_board", open_board)
    monkeypatch.setattr(fwupdate, "send", send)
    monkeypatch.setattr(B.time, "sleep", sleep)
    monkeypatch.setattr(B.time, "monotonic", lambda: now[0])
    return B.cmd_update(types.SimpleNamespace(value=str(path), board=None)), steps, now[0]


def _mode():
    return L.LinkError("busy: " + MODE, P.E_BUSY, 3000)


def test_waits_for_update_mode_then_sends(tmp_path, monkeypatch, capsys):
    rc, left, t = _run(tmp_path, monkeypatch, [_mode(), "down", "down", "down", "1.2.3"])
    out = capsys.readouterr().out
    assert rc == 0 and not left, (rc, left)
    assert "restarts into update mode" in out and "version 1.2.3 pending" in out, out
    assert t >= 3.0  # the board's retry time first


def test_a_board_back_in_its_game_is_not_asked_again(tmp_path, monkeypatch):
    with pytest.raises(UserError) as e:
        _run(tmp_path, monkeypatch, [_mode(), _mode(), "1.2.3"])
    assert "without its update mode" in str(e.value)


def test_a_board_that_never_comes_back_is_given_up(tmp_path, monkeypatch):
    with pytest.raises(UserError) as e:
        _run(tmp_path, monkeypatch, [_mode()] + ["down"] * 1000)
    assert "cannot connect" in str(e.value)


def test_a_refusal_in_update_mode_is_final(tmp_path, monkeypatch):
    no = L.LinkError("malformed payload: downgrade refused: counter 1 < board's 2", P.E_PAYLOAD)
    with pytest.raises(UserError) as e:
        _run(tmp_path, monkeypatch, [_mode(), "down", no, "1.2.3"])
    assert "only go forward" in str(e.value) and "1.2.3" in str(e.value)


def _busy():
    return L.LinkError("busy: out of memory", P.E_BUSY, 1000)


def test_a_busy_board_is_asked_again_and_resumes(tmp_path, monkeypatch, capsys):
    rc, left, t = _run(tmp_path, monkeypatch, [_busy(), _mode(), "down", _busy(), _busy(), "1.2.3"])
    out = capsys.readouterr().out
    assert rc == 0 and not left, (rc, left)
    assert "busy (busy: out of memory): retrying" in out and "version 1.2.3 pending" in out, out
    assert t >= 3.0 + 3 * 1.0  # each busy answer's retry time waited


def test_a_board_busy_for_good_is_given_up(tmp_path, monkeypatch):
    with pytest.raises(UserError) as e:
        _run(tmp_path, monkeypatch, [_busy()] * 1000)
    assert "stayed busy for 30 s" in str(e.value) and "out of memory" in str(e.value)
