/* The push between pieces through cluster proxies (sm_collide.c, paper sec 3.1) as the solver runs
 * it (the pairs from a sweep, each proxy's members tested against all its partners in one pass,
 * pair directions culled on boxes of members against world spheres and proxy planes, points
 * against planes) against the plain algorithm (every proxy against every other, member by member,
 * the exact test alone, shared originals found by marking; bit 4 of no_shortcuts): a weak plate shattered by a projectile, whose many
 * small pieces push each other out of their proxies, must follow bitwise the same trajectory, with
 * the same number of pushes, and with 1 and 2 threads. The same trajectory shows that the culls
 * skipped only pushes that could not happen, and that the measure's reuse of the proxies' member
 * sums took them only where no member had moved since. */
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
#include "support/test_worlds.h"

#include "cleave/world.h"
#include "geom/mesh.h"
#include "solvers/shape_matching/shape_matching.h"
#include "solvers/shape_matching/sm_internal.h"
#include "world/world.h"

typedef struct run_out {
  double *x;
  int32_t n;
  int64_t pushes, fractures, culled, bculled, rculled, sculled, reused, marked, roots;
} run_out;

/* A plate 0.5 x 0.5 x 0.04 m clamped at its two x edges, toughness 0.001 (it shatters), a sphere of
 * radius 0.08 m through its middle at 0.6 m/s; `steps` steps of 1/60 s; `clusters` clusters. */
/* `origins`: the proxy_origins rule (clusters sharing an original particle do not collide, the
 * default); without it, and with the pushes changing velocities (proxy_velocity), the pieces meet
 * far more often, which exercises the shortcuts more. */
static void step_and_read(cl_world *w, cl_id b, int no_shortcuts, int steps, run_out *o);

