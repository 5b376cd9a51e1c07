/* "galerkin_mg" through the linear-solver table (linalg/linear_solver.h). test_linear_solver.c holds
 * every entry, this one in its default mode pcg, to the table's contract; here: it is entry 2 and found
 * by name; in the fixed mode too every failure is a reason code with a message (an indefinite and a
 * singular matrix, a negative definite one, NaN in the matrix or the right-hand side, its cycle cap;
 * held dofs in both modes: test_multigrid_cycle.c); one analysis serves several matrices (the set-ups
 * counted, no rebuild), a new pattern comes with new positions; a failed analysis leaves nothing
 * behind; mg_reuse keeps the coarse levels across set-ups by its rent-or-buy rule. */
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
#include "support/elastic_assembly.h"
#include "support/mg_systems.h"

static void test_entry(void **state) {
  (void)state;
  assert_int_equal(cl_linear_solver_count(), 3);
  assert_string_equal(cl_linear_solver_name(2), "galerkin_mg");
  assert_int_equal(cl_linear_solver_find("galerkin_mg"), 2);
  assert_non_null(strstr(cl_linear_solver_help(2), "multigrid"));
  cl_linear_solver *ls = (cl_linear_solver *)&ls;
  assert_error(cl_linear_solver_create("multigrid", NULL, &ls), CL_ERR_INVALID_ARGUMENT,
               "\"pcg\", \"cholmod\", \"galerkin_mg\"");
  assert_ok(cl_linear_solver_create("galerkin_mg", NULL, &ls));
  assert_string_equal(cl_linear_solver_entry(ls), "galerkin_mg");
  assert_int_equal(cl_linear_solver_reuses_setup(ls), 0);
  assert_non_null(cl_linear_solver_multigrid(ls));
  assert_null(cl_linear_solver_cholmod(ls));
  cl_linear_solver_destroy(ls);
  assert_ok(cl_linear_solver_create("pcg", NULL, &ls));
  assert_null(cl_linear_solver_multigrid(ls));
  cl_linear_solver_destroy(ls);
}

/* One analysis, three set-ups: counted, with their times; a new pattern comes with new positions. */
static void test_analyse_once_setup_many(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 8, 3, 3, 1.0, 0.5, 1e5, 0.3, 10.0);
  cl_linear_solver_def def;
  cl_test_mg_def(&s, "5/20/all", &def);
  def.rel_tol = 1e-10;
  cl_linear_solver *ls = NULL;
  assert_ok(cl_linear_solver_create("galerkin_mg", &def, &ls));
  assert_ok(cl_linear_solver_analyse(ls, s.A));
  for (int j = 0; j < 3; ++j) { /* (matrices of other values: test_linear_solver.c) */
    memset(s.x, 0, sizeof(double) * (size_t)s.n3);
    assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
    cl_linear_result res;
    assert_ok(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res));
  }
  cl_linear_solver_stats st;
  cl_linear_solver_get_stats(ls, &st);
  assert_int_equal(st.analyses, 1);
  assert_int_equal(st.factorizations, 3);
  assert_int_equal(st.solves, 3);
  assert_int_equal(st.n, s.n3);
  assert_true(st.factor_flops > 0.0); /* the coarse CHOLMOD factor */
  cl_mg_stats ms;
  cl_mg_get_stats(cl_linear_solver_multigrid(ls), &ms);
  assert_int_equal(ms.setups, 3);
  assert_int_equal(ms.rebuilds, 0);
  assert_true(ms.setup_ms > 0.0 && ms.galerkin_ms > 0.0 && ms.analyse_ms > 0.0);
  /* another pattern is refused until analysed again */
  cl_test_mg_sys s2;
  cl_test_mg_bar(&s2, 4, 2, 2, 1.0, 0.5, 1e5, 0.3, 10.0);
  assert_error(cl_linear_solver_setup(ls, s2.A, NULL), CL_ERR_INVALID_ARGUMENT, "analyse again");
  cl_test_mg_def(&s2, "5/all", &def);
  assert_ok(cl_linear_solver_configure(ls, &def));
  assert_ok(cl_linear_solver_analyse(ls, s2.A));
  assert_ok(cl_linear_solver_setup(ls, s2.A, NULL));
  cl_linear_result res;
  assert_ok(cl_linear_solver_solve(ls, s2.b, s2.x, NULL, &res));
  cl_linear_solver_get_stats(ls, &st);
  assert_int_equal(st.analyses, 2);
  cl_linear_solver_destroy(ls);
  cl_test_mg_free(&s2);
  cl_test_mg_free(&s);
}

