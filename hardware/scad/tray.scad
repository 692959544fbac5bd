// The bear-off tray: tray_slots checkers lying flat in three staggered rows (slot 0 at the
// rim end; each column of three holds rows 0 and 2 in line and row 1 half a pitch on), every
// neighbour a checker's diameter plus tray_clear away: tools/hardware/reed.py shows that a reed
// under each checker closes for it and stays open for its neighbours, where checkers on edge
// at 8 mm close several reeds at once. The floor is the playing surface's thickness, so each
// magnet sits over its reed as on a point; the tray strip lies in the pocket underneath, its
// reeds against the floor. Sizes: params.scad (case_tray_len, case_tray_w from case.py).
include <params.scad>
$fn = 96;
wall = 2.0;
lip = 3.0;                               // the pockets' depth: a checker stays in its place
d = checker_d + tray_clear;
under = strip_t + reed_h + 0.4;          // the strip with its reeds, and play
difference() {
    translate([0, 0, -under]) cube([case_tray_len, case_tray_w, under + surface + lip]);
    for (s = [0 : tray_slots - 1]) {
        col = floor(s / 3);
        row = s % 3;
        x = wall + rim + d / 2 + 2 * tray_pitch_flat * col + tray_pitch_flat * (row % 2);
        y = wall + d / 2 + tray_row * row;
        translate([x, y, surface]) cylinder(d = d, h = lip + 1);
    }
    // the strip pocket from underneath, up to the floor's underside
    translate([wall, (case_tray_w - tray_strip_w - 0.6) / 2, -under - 1])
        cube([tray_strip_l + 0.6, tray_strip_w + 0.6, under + 1]);
}
