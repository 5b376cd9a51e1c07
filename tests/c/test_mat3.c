/* The 3x3 core: signed SVD, polar, symmetric eigen, pseudo-inverse, Gram-Schmidt rotation,
 * inverse, and the RNG they are tested with.
 *
 * Test matrices are built as A = P diag(s) Q^T from random rotations P, Q and chosen singular
 * values s, so the true s is known, in categories (support/svd_cases.c, shared with
 * test_svd3_fast) that stress different paths: generic,
 * near-singular, rank 2/1/0 (also exactly rank-deficient integer matrices), repeated and nearly
 * repeated values, inverted, Gaussian entries, extreme scales. Tolerances (issue text): relative
 * reconstruction <= 1e-10, ||U^T U - I||_F <= 1e-12, |det U - 1| <= 1e-12. Each category keeps
 * its worst matrix and prints it on failure; nothing is printed on success. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "base/mat3.h"
#include "base/rng.h"
#include "base/timer.h"
#include "support/svd_cases.h"

#define N_PER_CATEGORY 20000
#define TOL_REC 1e-10
#define TOL_ORTH 1e-12
#define TOL_DET 1e-12
/* |sigma_i - s_i| <= TOL_SVAL * s_1: Weyl's bound for a backward-stable SVD is a few eps; the
 * test matrix itself is only known to rounding, so this is loose enough to never be noise. */
#define TOL_SVAL 1e-12

/* ---- helpers ------------------------------------------------------------------------------ */

static void print_mat(const char *name, const cl_mat3 *a) {
  print_message("  %s = [%.17g %.17g %.17g;\n        %.17g %.17g %.17g;\n        %.17g %.17g %.17g]\n", name, a->m[0],
                a->m[1], a->m[2], a->m[3], a->m[4], a->m[5], a->m[6], a->m[7], a->m[8]);
}

/* ||a - b||_F / scale, computed on a / scale to stay in range for extreme scales. */
static double diff_fro(const cl_mat3 *a, const cl_mat3 *b, double scale) {
  double s = 0.0;
  for (int i = 0; i < 9; ++i) {
    double d = a->m[i] / scale - b->m[i] / scale;
    s += d * d;
  }
  return sqrt(s);
}

static double fro_scaled(const cl_mat3 *a, double scale) {
  double s = 0.0;
  for (int i = 0; i < 9; ++i) {
    double d = a->m[i] / scale;
    s += d * d;
  }
  return sqrt(s);
}

/* ||Q^T Q - I||_F */
static double orth_err(const cl_mat3 *q) {
  cl_mat3 qtq = cl_mat3_mul_tn(q, q);
  cl_mat3 id = cl_mat3_identity();
  return diff_fro(&qtq, &id, 1.0);
}

/* Relative ||a - b||_F / ||a||_F, absolute when a is zero. */
static double rel_err(const cl_mat3 *a, const cl_mat3 *b) {
  double amax = cl_mat3_max_abs(a);
  if (amax == 0.0) return cl_mat3_frobenius(b);
  return diff_fro(a, b, amax) / fro_scaled(a, amax);
}

static cl_mat3 usvt(const cl_mat3 *U, cl_vec3 s, const cl_mat3 *V) {
  cl_mat3 d = cl_mat3_diag(s);
  cl_mat3 us = cl_mat3_mul(U, &d);
  return cl_mat3_mul_nt(&us, V);
}

/* Worst case bookkeeping for one category. */
typedef struct svd_stats {
  const char *category;
  double worst_ratio; /* max over matrices of max(metric / tolerance) */
  cl_mat3 worst_A;
  double worst_rec, worst_orth, worst_det, worst_sval;
  int n;
} svd_stats;

static void stats_init(svd_stats *st, const char *category) {
  memset(st, 0, sizeof *st);
  st->category = category;
}

/* Run cl_svd3 on A and check everything; `truth` (may be NULL) are the true singular values in
 * descending |.| with the sign of det A on the last, `det_sign` is the known sign of det A
 * (0 when unknown or A singular). Ordering and sign violations fail at once. */
static void check_svd(svd_stats *st, const cl_mat3 *A, const double *truth, int det_sign) {
  cl_mat3 U, V;
  cl_vec3 s;
  cl_status rc = cl_svd3(A, &U, &s, &V);
  if (rc != CL_OK) {
    print_mat("A", A);
    fail_msg("%s: cl_svd3 returned %s: %s", st->category, cl_status_name(rc), cl_last_error());
  }
  if (!(s.x >= s.y && s.y >= fabs(s.z) && s.y >= 0.0)) {
    print_mat("A", A);
    fail_msg("%s: singular values out of order or sign rule broken: %.17g %.17g %.17g", st->category, s.x, s.y, s.z);
  }
  if (det_sign != 0 && (s.z == 0.0 || (s.z < 0.0) != (det_sign < 0))) {
    print_mat("A", A);
    fail_msg("%s: sigma_3 = %.17g does not carry the sign of det A (%d)", st->category, s.z, det_sign);
  }
  cl_mat3 B = usvt(&U, s, &V);
  double rec = rel_err(A, &B);
  double orth = fmax(orth_err(&U), orth_err(&V));
  double det = fmax(fabs(cl_mat3_det(&U) - 1.0), fabs(cl_mat3_det(&V) - 1.0));
  double sval = 0.0;
  if (truth) {
    double scale = fabs(truth[0]) > 0.0 ? fabs(truth[0]) : 1.0;
    sval = fmax(fmax(fabs(s.x - truth[0]), fabs(s.y - truth[1])), fabs(s.z - truth[2])) / scale;
  }
  double ratio = fmax(fmax(rec / TOL_REC, orth / TOL_ORTH), fmax(det / TOL_DET, sval / TOL_SVAL));
  if (!(ratio <= st->worst_ratio)) { /* also catches NaN */
    st->worst_ratio = ratio;
    st->worst_A = *A;
    st->worst_rec = rec, st->worst_orth = orth, st->worst_det = det, st->worst_sval = sval;
  }
  st->n++;
}

