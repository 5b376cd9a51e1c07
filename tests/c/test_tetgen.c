/* TetGen meshing: closed surfaces become positively oriented tet meshes of the same volume; open,
 * non-manifold, inside-out and self-intersecting surfaces and out-of-range options get a clear
 * error (never a crash or a hang); cavities stay empty. */
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
#include "geom/boundary.h"
#include "geom/mesh.h"
#include "geom/tetgen_bridge.h"
#include "geom/tetrahedralize.h"

#include "support/cl_asserts.h"

/* TetGen 1.5.0 does not free the work arrays of the routine that throws (e.g. about 50 KB from
 * constrainedfacets() on a self-intersection); the bridge cannot reach them. The sanitizer build
 * must not fail on that, so LeakSanitizer ignores leaks allocated inside libtet. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libtet.so\n"; }

/* Unit cube [0,1]^3 offset by o, 12 outward triangles appended to (x, t) at vertex offset base. */
static const int32_t CUBE_TRIS[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                         {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
static void cube(double *x, int32_t *t, int32_t base, double ox, double oy, double oz, double s) {
  static const double C[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  for (int i = 0; i < 8; ++i) {
    x[3 * i] = ox + s * C[i][0];
    x[3 * i + 1] = oy + s * C[i][1];
    x[3 * i + 2] = oz + s * C[i][2];
  }
  for (int f = 0; f < 12; ++f)
    for (int k = 0; k < 3; ++k) t[3 * f + k] = base + CUBE_TRIS[f][k];
}

static cl_mesh *cube_mesh(void) {
  double x[24];
  int32_t t[36];
  cube(x, t, 0, 0, 0, 0, 1);
  cl_mesh *m = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 8, t, 12, &m));
  return m;
}

static double tet_vol(const cl_mesh *m, int32_t c) {
  const int32_t *v = m->cells + 4 * c;
  const double *a = m->x + 3 * v[0], *b = m->x + 3 * v[1], *cc = m->x + 3 * v[2], *d = m->x + 3 * v[3];
  double u[3], w[3], z[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = b[k] - a[k];
    w[k] = cc[k] - a[k];
    z[k] = d[k] - a[k];
  }
  return (u[0] * (w[1] * z[2] - w[2] * z[1]) - u[1] * (w[0] * z[2] - w[2] * z[0]) + u[2] * (w[0] * z[1] - w[1] * z[0])) / 6;
}

static double surface_area(const cl_mesh *s) {
  double area = 0;
  for (int32_t t = 0; t < s->ncells; ++t) {
    const int32_t *v = s->cells + 3 * t;
    double e1[3], e2[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = s->x[3 * v[1] + k] - s->x[3 * v[0] + k];
      e2[k] = s->x[3 * v[2] + k] - s->x[3 * v[0] + k];
    }
    double n0 = e1[1] * e2[2] - e1[2] * e2[1], n1 = e1[2] * e2[0] - e1[0] * e2[2], n2 = e1[0] * e2[1] - e1[1] * e2[0];
    area += 0.5 * sqrt(n0 * n0 + n1 * n1 + n2 * n2);
  }
  return area;
}

static void test_defaults(void **state) {
  (void)state;
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  assert_true(d.max_radius_edge == 2.0);
  assert_true(d.max_volume == 0.0);
  assert_int_equal(d.max_steiner, -1);
  assert_int_equal(d.verbose, 0);
}

static void test_cube(void **state) {
  (void)state;
  cl_mesh *s = cube_mesh(), *m = NULL;
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  d.max_volume = 1e-3;
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  assert_int_equal(m->kind, CL_MESH_TETS);
  assert_true(m->ncells > 1000);
  double vol = 0, vmax = 0;
  for (int32_t c = 0; c < m->ncells; ++c) {
    double v = tet_vol(m, c);
    assert_true(v > 0); /* positively oriented */
    vol += v;
    vmax = fmax(vmax, v);
  }
  assert_near(vol, 1.0, 1e-12);
  /* TetGen's final smoothing may stretch a tet a little past the bound (0.03% seen here) */
  assert_true(vmax <= 1e-3 * 1.01);
  /* every point is used by some tet (unused points are compacted away) */
  char *used = calloc((size_t)m->npoints, 1);
  for (int32_t i = 0; i < 4 * m->ncells; ++i) used[m->cells[i]] = 1;
  for (int32_t i = 0; i < m->npoints; ++i) assert_true(used[i]);
  free(used);
  /* the boundary of the tet mesh is a closed surface of area 6 enclosing volume 1 */
  cl_mesh *b = NULL;
  assert_ok(cl_mesh_boundary(m, &b));
  assert_near(surface_area(b), 6.0, 1e-12);
  assert_ok(cl_mesh_check_closed(b));
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(b, &info));
  assert_near(info.measure, 1.0, 1e-12);
  int32_t ncomp = 0;
  assert_ok(cl_mesh_components(m, &ncomp));
  assert_int_equal(ncomp, 1);
  cl_mesh_destroy(b);
  cl_mesh_destroy(m);
  /* no quality bound and no volume bound: few tets, same volume */
  d.max_radius_edge = 0;
  d.max_volume = 0;
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  assert_true(m->ncells >= 5 && m->ncells < 50);
  cl_mesh_info ti;
  assert_ok(cl_mesh_get_info(m, &ti));
  assert_near(ti.measure, 1.0, 1e-12);
  cl_mesh_destroy(m);
  cl_mesh_destroy(s);
}

