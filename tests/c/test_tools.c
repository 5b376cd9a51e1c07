/* The sculpting tools (cleave/world.h "sculpting tools", world/tools.c): a knife stroke through a
 * graph_fem bar splits it in two and breaks exactly the edges that cross the surface its blade swept
 * (against a brute-force count with geom's own segment-triangle test), also when a step crosses a
 * corner of its path; a knife that misses cuts nothing and says so once; knife events and a
 * criterion's events go through one fracture call; a brush moves the nodes under it with its
 * displacement and no others; an anchor holds from its start time and not before; brushes and
 * anchors work on every solver, knives only where the solver applies cut_surface events (the error
 * names the solvers that do); bad input is a clear error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "geom/tetrahedralize.h"
#include "solvers/graph_fem/gfem.h"
#include "support/cl_asserts.h"
#include "support/double_solver.h"
#include "support/test_worlds.h"
#include "world/world.h"

/* The bar: 0.4 x 0.1 x 0.1 m, 16 x 4 x 4 cells of 6 tets (1536 tets, 425 nodes). */
static const double k_lo[3] = {0.0, 0.0, 0.0};
static const double k_hi[3] = {0.4, 0.1, 0.1};

static int setup(void **state) {
  (void)state;
  return cl_double_register() == CL_OK ? 0 : -1;
}

static cl_id bar(cl_world *w, const char *solver, const char *criterion, const cl_param *cparams, int32_t ncparams) {
  cl_mesh *m = NULL;
  assert_ok(cl_tet_grid(16, 4, 4, k_lo, k_hi, &m));
  const cl_id b = cl_test_add_body(w, solver, m, NULL, 0, criterion, cparams, ncparams);
  cl_mesh_destroy(m);
  return b;
}

static double stat(cl_world *w, cl_id b, const char *name) {
  double v = -1.0;
  assert_ok(cl_body_get_stat(w, b, name, &v));
  return v;
}

static int32_t pieces(cl_world *w, cl_id b) {
  cl_body_info info;
  assert_ok(cl_body_get_info(w, b, &info));
  return info.pieces;
}

/* An anchor holding the bar's nodes with x <= x_max from `start` (s) on. */
static cl_id anchor_end(cl_world *w, cl_id b, double x_max, double start) {
  cl_region_def end;
  cl_region_def_default(&end, CL_REGION_SLAB);
  end.axis = 0;
  end.hi[0] = x_max;
  cl_anchor_def a;
  cl_anchor_def_default(&a);
  a.start = start;
  cl_id anchor = 0;
  assert_ok(cl_world_add_anchor(w, b, &end, &a, &anchor));
  return anchor;
}

/* A knife whose blade runs along z from z = -0.05 to 0.15 (relative to its position), moving along
 * the path's rows (t, x, y, z). */
static cl_id knife_on_path(cl_world *w, cl_id b, const double *path, int32_t rows) {
  cl_knife_def k;
  cl_knife_def_default(&k);
  const double blade[6] = {0.0, 0.0, -0.05, 0.0, 0.0, 0.15};
  memcpy(k.blade, blade, sizeof blade);
  k.path = path;
  k.path_count = rows;
  cl_id id = 0;
  assert_ok(cl_world_add_knife(w, b, &k, &id));
  return id;
}

/* Brute force: the edges of the graph_fem body (its edge list) that cross one of the `nquads`
 * parallelograms the blade (z from -0.05 to 0.15 about the knife) sweeps between successive points
 * of `pts` (3 each), by geom's segment-triangle test; marks them in `hit`, returns their count. */
