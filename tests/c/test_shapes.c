/* Procedural shapes: every kind is a closed, outward, edge-manifold surface without
 * self-intersections that TetGen meshes, and its tet volume matches the analytic volume (exactly
 * for prisms, to the discretisation error for round shapes). Bad parameters get a clear error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/mesh.h"
#include "geom/contains.h"
#include "geom/mesh.h"
#include "geom/tetrahedralize.h"

#include "support/cl_asserts.h"

static const double PI = 3.14159265358979323846;

/* Build, check the surface, tetrahedralize with default options; returns the tet volume and the
 * surface's enclosed volume. */
static void build_and_mesh(const cl_shape_def *d, double max_volume, double *tet_volume, double *surf_volume,
                           cl_mesh **surface_out) {
  cl_mesh *s = NULL, *m = NULL;
  assert_ok(cl_shape_build(d, &s));
  assert_int_equal(s->kind, CL_MESH_TRIANGLES);
  assert_ok(cl_mesh_check_closed(s));
  assert_ok(cl_surface_check_self_intersections(s));
  cl_mesh_info si, ti;
  assert_ok(cl_mesh_get_info(s, &si));
  assert_true(si.measure > 0); /* outward */
  /* centred at the origin */
  for (int k = 0; k < 3; ++k) assert_near(0.5 * (si.lo[k] + si.hi[k]), 0.0, 1e-12 * (si.hi[k] - si.lo[k]) + 1e-15);
  cl_tetgen_def td;
  cl_tetgen_def_default(&td);
  td.max_volume = max_volume;
  assert_ok(cl_mesh_tetrahedralize(s, &td, &m));
  assert_ok(cl_mesh_get_info(m, &ti));
  /* TetGen keeps the boundary (it may merge nearly coplanar triangles of the heart into one facet
   * and put Steiner points on it, which moves the volume by a few 1e-8) */
  assert_near(ti.measure, si.measure, 1e-7 * si.measure);
  *tet_volume = ti.measure;
  *surf_volume = si.measure;
  cl_mesh_destroy(m);
  if (surface_out) *surface_out = s;
  else cl_mesh_destroy(s);
}

static void test_box_and_plate(void **state) {
  (void)state;
  cl_shape_def d;
  double tv, sv;
  cl_shape_def_default(&d, CL_SHAPE_BOX);
  assert_true(d.size[0] == 1 && d.size[1] == 1 && d.size[2] == 1);
  d.size[0] = 0.4;
  d.size[1] = 0.1;
  d.size[2] = 0.2;
  build_and_mesh(&d, 0, &tv, &sv, NULL);
  assert_near(tv, 0.4 * 0.1 * 0.2, 1e-15);
  cl_shape_def_default(&d, CL_SHAPE_PLATE);
  d.size[0] = 0.3;
  d.size[1] = 0.2;
  d.size[2] = 0.004;
  build_and_mesh(&d, 0, &tv, &sv, NULL);
  assert_near(tv, 0.3 * 0.2 * 0.004, 1e-15);
}

static void test_cylinder(void **state) {
  (void)state;
  cl_shape_def d;
  double tv, sv;
  cl_shape_def_default(&d, CL_SHAPE_CYLINDER);
  d.radius = 0.1;
  d.height = 0.5;
  d.segments = 48;
  build_and_mesh(&d, 0, &tv, &sv, NULL);
  /* the inscribed 48-gon prism exactly; the circle to its discretisation error */
  double polygon = 0.5 * d.segments * d.radius * d.radius * sin(2 * PI / d.segments);
  assert_near(tv, polygon * d.height, 1e-12);
  assert_near(tv, PI * d.radius * d.radius * d.height, 0.003 * PI * d.radius * d.radius * d.height);
}

static void test_spheres(void **state) {
  (void)state;
  cl_shape_def d;
  double tv, sv;
  cl_mesh *s = NULL;
  cl_shape_def_default(&d, CL_SHAPE_ICOSPHERE);
  d.radius = 0.2;
  d.subdivisions = 3;
  build_and_mesh(&d, 0, &tv, &sv, &s);
  assert_int_equal(s->ncells, 20 * 64);
  assert_int_equal(s->npoints, 10 * 64 + 2);
  for (int32_t i = 0; i < s->npoints; ++i) {
    const double *p = s->x + 3 * i;
    assert_near(sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), 0.2, 1e-12);
  }
  cl_mesh_destroy(s);
  double ball = 4.0 / 3.0 * PI * 0.008;
  assert_near(tv, ball, 0.02 * ball); /* level 3: about 1.3% below the sphere */
  d.subdivisions = 4;
  build_and_mesh(&d, 0, &tv, &sv, NULL);
  assert_near(tv, ball, 0.005 * ball);

  cl_shape_def_default(&d, CL_SHAPE_HOLLOW_SPHERE);
  d.radius = 0.2;
  d.inner_radius = 0.15;
  d.subdivisions = 3;
  build_and_mesh(&d, 0, &tv, &sv, NULL);
  double shell = 4.0 / 3.0 * PI * (0.008 - 0.15 * 0.15 * 0.15);
  assert_near(tv, shell, 0.02 * shell);
}

