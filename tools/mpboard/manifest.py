# What the board model freezes: the same packages as firmware/manifest.py freezes into the
# ESP32 build (bg, hal, app), plus asyncio, which the ESP32 port freezes from its own
# boards/manifest.py. main.py is left out: the model runs tools such as tools/sim/heapcheck.py.
include("$(MPY_DIR)/extmod/asyncio")
package("bg", base_path="../../firmware")
package("hal", base_path="../../firmware")
package("app", base_path="../../firmware")
