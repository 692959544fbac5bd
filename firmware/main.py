"""Device entry point: MicroPython runs this file at boot (and the simulator runs it on the
unix port with ``SG_HAL=sim``). Everything lives in ``app.main``."""

import app.main

app.main.run()
