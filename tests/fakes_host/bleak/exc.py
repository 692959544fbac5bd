"""``bleak.exc`` (fake): the exception classes gammon catches."""


class BleakError(Exception):
    """Base class of bleak's errors (``bleak.exc.BleakError``)."""


class BleakDeviceNotFoundError(BleakError):
    """No device with this address is advertising (``bleak.exc.BleakDeviceNotFoundError``)."""

    def __init__(self, identifier, *args):
        super().__init__(*args)
        self.identifier = identifier
