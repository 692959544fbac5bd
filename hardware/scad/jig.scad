// Reed soldering jig for the point strip: lay it on the PCB (the strip's rim end against the
// stop, the PCB in the pocket underneath) and drop each reed into its window; the windows put
// one end of every reed's glass under its checker's centre (the offset in assembly.md).
include <params.scad>
plate = 3.0;
margin = 4.0;
clear = 0.3;
difference() {
    translate([-margin, -margin, 0]) cube([point_strip_l + 2 * margin, point_strip_w + 2 * margin, plate]);
    // the PCB pocket underneath (the strip is 1.6 mm thick; the pocket is 1.0 mm deep)
    translate([-clear, -clear, -1]) cube([point_strip_l + 2 * clear, point_strip_w + 2 * clear, 2.0]);
    for (s = [0 : slots_per_point - 1])
        translate([rim + checker_d * (s + 0.5) + reed_offset - (reed_len + clear) / 2,
                   point_strip_axis - (reed_w + clear) / 2, -1])
            cube([reed_len + clear, reed_w + clear, plate + 2]);
    // a relief over every other part (the JST SH header stands 2.9 mm, more than the
    // pocket's 1.0 mm and the plate above it): the jig lies flat on the strip, not on a part
    for (r = jig_reliefs)
        translate([r[0], r[1], -1]) cube([r[2] - r[0], r[3] - r[1], plate + 2]);
}
// the end stop at the rim end
translate([-margin, -margin, -1.6]) cube([margin - clear, point_strip_w + 2 * margin, 1.6 + plate]);
