/* CG / PCG on SPD elasticity systems assembled from tet meshes (a jittered structured grid, and a
 * TetGen mesh of a box when the TetGen bridge works): every preconditioner converges to the true
 * solution, block-Jacobi needs fewer iterations than none, a warm start with the solution needs 0
 * iterations, constrained dofs keep their values exactly and projected CG matches the
 * Dirichlet-modified system, the cap gives CL_WARN_NOT_CONVERGED, an indefinite matrix and NaN give
 * CL_ERR_NUMERICAL with a clear message, a user preconditioner hook works. Smoothers: Jacobi and
 * Gauss-Seidel reduce the residual of a Poisson system, Gauss-Seidel more per sweep. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/error.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "linalg/bsr.h"
#include "linalg/cg.h"
#include "linalg/smoothers.h"
#include "linalg/vec.h"
#include "support/elastic_assembly.h"

#define E_MOD 1e5
#define NU 0.3

typedef struct sys {
  cl_mesh *mesh;
  cl_bsr *A;
  int64_t *slots;
  int64_t n3;
  double *b, *x, *xref;
  cl_cg_workspace *ws;
} sys;

static cl_mesh *jittered_grid(int32_t nx, int32_t ny, int32_t nz) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1.0, 0.6, 0.8};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(nx, ny, nz, lo, hi, &m), CL_OK);
  assert_int_equal(cl_test_jitter_interior(m, 0.2 * 0.6 / ny, 11), CL_OK);
  return m;
}

/* A = K + c M on mesh m, b a smooth load plus noise. */
static void sys_init(sys *s, cl_mesh *m, double mass_coeff) {
  memset(s, 0, sizeof *s);
  s->mesh = m;
  assert_int_equal(cl_test_elastic_system(m, E_MOD, NU, mass_coeff, &s->A, &s->slots), CL_OK);
  s->n3 = 3 * (int64_t)m->npoints;
  s->b = malloc(sizeof(double) * (size_t)s->n3);
  s->x = calloc((size_t)s->n3, sizeof(double));
  s->xref = calloc((size_t)s->n3, sizeof(double));
  uint64_t seed = 5;
  for (int64_t i = 0; i < s->n3; ++i) s->b[i] = sin(0.1 * (double)i) + 0.2 * cl_test_rand01(&seed);
  assert_int_equal(cl_cg_workspace_create(m->npoints, &s->ws), CL_OK);
}

static void sys_free(sys *s) {
  cl_cg_workspace_destroy(s->ws);
  free(s->b);
  free(s->x);
  free(s->xref);
  free(s->slots);
  cl_bsr_destroy(s->A);
  cl_mesh_destroy(s->mesh);
}

/* ||b - A x|| / ||b|| over free dofs, computed from scratch */
static double true_rel_residual(const cl_bsr *A, const double *b, const double *x, const uint8_t *fixed,
                                const double *ref_b) {
  int64_t n3 = 3 * (int64_t)A->n;
  double *r = malloc(sizeof(double) * (size_t)n3);
  double rr = cl_bsr_residual(A, b, x, fixed, r);
  double bb = cl_vec_norm(n3, ref_b ? ref_b : b);
  free(r);
  return sqrt(rr) / bb;
}

static double rel_diff(int64_t n, const double *a, const double *b) {
  double d = 0, s = 0;
  for (int64_t i = 0; i < n; ++i) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    s += b[i] * b[i];
  }
  return sqrt(d / s);
}

static int32_t solve_with(sys *s, cl_precond pc, double tol, cl_status expect) {
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.precond = pc;
  def.rel_tol = tol;
  def.max_iter = 5000;
  cl_cg_result res;
  memset(s->x, 0, sizeof(double) * (size_t)s->n3);
  assert_int_equal(cl_cg_solve(s->A, s->b, s->x, &def, s->ws, &res), expect);
  assert_true(res.rel_residual <= tol);
  return res.iterations;
}

/* ---- convergence and preconditioners -------------------------------------------------------- */

