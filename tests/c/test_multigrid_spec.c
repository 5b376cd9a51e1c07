/* The Galerkin multigrid's options (linalg/multigrid.h, linear_solver.h): the grid spec "50/1000/all"
 * parses into hierarchy order, and every bad spec is an error naming 'mg_grid', its value and what is
 * wrong (does not parse, "all" missing or misplaced, zero levels, levels out of order, more vertices
 * than the mesh); every other mg_ option outside its range is refused at create and configure with a
 * message naming it; the analysis refuses missing or mismatched rest positions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "linalg/linear_solver.h"
#include "linalg/multigrid.h"
#include "support/cl_asserts.h"
#include "support/mg_systems.h"

static void test_grid_parses(void **state) {
  (void)state;
  cl_mg_grid g;
  assert_ok(cl_mg_grid_parse("50/all", &g));
  assert_int_equal(g.coarse_levels, 1);
  assert_int_equal(g.count[0], 50);
  /* coarsest first in the text, finest coarse level first in the struct */
  assert_ok(cl_mg_grid_parse("50/1000/all", &g));
  assert_int_equal(g.coarse_levels, 2);
  assert_int_equal(g.count[0], 1000);
  assert_int_equal(g.count[1], 50);
  assert_ok(cl_mg_grid_parse(" 8 / 64 /512/ all ", &g));
  assert_int_equal(g.coarse_levels, 3);
  assert_int_equal(g.count[0], 512);
  assert_int_equal(g.count[2], 8);
  assert_ok(cl_mg_grid_parse("1/2/3/4/5/6/7/all", &g));
  assert_int_equal(g.coarse_levels, CL_MG_MAX_COARSE);
}

static void test_grid_errors(void **state) {
  (void)state;
  cl_mg_grid g;
  assert_error(cl_mg_grid_parse("", &g), CL_ERR_INVALID_ARGUMENT, "'mg_grid' is empty");
  assert_error(cl_mg_grid_parse(NULL, &g), CL_ERR_INVALID_ARGUMENT, "'mg_grid' is empty");
  /* does not parse */
  assert_error(cl_mg_grid_parse("50/x/all", &g), CL_ERR_INVALID_ARGUMENT, "\"x\" is not a vertex count");
  assert_error(cl_mg_grid_parse("fifty/all", &g), CL_ERR_INVALID_ARGUMENT, "\"fifty\" is not a vertex count");
  assert_error(cl_mg_grid_parse("50//all", &g), CL_ERR_INVALID_ARGUMENT, "is not a vertex count");
  assert_error(cl_mg_grid_parse("-5/all", &g), CL_ERR_INVALID_ARGUMENT, "\"-5\" is not a vertex count");
  assert_error(cl_mg_grid_parse("5.5/all", &g), CL_ERR_INVALID_ARGUMENT, "\"5.5\" is not a vertex count");
  assert_error(cl_mg_grid_parse("50 60/all", &g), CL_ERR_INVALID_ARGUMENT, "\"50 60\" is not a vertex count");
  assert_error(cl_mg_grid_parse("0/all", &g), CL_ERR_INVALID_ARGUMENT, "the vertex count 0 is outside [1,");
  assert_error(cl_mg_grid_parse("99999999999/all", &g), CL_ERR_INVALID_ARGUMENT, "is outside [1,");
  /* "all" */
  assert_error(cl_mg_grid_parse("50/1000", &g), CL_ERR_INVALID_ARGUMENT, "does not end with \"all\"");
  assert_error(cl_mg_grid_parse("50/all/1000", &g), CL_ERR_INVALID_ARGUMENT, "must be the last level");
  assert_error(cl_mg_grid_parse("all/all", &g), CL_ERR_INVALID_ARGUMENT, "must be the last level");
  /* zero levels */
  assert_error(cl_mg_grid_parse("all", &g), CL_ERR_INVALID_ARGUMENT, "has no coarse level (zero levels)");
  /* out of order: the counts grow towards "all" */
  assert_error(cl_mg_grid_parse("1000/50/all", &g), CL_ERR_INVALID_ARGUMENT, "levels out of order (50 after 1000)");
  assert_error(cl_mg_grid_parse("50/50/all", &g), CL_ERR_INVALID_ARGUMENT, "levels out of order");
  assert_error(cl_mg_grid_parse("1/2/3/4/5/6/7/8/all", &g), CL_ERR_INVALID_ARGUMENT, "more than 7 coarse levels");
  /* the message names the value */
  assert_error(cl_mg_grid_parse("1000/50/all", &g), CL_ERR_INVALID_ARGUMENT, "'mg_grid' = \"1000/50/all\"");
  /* more vertices than the mesh */
  assert_ok(cl_mg_grid_parse("50/1000/all", &g));
  assert_ok(cl_mg_grid_check(&g, "50/1000/all", 1000, 1000));
  assert_error(cl_mg_grid_check(&g, "50/1000/all", 999, 999), CL_ERR_INVALID_ARGUMENT,
               "asks for 1000 vertices at level 1 but the mesh has 999");
  assert_error(cl_mg_grid_check(&g, "50/1000/all", 1200, 900), CL_ERR_INVALID_ARGUMENT,
               "but only 900 of the mesh's 1200 nodes share an element");
}

