/* The skinning prolongation of the Galerkin multigrid (linalg/multigrid_transfer.h, paper eqs 16-18):
 * U reproduces every affine field of the rest positions exactly, from the first coarse level and
 * through two coarse levels (eq 18 in the handles' frames); R = U^T (the adjoint identity); a frame
 * makes the cluster's moments the identity; degenerate clusters (one node, coincident nodes, a line, a
 * plane) drop exactly the axes they do not span and still reproduce affine fields on their nodes. */
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
#include "linalg/multigrid_transfer.h"
#include "support/cl_asserts.h"
#include "support/elastic_assembly.h"
#include "support/mg_systems.h"

/* The affine map u(y) = L y + t in handle k's unknowns: column e of T_k is L F_k[:, e], the
 * translation column L c_k + t (u = T_k Yhat with Yhat = [Finv (y - c); 1]). */
static void affine_handles(const cl_mg_frame *fr, int32_t k, const double *L, const double *t, double *q) {
  for (int32_t h = 0; h < k; ++h) {
    double *qh = q + 12 * (int64_t)h;
    for (int e = 0; e < 3; ++e)
      for (int r = 0; r < 3; ++r)
        qh[3 * e + r] = L[3 * r] * fr[h].F[e] + L[3 * r + 1] * fr[h].F[3 + e] + L[3 * r + 2] * fr[h].F[6 + e];
    for (int r = 0; r < 3; ++r)
      qh[9 + r] = L[3 * r] * fr[h].c[0] + L[3 * r + 1] * fr[h].c[1] + L[3 * r + 2] * fr[h].c[2] + t[r];
  }
}

static double affine_error(const double *x, int32_t n, const double *L, const double *t, const double *u) {
  double err = 0.0;
  for (int32_t i = 0; i < n; ++i)
    for (int r = 0; r < 3; ++r) {
      const double *p = x + 3 * i;
      const double want = L[3 * r] * p[0] + L[3 * r + 1] * p[1] + L[3 * r + 2] * p[2] + t[r];
      err = fmax(err, fabs(u[3 * i + r] - want));
    }
  return err;
}

static void random_affine(uint64_t *seed, double *L, double *t) {
  for (int q = 0; q < 9; ++q) L[q] = 2.0 * cl_test_rand01(seed) - 1.0;
  for (int q = 0; q < 3; ++q) t[q] = 2.0 * cl_test_rand01(seed) - 1.0;
}

/* Affine fields through one and two coarse levels, on an irregular mesh away from the origin. */
static void test_affine_reproduced(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 10, 4, 3, 1.0, 0.3, 1e5, 0.3, 1.0);
  for (int32_t i = 0; i < s.mesh->npoints; ++i) s.mesh->x[3 * i] += 5.0; /* frames, not world origin */
  cl_linear_solver *ls = cl_test_mg_solver(&s, "6/40/all", NULL);
  const cl_mg *mg = cl_linear_solver_multigrid(ls);
  const cl_mg_transfer *t0 = cl_mg_level_transfer(mg, 0), *t1 = cl_mg_level_transfer(mg, 1);
  assert_non_null(t1);
  assert_null(cl_mg_level_transfer(mg, 2));
  const int32_t n = s.mesh->npoints;
  assert_int_equal(t0->n_fine, n);
  assert_int_equal(t0->n_handles, 40);
  assert_int_equal(t1->n_fine, 160);
  assert_int_equal(t1->n_handles, 6);
  uint64_t seed = 9;
  double L[9], tr[3];
  double *q1 = malloc(sizeof(double) * 12 * 40), *q2 = malloc(sizeof(double) * 12 * 6);
  double *u = malloc(sizeof(double) * (size_t)s.n3), *q1p = malloc(sizeof(double) * 12 * 40);
  for (int trial = 0; trial < 3; ++trial) {
    random_affine(&seed, L, tr);
    /* level 1 -> mesh (eq 17) */
    affine_handles(t0->frame, 40, L, tr, q1);
    memset(u, 0, sizeof(double) * (size_t)s.n3);
    cl_mg_prolong_add(t0, q1, NULL, u);
    const double e1 = affine_error(s.mesh->x, n, L, tr, u);
    /* level 2 -> level 1 -> mesh (eq 18) */
    affine_handles(t1->frame, 6, L, tr, q2);
    memset(q1p, 0, sizeof(double) * 12 * 40);
    cl_mg_prolong_add(t1, q2, NULL, q1p);
    memset(u, 0, sizeof(double) * (size_t)s.n3);
    cl_mg_prolong_add(t0, q1p, NULL, u);
    const double e2 = affine_error(s.mesh->x, n, L, tr, u);
    print_message("affine field: max error %.3g through one level, %.3g through two\n", e1, e2);
    assert_true(e1 < 1e-12);
    assert_true(e2 < 1e-12);
    /* the level-1 unknowns made by eq 18 are the level-1 representation of the same field */
    for (int q = 0; q < 12 * 40; ++q) assert_near(q1p[q], q1[q], 1e-11);
  }
  /* the masked prolongation leaves fixed components alone */
  uint8_t *fixed = calloc((size_t)s.n3, 1);
  fixed[4] = fixed[9] = 1;
  for (int64_t d = 0; d < s.n3; ++d) u[d] = 7.0;
  cl_mg_prolong_add(t0, q1, fixed, u);
  assert_true(u[4] == 7.0 && u[9] == 7.0 && u[5] != 7.0);
  free(fixed);
  free(q1);
  free(q2);
  free(u);
  free(q1p);
  cl_linear_solver_destroy(ls);
  cl_test_mg_free(&s);
}