/* Graded meshes (cl_tetgen_def.zones): a unit cube with a size zone at one corner. Every tet's
 * longest edge stays within the bound the zone sets at its centroid (0.02 + 0.3 d, d the distance
 * to the corner; the zone measures from the tet's bounding box, which is nearer), the tets at the
 * corner are that small and those far from it much larger, and the whole mesh holds a small
 * fraction of the tets a uniform mesh at the fine size would. A thin box zone without growth
 * refines the slab it covers: big tets that reach into it are split although their centroids lie
 * outside. */
static void test_size_zones(void **state) {
  (void)state;
  cl_mesh *s = cube_mesh(), *m = NULL;
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  const cl_mesh_size_zone z = {.lo = {0, 0, 0}, .hi = {0, 0, 0}, .size = 0.02, .growth = 0.3};
  d.zones = &z;
  d.zone_count = 1;
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  double vol = 0, worst = 0, near_max = 0, far_min = INFINITY;
  for (int32_t c = 0; c < m->ncells; ++c) {
    const int32_t *v = m->cells + 4 * c;
    double g[3] = {0, 0, 0}, lmax = 0;
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) g[k] += 0.25 * m->x[3 * v[a] + k];
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        double e2 = 0;
        for (int k = 0; k < 3; ++k) e2 += (m->x[3 * v[a] + k] - m->x[3 * v[b] + k]) * (m->x[3 * v[a] + k] - m->x[3 * v[b] + k]);
        lmax = fmax(lmax, sqrt(e2));
      }
    const double dist = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    worst = fmax(worst, lmax / (0.02 + 0.3 * dist));
    if (dist < 0.02) near_max = fmax(near_max, lmax);
    if (dist > 1.2) far_min = fmin(far_min, lmax);
    vol += tet_vol(m, c);
  }
  print_message("  %d tets; longest edge / bound at most %.3f; near the corner <= %.4f m, far >= %.3f m\n", m->ncells,
                worst, near_max, far_min);
  assert_near(vol, 1.0, 1e-12);
  assert_true(worst <= 1.1);
  assert_true(near_max <= 1.1 * (0.02 + 0.3 * 0.02));
  assert_true(far_min > 0.1);
  /* a uniform mesh of 0.02 m edges: 1 / (0.02^3 / (6 sqrt 2)) ~ 1e6 regular tets */
  assert_true(m->ncells < 60000);
  cl_mesh_destroy(m);
  /* edges of 0.1 mm at the corner of a 1 m cube: tets of ~1e-13 m^3, which the mesh check once
   * called flat (its bound was 1e-14 of the mesh size cubed, 5e-14 m^3; now 1e-14 size lmax^2) */
  const cl_mesh_size_zone fine = {.lo = {0, 0, 0}, .hi = {0, 0, 0}, .size = 1e-4, .growth = 0.3};
  d.zones = &fine;
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  cl_mesh_destroy(m);
  d.zones = &z;
  /* a box zone with growth 0 refines inside the box only */
  const cl_mesh_size_zone slab = {.lo = {0, 0, 0.9}, .hi = {1, 1, 1}, .size = 0.08, .growth = 0};
  d.zones = &slab;
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  int32_t in_slab = 0, below = 0;
  for (int32_t c = 0; c < m->ncells; ++c) {
    const int32_t *v = m->cells + 4 * c;
    double gz = 0;
    for (int a = 0; a < 4; ++a) gz += 0.25 * m->x[3 * v[a] + 2];
    in_slab += gz > 0.9;
    below += gz < 0.5;
  }
  assert_true(in_slab > 4 * below);
  cl_mesh_destroy(m);
  /* bad zones: each named with its value */
  cl_mesh_size_zone bad = z;
  d.zones = &bad;
  bad.size = 0;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "zone 1: size = 0 m");
  bad = z;
  bad.growth = -1;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "zone 1: growth = -1");
  bad = z;
  bad.lo[1] = 0.5;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "lo[1] = 0.5 m is above hi[1] = 0 m");
  bad = z;
  bad.hi[2] = NAN;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "must be finite");
  bad = z;
  d.zones = NULL;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "zones NULL");
  d.zones = &bad;
  d.zone_count = -1;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "zone_count = -1");
  d.zone_count = 1;
  d.max_radius_edge = 0;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "need the quality refinement");
  d.max_radius_edge = 2;
  bad.size = 1e-3; /* 1 mm edges throughout the cube, ~1e10 tets: refused before TetGen runs */
  bad.hi[0] = bad.hi[1] = bad.hi[2] = 1;
  bad.growth = 0;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "size zones would give about");
  assert_null(m);
  cl_mesh_destroy(s);
}

