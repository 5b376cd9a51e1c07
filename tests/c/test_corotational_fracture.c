/* The corotational solver's topology operation (solvers/corotational/fracture.c, thesis sec 5.4):
 * node replication by the side of the plane, skipped events, detaching a unit, plastic relief,
 * aesthetic joint pruning (ball and hinge joints), the fragment veto, stale events, continued cracks,
 * islands and their cache (with CHOLMOD and with the Galerkin multigrid), and stepping on. */
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
#include "geom/components.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "support/test_worlds.h"
#include "solvers/corotational/corot.h"
#include "world/world.h"

static cl_world *make_world(void) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = 1e-3;
  def.gravity[1] = 0.0;
  def.threads = 1;
  cl_world *w = NULL;
  assert_int_equal(cl_world_create(&def, &w), CL_OK);
  return w;
}

static cl_id add(cl_world *w, cl_mesh *m, const cl_param *p, int32_t np) {
  cl_body_def def;
  cl_body_def_default(&def);
  def.name = "frac";
  def.solver = "corotational";
  def.material.young = 1e5;
  def.params = p;
  def.param_count = np;
  cl_id b = 0;
  assert_int_equal(cl_world_add_body(w, &def, m, &b), CL_OK);
  return b;
}

static cl_corot *solver_of(cl_world *w, cl_id id) {
  cl_body *b = NULL;
  assert_int_equal(cl_world_body(w, id, &b), CL_OK);
  return b->solver;
}

static cl_mesh *cube(int n) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  cl_mesh *m;
  assert_int_equal(cl_tet_grid(n, n, n, lo, hi, &m), CL_OK);
  return m;
}

static double total_mass(const cl_body_state *st) {
  double s = 0.0;
  for (int32_t i = 0; i < st->n; ++i) s += st->m[i];
  return s;
}

static int32_t pieces(const cl_body_state *st) {
  int32_t c = 0;
  assert_int_equal(cl_components(st->n, st->cells, st->ncells, 4, NULL, &c), CL_OK);
  return c;
}

/* Apply one event through the solver table as the world would, then its topology_changed: a node
 * split when node >= 0, else a unit split (zero normal: detach the unit). */
static int32_t apply(cl_corot *s, cl_body_state *st, int32_t unit, int32_t node, double nx, double ny, double nz) {
  const double n[3] = {nx, ny, nz};
  cl_fracture_event ev = node >= 0 ? cl_event_split_node(node, unit, n, 1.0, 1.0) : cl_event_split_unit(unit, n, 1.0, 1.0);
  int32_t applied = -1;
  assert_int_equal(cl_corot_fracture(s, st, &ev, 1, &applied), CL_OK);
  if (applied > 0) {
    st->topology_version++;
    assert_int_equal(cl_corot_topology_changed(s, st), CL_OK);
  }
  return applied;
}

