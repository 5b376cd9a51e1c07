/* Geodesic distances and farthest point sampling for the Galerkin multigrid's levels
 * (linalg/multigrid_sampling.h, paper sec 3.3, eq 15): the picks on a path are the known ones; every
 * prefix of a sample is a subset of distinct nodes whose smallest pairwise distance is at least its
 * covering radius (the maximal min-distance property, which makes it a 2-approximation of the best
 * spread, checked against brute force on a small mesh); each connected component gets a pick; the
 * geodesic Voronoi labels are nearest sources; nodes without a neighbour get no handle; a hierarchy's
 * levels are nested prefixes. */
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
#include "geom/tet_grid.h"
#include "linalg/bsr.h"
#include "linalg/linear_solver.h"
#include "linalg/multigrid.h"
#include "linalg/multigrid_sampling.h"
#include "linalg/multigrid_transfer.h"
#include "support/cl_asserts.h"
#include "support/elastic_assembly.h"
#include "support/mg_systems.h"

/* A path of n nodes at x = 0, 1, ..., n-1 (edges between neighbours). */
static cl_bsr *path_graph(int32_t n, double *x) {
  int32_t *cells = malloc(sizeof(int32_t) * 2 * (size_t)(n - 1));
  for (int32_t i = 0; i + 1 < n; ++i) {
    cells[2 * i] = i;
    cells[2 * i + 1] = i + 1;
  }
  for (int32_t i = 0; i < n; ++i) {
    x[3 * i] = (double)i;
    x[3 * i + 1] = x[3 * i + 2] = 0.0;
  }
  cl_bsr *A = NULL;
  assert_ok(cl_bsr_from_cells(n, cells, n - 1, 2, &A));
  free(cells);
  return A;
}

static void test_path(void **state) {
  (void)state;
  double x[3 * 21];
  cl_bsr *A = path_graph(21, x);
  double len[200];
  cl_mg_edge_lengths(A, x, len);
  int32_t picked[5];
  double radius[5];
  assert_ok(cl_mg_farthest_points(A, len, 5, picked, radius));
  /* the farthest node from node 0, then the far end, the middle, the quarters (ties: smaller index) */
  const int32_t want[5] = {20, 0, 10, 5, 15};
  const double want_r[5] = {INFINITY, 20, 10, 5, 5};
  for (int k = 0; k < 5; ++k) {
    assert_int_equal(picked[k], want[k]);
    assert_true(radius[k] == want_r[k]);
  }
  double dist[21];
  int32_t label[21];
  assert_ok(cl_mg_geodesic_voronoi(A, len, picked, 3, dist, label));
  assert_int_equal(label[3], 1);  /* 3 from node 0 */
  assert_int_equal(label[14], 2); /* 4 from node 10, 6 from node 20 */
  assert_near(dist[14], 4.0, 0.0);
  assert_int_equal(label[20], 0);
  assert_error(cl_mg_farthest_points(A, len, 22, picked, NULL), CL_ERR_INVALID_ARGUMENT, "22 points asked of a graph of 21");
  cl_bsr_destroy(A);
}

/* Distances from one source to every node. */
static void from(const cl_bsr *A, const double *len, int32_t src, double *dist) {
  int32_t *label = malloc(sizeof(int32_t) * (size_t)A->n);
  assert_ok(cl_mg_geodesic_voronoi(A, len, &src, 1, dist, label));
  free(label);
}

/* On an irregular tet mesh: distinct picks, the covering radius never exceeds the smallest pairwise
 * distance of any prefix, radius[m] is the covering radius of the first m picks, Voronoi labels are
 * nearest sources. */
