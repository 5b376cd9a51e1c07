/* The push between pieces through cluster proxies (sm_collide.c, paper sec 3.1) as the solver runs
 * it (a cluster's pairs with the clusters after it in the sweep handled together, every member of
 * the cluster tested against all of them at once) against the plain algorithm (pair by pair, member
 * by member; bit 4 of no_shortcuts): a weak plate shattered by a projectile, whose many small pieces
 * push each other out of their proxies, must follow bitwise the same trajectory, with the same
 * number of pushes, and with 1 and 2 threads. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/test_meshes.h"

#include "cleave/world.h"
#include "geom/mesh.h"
#include "solvers/shape_matching/shape_matching.h"
#include "solvers/shape_matching/sm_internal.h"
#include "world/world.h"

typedef struct run_out {
  double *x;
  int32_t n;
  int64_t pushes, fractures;
} run_out;

/* A plate 0.5 x 0.5 x 0.04 m clamped at its two x edges, toughness 0.001 (it shatters), a sphere of
 * radius 0.08 m through its middle at 0.6 m/s; `steps` steps of 1/60 s. */
static void run(int threads, int no_shortcuts, int steps, run_out *o) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = 1.0 / 60;
  def.gravity[1] = 0.0;
  def.threads = threads;
  def.seed = 5;
  cl_world *w = NULL;
  assert_int_equal(cl_world_create(&def, &w), CL_OK);
  cl_mesh *m = cl_test_box(0.5, 0.5, 0.04);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = "shape_matching";
  cl_param p[5] = {{"particles", 1200}, {"cluster_count", 24}, {"alpha", 1.0}, {"gamma", 0.2}, {"iterations", 4}};
  bd.params = p;
  bd.param_count = 5;
  cl_param cp[1] = {{"toughness", 0.001}};
  bd.criterion = "cluster_stretch";
  bd.criterion_params = cp;
  bd.criterion_param_count = 1;
  cl_id b;
  cl_status s = cl_world_add_body(w, &bd, m, &b);
  if (s != CL_OK) print_error("%s\n", cl_last_error());
  assert_int_equal(s, CL_OK);
  cl_mesh_destroy(m);
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = 0;
  cl_motion_def mo;
  cl_motion_def_default(&mo, CL_MOTION_FIXED);
  cl_id c;
  r.lo[0] = -1.0;
  r.hi[0] = -0.2;
  assert_int_equal(cl_world_constrain(w, b, &r, &mo, &c), CL_OK);
  r.lo[0] = 0.2;
  r.hi[0] = 1.0;
  assert_int_equal(cl_world_constrain(w, b, &r, &mo, &c), CL_OK);
  cl_collider_def cd;
  cl_collider_def_default(&cd, CL_COLLIDER_SPHERE);
  cd.radius = 0.08;
  cd.center[2] = 0.1;
  cd.velocity[2] = -0.6;
  cl_id col;
  assert_int_equal(cl_world_add_collider(w, &cd, &col), CL_OK);
  cl_body *body = NULL;
  assert_int_equal(cl_world_body(w, b, &body), CL_OK);
  cl_sm *sm = body->solver;
  sm->no_shortcuts = no_shortcuts;
  s = cl_world_step(w, steps);
  if (s != CL_OK) print_error("%s\n", cl_last_error());
  assert_int_equal(s, CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  o->n = st->n;
  o->x = malloc(sizeof(double) * 3 * (size_t)st->n);
  assert_non_null(o->x);
  memcpy(o->x, st->x, sizeof(double) * 3 * (size_t)st->n);
  o->pushes = sm->proxy_pushes;
  o->fractures = sm->stats.fractures;
  cl_world_destroy(w);
}

static void expect_same(const run_out *a, const run_out *b) {
  assert_int_equal(a->n, b->n);
  assert_int_equal(a->fractures, b->fractures);
  assert_int_equal(a->pushes, b->pushes);
  assert_memory_equal(a->x, b->x, sizeof(double) * 3 * (size_t)a->n);
}

static void test_batched_pushes_match_plain_pairs(void **state) {
  (void)state;
  run_out a, b;
  run(1, 0, 50, &a);
  run(1, 4, 50, &b);
  print_message("%lld fractures, %d particles, %lld pushes out of proxies (plain: %lld)\n", (long long)a.fractures,
                a.n, (long long)a.pushes, (long long)b.pushes);
  assert_true(a.fractures > 20); /* it shattered */
  assert_true(a.pushes > 50);    /* and its pieces met: the comparison means something */
  expect_same(&a, &b);
  free(a.x);
  free(b.x);
}

static void test_two_threads_push_the_same(void **state) {
  (void)state;
  run_out a, b;
  run(1, 0, 50, &a);
  run(2, 0, 50, &b);
  assert_true(a.pushes > 50);
  expect_same(&a, &b);
  free(a.x);
  free(b.x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_batched_pushes_match_plain_pairs),
      cmocka_unit_test(test_two_threads_push_the_same),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