static void test_replication_by_plane_side(void **state) {
  (void)state;
  cl_mesh *m = cube(2);
  cl_world *w = make_world();
  const cl_param p[] = {{"joint_pruning", 0, NULL}};
  cl_id b = add(w, m, p, 1);
  cl_body_state *st = cl_world_body_state(w, b);
  cl_corot *s = solver_of(w, b);
  const int32_t centre = 1 + 3 * (1 + 3 * 1), n0 = st->n;
  const double mass0 = total_mass(st), mc = st->m[centre];
  for (int32_t e = 0; e < st->ncells; ++e)
    for (int k = 0; k < 6; ++k) s->eps_p[6 * e + k] = 0.1;
  for (int32_t i = 0; i < st->n; ++i) st->v[3 * i + 2] = 0.3 + 0.1 * st->X[3 * i]; /* momentum to conserve */
  double p0 = 0.0;
  for (int32_t i = 0; i < st->n; ++i) p0 += st->m[i] * st->v[3 * i + 2];
  assert_int_equal(apply(s, st, 0, centre, 1.0, 0.0, 0.0), 1);
  assert_int_equal(st->n, n0 + 1);
  const int32_t q = n0;
  assert_int_equal(st->origin[q], centre);
  for (int k = 0; k < 3; ++k) assert_true(st->X[3 * q + k] == st->X[3 * centre + k] && st->x[3 * q + k] == st->x[3 * centre + k]);
  int plus = 0, minus = 0;
  for (int32_t e = 0; e < st->ncells; ++e) {
    const int32_t *t = st->cells + 4 * e;
    int has_c = 0, has_q = 0;
    double cx = 0.0;
    for (int a = 0; a < 4; ++a) {
      has_c |= t[a] == centre;
      has_q |= t[a] == q;
      cx += 0.25 * st->x[3 * t[a]];
    }
    if (has_q) {
      ++plus;
      assert_true(cx > 0.5);
      for (int k = 0; k < 6; ++k) assert_true(fabs(s->eps_p[6 * e + k] - 0.05) < 1e-15); /* relieved by half */
    }
    if (has_c) {
      ++minus;
      assert_true(cx <= 0.5);
    }
  }
  assert_true(plus > 0 && minus > 0);
  assert_int_equal(plus + minus, 24); /* the centre of a 2x2x2 Kuhn grid is in 24 tets */
  assert_true(fabs(total_mass(st) - mass0) <= 1e-14 * mass0);
  assert_true(fabs(st->m[centre] + st->m[q] - mc) <= 1e-14 * mc);
  double p1 = 0.0;
  for (int32_t i = 0; i < st->n; ++i) p1 += st->m[i] * st->v[3 * i + 2];
  assert_true(fabs(p1 - p0) <= 1e-14 * fabs(p0));
  /* the body is still one piece (one node split), and steps on */
  assert_int_equal(pieces(st), 1);
  assert_int_equal(cl_world_step(w, 5), CL_OK);
  cl_world_destroy(w);
  cl_mesh_destroy(m);
}

static void test_events_skipped(void **state) {
  (void)state;
  cl_mesh *m = cube(2);
  cl_world *w = make_world();
  cl_id b = add(w, m, NULL, 0);
  cl_body_state *st = cl_world_body_state(w, b);
  cl_corot *s = solver_of(w, b);
  const int32_t n0 = st->n;
  /* corner node 0: every element lies on the positive side of x = 0, the replica would be empty */
  assert_int_equal(apply(s, st, 0, 0, 1.0, 0.0, 0.0), 0);
  /* out of range, NaN normals, no plane at all (no normal, no raising unit): skipped, no crash */
  assert_int_equal(apply(s, st, -1, 13, 0.0, 0.0, 0.0), 0);
  assert_int_equal(apply(s, st, 1000, 13, 1.0, 0.0, 0.0), 0);
  assert_int_equal(apply(s, st, 0, 1000, 1.0, 0.0, 0.0), 0);
  assert_int_equal(apply(s, st, 0, 13, NAN, 0.0, 0.0), 0);
  assert_int_equal(st->n, n0);
  cl_world_destroy(w);
  /* an island of at most min_island_elements elements does not fracture */
  w = make_world();
  const cl_param p[] = {{"min_island_elements", 48, NULL}};
  b = add(w, m, p, 1);
  st = cl_world_body_state(w, b);
  s = solver_of(w, b);
  assert_int_equal(apply(s, st, 0, 13, 1.0, 0.0, 0.0), 0);
  assert_int_equal(apply(s, st, 0, -1, 0.0, 0.0, 0.0), 0);
  assert_int_equal(st->n, n0);
  cl_world_destroy(w);
  cl_mesh_destroy(m);
}

