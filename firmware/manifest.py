# Freeze the firmware into a custom MicroPython build for the ESP32 (modules then run from
# flash and the heap keeps only the game's state):
#   cd micropython/ports/esp32
#   make BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/repo/firmware/manifest.py
# Whole-firmware updates also need MICROPY_VFS_ROM=1 and a partition table with a `romfs` row
# (docs/update.md): the board copies a new firmware's ROM image there at boot.
# Paths are relative to this file. hardware/board.json is still copied to the board's
# root by `make deploy` (it is data, read at boot).
include("$(PORT_DIR)/boards/manifest.py")
package("bg")
package("hal")
package("app")
module("main.py")