static int32_t edges_crossing(const cl_gfem *g, const cl_body_state *st, const double *pts, int32_t npts, uint8_t *hit) {
  int32_t n = 0;
  for (int32_t k = 0; k < g->nedges; ++k) {
    const double *p = st->x + 3 * (size_t)g->edge[2 * k], *q = st->x + 3 * (size_t)g->edge[2 * k + 1];
    hit[k] = 0;
    for (int32_t s = 0; s + 1 < npts && !hit[k]; ++s) {
      const double *c0 = pts + 3 * s, *c1 = pts + 3 * (s + 1);
      const double A0[3] = {c0[0], c0[1], c0[2] - 0.05}, B0[3] = {c0[0], c0[1], c0[2] + 0.15};
      const double A1[3] = {c1[0], c1[1], c1[2] - 0.05}, B1[3] = {c1[0], c1[1], c1[2] + 0.15};
      hit[k] = cl_segment_triangle_intersect(p, q, A0, B0, B1, 0.0) || cl_segment_triangle_intersect(p, q, A0, B1, A1, 0.0);
    }
    n += hit[k];
  }
  return n;
}

/* The broken edges of the graph_fem body are exactly those marked in hit. */
static void assert_broken_are(const cl_gfem *g, const uint8_t *hit) {
  for (int32_t k = 0; k < g->nedges; ++k)
    if ((g->damage[k] >= 1.0) != (hit[k] != 0))
      fail_msg("edge %d (%d-%d): damage %g, brute force says %s", k, g->edge[2 * k], g->edge[2 * k + 1], g->damage[k],
               hit[k] ? "crossed" : "not crossed");
}

/* ---- knives ----------------------------------------------------------------------------------- */

/* A stroke down through the whole section at x = 0.1037 (between grid planes): two pieces, and the
 * broken edges are the brute-force set. 10 steps of motion and one more that sweeps the last stretch
 * again (each step sweeps from one step back): 22 triangles. */
static void test_knife_splits_bar(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_id b = bar(w, "graph_fem", NULL, NULL, 0);
  const double x0 = 0.1037, z0 = 0.0013;
  const double path[8] = {0.0, x0, 0.1521, z0, 0.1, x0, -0.0507, z0};
  const cl_id k = knife_on_path(w, b, path, 2);
  assert_int_equal(pieces(w, b), 1);
  int32_t events = 0;
  for (int s = 0; s < 12; ++s) {
    assert_ok(cl_world_step(w, 1));
    cl_world_stats ws;
    assert_ok(cl_world_get_stats(w, &ws));
    events += ws.fracture_events;
  }
  assert_int_equal(pieces(w, b), 2);
  cl_tool_info info;
  assert_ok(cl_tool_get_info(w, k, &info));
  assert_int_equal(info.kind, CL_TOOL_KNIFE);
  assert_true(info.started && info.finished && info.touched);
  assert_int_equal(info.triangles, 22);
  assert_near(info.position[1], -0.0507, 1e-15);
  assert_near(info.blade[5], z0 + 0.15, 1e-15);

  const cl_gfem *g = cl_test_body_solver(w, b);
  const cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < 3 * st->n; ++i) assert_near(st->x[i], st->X[i], 1e-12); /* no gravity: at rest */
  uint8_t *hit = malloc((size_t)g->nedges);
  const double pts[6] = {x0, 0.1521, z0, x0, -0.0507, z0};
  const int32_t expected = edges_crossing(g, st, pts, 2, hit);
  /* every edge crossing the plane x = x0 inside the section: 5 x 5 along x, plus diagonals */
  assert_true(expected > 25);
  assert_int_equal((int32_t)stat(w, b, "broken_edges"), expected);
  assert_broken_are(g, hit);
  /* the events that cut something were counted by the world */
  assert_true(events >= 2 && events <= 22);
  free(hit);
  cl_world_destroy(w);
}

/* A stroke that stops half way down and turns along x inside one step (dt = 0.05 s across the
 * corner at t = 0.07 s): one piece, and the broken edges are those crossing the two legs' surfaces,
 * not the chord's. */