static void stats_assert(const svd_stats *st) {
  if (!(st->worst_ratio <= 1.0)) {
    print_message("%s: worst of %d matrices: reconstruction %.3g (tol %g), orthonormality %.3g (tol %g), "
                  "|det - 1| %.3g (tol %g), singular value error %.3g (tol %g)\n",
                  st->category, st->n, st->worst_rec, TOL_REC, st->worst_orth, TOL_ORTH, st->worst_det, TOL_DET,
                  st->worst_sval, TOL_SVAL);
    print_mat("A", &st->worst_A);
    fail_msg("%s: tolerance exceeded", st->category);
  }
}

/* ---- SVD categories ----------------------------------------------------------------------- */

/* n matrices of category `kind` from r, each checked against its known values (cl_svd_case). */
static void check_cases(svd_stats *st, cl_rng *r, cl_svd_case_kind kind, int n) {
  for (int i = 0; i < n; ++i) {
    cl_svd_case c;
    cl_svd_case_make(kind, i, r, &c);
    check_svd(st, &c.A, c.known ? c.s : NULL, c.det_sign);
  }
}

static void test_svd_generic(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 1);
  svd_stats st;
  stats_init(&st, "generic");
  check_cases(&st, &r, CL_SVD_CASE_GENERIC, N_PER_CATEGORY);
  stats_assert(&st);
}

static void test_svd_near_singular(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 2);
  svd_stats st;
  stats_init(&st, "near-singular");
  check_cases(&st, &r, CL_SVD_CASE_NEAR_SINGULAR, N_PER_CATEGORY);
  stats_assert(&st);
}

static void test_svd_rank_deficient(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 3);
  svd_stats st;
  stats_init(&st, "rank 2, rank 1 and graded (rotated)");
  check_cases(&st, &r, CL_SVD_CASE_RANK_DEFICIENT, N_PER_CATEGORY);
  stats_assert(&st);

  stats_init(&st, "rank 2 and rank 1 (exact integers)");
  for (int i = 0; i < N_PER_CATEGORY; ++i) {
    cl_svd_case c;
    cl_svd_case_make(CL_SVD_CASE_EXACT_INTEGER, i, &r, &c);
    check_svd(&st, &c.A, NULL, 0);
    cl_mat3 U, V;
    cl_vec3 s;
    assert_int_equal(cl_svd3(&c.A, &U, &s, &V), CL_OK);
    /* the exact zero singular values must come out at rounding level */
    if (!(fabs(s.z) <= 1e-14 * s.x) || (c.exact_rank <= 1 && !(s.y <= 1e-14 * s.x))) {
      print_mat("A", &c.A);
      fail_msg("exact rank deficiency missed: sigma = %.17g %.17g %.17g", s.x, s.y, s.z);
    }
  }
  stats_assert(&st);
}

static void test_svd_rank0(void **state) {
  (void)state;
  svd_stats st;
  stats_init(&st, "rank 0");
  cl_mat3 Z = cl_mat3_zero();
  double truth[3] = {0, 0, 0};
  check_svd(&st, &Z, truth, 0);
  for (int i = 0; i < 9; ++i) Z.m[i] = (i % 2) ? -0.0 : 0.0;
  check_svd(&st, &Z, truth, 0);
  stats_assert(&st);
  cl_mat3 U, V;
  cl_vec3 s;
  assert_int_equal(cl_svd3(&Z, &U, &s, &V), CL_OK);
  assert_true(s.x == 0.0 && s.y == 0.0 && s.z == 0.0);
}

static void test_svd_repeated(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 4);
  svd_stats st;
  stats_init(&st, "repeated and nearly repeated");
  check_cases(&st, &r, CL_SVD_CASE_REPEATED, N_PER_CATEGORY);
  stats_assert(&st);
  /* the identity and a pure reflection (all singular values 1, det -1) exactly */
  cl_mat3 I = cl_mat3_identity(), M = cl_mat3_identity();
  M.m[4] = -1.0;
  double t1[3] = {1, 1, 1}, t2[3] = {1, 1, -1};
  check_svd(&st, &I, t1, 1);
  check_svd(&st, &M, t2, -1);
  stats_assert(&st);
}

static void test_svd_inverted(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 5);
  svd_stats st;
  stats_init(&st, "inverted");
  check_cases(&st, &r, CL_SVD_CASE_INVERTED, N_PER_CATEGORY);
  stats_assert(&st);
  /* an inverted element: a tet flattened through itself, F = diag(1, 1, -0.2) */
  cl_mat3 F = cl_mat3_diag(cl_vec3_make(1.0, 1.0, -0.2));
  double tf[3] = {1, 1, -0.2};
  check_svd(&st, &F, tf, -1);
  stats_assert(&st);
}

static void test_svd_gaussian(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 6);
  svd_stats st;
  stats_init(&st, "Gaussian entries");
  check_cases(&st, &r, CL_SVD_CASE_GAUSSIAN, N_PER_CATEGORY);
  stats_assert(&st);
}