/* The output is numbered along a Morton curve (geom/tetrahedralize.c): the input points keep their
 * indices, and consecutive tets are neighbours in space, so the mean distance between the centroids
 * of consecutive tets is a small multiple of the tet size (in TetGen's own order it is a sizeable
 * fraction of the cube: 0.53 on this mesh without the renumbering, 0.049 with it). */
static void test_spatial_order(void **state) {
  (void)state;
  cl_mesh *s = cube_mesh(), *m = NULL;
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  d.max_volume = 1e-4;
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  for (int32_t i = 0; i < s->npoints; ++i)
    for (int k = 0; k < 3; ++k) assert_true(m->x[3 * i + k] == s->x[3 * i + k]);
  double sum = 0.0, prev[3] = {0, 0, 0};
  for (int32_t c = 0; c < m->ncells; ++c) {
    double cen[3] = {0, 0, 0};
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) cen[k] += 0.25 * m->x[3 * m->cells[4 * c + a] + k];
    if (c > 0)
      sum += sqrt((cen[0] - prev[0]) * (cen[0] - prev[0]) + (cen[1] - prev[1]) * (cen[1] - prev[1]) +
                  (cen[2] - prev[2]) * (cen[2] - prev[2]));
    memcpy(prev, cen, sizeof prev);
  }
  const double mean = sum / (m->ncells - 1), h = cbrt(1e-4);
  print_message("  %d tets: mean distance between consecutive centroids %.3g (tet size %.3g)\n", m->ncells, mean, h);
  assert_true(mean < 2.0 * h);
  /* and Steiner points: consecutive points close too */
  double psum = 0.0;
  for (int32_t i = s->npoints + 1; i < m->npoints; ++i) {
    const double *a = m->x + 3 * (i - 1), *b = m->x + 3 * i;
    psum += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
  }
  assert_true(psum / (m->npoints - s->npoints - 1) < 3.0 * h);
  cl_mesh_destroy(m);
  cl_mesh_destroy(s);
}