static void test_knife_partial_path_corner(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.05, 0.0, 1);
  const cl_id b = bar(w, "graph_fem", NULL, NULL, 0);
  const double z0 = 0.0013;
  const double path[12] = {0.0, 0.1037, 0.1521, z0, 0.07, 0.1037, 0.0461, z0, 0.12, 0.2213, 0.0461, z0};
  knife_on_path(w, b, path, 3);
  for (int s = 0; s < 4; ++s) assert_ok(cl_world_step(w, 1));
  assert_int_equal(pieces(w, b), 1);
  const cl_gfem *g = cl_test_body_solver(w, b);
  const cl_body_state *st = cl_world_body_state(w, b);
  uint8_t *hit = malloc((size_t)g->nedges);
  const double pts[9] = {0.1037, 0.1521, z0, 0.1037, 0.0461, z0, 0.2213, 0.0461, z0};
  const int32_t expected = edges_crossing(g, st, pts, 3, hit);
  assert_true(expected > 0);
  assert_int_equal((int32_t)stat(w, b, "broken_edges"), expected);
  assert_broken_are(g, hit);
  /* the step from 0.05 to 0.1 s holds the corner: its chord would have cut other edges */
  const double y5 = 0.1521 - (0.1521 - 0.0461) * 0.05 / 0.07, x10 = 0.1037 + (0.2213 - 0.1037) * 0.03 / 0.05;
  const double chord[12] = {0.1037, 0.1521, z0, 0.1037, y5, z0, x10, 0.0461, z0, 0.2213, 0.0461, z0};
  uint8_t *other = malloc((size_t)g->nedges);
  edges_crossing(g, st, chord, 4, other);
  assert_true(memcmp(hit, other, (size_t)g->nedges) != 0);
  free(other);
  free(hit);
  cl_world_destroy(w);
}

/* A knife passing above the bar: nothing is cut; the step after its path ends (its last sweep)
 * returns CL_WARN_NO_EFFECT naming the knife and the body's bounds, once. */
static void test_knife_that_misses(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_id b = bar(w, "graph_fem", NULL, NULL, 0);
  const double path[8] = {0.0, 0.05, 0.3, 0.0, 0.05, 0.35, 0.3, 0.0};
  const cl_id k = knife_on_path(w, b, path, 2);
  cl_status s = CL_OK;
  int32_t step = 0;
  while (s == CL_OK && step < 20) s = cl_world_step(w, 1), ++step;
  assert_int_equal(s, CL_WARN_NO_EFFECT);
  assert_int_equal(step, 6);
  assert_non_null(strstr(cl_last_error(), "without cutting anything"));
  assert_non_null(strstr(cl_last_error(), "bounding box"));
  assert_ok(cl_world_step(w, 10)); /* once */
  cl_tool_info info;
  assert_ok(cl_tool_get_info(w, k, &info));
  assert_true(info.finished && !info.touched);
  assert_int_equal(info.triangles, 12);
  assert_int_equal((int32_t)stat(w, b, "broken_edges"), 0);
  assert_int_equal(pieces(w, b), 1);
  cl_world_destroy(w);
}

/* A criterion's events and a knife's go through the same fracture call: the step counts both, and
 * both take effect. The edge recorder frees cell 0's first node (a corner cell's node) on the first
 * step; the knife cuts at x = 0.3037 in the same step. */
static void test_knife_and_criterion_merge(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_param raise[2] = {{"raise_unit", 0, NULL}, {"repeat", 0, NULL}};
  const cl_id b = bar(w, "graph_fem", "test_edge_recorder", raise, 2);
  const double path[8] = {0.0, 0.3037, 0.1521, 0.0013, 0.01, 0.3037, -0.0507, 0.0013};
  knife_on_path(w, b, path, 2);
  assert_ok(cl_world_step(w, 1));
  cl_world_stats ws;
  assert_ok(cl_world_get_stats(w, &ws));
  const cl_gfem *g = cl_test_body_solver(w, b);
  const cl_body_state *st = cl_world_body_state(w, b);
  uint8_t *hit = malloc((size_t)g->nedges);
  const double pts[6] = {0.3037, 0.1521, 0.0013, 0.3037, -0.0507, 0.0013};
  const int32_t cut = edges_crossing(g, st, pts, 2, hit);
  const int32_t node = st->cells[0];
  int32_t at_origin = 0;
  for (int32_t k = 0; k < g->nedges; ++k) at_origin += g->edge[2 * k] == node || g->edge[2 * k + 1] == node;
  /* both triangles cut something, and each of node 0's edges was one damage event */
  assert_int_equal(ws.fracture_events, 2 + at_origin);
  assert_int_equal((int32_t)stat(w, b, "broken_edges"), cut + at_origin);
  assert_int_equal(pieces(w, b), 3); /* the bar's two halves and the freed corner */
  free(hit);
  cl_world_destroy(w);
}