/* The ISO 148-1 notch cross-section: a V of half-angle a whose flanks meet a root circle of radius
 * rho; the V triangle from the top face down to the flanks' apex, minus what the root cuts off
 * (the kite apex-tangent-centre-tangent less the circular sector). */
static double charpy_notch_area(double depth, double angle_deg, double rho) {
  double a = 0.5 * angle_deg * PI / 180;
  double hv = depth + rho / sin(a) - rho; /* top face to the apex of the flanks */
  double v = hv * hv * tan(a);
  double cut = rho * rho / tan(a) - 0.5 * rho * rho * (PI - 2 * a);
  return v - cut;
}

static void test_charpy(void **state) {
  (void)state;
  cl_shape_def d;
  double tv, sv;
  cl_mesh *s = NULL;
  cl_shape_def_default(&d, CL_SHAPE_CHARPY);
  assert_true(d.scale == 1.0 && d.notch_depth == 0.002 && d.notch_angle == 45 && d.notch_root_radius == 0.00025);
  d.segments = 16;
  build_and_mesh(&d, 2e-9, &tv, &sv, &s);
  double exact = 0.055 * 0.010 * 0.010 - charpy_notch_area(0.002, 45, 0.00025) * 0.010;
  /* the arc is resolved by 16 points: the inscribed polygon leaves a sliver of 1e-6 relative */
  assert_near(tv, exact, 1e-5 * exact);
  cl_mesh_info si;
  assert_ok(cl_mesh_get_info(s, &si));
  assert_near(si.hi[0] - si.lo[0], 0.055, 1e-15);
  assert_near(si.hi[1] - si.lo[1], 0.010, 1e-15);
  assert_near(si.hi[2] - si.lo[2], 0.010, 1e-15);
  /* the root of the notch is 2 mm below the top face, at mid-length */
  double root = INFINITY;
  for (int32_t i = 0; i < s->npoints; ++i)
    if (fabs(s->x[3 * i]) < 0.001 && s->x[3 * i + 1] > 0) root = fmin(root, s->x[3 * i + 1]);
  assert_near(root, 0.005 - 0.002, 1e-12);
  /* material below the root, none just above it */
  int32_t in = 0;
  double below[3] = {0, 0.0029, 0}, above[3] = {0, 0.0031, 0};
  assert_ok(cl_mesh_contains(s, below, &in));
  assert_int_equal(in, 1);
  assert_ok(cl_mesh_contains(s, above, &in));
  assert_int_equal(in, 0);
  cl_mesh_destroy(s);
  /* scale multiplies every length */
  d.scale = 2.0;
  build_and_mesh(&d, 0, &tv, &sv, NULL);
  assert_near(tv, 8 * exact, 1e-5 * 8 * exact);
}

static void test_notched_beam(void **state) {
  (void)state;
  cl_shape_def d;
  double tv, sv;
  cl_mesh *s = NULL;
  cl_shape_def_default(&d, CL_SHAPE_NOTCHED_BEAM);
  assert_near(d.size[0], 0.175, 0);
  assert_near(d.notch_depth, 0.025, 0);
  build_and_mesh(&d, 0, &tv, &sv, &s);
  assert_near(tv, 0.175 * 0.05 * 0.05 - d.notch_width * d.notch_depth * 0.05, 1e-15);
  /* a point in the slot is outside, beside it inside */
  int32_t in = 1;
  double slot[3] = {0, 0.02, 0}, beside[3] = {0.002, 0.02, 0};
  assert_ok(cl_mesh_contains(s, slot, &in));
  assert_int_equal(in, 0);
  assert_ok(cl_mesh_contains(s, beside, &in));
  assert_int_equal(in, 1);
  cl_mesh_destroy(s);
  /* a V notch (width 0) with a sharp tip, and with a root radius */
  d.notch_width = 0;
  d.notch_angle = 90;
  d.notch_root_radius = 0;
  build_and_mesh(&d, 0, &tv, &sv, NULL);
  assert_near(tv, 0.175 * 0.05 * 0.05 - 0.025 * 0.025 * 0.05, 1e-15);
  d.notch_root_radius = 0.001;
  build_and_mesh(&d, 0, &tv, &sv, NULL);
  double exact = 0.175 * 0.05 * 0.05 - charpy_notch_area(0.025, 90, 0.001) * 0.05;
  assert_near(tv, exact, 1e-4 * exact);
}