static void test_bad_options(void **state) {
  (void)state;
  cl_mesh *s = cube_mesh(), *m = (cl_mesh *)1;
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  d.max_radius_edge = 0.8;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "max_radius_edge = 0.8");
  assert_null(m);
  d.max_radius_edge = NAN;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "max_radius_edge");
  cl_tetgen_def_default(&d);
  d.min_dihedral = 70;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "min_dihedral = 70");
  d.min_dihedral = -1;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "[0, 70)");
  cl_tetgen_def_default(&d);
  d.max_volume = -1e-3;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "max_volume");
  d.max_volume = INFINITY;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "max_volume");
  d.max_volume = 1e-12; /* 1e12 tets for a unit cube: refused before TetGen runs out of memory */
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "would give more than");
  cl_tetgen_def_default(&d);
  d.max_steiner = -2;
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_INVALID_ARGUMENT, "max_steiner");
  assert_error(cl_mesh_tetrahedralize(s, NULL, &m), CL_ERR_INVALID_ARGUMENT, "def is NULL");
  /* a dihedral bound and a Steiner cap are passed through and still give a valid mesh */
  cl_tetgen_def_default(&d);
  d.min_dihedral = 10;
  d.max_steiner = 100;
  d.max_volume = 1e-2;
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  assert_true(m->npoints <= 8 + 100);
  cl_mesh_destroy(m);
  cl_mesh_destroy(s);
}

/* Quality bounds TetGen cannot meet make it add Steiner points without end; the automatic cap
 * stops it, and the result comes back with a warning instead of a hang. */
static void test_strict_quality_terminates(void **state) {
  (void)state;
  cl_mesh *s = cube_mesh(), *m = NULL;
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  d.max_radius_edge = 1.0; /* runs forever in TetGen 1.5 without a cap */
  d.max_volume = 1e-3;
  cl_status st = cl_mesh_tetrahedralize(s, &d, &m);
  if (st != CL_WARN_NOT_CONVERGED) fail_msg("expected CL_WARN_NOT_CONVERGED, got %s: %s", cl_status_name(st), cl_last_error());
  assert_non_null(strstr(cl_last_error(), "Steiner points"));
  assert_non_null(m);
  assert_ok(cl_mesh_validate(m, "capped"));
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(m, &info));
  assert_near(info.measure, 1.0, 1e-12);
  cl_mesh_destroy(m);
  /* a cap from the caller is honoured silently */
  d.max_steiner = 500;
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  assert_int_equal(m->npoints, 8 + 500);
  cl_mesh_destroy(m);
  cl_mesh_destroy(s);
}