/* Knives need a solver that applies cut_surface events: the error names the solver and those that can. */
static void test_knife_needs_a_cutting_solver(void **state) {
  (void)state;
  const char *solvers[2] = {"corotational", "shape_matching"};
  for (int i = 0; i < 2; ++i) {
    cl_world *w = cl_test_world(0.01, 0.0, 1);
    const cl_id b = bar(w, solvers[i], NULL, NULL, 0);
    cl_knife_def k;
    cl_knife_def_default(&k);
    k.velocity[1] = -1.0;
    cl_id id = 0;
    assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT, "solvers that can: graph_fem");
    char solver[64];
    snprintf(solver, sizeof solver, "solver '%s'", solvers[i]);
    assert_non_null(strstr(cl_last_error(), solver));
    assert_non_null(strstr(cl_last_error(), "cut_surface"));
    assert_int_equal(id, 0);
    cl_world_destroy(w);
  }
}

static void test_knife_bad_input(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_id b = bar(w, "graph_fem", NULL, NULL, 0);
  cl_knife_def k;
  cl_id id;
  memset(&k, 0, sizeof k);
  assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT, "call cl_knife_def_default");
  cl_knife_def_default(&k);
  k.velocity[0] = 1.0;
  for (int i = 0; i < 6; ++i) k.blade[i] = 0.25;
  assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT, "coincide");
  cl_knife_def_default(&k);
  k.velocity[0] = 1.0;
  k.blade[4] = NAN;
  assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT, "blade end b[1] = nan m must be finite");
  k.blade[4] = 1e300;
  assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT, "outside the allowed range [0, 1e+09] m");
  cl_knife_def_default(&k);
  assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT, "never moves");
  const double still[8] = {0.0, 0.1, 0.2, 0.0, 1.0, 0.1, 0.2, 0.0};
  k.path = still;
  k.path_count = 2;
  assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT, "every point of its path is the same");
  const double back[12] = {0.0, 0.1, 0.2, 0.0, 0.5, 0.1, 0.1, 0.0, 0.5, 0.1, 0.0, 0.0};
  k.path = back;
  k.path_count = 3;
  assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT,
               "knife path: row 3: time 0.5 s does not come after 0.5 s");
  const double nan_path[8] = {0.0, 0.1, 0.2, 0.0, 0.5, NAN, 0.1, 0.0};
  k.path = nan_path;
  k.path_count = 2;
  assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT, "knife path: row 2 has a non-finite value");
  cl_knife_def_default(&k);
  k.velocity[0] = 1.0;
  k.duration = -1.0;
  assert_error(cl_world_add_knife(w, b, &k, &id), CL_ERR_INVALID_ARGUMENT, "knife: duration = -1 s must be > 0");
  cl_knife_def_default(&k);
  k.velocity[0] = 1.0;
  assert_error(cl_world_add_knife(w, b, NULL, &id), CL_ERR_INVALID_ARGUMENT, "def is NULL");
  cl_world_destroy(w);
}

/* ---- brushes ---------------------------------------------------------------------------------- */

/* A brush at the bar's free end pulls the nodes within 0.03 m of (0.4, 0.05, 0.05) up by 0.02 m
 * over 0.1 s while an anchor holds the other end: the taken nodes follow the brush exactly, the
 * anchored ones do not move, nodes outside the brush do not move with it. Any solver. */
