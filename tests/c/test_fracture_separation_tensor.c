/* The separation-tensor criterion (fracture/separation_tensor.c, O'Brien & Hodgins 1999, thesis eqs
 * 5.3-5.7): direction and sign of the separation tensor in a uniform stress field, the toughness
 * threshold, largest-only against all events, small islands, the strength per unit area, the
 * crack-tip rule, bad input, and a bar pulled apart by the corotational solver. */
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
#include "fracture/criterion.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "support/unit_fixture.h"
#include "support/test_worlds.h"
#include "world/world.h"

typedef cl_test_unit_fixture fixture;

/* A body state and unit fields for the tet grid of [0,1]^3 cut nx^3 cells, every unit with stress
 * sig (row-major), optionally with a second island: a 2x2x2 grid (48 tets) of [5,6]x[0,1]^2. */
static void make_fixture(fixture *f, int nx, const double *sig, int extra_island) {
  const cl_test_grid grids[2] = {{{nx, nx, nx}, {0, 0, 0}, {1, 1, 1}}, {{2, 2, 2}, {5, 0, 0}, {6, 1, 1}}};
  cl_test_unit_fixture_init(f, grids, extra_island ? 2 : 1);
  for (int32_t e = 0; e < f->u.count; ++e) memcpy(f->u.stress + 9 * e, sig, sizeof(double) * 9);
}

static void free_fixture(fixture *f) { cl_test_unit_fixture_free(f); }

static const cl_criterion_ops *criterion(void) { return cl_test_criterion("separation_tensor"); }

/* Parameters in table order: toughness, largest_only, min_island_elements, strength, crack_tips. */
static void *bind_params(const fixture *f, const double *params) {
  const cl_criterion_ops *ops = criterion();
  void *c = NULL;
  assert_int_equal(ops->create(&c), CL_OK);
  assert_int_equal(ops->param_count, 5);
  cl_material_def mat = {1000, 1e5, 0.3, -1, 0, 0, 0};
  cl_criterion_bind_input in = {params, &mat, "test", &k_tet_caps, &f->st, "fixture", NULL, 1};
  assert_int_equal(ops->bind(c, &in), CL_OK);
  return c;
}

/* The thesis's criterion: the toughness test, every node above it (no crack-tip rule). */
static void *bind(const fixture *f, double toughness, int largest_only, int min_island) {
  const double params[5] = {toughness, largest_only, min_island, 0.0, 0.0};
  return bind_params(f, params);
}

/* In a uniform tension s e_x e_x^T, an interior node feels balanced pulls (F+ = 0), so its separation
 * tensor is 1/2 sum m(f+), positive semi-definite with its only non-zero eigenvector along x; under
 * compression it is negative semi-definite and no node fails. */
