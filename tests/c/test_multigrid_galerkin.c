/* Galerkin coarse matrices of the multigrid (linalg/multigrid_galerkin.h, paper eq 14): the planned
 * scatter equals the dense triple product P^T D A D P, with and without a mask, at the first and the
 * second coarse level, and with 1 or 2 threads bitwise; a well-posed system is not regularised at
 * all; and no coarse matrix is ever singular: degenerate clusters (few or flat nodes), a cluster whose
 * nodes are all fixed, a cluster cut off by damage (its blocks zeroed by the caller) and a cluster
 * whose free nodes are flat all give positive definite coarse matrices. */
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
#include "linalg/multigrid_galerkin.h"
#include "linalg/multigrid_transfer.h"
#include "support/cl_asserts.h"
#include "support/elastic_assembly.h"
#include "support/mg_systems.h"

/* Dense P (3 n_fine x 12 n_handles, row-major). */
static double *dense_p(const cl_mg_transfer *t) {
  const int64_t rows = 3 * (int64_t)t->n_fine, cols = 12 * (int64_t)t->n_handles;
  double *P = calloc((size_t)(rows * cols), sizeof(double));
  for (int32_t i = 0; i < t->n_fine; ++i) {
    const int32_t k = t->handle[i];
    if (k < 0) continue;
    for (int e = 0; e < 4; ++e)
      for (int c = 0; c < 3; ++c) P[(3 * i + c) * cols + 12 * k + 3 * e + c] = t->w[4 * i + e];
  }
  return P;
}

/* P^T D A D P by dense loops (m = 3 n_fine, p = 12 n_handles). */
static double *dense_galerkin(const cl_bsr *A, const cl_mg_transfer *t, const uint8_t *fixed) {
  const int64_t m = 3 * (int64_t)A->n, p = 12 * (int64_t)t->n_handles;
  double *Ad = cl_test_bsr_to_dense(A), *P = dense_p(t);
  if (fixed)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < m; ++c)
        if (fixed[r] || fixed[c]) Ad[r * m + c] = 0.0;
  double *AP = calloc((size_t)(m * p), sizeof(double)), *C = calloc((size_t)(p * p), sizeof(double));
  for (int64_t r = 0; r < m; ++r)
    for (int64_t k = 0; k < m; ++k) {
      const double a = Ad[r * m + k];
      if (a == 0.0) continue;
      for (int64_t c = 0; c < p; ++c) AP[r * p + c] += a * P[k * p + c];
    }
  for (int64_t k = 0; k < m; ++k)
    for (int64_t r = 0; r < p; ++r) {
      const double pr = P[k * p + r];
      if (pr == 0.0) continue;
      for (int64_t c = 0; c < p; ++c) C[r * p + c] += pr * AP[k * p + c];
    }
  free(Ad);
  free(P);
  free(AP);
  return C;
}

/* max |Ac - C| / max |C| over the whole matrix (blocks outside Ac's pattern count as zero). */
static double compare(const cl_bsr *Ac, const double *C) {
  const int64_t p = 3 * (int64_t)Ac->n;
  double *D = cl_test_bsr_to_dense(Ac), diff = 0.0, big = 0.0;
  for (int64_t q = 0; q < p * p; ++q) {
    diff = fmax(diff, fabs(D[q] - C[q]));
    big = fmax(big, fabs(C[q]));
  }
  free(D);
  return diff / big;
}

/* Smallest squared Cholesky pivot over the largest diagonal entry (> 0 iff positive definite). */
static double spd_margin(const cl_bsr *A) {
  const int64_t n = 3 * (int64_t)A->n;
  double *L = cl_test_bsr_to_dense(A), dmax = 0.0, pmin = INFINITY;
  for (int64_t i = 0; i < n; ++i) dmax = fmax(dmax, L[i * n + i]);
  for (int64_t j = 0; j < n; ++j) {
    double s = L[j * n + j];
    for (int64_t k = 0; k < j; ++k) s -= L[j * n + k] * L[j * n + k];
    if (!(s > 0.0)) {
      free(L);
      return s / dmax;
    }
    pmin = fmin(pmin, s);
    const double l = sqrt(s);
    L[j * n + j] = l;
    for (int64_t i = j + 1; i < n; ++i) {
      double v = L[i * n + j];
      for (int64_t k = 0; k < j; ++k) v -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = v / l;
    }
  }
  free(L);
  return pmin / dmax;
}

static cl_linear_solver *hierarchy(const cl_test_mg_sys *s, const char *grid, int threads) {
  cl_linear_solver_def def;
  cl_test_mg_def(s, grid, &def);
  def.threads = threads;
  return cl_test_mg_solver(s, NULL, &def);
}