static void test_open_and_nonmanifold(void **state) {
  (void)state;
  double x[48];
  int32_t t[72];
  cube(x, t, 0, 0, 0, 0, 1);
  cl_mesh *s = NULL, *m = NULL;
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  /* one triangle missing: edges of its neighbours belong to one triangle only */
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 8, t + 3, 11, &s));
  assert_error(cl_mesh_check_closed(s), CL_ERR_MESH, "not closed");
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_MESH, "not closed");
  assert_null(m);
  /* the message gives the edge's vertex indices and coordinates */
  assert_non_null(strstr(cl_last_error(), "edge (0, 2)"));
  assert_non_null(strstr(cl_last_error(), "(1, 1, 0)"));
  cl_mesh_destroy(s);
  /* one triangle flipped: two triangles run an edge the same way */
  int32_t tf[36];
  memcpy(tf, t, sizeof tf);
  int32_t tmp = tf[1];
  tf[1] = tf[2];
  tf[2] = tmp;
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 8, tf, 12, &s));
  assert_error(cl_mesh_check_closed(s), CL_ERR_MESH, "orientation is inconsistent");
  cl_mesh_destroy(s);
  /* every triangle flipped: consistently inside out */
  for (int f = 0; f < 12; ++f) {
    tf[3 * f] = t[3 * f];
    tf[3 * f + 1] = t[3 * f + 2];
    tf[3 * f + 2] = t[3 * f + 1];
  }
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 8, tf, 12, &s));
  assert_ok(cl_mesh_check_closed(s));
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_MESH, "inside out");
  cl_mesh_destroy(s);
  /* two cubes sharing the edge (1, 5): the edge belongs to four triangles */
  cube(x + 24, t + 36, 8, 1, -1, 0, 1);
  int32_t tt[72];
  memcpy(tt, t, sizeof tt);
  for (int i = 36; i < 72; ++i) {
    /* second cube's vertex 3 (1, 0, 0) and 7 (1, 0, 1) are the first cube's 1 and 5 */
    if (tt[i] == 8 + 3) tt[i] = 1;
    else if (tt[i] == 8 + 7) tt[i] = 5;
  }
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 16, tt, 24, &s));
  assert_error(cl_mesh_check_closed(s), CL_ERR_MESH, "not edge-manifold");
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_MESH, "shared by 4 triangles");
  cl_mesh_destroy(s);
  /* not a surface at all */
  cl_mesh *pts = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_POINTS, x, 8, NULL, 0, &pts));
  assert_error(cl_mesh_tetrahedralize(pts, &d, &m), CL_ERR_INVALID_ARGUMENT, "triangle surface is needed");
  assert_error(cl_mesh_check_closed(pts), CL_ERR_INVALID_ARGUMENT, "triangle surface is needed");
  cl_mesh_destroy(pts);
}

static void test_self_intersection(void **state) {
  (void)state;
  double x[48];
  int32_t t[72];
  cube(x, t, 0, 0, 0, 0, 1);
  cube(x + 24, t + 36, 8, 0.5, 0.5, 0.5, 1); /* overlaps the first cube */
  cl_mesh *s = NULL, *m = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 16, t, 24, &s));
  assert_ok(cl_mesh_check_closed(s)); /* each cube is closed: only the intersection test catches it */
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  assert_error(cl_mesh_tetrahedralize(s, &d, &m), CL_ERR_MESH, "self-intersects");
  assert_null(m);
  assert_non_null(strstr(cl_last_error(), "triangle"));
  /* TetGen itself, given the same input, throws; the bridge turns that into an error, not a crash */
  double *xo = NULL;
  int32_t *to = NULL, np = 0, nt = 0;
  cl_status st = cl_tetgen_run(x, 16, t, 24, NULL, 0, "pzQ", NULL, &xo, &np, &to, &nt);
  assert_true(st == CL_ERR_MESH || st == CL_ERR_EXTERNAL);
  assert_non_null(strstr(cl_last_error(), "TetGen"));
  assert_null(xo);
  assert_null(to);
  cl_mesh_destroy(s);
  /* disjoint cubes are fine: two components */
  cube(x + 24, t + 36, 8, 2, 0, 0, 1);
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 16, t, 24, &s));
  assert_ok(cl_surface_check_self_intersections(s));
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  int32_t nc = 0;
  assert_ok(cl_mesh_components(m, &nc));
  assert_int_equal(nc, 2);
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(m, &info));
  assert_near(info.measure, 2.0, 1e-12);
  cl_mesh_destroy(m);
  cl_mesh_destroy(s);
  /* a vertex of one cube pushed through a far face of the same cube: the triangles around it
   * (sharing only that vertex with some, nothing with others) cross the opposite face */
  cube(x, t, 0, 0, 0, 0, 1);
  x[3 * 6 + 0] = -0.5; /* vertex 6 (1, 1, 1) to (-0.5, 1, 1): through the x = 0 face */
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 8, t, 12, &s));
  assert_error(cl_surface_check_self_intersections(s), CL_ERR_MESH, "self-intersects");
  cl_mesh_destroy(s);
}

