"""The portable core of the smart backgammon board (runs on MicroPython and CPython)."""
