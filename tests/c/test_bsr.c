/* BSR 3x3 matrices and the structured tet grid: the pattern holds exactly the node pairs that share
 * a tet (plus diagonals), cell slots point at the right blocks, assembly by scatter matches a dense
 * assembly, SpMV/axpby/residual match dense products, Dirichlet rows keep symmetry and move known
 * values to the right-hand side, diagonal inverses invert, cell colouring separates cells sharing
 * a node, tet_grid is conforming and positively oriented, and bad input gets clear errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "linalg/bsr.h"
#include "support/elastic_assembly.h"

static cl_mesh *grid(int32_t nx, int32_t ny, int32_t nz) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1.0, 0.8, 1.2};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(nx, ny, nz, lo, hi, &m), CL_OK);
  return m;
}

/* ---- tet grid ------------------------------------------------------------------------------ */

static int cmp_face(const void *a, const void *b) {
  const int32_t *x = a, *y = b;
  for (int k = 0; k < 3; ++k)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

static void test_tet_grid(void **state) {
  (void)state;
  const int32_t nx = 3, ny = 2, nz = 4;
  cl_mesh *m = grid(nx, ny, nz);
  assert_int_equal(m->npoints, (nx + 1) * (ny + 1) * (nz + 1));
  assert_int_equal(m->ncells, 6 * nx * ny * nz);
  cl_mesh_info info;
  assert_int_equal(cl_mesh_get_info(m, &info), CL_OK);
  /* every tet positive (validated) and the volumes add up to the box */
  assert_true(fabs(info.measure - 1.0 * 0.8 * 1.2) < 1e-12);
  assert_true(info.hi[0] == 1.0 && info.hi[1] == 0.8 && info.hi[2] == 1.2 && info.lo[0] == 0.0);
  /* conforming: each triangular face is used by at most two tets, and exactly the box surface
   * (2 triangles per cell face) is used once */
  int32_t nf = 4 * m->ncells;
  int32_t *faces = malloc(sizeof(int32_t) * 3 * (size_t)nf);
  assert_non_null(faces);
  static const int fv[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  for (int32_t t = 0; t < m->ncells; ++t)
    for (int f = 0; f < 4; ++f) {
      int32_t *o = faces + 3 * (4 * t + f);
      for (int k = 0; k < 3; ++k) o[k] = m->cells[4 * t + fv[f][k]];
      for (int a = 0; a < 3; ++a) /* sort the three indices */
        for (int b = a + 1; b < 3; ++b)
          if (o[b] < o[a]) {
            int32_t tmp = o[a];
            o[a] = o[b];
            o[b] = tmp;
          }
    }
  qsort(faces, (size_t)nf, 3 * sizeof(int32_t), cmp_face);
  int32_t once = 0;
  for (int32_t i = 0; i < nf;) {
    int32_t j = i + 1;
    while (j < nf && cmp_face(faces + 3 * i, faces + 3 * j) == 0) ++j;
    assert_true(j - i <= 2);
    if (j - i == 1) ++once;
    i = j;
  }
  assert_int_equal(once, 4 * (nx * ny + ny * nz + nz * nx));
  free(faces);
  cl_mesh_destroy(m);
}

static void test_tet_grid_bad_input(void **state) {
  (void)state;
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, flat[3] = {1, 0, 1};
  const double nanv[3] = {0, NAN, 0};
  cl_mesh *m = (cl_mesh *)1;
  assert_int_equal(cl_tet_grid(0, 1, 1, lo, hi, &m), CL_ERR_INVALID_ARGUMENT);
  assert_null(m);
  assert_non_null(strstr(cl_last_error(), "must be >= 1"));
  assert_int_equal(cl_tet_grid(1, 1, 1, lo, flat, &m), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "axis 1"));
  assert_int_equal(cl_tet_grid(1, 1, 1, nanv, hi, &m), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_tet_grid(2000, 2000, 2000, lo, hi, &m), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "too many"));
  assert_int_equal(cl_tet_grid(1, 1, 1, NULL, hi, &m), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_tet_grid(1, 1, 1, lo, hi, NULL), CL_ERR_INVALID_ARGUMENT);
}

/* ---- pattern ------------------------------------------------------------------------------- */

