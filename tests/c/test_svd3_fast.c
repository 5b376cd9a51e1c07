/* cl_svd3_fast against its contract (the one of cl_svd3) and against cl_svd3 itself.
 *
 * Every matrix goes through both functions. cl_svd3_fast must meet explicit tolerances, stated in
 * units of eps = DBL_EPSILON, that are far tighter than test_mat3's application-level ones:
 * relative reconstruction ||U S V^T - A||_F / ||A||_F, orthonormality ||Q^T Q - I||_F of U and V,
 * |det - 1|, and agreement of the singular values with cl_svd3's, |s_fast - s_svd3| <= tol s_1
 * (singular values are perfectly conditioned, so two backward-stable SVDs agree to a few eps of
 * s_1). It must also stay within a small factor of cl_svd3's own worst case in the category (so a
 * loose absolute tolerance cannot hide a regression). Ordering and sign rules fail at once.
 *
 * Set CLEAVE_SVD3_FAST_REPORT=1 to print each category's worst figures for both functions. */
#include <float.h>
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
#include "base/mat3.h"
#include "base/rng.h"
#include "support/svd_cases.h"

#define EPS DBL_EPSILON
/* Tolerances for cl_svd3_fast, in eps: cl_svd3 itself reaches ~22 eps of orthonormality on the
 * exactly rank-1 integer matrices (U from rounding noise), so 32 eps. */
#define TOL_REC (32.0 * EPS)
#define TOL_ORTH (32.0 * EPS)
#define TOL_DET (32.0 * EPS)
#define TOL_AGREE (16.0 * EPS)
/* ... and relative to cl_svd3's worst in the same category (floor 4 eps). */
#define REL_FACTOR 3.0

static void print_mat(const char *name, const cl_mat3 *a) {
  print_message("  %s = [%.17g %.17g %.17g;\n        %.17g %.17g %.17g;\n        %.17g %.17g %.17g]\n", name, a->m[0],
                a->m[1], a->m[2], a->m[3], a->m[4], a->m[5], a->m[6], a->m[7], a->m[8]);
}

/* ||Q^T Q - I||_F */
static double orth_err(const cl_mat3 *q) {
  cl_mat3 qtq = cl_mat3_mul_tn(q, q);
  double s = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double d = qtq.m[3 * i + j] - (i == j ? 1.0 : 0.0);
      s += d * d;
    }
  return sqrt(s);
}

/* ||U diag(s) V^T - A||_F / ||A||_F, on everything divided by max|a_ij| (extreme scales). */
static double rec_err(const cl_mat3 *A, const cl_mat3 *U, cl_vec3 s, const cl_mat3 *V) {
  double amax = cl_mat3_max_abs(A);
  if (amax == 0.0) return fabs(s.x) + fabs(s.y) + fabs(s.z);
  double sv[3] = {s.x / amax, s.y / amax, s.z / amax}, num = 0.0, den = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double r = 0.0;
      for (int k = 0; k < 3; ++k) r += U->m[3 * i + k] * sv[k] * V->m[3 * j + k];
      double a = A->m[3 * i + j] / amax, d = r - a;
      num += d * d;
      den += a * a;
    }
  return sqrt(num / den);
}

typedef struct metrics {
  double rec, orth, det, agree;
} metrics;

typedef struct category {
  const char *name;
  metrics fast, ref; /* worst over the category: cl_svd3_fast, cl_svd3 */
  cl_mat3 worst_A;   /* the matrix with the worst fast/tolerance ratio */
  double worst_ratio;
  int n, polished_pass;
} category;

static void cat_init(category *c, const char *name) {
  memset(c, 0, sizeof *c);
  c->name = name;
}

static void metrics_of(const cl_mat3 *A, const cl_mat3 *U, cl_vec3 s, const cl_mat3 *V, metrics *m) {
  m->rec = rec_err(A, U, s, V);
  m->orth = fmax(orth_err(U), orth_err(V));
  m->det = fmax(fabs(cl_mat3_det(U) - 1.0), fabs(cl_mat3_det(V) - 1.0));
}

static void keep_max(metrics *w, const metrics *m) {
  w->rec = fmax(w->rec, m->rec);
  w->orth = fmax(w->orth, m->orth);
  w->det = fmax(w->det, m->det);
  w->agree = fmax(w->agree, m->agree);
}