/* An event without a node detaches its unit: the unit becomes its own island. */
static void test_detach_unit(void **state) {
  (void)state;
  cl_mesh *m = cube(2);
  cl_world *w = make_world();
  cl_id b = add(w, m, NULL, 0);
  cl_body_state *st = cl_world_body_state(w, b);
  cl_corot *s = solver_of(w, b);
  assert_int_equal(apply(s, st, 7, -1, 0.0, 0.0, 0.0), 1);
  assert_int_equal(pieces(st), 2);
  assert_int_equal(s->nislands, 2);
  for (int a = 0; a < 4; ++a) {
    int32_t node = st->cells[4 * 7 + a];
    for (int32_t e = 0; e < st->ncells; ++e)
      if (e != 7)
        for (int c = 0; c < 4; ++c) assert_true(st->cells[4 * e + c] != node);
  }
  /* a one-element island is now too small to break again */
  assert_int_equal(apply(s, st, 7, -1, 0.0, 0.0, 0.0), 0);
  assert_int_equal(cl_world_step(w, 3), CL_OK);
  cl_world_destroy(w);
  cl_mesh_destroy(m);
}

/* A unit split with a plane (criteria such as cluster_stretch) splits the unit's corner nearest to
 * the plane through the unit's centre, by the side of that plane its elements lie on. */
static void test_split_unit_by_plane(void **state) {
  (void)state;
  cl_mesh *m = cube(2);
  cl_world *w = make_world();
  const cl_param nopr[] = {{"joint_pruning", 0, NULL}};
  cl_id b = add(w, m, nopr, 1);
  cl_body_state *st = cl_world_body_state(w, b);
  cl_corot *s = solver_of(w, b);
  const int32_t n0 = st->n;
  /* the tet whose corner nearest to x = its centre's x is the cube's centre node (0.5, 0.5, 0.5) */
  int32_t e = -1, centre = -1;
  for (int32_t i = 0; i < n0; ++i)
    if (fabs(st->X[3 * i] - 0.5) + fabs(st->X[3 * i + 1] - 0.5) + fabs(st->X[3 * i + 2] - 0.5) < 1e-12) centre = i;
  assert_true(centre >= 0);
  for (int32_t t = 0; t < st->ncells && e < 0; ++t) {
    double cx = 0.0, best = INFINITY;
    int32_t nearest = -1;
    for (int a = 0; a < 4; ++a) cx += 0.25 * st->X[3 * st->cells[4 * t + a]];
    for (int a = 0; a < 4; ++a) {
      const int32_t q = st->cells[4 * t + a];
      const double d = fabs(st->X[3 * q] - cx);
      if (d < best || (d == best && q < nearest)) best = d, nearest = q;
    }
    if (nearest == centre) e = t;
  }
  assert_true(e >= 0);
  assert_int_equal(apply(s, st, e, -1, 1.0, 0.0, 0.0), 1);
  assert_int_equal(st->n, n0 + 1); /* one replica, of the centre node */
  assert_int_equal(st->origin[n0], centre);
  /* the centre node keeps the elements left of x = 0.5, its replica takes those right of it */
  for (int32_t t = 0; t < st->ncells; ++t) {
    double cx = 0.0;
    int has_c = 0, has_q = 0;
    for (int a = 0; a < 4; ++a) {
      const int32_t q = st->cells[4 * t + a];
      cx += 0.25 * st->X[3 * q];
      has_c |= q == centre;
      has_q |= q == n0;
    }
    if (has_c) assert_true(cx <= 0.5);
    if (has_q) assert_true(cx > 0.5);
  }
  assert_int_equal(cl_world_step(w, 3), CL_OK);
  cl_world_destroy(w);
  cl_mesh_destroy(m);
}

/* The cluster_stretch criterion (Jones et al. 2016, written for clusters) drives the corotational
 * solver through unit splits: a bar pulled apart at both ends breaks in pieces, mass conserved. */
