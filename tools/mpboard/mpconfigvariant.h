// The board model: MicroPython's unix port configured like the ESP32 build of the firmware
// (tools/board_model.py, docs/memory.md). Same feature level as ports/esp32; built 32-bit by
// mpconfigvariant.mk, so objects, GC blocks (16 bytes) and small ints have the ESP32's sizes.
#define MICROPY_CONFIG_ROM_LEVEL (MICROPY_CONFIG_ROM_LEVEL_EXTRA_FEATURES)

// The import path buffer each nested import holds on the C stack: the ESP32 port's 128 would
// do for the board's short paths; 256 leaves room for a test checkout's absolute paths.
#define MICROPY_ALLOC_PATH_MAX (256)

#include "variants/mpconfigvariant_common.h"