/* The contract's ordering and sign rules; det_sign is the known sign of det A (0: unknown). */
static void check_order(const category *c, const cl_mat3 *A, cl_vec3 s, int det_sign) {
  if (!(s.x >= s.y && s.y >= fabs(s.z) && s.y >= 0.0)) {
    print_mat("A", A);
    fail_msg("%s: singular values out of order or sign rule broken: %.17g %.17g %.17g", c->name, s.x, s.y, s.z);
  }
  if (det_sign != 0 && (s.z == 0.0 || (s.z < 0.0) != (det_sign < 0))) {
    print_mat("A", A);
    fail_msg("%s: sigma_3 = %.17g does not carry the sign of det A (%d)", c->name, s.z, det_sign);
  }
}

static void check(category *c, const cl_mat3 *A, int det_sign) {
  cl_mat3 U, V, Ur, Vr;
  cl_vec3 s, sr;
  cl_status rc = cl_svd3_fast(A, &U, &s, &V);
  if (rc != CL_OK) {
    print_mat("A", A);
    fail_msg("%s: cl_svd3_fast returned %s: %s", c->name, cl_status_name(rc), cl_last_error());
  }
  assert_int_equal(cl_svd3(A, &Ur, &sr, &Vr), CL_OK);
  check_order(c, A, s, det_sign);
  metrics mf, mr;
  metrics_of(A, &U, s, &V, &mf);
  metrics_of(A, &Ur, sr, &Vr, &mr);
  double scale = fabs(sr.x) > 0.0 ? fabs(sr.x) : 1.0;
  mf.agree = fmax(fmax(fabs(s.x - sr.x), fabs(s.y - sr.y)), fabs(s.z - sr.z)) / scale;
  mr.agree = 0.0;
  double ratio = fmax(fmax(mf.rec / TOL_REC, mf.orth / TOL_ORTH), fmax(mf.det / TOL_DET, mf.agree / TOL_AGREE));
  if (!(ratio <= c->worst_ratio)) { /* also catches NaN */
    c->worst_ratio = ratio;
    c->worst_A = *A;
  }
  keep_max(&c->fast, &mf);
  keep_max(&c->ref, &mr);
  c->n++;
}

/* n matrices of category `kind` from r (support/svd_cases.c, the ones test_mat3 checks cl_svd3 on). */
static void check_cases(category *c, cl_rng *r, cl_svd_case_kind kind, int n) {
  for (int i = 0; i < n; ++i) {
    cl_svd_case k;
    cl_svd_case_make(kind, i, r, &k);
    check(c, &k.A, k.det_sign);
  }
}

static void cat_assert(const category *c) {
  if (getenv("CLEAVE_SVD3_FAST_REPORT"))
    print_message("%-34s n=%6d  fast: rec %5.2f orth %5.2f det %5.2f agree %5.2f | svd3: rec %5.2f orth %5.2f det %5.2f "
                  "(eps)\n",
                  c->name, c->n, c->fast.rec / EPS, c->fast.orth / EPS, c->fast.det / EPS, c->fast.agree / EPS,
                  c->ref.rec / EPS, c->ref.orth / EPS, c->ref.det / EPS);
  const double floor = 4.0 * EPS;
  int abs_ok = c->worst_ratio <= 1.0;
  int rel_ok = c->fast.rec <= REL_FACTOR * fmax(c->ref.rec, floor) &&
               c->fast.orth <= REL_FACTOR * fmax(c->ref.orth, floor) &&
               c->fast.det <= REL_FACTOR * fmax(c->ref.det, floor);
  if (!abs_ok || !rel_ok) {
    print_message("%s (%d matrices): fast rec %.3g orth %.3g det %.3g agree %.3g; cl_svd3 rec %.3g orth %.3g det %.3g\n",
                  c->name, c->n, c->fast.rec, c->fast.orth, c->fast.det, c->fast.agree, c->ref.rec, c->ref.orth,
                  c->ref.det);
    print_mat("worst A", &c->worst_A);
    fail_msg("%s: %s", c->name, abs_ok ? "worse than cl_svd3 by more than the allowed factor" : "tolerance exceeded");
  }
}

#define N 20000

/* R (I + E), E with N(0, strain^2) entries, strain log-uniform in 1e-4 .. 0.2; with `flip` one axis
 * of I + E (by i % 3) is flipped, inverting A. */
static cl_mat3 near_rotation(cl_rng *r, int i, int flip) {
  double strain = pow(10.0, cl_rng_range(r, -4.0, log10(0.2)));
  cl_mat3 E = cl_mat3_identity();
  for (int k = 0; k < 9; ++k) E.m[k] += strain * cl_rng_normal(r);
  if (flip) E.m[8 - 4 * (i % 3)] *= -1.0;
  cl_mat3 R = cl_rng_rotation(r);
  return cl_mat3_mul(&R, &E);
}

