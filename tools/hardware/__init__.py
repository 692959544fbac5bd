"""Hardware generator: KiCad netlists, PCBs and fabrication outputs from hardware/board.json.

One module per output kind: ``design`` (the circuit of every board, from board.json),
``netlist`` (KiCad .net files), ``erc`` (electrical rule check over a netlist), ``pcb``
(pcbnew: footprints, placement, routing, DRC; runs under Debian's /usr/bin/python3),
``fab`` (Gerbers, drill, JLCPCB BOM/CPL), ``build`` (``make hardware``). See hardware/README.md.

A package: its modules import each other relatively, and its scripts run as modules from the
repository's root (``python -m tools.hardware.build``, ``-m tools.hardware.bus``; ``build``
runs ``pcb`` as ``/usr/bin/python3 -m tools.hardware.pcb``, ``build.kicad_env``).
"""