static void test_svd_extreme_scales(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 7);
  svd_stats st;
  stats_init(&st, "extreme scales");
  check_cases(&st, &r, CL_SVD_CASE_SCALED, N_PER_CATEGORY);
  check_cases(&st, &r, CL_SVD_CASE_GRADED_ROWS, 2000);
  check_cases(&st, &r, CL_SVD_CASE_TINY_PAIR_PLANE, 5000);
  stats_assert(&st);
  /* denormal entries and the largest doubles that still give finite singular values */
  cl_mat3 D = cl_mat3_diag(cl_vec3_make(4e-320, 1e-321, -5e-324));
  cl_mat3 U, V;
  cl_vec3 s;
  assert_int_equal(cl_svd3(&D, &U, &s, &V), CL_OK);
  assert_true(s.x == 4e-320 && s.y == 1e-321 && s.z == -5e-324);
  cl_mat3 H = cl_mat3_diag(cl_vec3_make(DBL_MAX, 0.5 * DBL_MAX, -0.25 * DBL_MAX));
  assert_int_equal(cl_svd3(&H, &U, &s, &V), CL_OK);
  assert_true(s.x == DBL_MAX && s.z == -0.25 * DBL_MAX);
  /* singular values that overflow are an error, not Inf */
  cl_mat3 O;
  for (int k = 0; k < 9; ++k) O.m[k] = DBL_MAX;
  assert_int_equal(cl_svd3(&O, &U, &s, &V), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "overflow"));
}

/* ---- bad input ---------------------------------------------------------------------------- */

static void test_nonfinite_rejected(void **state) {
  (void)state;
  const double bad[3] = {NAN, INFINITY, -INFINITY};
  for (int b = 0; b < 3; ++b)
    for (int pos = 0; pos < 9; ++pos) {
      cl_mat3 A = cl_mat3_identity(), U, V, R, S, Q;
      cl_vec3 s;
      A.m[pos] = bad[b];
      cl_clear_error();
      assert_int_equal(cl_svd3(&A, &U, &s, &V), CL_ERR_INVALID_ARGUMENT);
      assert_non_null(strstr(cl_last_error(), "NaN or Inf"));
      assert_int_equal(cl_polar3(&A, &R, &S), CL_ERR_INVALID_ARGUMENT);
      assert_int_equal(cl_eig_sym3(&A, &s, &Q), CL_ERR_INVALID_ARGUMENT);
      assert_int_equal(cl_pinv3(&A, 1e-12, &R), CL_ERR_INVALID_ARGUMENT);
      assert_int_equal(cl_rotation_gram_schmidt(&A, &R), CL_ERR_INVALID_ARGUMENT);
      assert_int_equal(cl_mat3_inverse(&A, &R), CL_ERR_INVALID_ARGUMENT);
    }
  cl_mat3 A = cl_mat3_identity(), U, V;
  cl_vec3 s;
  assert_int_equal(cl_svd3(NULL, &U, &s, &V), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_svd3(&A, NULL, &s, &V), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_eig_sym3(&A, NULL, &U), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_pinv3(&A, 0.1, NULL), CL_ERR_INVALID_ARGUMENT);
  /* thresholds outside [0, 1] */
  assert_int_equal(cl_pinv3(&A, -1e-3, &U), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "threshold"));
  assert_int_equal(cl_pinv3(&A, 1.5, &U), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_pinv3(&A, NAN, &U), CL_ERR_INVALID_ARGUMENT);
}

/* ---- polar -------------------------------------------------------------------------------- */

static void test_polar(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 8);
  double worst_rec = 0.0, worst_orth = 0.0, worst_det = 0.0;
  cl_mat3 worst = cl_mat3_zero();
  for (int i = 0; i < N_PER_CATEGORY; ++i) {
    double s[3];
    cl_svd_case_log_svals(&r, 1e-3, 1e1, s);
    int kind = i % 4; /* 0 generic, 1 inverted, 2 rank 2, 3 rank 1 */
    double d3 = kind == 1 ? -s[2] : kind >= 2 ? 0.0 : s[2];
    double d2 = kind == 3 ? 0.0 : s[1];
    cl_mat3 P = cl_rng_rotation(&r), Q = cl_rng_rotation(&r);
    cl_mat3 A = usvt(&P, cl_vec3_make(s[0], d2, d3), &Q);
    cl_mat3 R, S;
    assert_int_equal(cl_polar3(&A, &R, &S), CL_OK);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) assert_true(S.m[3 * a + b] == S.m[3 * b + a]); /* exactly symmetric */
    cl_mat3 RS = cl_mat3_mul(&R, &S);
    double rec = rel_err(&A, &RS), orth = orth_err(&R), det = fabs(cl_mat3_det(&R) - 1.0);
    if (rec > worst_rec || orth > worst_orth || det > worst_det) worst = A;
    worst_rec = fmax(worst_rec, rec), worst_orth = fmax(worst_orth, orth), worst_det = fmax(worst_det, det);
    if (kind == 0) {
      /* full rank, det > 0: the polar factors are unique, R = P Q^T and S is positive definite */
      cl_mat3 R0 = cl_mat3_mul_nt(&P, &Q);
      double err = diff_fro(&R, &R0, 1.0);
      if (!(err <= 1e-8 * s[0] / s[2])) {
        print_mat("A", &A);
        fail_msg("polar rotation differs from P Q^T by %g", err);
      }
      cl_vec3 ev;
      assert_int_equal(cl_eig_sym3(&S, &ev, NULL), CL_OK);
      assert_true(ev.z > 0.0);
    }
  }
  if (!(worst_rec <= TOL_REC && worst_orth <= TOL_ORTH && worst_det <= TOL_DET)) {
    print_mat("A", &worst);
    fail_msg("polar: reconstruction %g, orthonormality %g, |det R - 1| %g", worst_rec, worst_orth, worst_det);
  }
  /* Near-rotations (the corotational solver's usual input, served by the Newton fast path) and
   * scaled ones must agree with the SVD route R = U V^T, S = V diag(sigma) V^T. */
  for (int i = 0; i < 5000; ++i) {
    cl_mat3 P = cl_rng_rotation(&r), E = cl_mat3_identity();
    double amp = (i % 3 == 0) ? 0.01 : (i % 3 == 1) ? 0.1 : 0.4;
    for (int k = 0; k < 9; ++k) E.m[k] += amp * cl_rng_normal(&r);
    double sc = (i % 5 == 0) ? 1e-300 : (i % 5 == 1) ? 1e300 : (i % 5 == 2) ? 3.7 : 1.0;
    cl_mat3 A = cl_mat3_mul(&P, &E);
    A = cl_mat3_scale(&A, sc);
    cl_mat3 R, S, U, V;
    cl_vec3 s;
    assert_int_equal(cl_polar3(&A, &R, &S), CL_OK);
    assert_int_equal(cl_svd3(&A, &U, &s, &V), CL_OK);
    cl_mat3 R2 = cl_mat3_mul_nt(&U, &V), D = cl_mat3_diag(s), VD = cl_mat3_mul(&V, &D);
    cl_mat3 S2 = cl_mat3_mul_nt(&VD, &V);
    cl_mat3 RS = cl_mat3_mul(&R, &S);
    double cond = fabs(s.x / s.z);
    double er = diff_fro(&R, &R2, 1.0), es = rel_err(&S2, &S), rec = rel_err(&A, &RS);
    if (!(er <= 1e-13 * cond && es <= 1e-13 * cond && rec <= TOL_REC && orth_err(&R) <= TOL_ORTH &&
          fabs(cl_mat3_det(&R) - 1.0) <= TOL_DET)) {
      print_mat("A", &A);
      fail_msg("polar vs SVD route: |R - U V^T| %g, |S - V diag V^T| %g, reconstruction %g (condition %g)", er,
               es, rec, cond);
    }
  }
  /* a stretch that overflows is an error, not Inf */
  cl_mat3 Big = cl_mat3_identity();
  Big.m[0] = Big.m[1] = Big.m[3] = Big.m[4] = DBL_MAX;
  Big.m[1] = -DBL_MAX;
  {
    cl_mat3 R, S;
    assert_int_equal(cl_polar3(&Big, &R, &S), CL_ERR_NUMERICAL);
  }
  /* one output may be NULL */
  cl_mat3 A = cl_mat3_diag(cl_vec3_make(2, 3, 4)), R;
  assert_int_equal(cl_polar3(&A, &R, NULL), CL_OK);
  cl_mat3 I = cl_mat3_identity();
  assert_true(diff_fro(&R, &I, 1.0) < 1e-15);
}

