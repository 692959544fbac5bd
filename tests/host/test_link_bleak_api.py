"""The fake bleak (tests/fakes_host/bleak) against the real one (pinned in requirements.txt,
installed by ``make venv``): every class the fake offers exists in bleak, and every call the
host makes (``gammon.link.BleTransport``, ``gammon.link.scan``) with the arguments the host
passes is accepted by the real signature and by the fake's -- so the BLE tests, which only
ever run the fake, test the API users run."""

import importlib
import inspect
import sys
from pathlib import Path

import pytest

FAKES = Path(__file__).resolve().parents[1] / "fakes_host"
UUID = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"


def _drop_bleak():
    for name in list(sys.modules):
        if name == "bleak" or name.startswith("bleak."):
            del sys.modules[name]


def _load(fake):
    _drop_bleak()
    with pytest.MonkeyPatch.context() as mp:
        if fake:
            mp.syspath_prepend(str(FAKES))  # the fake ahead of the real bleak, for this import only
        try:
            return importlib.import_module("bleak")
        finally:
            _drop_bleak()


def _on_disconnect(client):
    pass


def _on_notify(sender, data):
    pass


# Each call of the host, as gammon/link/ makes it: (class, method, args, kwargs); the
# method is bound to a placeholder for ``self``.
CALLS = [
    (
        "BleakClient",
        "__init__",
        ("C4:DE:E2:10:20:01",),
        {"disconnected_callback": _on_disconnect, "timeout": 10.0},
    ),
    ("BleakClient", "connect", (), {}),
    ("BleakClient", "disconnect", (), {}),
    ("BleakClient", "pair", (), {}),
    ("BleakClient", "start_notify", (UUID, _on_notify), {}),
    ("BleakClient", "stop_notify", (UUID,), {}),
    ("BleakClient", "write_gatt_char", (UUID, b"frame"), {"response": True}),
]
PROPERTIES = ["services", "mtu_size", "is_connected", "address"]


def test_the_host_uses_only_what_real_bleak_has():
    real = _load(False)  # fails when bleak is not installed: it is a pinned requirement
    fake = _load(True)
    assert real.__file__ != fake.__file__ and "fakes_host" in fake.__file__
    assert inspect.iscoroutinefunction(real.BleakScanner.discover)
    for name in fake.__all__:
        if name == "BleakError":
            assert hasattr(importlib.import_module("bleak.exc"), name) or hasattr(real, name)
            continue
        mod = {
            "BLEDevice": "bleak.backends.device",
            "AdvertisementData": "bleak.backends.scanner",
            "BleakGATTCharacteristic": "bleak.backends.characteristic",
        }.get(name, "bleak")
        assert hasattr(importlib.import_module(mod), name), "real bleak has no %s.%s" % (mod, name)
    for lib in (real, fake):
        for cls, meth, args, kwargs in CALLS:
            f = getattr(getattr(lib, cls), meth)
            inspect.signature(f).bind(object(), *args, **kwargs)  # TypeError: the host's call breaks
            if meth != "__init__":
                assert inspect.iscoroutinefunction(f), "%s.%s must be awaited" % (cls, meth)
        for prop in PROPERTIES:
            assert isinstance(inspect.getattr_static(lib.BleakClient, prop), property), prop
        # gammon.link.scan: discover(timeout=..., service_uuids=[...], return_adv=True)
        sig = inspect.signature(lib.BleakScanner.discover)
        sig.bind(timeout=5.0, service_uuids=[UUID], return_adv=True)
    # the real discover takes service_uuids through **kwargs: it must be one of its keywords
    assert "service_uuids" in real.BleakScanner.ExtraArgs.__annotations__
    # what scan() reads from a result and _connect() from the characteristic
    from bleak.backends.characteristic import BleakGATTCharacteristic
    from bleak.backends.scanner import AdvertisementData
    from bleak.backends.service import BleakGATTServiceCollection

    for field in ("local_name", "service_uuids", "rssi"):
        assert field in AdvertisementData._fields
    assert isinstance(
        inspect.getattr_static(BleakGATTCharacteristic, "max_write_without_response_size"), property
    )
    inspect.signature(BleakGATTServiceCollection.get_characteristic).bind(object(), UUID)
    _drop_bleak()


def test_the_host_calls_listed_here_are_all_it_calls():
    """A new bleak call in gammon/link/ must be added to CALLS (and so checked above)."""
    import re

    pkg = Path(__file__).resolve().parents[2] / "host_tools" / "gammon" / "link"
    src = "".join(p.read_text() for p in sorted(pkg.glob("*.py")))
    used = set(re.findall(r"self\.client\.([a-z_]+)", src))
    known = {m for _, m, _, _ in CALLS} | set(PROPERTIES)
    assert used and used <= known, used - known
    assert "BleakScanner.discover(" in src
