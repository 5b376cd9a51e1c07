/* The plasticity-based criterion (fracture/plastic_excess.c, thesis sec 5.6, eqs 5.10-5.11): no
 * excess below the plastic cap, accumulation over steps, clearing of a fractured node, the plane
 * normal, largest-only, bad input, and a ductile bar pulled apart by the corotational solver. */
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

static const cl_material_def k_mat = {1000.0, 1e5, 0.3, 0.001, 1e9, 0.0, 0.01};

typedef cl_test_unit_fixture fixture;

/* An nx^3 grid of [0,1]^3 stretched by 5 % along x (F = diag(1.05, 1, 1) in every unit), every unit
 * with the deviatoric plastic strain along x of Frobenius norm `plastic` (rest frame). */
static void make_grid_fixture(fixture *f, int nx, double plastic) {
  const cl_test_grid grid = {{nx, nx, nx}, {0, 0, 0}, {1, 1, 1}};
  cl_test_unit_fixture_init(f, &grid, 1);
  const int32_t np = f->st.n, nc = f->u.count;
  for (int32_t i = 0; i < np; ++i) f->st.x[3 * i] = 1.05 * f->st.X[3 * i];
  const double d = plastic / sqrt(1.5); /* diag(1, -1/2, -1/2) has norm sqrt(3/2) */
  for (int32_t e = 0; e < nc; ++e) {
    f->u.F[9 * e] = 1.05;
    f->u.plastic[9 * e] = d;
    f->u.plastic[9 * e + 4] = f->u.plastic[9 * e + 8] = -0.5 * d;
    f->u.volume[e] = 1.0 / (6.0 * nx * nx * nx);
  }
}

/* The 2x2x2 grid. */
static void make_fixture(fixture *f, double plastic) { make_grid_fixture(f, 2, plastic); }

static void free_fixture(fixture *f) { cl_test_unit_fixture_free(f); }

static const cl_criterion_ops *criterion(void) { return cl_test_criterion("plastic_excess"); }

/* Parameters in table order: toughness, largest_only, min_island_elements, strength, crack_tips, plane
 * (0 net_force, 1 principal), excess (0 per_step, 1 refused). */
enum { NET_FORCE = 0, PRINCIPAL = 1, PER_STEP = 0, REFUSED = 1 };
static void *bind_params(const fixture *f, const double *params) {
  void *c = NULL;
  assert_int_equal(criterion()->create(&c), CL_OK);
  assert_int_equal(criterion()->param_count, 7);
  cl_criterion_bind_input in = {params, &k_mat, "corotational", &k_tet_caps, &f->st, "fixture", NULL, 1};
  assert_int_equal(criterion()->bind(c, &in), CL_OK);
  return c;
}

/* The thesis's criterion: the toughness, the plane of eq 5.11, the excess of every step summed. */
static void *bind(const fixture *f, double toughness, int largest_only) {
  const double params[7] = {toughness, largest_only, 3, 0.0, 0.0, NET_FORCE, PER_STEP};
  return bind_params(f, params);
}

static int on_boundary(const double *X) {
  for (int k = 0; k < 3; ++k)
    if (X[k] < 1e-12 || X[k] > 1.0 - 1e-12) return 1;
  return 0;
}

static void test_excess_only_at_the_cap(void **state) {
  (void)state;
  fixture below, at;
  make_fixture(&below, 0.5 * k_mat.plastic_max);
  make_fixture(&at, k_mat.plastic_max);
  cl_event_list ev = {0};
  void *c = bind(&below, 0.0, 0);
  for (int k = 0; k < 3; ++k) assert_int_equal(criterion()->evaluate(c, &below.u, &below.st, 0.01, &ev), CL_OK);
  assert_int_equal(ev.count, 0);
  criterion()->destroy(c);
  c = bind(&at, 0.0, 0);
  assert_int_equal(criterion()->evaluate(c, &at.u, &at.st, 0.01, &ev), CL_OK);
  assert_true(ev.count > 0);
  /* the excess strain field is uniform: inside, the element forces balance and give no plane (eq 5.11),
   * so only surface nodes break, with a normal along the stretch where the pull is not balanced */
  double mx = 0.0;
  for (int32_t k = 0; k < ev.count; ++k) {
    const cl_fracture_event *e = &ev.items[k];
    assert_true(on_boundary(at.st.X + 3 * e->split_node.node));
    assert_true(e->value > 0.0);
    mx = fmax(mx, e->value);
    const double *X = at.st.X + 3 * e->split_node.node;
    if ((X[0] < 1e-12 || X[0] > 1 - 1e-12) && X[1] == 0.5 && X[2] == 0.5) assert_true(fabs(e->split_node.normal[0]) > 0.99);
  }
  criterion()->destroy(c);
  cl_event_list_free(&ev);
  free_fixture(&below);
  free_fixture(&at);
}

