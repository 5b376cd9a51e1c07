/* The linear-solver table (linalg/linear_solver.h): the entries and their order (the corotational
 * solver's numeric linear_solver indexes it), every entry solves an SPD elasticity system to its
 * tolerance (free and with held dofs, also with a mask other than the set-up's), one analysis serves
 * several matrices of the same pattern (counted), the cholmod entry keeps or renews its factor as its
 * options say and calls the preconditioner wrap, and every failure is a reason code with a message,
 * never a crash: an indefinite and a singular matrix (not positive definite), NaN in the matrix or the
 * right-hand side (non-finite), the iteration cap (max iterations), a negative definite matrix whose
 * block-Jacobi preconditioner breaks down, and calls out of order or with bad options. The multigrid
 * entry runs here in its default mode (pcg) with the systems' positions; its fixed mode and its own
 * options are in test_multigrid_table.c and the other test_multigrid_*.c. */
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
#include "linalg/linear_solver.h"
#include "solvers/corotational/corot.h"
#include "support/cl_asserts.h"
#include "support/elastic_assembly.h"

#define E_MOD 1e5
#define NU 0.3

static const char *const k_names[] = {"pcg", "cholmod", "galerkin_mg"};

/* The rest positions of the system the tests solve now: the multigrid samples its levels on them. */
static const double *g_x;
static int32_t g_n;

/* The multigrid's options for the current system: its positions and a level of one handle per 8 nodes. */
static void mg_options(cl_linear_solver_def *def) {
  def->mg_positions = g_x;
  def->mg_position_count = g_n;
  snprintf(def->mg_grid, sizeof def->mg_grid, "%d/all", g_n >= 16 ? g_n / 8 : 1);
}

/* A = K + c M on a jittered 5x3x3 tet grid (96 nodes), b smooth plus noise. */
typedef struct sys {
  cl_mesh *mesh;
  cl_bsr *A;
  int64_t *slots;
  int64_t n3;
  double *b, *x;
} sys;

static void sys_init(sys *s, double mass_coeff) {
  memset(s, 0, sizeof *s);
  const double lo[3] = {0, 0, 0}, hi[3] = {1.0, 0.5, 0.5};
  assert_ok(cl_tet_grid(5, 3, 3, lo, hi, &s->mesh));
  assert_ok(cl_test_jitter_interior(s->mesh, 0.03, 7));
  assert_ok(cl_test_elastic_system(s->mesh, E_MOD, NU, mass_coeff, &s->A, &s->slots));
  s->n3 = 3 * (int64_t)s->mesh->npoints;
  s->b = malloc(sizeof(double) * (size_t)s->n3);
  s->x = calloc((size_t)s->n3, sizeof(double));
  uint64_t seed = 3;
  for (int64_t i = 0; i < s->n3; ++i) s->b[i] = sin(0.3 * (double)i) + 0.1 * cl_test_rand01(&seed);
  g_x = s->mesh->x;
  g_n = s->mesh->npoints;
}

static void sys_free(sys *s) {
  free(s->b);
  free(s->x);
  free(s->slots);
  cl_bsr_destroy(s->A);
  cl_mesh_destroy(s->mesh);
}

static cl_linear_solver *make(const char *name, double tol, int32_t max_iter) {
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  def.rel_tol = tol;
  def.max_iter = max_iter;
  mg_options(&def);
  cl_linear_solver *ls = NULL;
  assert_ok(cl_linear_solver_create(name, &def, &ls));
  assert_string_equal(cl_linear_solver_entry(ls), name);
  return ls;
}