static void test_cluster_stretch_on_tets(void **state) {
  (void)state;
  const double lo[3] = {0, 0, 0}, hi[3] = {0.4, 0.05, 0.05};
  cl_mesh *m;
  assert_int_equal(cl_tet_grid(16, 2, 2, lo, hi, &m), CL_OK);
  cl_world *w = make_world();
  cl_body_def def;
  cl_body_def_default(&def);
  def.name = "stretchy";
  def.solver = "corotational";
  def.material.young = 1e5;
  def.criterion = "cluster_stretch";
  const cl_param cp[] = {{"toughness", 0.02, NULL}};
  def.criterion_params = cp;
  def.criterion_param_count = 1;
  cl_id b;
  assert_int_equal(cl_world_add_body(w, &def, m, &b), CL_OK);
  cl_mesh_destroy(m);
  cl_test_x_slab(w, b, -1.0, 0.0, -0.5);
  cl_test_x_slab(w, b, 0.4, 1.0, 0.5);
  cl_body_info before, after;
  assert_int_equal(cl_body_get_info(w, b, &before), CL_OK);
  assert_int_equal(cl_world_step(w, 60), CL_OK);
  assert_int_equal(cl_body_get_info(w, b, &after), CL_OK);
  print_message("cluster_stretch on tets: %d -> %d nodes, %d pieces\n", before.nodes, after.nodes, after.pieces);
  assert_true(after.nodes > before.nodes);
  assert_true(after.pieces >= 2);
  assert_true(fabs(after.mass - before.mass) <= 1e-12 * before.mass);
  cl_world_destroy(w);
}

/* Two tets joined by one node (ball joint), by one edge (hinge) or by a face. */
static cl_mesh *pair(int shared) {
  /* tet A: 0 1 2 3; tet B shares `shared` of A's first corners and has its own others */
  const double xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0, 0, 0, -1, 1, 1, 1};
  int32_t cells[8] = {0, 1, 2, 3};
  int32_t np = 0;
  if (shared == 1) { /* B = 0 4 5 6 mirrored */
    const int32_t t[4] = {0, 5, 4, 6};
    memcpy(cells + 4, t, sizeof t);
    np = 7;
  } else if (shared == 2) { /* B shares edge 1-2 */
    const int32_t t[4] = {1, 7, 2, 4};
    memcpy(cells + 4, t, sizeof t);
    np = 8;
  } else { /* B shares face 1 2 3 */
    const int32_t t[4] = {1, 2, 3, 7};
    memcpy(cells + 4, t, sizeof t);
    np = 8;
  }
  /* keep only the nodes used (compact) */
  int32_t map[8], used[8] = {0}, k = 0;
  for (int j = 0; j < 8; ++j) used[cells[j]] = 1;
  double pts[24];
  for (int i = 0; i < np; ++i)
    if (used[i]) {
      map[i] = k;
      for (int d = 0; d < 3; ++d) pts[3 * k + d] = xyz[3 * i + d];
      ++k;
    }
  for (int j = 0; j < 8; ++j) cells[j] = map[cells[j]];
  cl_mesh *m = NULL;
  cl_status st = cl_mesh_from_arrays(CL_MESH_TETS, pts, k, cells, 2, &m);
  if (st != CL_OK) print_error("pair(%d): %s\n", shared, cl_last_error());
  assert_int_equal(st, CL_OK);
  return m;
}

static void test_joint_pruning(void **state) {
  (void)state;
  const int expect_added[3] = {1, 2, 0}; /* ball: one node, hinge: both edge nodes, face: none */
  for (int kind = 1; kind <= 3; ++kind) {
    cl_mesh *m = pair(kind);
    cl_world *w = make_world();
    const cl_param p[] = {{"min_island_elements", 0, NULL}};
    cl_id b = add(w, m, p, 1);
    cl_body_state *st = cl_world_body_state(w, b);
    cl_corot *s = solver_of(w, b);
    assert_int_equal(pieces(st), 1);
    int32_t seeds[8], added = -1;
    for (int32_t i = 0; i < st->n; ++i) seeds[i] = i;
    const double mass = total_mass(st);
    assert_int_equal(cl_corot_prune_joints(s, st, seeds, st->n, &added), CL_OK);
    print_message("two tets sharing %d node(s): pruning added %d node(s)\n", kind, added);
    assert_int_equal(added, expect_added[kind - 1]);
    st->topology_version++;
    assert_int_equal(cl_corot_topology_changed(s, st), CL_OK);
    assert_int_equal(pieces(st), kind == 3 ? 1 : 2);
    assert_int_equal(s->nislands, kind == 3 ? 1 : 2);
    assert_true(fabs(total_mass(st) - mass) <= 1e-14 * mass);
    assert_int_equal(cl_world_step(w, 2), CL_OK);
    cl_world_destroy(w);
    cl_mesh_destroy(m);
  }
}