/* Excess accumulates step after step (eq 5.10 summed over time); a broken node starts again from 0. */
static void test_accumulation_and_clearing(void **state) {
  (void)state;
  fixture f;
  make_fixture(&f, k_mat.plastic_max);
  cl_event_list ev = {0};
  void *c = bind(&f, 0.0, 0);
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  double m1 = 0.0;
  int32_t top = -1;
  for (int32_t k = 0; k < ev.count; ++k)
    if (ev.items[k].value > m1) m1 = ev.items[k].value, top = ev.items[k].split_node.node;
  criterion()->destroy(c);

  c = bind(&f, 1.5 * m1, 1);
  ev.count = 0;
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  assert_int_equal(ev.count, 0); /* one step's excess is below the toughness */
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  assert_int_equal(ev.count, 1); /* two steps' is above; largest only */
  assert_true(fabs(ev.items[0].value - 2.0 * m1) <= 1e-12 * m1);
  assert_true(fabs(ev.items[0].priority - 2.0 / 1.5) <= 1e-12);
  const int32_t broken = ev.items[0].split_node.node;
  assert_true(fabs(ev.items[0].value - 2.0 * m1) < 1e-9 * m1 && top >= 0);
  ev.count = 0;
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  /* another node of the same size breaks now; the broken one was cleared and holds one step's excess */
  assert_int_equal(ev.count, 1);
  assert_true(ev.items[0].split_node.node != broken);
  criterion()->destroy(c);
  cl_event_list_free(&ev);
  free_fixture(&f);
}


/* The crack plane of plane = "principal": the principal direction of the excess forces on a node. In a
 * uniform excess strain along x the forces on an interior node balance, so eq 5.11 gives no plane there;
 * their principal direction is x. */
static void test_principal_plane(void **state) {
  (void)state;
  fixture f;
  make_grid_fixture(&f, 4, k_mat.plastic_max);
  const double params[7] = {0.0, 0, 3, 0.0, 0.0, PRINCIPAL, PER_STEP};
  void *c = bind_params(&f, params);
  cl_event_list ev = {0};
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  int interior = 0;
  double nmin = 1.0;
  for (int32_t k = 0; k < ev.count; ++k) {
    if (on_boundary(f.st.X + 3 * ev.items[k].split_node.node)) continue;
    ++interior;
    nmin = fmin(nmin, fabs(ev.items[k].split_node.normal[0]));
  }
  assert_int_equal(interior, 27);
  print_message("principal plane: smallest |n_x| inside %.12f\n", nmin);
  assert_true(nmin > 1.0 - 1e-9);
  criterion()->destroy(c);
  cl_event_list_free(&ev);
  free_fixture(&f);
}

/* excess = "refused": the plastic strain the cap has refused so far. A state that does not change does
 * not grow it (per_step adds the same amount every step); straining further does; a node that broke
 * starts again from what its elements refuse after the break. */
static void test_refused_excess(void **state) {
  (void)state;
  fixture f;
  make_fixture(&f, k_mat.plastic_max);
  const double refused[7] = {0.0, 1, 3, 0.0, 0.0, PRINCIPAL, REFUSED};
  void *c = bind_params(&f, refused);
  cl_event_list ev = {0};
  double v[3];
  for (int k = 0; k < 3; ++k) {
    ev.count = 0;
    assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
    assert_int_equal(ev.count, 1);
    v[k] = ev.items[0].value;
  }
  /* the shadow flows at rate flow dt towards the yield surface, then stays: the excess converges */
  print_message("refused excess over 3 unchanged steps: %.9g %.9g %.9g\n", v[0], v[1], v[2]);
  assert_true(v[1] >= v[0] && v[2] >= v[1] && v[2] <= 1.01 * v[1]);
  /* strained further: it grows */
  for (int32_t e = 0; e < f.u.count; ++e) f.u.F[9 * e] = 1.10;
  ev.count = 0;
  assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
  assert_int_equal(ev.count, 1);
  assert_true(ev.items[0].value > 1.5 * v[2]);
  criterion()->destroy(c);
  cl_event_list_free(&ev);
  free_fixture(&f);
}

/* strength > 0: the excess force per unit area of the node's section, p / (2 A) with A = 1/4 sum V |g|:
 * the same at the centre of a 2^3 and a 4^3 grid of the same cube, where p itself scales with the
 * area of the elements (4x). */
