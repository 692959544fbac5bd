"""What every part of the host's link shares: ``LinkError`` and the default timeout."""

TIMEOUT = 10.0  # seconds a request waits for the board's answer


class LinkError(Exception):
    """The board refused a request (``code`` is a protocol ``E_*``) or the link failed."""

    def __init__(self, msg, code=0, retry_ms=0):
        super().__init__(msg)
        self.code = code
        self.retry_ms = retry_ms
