# The board model (tools/board_model.py): 32-bit, the firmware frozen in as on the ESP32
# (firmware/manifest.py), native code for x86 as the ESP32's is for xtensawin. Modules the
# firmware does not use and whose libraries Debian's source package leaves out are off.
FROZEN_MANIFEST = $(VARIANT_DIR)/manifest.py
MICROPY_FORCE_32BIT = 1
MPY_CROSS_FLAGS += -march=x86
MICROPY_PY_FFI = 0
MICROPY_PY_BTREE = 0
MICROPY_PY_SSL = 0