static void check_all_preconditioners(sys *s, const char *what) {
  /* reference solution: a very tight solve */
  int32_t it_ref = solve_with(s, CL_PRECOND_BLOCK_JACOBI, 1e-13, CL_OK);
  memcpy(s->xref, s->x, sizeof(double) * (size_t)s->n3);
  const double tr = true_rel_residual(s->A, s->b, s->xref, NULL, NULL);
  /* the recursively updated residual drifts from the true one by ~ eps * cond over hundreds of
   * iterations, so the true residual of a 1e-13 solve is only ~1e-11 .. 1e-10 */
  if (!(tr < 1e-9)) print_message("  true relative residual of the reference %.3g\n", tr);
  assert_true(tr < 1e-9);
  int32_t it[3];
  for (int pc = 0; pc < 3; ++pc) {
    it[pc] = solve_with(s, (cl_precond)pc, 1e-10, CL_OK);
    assert_true(it[pc] > 0);
    assert_true(true_rel_residual(s->A, s->b, s->x, NULL, NULL) < 1e-8);
    assert_true(rel_diff(s->n3, s->x, s->xref) < 1e-7);
  }
  print_message("  %s: %d dofs, iterations to 1e-10: none %d, jacobi %d, block-jacobi %d (1e-13: %d)\n", what,
                (int)s->n3, it[0], it[1], it[2], it_ref);
  assert_true(it[CL_PRECOND_BLOCK_JACOBI] < it[CL_PRECOND_NONE]);
  assert_true(it[CL_PRECOND_JACOBI] <= it[CL_PRECOND_NONE]);
}

static void test_preconditioners_grid(void **state) {
  (void)state;
  sys s;
  /* K + c M with c = E / h^2-ish: the system of an implicit step; and with small c (stiffer) */
  sys_init(&s, jittered_grid(7, 5, 6), 1e3);
  check_all_preconditioners(&s, "jittered grid, K + 1e3 M");
  assert_int_equal(cl_test_assemble_elastic(s.mesh, E_MOD, NU, 30.0, s.A, s.slots), CL_OK);
  check_all_preconditioners(&s, "jittered grid, K + 30 M");
  sys_free(&s);
}

static void test_preconditioners_tetgen(void **state) {
  (void)state;
  cl_mesh *m = cl_test_tetgen_box(1.0 / 3000.0); /* TetGen is part of every build: no skip */
  assert_non_null(m);
  assert_true(m->kind == CL_MESH_TETS && m->ncells > 1000);
  sys s;
  sys_init(&s, m, 1e3);
  check_all_preconditioners(&s, "TetGen box");
  sys_free(&s);
}

static void test_warm_start(void **state) {
  (void)state;
  sys s;
  sys_init(&s, jittered_grid(5, 4, 4), 1e2);
  solve_with(&s, CL_PRECOND_BLOCK_JACOBI, 1e-13, CL_OK);
  memcpy(s.xref, s.x, sizeof(double) * (size_t)s.n3);
  for (int pc = 0; pc < 3; ++pc) {
    cl_cg_def def;
    cl_cg_def_default(&def);
    def.precond = (cl_precond)pc;
    cl_cg_result res;
    memcpy(s.x, s.xref, sizeof(double) * (size_t)s.n3);
    assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &res), CL_OK);
    assert_int_equal(res.iterations, 0);
    assert_memory_equal(s.x, s.xref, sizeof(double) * (size_t)s.n3);
  }
  /* a nearby start needs fewer iterations than a cold one */
  cl_cg_def def;
  cl_cg_def_default(&def);
  cl_cg_result warm, cold;
  for (int64_t i = 0; i < s.n3; ++i) s.x[i] = s.xref[i] * 1.001;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &warm), CL_OK);
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &cold), CL_OK);
  assert_true(warm.iterations < cold.iterations);
  /* a zero right-hand side: x = 0 whatever the start */
  memset(s.b, 0, sizeof(double) * (size_t)s.n3);
  memcpy(s.x, s.xref, sizeof(double) * (size_t)s.n3);
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &warm), CL_OK);
  assert_int_equal(warm.iterations, 0);
  for (int64_t i = 0; i < s.n3; ++i) assert_true(s.x[i] == 0.0);
  sys_free(&s);
}

/* ---- constraints ----------------------------------------------------------------------------- */