/* Splitting along a whole plane, node by node, with pruning on: the cube falls in two. */
static void test_crack_across_cube(void **state) {
  (void)state;
  cl_mesh *m = cube(2);
  for (int pruning = 0; pruning <= 1; ++pruning) {
    cl_world *w = make_world();
    const cl_param p[] = {{"joint_pruning", pruning, NULL}, {"min_island_elements", 0, NULL}};
    cl_id b = add(w, m, p, 2);
    cl_body_state *st = cl_world_body_state(w, b);
    cl_corot *s = solver_of(w, b);
    /* the nine nodes of the plane x = 0.5, split with normal +x */
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) apply(s, st, 0, 1 + 3 * (j + 3 * k), 1.0, 0.0, 0.0);
    print_message("crack across the cube, pruning %d: %d nodes, %d pieces\n", pruning, st->n, pieces(st));
    assert_int_equal(pieces(st), 2);
    assert_int_equal(cl_world_step(w, 3), CL_OK);
    cl_world_destroy(w);
  }
  /* the same crack without its last two nodes (0.5, 0, 0) and (0.5, 0.5, 0): the halves hang on the
   * edge between them, a hinge joint, which pruning breaks (thesis sec 5.4.1, Fig. 3) */
  for (int pruning = 0; pruning <= 1; ++pruning) {
    cl_world *w = make_world();
    const cl_param p[] = {{"joint_pruning", pruning, NULL}, {"min_island_elements", 0, NULL}};
    cl_id b = add(w, m, p, 2);
    cl_body_state *st = cl_world_body_state(w, b);
    cl_corot *s = solver_of(w, b);
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        if (k == 0 && j < 2) continue;
        apply(s, st, 0, 1 + 3 * (j + 3 * k), 1.0, 0.0, 0.0);
      }
    print_message("crack with a hinge left, pruning %d: %d nodes, %d pieces\n", pruning, st->n, pieces(st));
    assert_int_equal(pieces(st), pruning ? 2 : 1);
    assert_int_equal(cl_world_step(w, 3), CL_OK);
    cl_world_destroy(w);
  }
  cl_mesh_destroy(m);
}

/* min_fragment_elements (fracture.c, docs/solvers/corotational.md "Clean cracks"): the crack across
 * the cube of test_crack_across_cube cuts it into halves of 24 tets. With the veto at 30 elements the
 * event that would cut a half off is undone (cells and node count as before it, mass unchanged) and
 * the cube stays one piece; with 0 it falls in two. An event not applied leaves the cells as they were. */
