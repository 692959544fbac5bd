"""A long random-frame run against the board's session under MicroPython:
100,000+ hostile frames -- random types, payloads, flags, MACs, sequence numbers, bit flips,
truncations and raw noise -- at an unauthenticated and an authenticated session.

Checks after every frame: no exception escapes, every byte the board sends back parses as a
well-formed frame, and a frame answered with an error changes nothing (store, paired hosts,
clock, session state); the only counted effect is a failed proof raising the back-off.
"""

# Fits the 64k heap when the bridge imports the firmware as .mpy (the default, as on the
# device); compiling the firmware from source needs 96k on the 64-bit unix port.

from link_fakes import roomy, skip_all

if roomy(96000, 60000):
    import gc

    # Compile the fuzzer (which imports the firmware's link modules) while the heap is empty.
    gc.collect()
    import link_fuzzer
    from bg.link import auth as linkauth  # noqa: F401 - loaded now rather than mid-run
    from bg.link import requests as linkreq  # noqa: F401

    gc.collect()


def test_random_frames_unauthenticated():
    link_fuzzer.random_frames_unauthenticated()


def test_random_frames_authenticated():
    link_fuzzer.random_frames_authenticated()


if not roomy(96000, 60000):
    skip_all(globals())