static void test_max_min_property(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 12, 5, 4, 1.0, 0.4, 1e5, 0.3, 1.0);
  const int32_t n = s.A->n, k = 40;
  double *len = malloc(sizeof(double) * (size_t)s.A->nnzb);
  cl_mg_edge_lengths(s.A, s.mesh->x, len);
  int32_t picked[40];
  double radius[40];
  assert_ok(cl_mg_farthest_points(s.A, len, k, picked, radius));
  double *pair = malloc(sizeof(double) * (size_t)k * k), *d = malloc(sizeof(double) * (size_t)n);
  for (int32_t a = 0; a < k; ++a) {
    assert_true(picked[a] >= 0 && picked[a] < n);
    from(s.A, len, picked[a], d);
    for (int32_t b = 0; b < k; ++b) pair[a * k + b] = d[picked[b]];
  }
  double *dist = malloc(sizeof(double) * (size_t)n);
  int32_t *label = malloc(sizeof(int32_t) * (size_t)n);
  for (int32_t m = 2; m <= k; ++m) {
    double min_pair = INFINITY;
    for (int32_t a = 0; a < m; ++a)
      for (int32_t b = 0; b < a; ++b) {
        assert_true(picked[a] != picked[b]);
        if (pair[a * k + b] < min_pair) min_pair = pair[a * k + b];
      }
    assert_ok(cl_mg_geodesic_voronoi(s.A, len, picked, m, dist, label));
    double cover = 0.0;
    for (int32_t i = 0; i < n; ++i) {
      assert_true(label[i] >= 0 && label[i] < m);
      if (dist[i] > cover) cover = dist[i];
    }
    assert_true(min_pair >= cover * (1 - 1e-12));
    if (m < k) assert_near(radius[m], cover, 1e-12 * cover);
    if (m > 2) assert_true(radius[m - 1] <= radius[m - 2] * (1 + 1e-12)); /* never increases */
  }
  /* Voronoi labels against the single-source distances */
  assert_ok(cl_mg_geodesic_voronoi(s.A, len, picked, 10, dist, label));
  for (int32_t a = 0; a < 10; ++a) {
    from(s.A, len, picked[a], d);
    for (int32_t i = 0; i < n; ++i) assert_true(dist[i] <= d[i] * (1 + 1e-12));
  }
  from(s.A, len, picked[label[17]], d);
  assert_near(d[17], dist[17], 1e-12);
  free(pair);
  free(d);
  free(dist);
  free(label);
  free(len);
  cl_test_mg_free(&s);
}

/* 2-approximation of the best spread of 3 points (brute force over every triple) on a small mesh. */
static void test_two_approximation(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 4, 3, 2, 1.0, 0.6, 1e5, 0.3, 1.0); /* 60 nodes */
  const int32_t n = s.A->n;
  double *len = malloc(sizeof(double) * (size_t)s.A->nnzb);
  cl_mg_edge_lengths(s.A, s.mesh->x, len);
  double *D = malloc(sizeof(double) * (size_t)n * n);
  for (int32_t a = 0; a < n; ++a) from(s.A, len, a, D + (int64_t)a * n);
  double best = 0.0;
  for (int32_t a = 0; a < n; ++a)
    for (int32_t b = a + 1; b < n; ++b)
      for (int32_t c = b + 1; c < n; ++c) {
        const double m = fmin(D[a * n + b], fmin(D[a * n + c], D[b * n + c]));
        if (m > best) best = m;
      }
  int32_t p[3];
  assert_ok(cl_mg_farthest_points(s.A, len, 3, p, NULL));
  const double got = fmin(D[p[0] * n + p[1]], fmin(D[p[0] * n + p[2]], D[p[1] * n + p[2]]));
  print_message("best min distance of 3 points %.4f, farthest point sampling %.4f\n", best, got);
  assert_true(got >= 0.5 * best);
  free(D);
  free(len);
  cl_test_mg_free(&s);
}

/* Two components: the second pick lands in the component the first does not reach. */
static void test_components(void **state) {
  (void)state;
  const int32_t cells[] = {0, 1, 1, 2, 3, 4, 4, 5, 5, 6};
  double x[21];
  for (int i = 0; i < 7; ++i) {
    x[3 * i] = (double)i;
    x[3 * i + 1] = x[3 * i + 2] = 0.0;
  }
  cl_bsr *A = NULL;
  assert_ok(cl_bsr_from_cells(7, cells, 5, 2, &A));
  double len[64];
  cl_mg_edge_lengths(A, x, len);
  int32_t p[2];
  double r[2];
  assert_ok(cl_mg_farthest_points(A, len, 2, p, r));
  assert_true((p[0] <= 2) != (p[1] <= 2));
  assert_true(isinf(r[1]));
  double dist[7];
  int32_t label[7];
  assert_ok(cl_mg_geodesic_voronoi(A, len, p, 1, dist, label));
  int unreached = 0;
  for (int i = 0; i < 7; ++i) unreached += label[i] < 0 && isinf(dist[i]);
  assert_true(unreached == 3 || unreached == 4);
  cl_bsr_destroy(A);
}

/* A matrix with unused nodes (a diagonal block only): none becomes a handle, they belong to no
 * cluster, the block relaxation solves them, and a grid asking for more handles than the nodes with
 * a neighbour is refused. */