static void check_brush(const char *solver) {
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_id b = bar(w, solver, NULL, NULL, 0);
  anchor_end(w, b, 0.05, 0.0);
  cl_id brush = 0;
  cl_brush_def br;
  cl_brush_def_default(&br);
  br.radius = 0.03;
  const double path[8] = {0.02, 0.4, 0.05, 0.05, 0.12, 0.4, 0.07, 0.05};
  br.path = path;
  br.path_count = 2;
  assert_ok(cl_world_add_brush(w, b, &br, &brush));
  int32_t n = 0;
  double *x0 = cl_test_positions(w, b, &n);
  cl_tool_info info;
  assert_ok(cl_world_step(w, 1));
  assert_ok(cl_tool_get_info(w, brush, &info));
  assert_false(info.started); /* its path begins at 0.02 s */
  assert_int_equal(info.nodes, 0);
  assert_ok(cl_world_step(w, 14));
  assert_ok(cl_tool_get_info(w, brush, &info));
  assert_true(info.started && info.finished && info.touched);
  assert_int_equal(info.kind, CL_TOOL_BRUSH);
  assert_near(info.position[1], 0.07, 1e-15);
  int32_t held = 0;
  assert_ok(cl_condition_node_count(w, brush, &held));
  assert_int_equal(held, info.nodes);
  const cl_body_state *st = cl_world_body_state(w, b);
  int32_t inside = 0, moved_outside = 0;
  for (int32_t i = 0; i < n; ++i) {
    const double *p = x0 + 3 * i, *x = st->x + 3 * i;
    const double d = sqrt((p[0] - 0.4) * (p[0] - 0.4) + (p[1] - 0.05) * (p[1] - 0.05) + (p[2] - 0.05) * (p[2] - 0.05));
    if (d <= 0.03) {
      ++inside;
      assert_near(x[0], p[0], 1e-12);
      assert_near(x[1], p[1] + 0.02, 1e-12);
      assert_near(x[2], p[2], 1e-12);
    } else if (p[0] <= 0.05) {
      for (int k = 0; k < 3; ++k) assert_near(x[k], p[k], 1e-12);
    } else {
      moved_outside += fabs(x[1] - p[1] - 0.02) < 1e-9;
    }
  }
  assert_int_equal(inside, held);
  assert_true(inside >= 5);
  assert_int_equal(moved_outside, 0);
  /* the anchor's reaction holds the bar against the brush: a reaction probe reads it */
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_REACTION);
  pd.condition = brush;
  cl_id probe;
  assert_ok(cl_world_add_probe(w, &pd, &probe));
  free(x0);
  cl_world_destroy(w);
}

static void test_brush_moves_nodes_under_it(void **state) {
  (void)state;
  check_brush("graph_fem");
  check_brush("corotational");
}

/* A brush released at 0.06 s lets its nodes go: they no longer follow it. A brush that finds no node
 * says so once. */
static void test_brush_release_and_miss(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_id b = bar(w, "graph_fem", NULL, NULL, 0);
  cl_brush_def br;
  cl_brush_def_default(&br);
  br.radius = 0.03;
  br.center[0] = 0.4, br.center[1] = br.center[2] = 0.05;
  br.velocity[1] = 0.5;
  br.release = 0.06;
  cl_id brush = 0, miss = 0;
  assert_ok(cl_world_add_brush(w, b, &br, &brush));
  assert_ok(cl_world_step(w, 6));
  int32_t held = 0;
  assert_ok(cl_condition_node_count(w, brush, &held));
  assert_true(held >= 5);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_REACTION);
  pd.condition = brush;
  cl_id probe;
  assert_ok(cl_world_add_probe(w, &pd, &probe));
  assert_ok(cl_world_step(w, 1));
  double r[3];
  assert_ok(cl_probe_read(w, probe, r, 3));
  assert_near(r[0] + r[1] + r[2], 0.0, 0.0); /* released: no reaction */
  br.center[1] = 1.0; /* far above the bar */
  br.release = INFINITY;
  assert_ok(cl_world_add_brush(w, b, &br, &miss));
  assert_int_equal(cl_world_step(w, 1), CL_WARN_NO_EFFECT);
  assert_non_null(strstr(cl_last_error(), "took no node"));
  assert_ok(cl_world_step(w, 1));
  cl_tool_info info;
  assert_ok(cl_tool_get_info(w, miss, &info));
  assert_true(info.started && !info.touched && info.nodes == 0);
  cl_world_destroy(w);
}

