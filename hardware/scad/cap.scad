// The cap that closes a checker's magnet pocket (press-fit into the recess of checker.scad).
include <params.scad>
$fn = 64;
cylinder(d = magnet_d + 6 - 0.3, h = 1.0);