/* cl_polar3_near: the polar factor of the SVD route for nearly orthogonal matrices (defect up to
 * 0.2), the bound it reports on the singular values, and a refusal (R untouched) otherwise. */
static void test_polar_near(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 13);
  int taken = 0;
  for (int i = 0; i < 6000; ++i) {
    cl_mat3 P = cl_rng_rotation(&r), E = cl_mat3_identity();
    static const double amps[6] = {0.0, 1e-14, 1e-9, 1e-4, 1e-2, 0.06};
    const double amp = amps[i % 6];
    for (int k = 0; k < 9; ++k) E.m[k] += amp * cl_rng_normal(&r);
    cl_mat3 A = cl_mat3_mul(&P, &E);
    cl_mat3 R = cl_mat3_zero(), U, V;
    cl_vec3 s;
    double delta = -1.0;
    assert_int_equal(cl_svd3(&A, &U, &s, &V), CL_OK);
    cl_mat3 AtA = cl_mat3_mul_tn(&A, &A), I = cl_mat3_identity();
    const double defect = diff_fro(&AtA, &I, 1.0);
    const int ok = cl_polar3_near(&A, &R, &delta);
    assert_int_equal(ok, defect <= 0.2 && s.z > 0.0); /* taken exactly when it may be */
    if (!ok) {
      assert_true(diff_fro(&R, &(cl_mat3){{0}}, 1.0) == 0.0); /* untouched */
      continue;
    }
    ++taken;
    cl_mat3 R2 = cl_mat3_mul_nt(&U, &V);
    const double er = diff_fro(&R, &R2, 1.0);
    if (!(er <= 1e-14 && orth_err(&R) <= TOL_ORTH && fabs(cl_mat3_det(&R) - 1.0) <= TOL_DET)) {
      print_mat("A", &A);
      fail_msg("polar3_near: |R - U V^T| %g, orthonormality %g", er, orth_err(&R));
    }
    /* sqrt(1 - delta) <= sigma_i <= sqrt(1 + delta) */
    assert_true(fabs(delta - defect) <= 1e-15);
    assert_true(s.z >= sqrt(1.0 - delta) * (1.0 - 1e-15) && s.x <= sqrt(1.0 + delta) * (1.0 + 1e-15));
  }
  assert_true(taken > 4500); /* the 0.06 amplitude is sometimes beyond 0.2 */
  /* refused: too far from orthogonal, a reflection, NaN / Inf */
  cl_mat3 R = cl_mat3_identity();
  const cl_mat3 far = cl_mat3_diag(cl_vec3_make(1.2, 1.0, 1.0)), refl = cl_mat3_diag(cl_vec3_make(1.0, 1.0, -1.0));
  assert_int_equal(cl_polar3_near(&far, &R, NULL), 0);
  assert_int_equal(cl_polar3_near(&refl, &R, NULL), 0);
  cl_mat3 bad = cl_mat3_identity();
  bad.m[4] = NAN;
  assert_int_equal(cl_polar3_near(&bad, &R, NULL), 0);
  bad.m[4] = INFINITY;
  assert_int_equal(cl_polar3_near(&bad, &R, NULL), 0);
  /* an exact rotation comes back bitwise after its single step (3 I - I) / 2 = I */
  cl_mat3 Q = cl_rng_rotation(&r), Rq;
  double dq;
  assert_int_equal(cl_polar3_near(&Q, &Rq, &dq), 1);
  assert_true(dq < 1e-15 && diff_fro(&Rq, &Q, 1.0) <= 4e-16);
}