/* mg_reuse (mode pcg): a set-up keeps the coarse levels of the last full one while the extra CG
 * iterations cost less than a full set-up; the finest level always gets the matrix of now, so the
 * solve still reaches the tolerance on the new matrix. refactor_iterations = 0 or mg_reuse = 0: a full
 * set-up every time; mode fixed never keeps. A bad value is named. */
static void test_reuse_keeps_coarse_levels(void **state) {
  (void)state;
  cl_test_mg_sys s, stiffer[2]; /* the same mesh with E 5 % and 10 % higher: the matrices of later steps */
  cl_test_mg_bar(&s, 8, 3, 3, 1.0, 0.5, 1e5, 0.3, 10.0);
  cl_test_mg_bar(&stiffer[0], 8, 3, 3, 1.0, 0.5, 1.05e5, 0.3, 10.0);
  cl_test_mg_bar(&stiffer[1], 8, 3, 3, 1.0, 0.5, 1.1e5, 0.3, 10.0);
  for (int variant = 0; variant < 4; ++variant) { /* 0 reuse, 1 mg_reuse = 0, 2 refactor 0, 3 mode fixed */
    cl_test_mg_sys t;
    cl_test_mg_bar(&t, 8, 3, 3, 1.0, 0.5, 1e5, 0.3, 10.0);
    cl_linear_solver_def def;
    cl_test_mg_def(&t, "5/20/all", &def);
    def.rel_tol = 1e-10;
    def.mg_reuse = variant != 1;
    def.refactor_iterations = variant == 2 ? 0 : 30;
    if (variant == 3) {
      def.mg_mode = CL_MG_MODE_FIXED;
      def.mg_cycles = 200;
    }
    cl_linear_solver *ls = NULL;
    assert_ok(cl_linear_solver_create("galerkin_mg", &def, &ls));
    assert_ok(cl_linear_solver_analyse(ls, t.A));
    int32_t its[3];
    for (int j = 0; j < 3; ++j) {
      if (j > 0) /* a slightly different matrix each time */
        memcpy(t.A->val, stiffer[j - 1].A->val, sizeof(double) * 9 * (size_t)t.A->row_ptr[t.A->n]);
      memset(t.x, 0, sizeof(double) * (size_t)t.n3);
      assert_ok(cl_linear_solver_setup(ls, t.A, NULL));
      cl_linear_result res;
      assert_ok(cl_linear_solver_solve(ls, t.b, t.x, NULL, &res));
      assert_int_equal(res.reason, CL_SOLVE_CONVERGED);
      its[j] = res.iterations;
      /* the residual on the matrix of now, whatever the coarse levels */
      double *r = malloc(sizeof(double) * (size_t)t.n3);
      const double rr = sqrt(cl_bsr_residual(t.A, t.b, t.x, NULL, r));
      double bb = 0.0;
      for (int64_t d = 0; d < t.n3; ++d) bb += t.b[d] * t.b[d];
      assert_true(rr <= 1.01e-10 * sqrt(bb));
      free(r);
    }
    cl_mg_stats ms;
    cl_mg_get_stats(cl_linear_solver_multigrid(ls), &ms);
    print_message("variant %d: iterations %d %d %d, full set-ups %lld, kept %lld\n", variant, its[0], its[1], its[2],
                  (long long)ms.setups, (long long)ms.reuses);
    if (variant == 0) {
      assert_int_equal(ms.setups, 1);
      assert_int_equal(ms.reuses, 2);
      assert_true(its[1] <= its[0] + 30);
    } else {
      assert_int_equal(ms.setups, 3);
      assert_int_equal(ms.reuses, 0);
    }
    cl_linear_solver_destroy(ls);
    cl_test_mg_free(&t);
  }
  /* kept coarse levels that went stale (a matrix whose stiffness jumps by 10 % across the middle of the
   * bar: its smooth modes move far): CG reaches its cap with them, makes a full set-up and goes on from
   * where it stopped, to the tolerance */
  {
    cl_test_mg_sys t;
    cl_test_mg_bar(&t, 8, 3, 3, 1.0, 0.5, 1e5, 0.3, 10.0);
    cl_linear_solver_def d;
    cl_test_mg_def(&t, "5/20/all", &d);
    d.rel_tol = 1e-10;
    d.mg_reuse = 1;
    d.max_iter = 40;
    cl_linear_solver *ls = NULL;
    assert_ok(cl_linear_solver_create("galerkin_mg", &d, &ls));
    assert_ok(cl_linear_solver_analyse(ls, t.A));
    assert_ok(cl_linear_solver_setup(ls, t.A, NULL));
    cl_linear_result res;
    assert_ok(cl_linear_solver_solve(ls, t.b, t.x, NULL, &res));
    assert_true(res.iterations < 40);
    for (int32_t i = 0; i < t.A->n; ++i) /* D A D, D = sqrt(1.1) on the first half of the nodes */
      for (int64_t q = t.A->row_ptr[i]; q < t.A->row_ptr[i + 1]; ++q) {
        const double g = (i < t.A->n / 2 ? sqrt(1.1) : 1.0) * (t.A->col[q] < t.A->n / 2 ? sqrt(1.1) : 1.0);
        for (int k = 0; k < 9; ++k) t.A->val[9 * q + k] *= g;
      }
    memset(t.x, 0, sizeof(double) * (size_t)t.n3);
    assert_ok(cl_linear_solver_setup(ls, t.A, NULL)); /* keeps the coarse levels */
    cl_mg_stats ms;
    cl_mg_get_stats(cl_linear_solver_multigrid(ls), &ms);
    assert_int_equal(ms.reuses, 1);
    memset(&res, 0, sizeof res);
    assert_ok(cl_linear_solver_solve(ls, t.b, t.x, NULL, &res));
    cl_mg_get_stats(cl_linear_solver_multigrid(ls), &ms);
    print_message("stale coarse levels: %d iterations, %d set-ups inside the solve, relative residual %.2g\n",
                  res.iterations, res.factorizations, res.rel_residual);
    assert_int_equal(res.reason, CL_SOLVE_CONVERGED);
    assert_int_equal(res.factorizations, 1);
    assert_int_equal(ms.setups, 2);
    assert_true(res.iterations > 40 && res.iterations <= 80);
    cl_linear_solver_destroy(ls);
    cl_test_mg_free(&t);
  }
  cl_linear_solver_def def;
  cl_test_mg_def(&s, "5/all", &def);
  def.mg_reuse = 2;
  cl_linear_solver *ls = NULL;
  assert_error(cl_linear_solver_create("galerkin_mg", &def, &ls), CL_ERR_INVALID_ARGUMENT, "'mg_reuse' = 2");
  cl_test_mg_free(&s);
  cl_test_mg_free(&stiffer[0]);
  cl_test_mg_free(&stiffer[1]);
}

