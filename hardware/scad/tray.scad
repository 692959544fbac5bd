// The bear-off tray trough: tray_slots checkers standing on edge at tray_pitch, the trough
// sloping towards slot 0 (tray_slope degrees). The tray strip PCB slides into the pocket in the
// outer side wall, its reeds at the checkers' centre height (a checker on edge carries its
// magnet checker_d / 2 above the trough floor: too far for a reed under the floor).
include <params.scad>
$fn = 64;
wall = 2.0;
skin = 1.2;                          // wall between the strip pocket and the checkers
len = rim + tray_slots * tray_pitch + wall;
inner_w = checker_h + 1.0;           // across the trough: one checker's thickness plus play
// deep enough that the wall covers the tray strip standing in its pocket
depth = max(checker_d * 0.6, checker_d / 2 + tray_strip_w / 2 + 0.4);
outer_w = wall + inner_w + skin + strip_t + 0.4 + wall;
difference() {
    cube([len, outer_w, depth + wall]);
    // the trough: a cradle of the checkers' radius
    translate([rim, wall, wall + checker_d / 2]) rotate([0, 90, 0])
        scale([1, inner_w / checker_d, 1]) cylinder(d = checker_d, h = len);
    translate([rim, wall, wall + checker_d / 2]) cube([len, inner_w, depth]);
    // the strip pocket in the outer wall, centred on the checkers' centre height
    translate([0, wall + inner_w + skin, wall + checker_d / 2 - tray_strip_w / 2])
        cube([len + 1, strip_t + 0.4, tray_strip_w + 0.4]);
}