static void test_brush_bad_input(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_id b = bar(w, "graph_fem", NULL, NULL, 0);
  cl_brush_def br;
  cl_id id;
  memset(&br, 0, sizeof br);
  assert_error(cl_world_add_brush(w, b, &br, &id), CL_ERR_INVALID_ARGUMENT, "call cl_brush_def_default");
  cl_brush_def_default(&br);
  br.radius = NAN;
  assert_error(cl_world_add_brush(w, b, &br, &id), CL_ERR_INVALID_ARGUMENT,
               "brush: radius = nan m is outside the allowed range [1e-09, 1e+09] m");
  br.radius = -0.1;
  assert_error(cl_world_add_brush(w, b, &br, &id), CL_ERR_INVALID_ARGUMENT, "brush: radius = -0.1 m is outside");
  br.radius = 1e12;
  assert_error(cl_world_add_brush(w, b, &br, &id), CL_ERR_INVALID_ARGUMENT, "brush: radius = 1e+12 m is outside");
  cl_brush_def_default(&br);
  br.start = 1.0;
  br.release = 0.5;
  assert_error(cl_world_add_brush(w, b, &br, &id), CL_ERR_INVALID_ARGUMENT, "release = 0.5 s must be >= 1 s");
  cl_brush_def_default(&br);
  br.center[2] = INFINITY;
  assert_error(cl_world_add_brush(w, b, &br, &id), CL_ERR_INVALID_ARGUMENT, "brush: center[2] = inf m must be finite");
  cl_world_destroy(w);
}

/* ---- anchors ---------------------------------------------------------------------------------- */

/* Under gravity an anchor with start 0.05 s lets the end fall until then and holds it from then on,
 * where it was at 0.05 s. */
static void test_anchor_holds_from_its_start(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, -9.81, 1);
  const cl_id b = bar(w, "graph_fem", NULL, NULL, 0);
  const cl_id anchor = anchor_end(w, b, 0.05, 0.05);
  int32_t n = 0;
  double *x0 = cl_test_positions(w, b, &n);
  assert_ok(cl_world_step(w, 5));
  double *x5 = cl_test_positions(w, b, &n);
  int32_t count = 0;
  assert_ok(cl_condition_node_count(w, anchor, &count));
  assert_int_equal(count, 0); /* not yet */
  assert_ok(cl_world_step(w, 20));
  const cl_body_state *st = cl_world_body_state(w, b);
  assert_ok(cl_condition_node_count(w, anchor, &count));
  assert_int_equal(count, 75); /* 3 x 5 x 5 nodes with x <= 0.05 */
  for (int32_t i = 0; i < n; ++i) {
    if (st->X[3 * i] > 0.05 + 1e-12) continue;
    assert_true(x5[3 * i + 1] < x0[3 * i + 1] - 1e-4); /* fell before the start */
    for (int k = 0; k < 3; ++k) assert_near(st->x[3 * i + k], x5[3 * i + k], 1e-12); /* held after */
  }
  cl_tool_info info;
  assert_ok(cl_tool_get_info(w, anchor, &info));
  assert_true(info.kind == CL_TOOL_ANCHOR && info.started && !info.finished && info.nodes == 75);
  free(x0);
  free(x5);
  cl_world_destroy(w);
}

