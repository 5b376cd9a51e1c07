#include "support/svd_cases.h"

#include <math.h>
#include <string.h>

static cl_mat3 usvt(const cl_mat3 *P, double s1, double s2, double s3, const cl_mat3 *Q) {
  cl_mat3 D = cl_mat3_diag(cl_vec3_make(s1, s2, s3));
  cl_mat3 T = cl_mat3_mul(P, &D);
  return cl_mat3_mul_nt(&T, Q);
}

cl_mat3 cl_svd_case_with_svals(cl_rng *r, double s1, double s2, double s3) {
  cl_mat3 P = cl_rng_rotation(r), Q = cl_rng_rotation(r);
  return usvt(&P, s1, s2, s3, &Q);
}

void cl_svd_case_log_svals(cl_rng *r, double lo, double hi, double *s) {
  for (int k = 0; k < 3; ++k) s[k] = exp(cl_rng_range(r, log(lo), log(hi)));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2 - i; ++j)
      if (s[j] < s[j + 1]) {
        double t = s[j];
        s[j] = s[j + 1];
        s[j + 1] = t;
      }
}

/* A from known singular values (the sign of det on the last). */
static void from_svals(cl_rng *r, double s1, double s2, double s3, int det_sign, cl_svd_case *c) {
  c->A = cl_svd_case_with_svals(r, s1, s2, s3);
  c->s[0] = s1, c->s[1] = s2, c->s[2] = s3;
  c->known = 1;
  c->det_sign = det_sign;
}

static void repeated(int32_t i, cl_rng *r, cl_svd_case *c) {
  double a = cl_rng_range(r, 0.5, 2.0), b = a * cl_rng_range(r, 0.01, 0.9);
  /* 1 + 1e-8 and 1 + 10^-(6..15): from clearly separated to equal in double */
  double near = (i % 2) ? 1.0 + 1e-8 : 1.0 + pow(10.0, -cl_rng_range(r, 6.0, 15.0));
  double s[3];
  switch (i % 7) {
    case 0: s[0] = a, s[1] = a, s[2] = b; break;                   /* s1 = s2 */
    case 1: s[0] = a, s[1] = b, s[2] = b; break;                   /* s2 = s3 */
    case 2: s[0] = a, s[1] = a, s[2] = a; break;                   /* all equal: a scaled rotation */
    case 3: s[0] = a * near, s[1] = a, s[2] = b; break;            /* s1 ~ s2 */
    case 4: s[0] = a, s[1] = b * near, s[2] = b; break;            /* s2 ~ s3 */
    case 5: s[0] = a * near * near, s[1] = a * near, s[2] = a; break; /* all three close */
    default: s[0] = a * near, s[1] = a, s[2] = a; break;           /* s1 ~ s2 = s3 */
  }
  int neg = (i / 7) % 2;
  from_svals(r, s[0], s[1], neg ? -s[2] : s[2], neg ? -1 : 1, c);
}

static void inverted(cl_rng *r, cl_svd_case *c) {
  double s[3];
  cl_svd_case_log_svals(r, 1e-2, 1e2, s);
  /* any odd number of negative values in any position: det A < 0, and the SVD must put the sign on
   * the smallest one */
  double d[3] = {s[0], s[1], s[2]};
  int pattern = (int)cl_rng_below(r, 4); /* which entries to negate: {0},{1},{2},{0,1,2} */
  if (pattern == 3)
    d[0] = -d[0], d[1] = -d[1], d[2] = -d[2];
  else
    d[pattern] = -d[pattern];
  /* shuffle positions so the sign is not always on the diagonal's last entry */
  int p = (int)cl_rng_below(r, 3);
  double t = d[p];
  d[p] = d[2];
  d[2] = t;
  c->A = cl_svd_case_with_svals(r, d[0], d[1], d[2]);
  c->s[0] = s[0], c->s[1] = s[1], c->s[2] = -s[2];
  c->known = 1;
  c->det_sign = -1;
}

/* Exactly rank-deficient: small integers, a dependent third row (rank <= 2) or an outer product
 * (rank <= 1): every entry and the dependency are exact in double. */
static void exact_integer(int32_t i, cl_rng *r, cl_svd_case *c) {
  cl_mat3 *A = &c->A;
  if (i % 2) {
    for (int k = 0; k < 6; ++k) A->m[k] = (double)((int)cl_rng_below(r, 21) - 10);
    int a = (int)cl_rng_below(r, 7) - 3, b = (int)cl_rng_below(r, 7) - 3;
    for (int k = 0; k < 3; ++k) A->m[6 + k] = a * A->m[k] + b * A->m[3 + k];
  } else {
    double u[3], v[3];
    for (int k = 0; k < 3; ++k) u[k] = (double)((int)cl_rng_below(r, 21) - 10);
    for (int k = 0; k < 3; ++k) v[k] = (double)((int)cl_rng_below(r, 21) - 10);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) A->m[3 * a + b] = u[a] * v[b];
  }
  c->exact_rank = (i % 2) ? 2 : 1;
}

/* A big singular value beside a tiny, nearly repeated pair (1e-70 .. 1e-82 of it): a Jacobi
 * rotation of the tiny pair works on squares near the subnormal range, where a rotation that is not
 * renormalised loses orthogonality (test_mat3 caught such a bug). */