/* The nodes of cl_test_two_node's system, at x = 0 and 1. */
static const double k_two_x[6] = {0, 0, 0, 1, 0, 0};

static cl_status run(cl_bsr *A, const double *b, int mode, cl_status *setup_status, cl_solve_reason *setup_reason,
                     cl_linear_result *res) {
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  snprintf(def.mg_grid, sizeof def.mg_grid, "1/all");
  def.mg_positions = k_two_x;
  def.mg_position_count = 2;
  def.mg_mode = mode;
  def.mg_cycles = 50;
  def.rel_tol = 1e-10;
  def.max_iter = 100;
  cl_linear_solver *ls = NULL;
  assert_ok(cl_linear_solver_create("galerkin_mg", &def, &ls));
  assert_ok(cl_linear_solver_analyse(ls, A));
  *setup_status = cl_linear_solver_setup(ls, A, NULL);
  *setup_reason = cl_linear_solver_reason(ls);
  double x[6] = {0, 0, 0, 0, 0, 0};
  cl_status r = cl_linear_solver_solve(ls, b, x, NULL, res);
  print_message("  mode %d: set-up %s (%s), solve %s (%s): %s\n", mode, cl_status_name(*setup_status),
                cl_solve_reason_name(*setup_reason), cl_status_name(r), cl_solve_reason_name(res->reason),
                cl_last_error());
  assert_int_equal(cl_linear_solver_reason(ls), res->reason);
  for (int d = 0; d < 6; ++d) assert_false(isnan(x[d]) && res->reason != CL_SOLVE_NON_FINITE);
  cl_linear_solver_destroy(ls);
  return r;
}

