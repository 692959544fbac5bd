"""The steps every transport's end-to-end test takes against a board holding the three
reference matches (tests/mpy/link_server.py, tests/fakes_host/ble_board.py): the same
assertions over TCP, the serial line and BLE."""

import hashlib
import os

import pytest
from bg import link as P
from gammon.link import LinkError

from tools.sim.drive import free_port, pair_with_buttons  # noqa: F401 - the scenarios' tests call S.*

# MATCH001 on every test board: 5000 bytes, finished
BIG = bytes((i * 7) & 0xFF for i in range(5000))


def list_reference_matches(c):
    """The board's list: two finished matches and the live one, oldest first."""
    games = c.list_games()
    assert [(g["id"], g["size"], g["finished"]) for g in games] == [
        (b"MATCH001".hex(), 5000, True),
        (b"MATCH002".hex(), 20, True),
        (b"MATCH003".hex(), 17, False),
    ]
    return games


def abandon_fetch(c, games, after=2000):
    """Start fetching MATCH001 and walk away once ``after`` bytes arrived."""

    class Stop(Exception):
        pass

    def interrupt(done, total):
        if done > after:
            raise Stop

    with pytest.raises(Stop):
        c.fetch_game(games[0]["id"], progress=interrupt)


def resume_fetch(c, games, kept):
    """A new connection fetches MATCH001 whole, starting beyond the ``kept`` bytes, and the
    short finished match."""
    seen = []
    assert c.fetch_game(games[0]["id"], progress=lambda d, t: seen.append(d)) == BIG
    assert seen[0] > kept and seen[-1] == 5000
    assert c.fetch_game(games[1]["id"]) == b"short finished match"


def stored(c, gid):
    """A DELETE entry for a match as a host stores it: its id and the SHA-256 of its bytes."""
    return gid, hashlib.sha256(c.fetch_game(gid, resume=False)).digest()


def delete_only_finished(c, games):
    """Deleting the live match is refused (nothing deleted); so is a finished one with the
    digest of bytes other than the board's (a host that never stored them); with the digest
    of its bytes a finished one goes."""
    done = stored(c, games[1]["id"])
    with pytest.raises(LinkError) as e:
        c.delete_games([done, stored(c, games[2]["id"])])
    assert e.value.code == P.E_STATE
    with pytest.raises(LinkError) as e:
        c.delete_games([(done[0], hashlib.sha256(b"short finished matc").digest())])
    assert e.value.code == P.E_STATE and "differs" in str(e.value)
    assert len(c.list_games()) == 3
    assert c.delete_games([done]) == 1
    assert [g["id"] for g in c.list_games()] == [games[0]["id"], games[2]["id"]]


def stranger_refused_then_backs_off(c):
    """On an unpaired connection: requests need authentication, an unknown host's key is
    denied, and this connection's next attempt must wait. Returns that wait in ms (the
    back-off is this connection's: other hosts are not delayed)."""
    with pytest.raises(LinkError) as e:
        c.list_games()
    assert e.value.code == P.E_AUTH
    with pytest.raises(LinkError) as e:
        c.authenticate(b"STRANGER", os.urandom(32))
    assert e.value.code == P.E_DENIED
    with pytest.raises(LinkError) as e:  # and now it must wait
        c.authenticate(b"STRANGER", os.urandom(32))
    assert e.value.code == P.E_BACKOFF and e.value.retry_ms > 0
    return e.value.retry_ms
