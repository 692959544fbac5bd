# Freeze the firmware into a custom MicroPython build for the ESP32 (modules then run from
# flash and the heap keeps only the game's state):
#   cd micropython/ports/esp32
#   make BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/repo/firmware/manifest.py
# Whole-firmware updates need a partition table with two OTA app partitions (docs/update.md):
# a new firmware is this build's app image, written into the one not running.
# Paths are relative to this file. hardware/board.json is still copied to the board's
# root by `make deploy` (it is data, read at boot).
include("$(PORT_DIR)/boards/manifest.py")
package("bg")
package("hal")
package("app")
module("main.py")
