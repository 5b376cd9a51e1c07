/* CHOLMOD wrapper: on SPD elasticity systems from tet meshes, CHOLMOD and PCG agree to 1e-8
 * (free and constrained); a value change is refactored without a new analysis (counted); an
 * indefinite matrix gives CL_WARN_NOT_POSDEF naming a column and the solver recovers after a good
 * refactorisation; NaN values, a matrix of another pattern and solving before factorising give clear
 * errors; a factor of an older matrix preconditions PCG on the new one (the hook in cg.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>
#include <cmocka.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/error.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "linalg/bsr.h"
#include "linalg/cg.h"
#include "linalg/cholmod_solver.h"
#include "linalg/vec.h"
#include "support/elastic_assembly.h"

#define E_MOD 1e5
#define NU 0.3

static cl_mesh *jittered_grid(int32_t nx, int32_t ny, int32_t nz) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1.0, 0.5, 0.5};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(nx, ny, nz, lo, hi, &m), CL_OK);
  assert_int_equal(cl_test_jitter_interior(m, 0.2 * 0.5 / ny, 21), CL_OK);
  return m;
}

static double rel_diff(int64_t n, const double *a, const double *b) {
  double d = 0, s = 0;
  for (int64_t i = 0; i < n; ++i) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    s += b[i] * b[i];
  }
  return sqrt(d / s);
}

static void pcg(const cl_bsr *A, const double *b, double *x, const uint8_t *fixed, cl_cg_result *res) {
  cl_cg_workspace *ws;
  assert_int_equal(cl_cg_workspace_create(A->n, &ws), CL_OK);
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.rel_tol = 1e-12;
  def.max_iter = 10000;
  def.fixed = fixed;
  assert_int_equal(cl_cg_solve(A, b, x, &def, ws, res), CL_OK);
  cl_cg_workspace_destroy(ws);
}

static void agrees_with_pcg(cl_mesh *m) {
  cl_bsr *A;
  int64_t *slots;
  assert_int_equal(cl_test_elastic_system(m, E_MOD, NU, 1e3, &A, &slots), CL_OK);
  const int64_t n3 = 3 * (int64_t)A->n;
  double *b = malloc(sizeof(double) * (size_t)n3), *x = calloc((size_t)n3, sizeof(double));
  double *xc = malloc(sizeof(double) * (size_t)n3);
  for (int64_t i = 0; i < n3; ++i) b[i] = sin(0.37 * (double)i) + (i % 3 == 2 ? -1.0 : 0.0);
  cl_cholmod *c;
  assert_int_equal(cl_cholmod_create(A, NULL, &c), CL_OK);
  assert_int_equal(cl_cholmod_factorize(c, A), CL_OK);
  assert_int_equal(cl_cholmod_solve(c, b, xc), CL_OK);
  pcg(A, b, x, NULL, NULL);
  double d = rel_diff(n3, xc, x);
  print_message("  free: |x_cholmod - x_pcg| / |x| = %.3g\n", d);
  assert_true(d < 1e-8);
  cl_cholmod_stats st;
  cl_cholmod_get_stats(c, &st);
  assert_int_equal(st.n, n3);
  assert_int_equal(st.analyses, 1);
  assert_int_equal(st.supernodal, 1);
  /* the upper triangle: (9 nnzb - 3n) / 2 + 3n entries */
  assert_int_equal(st.nnz_a, (9 * A->nnzb - n3) / 2 + n3);
  assert_true(st.nnz_l >= (double)st.nnz_a);
  /* solving in place (b and x the same buffer) */
  memcpy(x, b, sizeof(double) * (size_t)n3);
  assert_int_equal(cl_cholmod_solve(c, x, x), CL_OK);
  assert_memory_equal(x, xc, sizeof(double) * (size_t)n3);

  /* constrained: pure stiffness, clamped at x = 0 and pulled at x = 1; CHOLMOD with the same mask
   * solves the projected system when the lifted right-hand side is given */
  assert_int_equal(cl_test_assemble_elastic(m, E_MOD, NU, 0.0, A, slots), CL_OK);
  uint8_t *fixed = calloc((size_t)n3, 1);
  for (int32_t i = 0; i < m->npoints; ++i) {
    if (m->x[3 * i] == 0.0)
      for (int k = 0; k < 3; ++k) fixed[3 * i + k] = 1;
    if (m->x[3 * i] == 1.0) fixed[3 * i] = 1;
    if (i % 13 == 4) fixed[3 * i + 1] = 1; /* and some single components */
  }
  for (int64_t i = 0; i < n3; ++i) x[i] = fixed[i] && m->x[i - i % 3] == 1.0 ? 0.01 : fixed[i] ? -1e-3 : 0.0;
  /* lifted rhs: r = b - A x_c on free dofs, x_c on fixed dofs */
  double *rhs = malloc(sizeof(double) * (size_t)n3);
  cl_bsr_residual(A, b, x, fixed, rhs);
  for (int64_t i = 0; i < n3; ++i)
    if (fixed[i]) rhs[i] = x[i];
  pcg(A, b, x, fixed, NULL);
  assert_int_equal(cl_cholmod_set_fixed(c, fixed), CL_OK);
  assert_int_equal(cl_cholmod_factorize(c, A), CL_OK);
  assert_int_equal(cl_cholmod_solve(c, rhs, xc), CL_OK);
  d = rel_diff(n3, xc, x);
  print_message("  constrained: |x_cholmod - x_pcg| / |x| = %.3g\n", d);
  assert_true(d < 1e-8);
  cl_cholmod_get_stats(c, &st);
  assert_int_equal(st.analyses, 1); /* a new mask is a value change, not a new pattern */
  assert_int_equal(st.factorizations, 2);
  free(rhs);
  free(fixed);
  cl_cholmod_destroy(c);
  free(b);
  free(x);
  free(xc);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

