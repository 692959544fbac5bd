"""The simulator's web server serves its own page files and nothing else: every way of
naming a file outside ``tools/sim/static`` (an absolute path after ``/static/``, ``..``,
percent-encoded dots and slashes, a NUL, a dot file, a symlink in the folder that points
out of it) gets 404, over a raw HTTP connection (no client-side path clean-up)."""

import http.client
import shutil
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

from tools.sim import server  # noqa: E402

SECRET = b"host pairing key 0123456789abcdef"


@pytest.fixture
def site(tmp_path):
    """A copy of the static folder beside a secret file and a secret folder, with symlinks
    inside the static folder pointing at both; the server runs on that copy."""
    static = tmp_path / "www" / "static"
    shutil.copytree(server.STATIC, static)
    secret = tmp_path / "www" / "boards.json"
    secret.write_bytes(SECRET)
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "boards.json").write_bytes(SECRET)
    (static / "key.css").symlink_to(secret)
    (static / "cfg").symlink_to(tmp_path / "cfg", target_is_directory=True)
    (static / ".hidden").write_bytes(SECRET)
    httpd = server.serve(None, port=0, static=static)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1], secret
    httpd.shutdown()
    httpd.server_close()


def _get(port, raw_path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        c.putrequest("GET", raw_path, skip_host=True, skip_accept_encoding=True)
        c.putheader("Host", "127.0.0.1")
        c.endheaders()
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def test_the_page_files_are_served(site):
    port, _ = site
    for name, marker in (("sim.js", b"locAt"), ("sim.css", b"{"), ("index.html", b"smartgammon")):
        code, body = _get(port, "/static/" + name)
        assert code == 200 and marker in body, name
    code, body = _get(port, "/static/sim%2Ejs")  # percent-encoding of a plain name is fine
    assert code == 200 and b"locAt" in body


@pytest.mark.parametrize(
    "path",
    [
        "/static/{abs}",  # /static//tmp/.../boards.json: Path("static") / "/abs" is "/abs"
        "/static/%2F{absq}",
        "/static/../boards.json",
        "/static/..%2Fboards.json",
        "/static/%2e%2e/boards.json",
        "/static/%2E%2E%2Fboards.json",
        "/static/%252e%252e%252fboards.json",  # double-encoded: a name, not found
        "/static/..\\boards.json",
        "/static/..%5Cboards.json",
        "/static/./../boards.json",
        "/static/key.css",  # a symlink out of the folder
        "/static/cfg/boards.json",  # through a symlinked folder
        "/static/cfg%2Fboards.json",
        "/static/.hidden",
        "/static/sim.js%00.png",
        "/static/",
        "/static/.",
        "/static/..",
    ],
)
def test_nothing_outside_the_static_folder(site, path):
    port, secret = site
    path = path.replace("{abs}", str(secret)).replace("{absq}", str(secret).lstrip("/"))
    code, body = _get(port, path)
    assert code == 404 and SECRET not in body, (path, code)