static void test_heart(void **state) {
  (void)state;
  cl_shape_def d;
  double tv, sv;
  cl_mesh *s = NULL;
  cl_shape_def_default(&d, CL_SHAPE_HEART);
  d.segments = 24;
  build_and_mesh(&d, 0, &tv, &sv, &s);
  cl_mesh_info si;
  assert_ok(cl_mesh_get_info(s, &si));
  for (int k = 0; k < 3; ++k) assert_near(si.hi[k] - si.lo[k], d.size[k], 1e-12);
  int32_t nc = 0;
  assert_ok(cl_mesh_components(s, &nc));
  assert_int_equal(nc, 1);
  /* Taubin's heart fills 3.345 of its 2.265 x 2.23 x 1.35 bounding box (a fine voxel count); the
   * inscribed polyhedron (a level-3 icosphere projected onto it) is within a few percent */
  double fraction = 3.345 / (2.265 * 2.2275 * 1.35);
  double expect = fraction * d.size[0] * d.size[1] * d.size[2];
  assert_near(tv, expect, 0.04 * expect);
  /* the dimple between the lobes at the top centre is outside, the lobes inside */
  int32_t in = 1;
  double dimple[3] = {0, si.hi[1] - 0.05 * d.size[1], 0}, lobe[3] = {0.25 * d.size[0], 0.2 * d.size[1], 0};
  assert_ok(cl_mesh_contains(s, dimple, &in));
  assert_int_equal(in, 0);
  assert_ok(cl_mesh_contains(s, lobe, &in));
  assert_int_equal(in, 1);
  cl_mesh_destroy(s);
}

static void test_bad_parameters(void **state) {
  (void)state;
  cl_shape_def d;
  cl_mesh *s = (cl_mesh *)1;
  cl_shape_def_default(&d, CL_SHAPE_BOX);
  d.size[1] = -1;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "size[1] = -1");
  assert_null(s);
  d.size[1] = NAN;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "size[1]");
  cl_shape_def_default(&d, CL_SHAPE_CYLINDER);
  d.segments = 2;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "segments = 2");
  d.segments = 16;
  d.radius = 0;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "radius");
  cl_shape_def_default(&d, CL_SHAPE_ICOSPHERE);
  d.subdivisions = 8;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "subdivisions = 8");
  cl_shape_def_default(&d, CL_SHAPE_HOLLOW_SPHERE);
  d.inner_radius = d.radius;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "inner_radius");
  cl_shape_def_default(&d, CL_SHAPE_CHARPY);
  d.notch_depth = 0.02;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "notch_depth = 0.02");
  cl_shape_def_default(&d, CL_SHAPE_CHARPY);
  d.scale = 0;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "scale = 0");
  cl_shape_def_default(&d, CL_SHAPE_CHARPY);
  d.notch_angle = 180;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "notch_angle = 180");
  cl_shape_def_default(&d, CL_SHAPE_CHARPY);
  d.notch_root_radius = 0.004; /* the flanks would meet the root circle above the top face */
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "notch_root_radius");
  cl_shape_def_default(&d, CL_SHAPE_NOTCHED_BEAM);
  d.notch_width = 0.2;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "notch_width = 0.2");
  cl_shape_def_default(&d, CL_SHAPE_HEART);
  d.segments = 2;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "segments = 2");
  cl_shape_def_default(&d, CL_SHAPE_BOX);
  d.kind = (cl_shape_kind)42;
  assert_error(cl_shape_build(&d, &s), CL_ERR_INVALID_ARGUMENT, "shape kind 42");
  assert_error(cl_shape_build(NULL, &s), CL_ERR_INVALID_ARGUMENT, "def is NULL");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_box_and_plate), cmocka_unit_test(test_cylinder),     cmocka_unit_test(test_spheres),
      cmocka_unit_test(test_charpy),        cmocka_unit_test(test_notched_beam), cmocka_unit_test(test_heart),
      cmocka_unit_test(test_bad_parameters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
