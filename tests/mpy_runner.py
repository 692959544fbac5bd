"""Run one portable test module under the MicroPython unix port.

Usage (``tests/test_micropython.py`` does this for every module)::

    MICROPYPATH=firmware:tests/fakes:tools/harness:tests/portable:tests/mpy \
        micropython -X heapsize=64k tests/mpy_runner.py test_engine_rules

Every module-level callable named ``test_*`` is called with no arguments, in source order
where the port keeps it (sorted otherwise). A test passes when it returns; ``SkipTest`` (any
exception class of that name) skips it. The last line is the plain summary
``micropython: N passed, M failed, K skipped``; the exit status is 1 when anything failed.
"""

import gc
import sys


def main():
    name = sys.argv[1]
    if name.endswith(".py"):
        name = name.rsplit("/", 1)[-1][:-3]
    impl = sys.implementation
    print("interpreter:", impl.name, ".".join(str(v) for v in impl.version[:3]), sys.platform)
    gc.collect()
    print("heap at start: free", gc.mem_free(), "alloc", gc.mem_alloc())
    mod = __import__(name)
    names = sorted(n for n in dir(mod) if n.startswith("test_"))
    passed = failed = skipped = 0
    for n in names:
        fn = getattr(mod, n)
        if not callable(fn):
            continue
        gc.collect()
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - a runner reports every failure
            if type(e).__name__ == "SkipTest":
                skipped += 1
                print("SKIP", n, e)
                continue
            failed += 1
            print("FAIL", n)
            sys.print_exception(e)
            continue
        passed += 1
        print("PASS", n)
    gc.collect()
    print("heap at end: free", gc.mem_free(), "alloc", gc.mem_alloc())
    print("micropython: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    sys.exit(1 if failed or not (passed + skipped) else 0)


main()
