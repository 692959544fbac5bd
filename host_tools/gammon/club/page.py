"""The broadcast page (``broadcast.html`` beside this file): every board of an event, live
(server-sent events), one board full size on a click; the finished matches with their dice
verdict and analysis, and the standings. One HTML file, no framework: it must load fast on a
phone in a crowded club room."""

import html as _html
import json
from pathlib import Path
from urllib.parse import quote

_PAGE = (Path(__file__).parent / "broadcast.html").read_text(encoding="utf-8")


def html(event):
    title = _html.escape("%s - live" % event)
    return _PAGE.replace("{{title}}", title).replace("{{event}}", json.dumps(event).replace("</", "<\\/"))


def index(events):
    links = "".join(
        '<li><a href="/events/%s">%s</a></li>' % (quote(e, safe=""), _html.escape(e)) for e in events
    )
    return (
        "<!doctype html><meta name=viewport content='width=device-width'><title>Club</title>"
        "<h1>Events</h1><ul>%s</ul>" % links
    )