/* ---- symmetric eigen ---------------------------------------------------------------------- */

static void test_eig_sym(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 9);
  double worst_res = 0.0, worst_orth = 0.0, worst_val = 0.0;
  cl_mat3 worst = cl_mat3_zero();
  for (int i = 0; i < N_PER_CATEGORY; ++i) {
    double l[3];
    for (int k = 0; k < 3; ++k) l[k] = cl_rng_range(&r, -10.0, 10.0);
    switch (i % 5) {
      case 1: l[1] = l[0]; break;                       /* double eigenvalue */
      case 2: l[1] = l[2] = l[0]; break;                /* isotropic */
      case 3: l[2] = 0.0; break;                        /* singular */
      case 4: l[1] = l[0] * (1.0 + 1e-10); break;       /* nearly double */
      default: break;
    }
    double scale = (i % 7 == 0) ? 1e-200 : (i % 7 == 1) ? 1e200 : 1.0;
    cl_mat3 Q = cl_rng_rotation(&r);
    cl_mat3 A = usvt(&Q, cl_vec3_make(l[0] * scale, l[1] * scale, l[2] * scale), &Q);
    if (i % 3 == 0) { /* a non-symmetric input: only its symmetric part counts */
      double k = cl_rng_normal(&r) * scale;
      A.m[1] += k, A.m[3] -= k;
    }
    cl_vec3 ev;
    cl_mat3 E;
    assert_int_equal(cl_eig_sym3(&A, &ev, &E), CL_OK);
    if (!(ev.x >= ev.y && ev.y >= ev.z)) {
      print_mat("A", &A);
      fail_msg("eigenvalues not descending: %g %g %g", ev.x, ev.y, ev.z);
    }
    cl_mat3 Asym = cl_mat3_sym(&A);
    double amax = cl_mat3_max_abs(&Asym), nrm = fro_scaled(&Asym, amax);
    double res = 0.0;
    for (int j = 0; j < 3; ++j) {
      cl_vec3 v = cl_mat3_col(&E, j);
      cl_vec3 Av = cl_mat3_mul_vec(&Asym, v);
      cl_vec3 lv = cl_vec3_scale(v, cl_vec3_get(ev, j));
      cl_vec3 d = cl_vec3_scale(cl_vec3_sub(Av, lv), 1.0 / amax);
      res = fmax(res, cl_vec3_norm(d) / nrm);
    }
    /* sorted truth */
    double t[3] = {l[0] * scale, l[1] * scale, l[2] * scale};
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2 - a; ++b)
        if (t[b] < t[b + 1]) {
          double x = t[b];
          t[b] = t[b + 1];
          t[b + 1] = x;
        }
    double val = fmax(fmax(fabs(ev.x - t[0]), fabs(ev.y - t[1])), fabs(ev.z - t[2])) / (amax * nrm);
    double orth = fmax(orth_err(&E), fabs(cl_mat3_det(&E) - 1.0));
    if (res > worst_res || orth > worst_orth || val > worst_val) worst = A;
    worst_res = fmax(worst_res, res), worst_orth = fmax(worst_orth, orth), worst_val = fmax(worst_val, val);
  }
  if (!(worst_res <= 1e-12 && worst_orth <= TOL_ORTH && worst_val <= 1e-12)) {
    print_mat("A", &worst);
    fail_msg("eig: residual %g, orthonormality/det %g, eigenvalue error %g", worst_res, worst_orth, worst_val);
  }
  /* diagonal input: exact values, and the evecs argument may be NULL */
  cl_mat3 D = cl_mat3_diag(cl_vec3_make(-1, 5, 2));
  cl_vec3 ev;
  assert_int_equal(cl_eig_sym3(&D, &ev, NULL), CL_OK);
  assert_true(ev.x == 5 && ev.y == 2 && ev.z == -1);
  /* antisymmetric input has a zero symmetric part */
  cl_mat3 W = {{0, 1, -2, -1, 0, 3, 2, -3, 0}}, E;
  assert_int_equal(cl_eig_sym3(&W, &ev, &E), CL_OK);
  assert_true(ev.x == 0 && ev.y == 0 && ev.z == 0);
  assert_true(fabs(cl_mat3_det(&E) - 1.0) < 1e-15);
}

/* ---- pseudo-inverse ----------------------------------------------------------------------- */