static void run_rule(int threads, int no_shortcuts, int steps, int clusters, int origins, run_out *o) {
  cl_world *w = cl_test_world_seeded(1.0 / 60, 0.0, threads, 5);
  cl_mesh *m = cl_test_box(0.5, 0.5, 0.04);
  cl_param p[7] = {{"particles", 1200, NULL}, {"cluster_count", clusters, NULL}, {"alpha", 1.0, NULL}, {"gamma", 0.2, NULL}, {"iterations", 4, NULL},
                   {"proxy_origins", origins, NULL}, {"proxy_velocity", !origins, NULL}};
  cl_param cp[1] = {{"toughness", 0.001, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", m, p, 7, "cluster_stretch", cp, 1);
  cl_mesh_destroy(m);
  cl_test_x_slab(w, b, -1.0, -0.2, 0.0);
  cl_test_x_slab(w, b, 0.2, 1.0, 0.0);
  cl_test_sphere_along_z(w, 0.08, 0.1, -0.6, 0.0);
  step_and_read(w, b, no_shortcuts, steps, o);
}

/* Steps body b of w with the given shortcuts off and reads what the tests compare; destroys w. */
static void step_and_read(cl_world *w, cl_id b, int no_shortcuts, int steps, run_out *o) {
  cl_sm *sm = cl_test_body_solver(w, b);
  sm->no_shortcuts = no_shortcuts;
  cl_status s = cl_world_step(w, steps);
  if (s != CL_OK) print_error("%s\n", cl_last_error());
  assert_int_equal(s, CL_OK);
  o->x = cl_test_positions(w, b, &o->n);
  o->pushes = sm->proxy_pushes;
  o->culled = sm->proxy_culled;
  o->bculled = sm->proxy_bculled;
  o->rculled = sm->proxy_rculled;
  o->sculled = sm->proxy_sculled;
  o->roots = sm->roots_built;
  o->reused = sm->psum_reused;
  o->marked = sm->sl_marked;
  o->fractures = sm->stats.fractures;
  cl_world_destroy(w);
}

static void run_with(int threads, int no_shortcuts, int steps, int clusters, run_out *o) {
  run_rule(threads, no_shortcuts, steps, clusters, 0, o);
}

static void run(int threads, int no_shortcuts, int steps, run_out *o) { run_with(threads, no_shortcuts, steps, 24, o); }

static void expect_same(const run_out *a, const run_out *b) {
  assert_int_equal(a->n, b->n);
  assert_int_equal(a->fractures, b->fractures);
  assert_int_equal(a->pushes, b->pushes);
  assert_memory_equal(a->x, b->x, sizeof(double) * 3 * (size_t)a->n);
}

static void test_swept_pushes_match_plain_pairs(void **state) {
  (void)state;
  run_out a, b;
  run(1, 0, 50, &a);
  run(1, 4, 50, &b);
  print_message("%lld fractures, %d particles, %lld pushes out of proxies (plain: %lld)\n", (long long)a.fractures,
                a.n, (long long)a.pushes, (long long)b.pushes);
  assert_true(a.fractures > 20); /* it shattered */
  assert_true(a.pushes > 50);    /* and its pieces met: the comparison means something */
  print_message("%lld pair directions culled (plain: %lld)\n", (long long)a.culled, (long long)b.culled);
  assert_true(a.culled > 100); /* the culling was exercised */
  assert_int_equal(b.culled, 0);
  /* and, in the directions not culled as a whole, blocks of SM_BLOCK members by their boxes */
  print_message("%lld blocks of members culled, %lld of them by the rest sphere (plain: %lld)\n",
                (long long)a.bculled, (long long)a.rculled, (long long)b.bculled);
  assert_true(a.bculled > 100);
  assert_int_equal(b.bculled, 0);
  /* the measure took the proxies' member sums for clusters none of whose members was pushed after
   * (the plain algorithm keeps none): the same trajectory shows they were those of the positions */
  print_message("%lld cluster measures from the proxies' sums\n", (long long)a.reused);
  assert_true(a.reused > 100);
  assert_int_equal(b.reused, 0);
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

/* The default rule (proxy_origins, position-only pushes, as the authors' code): the swept pairs
 * with their culling give the plain algorithm's trajectory bit for bit, with 1 and 2 threads, and
 * the rule leaves out pairs: fewer pushes than without it. */
static void test_origin_rule_matches_plain(void **state) {
  (void)state;
  run_out a, b, c, d;
  run_rule(1, 0, 50, 24, 1, &a);
  run_rule(1, 4, 50, 24, 1, &b);
  run_rule(2, 0, 50, 24, 1, &c);
  run(1, 0, 50, &d);
  print_message("%lld pushes with the origin rule, %lld without\n", (long long)a.pushes, (long long)d.pushes);
  assert_true(a.fractures > 20);
  assert_true(a.pushes > 0);
  assert_true(a.pushes < d.pushes);
  /* which clusters share an original particle: root sets (rebuilt for the clusters a fracture
   * changed) against marking one cluster's roots and looking among the other's (the plain run) */
  print_message("%lld root sets built (plain: %lld)\n", (long long)a.roots, (long long)b.roots);
  assert_true(a.roots > 24);
  assert_int_equal(b.roots, 0);
  expect_same(&a, &b);
  expect_same(&a, &c);
  free(a.x);
  free(b.x);
  free(c.x);
  free(d.x);
}

/* Large overlapping clusters whose proxies act within the body too (proxy_whole, as the paper
 * scenes set): a cube struck and shattered, where a cluster's world sphere (its farthest member)
 * is much larger than its proxy, so blocks of members are culled by the rest-sphere test
 * (block_outside_rest), and superblocks of SM_SUPER blocks are culled as a whole: bitwise the plain
 * algorithm's trajectory, with both exercised (the plate above, of small clusters, culls no
 * superblock). */
static void cube(int no_shortcuts, run_out *o) {
  cl_world *w = cl_test_world_seeded(1.0 / 60, 0.0, 1, 7);
  cl_mesh *m = cl_test_box(0.3, 0.3, 0.3);
  cl_param p[6] = {{"particles", 1500, NULL}, {"cluster_count", 12, NULL}, {"alpha", 1.0, NULL},
                   {"gamma", 0.2, NULL},      {"iterations", 4, NULL},     {"proxy_whole", 1, NULL}};
  cl_param cp[1] = {{"toughness", 0.01, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", m, p, 6, "cluster_stretch", cp, 1);
  cl_mesh_destroy(m);
  cl_test_x_slab(w, b, -1.0, -0.12, 0.0);
  cl_test_sphere_along_z(w, 0.08, 0.25, -1.0, 0.0);
  step_and_read(w, b, no_shortcuts, 40, o);
}

static void test_rest_sphere_culls_match_plain(void **state) {
  (void)state;
  run_out a, b;
  cube(0, &a);
  cube(4, &b);
  print_message("%lld fractures, %lld pushes, %lld blocks culled by the rest sphere (plain: %lld)\n",
                (long long)a.fractures, (long long)a.pushes, (long long)a.rculled, (long long)b.rculled);
  assert_true(a.rculled > 100);
  assert_int_equal(b.rculled, 0);
  /* large clusters: superblocks of SM_SUPER blocks culled as a whole */
  print_message("%lld superblocks culled (plain: %lld)\n", (long long)a.sculled, (long long)b.sculled);
  assert_true(a.sculled > 100);
  assert_int_equal(b.sculled, 0);
  assert_true(a.pushes > 0);
  expect_same(&a, &b);
  free(a.x);
  free(b.x);
}

/* Strain limiting re-evaluates only the clusters of the particles that moved in the last iteration
 * (marks; sm_step.c): the same trajectory as finding them by a pass over every cluster's members. */
static void test_strain_limit_marks_match_member_pass(void **state) {
  (void)state;
  run_out a, b;
  /* small clusters (~15 members, as the weak brittle plate of the paper): the clamping ones hold
   * few memberships, so the marks pay and are taken */
  run_with(1, 0, 60, 120, &a);
  run_with(1, 8, 60, 120, &b);
  print_message("%lld strain-limiting iterations used the marks (without: %lld)\n", (long long)a.marked,
                (long long)b.marked);
  assert_true(a.marked > 5); /* the marks were used (16 here) */
  assert_int_equal(b.marked, 0);
  expect_same(&a, &b);
  free(a.x);
  free(b.x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_swept_pushes_match_plain_pairs),
      cmocka_unit_test(test_two_threads_push_the_same),
      cmocka_unit_test(test_origin_rule_matches_plain),
      cmocka_unit_test(test_rest_sphere_culls_match_plain),
      cmocka_unit_test(test_strain_limit_marks_match_member_pass),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