static void test_pattern_exact(void **state) {
  (void)state;
  cl_mesh *m = grid(3, 3, 2);
  cl_bsr *A = NULL;
  assert_int_equal(cl_bsr_from_cells(m->npoints, m->cells, m->ncells, 4, &A), CL_OK);
  const int32_t n = m->npoints;
  /* dense adjacency from the tets: the reference pattern */
  uint8_t *adj = calloc((size_t)n * (size_t)n, 1);
  assert_non_null(adj);
  for (int32_t i = 0; i < n; ++i) adj[(size_t)i * n + i] = 1;
  for (int32_t t = 0; t < m->ncells; ++t)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) adj[(size_t)m->cells[4 * t + a] * n + m->cells[4 * t + b]] = 1;
  int64_t expected = 0;
  for (size_t k = 0; k < (size_t)n * n; ++k) expected += adj[k];
  assert_int_equal(A->n, n);
  assert_int_equal(A->nnzb, expected); /* nothing else */
  for (int32_t i = 0; i < n; ++i) {
    assert_true(A->row_ptr[i + 1] > A->row_ptr[i]);
    for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s) {
      assert_true(adj[(size_t)i * n + A->col[s]]); /* every stored block is a tet pair */
      if (s > A->row_ptr[i]) assert_true(A->col[s] > A->col[s - 1]); /* sorted, no repeats */
    }
    assert_true(A->diag[i] >= 0 && A->col[A->diag[i]] == i);
  }
  for (int64_t k = 0; k < 9 * A->nnzb; ++k) assert_true(A->val[k] == 0.0);
  /* every pair is found */
  for (int32_t i = 0; i < n; ++i)
    for (int32_t j = 0; j < n; ++j) assert_int_equal(cl_bsr_find(A, i, j) >= 0, adj[(size_t)i * n + j]);
  /* slots: block (cells[a], cells[b]) */
  int64_t *slots = malloc(sizeof(int64_t) * 16 * (size_t)m->ncells);
  assert_non_null(slots);
  assert_int_equal(cl_bsr_cell_slots(A, m->cells, m->ncells, 4, slots), CL_OK);
  for (int32_t t = 0; t < m->ncells; ++t)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        int64_t s = slots[16 * t + 4 * a + b];
        int32_t i = m->cells[4 * t + a];
        assert_true(s >= A->row_ptr[i] && s < A->row_ptr[i + 1]);
        assert_int_equal(A->col[s], m->cells[4 * t + b]);
      }
  /* copy is deep */
  cl_bsr *B = NULL;
  A->val[0] = 5.0;
  assert_int_equal(cl_bsr_copy(A, &B), CL_OK);
  assert_int_equal(B->nnzb, A->nnzb);
  assert_true(B->val[0] == 5.0 && B->val != A->val);
  assert_true(cl_bsr_bytes(A) > 76 * A->nnzb);
  cl_bsr_destroy(B);
  free(slots);
  free(adj);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

static void test_pattern_isolated_node_and_from_pattern(void **state) {
  (void)state;
  /* node 4 is in no cell: it still gets a diagonal block */
  const int32_t cells[4] = {0, 1, 2, 3};
  cl_bsr *A = NULL;
  assert_int_equal(cl_bsr_from_cells(5, cells, 1, 4, &A), CL_OK);
  assert_int_equal(A->nnzb, 17);
  assert_int_equal(A->row_ptr[5] - A->row_ptr[4], 1);
  assert_int_equal(A->col[A->diag[4]], 4);
  cl_bsr_destroy(A);
  /* explicit pattern: unsorted, repeated, no diagonal -> sorted, unique, with diagonal */
  const int64_t rp[4] = {0, 3, 3, 4};
  const int32_t col[4] = {2, 1, 2, 0};
  assert_int_equal(cl_bsr_from_pattern(3, rp, col, &A), CL_OK);
  assert_int_equal(A->nnzb, 3 + 1 + 2);
  assert_int_equal(A->col[0], 0);
  assert_int_equal(A->col[1], 1);
  assert_int_equal(A->col[2], 2);
  assert_int_equal(A->diag[1], 3);
  assert_int_equal(A->col[4], 0);
  assert_int_equal(A->col[5], 2);
  cl_bsr_destroy(A);
}