static void test_projected_cg(void **state) {
  (void)state;
  sys s;
  sys_init(&s, jittered_grid(8, 4, 4), 0.0); /* pure stiffness: singular until constrained */
  const int64_t n3 = s.n3;
  uint8_t *fixed = calloc((size_t)n3, 1);
  double *xd = calloc((size_t)n3, sizeof(double));
  /* clamp x = 0 (all components), pull x = 1 by 1 cm in x, pin some single components inside */
  for (int32_t i = 0; i < s.mesh->npoints; ++i) {
    const double *p = s.mesh->x + 3 * i;
    if (p[0] == 0.0)
      for (int k = 0; k < 3; ++k) fixed[3 * i + k] = 1;
    if (p[0] == 1.0) {
      fixed[3 * i] = 1;
      xd[3 * i] = 0.01;
    }
    if (i % 37 == 5) {
      fixed[3 * i + 2] = 1;
      xd[3 * i + 2] = -0.002;
    }
  }
  for (int64_t i = 0; i < n3; ++i) s.b[i] *= 0.1;
  uint64_t seed = 9;
  for (int pc = 0; pc < 3; ++pc) {
    for (int64_t i = 0; i < n3; ++i) s.x[i] = fixed[i] ? xd[i] : 1e-3 * cl_test_rand01(&seed);
    cl_cg_def def;
    cl_cg_def_default(&def);
    def.precond = (cl_precond)pc;
    def.rel_tol = 1e-11;
    def.max_iter = 5000;
    def.fixed = fixed;
    cl_cg_result res;
    assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &res), CL_OK);
    for (int64_t i = 0; i < n3; ++i)
      if (fixed[i]) assert_true(s.x[i] == xd[i]); /* exactly untouched */
    assert_true(res.ref_norm > cl_vec_norm(n3, s.b)); /* the pull dominates the load */
    if (pc == 0) memcpy(s.xref, s.x, sizeof(double) * (size_t)n3);
    else assert_true(rel_diff(n3, s.x, s.xref) < 1e-8);
  }
  /* the same answer from the Dirichlet-modified matrix and plain CG without a mask */
  cl_bsr *B;
  assert_int_equal(cl_bsr_copy(s.A, &B), CL_OK);
  double *b2 = malloc(sizeof(double) * (size_t)n3);
  memcpy(b2, s.b, sizeof(double) * (size_t)n3);
  assert_int_equal(cl_bsr_apply_dirichlet(B, fixed, xd, b2), CL_OK);
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.rel_tol = 1e-11;
  def.max_iter = 5000;
  memset(s.x, 0, sizeof(double) * (size_t)n3);
  assert_int_equal(cl_cg_solve(B, b2, s.x, &def, s.ws, NULL), CL_OK);
  assert_true(rel_diff(n3, s.x, s.xref) < 1e-8);
  /* and it really is equilibrium: free residual of the original system */
  double *r = malloc(sizeof(double) * (size_t)n3);
  double rr = cl_bsr_residual(s.A, s.b, s.xref, fixed, r);
  double kx = 0;
  cl_bsr_spmv(s.A, s.xref, r);
  kx = cl_vec_norm(n3, r);
  assert_true(sqrt(rr) < 1e-9 * kx);
  free(r);
  free(b2);
  cl_bsr_destroy(B);
  free(fixed);
  free(xd);
  sys_free(&s);
}

/* ---- failures -------------------------------------------------------------------------------- */

static void test_not_converged(void **state) {
  (void)state;
  sys s;
  sys_init(&s, jittered_grid(4, 4, 4), 1.0);
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.max_iter = 3;
  cl_cg_result res;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &res), CL_WARN_NOT_CONVERGED);
  assert_int_equal(res.iterations, 3);
  assert_true(res.rel_residual > def.rel_tol && res.rel_residual < 1.0);
  assert_non_null(strstr(cl_last_error(), "iteration cap 3"));
  assert_true(cl_vec_all_finite(s.n3, s.x));
  def.max_iter = 0;
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &res), CL_WARN_NOT_CONVERGED);
  assert_int_equal(res.iterations, 0);
  sys_free(&s);
}

static void test_indefinite_and_nan(void **state) {
  (void)state;
  sys s;
  /* K - c M with a large c: indefinite (negative diagonal even) */
  sys_init(&s, jittered_grid(4, 3, 3), -1e7);
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.precond = CL_PRECOND_NONE;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "not positive definite"));
  def.precond = CL_PRECOND_JACOBI;
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "not positive definite"));
  def.precond = CL_PRECOND_BLOCK_JACOBI;
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "not positive definite"));
  /* NaN in b, in x, in A */
  assert_int_equal(cl_test_assemble_elastic(s.mesh, E_MOD, NU, 1.0, s.A, s.slots), CL_OK);
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  s.b[4] = NAN;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "right-hand side"));
  s.b[4] = 1.0;
  s.x[2] = INFINITY;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "initial guess"));
  s.x[2] = 0.0;
  s.A->val[9 * 5 + 1] = NAN; /* an off-diagonal entry: shows up in the iteration */
  def.precond = CL_PRECOND_NONE;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_NUMERICAL);
  sys_free(&s);
}