static void test_agrees_with_pcg_grid(void **state) {
  (void)state;
  agrees_with_pcg(jittered_grid(10, 5, 5));
}

static void test_agrees_with_pcg_tetgen(void **state) {
  (void)state;
  cl_mesh *m = cl_test_tetgen_box(1.0 / 2000.0); /* TetGen is part of every build: no skip */
  assert_non_null(m);
  agrees_with_pcg(m);
}

static void test_refactor_without_analysis(void **state) {
  (void)state;
  cl_mesh *m = jittered_grid(6, 4, 4);
  cl_bsr *A;
  int64_t *slots;
  assert_int_equal(cl_test_elastic_system(m, E_MOD, NU, 1e4, &A, &slots), CL_OK);
  const int64_t n3 = 3 * (int64_t)A->n;
  double *b = malloc(sizeof(double) * (size_t)n3), *x = malloc(sizeof(double) * (size_t)n3);
  double *x1 = malloc(sizeof(double) * (size_t)n3), *x2 = calloc((size_t)n3, sizeof(double));
  for (int64_t i = 0; i < n3; ++i) b[i] = cos(0.11 * (double)i);
  cl_cholmod *c;
  assert_int_equal(cl_cholmod_create(A, NULL, &c), CL_OK);
  assert_int_equal(cl_cholmod_solve(c, b, x), CL_ERR_STATE); /* nothing factorised yet */
  cl_cholmod_stats st;
  assert_int_equal(cl_cholmod_analyse(c), CL_OK); /* at "bind" time, from the pattern alone */
  cl_cholmod_get_stats(c, &st);
  assert_int_equal(st.analyses, 1);
  assert_int_equal(st.factorizations, 0);
  assert_true(st.nnz_l > 0);
  assert_int_equal(cl_cholmod_solve(c, b, x), CL_ERR_STATE); /* analysed, not factorised */
  assert_int_equal(cl_cholmod_factorize(c, A), CL_OK);
  assert_int_equal(cl_cholmod_solve(c, b, x1), CL_OK);
  /* new values (another material, another mass), same pattern */
  assert_int_equal(cl_test_assemble_elastic(m, 3 * E_MOD, 0.45, 2e3, A, slots), CL_OK);
  assert_int_equal(cl_cholmod_factorize(c, A), CL_OK);
  assert_int_equal(cl_cholmod_solve(c, b, x), CL_OK);
  pcg(A, b, x2, NULL, NULL);
  assert_true(rel_diff(n3, x, x2) < 1e-8);
  assert_true(rel_diff(n3, x, x1) > 1e-2); /* it really is a different solution */
  cl_cholmod_get_stats(c, &st);
  assert_int_equal(st.analyses, 1);
  assert_int_equal(st.factorizations, 2);
  assert_int_equal(st.solves, 2);
  /* forcing a new analysis is counted */
  cl_cholmod_invalidate_analysis(c);
  assert_int_equal(cl_cholmod_factorize(c, A), CL_OK);
  cl_cholmod_get_stats(c, &st);
  assert_int_equal(st.analyses, 2);
  cl_cholmod_destroy(c);
  free(b);
  free(x);
  free(x1);
  free(x2);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

static void test_not_posdef_and_errors(void **state) {
  (void)state;
  cl_mesh *m = jittered_grid(4, 3, 3);
  cl_bsr *A;
  int64_t *slots;
  assert_int_equal(cl_test_elastic_system(m, E_MOD, NU, 1e3, &A, &slots), CL_OK);
  const int64_t n3 = 3 * (int64_t)A->n;
  double *b = malloc(sizeof(double) * (size_t)n3), *x = malloc(sizeof(double) * (size_t)n3);
  for (int64_t i = 0; i < n3; ++i) b[i] = 1.0;
  cl_cholmod *c;
  assert_int_equal(cl_cholmod_create(A, NULL, &c), CL_OK);
  assert_int_equal(cl_cholmod_factorize(c, A), CL_OK);
  /* indefinite: K - s M with s beyond the smallest eigenvalues */
  assert_int_equal(cl_test_assemble_elastic(m, E_MOD, NU, -1e6, A, slots), CL_OK);
  assert_int_equal(cl_cholmod_factorize(c, A), CL_WARN_NOT_POSDEF);
  assert_non_null(strstr(cl_last_error(), "not positive definite"));
  assert_non_null(strstr(cl_last_error(), "column"));
  assert_int_equal(cl_cholmod_solve(c, b, x), CL_ERR_STATE);
  /* semidefinite too: pure stiffness without constraints has rigid modes */
  assert_int_equal(cl_test_assemble_elastic(m, E_MOD, NU, 0.0, A, slots), CL_OK);
  cl_status s = cl_cholmod_factorize(c, A);
  assert_true(s == CL_WARN_NOT_POSDEF || s == CL_OK); /* rounding may leave tiny positive pivots */
  /* recovers with good values, still one analysis */
  assert_int_equal(cl_test_assemble_elastic(m, E_MOD, NU, 1e3, A, slots), CL_OK);
  assert_int_equal(cl_cholmod_factorize(c, A), CL_OK);
  assert_int_equal(cl_cholmod_solve(c, b, x), CL_OK);
  cl_cholmod_stats st;
  cl_cholmod_get_stats(c, &st);
  assert_int_equal(st.analyses, 1);
  /* NaN values */
  A->val[9 * A->diag[2]] = NAN;
  assert_int_equal(cl_cholmod_factorize(c, A), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "NaN"));
  assert_int_equal(cl_cholmod_solve(c, b, x), CL_ERR_STATE);
  /* a matrix with another pattern */
  cl_mesh *m2 = jittered_grid(3, 3, 3);
  cl_bsr *B;
  assert_int_equal(cl_bsr_from_cells(m2->npoints, m2->cells, m2->ncells, 4, &B), CL_OK);
  assert_int_equal(cl_cholmod_factorize(c, B), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "built for"));
  /* a pattern that is not symmetric */
  const int64_t rp[3] = {0, 2, 3};
  const int32_t col[3] = {0, 1, 1};
  cl_bsr *U;
  assert_int_equal(cl_bsr_from_pattern(2, rp, col, &U), CL_OK);
  cl_cholmod *c2 = NULL;
  assert_int_equal(cl_cholmod_create(U, NULL, &c2), CL_ERR_INVALID_ARGUMENT);
  assert_null(c2);
  assert_non_null(strstr(cl_last_error(), "not symmetric"));
  assert_int_equal(cl_cholmod_create(NULL, NULL, &c2), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_cholmod_solve(c, NULL, x), CL_ERR_INVALID_ARGUMENT);
  cl_bsr_destroy(U);
  cl_bsr_destroy(B);
  cl_mesh_destroy(m2);
  cl_cholmod_destroy(c);
  free(b);
  free(x);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