static void test_equals_dense_product(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 8, 3, 3, 1.0, 0.4, 1e5, 0.3, 50.0); /* 144 nodes */
  cl_linear_solver *ls = hierarchy(&s, "3/12/all", 2);
  const cl_mg *mg = cl_linear_solver_multigrid(ls);
  const cl_mg_transfer *t0 = cl_mg_level_transfer(mg, 0), *t1 = cl_mg_level_transfer(mg, 1);
  uint8_t *fixed = calloc((size_t)s.n3, 1);
  for (int64_t d = 0; d < s.n3; d += 7) fixed[d] = 1; /* single components too */
  for (int64_t d = 30; d < 45; ++d) fixed[d] = 1;     /* and whole nodes */
  for (int with_mask = 0; with_mask < 2; ++with_mask) {
    const uint8_t *mask = with_mask ? fixed : NULL;
    assert_ok(cl_linear_solver_setup(ls, s.A, mask));
    cl_mg_stats st;
    cl_mg_get_stats(mg, &st);
    assert_int_equal(st.level[1].regularized, 0); /* nothing singular here: A_1 is the plain product */
    /* level 1, through the hierarchy and through the module directly */
    double *C = dense_galerkin(s.A, t0, mask);
    const double e1 = compare(cl_mg_level_matrix(mg, 1), C);
    cl_mg_galerkin g;
    cl_bsr *Ac = NULL;
    assert_ok(cl_mg_galerkin_analyse(s.A, t0, 1, &g, &Ac));
    cl_mg_galerkin_product(&g, t0, s.A, mask, 1, Ac);
    const double e1b = compare(Ac, C);
    assert_int_equal(Ac->nnzb, cl_mg_level_matrix(mg, 1)->nnzb);
    /* 1 and 2 threads, bitwise */
    assert_memory_equal(Ac->val, cl_mg_level_matrix(mg, 1)->val, sizeof(double) * 9 * (size_t)Ac->nnzb);
    free(C);
    cl_bsr_destroy(Ac);
    cl_mg_galerkin_free(&g);
    /* level 2 from level 1 (eq 18's transfer, no mask below level 0) */
    C = dense_galerkin(cl_mg_level_matrix(mg, 1), t1, NULL);
    const double e2 = compare(cl_mg_level_matrix(mg, 2), C);
    free(C);
    print_message("mask %d: |A_1 - P^T D A D P| / |A_1| = %.2g (module %.2g), level 2 %.2g\n", with_mask, e1, e1b, e2);
    /* (the comparison sees a change of one entry) */
    cl_bsr *Cc = NULL;
    assert_ok(cl_bsr_copy(cl_mg_level_matrix(mg, 2), &Cc));
    Cc->val[9 * Cc->nnzb / 2] *= 1.0 + 1e-9;
    C = dense_galerkin(cl_mg_level_matrix(mg, 1), t1, NULL);
    assert_true(compare(Cc, C) > 1e-12);
    free(C);
    cl_bsr_destroy(Cc);
    assert_true(e1 < 1e-13 && e1b < 1e-13 && e2 < 1e-13);
    /* both coarse matrices are symmetric positive definite */
    assert_true(spd_margin(cl_mg_level_matrix(mg, 1)) > 0.0);
    assert_true(spd_margin(cl_mg_level_matrix(mg, 2)) > 0.0);
  }
  free(fixed);
  cl_linear_solver_destroy(ls);
  cl_test_mg_free(&s);
}

/* The set-up's coarse matrices after `prepare` changed A or the mask: positive definite, with a margin. */
static void check_spd(const char *what, cl_linear_solver *ls, const cl_bsr *A, const uint8_t *fixed, int want_raised) {
  assert_ok(cl_linear_solver_setup(ls, A, fixed));
  const cl_mg *mg = cl_linear_solver_multigrid(ls);
  cl_mg_stats st;
  cl_mg_get_stats(mg, &st);
  for (int32_t l = 1; l < st.levels; ++l) {
    const double margin = spd_margin(cl_mg_level_matrix(mg, l));
    print_message("%-36s level %d: %3d degenerate handles, %4d pivots raised, SPD margin %.3g\n", what, l,
                  st.level[l].degenerate, st.level[l].regularized, margin);
    assert_true(margin > 1e-9); /* a null direction gets the pivot of its block: well conditioned */
  }
  if (want_raised) assert_true(st.level[1].regularized > 0);
}