static void test_pinv(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 10);
  const double thr = 1e-6;
  for (int i = 0; i < 5000; ++i) {
    double s[3];
    cl_svd_case_log_svals(&r, 1e-2, 1e2, s);
    int kind = i % 5;
    int expect_clamped;
    /* 0: well conditioned; 1: sigma_3 ten times above the cut; 2: ten times below it;
     * 3: rank 2; 4: rank 1 */
    switch (kind) {
      case 1: s[2] = 10.0 * thr * s[0], expect_clamped = 0; break;
      case 2: s[2] = 0.1 * thr * s[0], expect_clamped = 1; break;
      case 3: s[2] = 0.0, expect_clamped = 1; break;
      case 4: s[1] = s[2] = 0.0, expect_clamped = 2; break;
      default: expect_clamped = (s[2] <= thr * s[0]); break;
    }
    double sign = (i % 2) ? -1.0 : 1.0;
    cl_mat3 A = cl_svd_case_with_svals(&r, s[0], s[1], sign * s[2]), P;
    cl_clear_error();
    cl_status st = cl_pinv3(&A, thr, &P);
    if (expect_clamped) {
      if (st != CL_WARN_CLAMPED) {
        print_mat("A", &A);
        fail_msg("pinv: expected CL_WARN_CLAMPED, got %s (s = %g %g %g)", cl_status_name(st), s[0], s[1], s[2]);
      }
      char want[32];
      snprintf(want, sizeof want, "%d of 3", expect_clamped);
      if (!strstr(cl_last_error(), want)) fail_msg("pinv message '%s' lacks '%s'", cl_last_error(), want);
    } else if (st != CL_OK) {
      print_mat("A", &A);
      fail_msg("pinv: expected CL_OK, got %s (s = %g %g %g)", cl_status_name(st), s[0], s[1], s[2]);
    }
    /* Penrose conditions A P A = A and P A P = P hold for the clamped inverse of a rank-deficient
     * matrix too (for kind 2 only to the size of what was dropped). */
    cl_mat3 AP = cl_mat3_mul(&A, &P), APA = cl_mat3_mul(&AP, &A);
    cl_mat3 PA = cl_mat3_mul(&P, &A), PAP = cl_mat3_mul(&PA, &P);
    double tol = kind == 2 ? 1e-6 : TOL_REC;
    double e1 = rel_err(&A, &APA), e2 = rel_err(&P, &PAP);
    if (!(e1 <= tol && e2 <= (kind == 1 ? 1e-6 : TOL_REC))) {
      print_mat("A", &A);
      fail_msg("pinv (kind %d): ||A A+ A - A|| = %g, ||A+ A A+ - A+|| = %g", kind, e1, e2);
    }
    if (kind == 0 && !expect_clamped) { /* a true inverse: A P = I */
      cl_mat3 I = cl_mat3_identity();
      double e = diff_fro(&AP, &I, 1.0);
      if (!(e <= 1e-10 * s[0] / s[2])) fail_msg("pinv of an invertible matrix: ||A A+ - I|| = %g", e);
    }
  }
  /* zero matrix: all three clamped, zero result; threshold 0 clamps only exact zeros */
  cl_mat3 Z = cl_mat3_zero(), P;
  assert_int_equal(cl_pinv3(&Z, 0.0, &P), CL_WARN_CLAMPED);
  assert_non_null(strstr(cl_last_error(), "3 of 3"));
  for (int k = 0; k < 9; ++k) assert_true(P.m[k] == 0.0);
  cl_mat3 D = cl_mat3_diag(cl_vec3_make(4, 2, 1e-200));
  assert_int_equal(cl_pinv3(&D, 0.0, &P), CL_OK);
  assert_true(fabs(P.m[8] * 1e-200 - 1.0) < 1e-15);
  D.m[8] = 0.0;
  assert_int_equal(cl_pinv3(&D, 0.0, &P), CL_WARN_CLAMPED);
  assert_true(P.m[0] == 0.25 && P.m[4] == 0.5 && P.m[8] == 0.0);
  /* an inverse that overflows is an error, never Inf */
  D.m[8] = 1e-310;
  assert_int_equal(cl_pinv3(&D, 0.0, &P), CL_ERR_NUMERICAL);
}

/* ---- Gram-Schmidt rotation and inverse ---------------------------------------------------- */

static void test_gram_schmidt(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 11);
  for (int i = 0; i < 5000; ++i) {
    cl_mat3 F;
    for (int k = 0; k < 9; ++k) F.m[k] = cl_rng_normal(&r);
    if (i % 10 == 0) F = cl_rng_rotation(&r); /* a rotation is its own Gram-Schmidt rotation */
    cl_mat3 R;
    assert_int_equal(cl_rotation_gram_schmidt(&F, &R), CL_OK);
    double orth = orth_err(&R), det = fabs(cl_mat3_det(&R) - 1.0);
    /* F = R T with T upper triangular and a positive first two diagonal entries */
    cl_mat3 T = cl_mat3_mul_tn(&R, &F);
    double fn = cl_mat3_frobenius(&F);
    double lower = fmax(fmax(fabs(T.m[3]), fabs(T.m[6])), fabs(T.m[7])) / fn;
    if (!(orth <= TOL_ORTH && det <= TOL_DET && lower <= 1e-12 && T.m[0] > 0 && T.m[4] > 0)) {
      print_mat("F", &F);
      fail_msg("Gram-Schmidt: orthonormality %g, |det - 1| %g, lower part of R^T F %g", orth, det, lower);
    }
    if (i % 10 == 0) {
      double e = diff_fro(&R, &F, 1.0);
      if (!(e <= 1e-14)) fail_msg("Gram-Schmidt of a rotation moved it by %g", e);
    }
  }
  /* degenerate columns: fall back to the polar rotation, still proper */
  cl_mat3 cases[4] = {
      {{0, 1, 0, 0, 0, 1, 0, 0, 0}},        /* zero first column */
      {{1, 2, 0, 1, 2, 0, 1, 2, 5}},        /* second column parallel to the first */
      {{1e-20, 0, 0, 0, 1, 0, 0, 0, 1}},    /* first column collapsed to 1e-20 */
      {{0, 0, 0, 0, 0, 0, 0, 0, 0}},        /* zero: identity */
  };
  for (int c = 0; c < 4; ++c) {
    cl_mat3 R;
    assert_int_equal(cl_rotation_gram_schmidt(&cases[c], &R), CL_OK);
    assert_true(orth_err(&R) <= TOL_ORTH);
    assert_true(fabs(cl_mat3_det(&R) - 1.0) <= TOL_DET);
    cl_mat3 Rp;
    assert_int_equal(cl_polar3(&cases[c], &Rp, NULL), CL_OK);
    assert_true(diff_fro(&R, &Rp, 1.0) <= 1e-14);
  }
  /* an inverted F still gives a proper rotation */
  cl_mat3 Finv = cl_mat3_diag(cl_vec3_make(1, 1, -1)), R;
  assert_int_equal(cl_rotation_gram_schmidt(&Finv, &R), CL_OK);
  cl_mat3 I = cl_mat3_identity();
  assert_true(diff_fro(&R, &I, 1.0) == 0.0);
}