/* A jittered grid's elastic system (mass coefficient 1e3) and a CHOLMOD factor of it. */
typedef struct factored {
  cl_mesh *m;
  cl_bsr *A;
  int64_t *slots;
  cl_cholmod *c;
  int64_t n3;
} factored;

static void factored_grid(factored *f, int32_t nx, int32_t ny, int32_t nz) {
  f->m = jittered_grid(nx, ny, nz);
  assert_int_equal(cl_test_elastic_system(f->m, E_MOD, NU, 1e3, &f->A, &f->slots), CL_OK);
  f->n3 = 3 * (int64_t)f->A->n;
  assert_int_equal(cl_cholmod_create(f->A, NULL, &f->c), CL_OK);
  assert_int_equal(cl_cholmod_factorize(f->c, f->A), CL_OK);
}

static void factored_free(factored *f) {
  cl_cholmod_destroy(f->c);
  free(f->slots);
  cl_bsr_destroy(f->A);
  cl_mesh_destroy(f->m);
}

/* The factor is made of P A P^T in its natural order (cl_cholmod_analyse), P the ordering CHOLMOD
 * chooses for A: the same entries of L and flops as CHOLMOD's own analysis and factorisation of A
 * give, and a non-positive pivot is reported at the dof of A where it is (the permutation undone). */