static void test_uniform_tension_direction(void **state) {
  (void)state;
  const double s = 1000.0, sig[9] = {s, 0, 0, 0, 0, 0, 0, 0, 0};
  fixture f;
  make_fixture(&f, 4, sig, 0);
  void *c = bind(&f, 1e-9, 0, 3);
  cl_event_list ev = {0};
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  int interior = 0;
  double lmax = 0.0;
  for (int32_t k = 0; k < ev.count; ++k) {
    const cl_fracture_event *e = &ev.items[k];
    const double *X = f.st.X + 3 * e->split_node.node;
    int inside = X[0] > 0.1 && X[0] < 0.9 && X[1] > 0.1 && X[1] < 0.9 && X[2] > 0.1 && X[2] < 0.9;
    assert_true(fabs(sqrt(e->split_node.normal[0] * e->split_node.normal[0] + e->split_node.normal[1] * e->split_node.normal[1] + e->split_node.normal[2] * e->split_node.normal[2]) - 1.0) < 1e-12);
    if (inside) {
      ++interior;
      assert_true(fabs(fabs(e->split_node.normal[0]) - 1.0) < 1e-12);
      lmax = fmax(lmax, e->value);
    }
    /* the event's unit touches its node */
    const int32_t *t = f.st.cells + 4 * e->split_node.unit;
    assert_true(t[0] == e->split_node.node || t[1] == e->split_node.node || t[2] == e->split_node.node || t[3] == e->split_node.node);
  }
  assert_int_equal(interior, 27); /* the 3^3 interior nodes of a 4^3 grid */
  /* the eigenvalue: 1/2 sum over the node's elements of |v s g_x| (a direct sum, independent of the code) */
  double expect = 0.0;
  const int32_t centre = 2 + 5 * (2 + 5 * 2);
  for (int32_t e = 0; e < f.st.ncells; ++e) {
    const int32_t *t = f.st.cells + 4 * e;
    int a = -1;
    for (int q = 0; q < 4; ++q)
      if (t[q] == centre) a = q;
    if (a < 0) continue;
    /* gradient of the barycentric coordinate of corner a: normal of the opposite face / (3 v) */
    int o[3], k = 0;
    for (int q = 0; q < 4; ++q)
      if (q != a) o[k++] = t[q];
    const double *p0 = f.st.x + 3 * o[0], *p1 = f.st.x + 3 * o[1], *p2 = f.st.x + 3 * o[2], *pa = f.st.x + 3 * t[a];
    double u1[3], u2[3], w[3], nrm[3];
    for (int d = 0; d < 3; ++d) u1[d] = p1[d] - p0[d], u2[d] = p2[d] - p0[d], w[d] = pa[d] - p0[d];
    nrm[0] = u1[1] * u2[2] - u1[2] * u2[1];
    nrm[1] = u1[2] * u2[0] - u1[0] * u2[2];
    nrm[2] = u1[0] * u2[1] - u1[1] * u2[0];
    double h = nrm[0] * w[0] + nrm[1] * w[1] + nrm[2] * w[2]; /* 6 v, signed towards a */
    double v = fabs(h) / 6.0, gx = nrm[0] / h;
    expect += 0.5 * fabs(v * s * gx);
  }
  int found = 0;
  for (int32_t k = 0; k < ev.count; ++k)
    if (ev.items[k].split_node.node == centre) {
      found = 1;
      print_message("centre node: eigenvalue %.15g, direct sum %.15g\n", ev.items[k].value, expect);
      assert_true(fabs(ev.items[k].value - expect) <= 1e-12 * expect);
    }
  assert_true(found);
  criterion()->destroy(c);

  /* compression: no failure anywhere inside */
  for (int32_t e = 0; e < f.u.count; ++e) f.u.stress[9 * e] = -s;
  c = bind(&f, 1e-9, 0, 3);
  ev.count = 0;
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  for (int32_t k = 0; k < ev.count; ++k) {
    const double *X = f.st.X + 3 * ev.items[k].split_node.node;
    assert_false(X[0] > 0.1 && X[0] < 0.9 && X[1] > 0.1 && X[1] < 0.9 && X[2] > 0.1 && X[2] < 0.9);
  }
  criterion()->destroy(c);
  cl_event_list_free(&ev);
  free_fixture(&f);
}

static void test_threshold_and_largest_only(void **state) {
  (void)state;
  const double sig[9] = {500, 100, 0, 100, 200, 0, 0, 0, -300};
  fixture f;
  make_fixture(&f, 3, sig, 0);
  cl_event_list all = {0}, one = {0}, none = {0};
  void *c = bind(&f, 1e-9, 0, 3);
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &all), CL_OK);
  criterion()->destroy(c);
  assert_true(all.count > 10);
  double top = 0.0;
  for (int32_t k = 0; k < all.count; ++k) top = fmax(top, all.items[k].value);
  c = bind(&f, 1e-9, 1, 3);
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &one), CL_OK);
  criterion()->destroy(c);
  assert_int_equal(one.count, 1);
  assert_true(one.items[0].value == top);
  /* a toughness just above the largest eigenvalue: nothing fails; just below: exactly the top ones */
  c = bind(&f, top * (1 + 1e-9), 0, 3);
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &none), CL_OK);
  criterion()->destroy(c);
  assert_int_equal(none.count, 0);
  for (int32_t k = 0; k < all.count; ++k) assert_true(all.items[k].priority == all.items[k].value / 1e-9);
  cl_event_list_free(&all);
  cl_event_list_free(&one);
  cl_event_list_free(&none);
  free_fixture(&f);
}

/* Nodes on an island of at most min_island_elements elements are never checked, however stressed. */
static void test_small_islands_skipped(void **state) {
  (void)state;
  const double sig[9] = {1000, 0, 0, 0, 0, 0, 0, 0, 0};
  fixture f;
  make_fixture(&f, 3, sig, 1); /* islands of 162 and 48 tets */
  const int32_t first_extra = 64;
  for (int m = 0; m <= 1; ++m) {
    void *c = bind(&f, 1e-9, 0, m ? 47 : 48);
    cl_event_list ev = {0};
    assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
    int on_extra = 0, on_main = 0;
    for (int32_t k = 0; k < ev.count; ++k) {
      on_extra += ev.items[k].split_node.node >= first_extra;
      on_main += ev.items[k].split_node.node < first_extra;
    }
    assert_true(on_main > 0);
    if (m) assert_true(on_extra > 0);
    else assert_int_equal(on_extra, 0);
    criterion()->destroy(c);
    cl_event_list_free(&ev);
  }
  free_fixture(&f);
}