static void test_pattern_bad_input(void **state) {
  (void)state;
  const int32_t bad[4] = {0, 1, 2, 7};
  cl_bsr *A = (cl_bsr *)1;
  assert_int_equal(cl_bsr_from_cells(5, bad, 1, 4, &A), CL_ERR_INVALID_ARGUMENT);
  assert_null(A);
  assert_non_null(strstr(cl_last_error(), "node 7"));
  assert_int_equal(cl_bsr_from_cells(5, bad, 1, 0, &A), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_bsr_from_cells(-1, bad, 1, 4, &A), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_bsr_from_cells(5, NULL, 1, 4, &A), CL_ERR_INVALID_ARGUMENT);
  const int32_t good[4] = {0, 1, 2, 3}, other[4] = {0, 1, 2, 4};
  assert_int_equal(cl_bsr_from_cells(5, good, 1, 4, &A), CL_OK);
  int64_t slots[16];
  assert_int_equal(cl_bsr_cell_slots(A, other, 1, 4, slots), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "not in the matrix pattern"));
  const int64_t rp[2] = {0, 1};
  const int32_t col[1] = {3};
  cl_bsr *B = NULL;
  assert_int_equal(cl_bsr_from_pattern(1, rp, col, &B), CL_ERR_INVALID_ARGUMENT);
  cl_bsr_destroy(A);
}

/* ---- assembly and products ----------------------------------------------------------------- */

static void test_assembly_matches_dense(void **state) {
  (void)state;
  cl_mesh *m = grid(2, 2, 2);
  assert_int_equal(cl_test_jitter_interior(m, 0.1 * 0.4, 7), CL_OK);
  cl_bsr *A;
  int64_t *slots;
  assert_int_equal(cl_test_elastic_system(m, 1e5, 0.3, 10.0, &A, &slots), CL_OK);
  const int64_t n = 3 * (int64_t)m->npoints;
  double *D = calloc((size_t)(n * n), sizeof *D);
  assert_non_null(D);
  double Ke[144], x[12];
  for (int32_t t = 0; t < m->ncells; ++t) {
    const int32_t *v = m->cells + 4 * t;
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) x[3 * a + k] = m->x[3 * v[a] + k];
    double vol = cl_test_tet_stiffness(x, 1e5, 0.3, Ke);
    assert_true(vol > 0);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            D[(3 * v[a] + i) * n + 3 * v[b] + j] += Ke[(3 * a + i) * 12 + 3 * b + j] + (a == b && i == j ? 10.0 * vol / 4 : 0);
  }
  double *S = cl_test_bsr_to_dense(A);
  assert_non_null(S);
  double err = 0, scale = 0;
  for (int64_t k = 0; k < n * n; ++k) {
    err = fmax(err, fabs(S[k] - D[k]));
    scale = fmax(scale, fabs(D[k]));
  }
  assert_true(err <= 1e-12 * scale);
  /* the stiffness part annihilates rigid translations: (K + cM) t = c M t */
  double *t = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) t[i] = (i % 3 == 1) ? 1.0 : 0.0;
  cl_bsr_spmv(A, t, y);
  double mass = 0;
  for (int64_t i = 1; i < n; i += 3) mass += y[i];
  assert_true(fabs(mass - 10.0 * 1.0 * 0.8 * 1.2) < 1e-9);
  free(t);
  free(y);
  free(S);
  free(D);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