static void test_never_singular(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 8, 3, 3, 1.0, 0.4, 1e5, 0.3, 50.0); /* 144 nodes */
  /* many clusters of one to three nodes: points, lines, flat clusters */
  cl_linear_solver *ls = hierarchy(&s, "4/70/all", 1);
  const cl_mg *mg = cl_linear_solver_multigrid(ls);
  cl_mg_stats st;
  cl_mg_get_stats(mg, &st);
  assert_true(st.level[1].degenerate > 10);
  check_spd("degenerate clusters", ls, s.A, NULL, 1);
  cl_linear_solver_destroy(ls);

  ls = hierarchy(&s, "3/12/all", 1);
  mg = cl_linear_solver_multigrid(ls);
  const cl_mg_transfer *t0 = cl_mg_level_transfer(mg, 0);
  check_spd("well posed", ls, s.A, NULL, 0);
  cl_mg_get_stats(mg, &st);
  assert_int_equal(st.level[1].regularized, 0);
  assert_int_equal(st.level[2].regularized, 0);
  /* every node of handle 0's cluster fixed: its 12 unknowns have zero rows */
  uint8_t *fixed = calloc((size_t)s.n3, 1);
  for (int32_t m = t0->member_ptr[0]; m < t0->member_ptr[1]; ++m)
    for (int c = 0; c < 3; ++c) fixed[3 * t0->members[m] + c] = 1;
  check_spd("a cluster all fixed", ls, s.A, fixed, 1);
  cl_mg_get_stats(mg, &st);
  assert_true(st.level[1].regularized >= 12);
  /* all but three nodes of handle 1's cluster fixed: the free ones are flat (null combinations) */
  memset(fixed, 0, (size_t)s.n3);
  int32_t nfree = 0;
  for (int32_t m = t0->member_ptr[1]; m < t0->member_ptr[2]; ++m)
    if (nfree++ >= 3)
      for (int c = 0; c < 3; ++c) fixed[3 * t0->members[m] + c] = 1;
  assert_true(nfree > 4);
  check_spd("a cluster with 3 free nodes", ls, s.A, fixed, 1);
  /* handle 2's cluster cut off by damage: every block coupling its nodes to others zeroed, and the
   * stiffness among them too (what is left is their mass) */
  cl_bsr *B = NULL;
  assert_ok(cl_bsr_copy(s.A, &B));
  for (int32_t i = 0; i < B->n; ++i)
    for (int64_t q = B->row_ptr[i]; q < B->row_ptr[i + 1]; ++q) {
      const int in_i = t0->handle[i] == 2, in_j = t0->handle[B->col[q]] == 2;
      if ((in_i || in_j) && B->col[q] != i) memset(B->val + 9 * q, 0, 9 * sizeof(double));
    }
  check_spd("a cluster cut off (mass only)", ls, B, NULL, 0);
  /* and with its blocks all zeroed (no mass either) and its nodes held: the caller's way to remove
   * material; the rows of those nodes are then exactly zero */
  memset(fixed, 0, (size_t)s.n3);
  for (int32_t i = 0; i < B->n; ++i)
    if (t0->handle[i] == 2) {
      memset(B->val + 9 * B->diag[i], 0, 9 * sizeof(double));
      for (int c = 0; c < 3; ++c) fixed[3 * i + c] = 1;
    }
  check_spd("a cluster removed (zero blocks, held)", ls, B, fixed, 1);
  /* the multigrid still solves that system, exactly on the held dofs */
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  cl_linear_result res;
  assert_ok(cl_linear_solver_solve(ls, s.b, s.x, fixed, &res));
  for (int64_t d = 0; d < s.n3; ++d)
    if (fixed[d]) assert_true(s.x[d] == 0.0);
  assert_true(res.rel_residual <= 1e-8);
  /* the same blocks zeroed without holding the nodes: A is singular, and the set-up says so (the
   * handle's coarse block vanishes where its nodes are free) */
  assert_error(cl_linear_solver_setup(ls, B, NULL), CL_WARN_NOT_POSDEF, "not positive definite on the free dofs");
  assert_int_equal(cl_linear_solver_reason(ls), CL_SOLVE_NOT_POSDEF);
  assert_int_equal(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res), CL_ERR_NUMERICAL);
  assert_int_equal(res.reason, CL_SOLVE_NOT_POSDEF);
  /* one free node's blocks zeroed: its cluster still has a positive block, its smoother block not */
  cl_bsr_destroy(B);
  assert_ok(cl_bsr_copy(s.A, &B));
  for (int32_t i = 0; i < B->n; ++i)
    for (int64_t q = B->row_ptr[i]; q < B->row_ptr[i + 1]; ++q)
      if (i == 5 || B->col[q] == 5) memset(B->val + 9 * q, 0, 9 * sizeof(double));
  assert_error(cl_linear_solver_setup(ls, B, NULL), CL_WARN_NOT_POSDEF, "smoother of level 0: diagonal block of node 5");
  assert_int_equal(cl_linear_solver_solve(ls, s.b, s.x, NULL, &res), CL_ERR_NUMERICAL);
  assert_int_equal(res.reason, CL_SOLVE_NOT_POSDEF);
  cl_bsr_destroy(B);
  free(fixed);
  cl_linear_solver_destroy(ls);
  cl_test_mg_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_equals_dense_product),
      cmocka_unit_test(test_never_singular),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
