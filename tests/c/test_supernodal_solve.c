/* cleave's supernodal sweeps (linalg/supernodal_solve.c) against CHOLMOD's own solve on the same
 * factor: in double they agree to rounding (1e-12) on elasticity systems with and without held
 * dofs; in single precision the residual ||b - A x|| / ||b|| stays at the level of float rounding
 * times the conditioning (< 1e-4) and CG with the single-precision factor as preconditioner reaches
 * 1e-10; one and two threads give bitwise the same result (the tree is always cut in two); a bad
 * mode or thread count is an error naming the allowed range. */
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
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "linalg/bsr.h"
#include "linalg/cg.h"
#include "linalg/cholmod_solver.h"
#include "support/elastic_assembly.h"

typedef struct fixture {
  cl_mesh *mesh;
  cl_bsr *A;
  int64_t *slots;
  int64_t n3;
  double *b;
} fixture;

/* A jittered 12 x 6 x 6 grid (1,764 unknowns): big enough for a branching elimination tree. */
static fixture make_fixture(void) {
  fixture f;
  const double lo[3] = {0, 0, 0}, hi[3] = {1.0, 0.5, 0.5};
  assert_int_equal(cl_tet_grid(12, 6, 6, lo, hi, &f.mesh), CL_OK);
  assert_int_equal(cl_test_jitter_interior(f.mesh, 0.015, 5), CL_OK);
  assert_int_equal(cl_test_elastic_system(f.mesh, 1e5, 0.45, 3.6e6, &f.A, &f.slots), CL_OK);
  f.n3 = 3 * (int64_t)f.A->n;
  f.b = malloc(sizeof(double) * (size_t)f.n3);
  for (int64_t i = 0; i < f.n3; ++i) f.b[i] = cos(0.7 * (double)i) + 0.1 * (double)(i % 5);
  return f;
}

static void free_fixture(fixture *f) {
  free(f->b);
  free(f->slots);
  cl_bsr_destroy(f->A);
  cl_mesh_destroy(f->mesh);
}

static double rel_residual(const cl_bsr *A, const double *b, const double *x, const uint8_t *fixed) {
  const int64_t n3 = 3 * (int64_t)A->n;
  double *r = malloc(sizeof(double) * (size_t)n3);
  double rr = cl_bsr_residual(A, b, x, fixed, r), bb = 0.0;
  for (int64_t i = 0; i < n3; ++i)
    if (!fixed || !fixed[i]) bb += b[i] * b[i];
  free(r);
  return sqrt(rr / bb);
}

static double *solve_with(cl_cholmod *c, const cl_bsr *A, const double *b, cl_cholmod_solve_mode mode, int threads) {
  assert_int_equal(cl_cholmod_set_solve_mode(c, mode, threads), CL_OK);
  assert_int_equal(cl_cholmod_factorize(c, A), CL_OK);
  double *x = malloc(sizeof(double) * 3 * (size_t)A->n);
  assert_int_equal(cl_cholmod_solve(c, b, x), CL_OK);
  return x;
}

/* Solve again with the present factor, the sweeps on `threads` threads. */
static double *solve_again(cl_cholmod *c, const double *b, cl_cholmod_solve_mode mode, int threads, int64_t n3) {
  assert_int_equal(cl_cholmod_set_solve_mode(c, mode, threads), CL_OK);
  double *x = malloc(sizeof(double) * (size_t)n3);
  assert_int_equal(cl_cholmod_solve(c, b, x), CL_OK);
  return x;
}