static void test_inverse(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 12);
  cl_mat3 I = cl_mat3_identity();
  for (int i = 0; i < 2000; ++i) {
    double s[3];
    cl_svd_case_log_svals(&r, 1e-2, 1e2, s);
    double sc = (i % 3 == 0) ? 1e-200 : (i % 3 == 1) ? 1e200 : 1.0;
    cl_mat3 A = cl_svd_case_with_svals(&r, s[0] * sc, s[1] * sc, ((i % 2) ? -1 : 1) * s[2] * sc), B;
    assert_int_equal(cl_mat3_inverse(&A, &B), CL_OK);
    cl_mat3 AB = cl_mat3_mul(&A, &B);
    double e = diff_fro(&AB, &I, 1.0);
    if (!(e <= 1e-12 * s[0] / s[2])) {
      print_mat("A", &A);
      fail_msg("inverse: ||A A^-1 - I|| = %g (condition %g)", e, s[0] / s[2]);
    }
  }
  cl_mat3 S = {{1, 2, 3, 4, 5, 6, 7, 8, 9}}, B; /* singular */
  assert_int_equal(cl_mat3_inverse(&S, &B), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "singular"));
  for (int k = 0; k < 9; ++k) assert_true(B.m[k] == 0.0);
  cl_mat3 Z = cl_mat3_zero();
  assert_int_equal(cl_mat3_inverse(&Z, &B), CL_ERR_NUMERICAL);
  /* two small singular values: det / ||A||^3 is 1e-16, but the condition number only 1e8 */
  cl_mat3 T = cl_mat3_diag(cl_vec3_make(1.0, 1e-8, 1e-8));
  assert_int_equal(cl_mat3_inverse(&T, &B), CL_OK);
  assert_true(fabs(B.m[4] * 1e-8 - 1.0) < 1e-15 && fabs(B.m[8] * 1e-8 - 1.0) < 1e-15);
  T.m[8] = 1e-16; /* condition 1e16 */
  assert_int_equal(cl_mat3_inverse(&T, &B), CL_ERR_NUMERICAL);
}

/* ---- basics, RNG, timer ------------------------------------------------------------------- */

static void test_basics(void **state) {
  (void)state;
  cl_mat3 A = {{1, 2, 3, 4, 5, 6, 7, 8, 10}}, B = {{2, 0, 1, 1, 3, 0, 0, 1, 4}};
  cl_mat3 AB = cl_mat3_mul(&A, &B);
  cl_mat3 want = {{4, 9, 13, 13, 21, 28, 22, 34, 47}};
  for (int k = 0; k < 9; ++k) assert_true(AB.m[k] == want.m[k]);
  cl_mat3 At = cl_mat3_transpose(&A);
  cl_mat3 AtB = cl_mat3_mul_tn(&A, &B), AtB2 = cl_mat3_mul(&At, &B);
  cl_mat3 ABt = cl_mat3_mul_nt(&A, &B), Bt = cl_mat3_transpose(&B), ABt2 = cl_mat3_mul(&A, &Bt);
  for (int k = 0; k < 9; ++k) assert_true(AtB.m[k] == AtB2.m[k] && ABt.m[k] == ABt2.m[k]);
  assert_true(cl_mat3_det(&A) == -3.0);
  assert_true(cl_mat3_trace(&A) == 16.0);
  cl_vec3 v = cl_mat3_mul_vec(&A, cl_vec3_make(1, 0, -1));
  assert_true(v.x == -2 && v.y == -2 && v.z == -3);
  cl_vec3 w = cl_mat3_tmul_vec(&A, cl_vec3_make(1, 0, -1));
  assert_true(w.x == -6 && w.y == -6 && w.z == -7);
  cl_mat3 O = cl_mat3_outer(cl_vec3_make(1, 2, 3), cl_vec3_make(4, 5, 6)), O2 = cl_mat3_zero();
  cl_mat3_add_outer(&O2, 2.0, cl_vec3_make(1, 2, 3), cl_vec3_make(4, 5, 6));
  assert_true(O.m[5] == 12 && O.m[7] == 15 && O2.m[5] == 24);
  assert_true(cl_mat3_frobenius(&B) == sqrt(32.0));
  assert_true(cl_mat3_isfinite(&A));
  cl_vec3 c = cl_vec3_cross(cl_vec3_make(1, 0, 0), cl_vec3_make(0, 1, 0));
  assert_true(c.x == 0 && c.y == 0 && c.z == 1);
  cl_vec3 z = cl_vec3_normalize(cl_vec3_zero());
  assert_true(z.x == 0 && z.y == 0 && z.z == 0); /* no NaN for the zero vector */
  cl_vec3 n = cl_vec3_normalize(cl_vec3_make(3, 0, 4));
  assert_true(fabs(n.x - 0.6) < 1e-15 && fabs(n.z - 0.8) < 1e-15);
  double arr[9] = {0};
  cl_vec3_store(arr, 2, cl_vec3_make(7, 8, 9));
  cl_vec3 l = cl_vec3_load(arr, 2);
  assert_true(arr[6] == 7 && l.y == 8 && l.z == 9);
}

