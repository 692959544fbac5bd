"""A relay between the host tool and the board, after login (docs/protocol.md, threat model):
it can inject an unsigned ERROR ("flash damaged: unpair and re-pair") in the middle of a
fetch or a watch. ``gammon.link.Client`` refuses it with a clear message, shows none of its
text, and loses nothing it already has: the fetched bytes stay in ``partial/`` and the next
fetch resumes from them; records a watch already yielded stay yielded."""

import pytest
from bg import link as P
from bg.link.session import Session
from gammon import link as L
from link_board import M1, make_board

FORGED = "flash damaged: unpair and re-pair"


class Relay:
    """An in-memory transport with a man in the middle: ``inject_after`` board frames pass,
    then ``inject`` goes to the host in their place (once) and the rest is held back."""

    mtu = 100  # small DATA frames: a fetch of M1 takes a dozen

    def __init__(self, board):
        self.s = Session(board, self.mtu)
        self.out = []
        self.inject = None
        self.inject_after = None
        self.records = []  # published by the board once this session watches (Hub.publish)

    def _pump(self):
        f = self.s.pump()
        while f is not None:
            self.out.append(f)
            f = self.s.pump()

    def send(self, data):
        self.s.feed(data)
        self._pump()

    def recv(self, timeout):
        if self.s.watching and self.records:
            self.s.board.publish(self.records.pop(0))
        self._pump()
        if self.inject is not None and self.inject_after is not None:
            if self.inject_after <= len(self.out):
                self.out = self.out[: self.inject_after] + [self.inject]
                self.inject = None
        data = b"".join(self.out)
        if self.inject_after is not None:
            self.inject_after -= len(self.out)
        self.out = []
        return data

    def close(self):
        self.s.close()


def _forged():
    return P.encode_frame(P.ERROR, 7, P.error_payload(P.E_STORE, P.REQ_FETCH, 7, 0, FORGED))


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    board = make_board()
    c = L.Client(Relay(board))
    host_id, key = c.pair("laptop", lambda v: board.confirm_pairing())  # the owner presses ROLL
    c.close()
    t = Relay(board)
    c = L.Client(t)
    c.authenticate(host_id, key)
    c.info()
    yield c, t, board, (host_id, key)
    c.close()


def test_a_forged_error_in_a_fetch_is_refused_and_the_bytes_kept(client):
    c, t, board, cred = client
    full = board.store.read_match(M1, 0, 10000)
    assert c.t.s.chunk_size() < len(full) // 2  # three DATA frames at least
    t.inject, t.inject_after = _forged(), 2  # the FETCH answer and one DATA frame pass
    with pytest.raises(L.LinkError) as e:
        c.fetch_game(M1.hex())
    assert FORGED not in str(e.value) and "forged" in str(e.value)
    part = c._partial_path(M1.hex())
    kept = part.read_bytes()
    assert 0 < len(kept) < len(full) and full.startswith(kept)  # nothing it had is lost
    # reconnect (the relay is gone): the fetch resumes from the kept bytes
    c2 = L.Client(Relay(board))
    c2.authenticate(*cred)
    c2.info()
    assert c2.fetch_game(M1.hex()) == full
    assert not part.exists()
    c2.close()


def test_a_forged_error_in_a_watch_keeps_what_was_yielded(client):
    c, t, board, cred = client
    got = []
    t.records = [b"\x04one", b"\x04two", b"\x04three"]
    w = c.watch(timeout=0.01)
    got.append(next(w))  # "one" arrives with the WATCH answer: it must not be left behind
    got.append(next(w))
    t.inject, t.inject_after = _forged(), 1  # right behind the third record
    got.append(next(w))  # the genuine record before the forgery is still yielded
    with pytest.raises(L.LinkError) as e:
        next(w)
    assert FORGED not in str(e.value) and "forged" in str(e.value)
    assert got == [b"\x04one", b"\x04two", b"\x04three"]
