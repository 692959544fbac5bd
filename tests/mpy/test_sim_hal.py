"""The simulator's HAL backend (hal.sim) on MicroPython: the chain bytes, LED frames,
buttons, seeded randomness and the littlefs journal volume on a file-backed block device."""

import os

from hal import sim

IMG = "/tmp/sg_test_sim_hal.lfs"


def _rm(path):
    try:
        os.remove(path)
    except OSError:
        pass


def _hw(**kw):
    cfg = {"sensor_bytes": 4, "leds": 3, "buttons": 4}
    cfg.update(kw)
    return sim.make(cfg)


def test_sensors_copy_the_chain_bytes():
    hw = _hw()
    hw.sensors.set_bits(b"\xff\x7f\x01\x00")
    buf = bytearray(4)
    hw.sensors.read_into(buf)
    assert buf == b"\xff\x7f\x01\x00"


def test_sensors_reject_a_wrong_length():
    hw = _hw()
    try:
        hw.sensors.set_bits(b"\x00")
    except ValueError as e:
        assert "4 bytes" in str(e)
        return
    raise AssertionError("accepted a short chain")


def test_leds_show_counts_frames():
    hw = _hw()
    hw.leds.buf[0] = 9
    hw.leds.show()
    hw.leds.show()
    assert hw.leds.frames == 2 and len(hw.leds.buf) == 9


def test_buttons_count_presses_on_the_down_edge():
    hw = _hw()
    b = hw.buttons
    b.edge(1, 1)
    assert b.is_down(1)
    b.edge(1, 1)  # no new edge while held
    b.edge(1, 0)
    b.press(1)
    assert b.take(1) == 2 and b.take(1) == 0 and not b.is_down(1)
    b.edge(9, 1)  # a button this board does not have: ignored
    assert b.take(0) == 0


def test_seeded_random_is_deterministic_and_os_random_is_not():
    a = _hw(seed=b"demo").random
    b = _hw(seed=b"demo").random
    x = a.urandom(40)
    assert x == b.urandom(40) and len(x) == 40
    assert _hw(seed=b"other").random.urandom(40) != x
    r = _hw().random
    assert r.urandom(16) != r.urandom(16)


def test_storage_littlefs_image_survives_a_remount():
    _rm(IMG)
    st = sim.Storage(image=IMG, mount="/simhal")
    assert st.ok() and st.root == "/simhal"
    with open("/simhal/x.bin", "wb") as f:
        f.write(b"confirmed")
    assert st.bdev.writes > 0 and st.bdev.block_size == 4096
    st.unmount()
    st = sim.Storage(image=IMG, mount="/simhal")
    with open("/simhal/x.bin", "rb") as f:
        assert f.read() == b"confirmed"
    st.unmount()
    _rm(IMG)


def _board_id(image, mount):
    """The link's board id as the simulator's app builds it (``app.wiring.Wiring.make_hub``)."""
    from bg.journal import Journal
    from bg.link.journal import JournalStore

    hw = _hw(image=image)
    assert hw.board_id() is None  # no hardware id: the link store keeps one in the image
    st = hw.storage
    st.unmount()
    st = sim.Storage(image=image, mount=mount)
    j = Journal(st.root)
    for _ in j.open():
        pass
    bid = JournalStore(j, st.root, hw.board_id()).board_id()
    st.unmount()
    return bid


def test_each_flash_image_has_its_own_board_id_kept_in_the_image():
    tag = "".join("%02x" % b for b in os.urandom(4))  # the machine is shared: own files
    a, b = "/tmp/sg_simid_a_%s.lfs" % tag, "/tmp/sg_simid_b_%s.lfs" % tag
    try:
        first = _board_id(a, "/simid")
        assert len(first) == 8 and first != b"GAMMON00"
        assert _board_id(a, "/simid") == first  # the next boot of that image
        assert _board_id(b, "/simid") != first  # another image: another board
    finally:
        _rm(a)
        _rm(b)


def test_storage_missing_directory_is_reported_not_raised():
    st = sim.Storage(image="/nonexistent-dir/x/img.lfs", mount="/simhal2")
    assert not st.ok() and "cannot mount" in st.error