static void test_table_order_and_names(void **state) {
  (void)state;
  assert_true(cl_linear_solver_count() >= 2);
  /* the corotational solver's numeric linear_solver indexes the table */
  assert_string_equal(cl_linear_solver_name(CL_COROT_SOLVER_PCG), "pcg");
  assert_string_equal(cl_linear_solver_name(CL_COROT_SOLVER_CHOLMOD), "cholmod");
  for (int32_t i = 0; i < cl_linear_solver_count(); ++i) {
    assert_int_equal(cl_linear_solver_find(cl_linear_solver_name(i)), i);
    assert_non_null(cl_linear_solver_help(i));
  }
  assert_null(cl_linear_solver_name(-1));
  assert_null(cl_linear_solver_name(cl_linear_solver_count()));
  assert_int_equal(cl_linear_solver_find("lu"), -1);
  cl_linear_solver *ls = (cl_linear_solver *)&ls;
  assert_error(cl_linear_solver_create("lu", NULL, &ls), CL_ERR_INVALID_ARGUMENT, "\"pcg\", \"cholmod\"");
  assert_null(ls);
  assert_string_equal(cl_solve_reason_name(CL_SOLVE_NOT_POSDEF), "not_positive_definite");
  assert_string_equal(cl_solve_reason_name(CL_SOLVE_MAX_ITERATIONS), "max_iterations");
}

static void test_each_entry_solves_spd(void **state) {
  (void)state;
  sys s;
  sys_init(&s, 50.0);
  for (size_t k = 0; k < sizeof k_names / sizeof k_names[0]; ++k) {
    cl_linear_solver *ls = make(k_names[k], 1e-10, 2000);
    memset(s.x, 0, sizeof(double) * (size_t)s.n3);
    assert_ok(cl_linear_solver_analyse(ls, s.A));
    assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
    cl_linear_result res;
    assert_ok(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res));
    const double tr = cl_test_true_residual(s.A, s.b, s.x, NULL);
    print_message("%-8s %d iterations, residual %.3g (true %.3g)\n", k_names[k], res.iterations, res.rel_residual, tr);
    assert_int_equal(res.reason, CL_SOLVE_CONVERGED);
    assert_true(res.rel_residual <= 1e-10);
    assert_true(tr <= 1e-9);
    if (strcmp(k_names[k], "cholmod") == 0) assert_true(res.iterations <= 2); /* a fresh factor: direct */
    else if (strcmp(k_names[k], "pcg") == 0) assert_true(res.iterations > 5);
    /* held dofs: the first 10 nodes at given values, which the solve keeps exactly */
    uint8_t *fixed = calloc((size_t)s.n3, 1);
    for (int64_t d = 0; d < 30; ++d) {
      fixed[d] = 1;
      s.x[d] = 1e-3 * (double)d;
    }
    assert_ok(cl_linear_solver_setup(ls, s.A, fixed));
    assert_ok(cl_linear_solver_solve(ls, s.b, s.x, fixed, &res));
    for (int64_t d = 0; d < 30; ++d) assert_true(s.x[d] == 1e-3 * (double)d);
    assert_true(cl_test_true_residual(s.A, s.b, s.x, fixed) <= 1e-9);
    /* a solve with more dofs held than the set-up's mask (contacts found after it) */
    for (int64_t d = 30; d < 60; ++d) {
      fixed[d] = 1;
      s.x[d] = 0.0;
    }
    assert_ok(cl_linear_solver_solve(ls, s.b, s.x, fixed, &res));
    assert_true(cl_test_true_residual(s.A, s.b, s.x, fixed) <= 1e-9);
    for (int64_t d = 30; d < 60; ++d) assert_true(s.x[d] == 0.0);
    free(fixed);
    cl_linear_solver_destroy(ls);
  }
  sys_free(&s);
}

/* One analysis, several matrices of the same pattern (distinct objects): each solve meets its own
 * matrix's residual; cholmod analyses once and, without reuse, factorises at every set-up. */