static void test_permuted_factor(void **state) {
  (void)state;
  factored f;
  factored_grid(&f, 8, 4, 4);
  const cl_bsr *A = f.A;
  const int64_t n3 = f.n3;
  cl_cholmod_stats st;
  cl_cholmod_get_stats(f.c, &st);
  /* CHOLMOD on A's pattern as it is (every entry of every stored block: the pattern alone decides the
   * ordering, L and the flops; diagonally dominant values so that it factorises) */
  cholmod_common cc;
  cholmod_l_start(&cc);
  cc.print = 0;
  cholmod_dense *D = cholmod_l_zeros((size_t)n3, (size_t)n3, CHOLMOD_REAL, &cc);
  double *d = D->x;
  for (int32_t i = 0; i < A->n; ++i)
    for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q)
      for (int r = 0; r < 3; ++r)
        for (int e = 0; e < 3; ++e)
          d[(3 * (int64_t)A->col[q] + e) * n3 + 3 * i + r] = 3 * i + r == 3 * A->col[q] + e ? 1e3 : -1e-3;
  cholmod_sparse *S = cholmod_l_dense_to_sparse(D, 1, &cc);
  cholmod_sparse *U = cholmod_l_copy(S, 1, 1, &cc); /* upper triangle, stype 1 */
  cholmod_factor *L = cholmod_l_analyze(U, &cc);
  assert_int_equal(cholmod_l_factorize(U, L, &cc), 1);
  print_message("  nnz(L) %.0f against CHOLMOD's %.0f, flops %.4g against %.4g\n", st.nnz_l, cc.lnz, st.flops, cc.fl);
  assert_true(st.nnz_l == cc.lnz);
  assert_true(st.flops == cc.fl);
  assert_int_equal(st.ordering, L->ordering);
  cholmod_l_free_factor(&L, &cc);
  cholmod_l_free_sparse(&U, &cc);
  cholmod_l_free_sparse(&S, &cc);
  cholmod_l_free_dense(&D, &cc);
  cholmod_l_finish(&cc);
  /* the three ways to apply it (CHOLMOD's solve; the own sweeps in double and single precision, which
   * apply P themselves) give the same solution */
  double *b = malloc(sizeof(double) * (size_t)n3), *x[3];
  for (int64_t i = 0; i < n3; ++i) b[i] = cos(0.21 * (double)i);
  for (int mode = 0; mode < 3; ++mode) {
    x[mode] = malloc(sizeof(double) * (size_t)n3);
    assert_int_equal(cl_cholmod_set_solve_mode(f.c, (cl_cholmod_solve_mode)mode, 1), CL_OK);
    assert_int_equal(cl_cholmod_factorize(f.c, A), CL_OK);
    assert_int_equal(cl_cholmod_solve(f.c, b, x[mode]), CL_OK);
  }
  print_message("  own sweeps against CHOLMOD's solve: double %.3g, single %.3g\n", rel_diff(n3, x[1], x[0]),
                rel_diff(n3, x[2], x[0]));
  assert_true(rel_diff(n3, x[1], x[0]) < 1e-12);
  assert_true(rel_diff(n3, x[2], x[0]) < 1e-4);
  for (int mode = 0; mode < 3; ++mode) free(x[mode]);
  free(b);
  /* a negative pivot at node 17, component 1: every column eliminated before it is untouched */
  f.A->val[9 * A->diag[17] + 4] = -1e12;
  assert_int_equal(cl_cholmod_factorize(f.c, A), CL_WARN_NOT_POSDEF);
  print_message("  %s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "= node 17, component 1)"));
  factored_free(&f);
}