static void test_fragment_veto(void **state) {
  (void)state;
  cl_mesh *m = cube(2);
  for (int veto = 0; veto <= 30; veto += 30) {
    cl_world *w = make_world();
    const cl_param p[] = {{"min_island_elements", 0, NULL}, {"min_fragment_elements", veto, NULL}};
    cl_id b = add(w, m, p, 2);
    cl_body_state *st = cl_world_body_state(w, b);
    cl_corot *s = solver_of(w, b);
    const double mass = total_mass(st);
    int undone = 0;
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        const int32_t n_before = st->n;
        int32_t *cells = malloc(sizeof(int32_t) * 4 * (size_t)st->ncells);
        assert_non_null(cells);
        memcpy(cells, st->cells, sizeof(int32_t) * 4 * (size_t)st->ncells);
        if (apply(s, st, 0, 1 + 3 * (j + 3 * k), 1.0, 0.0, 0.0) == 0) {
          ++undone;
          assert_int_equal(st->n, n_before);
          assert_memory_equal(cells, st->cells, sizeof(int32_t) * 4 * (size_t)st->ncells);
        }
        free(cells);
      }
    print_message("crack across the cube, min_fragment_elements %d: %d events not applied, %d pieces\n", veto,
                  undone, pieces(st));
    assert_int_equal(pieces(st), veto ? 1 : 2);
    assert_true(fabs(total_mass(st) - mass) <= 1e-14 * mass);
    assert_int_equal(cl_world_step(w, 3), CL_OK);
    cl_world_destroy(w);
  }
  cl_mesh_destroy(m);
}

/* skip_stale_events: two events of one step on nodes that share elements (the cube's centre and the
 * middle of its bottom face): with the rule only the first applies (the second's stress was measured
 * before the first split changed its elements), without it both. */
static void test_stale_events_skipped(void **state) {
  (void)state;
  cl_mesh *m = cube(2);
  for (int skip = 0; skip <= 1; ++skip) {
    cl_world *w = make_world();
    const cl_param p[] = {{"skip_stale_events", skip, NULL}, {"joint_pruning", 0, NULL}};
    cl_id b = add(w, m, p, 2);
    cl_body_state *st = cl_world_body_state(w, b);
    cl_corot *s = solver_of(w, b);
    const double n[3] = {1.0, 0.0, 0.0};
    const cl_fracture_event ev[2] = {cl_event_split_node(1 + 3 * (1 + 3 * 1), 0, n, 2.0, 2.0),
                                     cl_event_split_node(1 + 3 * (1 + 3 * 0), 0, n, 1.0, 1.0)};
    int32_t applied = -1;
    const int32_t n0 = st->n;
    assert_int_equal(cl_corot_fracture(s, st, ev, 2, &applied), CL_OK);
    print_message("two neighbouring events, skip_stale_events %d: %d applied\n", skip, applied);
    assert_int_equal(applied, skip ? 1 : 2);
    assert_int_equal(st->n, n0 + applied);
    st->topology_version++;
    assert_int_equal(cl_corot_topology_changed(s, st), CL_OK);
    assert_int_equal(cl_world_step(w, 2), CL_OK);
    cl_world_destroy(w);
  }
  cl_mesh_destroy(m);
}

/* continue_cracks: the cube's centre is split by the plane x = 0.5, then the middle of its top face,
 * on that crack's edge, by a plane tilted 45 degrees from it (normal (1, 0, 1)). With the rule the
 * elements the crack already separates at the top node keep their sides, so every element that takes
 * the top node's copy lies at x > 0.5 and every one that keeps it at x < 0.5: the crack goes on in
 * its plane. Without it (the thesis's side of the plane through the node) some elements at x > 0.5
 * fall on the other side and the crack kinks. */
static void test_cracks_continue(void **state) {
  (void)state;
  cl_mesh *m = cube(2);
  for (int cont = 0; cont <= 1; ++cont) {
    cl_world *w = make_world();
    const cl_param p[] = {{"continue_cracks", cont, NULL}, {"joint_pruning", 0, NULL}};
    cl_id b = add(w, m, p, 2);
    cl_body_state *st = cl_world_body_state(w, b);
    cl_corot *s = solver_of(w, b);
    const int32_t top = 1 + 3 * (1 + 3 * 2);
    assert_int_equal(apply(s, st, 0, 1 + 3 * (1 + 3 * 1), 1.0, 0.0, 0.0), 1);
    const int32_t q = st->n;
    assert_int_equal(apply(s, st, 0, top, 1.0, 0.0, 1.0), 1);
    int wrong = 0, star = 0;
    for (int32_t e = 0; e < st->ncells; ++e) {
      const int32_t *t = st->cells + 4 * e;
      int has_top = 0, has_q = 0;
      double cx = 0.0;
      for (int a = 0; a < 4; ++a) {
        has_top |= t[a] == top;
        has_q |= t[a] == q;
        cx += 0.25 * st->X[3 * t[a]];
      }
      if (!has_top && !has_q) continue;
      ++star;
      wrong += has_q != (cx > 0.5);
    }
    print_message("crack continued from the centre, continue_cracks %d: %d of %d elements on the wrong side\n", cont,
                  wrong, star);
    if (cont) assert_int_equal(wrong, 0);
    else assert_true(wrong > 0);
    cl_world_destroy(w);
  }
  cl_mesh_destroy(m);
}