static void test_rng(void **state) {
  (void)state;
  cl_rng a, b;
  cl_rng_seed(&a, 42);
  cl_rng_seed(&b, 42);
  for (int i = 0; i < 100; ++i) assert_true(cl_rng_u64(&a) == cl_rng_u64(&b));
  cl_rng_seed(&b, 43);
  assert_true(cl_rng_u64(&a) != cl_rng_u64(&b));
  /* seed 0 is a valid seed */
  cl_rng_seed(&a, 0);
  uint64_t x = 0;
  for (int i = 0; i < 4; ++i) x |= cl_rng_u64(&a);
  assert_true(x != 0);
  /* moments: 200k samples give standard errors ~0.0006 (uniform mean) and ~0.002 (normal) */
  cl_rng_seed(&a, 7);
  const int n = 200000;
  double su = 0, sn = 0, sn2 = 0;
  uint64_t counts[7] = {0};
  for (int i = 0; i < n; ++i) {
    double u = cl_rng_uniform(&a);
    assert_true(u >= 0.0 && u < 1.0);
    su += u;
    double g = cl_rng_normal(&a);
    sn += g, sn2 += g * g;
    uint64_t k = cl_rng_below(&a, 7);
    assert_true(k < 7);
    counts[k]++;
    double rr = cl_rng_range(&a, -3.0, 5.0);
    assert_true(rr >= -3.0 && rr < 5.0);
  }
  assert_true(fabs(su / n - 0.5) < 0.005);
  assert_true(fabs(sn / n) < 0.02);
  assert_true(fabs(sn2 / n - 1.0) < 0.02);
  for (int k = 0; k < 7; ++k) assert_true(fabs((double)counts[k] / n - 1.0 / 7.0) < 0.01);
  /* rotations: proper; unit vectors: unit, mean near zero (uniform on the sphere) */
  cl_vec3 mean = cl_vec3_zero();
  cl_mat3 mr = cl_mat3_zero();
  for (int i = 0; i < 20000; ++i) {
    cl_mat3 R = cl_rng_rotation(&a);
    assert_true(orth_err(&R) < 1e-14);
    assert_true(fabs(cl_mat3_det(&R) - 1.0) < 1e-14);
    mr = cl_mat3_add(&mr, &R);
    cl_vec3 u = cl_rng_unit_vector(&a);
    assert_true(fabs(cl_vec3_norm(u) - 1.0) < 1e-15);
    mean = cl_vec3_add(mean, u);
  }
  assert_true(cl_vec3_norm(mean) / 20000 < 0.03);
  /* Haar measure: E[R] = 0 */
  assert_true(cl_mat3_max_abs(&mr) / 20000 < 0.03);
}

/* Rodrigues: a quarter turn about z takes x to y; any rotation vector gives an orthonormal proper
 * matrix that keeps its axis and turns by its length; zero and non-finite vectors give I. */
static void test_rotation_vector(void **state) {
  (void)state;
  double Q[9];
  const double z[3] = {0.0, 0.0, 1.0};
  cl_rotation_axis_angle(z, 2.0 * atan(1.0), Q);
  assert_true(fabs(Q[0]) < 1e-15 && fabs(Q[3] - 1.0) < 1e-15 && fabs(Q[6]) < 1e-15); /* Q e_x = e_y */
  const double phi[3] = {0.3, -1.2, 0.7};
  cl_rotation_vector(phi, Q);
  cl_mat3 R;
  memcpy(R.m, Q, sizeof Q);
  cl_mat3 RtR = cl_mat3_mul_tn(&R, &R);
  for (int k = 0; k < 9; ++k) assert_true(fabs(RtR.m[k] - (k % 4 == 0 ? 1.0 : 0.0)) < 1e-14);
  assert_true(fabs(cl_mat3_det(&R) - 1.0) < 1e-14);
  const cl_vec3 axis = cl_vec3_make(phi[0], phi[1], phi[2]);
  const cl_vec3 turned = cl_mat3_mul_vec(&R, axis);
  assert_true(cl_vec3_norm(cl_vec3_sub(turned, axis)) < 1e-14);
  const double th = cl_vec3_norm(axis), tr = R.m[0] + R.m[4] + R.m[8]; /* tr R = 1 + 2 cos th */
  assert_true(fabs(tr - (1.0 + 2.0 * cos(th))) < 1e-14);
  const double zero[3] = {0.0, 0.0, 0.0}, bad[3] = {NAN, 0.0, 1.0};
  cl_rotation_vector(zero, Q);
  for (int k = 0; k < 9; ++k) assert_true(Q[k] == (k % 4 == 0 ? 1.0 : 0.0));
  cl_rotation_vector(bad, Q);
  for (int k = 0; k < 9; ++k) assert_true(Q[k] == (k % 4 == 0 ? 1.0 : 0.0));
}

static void test_timer(void **state) {
  (void)state;
  uint64_t t0 = cl_time_ns();
  volatile double sink = 0.0;
  for (int i = 0; i < 100000; ++i) sink += sqrt((double)i);
  uint64_t t1 = cl_time_ns();
  assert_true(t0 > 0 && t1 > t0);
  double m = cl_time_ms();
  assert_true(m >= (double)t1 * 1e-6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_basics),           cmocka_unit_test(test_svd_generic),
      cmocka_unit_test(test_svd_near_singular), cmocka_unit_test(test_svd_rank_deficient),
      cmocka_unit_test(test_svd_rank0),         cmocka_unit_test(test_svd_repeated),
      cmocka_unit_test(test_svd_inverted),      cmocka_unit_test(test_svd_gaussian),
      cmocka_unit_test(test_svd_extreme_scales), cmocka_unit_test(test_nonfinite_rejected),
      cmocka_unit_test(test_polar),             cmocka_unit_test(test_polar_near),
      cmocka_unit_test(test_eig_sym),
      cmocka_unit_test(test_pinv),              cmocka_unit_test(test_gram_schmidt),
      cmocka_unit_test(test_inverse),           cmocka_unit_test(test_rng),
      cmocka_unit_test(test_timer),             cmocka_unit_test(test_rotation_vector),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
