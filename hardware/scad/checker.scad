// A checker with its magnet pocket (hardware/assembly.md section 5). Sizes: params.scad,
// generated from board.json's "mechanics" by tools/hardware/scad.py. Print flat, pocket up;
// glue the magnet in, same pole up for all 30, then press the cap (cap.scad) into the recess.
include <params.scad>
$fn = 64;
clear = 0.3;     // printing clearance around the magnet
cap_h = 1.0;     // the cap over the magnet
difference() {
    cylinder(d = checker_d, h = checker_h);
    // the magnet sits on the base, centred, axis vertical
    translate([0, 0, checker_base]) cylinder(d = magnet_d + clear, h = checker_h);
    // a wider recess for the cap
    translate([0, 0, checker_h - cap_h]) cylinder(d = magnet_d + 6, h = cap_h + 1);
}