static void test_anchor_bad_input(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_id b = bar(w, "shape_matching", NULL, NULL, 0);
  cl_region_def all;
  cl_region_def_default(&all, CL_REGION_ALL);
  cl_anchor_def a;
  cl_id id;
  memset(&a, 0, sizeof a);
  assert_error(cl_world_add_anchor(w, b, &all, &a, &id), CL_ERR_INVALID_ARGUMENT, "call cl_anchor_def_default");
  cl_anchor_def_default(&a);
  a.start = NAN;
  assert_error(cl_world_add_anchor(w, b, &all, &a, &id), CL_ERR_INVALID_ARGUMENT, "anchor: start = nan s");
  a.start = -1.0;
  assert_error(cl_world_add_anchor(w, b, &all, &a, &id), CL_ERR_INVALID_ARGUMENT, "anchor: start = -1 s");
  a.start = 1.0;
  a.release = 0.5;
  assert_error(cl_world_add_anchor(w, b, &all, &a, &id), CL_ERR_INVALID_ARGUMENT, "release = 0.5 s must be >= start");
  cl_anchor_def_default(&a);
  const int32_t bad[2] = {0, 100000};
  cl_region_def idx;
  cl_region_def_default(&idx, CL_REGION_INDICES);
  idx.indices = bad;
  idx.count = 2;
  assert_error(cl_world_add_anchor(w, b, &idx, &a, &id), CL_ERR_INVALID_ARGUMENT, "indices[1] = 100000 is outside");
  /* an anchor on a shape-matching body works (any solver) */
  assert_ok(cl_world_add_anchor(w, b, &all, &a, &id));
  assert_int_equal(cl_world_step(w, 1), CL_OK);
  cl_world_destroy(w);
}

/* A static solve starts the tools whose time has come, as a step would: an anchor added at t = 0
 * holds a corotational cantilever under gravity without a step first. */
static void test_anchor_in_a_static_solve(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, -9.81, 1);
  const cl_id b = bar(w, "corotational", NULL, NULL, 0);
  const cl_id anchor = anchor_end(w, b, 0.0, 0.0);
  cl_static_def sd;
  cl_static_def_default(&sd);
  assert_ok(cl_world_solve_static(w, &sd, NULL));
  int32_t held = 0;
  assert_ok(cl_condition_node_count(w, anchor, &held));
  assert_int_equal(held, 25);
  const cl_body_state *st = cl_world_body_state(w, b);
  double tip = 0.0;
  for (int32_t i = 0; i < st->n; ++i)
    if (st->X[3 * i] > 0.4 - 1e-9) tip = fmin(tip, st->x[3 * i + 1] - st->X[3 * i + 1]);
  assert_true(tip < -1e-6); /* it sags, held at the anchored end */
  cl_world_destroy(w);
}

/* Tools are conditions of their body: removing the body removes them; info on another condition is
 * an error. */
static void test_tools_are_conditions(void **state) {
  (void)state;
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_id b = bar(w, "graph_fem", NULL, NULL, 0);
  const double path[8] = {0.0, 0.1, 0.2, 0.0, 1.0, 0.1, -0.1, 0.0};
  const cl_id k = knife_on_path(w, b, path, 2);
  const cl_id fixed = cl_test_x_slab(w, b, -1.0, 0.01, 0.0);
  cl_tool_info info;
  assert_error(cl_tool_get_info(w, fixed, &info), CL_ERR_INVALID_ARGUMENT, "is not a tool");
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_REACTION);
  pd.condition = k;
  cl_id probe;
  assert_error(cl_world_add_probe(w, &pd, &probe), CL_ERR_INVALID_ARGUMENT, "is a knife");
  assert_ok(cl_world_remove_body(w, b));
  assert_error(cl_tool_get_info(w, k, &info), CL_ERR_STALE_ID, "");
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_knife_splits_bar),
      cmocka_unit_test(test_knife_partial_path_corner),
      cmocka_unit_test(test_knife_that_misses),
      cmocka_unit_test(test_knife_and_criterion_merge),
      cmocka_unit_test(test_knife_needs_a_cutting_solver),
      cmocka_unit_test(test_knife_bad_input),
      cmocka_unit_test(test_brush_moves_nodes_under_it),
      cmocka_unit_test(test_brush_release_and_miss),
      cmocka_unit_test(test_brush_bad_input),
      cmocka_unit_test(test_anchor_holds_from_its_start),
      cmocka_unit_test(test_anchor_bad_input),
      cmocka_unit_test(test_anchor_in_a_static_solve),
      cmocka_unit_test(test_tools_are_conditions),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