static void test_analyse_once_setup_many(void **state) {
  (void)state;
  sys s;
  sys_init(&s, 10.0);
  const double scales[3] = {1.0, 3.0, 0.2};
  for (size_t k = 0; k < sizeof k_names / sizeof k_names[0]; ++k) {
    cl_linear_solver_def def;
    cl_linear_solver_def_default(&def);
    def.rel_tol = 1e-10;
    def.reuse_factor = 0;
    mg_options(&def);
    cl_linear_solver *ls = NULL;
    assert_ok(cl_linear_solver_create(k_names[k], &def, &ls));
    assert_ok(cl_linear_solver_analyse(ls, s.A));
    for (int j = 0; j < 3; ++j) {
      cl_bsr *B = NULL;
      assert_ok(cl_bsr_copy(s.A, &B));
      for (int64_t q = 0; q < 9 * B->nnzb; ++q) B->val[q] *= scales[j];
      for (int32_t i = 0; i < B->n; ++i) /* and a different diagonal shift per matrix */
        for (int c = 0; c < 3; ++c) B->val[9 * B->diag[i] + 4 * c] += 100.0 * (double)j;
      memset(s.x, 0, sizeof(double) * (size_t)s.n3);
      assert_ok(cl_linear_solver_setup(ls, B, NULL));
      cl_linear_result res;
      assert_ok(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res));
      assert_true(cl_test_true_residual(B, s.b, s.x, NULL) <= 1e-9);
      cl_bsr_destroy(B);
    }
    cl_linear_solver_stats st;
    cl_linear_solver_get_stats(ls, &st);
    print_message("%-8s analyses %lld, factorisations %lld, solves %lld, iterations %lld\n", k_names[k],
                  (long long)st.analyses, (long long)st.factorizations, (long long)st.solves, (long long)st.iterations);
    assert_int_equal(st.solves, 3);
    assert_int_equal(st.n, s.n3);
    if (strcmp(k_names[k], "cholmod") == 0) {
      assert_int_equal(st.analyses, 1);
      assert_int_equal(st.factorizations, 3);
      assert_non_null(cl_linear_solver_cholmod(ls));
    } else if (strcmp(k_names[k], "galerkin_mg") == 0) { /* set-up = the Galerkin products */
      assert_int_equal(st.analyses, 1);
      assert_int_equal(st.factorizations, 3);
      assert_null(cl_linear_solver_cholmod(ls));
    } else {
      assert_int_equal(st.analyses, 0);
      assert_int_equal(st.factorizations, 0);
      assert_null(cl_linear_solver_cholmod(ls));
    }
    /* a matrix of another pattern is refused until analysed again */
    cl_mesh *m2 = NULL;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    assert_ok(cl_tet_grid(2, 2, 2, lo, hi, &m2));
    cl_bsr *C = NULL;
    int64_t *slots = NULL;
    assert_ok(cl_test_elastic_system(m2, E_MOD, NU, 1.0, &C, &slots));
    assert_error(cl_linear_solver_setup(ls, C, NULL), CL_ERR_INVALID_ARGUMENT, "analyse again");
    g_x = m2->x; /* the new pattern's nodes (the multigrid reads their positions) */
    g_n = m2->npoints;
    mg_options(&def);
    assert_ok(cl_linear_solver_configure(ls, &def));
    g_x = s.mesh->x;
    g_n = s.mesh->npoints;
    assert_ok(cl_linear_solver_analyse(ls, C));
    assert_ok(cl_linear_solver_setup(ls, C, NULL));
    cl_bsr_destroy(C);
    free(slots);
    cl_mesh_destroy(m2);
    cl_linear_solver_destroy(ls);
  }
  sys_free(&s);
}

/* An identity wrap that counts its calls (stands in for the corotational warp z = Q A_f^-1 Q^T r). */
typedef struct wrap_count {
  int applies, refreshes;
} wrap_count;

static cl_status count_apply(void *ctx, cl_precond_fn inner, void *inner_ctx, const double *r, double *z) {
  ((wrap_count *)ctx)->applies++;
  return inner(inner_ctx, r, z);
}

static void count_refresh(void *ctx) { ((wrap_count *)ctx)->refreshes++; }

/* With reuse, a set-up on a changed matrix keeps the old factor while it pays: the solve still meets
 * the tolerance on the new matrix, with more iterations; past refactor_iterations the next set-up
 * factorises. The wrap sees every preconditioner application and every factorisation. */
