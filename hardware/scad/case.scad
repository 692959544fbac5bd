// The folding case, open, seen from above (tools/hardware/case.py computes every size; the
// test checks them): two halves hinged along the bar, the playing surface on top (z = 0 its
// top), the cavity under it where the strips lie with their reeds against the surface's
// underside, relief pockets in the underside over the point strips' connectors (2.9 mm, the
// reed 2.0 mm), the bar strip in the left half's bar, the centre board in the right half's,
// the tray beside the right half, and the two cable channels across the hinge.
include <params.scad>
hinge_gap = 2;
bottom = 4;
module half(w, bar_w, bar_at_right, tray) {
    difference() {
        translate([0, 0, -case_surface - case_cavity - bottom])
            cube([w, case_half_y, case_surface + case_cavity + bottom]);
        // the cavity under the surface
        translate([case_wall, case_wall, -case_surface - case_cavity])
            cube([w - 2 * case_wall, case_half_y - 2 * case_wall, case_cavity]);
        // relief pockets over every point strip's two connectors (12 strips a half)
        for (i = [0 : 5], row = [0 : 1], j = [point_j1_x, point_j2_x]) {
            x = (bar_at_right ? case_wall : bar_w) + rim + checker_d * (i + 0.5);
            y = row == 0 ? case_wall + j : case_half_y - case_wall - j;
            translate([x - 3, y - 8, -case_surface - 0.01])
                cube([6, 16, case_relief + 0.1]);
        }
        // the two cable channels through the wall at the hinge (a 12-way SH cable is 12 mm
        // wide): point 19 -> 18 beside the top row, the bar's end -> the centre's RETURN
        for (y = [case_half_y - case_wall - checker_d, case_half_y / 2])
            translate([bar_at_right ? w - case_wall - 1 : -1, y - 7, -case_surface - case_cavity])
                cube([case_wall + 2, 14, case_cavity - 1]);
    }
}
// left half: the points, then its half of the bar (the bar strip) at the hinge
half(case_left_x, case_bar_left, true, false);
// right half: its half of the bar (the centre board) at the hinge, the points, the tray
translate([case_left_x + hinge_gap, 0, 0]) half(case_right_x, case_bar_right, false, true);