/* <P xc, yf> = <xc, R yf> at both levels, and a frame's moments sum_i Yhat Yhat^T = N I. */
static void test_restriction_is_transpose(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 8, 4, 3, 1.0, 0.4, 1e5, 0.3, 1.0);
  cl_linear_solver *ls = cl_test_mg_solver(&s, "5/30/all", NULL);
  const cl_mg *mg = cl_linear_solver_multigrid(ls);
  uint64_t seed = 4;
  for (int l = 0; l < 2; ++l) {
    const cl_mg_transfer *t = cl_mg_level_transfer(mg, l);
    const int64_t nf = 3 * (int64_t)t->n_fine, nc = 12 * (int64_t)t->n_handles;
    double *xc = malloc(sizeof(double) * (size_t)nc), *rc = malloc(sizeof(double) * (size_t)nc);
    double *yf = malloc(sizeof(double) * (size_t)nf), *pf = calloc((size_t)nf, sizeof(double));
    for (int64_t q = 0; q < nc; ++q) xc[q] = cl_test_rand01(&seed) - 0.5;
    for (int64_t q = 0; q < nf; ++q) yf[q] = cl_test_rand01(&seed) - 0.5;
    cl_mg_prolong_add(t, xc, NULL, pf);
    cl_mg_restrict(t, yf, rc);
    double a = 0.0, b = 0.0;
    for (int64_t q = 0; q < nf; ++q) a += pf[q] * yf[q];
    for (int64_t q = 0; q < nc; ++q) b += xc[q] * rc[q];
    assert_near(a, b, 1e-12 * (fabs(a) + 1.0));
    free(xc);
    free(rc);
    free(yf);
    free(pf);
  }
  /* moments of the first level's clusters in their frames */
  const cl_mg_transfer *t0 = cl_mg_level_transfer(mg, 0);
  for (int32_t h = 0; h < t0->n_handles; ++h) {
    double M[16] = {0};
    for (int32_t m = t0->member_ptr[h]; m < t0->member_ptr[h + 1]; ++m) {
      const double *w = t0->w + 4 * t0->members[m];
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) M[4 * r + c] += w[r] * w[c];
    }
    const double N = (double)(t0->member_ptr[h + 1] - t0->member_ptr[h]);
    assert_int_equal(t0->frame[h].count, (int32_t)N);
    const int live = t0->frame[h].live; /* a small cluster on a face may be flat */
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c)
        assert_near(M[4 * r + c], r == c && (r < live || r == 3) ? N : 0.0, 1e-10 * N);
  }
  cl_linear_solver_destroy(ls);
  cl_test_mg_free(&s);
}

/* Degenerate clusters: the axes a cluster spans are kept, the others dropped, and the kept ones still
 * reproduce affine fields on the cluster's nodes. */
static void test_degenerate_clusters(void **state) {
  (void)state;
  /* cluster 0: one node; 1: two nodes (a line); 2: three nodes on a line; 3: a square (flat);
   * 4: a tetrahedron and its centroid; 5: two coincident nodes; 6: a flat cluster off the axes */
  static const double x[] = {
      0.3, 0.2, 0.1,                                                             /* 0 */
      1, 1, 1, 2, 3, 1,                                                          /* 1 */
      0, 0, 5, 1, 1, 5.5, 2, 2, 6,                                               /* 2 */
      0, 0, 9, 1, 0, 9, 1, 1, 9, 0, 1, 9,                                        /* 3 */
      0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.25, 0.25, 0.25,                      /* 4 */
      4, 4, 4, 4, 4, 4,                                                          /* 5 */
      1, 2, 3, 2, 3, 5, 4, 2, 1, 0, 0, 0, 0, 0, 0,                               /* 6 */
  };
  /* cluster 6: p1, p2, p3 and two more points in their plane, which is tilted against every axis */
  double xx[3 * 22];
  memcpy(xx, x, sizeof x);
  const double *p1 = xx + 3 * 17, *p2 = xx + 3 * 18, *p3 = xx + 3 * 19;
  for (int c = 0; c < 3; ++c) {
    xx[3 * 20 + c] = p1[c] + 0.5 * (p2[c] - p1[c]) + 0.5 * (p3[c] - p1[c]);
    xx[3 * 21 + c] = p1[c] + 0.25 * (p2[c] - p1[c]) - 0.75 * (p3[c] - p1[c]);
  }
  const int32_t label[22] = {0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 6, 6, 6, 6, 6};
  const int32_t want_live[7] = {0, 1, 1, 2, 3, 0, 2};
  cl_mg_transfer t;
  assert_ok(cl_mg_transfer_from_nodes(22, xx, label, 7, &t));
  for (int h = 0; h < 7; ++h) assert_int_equal(t.frame[h].live, want_live[h]);
  assert_int_equal(t.degenerate, 6);
  /* the dropped axes' weights are exactly zero */
  for (int32_t i = 0; i < 22; ++i)
    for (int e = t.frame[label[i]].live; e < 3; ++e) assert_true(t.w[4 * i + e] == 0.0);
  uint64_t seed = 21;
  double L[9], tr[3], q[12 * 7], u[3 * 22];
  for (int trial = 0; trial < 3; ++trial) {
    random_affine(&seed, L, tr);
    affine_handles(t.frame, 7, L, tr, q);
    memset(u, 0, sizeof u);
    cl_mg_prolong_add(&t, q, NULL, u);
    assert_true(affine_error(xx, 22, L, tr, u) < 1e-12);
  }
  cl_mg_transfer_free(&t);
  cl_mg_transfer_free(&t); /* twice is harmless */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_affine_reproduced),
      cmocka_unit_test(test_restriction_is_transpose),
      cmocka_unit_test(test_degenerate_clusters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