static void test_fixed_mode_reasons(void **state) {
  (void)state;
  const double b[6] = {1, 0, 0, -1, 0, 0}; /* along the eigenvector (1, -1) */
  cl_linear_result res;
  cl_status ss;
  cl_solve_reason sr;
  {
    const int mode = CL_MG_MODE_FIXED;
    /* indefinite: the set-up finds it (a negative pivot where the prolongation is not degenerate),
     * block-Jacobi CG takes over and reports it */
    cl_bsr *A = cl_test_two_node(1.0, 2.0);
    assert_int_equal(run(A, b, mode, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(ss, CL_WARN_NOT_POSDEF);
    assert_int_equal(sr, CL_SOLVE_NOT_POSDEF);
    assert_int_equal(res.reason, CL_SOLVE_NOT_POSDEF);
    assert_non_null(strstr(cl_last_error(), "not positive definite"));
    cl_bsr_destroy(A);
    /* singular, b in the null space */
    A = cl_test_two_node(1.0, 1.0);
    assert_int_equal(run(A, b, mode, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(sr, CL_SOLVE_NOT_POSDEF);
    assert_int_equal(res.reason, CL_SOLVE_NOT_POSDEF);
    cl_bsr_destroy(A);
    /* negative definite */
    A = cl_test_two_node(-2.0, 1.0);
    assert_int_equal(run(A, b, mode, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_BREAKDOWN);
    cl_bsr_destroy(A);
    /* NaN off the diagonal, Inf on it */
    A = cl_test_two_node(2.0, 1.0);
    A->val[9 * cl_bsr_find(A, 0, 1)] = NAN;
    assert_int_equal(run(A, b, mode, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(ss, CL_ERR_NUMERICAL);
    assert_int_equal(sr, CL_SOLVE_NON_FINITE);
    assert_int_equal(res.reason, CL_SOLVE_NON_FINITE);
    A->val[9 * cl_bsr_find(A, 0, 1)] = 1.0;
    A->val[9 * A->diag[1] + 4] = INFINITY;
    assert_int_equal(run(A, b, mode, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_NON_FINITE);
    cl_bsr_destroy(A);
    /* NaN in the right-hand side of an SPD system */
    A = cl_test_two_node(2.0, 1.0);
    const double bnan[6] = {1, NAN, 0, 0, 0, 0};
    assert_int_equal(run(A, bnan, mode, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_NON_FINITE);
    assert_int_equal(ss, CL_OK);
    /* and that SPD system solves */
    assert_ok(run(A, b, mode, &ss, &sr, &res));
    cl_bsr_destroy(A);
  }
  /* the iteration cap of mode pcg (max_iter) and of mode fixed (mg_cycles) */
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 8, 3, 3, 1.0, 0.5, 1e5, 0.3, 10.0);
  for (int mode = CL_MG_MODE_FIXED; mode <= CL_MG_MODE_PCG; ++mode) {
    cl_linear_solver_def def;
    cl_test_mg_def(&s, "10/all", &def);
    def.mg_mode = mode;
    def.rel_tol = 1e-12;
    def.max_iter = 0;
    def.mg_cycles = 1;
    cl_linear_solver *ls = NULL;
    assert_ok(cl_linear_solver_create("galerkin_mg", &def, &ls));
    assert_ok(cl_linear_solver_analyse(ls, s.A));
    assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
    memset(s.x, 0, sizeof(double) * (size_t)s.n3);
    cl_linear_result r2;
    assert_error(cl_linear_solver_solve(ls, s.b, s.x, NULL, &r2), CL_WARN_NOT_CONVERGED, "iteration cap");
    assert_int_equal(r2.reason, CL_SOLVE_MAX_ITERATIONS);
    assert_int_equal(r2.iterations, mode == CL_MG_MODE_FIXED ? 1 : 0);
    cl_linear_solver_destroy(ls);
  }
  cl_test_mg_free(&s);
}

static void test_misuse(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 4, 2, 2, 1.0, 0.5, 1e5, 0.3, 10.0);
  cl_linear_solver_def def;
  cl_test_mg_def(&s, "4/all", &def);
  cl_linear_solver *ls = NULL;
  assert_ok(cl_linear_solver_create("galerkin_mg", &def, &ls));
  cl_linear_result res;
  assert_error(cl_linear_solver_setup(ls, s.A, NULL), CL_ERR_STATE, "before analysis");
  assert_error(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res), CL_ERR_STATE, "before a set-up");
  assert_int_equal(res.reason, CL_SOLVE_INVALID);
  assert_ok(cl_linear_solver_analyse(ls, s.A));
  assert_error(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res), CL_ERR_STATE, "before a set-up");
  assert_error(cl_linear_solver_solve(ls, NULL, s.x, NULL, &res), CL_ERR_INVALID_ARGUMENT, "NULL");
  /* a failed analysis leaves no hierarchy behind: set-up is refused again */
  def.mg_positions = NULL;
  assert_ok(cl_linear_solver_configure(ls, &def));
  assert_error(cl_linear_solver_analyse(ls, s.A), CL_ERR_INVALID_ARGUMENT, "'mg_positions' is NULL");
  assert_error(cl_linear_solver_setup(ls, s.A, NULL), CL_ERR_STATE, "before analysis");
  cl_mg_stats st;
  cl_mg_get_stats(cl_linear_solver_multigrid(ls), &st);
  assert_int_equal(st.levels, 0);
  assert_null(cl_mg_level_matrix(cl_linear_solver_multigrid(ls), 0));
  cl_linear_solver_destroy(ls);
  cl_mg_get_stats(NULL, &st);
  assert_int_equal(st.levels, 0);
  cl_test_mg_free(&s);
}

/* The set-up's NaN/Inf check is folded into the Galerkin product (multigrid.c, coarse_level): wherever
 * the non-finite value sits it is still CL_ERR_NUMERICAL with the reason non_finite and the message,
 * at a full set-up and at the set-up for a new mask (a contact round): in a row of an ordinary node, in
 * the row of a node whose dofs are all held (the product skips it), in an entry the mask drops (a held
 * column of a free row), in the row of a node in no element (read by no product), and in the row of a
 * node whose mask changes between set-ups. The clean matrix sets up after each. */
static void expect_non_finite(cl_linear_solver *ls, const cl_bsr *A, const uint8_t *fixed, const char *where) {
  const cl_status st = cl_linear_solver_setup(ls, A, fixed);
  print_message("  %s: %s, %s\n", where, cl_status_name(st), cl_last_error());
  assert_int_equal(st, CL_ERR_NUMERICAL);
  assert_int_equal(cl_linear_solver_reason(ls), CL_SOLVE_NON_FINITE);
  assert_non_null(strstr(cl_last_error(), "NaN or Inf"));
}

static void test_non_finite_anywhere(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 8, 3, 3, 1.0, 0.5, 1e5, 0.3, 10.0);
  /* the bar's matrix with one more node, in no element: its row is an identity diagonal block */
  const int32_t n = s.A->n + 1;
  int64_t *rp = malloc(sizeof(int64_t) * ((size_t)n + 1));
  int32_t *col = malloc(sizeof(int32_t) * ((size_t)s.A->nnzb + 1));
  memcpy(rp, s.A->row_ptr, sizeof(int64_t) * ((size_t)n));
  memcpy(col, s.A->col, sizeof(int32_t) * (size_t)s.A->nnzb);
  col[s.A->nnzb] = n - 1;
  rp[n] = s.A->nnzb + 1;
  cl_bsr *A = NULL;
  assert_ok(cl_bsr_from_pattern(n, rp, col, &A));
  memcpy(A->val, s.A->val, sizeof(double) * 9 * (size_t)s.A->nnzb);
  for (int c = 0; c < 3; ++c) A->val[9 * A->diag[n - 1] + 4 * c] = 1.0;
  double *pos = malloc(sizeof(double) * 3 * (size_t)n);
  memcpy(pos, s.mesh->x, sizeof(double) * 3 * (size_t)s.A->n);
  pos[3 * (n - 1)] = 2.0, pos[3 * (n - 1) + 1] = pos[3 * (n - 1) + 2] = 0.0;
  double *clean = malloc(sizeof(double) * 9 * (size_t)A->nnzb);
  memcpy(clean, A->val, sizeof(double) * 9 * (size_t)A->nnzb);
  uint8_t *fixed = calloc(3 * (size_t)n, 1), *fixed2 = calloc(3 * (size_t)n, 1);
  const int32_t held = 0, free_node = 20, moved = 30;
  for (int c = 0; c < 3; ++c) fixed[3 * held + c] = 1;
  fixed[3 * 5] = 1; /* component x of node 5 */
  memcpy(fixed2, fixed, 3 * (size_t)n);
  for (int c = 0; c < 3; ++c) fixed2[3 * moved + c] = 1;
  int64_t masked = -1; /* a block (i, 5) of a free node i: its column x is dropped by the mask */
  for (int64_t q = A->row_ptr[5]; q < A->row_ptr[6] && masked < 0; ++q)
    if (A->col[q] != 5 && A->col[q] != held) masked = cl_bsr_find(A, A->col[q], 5);
  assert_true(masked >= 0);
  for (int mode = CL_MG_MODE_FIXED; mode <= CL_MG_MODE_PCG; ++mode) {
    cl_linear_solver_def def;
    cl_test_mg_def(&s, "10/all", &def);
    def.mg_positions = pos;
    def.mg_position_count = n;
    def.mg_mode = mode;
    cl_linear_solver *ls = NULL;
    assert_ok(cl_linear_solver_create("galerkin_mg", &def, &ls));
    assert_ok(cl_linear_solver_analyse(ls, A));
    assert_ok(cl_linear_solver_setup(ls, A, fixed));
    const struct {
      int64_t at;
      double v;
      const char *where;
    } cases[] = {
        {9 * A->diag[free_node] + 1, NAN, "NaN in a free node's row"},
        {9 * A->diag[held] + 4, INFINITY, "Inf in a held node's row"},
        {9 * masked + 0, NAN, "NaN in a held column of a free row"},
        {9 * A->diag[n - 1] + 8, -INFINITY, "-Inf in the row of a node in no element"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
      A->val[cases[k].at] = cases[k].v;
      expect_non_finite(ls, A, fixed, cases[k].where);
      A->val[cases[k].at] = clean[cases[k].at];
      assert_ok(cl_linear_solver_setup(ls, A, fixed));
    }
    /* a contact round: node `moved` becomes held, and its row changes with the mask (a NaN in it); the
     * solve with the new mask makes the set-up for it again (cl_mg_update_mask) */
    const int64_t q = A->row_ptr[moved] + 1;
    A->val[9 * q + 3] = NAN;
    memset(s.x, 0, sizeof(double) * (size_t)s.n3);
    double *b = calloc(3 * (size_t)n, sizeof(double)), *x = calloc(3 * (size_t)n, sizeof(double));
    memcpy(b, s.b, sizeof(double) * (size_t)s.n3);
    cl_linear_result res;
    const cl_status st = cl_linear_solver_solve(ls, b, x, fixed2, &res);
    print_message("  NaN in the row of a node held from this round: %s, %s\n", cl_status_name(st), cl_last_error());
    assert_int_equal(st, CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_NON_FINITE);
    assert_non_null(strstr(cl_last_error(), "NaN or Inf"));
    A->val[9 * q + 3] = clean[9 * q + 3];
    assert_ok(cl_linear_solver_setup(ls, A, fixed2));
    cl_mg_stats st2;
    cl_mg_get_stats(cl_linear_solver_multigrid(ls), &st2);
    assert_int_equal(st2.mask_updates, 1); /* the NaN was met by the set-up for the new mask */
    free(b);
    free(x);
    cl_linear_solver_destroy(ls);
  }
  free(fixed);
  free(fixed2);
  free(clean);
  free(pos);
  free(rp);
  free(col);
  cl_bsr_destroy(A);
  cl_test_mg_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_entry),
      cmocka_unit_test(test_analyse_once_setup_many),
      cmocka_unit_test(test_fixed_mode_reasons),
      cmocka_unit_test(test_non_finite_anywhere),
      cmocka_unit_test(test_misuse),
      cmocka_unit_test(test_reuse_keeps_coarse_levels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
