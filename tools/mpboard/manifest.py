# What the board model freezes: what firmware/manifest.py freezes into the ESP32 build (bg,
# hal, app, main.py), plus asyncio, which the ESP32 port freezes from its own
# boards/manifest.py. Run the device entry point with `-m main`.
include("$(MPY_DIR)/extmod/asyncio")
package("bg", base_path="../../firmware")
package("hal", base_path="../../firmware")
package("app", base_path="../../firmware")
module("main.py", base_path="../../firmware")