/* Two cubes of n x n x n cells side by side (3 m apart) in one mesh: two islands. */
static cl_mesh *two_cubes(int n) {
  cl_mesh *a = cube(n);
  int32_t np = a->npoints, nc = a->ncells;
  double *xyz = malloc(sizeof(double) * 6 * (size_t)np);
  int32_t *cells = malloc(sizeof(int32_t) * 8 * (size_t)nc);
  for (int32_t i = 0; i < np; ++i)
    for (int k = 0; k < 3; ++k) {
      xyz[3 * i + k] = a->x[3 * i + k];
      xyz[3 * (np + i) + k] = a->x[3 * i + k] + (k == 0 ? 3.0 : 0.0);
    }
  for (int32_t j = 0; j < 4 * nc; ++j) {
    cells[j] = a->cells[j];
    cells[4 * nc + j] = a->cells[j] + np;
  }
  cl_mesh *m;
  assert_int_equal(cl_mesh_from_arrays(CL_MESH_TETS, xyz, 2 * np, cells, 2 * nc, &m), CL_OK);
  cl_mesh_destroy(a);
  free(xyz);
  free(cells);
  return m;
}

/* Two cubes in one body, CHOLMOD: fracturing one keeps the other's factor and analysis. */
static void test_island_cache(void **state) {
  (void)state;
  cl_mesh *m = two_cubes(4);
  cl_world *w = make_world();
  cl_world_set_gravity(w, (const double[3]){0, -9.81, 0});
  const cl_param p[] = {{"linear_solver", 1, NULL}};
  cl_id b = add(w, m, p, 1);
  cl_body_state *st = cl_world_body_state(w, b);
  cl_corot *s = solver_of(w, b);
  assert_int_equal(s->nislands, 2);
  assert_int_equal(cl_world_step(w, 2), CL_OK);
  const cl_linear_solver *second = s->islands[1].ls;
  assert_non_null(cl_linear_solver_cholmod(second));
  assert_non_null(second);
  cl_cholmod_stats before;
  cl_cholmod_get_stats(cl_linear_solver_cholmod(second), &before);
  /* split a node inside the first cube */
  const int32_t centre = 2 + 5 * (2 + 5 * 2);
  assert_int_equal(apply(s, st, 0, centre, 0.0, 1.0, 0.0), 1);
  assert_int_equal(s->nislands, 2);
  assert_int_equal(s->islands[0].reused, 0);
  assert_int_equal(s->islands[1].reused, 1);
  assert_ptr_equal(s->islands[1].ls, second);
  assert_int_equal(cl_world_step(w, 2), CL_OK);
  cl_cholmod_stats after;
  cl_cholmod_get_stats(cl_linear_solver_cholmod(s->islands[1].ls), &after);
  assert_int_equal(after.analyses, before.analyses); /* no new symbolic analysis for the untouched cube */
  cl_world_destroy(w);
  cl_mesh_destroy(m);
}

/* The same with galerkin_mg: each island has its own hierarchy; a fracture in the first cube gives it
 * a new one (its pattern changed) and keeps the second's. Islands no bigger than the grid's finest
 * coarse level, and islands under 64 nodes, use block-Jacobi PCG. */