static void test_bad_arguments(void **state) {
  (void)state;
  sys s;
  sys_init(&s, jittered_grid(2, 2, 2), 1.0);
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.rel_tol = 0.0;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "rel_tol"));
  def.rel_tol = NAN;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_INVALID_ARGUMENT);
  cl_cg_def_default(&def);
  def.max_iter = -1;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "max_iter"));
  cl_cg_def_default(&def);
  def.precond = (cl_precond)9;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_INVALID_ARGUMENT);
  def.precond = CL_PRECOND_USER;
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, NULL), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "user_fn"));
  cl_cg_def_default(&def);
  cl_cg_workspace *small;
  assert_int_equal(cl_cg_workspace_create(3, &small), CL_OK);
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, small, NULL), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "workspace"));
  cl_cg_workspace_destroy(small);
  assert_int_equal(cl_cg_solve(NULL, s.b, s.x, &def, s.ws, NULL), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_cg_workspace_create(-1, &small), CL_ERR_INVALID_ARGUMENT);
  sys_free(&s);
}

/* ---- user preconditioner hook ---------------------------------------------------------------- */

typedef struct bj_ctx {
  const double *dinv;
  int32_t n;
  int calls;
  int fail_at;
} bj_ctx;

static cl_status user_block_jacobi(void *ctx, const double *r, double *z) {
  bj_ctx *c = ctx;
  if (++c->calls == c->fail_at) return cl_fail(CL_ERR_EXTERNAL, "test preconditioner failed on purpose");
  for (int32_t i = 0; i < c->n; ++i)
    for (int a = 0; a < 3; ++a) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += c->dinv[9 * i + 3 * a + k] * r[3 * i + k];
      z[3 * i + a] = s;
    }
  return CL_OK;
}

static void test_user_preconditioner(void **state) {
  (void)state;
  sys s;
  sys_init(&s, jittered_grid(5, 4, 4), 10.0);
  int32_t it_builtin = solve_with(&s, CL_PRECOND_BLOCK_JACOBI, 1e-9, CL_OK);
  double *dinv = malloc(sizeof(double) * 9 * (size_t)s.A->n);
  assert_int_equal(cl_bsr_diag_inverse(s.A, NULL, dinv), CL_OK);
  bj_ctx ctx = {dinv, s.A->n, 0, -1};
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.precond = CL_PRECOND_USER;
  def.user_fn = user_block_jacobi;
  def.user_ctx = &ctx;
  def.rel_tol = 1e-9;
  cl_cg_result res;
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &res), CL_OK);
  /* same preconditioner; rounding differs (sums grouped differently), so counts may differ slightly
   * over a few hundred iterations */
  print_message("  user block-Jacobi %d iterations, built-in %d\n", res.iterations, it_builtin);
  assert_true(abs(res.iterations - it_builtin) <= 2 + it_builtin / 20);
  assert_true(ctx.calls >= res.iterations);
  ctx.calls = 0;
  ctx.fail_at = 3;
  memset(s.x, 0, sizeof(double) * (size_t)s.n3);
  assert_int_equal(cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &res), CL_ERR_EXTERNAL);
  assert_non_null(strstr(cl_last_error(), "failed on purpose"));
  free(dinv);
  sys_free(&s);
}

/* ---- determinism ---------------------------------------------------------------------------- */

/* Bitwise the same iterates with 1 and 2 threads, on a system large enough for every parallel path. */
static int skipped; /* a test could not run in this build: main exits 77 (ctest SKIP_RETURN_CODE) */