static void test_spmv_matches_dense(void **state) {
  (void)state;
  cl_mesh *m = grid(3, 2, 2);
  cl_bsr *A;
  assert_int_equal(cl_bsr_from_cells(m->npoints, m->cells, m->ncells, 4, &A), CL_OK);
  uint64_t seed = 42;
  for (int64_t k = 0; k < 9 * A->nnzb; ++k) A->val[k] = 2.0 * cl_test_rand01(&seed) - 1.0; /* not symmetric */
  const int64_t n = 3 * (int64_t)A->n;
  double *D = cl_test_bsr_to_dense(A);
  double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
  double *ref = malloc(sizeof(double) * (size_t)n), *b = malloc(sizeof(double) * (size_t)n);
  double *r = malloc(sizeof(double) * (size_t)n);
  uint8_t *fixed = calloc((size_t)n, 1);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = cl_test_rand01(&seed) - 0.5;
    b[i] = cl_test_rand01(&seed);
    fixed[i] = (i % 7) == 0;
  }
  for (int64_t i = 0; i < n; ++i) {
    ref[i] = 0;
    for (int64_t j = 0; j < n; ++j) ref[i] += D[i * n + j] * x[j];
  }
  cl_bsr_spmv(A, x, y);
  for (int64_t i = 0; i < n; ++i) assert_true(fabs(y[i] - ref[i]) <= 1e-13);
  /* y = 2 A x - 0.5 y */
  for (int64_t i = 0; i < n; ++i) y[i] = b[i];
  cl_bsr_spmv_axpby(A, 2.0, x, -0.5, y);
  for (int64_t i = 0; i < n; ++i) assert_true(fabs(y[i] - (2 * ref[i] - 0.5 * b[i])) <= 1e-13);
  /* beta = 0 ignores NaN in y */
  for (int64_t i = 0; i < n; ++i) y[i] = NAN;
  cl_bsr_spmv_axpby(A, 1.0, x, 0.0, y);
  for (int64_t i = 0; i < n; ++i) assert_true(fabs(y[i] - ref[i]) <= 1e-13);
  /* residual with a mask */
  double rr = cl_bsr_residual(A, b, x, fixed, r), rr_ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    double e = fixed[i] ? 0.0 : b[i] - ref[i];
    assert_true(fabs(r[i] - e) <= 1e-13);
    rr_ref += e * e;
  }
  assert_true(fabs(rr - rr_ref) <= 1e-12 * rr_ref);
  /* two residuals in one pass: each as cl_bsr_residual makes it, to the bit */
  double *x2 = malloc(sizeof(double) * (size_t)n), *r2 = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) x2[i] = i % 3 ? 0.0 : x[i] * 0.7;
  const double ry_ref = cl_bsr_residual(A, b, x2, fixed, r2);
  double ry = -1.0;
  const double rx = cl_bsr_residual_pair(A, b, x, x2, fixed, r2, &ry);
  assert_true(rx == rr && ry == ry_ref);
  for (int64_t i = 0; i < n; ++i) assert_true(r2[i] == r[i]);
  /* x = NULL is a zero x: to the bit the residual of an x of zeros (the multigrid's zero guess) */
  for (int64_t i = 0; i < n; ++i) x2[i] = 0.0;
  const double rz_ref = cl_bsr_residual(A, b, x2, fixed, r2);
  const double rz = cl_bsr_residual(A, b, NULL, fixed, r);
  assert_true(rz == rz_ref && rz > 0.0);
  assert_memory_equal(r, r2, sizeof(double) * (size_t)n);
  free(x2);
  free(r2);
  free(fixed);
  free(r);
  free(b);
  free(ref);
  free(x);
  free(y);
  free(D);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

/* SpMV on a mesh large enough to take the OpenMP path, against a serial per-row reference. */
static void test_spmv_parallel_path(void **state) {
  (void)state;
  cl_mesh *m = grid(14, 14, 14); /* 3375 nodes > the parallel threshold */
  cl_bsr *A;
  assert_int_equal(cl_bsr_from_cells(m->npoints, m->cells, m->ncells, 4, &A), CL_OK);
  uint64_t seed = 3;
  for (int64_t k = 0; k < 9 * A->nnzb; ++k) A->val[k] = cl_test_rand01(&seed);
  const int64_t n = 3 * (int64_t)A->n;
  double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) x[i] = cl_test_rand01(&seed);
  cl_bsr_spmv(A, x, y);
  for (int32_t i = 0; i < A->n; ++i)
    for (int r = 0; r < 3; ++r) {
      double s = 0;
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k)
        for (int c = 0; c < 3; ++c) s += A->val[9 * k + 3 * r + c] * x[3 * A->col[k] + c];
      assert_true(fabs(s - y[3 * i + r]) <= 1e-12 * fabs(s));
    }
  free(x);
  free(y);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