static void test_island_cache_multigrid(void **state) {
  (void)state;
  cl_mesh *m = two_cubes(4); /* 125 nodes each */
  cl_world *w = make_world();
  cl_world_set_gravity(w, (const double[3]){0, -9.81, 0});
  const cl_param p[] = {{"linear_solver", CL_COROT_SOLVER_GALERKIN_MG, NULL}, {"grid", 0.0, "8/40/all"},
                        {"tolerance", 1e-9, NULL}};
  cl_id b = add(w, m, p, 3);
  cl_body_state *st = cl_world_body_state(w, b);
  cl_corot *s = solver_of(w, b);
  assert_int_equal(cl_world_step(w, 2), CL_OK);
  const cl_linear_solver *first = s->islands[0].ls, *second = s->islands[1].ls;
  assert_non_null(cl_linear_solver_multigrid(first));
  assert_non_null(cl_linear_solver_multigrid(second));
  cl_linear_solver_stats before;
  cl_linear_solver_get_stats(second, &before);
  assert_int_equal(before.analyses, 1);
  const int32_t centre = 2 + 5 * (2 + 5 * 2);
  assert_int_equal(apply(s, st, 0, centre, 0.0, 1.0, 0.0), 1);
  assert_int_equal(s->islands[1].reused, 1);
  assert_ptr_equal(s->islands[1].ls, second);
  assert_null(s->islands[0].ls); /* a new island: analysed at its first solve */
  assert_int_equal(cl_world_step(w, 2), CL_OK);
  assert_non_null(cl_linear_solver_multigrid(s->islands[0].ls));
  cl_mg_stats ms;
  cl_mg_get_stats(cl_linear_solver_multigrid(s->islands[0].ls), &ms);
  assert_int_equal(ms.levels, 3);
  assert_int_equal(ms.level[0].nodes, s->islands[0].nnodes); /* 126: the replicated node is in */
  cl_linear_solver_stats after;
  cl_linear_solver_get_stats(s->islands[1].ls, &after);
  assert_int_equal(after.analyses, before.analyses);
  cl_world_destroy(w);
  cl_mesh_destroy(m);
  /* islands too small for the grid: 64 nodes with "80/all" (no bigger than its coarse level), 27 nodes
   * (under 64) with "10/all": block-Jacobi PCG, and the steps converge */
  static const struct {
    int n;
    const char *grid;
  } small[] = {{3, "80/all"}, {2, "10/all"}};
  for (int k = 0; k < 2; ++k) {
    cl_mesh *mk = two_cubes(small[k].n);
    w = make_world();
    cl_world_set_gravity(w, (const double[3]){0, -9.81, 0});
    const cl_param q[] = {{"linear_solver", CL_COROT_SOLVER_GALERKIN_MG, NULL}, {"grid", 0.0, small[k].grid}};
    b = add(w, mk, q, 2);
    s = solver_of(w, b);
    assert_int_equal(cl_world_step(w, 2), CL_OK);
    for (int32_t i = 0; i < s->nislands; ++i) {
      assert_null(cl_linear_solver_multigrid(s->islands[i].ls));
      assert_string_equal(cl_linear_solver_entry(s->islands[i].ls), "pcg");
    }
    cl_world_destroy(w);
    cl_mesh_destroy(mk);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replication_by_plane_side),
      cmocka_unit_test(test_events_skipped),
      cmocka_unit_test(test_detach_unit),
      cmocka_unit_test(test_split_unit_by_plane),
      cmocka_unit_test(test_cluster_stretch_on_tets),
      cmocka_unit_test(test_joint_pruning),
      cmocka_unit_test(test_crack_across_cube),
      cmocka_unit_test(test_fragment_veto),
      cmocka_unit_test(test_stale_events_skipped),
      cmocka_unit_test(test_cracks_continue),
      cmocka_unit_test(test_island_cache),
      cmocka_unit_test(test_island_cache_multigrid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
