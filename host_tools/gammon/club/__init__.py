"""The club: many boards' hosts push to one PostgreSQL-backed web service (``gammon club``).

- ``schema``: the tables, the organiser's tokens;
- ``checks``: what is accepted (decoded, replayed by the rules' fold, dice verified);
- ``app``: the web service (Starlette on uvicorn), the live fan-out (LISTEN/NOTIFY);
- ``page``: the broadcast page;
- ``push``: the board host's client (join, finished matches, live events with an outbox);
- ``worker``: analysis jobs (GNU Backgammon) taken with ``FOR UPDATE SKIP LOCKED``;
- ``pgcluster``: a throw-away PostgreSQL cluster (tests, ``make bench``).

See docs/club.md.
"""
