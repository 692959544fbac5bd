"""The simulator: the firmware on the MicroPython unix port behind a browser board."""