static void test_bad_input(void **state) {
  (void)state;
  const double sig[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
  fixture f;
  make_fixture(&f, 1, sig, 0);
  const cl_criterion_ops *ops = criterion();
  void *c = NULL;
  assert_int_equal(ops->create(&c), CL_OK);
  double params[5] = {1.0, 1, 3, 0, 1};
  cl_material_def mat = {1000, 1e5, 0.3, -1, 0, 0, 0};
  cl_criterion_bind_input in = {params, &mat, "test", &k_tet_caps, &f.st, "fixture", NULL, 1};
  assert_int_equal(ops->bind(c, &in), CL_OK);
  /* units that are not the tets */
  f.u.count = f.st.ncells - 1;
  cl_event_list ev = {0};
  assert_int_equal(ops->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_ERR_STATE);
  ops->destroy(c);
  free_fixture(&f);
  cl_event_list_free(&ev);
  /* a body whose units are not tets: the world refuses the pairing, says why and names the
   * criteria that do work with that solver */
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const double lo[3] = {0, 0, 0}, hi[3] = {0.2, 0.2, 0.2};
  cl_mesh *m;
  assert_int_equal(cl_tet_grid(3, 3, 3, lo, hi, &m), CL_OK);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = "shape_matching";
  bd.criterion = "separation_tensor";
  cl_id b;
  assert_int_equal(cl_world_add_body(w, &bd, m, &b), CL_ERR_INVALID_ARGUMENT);
  print_message("world: %s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "needs tets and the solver's units are clusters"));
  assert_non_null(strstr(cl_last_error(), "criteria that work with solver 'shape_matching': cluster_stretch"));
  cl_mesh_destroy(m);
  cl_world_destroy(w);
}


/* The value of the event at node `node`, or -1 if it raised none. */
static double value_at(const cl_event_list *ev, int32_t node) {
  for (int32_t k = 0; k < ev->count; ++k)
    if (ev->items[k].split_node.node == node) return ev->items[k].value;
  return -1.0;
}

/* strength > 0: the eigenvalue per unit area of the node's section normal to the crack plane. In a
 * uniform tension s it is s at every interior node, whatever the element size, where the eigenvalue
 * itself (a force) scales with the area of the elements: 4x from an 8^3 to a 4^3 grid of the same cube. */
static void test_strength_per_area(void **state) {
  (void)state;
  const double s = 1000.0, sig[9] = {s, 0, 0, 0, 0, 0, 0, 0, 0};
  double force[2], stress[2];
  const int nx[2] = {4, 8};
  for (int g = 0; g < 2; ++g) {
    fixture f;
    make_fixture(&f, nx[g], sig, 0);
    const int32_t n1 = nx[g] + 1, centre = nx[g] / 2 * (1 + n1 + n1 * n1);
    assert_true(fabs(f.st.X[3 * centre] - 0.5) < 1e-12 && fabs(f.st.X[3 * centre + 2] - 0.5) < 1e-12);
    cl_event_list ev = {0};
    const double by_force[5] = {1e-9, 0, 3, 0, 0}, by_stress[5] = {1e-9, 0, 3, 1e-9, 0};
    void *c = bind_params(&f, by_force);
    assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
    force[g] = value_at(&ev, centre);
    criterion()->destroy(c);
    ev.count = 0;
    c = bind_params(&f, by_stress);
    assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
    stress[g] = value_at(&ev, centre);
    int interior = 0;
    for (int32_t k = 0; k < ev.count; ++k) {
      const double *X = f.st.X + 3 * ev.items[k].split_node.node;
      if (X[0] > 1e-9 && X[0] < 1 - 1e-9 && X[1] > 1e-9 && X[1] < 1 - 1e-9 && X[2] > 1e-9 && X[2] < 1 - 1e-9) {
        ++interior;
        assert_true(fabs(ev.items[k].value - s) <= 1e-9 * s);
        assert_true(fabs(ev.items[k].priority - s / 1e-9) <= 1e-6 * s / 1e-9);
      }
    }
    assert_int_equal(interior, (nx[g] - 1) * (nx[g] - 1) * (nx[g] - 1));
    criterion()->destroy(c);
    cl_event_list_free(&ev);
    free_fixture(&f);
  }
  print_message("centre node: force %.6g / %.6g N, per area %.12g / %.12g Pa\n", force[0], force[1], stress[0], stress[1]);
  assert_true(fabs(force[0] / force[1] - 4.0) < 1e-9);
  assert_true(fabs(stress[0] - s) <= 1e-9 * s && fabs(stress[1] - s) <= 1e-9 * s);
}

/* crack_tips: without a crack a piece starts one (its highest node); once a node has split, only the
 * crack's tips (nodes both sides still share) go on, their neighbours wait, and no other crack starts. */
static void test_crack_tips(void **state) {
  (void)state;
  const double s = 1000.0, sig[9] = {s, 0, 0, 0, 0, 0, 0, 0, 0};
  fixture f;
  make_fixture(&f, 4, sig, 0);
  const double tips[5] = {1e-9, 0, 3, 0, 1};
  void *c = bind_params(&f, tips);
  cl_event_list ev = {0};
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  assert_int_equal(ev.count, 1);
  /* split the centre node along x = 0.5 by hand: the tets whose centre lies at x > 0.5 take a copy */
  const int32_t centre = 2 * (1 + 5 + 25), n0 = f.st.n;
  assert_int_equal(cl_body_state_resize(&f.st, n0 + 1), CL_OK);
  for (int k = 0; k < 3; ++k) f.st.x[3 * n0 + k] = f.st.X[3 * n0 + k] = f.st.X[3 * centre + k];
  f.st.origin[n0] = centre;
  for (int32_t e = 0; e < f.st.ncells; ++e) {
    int32_t *t = f.st.cells + 4 * e;
    double cx = 0.0;
    for (int a = 0; a < 4; ++a) cx += 0.25 * f.st.X[3 * t[a]];
    for (int a = 0; a < 4; ++a)
      if (t[a] == centre && cx > 0.5) t[a] = n0;
  }
  f.st.topology_version++;
  ev.count = 0;
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  assert_true(ev.count > 0);
  for (int32_t k = 0; k < ev.count; ++k) {
    const int32_t node = ev.items[k].split_node.node;
    const double *X = f.st.X + 3 * node;
    /* a tip: a node of the plane x = 0.5 next to the split one, not the split node or its copy */
    assert_true(node != centre && node != n0);
    assert_true(fabs(X[0] - 0.5) < 1e-12);
    assert_true(fabs(X[1] - 0.5) <= 0.25 + 1e-12 && fabs(X[2] - 0.5) <= 0.25 + 1e-12);
  }
  print_message("crack tips: %d events after the split\n", ev.count);
  criterion()->destroy(c);
  cl_event_list_free(&ev);
  free_fixture(&f);
}

/* A bar pulled apart at both ends breaks across its length, in pieces, conserving mass. */
static void test_bar_pulled_apart(void **state) {
  (void)state;
  const double lo[3] = {0, 0, 0}, hi[3] = {0.4, 0.05, 0.05};
  cl_mesh *m;
  assert_int_equal(cl_tet_grid(16, 2, 2, lo, hi, &m), CL_OK);
  const double dt = 1e-3;
  cl_world *w = cl_test_world(dt, 0.0, 1);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.name = "brittle";
  bd.solver = "corotational";
  bd.material.young = 1e5;
  bd.criterion = "separation_tensor";
  cl_param cp[] = {{"toughness", 0.5, NULL}, {"largest_only", 0, NULL}};
  bd.criterion_params = cp;
  bd.criterion_param_count = 2;
  cl_id b;
  assert_int_equal(cl_world_add_body(w, &bd, m, &b), CL_OK);
  cl_test_x_slab(w, b, -1.0, 0.0, -0.5);
  cl_test_x_slab(w, b, 0.4, 1.0, 0.5);
  cl_body_info before, after;
  assert_int_equal(cl_body_get_info(w, b, &before), CL_OK);
  int32_t events = 0;
  for (int i = 0; i < 100 && events == 0; ++i) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    cl_world_stats stats;
    cl_world_get_stats(w, &stats);
    events += stats.fracture_events;
  }
  assert_true(events > 0);
  assert_int_equal(cl_world_step(w, 100), CL_OK);
  assert_int_equal(cl_body_get_info(w, b, &after), CL_OK);
  print_message("pulled bar: %d -> %d nodes, %d pieces, mass %.12g -> %.12g kg\n", before.nodes, after.nodes,
                after.pieces, before.mass, after.mass);
  assert_true(after.nodes > before.nodes);
  assert_true(after.pieces >= 2);
  assert_true(fabs(after.mass - before.mass) <= 1e-12 * before.mass);
  /* the ends are apart: no path of elements from one end to the other carries the pull any more */
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < 3 * st->n; ++i) assert_true(isfinite(st->x[i]));
  cl_world_destroy(w);
  cl_mesh_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_uniform_tension_direction),
      cmocka_unit_test(test_threshold_and_largest_only),
      cmocka_unit_test(test_small_islands_skipped),
      cmocka_unit_test(test_strength_per_area),
      cmocka_unit_test(test_crack_tips),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_bar_pulled_apart),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