/* Each option outside its range is refused by create and by configure, naming it. */
static void set_grid(cl_linear_solver_def *d) { snprintf(d->mg_grid, sizeof d->mg_grid, "%s", "10/5/all"); }
static void set_smoother(cl_linear_solver_def *d) { d->mg_smoother = 4; }
static void set_pre(cl_linear_solver_def *d) { d->mg_pre_sweeps = -1; }
static void set_post(cl_linear_solver_def *d) { d->mg_post_sweeps = 1001; }
static void set_none(cl_linear_solver_def *d) { d->mg_pre_sweeps = d->mg_post_sweeps = 0; }
static void set_omega(cl_linear_solver_def *d) { d->mg_omega = 1.5; }
static void set_omega_nan(cl_linear_solver_def *d) { d->mg_omega = NAN; }
static void set_coarse(cl_linear_solver_def *d) { d->mg_coarse_solver = 3; }
static void set_coarse_its(cl_linear_solver_def *d) { d->mg_coarse_iterations = 0; }
static void set_mode(cl_linear_solver_def *d) { d->mg_mode = 2; }
static void set_asym(cl_linear_solver_def *d) { d->mg_post_sweeps = 3; }
static void set_cycles(cl_linear_solver_def *d) { d->mg_cycles = 0; }
static void set_reg(cl_linear_solver_def *d) { d->mg_regularization = 0.0; }
static void set_count(cl_linear_solver_def *d) { d->mg_position_count = -4; }

static void test_bad_options(void **state) {
  (void)state;
  static const struct {
    void (*set)(cl_linear_solver_def *);
    const char *text;
  } cases[] = {
      {set_grid, "'mg_grid' = \"10/5/all\": levels out of order"},
      {set_smoother, "'mg_smoother' = 4 is outside [0, 3]"},
      {set_pre, "'mg_pre_sweeps' = -1 is outside [0, 1000]"},
      {set_post, "'mg_post_sweeps' = 1001 is outside [0, 1000]"},
      {set_none, "a V-cycle needs at least one smoothing sweep"},
      {set_omega, "'mg_omega' = 1.5 is outside (0, 1]"},
      {set_omega_nan, "'mg_omega' = nan is outside (0, 1]"},
      {set_coarse, "'mg_coarse_solver' = 3 is outside [0, 2]"},
      {set_coarse_its, "'mg_coarse_iterations' = 0 is outside [1, 100000]"},
      {set_mode, "'mg_mode' = 2 is outside [0, 1]"},
      {set_asym, "'mg_post_sweeps' = 3 must equal 'mg_pre_sweeps' = 2 in mode pcg"},
      {set_cycles, "'mg_cycles' = 0 is outside [1, 100000]"},
      {set_reg, "'mg_regularization' = 0 is outside [1e-14, 1e-2]"},
      {set_count, "'mg_position_count' = -4 must be >= 0"},
  };
  cl_linear_solver *ls = NULL;
  assert_ok(cl_linear_solver_create("galerkin_mg", NULL, &ls));
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    cl_linear_solver_def def;
    cl_linear_solver_def_default(&def);
    cases[k].set(&def);
    cl_linear_solver *other = (cl_linear_solver *)&other;
    assert_error(cl_linear_solver_create("galerkin_mg", &def, &other), CL_ERR_INVALID_ARGUMENT, cases[k].text);
    assert_null(other);
    assert_error(cl_linear_solver_configure(ls, &def), CL_ERR_INVALID_ARGUMENT, cases[k].text);
  }
  /* a fixed mode may have unequal sweeps */
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  def.mg_mode = CL_MG_MODE_FIXED;
  def.mg_pre_sweeps = 1;
  def.mg_post_sweeps = 3;
  assert_ok(cl_linear_solver_configure(ls, &def));
  cl_linear_solver_destroy(ls);
}

/* The analysis needs positions, one per node, finite, and a grid the mesh can give. */
static void test_analysis_inputs(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 6, 2, 2, 1.0, 0.3, 1e5, 0.3, 10.0); /* 63 nodes */
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  cl_linear_solver *ls = NULL;
  assert_ok(cl_linear_solver_create("galerkin_mg", &def, &ls));
  assert_error(cl_linear_solver_analyse(ls, s.A), CL_ERR_INVALID_ARGUMENT, "'mg_positions' is NULL");
  assert_error(cl_linear_solver_setup(ls, s.A, NULL), CL_ERR_STATE, "before analysis");
  cl_test_mg_def(&s, "8/all", &def);
  def.mg_position_count = 62;
  assert_ok(cl_linear_solver_configure(ls, &def));
  assert_error(cl_linear_solver_analyse(ls, s.A), CL_ERR_INVALID_ARGUMENT,
               "'mg_position_count' = 62 must equal the matrix's 63 block rows");
  cl_test_mg_def(&s, "8/64/all", &def);
  assert_ok(cl_linear_solver_configure(ls, &def));
  assert_error(cl_linear_solver_analyse(ls, s.A), CL_ERR_INVALID_ARGUMENT,
               "asks for 64 vertices at level 1 but the mesh has 63");
  double *bad = malloc(sizeof(double) * (size_t)s.n3);
  memcpy(bad, s.mesh->x, sizeof(double) * (size_t)s.n3);
  bad[3 * 7 + 1] = INFINITY;
  cl_test_mg_def(&s, "8/all", &def);
  def.mg_positions = bad;
  assert_ok(cl_linear_solver_configure(ls, &def));
  assert_error(cl_linear_solver_analyse(ls, s.A), CL_ERR_INVALID_ARGUMENT, "coordinate 1 of node 7 is inf");
  /* the same grid with good positions, and every node a handle */
  cl_test_mg_def(&s, "8/63/all", &def);
  assert_ok(cl_linear_solver_configure(ls, &def));
  assert_ok(cl_linear_solver_analyse(ls, s.A));
  assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
  cl_linear_result res;
  assert_ok(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res));
  free(bad);
  cl_linear_solver_destroy(ls);
  cl_test_mg_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_grid_parses),
      cmocka_unit_test(test_grid_errors),
      cmocka_unit_test(test_bad_options),
      cmocka_unit_test(test_analysis_inputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