/* The generic (non-tet) scatter path: triangles (3 nodes, 9x9 element matrices). */
static void test_add_cell_triangles(void **state) {
  (void)state;
  const int32_t tris[3 * 3] = {0, 1, 2, 2, 1, 3, 3, 4, 2};
  cl_bsr *A;
  assert_int_equal(cl_bsr_from_cells(5, tris, 3, 3, &A), CL_OK);
  int64_t slots[3 * 9];
  assert_int_equal(cl_bsr_cell_slots(A, tris, 3, 3, slots), CL_OK);
  const int64_t n = 15;
  double ref[15 * 15] = {0}, Ke[81];
  uint64_t seed = 1;
  for (int t = 0; t < 3; ++t) {
    for (int k = 0; k < 81; ++k) Ke[k] = cl_test_rand01(&seed);
    cl_bsr_add_cell(A, slots + 9 * t, 3, Ke);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) ref[(3 * tris[3 * t + a] + i) * n + 3 * tris[3 * t + b] + j] += Ke[(3 * a + i) * 9 + 3 * b + j];
  }
  double *D = cl_test_bsr_to_dense(A);
  for (int64_t k = 0; k < n * n; ++k) assert_true(fabs(D[k] - ref[k]) < 1e-14);
  /* nodes 0 and 3 share no triangle: no block */
  assert_true(cl_bsr_find(A, 0, 3) < 0 && cl_bsr_find(A, 4, 1) < 0 && cl_bsr_find(A, 4, 2) >= 0);
  double B[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const int64_t s01 = cl_bsr_find(A, 0, 1);
  const double before = A->val[9 * s01 + 5];
  cl_bsr_add_block(A, s01, B);
  assert_true(A->val[9 * s01 + 5] == before + 6.0);
  cl_bsr_zero(A);
  for (int64_t k = 0; k < 9 * A->nnzb; ++k) assert_true(A->val[k] == 0.0);
  free(D);
  cl_bsr_destroy(A);
}

/* ---- Dirichlet, diagonal blocks, colouring -------------------------------------------------- */

static void test_dirichlet(void **state) {
  (void)state;
  cl_mesh *m = grid(2, 2, 1);
  cl_bsr *A;
  int64_t *slots;
  assert_int_equal(cl_test_elastic_system(m, 1e4, 0.25, 1.0, &A, &slots), CL_OK);
  const int64_t n = 3 * (int64_t)A->n;
  double *D0 = cl_test_bsr_to_dense(A);
  uint8_t *fixed = calloc((size_t)n, 1);
  double *xd = calloc((size_t)n, sizeof(double)), *b = malloc(sizeof(double) * (size_t)n);
  double *b0 = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    b[i] = b0[i] = 1.0 + 0.1 * (double)i;
    if (i % 5 == 0 || i / 3 == 2) { /* some single components and all of node 2 */
      fixed[i] = 1;
      xd[i] = 0.01 * (double)(i + 1);
    }
  }
  assert_int_equal(cl_bsr_apply_dirichlet(A, fixed, xd, b), CL_OK);
  double *D = cl_test_bsr_to_dense(A);
  for (int64_t i = 0; i < n; ++i) {
    double bi = b0[i];
    for (int64_t j = 0; j < n; ++j) {
      assert_true(D[i * n + j] == D[j * n + i]); /* still symmetric */
      if (fixed[i] || fixed[j]) {
        assert_true(D[i * n + j] == (i == j ? 1.0 : 0.0));
      } else {
        assert_true(D[i * n + j] == D0[i * n + j]);
      }
      if (!fixed[i] && fixed[j]) bi -= D0[i * n + j] * xd[j];
    }
    if (fixed[i]) bi = xd[i];
    assert_true(fabs(b[i] - bi) <= 1e-12 * fabs(bi) + 1e-15);
  }
  assert_int_equal(cl_bsr_apply_dirichlet(A, fixed, xd, NULL), CL_ERR_INVALID_ARGUMENT);
  xd[0] = NAN;
  assert_int_equal(cl_bsr_apply_dirichlet(A, fixed, xd, b), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "dof 0"));
  free(D);
  free(D0);
  free(fixed);
  free(xd);
  free(b);
  free(b0);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