static void test_cholmod_reuse_and_wrap(void **state) {
  (void)state;
  sys s;
  sys_init(&s, 10.0);
  wrap_count wc = {0, 0};
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  def.rel_tol = 1e-10;
  def.refactor_iterations = 3;
  def.wrap.apply = count_apply;
  def.wrap.refreshed = count_refresh;
  def.wrap.ctx = &wc;
  cl_linear_solver *ls = NULL;
  assert_ok(cl_linear_solver_create("cholmod", &def, &ls));
  assert_true(cl_linear_solver_reuses_setup(ls));
  assert_ok(cl_linear_solver_analyse(ls, s.A));
  assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
  cl_linear_result res;
  assert_ok(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res));
  assert_int_equal(wc.refreshes, 1);
  assert_true(wc.applies >= 1);
  const int32_t fresh_iterations = res.iterations;
  /* the matrix changes (each node's diagonal block grows by a random factor up to 3): the old factor
   * stays for this set-up */
  uint64_t seed = 11;
  for (int32_t i = 0; i < s.A->n; ++i) {
    const double f = 1.0 + 2.0 * cl_test_rand01(&seed);
    for (int c = 0; c < 3; ++c) s.A->val[9 * s.A->diag[i] + 4 * c] *= f;
  }
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
  assert_ok(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res));
  cl_linear_solver_stats st;
  cl_linear_solver_get_stats(ls, &st);
  print_message("reuse: %d iterations with the fresh factor, %d with the old one; %lld factorisations\n",
                fresh_iterations, res.iterations, (long long)st.factorizations);
  assert_int_equal(st.factorizations, 1);
  assert_int_equal(wc.refreshes, 1);
  assert_true(res.iterations > fresh_iterations);
  assert_true(cl_test_true_residual(s.A, s.b, s.x, NULL) <= 1e-9);
  /* that solve needed more than refactor_iterations = 3 iterations: the next set-up factorises */
  assert_true(res.iterations > 3);
  assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
  cl_linear_solver_get_stats(ls, &st);
  assert_int_equal(st.factorizations, 2);
  assert_int_equal(wc.refreshes, 2);
  /* a changed constraint mask factorises too */
  uint8_t *fixed = calloc((size_t)s.n3, 1);
  fixed[0] = fixed[1] = fixed[2] = 1;
  assert_ok(cl_linear_solver_setup(ls, s.A, fixed));
  cl_linear_solver_get_stats(ls, &st);
  assert_int_equal(st.factorizations, 3);
  free(fixed);
  cl_linear_solver_destroy(ls);
  sys_free(&s);
}

/* The rent-or-buy rule's forecast (linear_cholmod.c): while every set-up's matrix is far from the
 * last one (each node's diagonal block scaled by a new random factor in [1, 3]), one set-up on the old
 * factor costs more iterations than a factorisation, and the entry factorises at nearly every set-up
 * instead of every other one (renting a whole set-up first, as the rule without the forecast did);
 * when the matrix then stops changing it keeps its factor again after a few set-ups. */