/* A factor of the matrix of an earlier step preconditions PCG on the current one. */
static void test_old_factor_as_preconditioner(void **state) {
  (void)state;
  factored f;
  factored_grid(&f, 10, 5, 5);
  cl_bsr *A = f.A;
  cl_cholmod *c = f.c;
  const int64_t n3 = f.n3;
  /* the "next step": the material got 10% stiffer */
  assert_int_equal(cl_test_assemble_elastic(f.m, 1.1 * E_MOD, NU, 1e3, A, f.slots), CL_OK);
  double *b = malloc(sizeof(double) * (size_t)n3), *x = calloc((size_t)n3, sizeof(double));
  for (int64_t i = 0; i < n3; ++i) b[i] = sin(0.2 * (double)i);
  cl_cg_workspace *ws;
  assert_int_equal(cl_cg_workspace_create(A->n, &ws), CL_OK);
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.rel_tol = 1e-10;
  cl_cg_result bj, ch;
  assert_int_equal(cl_cg_solve(A, b, x, &def, ws, &bj), CL_OK);
  memset(x, 0, sizeof(double) * (size_t)n3);
  def.precond = CL_PRECOND_USER;
  def.user_fn = cl_cholmod_precond;
  def.user_ctx = c;
  assert_int_equal(cl_cg_solve(A, b, x, &def, ws, &ch), CL_OK);
  print_message("  PCG iterations to 1e-10: block-Jacobi %d, old CHOLMOD factor %d\n", bj.iterations, ch.iterations);
  assert_true(ch.iterations < 25 && ch.iterations * 5 < bj.iterations);
  cl_cg_workspace_destroy(ws);
  free(b);
  free(x);
  factored_free(&f);
}

/* With fewer threads than CHOLMOD's own OpenMP teams have (a size compiled into the library) the
 * factorisation keeps those teams in the calling thread (cholmod_solver.c, factorize_in_threads):
 * the caller's max-active-levels is back as it was afterwards, inside a parallel region as outside,
 * and the one-thread factor solves as the two-thread one does (two BLAS threads). */
static void test_one_thread_factor(void **state) {
  (void)state;
  cl_mesh *m = jittered_grid(10, 5, 5); /* supernodes of more than 64 rows: CHOLMOD's teams start */
  cl_bsr *A;
  int64_t *slots;
  assert_int_equal(cl_test_elastic_system(m, E_MOD, NU, 1e3, &A, &slots), CL_OK);
  const int64_t n3 = 3 * (int64_t)A->n;
  double *b = malloc(sizeof(double) * (size_t)n3), *x1 = malloc(sizeof(double) * (size_t)n3);
  double *x2 = malloc(sizeof(double) * (size_t)n3), *x3 = malloc(sizeof(double) * (size_t)n3);
  for (int64_t i = 0; i < n3; ++i) b[i] = sin(0.3 * (double)i) + 0.5;
  cl_cholmod *c1, *c2;
  assert_int_equal(cl_cholmod_create(A, NULL, &c1), CL_OK);
  assert_int_equal(cl_cholmod_create(A, NULL, &c2), CL_OK);
  assert_int_equal(cl_cholmod_set_solve_mode(c1, CL_CHOLMOD_SOLVE_CHOLMOD, 1), CL_OK);
  assert_int_equal(cl_cholmod_set_solve_mode(c2, CL_CHOLMOD_SOLVE_CHOLMOD, 2), CL_OK);
#ifdef _OPENMP
  const int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(3);
#endif
  assert_int_equal(cl_cholmod_factorize(c1, A), CL_OK);
#ifdef _OPENMP
  assert_int_equal(omp_get_max_active_levels(), 3);
#endif
  assert_int_equal(cl_cholmod_factorize(c2, A), CL_OK);
#ifdef _OPENMP
  assert_int_equal(omp_get_max_active_levels(), 3);
#endif
  assert_int_equal(cl_cholmod_solve(c1, b, x1), CL_OK);
  assert_int_equal(cl_cholmod_solve(c2, b, x2), CL_OK);
  const double d = rel_diff(n3, x1, x2);
  print_message("  |x_1 thread - x_2 threads| / |x| = %.3g\n", d);
  assert_true(d < 1e-12);
  int status = CL_OK;
#ifdef _OPENMP
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    status = cl_cholmod_factorize(c1, A);
  }
  assert_int_equal(omp_get_max_active_levels(), 3);
  omp_set_max_active_levels(levels);
#else
  status = cl_cholmod_factorize(c1, A);
#endif
  assert_int_equal(status, CL_OK);
  assert_int_equal(cl_cholmod_solve(c1, b, x3), CL_OK);
  assert_memory_equal(x3, x1, sizeof(double) * (size_t)n3);
  cl_cholmod_destroy(c1);
  cl_cholmod_destroy(c2);
  free(b);
  free(x1);
  free(x2);
  free(x3);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_agrees_with_pcg_grid),
      cmocka_unit_test(test_agrees_with_pcg_tetgen),
      cmocka_unit_test(test_refactor_without_analysis),
      cmocka_unit_test(test_not_posdef_and_errors),
      cmocka_unit_test(test_old_factor_as_preconditioner),
      cmocka_unit_test(test_one_thread_factor),
      cmocka_unit_test(test_permuted_factor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