static void tiny_pair(int plane, cl_rng *r, cl_svd_case *c) {
  double sc = pow(10.0, -cl_rng_range(r, 70.0, 82.0)), gap = pow(10.0, -cl_rng_range(r, 1.0, 12.0));
  cl_mat3 P = cl_rng_rotation(r), Q = cl_rng_rotation(r);
  if (plane) { /* keep only the rotations' action on the y-z plane: R(e_x) = e_x */
    double cp = P.m[4] / hypot(P.m[4], P.m[5]), sp = P.m[5] / hypot(P.m[4], P.m[5]);
    double cq = Q.m[4] / hypot(Q.m[4], Q.m[5]), sq = Q.m[5] / hypot(Q.m[4], Q.m[5]);
    cl_mat3 Rp = {{1, 0, 0, 0, cp, -sp, 0, sp, cp}}, Rq = {{1, 0, 0, 0, cq, -sq, 0, sq, cq}};
    P = Rp, Q = Rq;
  }
  c->A = usvt(&P, 1.0, sc * (1.0 + gap), sc, &Q);
  c->s[0] = 1.0, c->s[1] = sc * (1.0 + gap), c->s[2] = sc;
  c->known = 1;
  /* in the block-diagonal form det A is the tiny block's determinant and keeps its sign; mixed
   * by full rotations, sigma_3 ~ 1e-70 sigma_1 is zero to working precision */
  c->det_sign = plane ? 1 : 0;
}

void cl_svd_case_make(cl_svd_case_kind kind, int32_t i, cl_rng *r, cl_svd_case *out) {
  cl_svd_case *c = out;
  memset(c, 0, sizeof *c);
  c->exact_rank = 3;
  switch (kind) {
    case CL_SVD_CASE_GENERIC: {
      double s[3];
      cl_svd_case_log_svals(r, 1e-2, 1e2, s);
      from_svals(r, s[0], s[1], s[2], 1, c);
      break;
    }
    case CL_SVD_CASE_NEAR_SINGULAR: {
      double s[3];
      s[0] = cl_rng_range(r, 0.5, 2.0);
      /* smallest relative singular value 1e-6 .. 1e-12; every fourth also has a tiny middle one */
      s[2] = s[0] * pow(10.0, -cl_rng_range(r, 6.0, 12.0));
      s[1] = (i % 4 == 0) ? s[2] * cl_rng_range(r, 1.0, 1e3) : s[0] * cl_rng_range(r, 0.01, 1.0);
      double sign = (i % 2) ? -1.0 : 1.0;
      /* the sign of a 1e-12 relative sigma_3 survives the rounding of A only when sigma_3 is well
       * above eps * s1: known from 1e-10 up */
      from_svals(r, s[0], s[1], sign * s[2], s[2] > 1e-10 * s[0] ? (int)sign : 0, c);
      break;
    }
    case CL_SVD_CASE_RANK_DEFICIENT: {
      double s1 = cl_rng_range(r, 0.1, 10.0), s2, s3;
      switch (i % 3) {
        case 0: s2 = s1 * cl_rng_range(r, 1e-3, 1.0), s3 = 0.0; break;
        case 1: s2 = 0.0, s3 = 0.0; break;
        default: /* graded: 1e-6 .. 1e-12 */
          s3 = s1 * pow(10.0, -cl_rng_range(r, 6.0, 12.0));
          s2 = (i % 2) ? s3 * cl_rng_range(r, 1.0, 1e3) : s1 * cl_rng_range(r, 0.01, 1.0);
          break;
      }
      from_svals(r, s1, s2, s3, 0, c);
      break;
    }
    case CL_SVD_CASE_EXACT_INTEGER: exact_integer(i, r, c); break;
    case CL_SVD_CASE_REPEATED: repeated(i, r, c); break;
    case CL_SVD_CASE_INVERTED: inverted(r, c); break;
    case CL_SVD_CASE_GAUSSIAN: {
      for (int k = 0; k < 9; ++k) c->A.m[k] = cl_rng_normal(r);
      double d = cl_mat3_det(&c->A);
      c->det_sign = fabs(d) > 1e-8 ? (d > 0 ? 1 : -1) : 0;
      break;
    }
    case CL_SVD_CASE_SCALED: {
      static const double scales[] = {1e-150, 1e150, 1e-300, 1e300, 1e-305};
      double sc = scales[i % 5], s[3];
      cl_svd_case_log_svals(r, 1e-2, 1e2, s);
      if (i % 3 == 0) s[2] = 0.0;
      double sign = (i % 2) ? -1.0 : 1.0;
      c->A = cl_svd_case_with_svals(r, s[0], s[1], sign * s[2]);
      c->A = cl_mat3_scale(&c->A, sc);
      c->s[0] = s[0] * sc, c->s[1] = s[1] * sc, c->s[2] = sign * s[2] * sc;
      c->known = 1;
      c->det_sign = s[2] > 0.0 ? (int)sign : 0;
      break;
    }
    case CL_SVD_CASE_GRADED_ROWS: /* a tet squashed by 1e-150 along one axis: sigma_3 is zero to
                                   * working precision, so no sign */
      for (int k = 0; k < 9; ++k) c->A.m[k] = cl_rng_normal(r) * (k < 3 ? 1e150 : k < 6 ? 1.0 : 1e-150);
      break;
    case CL_SVD_CASE_TINY_PAIR: tiny_pair(0, r, c); break;
    case CL_SVD_CASE_TINY_PAIR_PLANE: tiny_pair(1, r, c); break;
    default: c->A = cl_mat3_identity(), c->s[0] = c->s[1] = c->s[2] = 1.0, c->known = 1, c->det_sign = 1; break;
  }
}
