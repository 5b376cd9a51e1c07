/* Solver statistics through the public API (cl_body_copy_stats, cl_body_get_stat): the values the
 * shape-matching clustering actually used (issue 4), the corotational mesh and linear-solve
 * figures, a solver without the op, and bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "geom/tet_grid.h"
#include "support/cl_asserts.h"
#include "support/double_solver.h"
#include "support/test_meshes.h"

static cl_world *make_world(void) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.gravity[1] = -9.81;
  def.threads = 1;
  cl_world *w = NULL;
  assert_ok(cl_world_create(&def, &w));
  return w;
}

static cl_id add_body(cl_world *w, const cl_mesh *m, const char *solver, const cl_param *p, int32_t np) {
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = solver;
  bd.params = p;
  bd.param_count = np;
  cl_id id = 0;
  assert_ok(cl_world_add_body(w, &bd, m, &id));
  return id;
}

static double get_stat(const cl_world *w, cl_id b, const char *name) {
  double v = NAN;
  assert_ok(cl_body_get_stat(w, b, name, &v));
  return v;
}

/* cluster_count given, radius automatic: the stats report that count and the radius sm_cluster.c
 * derives, r = (V / k)^(1/3) with V the enclosed volume (docs/solvers/shape_matching.md). */
static void test_shape_matching_reports_the_clustering_used(void **state) {
  (void)state;
  cl_world *w = make_world();
  cl_mesh *box = cl_test_box(0.2, 0.1, 0.1);
  const cl_param p[] = {{"particles", 600, NULL}, {"cluster_count", 8, NULL}};
  cl_id b = add_body(w, box, "shape_matching", p, 2);

  int32_t n = -1;
  assert_ok(cl_body_copy_stats(w, b, NULL, 0, &n));
  assert_true(n >= 9);
  cl_body_stat list[64];
  int32_t n2 = -1;
  assert_ok(cl_body_copy_stats(w, b, list, 64, &n2));
  assert_int_equal(n2, n);
  assert_string_equal(list[0].name, "particles");

  assert_near(get_stat(w, b, "clusters_at_bind"), 8, 0);
  assert_near(get_stat(w, b, "clusters"), 8, 0);
  assert_near(get_stat(w, b, "cluster_radius"), cbrt(0.2 * 0.1 * 0.1 / 8), 1e-9);
  cl_body_info info;
  assert_ok(cl_body_get_info(w, b, &info));
  assert_near(get_stat(w, b, "particles"), info.nodes, 0);
  assert_near(get_stat(w, b, "cluster_slots"), info.units, 0);
  /* overlapping clusters: each particle belongs to more than one on average */
  double mem = get_stat(w, b, "memberships"), per = get_stat(w, b, "clusters_per_particle");
  assert_true(per > 1.0);
  assert_near(per, mem / (get_stat(w, b, "particles") - get_stat(w, b, "debris")), 1e-12);
  assert_true(get_stat(w, b, "spacing") > 0.0);

  /* a given radius is the radius used */
  const cl_param q[] = {{"particles", 600, NULL}, {"cluster_radius", 0.06, NULL}};
  cl_id c = add_body(w, box, "shape_matching", q, 2);
  assert_near(get_stat(w, c, "cluster_radius"), 0.06, 0);
  assert_true(get_stat(w, c, "clusters") >= 1);

  cl_mesh_destroy(box);
  cl_world_destroy(w);
}

static void test_corotational_reports_mesh_and_solve(void **state) {
  (void)state;
  cl_world *w = make_world();
  const double lo[3] = {0, 0, 0}, hi[3] = {0.2, 0.05, 0.05};
  cl_mesh *grid = NULL;
  assert_ok(cl_tet_grid(4, 1, 1, lo, hi, &grid));
  cl_id b = add_body(w, grid, "corotational", NULL, 0);
  assert_near(get_stat(w, b, "tets"), 24, 0);
  assert_near(get_stat(w, b, "nodes"), 20, 0);
  assert_near(get_stat(w, b, "islands"), 1, 0);
  assert_near(get_stat(w, b, "steps"), 0, 0);
  assert_ok(cl_world_step(w, 2));
  assert_near(get_stat(w, b, "steps"), 2, 0);
  assert_true(get_stat(w, b, "cg_iterations") > 0); /* gravity moves every free node */
  assert_true(get_stat(w, b, "cg_residual") >= 0.0);

  /* a short buffer gets the first entries and the full count */
  cl_body_stat two[2];
  int32_t n = 0;
  assert_ok(cl_body_copy_stats(w, b, two, 2, &n));
  assert_true(n > 2);
  assert_string_equal(two[0].name, "tets");
  assert_string_equal(two[1].name, "nodes");
  assert_near(two[1].value, 20, 0);
  assert_non_null(two[0].help);
  cl_mesh_destroy(grid);
  cl_world_destroy(w);
}

static void test_solver_without_stats(void **state) {
  (void)state;
  assert_ok(cl_double_register());
  cl_world *w = make_world();
  const double lo[3] = {0, 0, 0}, hi[3] = {0.1, 0.1, 0.1};
  cl_mesh *grid = NULL;
  assert_ok(cl_tet_grid(1, 1, 1, lo, hi, &grid));
  cl_id b = add_body(w, grid, "test_double", NULL, 0);
  int32_t n = -1;
  assert_ok(cl_body_copy_stats(w, b, NULL, 0, &n));
  assert_int_equal(n, 0);
  double v = 0;
  assert_error(cl_body_get_stat(w, b, "clusters", &v), CL_ERR_NOT_FOUND, "it has: none");
  cl_mesh_destroy(grid);
  cl_world_destroy(w);
}

static void test_bad_input(void **state) {
  (void)state;
  cl_world *w = make_world();
  cl_mesh *box = cl_test_box(0.1, 0.1, 0.1);
  const cl_param p[] = {{"particles", 200, NULL}};
  cl_id b = add_body(w, box, "shape_matching", p, 1);
  cl_body_stat list[4];
  int32_t n = 0;
  double v = 0;
  assert_error(cl_body_copy_stats(NULL, b, list, 4, &n), CL_ERR_INVALID_ARGUMENT, "world is NULL");
  assert_error(cl_body_copy_stats(w, b, list, 4, NULL), CL_ERR_INVALID_ARGUMENT, "count is NULL");
  assert_error(cl_body_copy_stats(w, b, list, -1, &n), CL_ERR_INVALID_ARGUMENT, "capacity = -1");
  assert_error(cl_body_copy_stats(w, b, NULL, 4, &n), CL_ERR_INVALID_ARGUMENT, "out is NULL");
  assert_error(cl_body_get_stat(w, b, NULL, &v), CL_ERR_INVALID_ARGUMENT, "name is NULL");
  assert_error(cl_body_get_stat(w, b, "clusters", NULL), CL_ERR_INVALID_ARGUMENT, "value is NULL");
  /* an unknown name lists the known ones */
  assert_error(cl_body_get_stat(w, b, "cluster", &v), CL_ERR_NOT_FOUND, "cluster_radius");
  /* a removed body is a stale id */
  assert_ok(cl_world_remove_body(w, b));
  assert_true(cl_body_copy_stats(w, b, list, 4, &n) < 0);
  assert_true(cl_body_get_stat(w, b, "clusters", &v) < 0);
  cl_mesh_destroy(box);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shape_matching_reports_the_clustering_used),
      cmocka_unit_test(test_corotational_reports_mesh_and_solve),
      cmocka_unit_test(test_solver_without_stats),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