static void test_isolated_nodes(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 6, 3, 3, 1.0, 0.5, 1e5, 0.3, 10.0); /* 112 nodes */
  const int32_t n = s.A->n, extra = 40, m = n + extra;
  cl_bsr *B = NULL;
  assert_ok(cl_bsr_from_cells(m, s.mesh->cells, s.mesh->ncells, 4, &B));
  for (int32_t i = 0; i < n; ++i)
    for (int64_t q = s.A->row_ptr[i]; q < s.A->row_ptr[i + 1]; ++q)
      memcpy(B->val + 9 * cl_bsr_find(B, i, s.A->col[q]), s.A->val + 9 * q, 9 * sizeof(double));
  for (int32_t i = n; i < m; ++i)
    for (int c = 0; c < 3; ++c) B->val[9 * B->diag[i] + 4 * c] = 2.0;
  double *x = malloc(sizeof(double) * 3 * (size_t)m), *b = malloc(sizeof(double) * 3 * (size_t)m);
  double *sol = calloc(3 * (size_t)m, sizeof(double));
  memcpy(x, s.mesh->x, sizeof(double) * 3 * (size_t)n);
  for (int32_t i = n; i < m; ++i)
    for (int c = 0; c < 3; ++c) x[3 * i + c] = 10.0 + (double)(i * (c + 1)); /* far away, apart */
  for (int64_t d = 0; d < 3 * (int64_t)m; ++d) b[d] = d < s.n3 ? s.b[d] : 1.0;
  assert_int_equal(cl_mg_connected_nodes(B), n);
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  snprintf(def.mg_grid, sizeof def.mg_grid, "3/12/all");
  def.mg_positions = x;
  def.mg_position_count = m;
  def.rel_tol = 1e-10;
  cl_linear_solver *ls = NULL;
  assert_ok(cl_linear_solver_create("galerkin_mg", &def, &ls));
  assert_ok(cl_linear_solver_analyse(ls, B));
  const cl_mg *mg = cl_linear_solver_multigrid(ls);
  const int32_t *h1 = cl_mg_level_handles(mg, 1);
  for (int k = 0; k < 12; ++k) assert_true(h1[k] < n);
  const cl_mg_transfer *t0 = cl_mg_level_transfer(mg, 0);
  for (int32_t i = n; i < m; ++i) assert_int_equal(t0->handle[i], -1);
  for (int32_t i = 0; i < n; ++i) assert_true(t0->handle[i] >= 0);
  assert_ok(cl_linear_solver_setup(ls, B, NULL));
  cl_linear_result res;
  assert_ok(cl_linear_solver_solve(ls, b, sol, NULL, &res));
  assert_true(cl_test_true_residual(B, b, sol, NULL) <= 1e-9);
  for (int32_t i = n; i < m; ++i) assert_near(sol[3 * i], 0.5, 1e-9);
  snprintf(def.mg_grid, sizeof def.mg_grid, "%d/all", n + 1);
  assert_ok(cl_linear_solver_configure(ls, &def));
  assert_error(cl_linear_solver_analyse(ls, B), CL_ERR_INVALID_ARGUMENT, "share an element with another");
  cl_linear_solver_destroy(ls);
  free(x);
  free(b);
  free(sol);
  cl_bsr_destroy(B);
  cl_test_mg_free(&s);
}

/* The levels of a hierarchy are nested: each coarser level's handles are the first ones of the finer. */
static void test_levels_nested(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 10, 4, 4, 1.0, 0.4, 1e5, 0.3, 1.0);
  cl_linear_solver *ls = cl_test_mg_solver(&s, "5/20/80/all", NULL);
  const cl_mg *mg = cl_linear_solver_multigrid(ls);
  assert_non_null(mg);
  const int32_t *h1 = cl_mg_level_handles(mg, 1), *h2 = cl_mg_level_handles(mg, 2), *h3 = cl_mg_level_handles(mg, 3);
  assert_non_null(h3);
  assert_null(cl_mg_level_handles(mg, 0));
  assert_null(cl_mg_level_handles(mg, 4));
  for (int i = 0; i < 20; ++i) assert_int_equal(h2[i], h1[i]);
  for (int i = 0; i < 5; ++i) assert_int_equal(h3[i], h2[i]);
  /* a handle belongs to its own cluster, at every level */
  const cl_mg_transfer *t0 = cl_mg_level_transfer(mg, 0);
  for (int i = 0; i < 80; ++i) assert_int_equal(t0->handle[h1[i]], i);
  cl_mg_stats st;
  cl_mg_get_stats(mg, &st);
  assert_int_equal(st.levels, 4);
  assert_int_equal(st.level[1].handles, 80);
  assert_int_equal(st.level[3].nodes, 20);
  cl_linear_solver_destroy(ls);
  cl_test_mg_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_path),
      cmocka_unit_test(test_max_min_property),
      cmocka_unit_test(test_two_approximation),
      cmocka_unit_test(test_components),
      cmocka_unit_test(test_isolated_nodes),
      cmocka_unit_test(test_levels_nested),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