static void test_segment_triangle(void **state) {
  (void)state;
  const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
  const double p[3] = {0.2, 0.2, -1}, q[3] = {0.2, 0.2, 1}, r[3] = {0.2, 0.2, 0.5}, far[3] = {2, 2, -1}, far2[3] = {2, 2, 1};
  assert_true(cl_segment_triangle_intersect(p, q, a, b, c, 0));
  assert_false(cl_segment_triangle_intersect(r, q, a, b, c, 0));
  assert_false(cl_segment_triangle_intersect(far, far2, a, b, c, 0));
  /* coplanar: crossing an edge, and lying outside */
  const double s0[3] = {-0.5, 0.3, 0}, s1[3] = {0.5, 0.3, 0}, s2[3] = {-0.5, -0.3, 0}, s3[3] = {-0.1, -0.3, 0};
  assert_true(cl_segment_triangle_intersect(s0, s1, a, b, c, 1e-12));
  assert_false(cl_segment_triangle_intersect(s2, s3, a, b, c, 1e-12));
}

static void test_degenerate_triangle(void **state) {
  (void)state;
  /* a closed tetrahedron-shaped surface whose fourth vertex lies on the plane of the others */
  double x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.5, 0.5, 0};
  int32_t t[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};
  cl_mesh *s = NULL, *m = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 4, t, 4, &s));
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  cl_status st = cl_mesh_tetrahedralize(s, &d, &m);
  assert_int_equal(st, CL_ERR_MESH);
  assert_null(m);
  cl_mesh_destroy(s);
}

static void test_hollow_sphere_cavity(void **state) {
  (void)state;
  cl_shape_def sd;
  cl_shape_def_default(&sd, CL_SHAPE_HOLLOW_SPHERE);
  sd.radius = 1.0;
  sd.inner_radius = 0.6;
  sd.subdivisions = 2;
  cl_mesh *s = NULL, *m = NULL;
  assert_ok(cl_shape_build(&sd, &s));
  cl_mesh_info si;
  assert_ok(cl_mesh_get_info(s, &si));
  cl_tetgen_def d;
  cl_tetgen_def_default(&d);
  assert_ok(cl_mesh_tetrahedralize(s, &d, &m));
  cl_mesh_info ti;
  assert_ok(cl_mesh_get_info(m, &ti));
  /* the tets fill the shell exactly: outer polyhedron minus inner polyhedron */
  assert_near(ti.measure, si.measure, 1e-9 * si.measure);
  for (int32_t c = 0; c < m->ncells; ++c) {
    double g[3] = {0, 0, 0};
    for (int k = 0; k < 4; ++k)
      for (int q = 0; q < 3; ++q) g[q] += 0.25 * m->x[3 * m->cells[4 * c + k] + q];
    /* the inscribed inner polyhedron reaches down to 0.6 * cos(half the edge angle) */
    assert_true(sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) > 0.5);
  }
  /* the boundary is both shells (refined by TetGen's Steiner points): its enclosed volume is the
   * shell's, its area the sum of both spheres' */
  cl_mesh *b = NULL;
  assert_ok(cl_mesh_boundary(m, &b));
  cl_mesh_info bi;
  assert_ok(cl_mesh_get_info(b, &bi));
  assert_near(bi.measure, si.measure, 1e-9 * si.measure);
  assert_ok(cl_mesh_check_closed(b));
  cl_mesh_destroy(b);
  int32_t ncomp = 0;
  assert_ok(cl_mesh_components(m, &ncomp));
  assert_int_equal(ncomp, 1);
  cl_mesh_destroy(m);
  cl_mesh_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_cube),
      cmocka_unit_test(test_spatial_order),
      cmocka_unit_test(test_size_zones),
      cmocka_unit_test(test_bad_options),
      cmocka_unit_test(test_strict_quality_terminates),
      cmocka_unit_test(test_open_and_nonmanifold),
      cmocka_unit_test(test_self_intersection),
      cmocka_unit_test(test_segment_triangle),
      cmocka_unit_test(test_degenerate_triangle),
      cmocka_unit_test(test_hollow_sphere_cavity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
