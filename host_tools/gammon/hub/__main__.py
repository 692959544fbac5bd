"""``python -m gammon.hub [--detach] ADDRESS``: the hub for the board at ADDRESS (started by
the first command that needs it: ``gammon.hub.connect``). ``--detach`` starts it in its own
session, its output in the log beside its socket, and returns at once."""

import os
import subprocess
import sys

from gammon import hub
from gammon.hub.daemon import Hub


def main(argv):
    detach = argv[:1] == ["--detach"]
    if detach:
        argv = argv[1:]
    if len(argv) != 1:
        print("usage: python -m gammon.hub [--detach] ADDRESS", file=sys.stderr)
        return 2
    address = argv[0]
    path = hub.socket_path(address)
    if detach:
        with open(hub.log_path(path), "a") as log:  # (the hub that takes the lock empties it)
            subprocess.Popen(  # noqa: S603 - this interpreter, this module
                [sys.executable, "-m", "gammon.hub", address],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd="/",
                start_new_session=True,
                close_fds=True,
            )
        return 0
    h = Hub(address, path, hub.idle_seconds())
    if not h.listen():
        return 0  # another hub serves this address
    h.log("hub %d for %s at %s" % (os.getpid(), address, path))
    h.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