/* The solver's case: deformation gradients R (I + E), strains 1e-4 .. 0.2, some inverted. */
static void test_near_rotations(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 11);
  category c;
  cat_init(&c, "near rotations R (I + E)");
  for (int i = 0; i < N; ++i) {
    cl_mat3 A = near_rotation(&r, i, 0);
    check(&c, &A, 1);
  }
  cat_assert(&c);
  cat_init(&c, "inverted near rotations");
  for (int i = 0; i < N; ++i) {
    cl_mat3 A = near_rotation(&r, i, 1);
    check(&c, &A, -1);
  }
  cat_assert(&c);
}

static void test_generic_and_gaussian(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 12);
  category c;
  cat_init(&c, "generic (s in 1e-2 .. 1e2)");
  check_cases(&c, &r, CL_SVD_CASE_GENERIC, N);
  cat_assert(&c);
  cat_init(&c, "Gaussian entries");
  check_cases(&c, &r, CL_SVD_CASE_GAUSSIAN, N);
  cat_assert(&c);
}

static void test_repeated(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 13);
  category c;
  cat_init(&c, "repeated / nearly repeated");
  check_cases(&c, &r, CL_SVD_CASE_REPEATED, N);
  /* exact: identity, reflection, scaled rotation */
  cl_mat3 I = cl_mat3_identity(), M = cl_mat3_identity();
  M.m[4] = -1.0;
  check(&c, &I, 1);
  check(&c, &M, -1);
  cl_mat3 Q = cl_rng_rotation(&r), Q3 = cl_mat3_scale(&Q, 3.0);
  check(&c, &Q3, 1);
  cat_assert(&c);
  cl_mat3 U, V;
  cl_vec3 s;
  assert_int_equal(cl_svd3_fast(&M, &U, &s, &V), CL_OK);
  assert_true(s.x == 1.0 && s.y == 1.0 && s.z == -1.0);
}

static void test_rank_deficient(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 14);
  category c;
  cat_init(&c, "rank 2 / rank 1 / near-singular");
  check_cases(&c, &r, CL_SVD_CASE_RANK_DEFICIENT, N);
  cat_assert(&c);
  /* exactly rank deficient integers: the zero singular values at rounding level */
  cat_init(&c, "rank 2 / rank 1 (exact integers)");
  for (int i = 0; i < N; ++i) {
    cl_svd_case k;
    cl_svd_case_make(CL_SVD_CASE_EXACT_INTEGER, i, &r, &k);
    check(&c, &k.A, 0);
    cl_mat3 U, V;
    cl_vec3 s;
    assert_int_equal(cl_svd3_fast(&k.A, &U, &s, &V), CL_OK);
    if (!(fabs(s.z) <= 8.0 * EPS * s.x) || (k.exact_rank <= 1 && !(s.y <= 8.0 * EPS * s.x))) {
      print_mat("A", &k.A);
      fail_msg("exact rank deficiency missed: sigma = %.17g %.17g %.17g", s.x, s.y, s.z);
    }
  }
  cat_assert(&c);
  /* rank 0: identities and zeros, also for negative zeros */
  cl_mat3 Z = cl_mat3_zero(), U, V;
  cl_vec3 s;
  for (int k = 0; k < 9; k += 2) Z.m[k] = -0.0;
  assert_int_equal(cl_svd3_fast(&Z, &U, &s, &V), CL_OK);
  assert_true(s.x == 0.0 && s.y == 0.0 && s.z == 0.0);
  assert_true(orth_err(&U) == 0.0 && orth_err(&V) == 0.0);
}

static void test_extreme_scales(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 15);
  category c;
  cat_init(&c, "scales 1e-305 .. 1e300, graded");
  check_cases(&c, &r, CL_SVD_CASE_SCALED, N);
  check_cases(&c, &r, CL_SVD_CASE_GRADED_ROWS, 2000);
  check_cases(&c, &r, CL_SVD_CASE_TINY_PAIR, 5000); /* Gram entries underflow */
  cat_assert(&c);
  /* denormal entries, the largest finite singular values, and overflow as an error */
  cl_mat3 D = cl_mat3_diag(cl_vec3_make(4e-320, 1e-321, -5e-324)), U, V;
  cl_vec3 s;
  assert_int_equal(cl_svd3_fast(&D, &U, &s, &V), CL_OK);
  assert_true(s.x == 4e-320 && s.y == 1e-321 && s.z == -5e-324);
  cl_mat3 H = cl_mat3_diag(cl_vec3_make(DBL_MAX, 0.5 * DBL_MAX, -0.25 * DBL_MAX));
  assert_int_equal(cl_svd3_fast(&H, &U, &s, &V), CL_OK);
  assert_true(s.x == DBL_MAX && s.y == 0.5 * DBL_MAX && s.z == -0.25 * DBL_MAX);
  cl_mat3 O;
  for (int k = 0; k < 9; ++k) O.m[k] = DBL_MAX;
  assert_int_equal(cl_svd3_fast(&O, &U, &s, &V), CL_ERR_NUMERICAL);
  assert_non_null(strstr(cl_last_error(), "overflow"));
}

