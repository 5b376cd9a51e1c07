/* The internal invariant checks (src/world/validate.c, -DCLEAVE_VALIDATE=ON): a healthy body of each
 * solver passes after every phase, and each broken invariant is caught with a message naming the
 * body, the phase and what is wrong. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "support/test_worlds.h"
#include "world/world.h"

static cl_body *add_box(cl_world *w, const char *solver, const char *criterion, cl_id *id) {
  const double lo[3] = {0, 0, 0}, hi[3] = {0.2, 0.1, 0.1};
  cl_mesh *m;
  assert_int_equal(cl_tet_grid(4, 2, 2, lo, hi, &m), CL_OK);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.name = "checked";
  bd.solver = solver;
  bd.material.young = 1e5;
  bd.criterion = criterion;
  assert_int_equal(cl_world_add_body(w, &bd, m, id), CL_OK);
  cl_mesh_destroy(m);
  cl_body *b = NULL;
  assert_int_equal(cl_world_body(w, *id, &b), CL_OK);
  return b;
}

static void test_healthy_bodies_pass(void **state) {
  (void)state;
  static const char *const solvers[] = {"corotational", "shape_matching"};
  for (int k = 0; k < 2; ++k) {
    cl_world *w = cl_test_world(1e-3, -9.81, 1);
    cl_id id;
    cl_body *b = add_box(w, solvers[k], "cluster_stretch", &id);
    cl_test_x_slab(w, id, -1.0, 0.01, 0.0);
    assert_int_equal(cl_world_step(w, 3), CL_OK);
    assert_int_equal(cl_body_measure(b), CL_OK);
    for (int p = CL_VALIDATE_BIND; p <= CL_VALIDATE_TOPOLOGY; ++p)
      assert_int_equal(cl_body_validate(b, (cl_validate_phase)p), CL_OK);
    cl_world_destroy(w);
  }
}

static void expect_broken(const cl_body *b, cl_validate_phase phase, const char *text) {
  assert_int_equal(cl_body_validate(b, phase), CL_ERR_STATE);
  print_message("%s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "body 'checked'"));
  assert_non_null(strstr(cl_last_error(), "internal invariant broken"));
  assert_non_null(strstr(cl_last_error(), text));
}

static void test_broken_invariants_are_named(void **state) {
  (void)state;
  cl_world *w = cl_test_world(1e-3, 0.0, 1);
  cl_id id;
  cl_body *b = add_box(w, "corotational", "separation_tensor", &id);
  cl_body_state *st = &b->state;
  /* a cell index out of range */
  int32_t keep = st->cells[5];
  st->cells[5] = st->n;
  expect_broken(b, CL_VALIDATE_TOPOLOGY, "refers to node");
  st->cells[5] = keep;
  /* an origin that names a later node */
  st->origin[2] = 3;
  expect_broken(b, CL_VALIDATE_BIND, "origin 3");
  st->origin[2] = 2;
  /* a NaN velocity, a negative mass */
  st->v[4] = NAN;
  expect_broken(b, CL_VALIDATE_SOLVE, "non-finite velocity of node 1");
  st->v[4] = 0.0;
  double m0 = st->m[0];
  st->m[0] = -1.0;
  expect_broken(b, CL_VALIDATE_SOLVE, "mass -1");
  st->m[0] = m0;
  /* unit fields out of step with the solver */
  assert_int_equal(cl_body_measure(b), CL_OK);
  assert_int_equal(cl_body_validate(b, CL_VALIDATE_MEASURE), CL_OK);
  b->units.stress[0] = INFINITY;
  expect_broken(b, CL_VALIDATE_MEASURE, "non-finite unit measure");
  b->units.stress[0] = 0.0;
  b->units.count -= 1;
  expect_broken(b, CL_VALIDATE_MEASURE, "measured units");
  b->units.count += 1;
  /* an event of a kind the criterion does not raise, one out of range */
  b->events.count = 0;
  cl_fracture_event e = cl_event_split_unit(0, NULL, 1.0, 1.0);
  assert_int_equal(cl_event_push(&b->events, &e), CL_OK);
  expect_broken(b, CL_VALIDATE_CRITERIA, "is not one the criterion 'separation_tensor' declares");
  b->events.count = 0;
  e = cl_event_split_node(st->n + 7, 0, NULL, 1.0, 1.0);
  assert_int_equal(cl_event_push(&b->events, &e), CL_OK);
  expect_broken(b, CL_VALIDATE_CRITERIA, "splits node");
  b->events.count = 0;
  assert_int_equal(cl_body_validate(b, CL_VALIDATE_CRITERIA), CL_OK);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_healthy_bodies_pass),
      cmocka_unit_test(test_broken_invariants_are_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