static void test_diag_inverse(void **state) {
  (void)state;
  cl_mesh *m = grid(2, 1, 1);
  cl_bsr *A;
  int64_t *slots;
  assert_int_equal(cl_test_elastic_system(m, 1e4, 0.3, 1.0, &A, &slots), CL_OK);
  const int32_t n = A->n;
  double *D = malloc(sizeof(double) * 9 * (size_t)n), *Di = malloc(sizeof(double) * 9 * (size_t)n);
  uint8_t *fixed = calloc(3 * (size_t)n, 1);
  fixed[1] = 1; /* node 0, component y */
  cl_bsr_diag_blocks(A, D);
  assert_int_equal(cl_bsr_diag_inverse(A, NULL, Di), CL_OK);
  for (int32_t i = 0; i < n; ++i)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += D[9 * i + 3 * r + k] * Di[9 * i + 3 * k + c];
        assert_true(fabs(s - (r == c)) < 1e-12);
      }
  assert_int_equal(cl_bsr_diag_inverse(A, fixed, Di), CL_OK);
  /* node 0: row and column 1 zero, the rest inverts the free 2x2 block */
  for (int k = 0; k < 3; ++k) assert_true(Di[3 + k] == 0.0 && Di[3 * k + 1] == 0.0);
  double det = D[0] * D[8] - D[2] * D[6];
  assert_true(fabs(Di[0] - D[8] / det) < 1e-12 * fabs(Di[0]));
  /* two held rows of a stiff block (entries near 1e11, a steel shell's node on two symmetry planes):
   * the free entry inverts; held rows as the identity made the relative singularity test fail there */
  for (int64_t q = 0; q < 9 * A->row_ptr[n]; ++q) A->val[q] *= 1e8;
  fixed[0] = 1; /* node 0: x and y held, z free */
  assert_int_equal(cl_bsr_diag_inverse(A, fixed, Di), CL_OK);
  assert_true(fabs(Di[8] * D[8] * 1e8 - 1.0) < 1e-12);
  for (int k = 0; k < 8; ++k) assert_true(Di[k] == 0.0);
  /* a held row beside a tiny free diagonal (a loose node's mass, 4e-9: its elements broken) is not
   * singular: the free 2x2 block inverts */
  fixed[0] = 0; /* node 0: y held */
  memset(A->val + 9 * A->diag[0], 0, 9 * sizeof(double));
  for (int k = 0; k < 3; ++k) A->val[9 * A->diag[0] + 4 * k] = 4.2e-9;
  assert_int_equal(cl_bsr_diag_inverse(A, fixed, Di), CL_OK);
  assert_true(fabs(Di[0] * 4.2e-9 - 1.0) < 1e-12 && fabs(Di[8] * 4.2e-9 - 1.0) < 1e-12 && Di[4] == 0.0);
  /* a singular block is reported with its node */
  memset(A->val + 9 * A->diag[3], 0, 9 * sizeof(double));
  assert_int_equal(cl_bsr_diag_inverse(A, NULL, Di), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "node 3"));
  free(fixed);
  free(D);
  free(Di);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(m);
}

static void test_color_cells(void **state) {
  (void)state;
  cl_mesh *m = grid(4, 3, 3);
  int32_t *color = malloc(sizeof(int32_t) * (size_t)m->ncells), ncolors = 0;
  assert_int_equal(cl_bsr_color_cells(m->npoints, m->cells, m->ncells, 4, color, &ncolors), CL_OK);
  assert_true(ncolors >= 4 && ncolors < 64);
  /* no node is touched twice by one colour */
  int32_t *seen = malloc(sizeof(int32_t) * (size_t)m->npoints);
  for (int32_t k = 0; k < ncolors; ++k) {
    for (int32_t i = 0; i < m->npoints; ++i) seen[i] = 0;
    for (int32_t t = 0; t < m->ncells; ++t)
      if (color[t] == k)
        for (int a = 0; a < 4; ++a) assert_int_equal(seen[m->cells[4 * t + a]]++, 0);
  }
  for (int32_t t = 0; t < m->ncells; ++t) assert_true(color[t] >= 0 && color[t] < ncolors);
  free(seen);
  free(color);
  cl_mesh_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tet_grid),
      cmocka_unit_test(test_tet_grid_bad_input),
      cmocka_unit_test(test_pattern_exact),
      cmocka_unit_test(test_pattern_isolated_node_and_from_pattern),
      cmocka_unit_test(test_pattern_bad_input),
      cmocka_unit_test(test_assembly_matches_dense),
      cmocka_unit_test(test_spmv_matches_dense),
      cmocka_unit_test(test_spmv_parallel_path),
      cmocka_unit_test(test_add_cell_triangles),
      cmocka_unit_test(test_dirichlet),
      cmocka_unit_test(test_diag_inverse),
      cmocka_unit_test(test_color_cells),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