static void check_modes(const uint8_t *fixed) {
  fixture f = make_fixture();
  double *b = f.b;
  if (fixed) /* held dofs: zero right-hand side there, as the projected CG hands it over */
    for (int64_t i = 0; i < f.n3; ++i)
      if (fixed[i]) b[i] = 0.0;
  cl_cholmod *c;
  assert_int_equal(cl_cholmod_create(f.A, fixed, &c), CL_OK);
  /* the sweeps with 1 and 2 threads on one factor (a factorisation with 2 threads may differ in the
   * last bits: OpenBLAS follows the thread count, linalg/blas_threads.h) */
  double *x0 = solve_with(c, f.A, b, CL_CHOLMOD_SOLVE_CHOLMOD, 1);
  double *x1 = solve_with(c, f.A, b, CL_CHOLMOD_SOLVE_DOUBLE, 1);
  double *x1t = solve_again(c, b, CL_CHOLMOD_SOLVE_DOUBLE, 2, f.n3);
  double *x2 = solve_with(c, f.A, b, CL_CHOLMOD_SOLVE_SINGLE, 1);
  double *x2t = solve_again(c, b, CL_CHOLMOD_SOLVE_SINGLE, 2, f.n3);
  double d = 0.0, s = 0.0;
  for (int64_t i = 0; i < f.n3; ++i) {
    d += (x1[i] - x0[i]) * (x1[i] - x0[i]);
    s += x0[i] * x0[i];
  }
  print_message("  |x_sweeps - x_cholmod| / |x| = %.3g (double)\n", sqrt(d / s));
  assert_true(sqrt(d / s) < 1e-12);
  assert_memory_equal(x1, x1t, sizeof(double) * (size_t)f.n3);
  assert_memory_equal(x2, x2t, sizeof(double) * (size_t)f.n3);
  const double r0 = rel_residual(f.A, b, x0, fixed), r1 = rel_residual(f.A, b, x1, fixed),
               r2 = rel_residual(f.A, b, x2, fixed);
  print_message("  relative residuals: CHOLMOD %.3g, double sweeps %.3g, single sweeps %.3g\n", r0, r1, r2);
  assert_true(r1 < 1e-12);
  assert_true(r2 < 1e-4);
  assert_true(r2 > 1e-12); /* really single precision: the factor was rounded */
  if (fixed)
    for (int64_t i = 0; i < f.n3; ++i)
      if (fixed[i]) assert_true(x2[i] == 0.0 && x1[i] == 0.0);
  cl_cholmod_stats st;
  cl_cholmod_get_stats(c, &st);
  assert_int_equal(st.analyses, 1); /* switching modes refactors, never re-analyses */
  free(x0), free(x1), free(x1t), free(x2), free(x2t);
  cl_cholmod_destroy(c);
  free_fixture(&f);
}

static void test_modes_agree_free(void **state) {
  (void)state;
  check_modes(NULL);
}

static void test_modes_agree_held(void **state) {
  (void)state;
  fixture f = make_fixture();
  uint8_t *fixed = calloc((size_t)f.n3, 1);
  for (int32_t i = 0; i < f.A->n; ++i)
    if (f.mesh->x[3 * (size_t)i] < 1e-9)
      for (int k = 0; k < 3; ++k) fixed[3 * (size_t)i + (size_t)k] = 1;
  free_fixture(&f);
  check_modes(fixed);
  free(fixed);
}

/* The single-precision factor as CG preconditioner: CG (in double) still reaches a tight tolerance,
 * in a few iterations. */
static void test_single_preconditions_cg(void **state) {
  (void)state;
  fixture f = make_fixture();
  cl_cholmod *c;
  assert_int_equal(cl_cholmod_create(f.A, NULL, &c), CL_OK);
  assert_int_equal(cl_cholmod_set_solve_mode(c, CL_CHOLMOD_SOLVE_SINGLE, 2), CL_OK);
  assert_int_equal(cl_cholmod_factorize(c, f.A), CL_OK);
  cl_cg_workspace *ws;
  assert_int_equal(cl_cg_workspace_create(f.A->n, &ws), CL_OK);
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.rel_tol = 1e-10;
  def.max_iter = 20;
  def.precond = CL_PRECOND_USER;
  def.user_fn = cl_cholmod_precond;
  def.user_ctx = c;
  double *x = calloc((size_t)f.n3, sizeof(double));
  cl_cg_result res;
  assert_int_equal(cl_cg_solve(f.A, f.b, x, &def, ws, &res), CL_OK);
  print_message("  CG with the single-precision factor: %d iterations to 1e-10\n", res.iterations);
  assert_true(res.iterations <= 4);
  assert_true(rel_residual(f.A, f.b, x, NULL) < 1e-10);
  free(x);
  cl_cg_workspace_destroy(ws);
  cl_cholmod_destroy(c);
  free_fixture(&f);
}

static void test_bad_mode(void **state) {
  (void)state;
  fixture f = make_fixture();
  cl_cholmod *c;
  assert_int_equal(cl_cholmod_create(f.A, NULL, &c), CL_OK);
  assert_int_equal(cl_cholmod_set_solve_mode(c, (cl_cholmod_solve_mode)3, 1), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "[0, 2]"));
  assert_int_equal(cl_cholmod_set_solve_mode(c, CL_CHOLMOD_SOLVE_SINGLE, 0), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "threads"));
  assert_int_equal(cl_cholmod_set_solve_mode(NULL, CL_CHOLMOD_SOLVE_SINGLE, 1), CL_ERR_INVALID_ARGUMENT);
  cl_cholmod_destroy(c);
  free_fixture(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_modes_agree_free),
      cmocka_unit_test(test_modes_agree_held),
      cmocka_unit_test(test_single_preconditions_cg),
      cmocka_unit_test(test_bad_mode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
