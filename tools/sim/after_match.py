"""The panel's summary when a match ends: the server reads the finished match from the
board's journal (the littlefs image, as ``make demo`` does) and puts it into the lines
``gammon show`` prints (``gammon.summary``: one computation for both; it runs in its own
process because GNU Backgammon's module works only on a main thread)."""

import subprocess
import sys
import tempfile
import time
from pathlib import Path


def match_file(image, prefix):
    """The journal file's bytes of the match whose id starts with ``prefix`` (hex, as the
    console's ``MATCH_START`` shows it), or None."""
    from tools.sim import demo

    for path, data in demo.dump_image(image).items():
        name = path.rsplit("/", 1)[-1]
        if name.endswith(".m") and name.startswith(prefix):
            return data
    return None


def summary_lines(image, prefix, tries=4, wait=0.5):
    """The summary of the finished match ``prefix`` in ``image`` (a list of lines), or None
    when the journal does not hold it finished (tried ``tries`` times: the firmware may still
    be writing its last records when the console shows MATCH_END)."""
    for _ in range(tries):
        try:
            data = match_file(image, prefix)
        except (RuntimeError, OSError, subprocess.SubprocessError):
            data = None
        if data:
            with tempfile.TemporaryDirectory() as tmp:
                p = Path(tmp) / (prefix + ".m")
                p.write_bytes(data)
                out = subprocess.run(
                    [sys.executable, "-m", "gammon.summary", str(p)],
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
            lines = out.stdout.splitlines()
            if out.returncode == 0 and lines and "not finished" not in lines[0]:
                return lines
        time.sleep(wait)
    return None