static void test_cholmod_forecast(void **state) {
  (void)state;
  sys s;
  sys_init(&s, 10.0);
  double *base = malloc(sizeof(double) * 9 * (size_t)s.A->nnzb);
  memcpy(base, s.A->val, sizeof(double) * 9 * (size_t)s.A->nnzb);
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  def.rel_tol = 1e-10;
  def.refactor_iterations = 1000; /* only the rent decides */
  cl_linear_solver *ls = NULL;
  assert_ok(cl_linear_solver_create("cholmod", &def, &ls));
  assert_ok(cl_linear_solver_analyse(ls, s.A));
  cl_linear_solver_stats st;
  cl_linear_result res;
  uint64_t seed = 5;
  const int noisy = 16, quiet = 30;
  int32_t stale_iterations = 0;
  int64_t before = 0;
  for (int k = 0; k < noisy + quiet; ++k) {
    if (k < noisy) {
      memcpy(s.A->val, base, sizeof(double) * 9 * (size_t)s.A->nnzb);
      for (int32_t i = 0; i < s.A->n; ++i) {
        const double f = 1.0 + 2.0 * cl_test_rand01(&seed);
        for (int c = 0; c < 3; ++c) s.A->val[9 * s.A->diag[i] + 4 * c] *= f;
      }
    }
    cl_linear_solver_get_stats(ls, &st);
    before = st.factorizations;
    assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
    memset(s.x, 0, sizeof(double) * (size_t)s.n3);
    assert_ok(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res));
    assert_true(cl_test_true_residual(s.A, s.b, s.x, NULL) <= 1e-9);
    cl_linear_solver_get_stats(ls, &st);
    if (k == 1) stale_iterations = res.iterations; /* the second set-up rents: no forecast yet */
    if (k == noisy - 1) {
      print_message("forecast: %lld factorisations in %d set-ups on changing matrices (%d iterations on a "
                    "one-set-up-old factor, %.3g flops a factorisation)\n", (long long)st.factorizations, noisy,
                    stale_iterations, st.factor_flops);
      assert_int_equal(before + 1, st.factorizations); /* still buying at the end */
      assert_true(st.factorizations >= noisy - 3);
    }
  }
  cl_linear_solver_get_stats(ls, &st);
  print_message("forecast: %lld factorisations after %d more set-ups on one matrix\n", (long long)st.factorizations,
                quiet);
  assert_true(stale_iterations > 2);
  assert_int_equal(before, st.factorizations); /* the last set-up kept the factor */
  assert_true(st.factorizations < noisy + quiet / 2);
  cl_linear_solver_destroy(ls);
  free(base);
  sys_free(&s);
}

/* direct_fresh (the multigrid's coarsest level): a solve on a factor of its very matrix and mask is
 * the factor's direct solve, one "iteration", as close to CG's one iteration on the same factor as
 * the tolerance asks (CG's step length differs from 1 by rounding times the condition number) and
 * with a true residual within it;
 * on an older factor, or with another mask, CG runs as always and meets the tolerance. */
static void test_cholmod_direct_fresh(void **state) {
  (void)state;
  sys s;
  sys_init(&s, 10.0);
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  def.rel_tol = 1e-10;
  def.direct_fresh = 2;
  cl_linear_solver *ls = NULL, *cg = NULL;
  assert_error(cl_linear_solver_create("cholmod", &def, &ls), CL_ERR_INVALID_ARGUMENT, "'direct_fresh' = 2");
  def.direct_fresh = 1;
  assert_ok(cl_linear_solver_create("cholmod", &def, &ls));
  def.direct_fresh = 0;
  assert_ok(cl_linear_solver_create("cholmod", &def, &cg));
  assert_ok(cl_linear_solver_analyse(ls, s.A));
  assert_ok(cl_linear_solver_analyse(cg, s.A));
  assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
  assert_ok(cl_linear_solver_setup(cg, s.A, NULL));
  double *x2 = calloc((size_t)s.n3, sizeof(double));
  cl_linear_result res, res2;
  assert_ok(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res));
  assert_ok(cl_linear_solver_solve(cg, s.b, x2, NULL, &res2));
  double d = 0.0, n = 0.0;
  for (int64_t i = 0; i < s.n3; ++i) {
    d += (s.x[i] - x2[i]) * (s.x[i] - x2[i]);
    n += x2[i] * x2[i];
  }
  const double rd = cl_test_true_residual(s.A, s.b, s.x, NULL), rc = cl_test_true_residual(s.A, s.b, x2, NULL);
  print_message("direct_fresh: |x_direct - x_cg| / |x| = %.3g; relative residuals %.3g (direct), %.3g (CG, %d "
                "iteration)\n", sqrt(d / n), rd, rc, res2.iterations);
  assert_int_equal(res.iterations, 1);
  assert_int_equal(res2.iterations, 1);
  assert_true(sqrt(d / n) <= def.rel_tol);
  assert_true(rd <= def.rel_tol);
  /* another mask: CG on the factor (projected), to the tolerance */
  uint8_t *fixed = calloc((size_t)s.n3, 1);
  fixed[0] = fixed[1] = fixed[2] = 1;
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_ok(cl_linear_solver_solve(ls, s.b, s.x, fixed, &res));
  assert_true(res.iterations > 1 && res.rel_residual <= 1e-10);
  /* an older factor: the matrix changes, the set-up keeps the factor, CG runs */
  for (int32_t i = 0; i < s.A->n; ++i)
    for (int c = 0; c < 3; ++c) s.A->val[9 * s.A->diag[i] + 4 * c] *= 1.5;
  assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
  cl_linear_solver_stats st;
  cl_linear_solver_get_stats(ls, &st);
  assert_int_equal(st.factorizations, 1);
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_ok(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res));
  assert_true(res.iterations > 1);
  assert_true(cl_test_true_residual(s.A, s.b, s.x, NULL) <= 1e-9);
  free(fixed);
  free(x2);
  cl_linear_solver_destroy(ls);
  cl_linear_solver_destroy(cg);
  sys_free(&s);
}