/* Structured matrices that steer the closed-form start into its fallbacks: wildly scaled
 * entries, zeros, repeated or opposite columns, permutations and diagonals with ties. */
static void test_structured(void **state) {
  (void)state;
  cl_rng r;
  cl_rng_seed(&r, 17);
  category c;
  cat_init(&c, "structured (zeros, ties, scales)");
  for (int i = 0; i < N; ++i) {
    cl_mat3 A;
    for (int k = 0; k < 9; ++k) {
      double x = cl_rng_normal(&r) * pow(10.0, cl_rng_range(&r, -8.0, 8.0));
      A.m[k] = cl_rng_below(&r, 4) == 0 ? 0.0 : x;
    }
    switch (i % 5) {
      case 0: /* a column repeated, possibly negated */
        for (int k = 0; k < 3; ++k) A.m[3 * k + 2] = (i % 2 ? -1.0 : 1.0) * A.m[3 * k];
        break;
      case 1: { /* signed permutation times a diagonal with small integer entries (ties likely) */
        int perm = (int)cl_rng_below(&r, 6);
        static const int P[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        A = cl_mat3_zero();
        for (int k = 0; k < 3; ++k)
          A.m[3 * k + P[perm][k]] = (double)((int)cl_rng_below(&r, 5) - 2);
        break;
      }
      case 2: /* uniaxial: two equal singular values */
        A = cl_svd_case_with_svals(&r, cl_rng_range(&r, 0.5, 2.0), 1.0, (i % 2) ? -1.0 : 1.0);
        break;
      default: break;
    }
    check(&c, &A, 0);
  }
  cat_assert(&c);
}

/* The contract's error returns, and outputs that alias the input. */
static void test_bad_input_and_aliasing(void **state) {
  (void)state;
  cl_mat3 A = cl_mat3_identity(), U, V;
  cl_vec3 s;
  assert_int_equal(cl_svd3_fast(NULL, &U, &s, &V), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "NULL"));
  assert_int_equal(cl_svd3_fast(&A, NULL, &s, &V), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_svd3_fast(&A, &U, NULL, &V), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_svd3_fast(&A, &U, &s, NULL), CL_ERR_INVALID_ARGUMENT);
  const double bad[3] = {NAN, INFINITY, -INFINITY};
  for (int b = 0; b < 3; ++b)
    for (int k = 0; k < 9; ++k) {
      cl_mat3 X = cl_mat3_identity();
      X.m[k] = bad[b];
      assert_int_equal(cl_svd3_fast(&X, &U, &s, &V), CL_ERR_INVALID_ARGUMENT);
      assert_non_null(strstr(cl_last_error(), "NaN or Inf"));
    }
  /* U and V may be the input itself: everything is read before anything is written */
  cl_rng r;
  cl_rng_seed(&r, 16);
  for (int i = 0; i < 100; ++i) {
    cl_mat3 M, X, Y, Ur, Vr;
    for (int k = 0; k < 9; ++k) M.m[k] = cl_rng_normal(&r);
    cl_vec3 sr;
    assert_true(cl_svd3_fast(&M, &Ur, &sr, &Vr) >= 0);
    X = M, Y = M;
    assert_true(cl_svd3_fast(&X, &X, &s, &V) >= 0);
    assert_memory_equal(&X, &Ur, sizeof X);
    assert_true(cl_svd3_fast(&Y, &U, &s, &Y) >= 0);
    assert_memory_equal(&Y, &Vr, sizeof Y);
    assert_memory_equal(&s, &sr, sizeof s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_near_rotations),  cmocka_unit_test(test_generic_and_gaussian),
      cmocka_unit_test(test_repeated),        cmocka_unit_test(test_rank_deficient),
      cmocka_unit_test(test_extreme_scales),  cmocka_unit_test(test_structured),
      cmocka_unit_test(test_bad_input_and_aliasing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