static void test_deterministic_threads(void **state) {
  (void)state;
#ifdef _OPENMP
  sys s;
  sys_init(&s, jittered_grid(22, 22, 22), 1e5);
  assert_true(s.n3 > CL_VEC_PAR_MIN);
  const int saved = omp_get_max_threads();
  double *x1 = malloc(sizeof(double) * (size_t)s.n3);
  uint8_t *fixed = calloc((size_t)s.n3, 1);
  for (int64_t i = 0; i < s.n3; i += 17) fixed[i] = 1;
  for (int pc = 0; pc < 3; ++pc) {
    cl_cg_def def;
    cl_cg_def_default(&def);
    def.precond = (cl_precond)pc;
    def.max_iter = 10;
    def.fixed = pc == 1 ? fixed : NULL;
    cl_cg_result r1, r2;
    omp_set_num_threads(1);
    memset(s.x, 0, sizeof(double) * (size_t)s.n3);
    cl_status st1 = cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &r1);
    memcpy(x1, s.x, sizeof(double) * (size_t)s.n3);
    omp_set_num_threads(2);
    memset(s.x, 0, sizeof(double) * (size_t)s.n3);
    cl_status st2 = cl_cg_solve(s.A, s.b, s.x, &def, s.ws, &r2);
    assert_int_equal(st1, st2);
    assert_int_equal(r1.iterations, r2.iterations);
    assert_true(r1.rel_residual == r2.rel_residual);
    assert_memory_equal(x1, s.x, sizeof(double) * (size_t)s.n3);
  }
  omp_set_num_threads(saved);
  free(fixed);
  free(x1);
  sys_free(&s);
#else
  skipped = 1; /* one thread only in a build without OpenMP */
  skip();
#endif
}

/* ---- smoothers ------------------------------------------------------------------------------- */