/* Set up and solve; returns the solve's status, with the set-up's status and both reasons. */
static cl_status run(const char *name, cl_bsr *A, const double *b, int32_t max_iter, cl_status *setup_status,
                     cl_solve_reason *setup_reason, cl_linear_result *res) {
  cl_linear_solver *ls = make(name, 1e-10, max_iter);
  assert_ok(cl_linear_solver_analyse(ls, A));
  *setup_status = cl_linear_solver_setup(ls, A, NULL);
  *setup_reason = cl_linear_solver_reason(ls);
  double x[6] = {0, 0, 0, 0, 0, 0};
  cl_status r = cl_linear_solver_solve(ls, b, x, NULL, res);
  print_message("  %-8s set-up %s (%s), solve %s (%s): %s\n", name, cl_status_name(*setup_status),
                cl_solve_reason_name(*setup_reason), cl_status_name(r), cl_solve_reason_name(res->reason),
                cl_last_error());
  assert_int_equal(cl_linear_solver_reason(ls), res->reason);
  cl_linear_solver_destroy(ls);
  return r;
}

static void test_reasons(void **state) {
  (void)state;
  /* b along the eigenvector (1, -1) of eigenvalue d - o */
  const double b[6] = {1, 0, 0, -1, 0, 0};
  static const double two_x[6] = {0, 0, 0, 1, 0, 0};
  g_x = two_x;
  g_n = 2;
  cl_linear_result res;
  cl_status ss;
  cl_solve_reason sr;
  for (size_t k = 0; k < sizeof k_names / sizeof k_names[0]; ++k) {
    const char *name = k_names[k];
    const int chol = strcmp(name, "cholmod") == 0;
    /* indefinite (eigenvalues 3 and -1) with positive diagonal blocks */
    cl_bsr *A = cl_test_two_node(1.0, 2.0);
    assert_int_equal(run(name, A, b, 100, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_NOT_POSDEF);
    assert_non_null(strstr(cl_last_error(), "not positive definite"));
    if (chol) {
      assert_int_equal(ss, CL_WARN_NOT_POSDEF);
      assert_int_equal(sr, CL_SOLVE_NOT_POSDEF);
    }
    cl_bsr_destroy(A);
    /* singular (eigenvalues 2 and 0), b in the null space */
    A = cl_test_two_node(1.0, 1.0);
    assert_int_equal(run(name, A, b, 100, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_NOT_POSDEF);
    if (chol) assert_int_equal(sr, CL_SOLVE_NOT_POSDEF);
    cl_bsr_destroy(A);
    /* negative definite: the block-Jacobi preconditioner is not positive definite either */
    A = cl_test_two_node(-2.0, 1.0);
    assert_int_equal(run(name, A, b, 100, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_BREAKDOWN);
    cl_bsr_destroy(A);
    /* NaN off the diagonal, then on it */
    A = cl_test_two_node(2.0, 1.0);
    A->val[9 * cl_bsr_find(A, 0, 1)] = NAN;
    assert_int_equal(run(name, A, b, 100, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_NON_FINITE);
    if (chol) {
      assert_int_equal(ss, CL_ERR_NUMERICAL);
      assert_int_equal(sr, CL_SOLVE_NON_FINITE);
    }
    A->val[9 * cl_bsr_find(A, 0, 1)] = 1.0;
    A->val[9 * A->diag[1] + 4] = INFINITY;
    assert_int_equal(run(name, A, b, 100, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_NON_FINITE);
    cl_bsr_destroy(A);
    /* NaN in the right-hand side of an SPD system */
    A = cl_test_two_node(2.0, 1.0);
    const double bnan[6] = {1, NAN, 0, 0, 0, 0};
    assert_int_equal(run(name, A, bnan, 100, &ss, &sr, &res), CL_ERR_NUMERICAL);
    assert_int_equal(res.reason, CL_SOLVE_NON_FINITE);
    assert_int_equal(ss, CL_OK);
    cl_bsr_destroy(A);
  }
  /* the iteration cap: a warning with x the last iterate, for every entry */
  sys s;
  sys_init(&s, 10.0);
  for (size_t k = 0; k < sizeof k_names / sizeof k_names[0]; ++k) {
    cl_linear_solver *ls = make(k_names[k], 1e-12, 0);
    assert_ok(cl_linear_solver_analyse(ls, s.A));
    assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
    memset(s.x, 0, sizeof(double) * (size_t)s.n3);
    cl_linear_result res2;
    assert_error(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res2), CL_WARN_NOT_CONVERGED, "iteration cap");
    assert_int_equal(res2.reason, CL_SOLVE_MAX_ITERATIONS);
    cl_linear_solver_destroy(ls);
  }
  cl_linear_solver *ls = make("pcg", 1e-12, 3);
  assert_ok(cl_linear_solver_analyse(ls, s.A));
  assert_ok(cl_linear_solver_setup(ls, s.A, NULL));
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_int_equal(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res), CL_WARN_NOT_CONVERGED);
  assert_int_equal(res.reason, CL_SOLVE_MAX_ITERATIONS);
  assert_int_equal(res.iterations, 3);
  assert_true(res.rel_residual > 1e-12 && res.rel_residual < 1.0);
  cl_linear_solver_destroy(ls);
  sys_free(&s);
}

static void test_misuse(void **state) {
  (void)state;
  sys s;
  sys_init(&s, 10.0);
  for (size_t k = 0; k < sizeof k_names / sizeof k_names[0]; ++k) {
    cl_linear_solver *ls = make(k_names[k], 1e-8, 100);
    cl_linear_result res;
    assert_error(cl_linear_solver_setup(ls, s.A, NULL), CL_ERR_STATE, "before analysis");
    assert_error(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res), CL_ERR_STATE, "before a set-up");
    assert_int_equal(res.reason, CL_SOLVE_INVALID);
    assert_ok(cl_linear_solver_analyse(ls, s.A));
    assert_error(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res), CL_ERR_STATE, "before a set-up");
    assert_error(cl_linear_solver_solve(ls, NULL, s.x, NULL, &res), CL_ERR_INVALID_ARGUMENT, "NULL");
    cl_linear_solver_def def;
    cl_linear_solver_def_default(&def);
    def.rel_tol = 1.5;
    assert_error(cl_linear_solver_configure(ls, &def), CL_ERR_INVALID_ARGUMENT, "'rel_tol' = 1.5");
    cl_linear_solver_def_default(&def);
    def.factor_solve = 7;
    assert_error(cl_linear_solver_configure(ls, &def), CL_ERR_INVALID_ARGUMENT, "'factor_solve' = 7");
    cl_linear_solver_def_default(&def);
    def.threads = 0;
    assert_error(cl_linear_solver_create(k_names[k], &def, &(cl_linear_solver *){NULL}), CL_ERR_INVALID_ARGUMENT,
                 "'threads' = 0");
    cl_linear_solver_destroy(ls);
  }
  cl_linear_solver_destroy(NULL);
  sys_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_order_and_names),
      cmocka_unit_test(test_each_entry_solves_spd),
      cmocka_unit_test(test_analyse_once_setup_many),
      cmocka_unit_test(test_cholmod_reuse_and_wrap),
      cmocka_unit_test(test_cholmod_forecast),
      cmocka_unit_test(test_cholmod_direct_fresh),
      cmocka_unit_test(test_reasons),
      cmocka_unit_test(test_misuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
