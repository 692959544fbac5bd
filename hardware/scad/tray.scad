// The bear-off tray: tray_slots checkers lying flat in three staggered rows (slot 0 at the
// rim end; each column of three holds rows 0 and 2 in line and row 1 half a pitch on), every
// neighbour a checker's diameter plus tray_clear away: tools/hardware/reed.py shows that a reed
// under each checker closes for it and stays open for its neighbours, where checkers on edge
// at 8 mm close several reeds at once. The floor is the playing surface's thickness, so each
// magnet sits over its reed as on a point; the tray strip lies in the pocket underneath, its
// reeds against the floor, its connectors in relief pockets in the floor (case_relief deep,
// the skin case.py keeps left). Sizes: params.scad (case_tray_len, case_tray_w from case.py).
include <params.scad>
$fn = 96;
wall = 2.0;
lip = 3.0;                               // the pockets' depth: a checker stays in its place
d = checker_d + tray_clear;
under = strip_t + reed_h + tray_play;    // the strip with its reeds, and play
pocket_y = (case_tray_w - tray_strip_w - 0.6) / 2;
difference() {
    translate([0, 0, -under]) cube([case_tray_len, case_tray_w, under + surface + lip]);
    for (s = [0 : tray_slots - 1]) {
        col = floor(s / 3);
        row = s % 3;
        x = wall + rim + d / 2 + 2 * tray_pitch_flat * col + tray_pitch_flat * (row % 2);
        y = wall + d / 2 + tray_row * (2 - row);   // row 0 at the far side: the strip's y = 0
        translate([x, y, surface]) cylinder(d = d, h = lip + 1);
    }
    // the strip pocket from underneath, up to the floor's underside
    translate([wall, pocket_y, -under - 1])
        cube([tray_strip_l + 0.6, tray_strip_w + 0.6, under + 1]);
    // relief pockets in the floor's underside over the parts taller than the reeds (the
    // connectors), the strip seen from above: its y runs down, the tray's up
    for (r = tray_reliefs)
        translate([wall + 0.3 + r[0], pocket_y + 0.3 + tray_strip_w - r[3], -1])
            cube([r[2] - r[0], r[3] - r[1], 1 + case_relief]);
}