static void test_smoothers(void **state) {
  (void)state;
  cl_mesh *m = jittered_grid(8, 8, 8);
  cl_bsr *A;
  int64_t *slots;
  assert_int_equal(cl_test_elastic_system(m, E_MOD, NU, 0.0, &A, &slots), CL_OK);
  assert_int_equal(cl_test_assemble_laplace(m, A, slots), CL_OK);
  const int64_t n3 = 3 * (int64_t)A->n;
  /* Dirichlet boundary: every node on the box surface is fixed at its value */
  cl_mesh_info info;
  assert_int_equal(cl_mesh_get_info(m, &info), CL_OK);
  uint8_t *fixed = calloc((size_t)n3, 1);
  for (int32_t i = 0; i < m->npoints; ++i)
    for (int k = 0; k < 3; ++k)
      if (m->x[3 * i + k] == info.lo[k] || m->x[3 * i + k] == info.hi[k])
        for (int c = 0; c < 3; ++c) fixed[3 * i + c] = 1;
  double *dinv = malloc(sizeof(double) * 9 * (size_t)A->n);
  assert_int_equal(cl_bsr_diag_inverse(A, fixed, dinv), CL_OK);
  double *b = calloc((size_t)n3, sizeof(double)), *x0 = malloc(sizeof(double) * (size_t)n3);
  double *xj = malloc(sizeof(double) * (size_t)n3), *xg = malloc(sizeof(double) * (size_t)n3);
  double *xs = malloc(sizeof(double) * (size_t)n3), *xb = malloc(sizeof(double) * (size_t)n3);
  double *work = malloc(sizeof(double) * (size_t)n3), *r = malloc(sizeof(double) * (size_t)n3);
  uint64_t seed = 77;
  for (int64_t i = 0; i < n3; ++i) x0[i] = cl_test_rand01(&seed) - 0.5; /* rough error, all frequencies */
  memcpy(xj, x0, sizeof(double) * (size_t)n3);
  memcpy(xg, x0, sizeof(double) * (size_t)n3);
  memcpy(xs, x0, sizeof(double) * (size_t)n3);
  memcpy(xb, x0, sizeof(double) * (size_t)n3);
  const double r0 = sqrt(cl_bsr_residual(A, b, x0, fixed, r));
  {
    /* the forward sweep that also gives the residual of the x it starts from: the same sweep to the
     * bit, the residual to rounding (a right-hand side that is not zero, the mask) */
    double *bb = malloc(sizeof(double) * (size_t)n3), *delta = malloc(sizeof(double) * (size_t)n3);
    for (int64_t i = 0; i < n3; ++i) bb[i] = cl_test_rand01(&seed) - 0.5;
    memcpy(xg, x0, sizeof(double) * (size_t)n3);
    memcpy(xs, x0, sizeof(double) * (size_t)n3);
    cl_smooth_gauss_seidel(A, dinv, fixed, CL_SWEEP_FORWARD, 1, bb, xg);
    const double rr = cl_smooth_gauss_seidel_residual(A, dinv, fixed, bb, xs, delta);
    const double want = sqrt(cl_bsr_residual(A, bb, x0, fixed, r));
    print_message("  sweep with residual: %.17g against a residual pass's %.17g\n", sqrt(rr), want);
    assert_memory_equal(xs, xg, sizeof(double) * (size_t)n3);
    assert_true(fabs(sqrt(rr) - want) <= 1e-13 * want);
    memcpy(xg, x0, sizeof(double) * (size_t)n3);
    memcpy(xs, x0, sizeof(double) * (size_t)n3);
    free(bb);
    free(delta);
  }
  double prev_j = r0, prev_g = r0;
  for (int sweep = 1; sweep <= 6; ++sweep) {
    cl_smooth_jacobi(A, dinv, fixed, 2.0 / 3.0, 1, b, xj, work);
    cl_smooth_gauss_seidel(A, dinv, fixed, CL_SWEEP_FORWARD, 1, b, xg);
    double rj = sqrt(cl_bsr_residual(A, b, xj, fixed, r));
    double rg = sqrt(cl_bsr_residual(A, b, xg, fixed, r));
    assert_true(rj < prev_j && rg < prev_g); /* each sweep reduces the residual */
    assert_true(rg < rj);                    /* Gauss-Seidel beats weighted Jacobi per sweep */
    prev_j = rj;
    prev_g = rg;
  }
  print_message("  smoothers: residual after 6 sweeps / initial: jacobi(2/3) %.3g, gauss-seidel %.3g\n",
                prev_j / r0, prev_g / r0);
  assert_true(prev_g < 0.2 * r0); /* smoothing: the rough residual drops fast */
  cl_smooth_gauss_seidel(A, dinv, fixed, CL_SWEEP_SYMMETRIC, 3, b, xs);
  cl_smooth_gauss_seidel(A, dinv, fixed, CL_SWEEP_BACKWARD, 6, b, xb);
  double rs = sqrt(cl_bsr_residual(A, b, xs, fixed, r)), rb = sqrt(cl_bsr_residual(A, b, xb, fixed, r));
  assert_true(rs < 0.2 * r0 && rb < 0.2 * r0);
  /* fixed dofs untouched by every smoother */
  for (int64_t i = 0; i < n3; ++i)
    if (fixed[i]) assert_true(xj[i] == x0[i] && xg[i] == x0[i] && xs[i] == x0[i] && xb[i] == x0[i]);
  /* Gauss-Seidel on the unconstrained SPD elasticity system converges to the CG solution */
  assert_int_equal(cl_test_assemble_elastic(m, E_MOD, NU, 1e7, A, slots), CL_OK);
  assert_int_equal(cl_bsr_diag_inverse(A, NULL, dinv), CL_OK);
  for (int64_t i = 0; i < n3; ++i) b[i] = cos(0.05 * (double)i);
  memset(xg, 0, sizeof(double) * (size_t)n3);
  cl_smooth_gauss_seidel(A, dinv, NULL, CL_SWEEP_SYMMETRIC, 400, b, xg);
  cl_cg_workspace *ws;
  assert_int_equal(cl_cg_workspace_create(A->n, &ws), CL_OK);
  cl_cg_def def;
  cl_cg_def_default(&def);
  def.rel_tol = 1e-12;
  memset(xj, 0, sizeof(double) * (size_t)n3);
  assert_int_equal(cl_cg_solve(A, b, xj, &def, ws, NULL), CL_OK);
  print_message("  symmetric Gauss-Seidel x400 vs CG: relative difference %.3g\n", rel_diff(n3, xg, xj));
  assert_true(rel_diff(n3, xg, xj) < 1e-6);
  cl_cg_workspace_destroy(ws);
  free(work);
  free(r);
  free(xb);
  free(xs);
  free(xg);
  free(xj);
  free(x0);
  free(b);
  free(dinv);
  free(fixed);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_preconditioners_grid),
      cmocka_unit_test(test_preconditioners_tetgen),
      cmocka_unit_test(test_warm_start),
      cmocka_unit_test(test_projected_cg),
      cmocka_unit_test(test_not_converged),
      cmocka_unit_test(test_indefinite_and_nan),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_user_preconditioner),
      cmocka_unit_test(test_deterministic_threads),
      cmocka_unit_test(test_smoothers),
  };
  const int failed = cmocka_run_group_tests(tests, NULL, NULL);
  return failed ? failed : skipped ? 77 : 0;
}