def test_storage_never_formats_an_image_that_holds_data():
    # A damaged littlefs (here: a superblock-less image of data bytes) is a storage error,
    # not a blank flash: formatting it would destroy every stored match.
    _rm(IMG)
    junk = bytes((i * 37 + 11) & 255 for i in range(256))
    with open(IMG, "wb") as f:
        for _ in range(sim.BLOCK_COUNT * sim.BLOCK_SIZE // 256):
            f.write(junk)
    st = sim.Storage(image=IMG, mount="/simhal3")
    assert not st.ok() and "left unformatted" in st.error
    with open(IMG, "rb") as f:
        assert f.read(256) == junk  # untouched
    if st.bdev is not None:
        st.bdev.close()
    # an erased image (all 0xFF, as new flash) is formatted and mounted
    with open(IMG, "wb") as f:
        for _ in range(sim.BLOCK_COUNT * sim.BLOCK_SIZE // 256):
            f.write(b"\xff" * 256)
    st = sim.Storage(image=IMG, mount="/simhal3")
    assert st.ok()
    st.unmount()
    _rm(IMG)


def test_radio_headless_keeps_sent_frames_and_delivers_received():
    hw = _hw()
    hw.radio.send(b"\x01\x02")
    assert hw.radio.sent[-1] == b"\x01\x02"
    assert hw.radio.recv() is None
    for i in range(20):
        hw.radio.deliver(bytes([i]))
    assert hw.radio.recv() == bytes([12])  # a flood keeps only the newest frames


def test_battery_model_is_set_by_the_page_and_refuses_nonsense():
    from hal.sim_bus import Bus

    hw = _hw(battery_mv=3600)
    assert hw.battery.read_mv() == 3600
    logged = []

    class Handler(Bus):  # the message handler only: no server socket
        def __init__(self, hw):
            self.hw = hw

        def log(self, msg):
            logged.append(msg)

    bus = Handler(hw)
    bus.handle('{"t": "battery", "mv": 3420}')
    assert hw.battery.read_mv() == 3420
    for bad in ('{"t": "battery", "mv": -5}', '{"t": "battery", "mv": "x"}', '{"t": "battery"}'):
        bus.handle(bad)
        assert hw.battery.read_mv() == 3420
    assert len(logged) == 3
    bus.handle('{"t": "battery", "charging": true, "usb": true}')  # the charger's pins alone
    assert hw.battery.charger() == (True, True) and hw.battery.read_mv() == 3420
    for bad in ('{"t": "battery", "charging": 1}', '{"t": "battery", "mv": true}'):
        bus.handle(bad)
    assert hw.battery.charger() == (True, True) and hw.battery.read_mv() == 3420
    assert len(logged) == 5
    assert _hw(battery_mv=None).battery is None  # a board without the battery option


def test_sleep_model_counts_the_naps():
    hw = _hw()
    hw.sleep.nap(5)
    hw.sleep.nap(0)
    assert hw.sleep.naps == 1 and hw.sleep.slept_ms == 5


def test_the_bus_heap_probe_sends_the_most_held_when_it_grows():
    import asyncio
    import gc

    from hal.sim_bus import Bus

    lines = []

    class Probe(Bus):  # the probe alone: no server socket
        def __init__(self):
            self.closed = False

        def send_line(self, obj):
            lines.append(obj)

    bus = Probe()
    keep = []

    async def drive():
        asyncio.create_task(bus._probe(5))
        await asyncio.sleep_ms(30)
        n = len(lines)
        keep.append(bytearray(4096))  # held from now on: the mark moves by as much
        await asyncio.sleep_ms(30)
        grew = len(lines) - n
        keep.clear()
        m = len(lines)
        await asyncio.sleep_ms(30)  # less held again: the mark stays, no line
        bus.closed = True
        await asyncio.sleep_ms(10)
        return n, grew, m

    n, grew, m = asyncio.run(drive())
    assert n >= 1 and grew >= 1 and len(lines) == m, (n, grew, m, lines)
    total = gc.mem_alloc() + gc.mem_free()
    first, last = lines[0], lines[-1]
    assert all(x["t"] == "hp" and x["most"] + x["free"] <= total for x in lines)
    assert last["most"] >= first["most"] + 4096 and last["free"] <= first["free"] - 4096
    assert [x["most"] for x in lines] == sorted(x["most"] for x in lines)
