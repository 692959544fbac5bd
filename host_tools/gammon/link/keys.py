"""The saved pairings: ``boards.json`` in the per-user config dir (see ``gammon.link``)."""

import json
import os
import time
from pathlib import Path

LEGACY_BOARD_ID = b"GAMMON00".hex()  # what every board reported before unique board ids


def config_dir():
    env = os.environ.get("GAMMON_CONFIG_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_config_dir("gammon"))


class Boards:
    """The saved pairings (``boards.json`` in the config dir)."""

    def __init__(self, path=None):
        self.path = Path(path) if path else config_dir() / "boards.json"
        self.data = {"default": None, "boards": {}}
        if self.path.exists():
            try:
                self.data = json.loads(self.path.read_text())
            except ValueError:
                raise ValueError("damaged board list %s: fix or delete it" % self.path) from None
            self.data.setdefault("boards", {})

    def save(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(str(tmp), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(self.data, f, indent=2, sort_keys=True)
        os.replace(str(tmp), str(self.path))

    def add(self, board_id, name, address, host_id, key):
        bid = board_id.hex()
        self.data["boards"][bid] = {
            "name": name,
            "address": address,
            "host_id": host_id.hex(),
            "key": key.hex(),
            "paired": int(time.time()),
        }
        # the board just paired is the one at hand: the default from now on (``gammon boards
        # --default`` chooses another), so no command needs ``--board`` right after pairing
        self.data["default"] = bid
        self.save()
        return bid

    def rekey(self, old, new):
        """Move the entry saved under board id ``old`` (hex) to ``new``, keys untouched (the
        legacy shared id, once the board proved it holds the key); the default follows, and
        so do the partial fetches kept for it."""
        b = self.data["boards"]
        b[new] = b.pop(old)
        if self.data.get("default") == old:
            self.data["default"] = new
        self.save()
        part = self.path.parent / "partial"
        if (part / old).is_dir() and not (part / new).exists():
            os.replace(str(part / old), str(part / new))

    def forget(self, spec):
        bid = self.find(spec)[0]
        del self.data["boards"][bid]
        if self.data.get("default") == bid:
            self.data["default"] = next(iter(self.data["boards"]), None)
        self.save()
        return bid

    def set_default(self, spec):
        bid = self.find(spec)[0]
        self.data["default"] = bid
        self.save()
        return bid

    def items(self):
        return sorted(self.data["boards"].items(), key=lambda kv: kv[1]["name"])

    def find(self, spec):
        """``(board id hex, entry)`` for a saved board by id, name, address or None (default)."""
        boards = self.data["boards"]
        if spec is None:
            bid = self.data.get("default")
            if not bid or bid not in boards:
                raise ValueError("no paired board: run 'gammon pair ADDRESS' first")
            return bid, boards[bid]
        if spec in boards:
            return spec, boards[spec]
        hits = [(b, e) for b, e in boards.items() if spec in (e["name"], e["address"])]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise ValueError("%r matches several boards: use the board id" % spec)
        raise ValueError("no paired board %r (see 'gammon boards')" % spec)