static void test_strength_per_area(void **state) {
  (void)state;
  double force[2], stress[2];
  const int nx[2] = {2, 4};
  for (int g = 0; g < 2; ++g) {
    fixture f;
    make_grid_fixture(&f, nx[g], k_mat.plastic_max);
    const int32_t n1 = nx[g] + 1, centre = nx[g] / 2 * (1 + n1 + n1 * n1);
    for (int by_area = 0; by_area < 2; ++by_area) {
      const double params[7] = {0.0, 0, 3, by_area ? 1e-9 : 0.0, 0.0, PRINCIPAL, PER_STEP};
      void *c = bind_params(&f, params);
      cl_event_list ev = {0};
      assert_int_equal(criterion()->evaluate(c, &f.u, &f.st, 0.01, &ev), CL_OK);
      double value = -1.0;
      for (int32_t k = 0; k < ev.count; ++k)
        if (ev.items[k].split_node.node == centre) value = ev.items[k].value;
      assert_true(value > 0.0);
      (by_area ? stress : force)[g] = value;
      criterion()->destroy(c);
      cl_event_list_free(&ev);
    }
    free_fixture(&f);
  }
  print_message("centre node: p %.6g / %.6g N, per area %.9g / %.9g Pa\n", force[0], force[1], stress[0], stress[1]);
  assert_true(fabs(force[0] / force[1] - 4.0) < 1e-9);
  assert_true(fabs(stress[0] / stress[1] - 1.0) < 1e-9);
}

static void test_bad_input(void **state) {
  (void)state;
  fixture f;
  make_fixture(&f, 0.0);
  void *c = NULL;
  assert_int_equal(criterion()->create(&c), CL_OK);
  double params[7] = {1.0, 1, 3, 0, 1, PRINCIPAL, REFUSED};
  cl_material_def elastic = k_mat;
  elastic.plastic_yield = -1.0;
  cl_criterion_bind_input in = {params, &elastic, "corotational", &k_tet_caps, &f.st, "fixture", NULL, 1};
  assert_int_equal(criterion()->bind(c, &in), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "plastic_yield"));
  cl_material_def uncapped = k_mat;
  uncapped.plastic_max = 0.0;
  in.material = &uncapped;
  assert_int_equal(criterion()->bind(c, &in), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "plastic_max"));
  in.material = &k_mat;
  criterion()->destroy(c);
  free_fixture(&f);
  /* through the world: an elastic material with this criterion is refused when the body is added */
  cl_world_def wd;
  cl_world_def_default(&wd);
  cl_world *w;
  assert_int_equal(cl_world_create(&wd, &w), CL_OK);
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  cl_mesh *m;
  assert_int_equal(cl_tet_grid(1, 1, 1, lo, hi, &m), CL_OK);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.name = "elastic";
  bd.solver = "corotational";
  bd.criterion = "plastic_excess";
  cl_id b;
  assert_int_equal(cl_world_add_body(w, &bd, m, &b), CL_ERR_INVALID_ARGUMENT);
  print_message("world: %s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "elastic"));
  cl_mesh_destroy(m);
  cl_world_destroy(w);
}

/* A ductile bar pulled apart: it flows, reaches its plastic cap where it necks, and tears there. */
static void test_ductile_bar_tears(void **state) {
  (void)state;
  const double lo[3] = {0, 0, 0}, hi[3] = {0.4, 0.05, 0.05};
  cl_mesh *m;
  assert_int_equal(cl_tet_grid(16, 2, 2, lo, hi, &m), CL_OK);
  const double dt = 2e-3;
  cl_world *w = cl_test_world(dt, 0.0, 1);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.name = "ductile";
  bd.solver = "corotational";
  bd.material = k_mat;
  bd.material.plastic_flow = 50.0;
  bd.material.plastic_max = 0.2;
  bd.criterion = "plastic_excess";
  cl_param cp[] = {{"toughness", 5.0, NULL}};
  bd.criterion_params = cp;
  bd.criterion_param_count = 1;
  cl_id b;
  assert_int_equal(cl_world_add_body(w, &bd, m, &b), CL_OK);
  cl_test_x_slab(w, b, -1.0, 0.0, -0.2);
  cl_test_x_slab(w, b, 0.4, 1.0, 0.2);
  cl_body_info info = {0};
  int step = 0, first = -1;
  for (; step < 600 && info.pieces < 2; ++step) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    cl_world_stats stats;
    cl_world_get_stats(w, &stats);
    if (first < 0 && stats.fracture_events > 0) first = step;
    assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
  }
  /* it yielded before it broke: plastic strain was at the cap somewhere */
  static double P[9 * 4096];
  assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_PLASTIC_STRAIN, P, 9 * 4096), CL_OK);
  double pmax = 0.0;
  for (int32_t u = 0; u < info.units; ++u) {
    double s = 0.0;
    for (int k = 0; k < 9; ++k) s += P[9 * u + k] * P[9 * u + k];
    pmax = fmax(pmax, sqrt(s));
  }
  print_message("ductile bar: first event at step %d, two pieces at step %d (stretch %.0f %%), max plastic strain %.3g\n",
                first, step, 100.0 * 0.4 * step * dt / 0.4, pmax);
  assert_true(first > 0);
  assert_true(info.pieces >= 2);
  assert_true(pmax > 0.5 * bd.material.plastic_max);
  cl_world_destroy(w);
  cl_mesh_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_excess_only_at_the_cap),
      cmocka_unit_test(test_accumulation_and_clearing),
      cmocka_unit_test(test_principal_plane),
      cmocka_unit_test(test_refused_excess),
      cmocka_unit_test(test_strength_per_area),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_ductile_bar_tears),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
