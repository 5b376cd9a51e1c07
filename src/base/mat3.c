/* 3x3 inverse, and the decompositions built on the signed SVD (svd3.c): polar, pseudo-inverse,
 * and the Gram-Schmidt rotation with its polar fallback. */
#include "base/mat3.h"

#include <math.h>
#include <string.h>

#include "base/error.h"

#define CL_MAT3_FMT "[%g %g %g; %g %g %g; %g %g %g]"
#define CL_MAT3_ARGS(a) (a)->m[0], (a)->m[1], (a)->m[2], (a)->m[3], (a)->m[4], (a)->m[5], (a)->m[6], (a)->m[7], (a)->m[8]

cl_status cl_mat3_inverse(const cl_mat3 *a, cl_mat3 *out) {
  if (!a || !out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mat3_inverse: NULL argument");
  if (!cl_mat3_isfinite(a))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mat3_inverse: matrix has a NaN or Inf entry " CL_MAT3_FMT,
                   CL_MAT3_ARGS(a));
  double amax = cl_mat3_max_abs(a);
  if (amax == 0.0) {
    *out = cl_mat3_zero();
    return cl_fail(CL_ERR_NUMERICAL, "cl_mat3_inverse: the zero matrix has no inverse");
  }
  /* Work on B = 2^-e A (exact), whose largest entry is in [0.5, 1), so det and ||B||^3 neither
   * overflow nor underflow; then A^-1 = 2^-e B^-1. */
  int e = cl_exponent_of(amax);
  const int fast_scale = e > -1000 && e < 1000;
  double b[9];
  if (fast_scale) {
    double sc = cl_pow2i(-e);
    for (int i = 0; i < 9; ++i) b[i] = a->m[i] * sc;
  } else {
    for (int i = 0; i < 9; ++i) b[i] = ldexp(a->m[i], -e);
  }
  /* Adjugate (transposed cofactors). */
  double c[9] = {b[4] * b[8] - b[5] * b[7], b[2] * b[7] - b[1] * b[8], b[1] * b[5] - b[2] * b[4],
                 b[5] * b[6] - b[3] * b[8], b[0] * b[8] - b[2] * b[6], b[2] * b[3] - b[0] * b[5],
                 b[3] * b[7] - b[4] * b[6], b[1] * b[6] - b[0] * b[7], b[0] * b[4] - b[1] * b[3]};
  double det = b[0] * c[0] + b[1] * c[3] + b[2] * c[6];
  double f2 = 0.0, c2 = 0.0;
  for (int i = 0; i < 9; ++i) {
    f2 += b[i] * b[i];
    c2 += c[i] * c[i];
  }
  /* Condition number kappa_F = ||B||_F ||B^-1||_F = ||B||_F ||adj B||_F / |det B|: from 1e15 on
   * the inverse carries no correct digit. (No overflow: entries of B and adj B are below 1 and 2.) */
  double fc = sqrt(f2 * c2);
  if (!(fabs(det) > 1e-15 * fc)) {
    *out = cl_mat3_zero();
    return cl_fail(CL_ERR_NUMERICAL,
                   "cl_mat3_inverse: matrix is singular (condition number %g >= 1e15) " CL_MAT3_FMT,
                   fabs(det) > 0.0 ? fc / fabs(det) : INFINITY, CL_MAT3_ARGS(a));
  }
  cl_mat3 r;
  double inv = 1.0 / det;
  if (fast_scale) {
    double sc = cl_pow2i(-e);
    for (int i = 0; i < 9; ++i) r.m[i] = (c[i] * inv) * sc;
  } else {
    for (int i = 0; i < 9; ++i) r.m[i] = ldexp(c[i] * inv, -e);
  }
  for (int i = 0; i < 9; ++i)
    if (!isfinite(r.m[i])) {
      *out = cl_mat3_zero();
      return cl_fail(CL_ERR_NUMERICAL, "cl_mat3_inverse: the inverse overflows a double " CL_MAT3_FMT,
                     CL_MAT3_ARGS(a));
    }
  *out = r;
  return CL_OK;
}

/* max |(Q^T Q - I)_ij| */
static double orth_defect(const cl_mat3 *q) {
  cl_mat3 qtq = cl_mat3_mul_tn(q, q);
  double e = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double d = fabs(qtq.m[3 * i + j] - (i == j ? 1.0 : 0.0));
      if (d > e) e = d;
    }
  return e;
}

/* V diag(d) W^T. */
static cl_mat3 vdw(const cl_mat3 *V, cl_vec3 d, const cl_mat3 *W) {
  cl_mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[3 * i + j] = V->m[3 * i] * d.x * W->m[3 * j] + V->m[3 * i + 1] * d.y * W->m[3 * j + 1] +
                       V->m[3 * i + 2] * d.z * W->m[3 * j + 2];
  return r;
}

/* Fast path of the polar decomposition for the common case (a well-conditioned A with det A > 0,
 * e.g. the deformation gradient of an element that is neither inverted nor crushed): Newton's
 * iteration for the orthogonal polar factor, X <- (zeta X + X^{-T} / zeta) / 2 (Higham 1986,
 * "Computing the polar decomposition with applications", eq. 3.1). X^{-T} is the cofactor
 * matrix over det X, so an iteration is ~40 flops and one division, and a near-rotation
 * converges in about 4 iterations, several times cheaper than the Jacobi SVD. All iterates share
 * A's singular vectors (X_k = U f_k(Sigma) V^T), so the limit is the U V^T of the SVD: the polar
 * factor of a nonsingular A with det A > 0 is unique.
 * Scaling: X starts at ||X||_F^2 = 3 (singular values of root-mean-square 1); while X is far
 * from orthogonal (det X < 0.9 (||X||_F^2 / 3)^{3/2}, where det <= that bound with equality only
 * for a scaled rotation) the Frobenius scaling zeta = (||X^{-1}||_F / ||X||_F)^{1/2} of Higham
 * sec. 3 is used, and switched off near convergence to keep the quadratic rate.
 * X0 is A scaled to a largest entry in [0.5, 1). Returns 0 (caller uses the SVD) when A is
 * inverted, nearly singular, or the iteration misbehaves. */
static int polar_newton(const cl_mat3 *X0, cl_mat3 *R) {
  double x[9], c[9];
  double x2 = (X0->m[0] * X0->m[0] + X0->m[1] * X0->m[1] + X0->m[2] * X0->m[2]) +
              (X0->m[3] * X0->m[3] + X0->m[4] * X0->m[4] + X0->m[5] * X0->m[5]) +
              (X0->m[6] * X0->m[6] + X0->m[7] * X0->m[7] + X0->m[8] * X0->m[8]);
  double det0 = cl_mat3_det(X0);
  /* det / ||X||_F^3 <= (sigma_3 / sigma_1) / (3 sqrt 3): below 1e-6 (condition ~1e5 and worse)
   * or for det <= 0 the SVD is the robust choice. */
  if (!(det0 > 1e-6 * x2 * sqrt(x2))) return 0;
  double pre = sqrt(3.0 / x2);
  for (int i = 0; i < 9; ++i) x[i] = X0->m[i] * pre;
  x2 = 3.0;
  for (int it = 0; it < 20; ++it) {
    c[0] = x[4] * x[8] - x[5] * x[7], c[1] = x[5] * x[6] - x[3] * x[8], c[2] = x[3] * x[7] - x[4] * x[6];
    c[3] = x[2] * x[7] - x[1] * x[8], c[4] = x[0] * x[8] - x[2] * x[6], c[5] = x[1] * x[6] - x[0] * x[7];
    c[6] = x[1] * x[5] - x[2] * x[4], c[7] = x[2] * x[3] - x[0] * x[5], c[8] = x[0] * x[4] - x[1] * x[3];
    double det = x[0] * c[0] + x[1] * c[1] + x[2] * c[2]; /* cof(X) = det X^{-T} */
    if (!(det > 0.0)) return 0;
    double zeta = 1.0;
    if (27.0 * det * det < 0.81 * x2 * x2 * x2) {
      /* ||X^{-1}||_F^2 = c2 / det^2, so zeta = (c2 / (det^2 x2))^{1/4}. Sums by rows: three
       * short chains instead of one long one (the iteration is latency bound). */
      double c2 = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) + (c[3] * c[3] + c[4] * c[4] + c[5] * c[5]) +
                  (c[6] * c[6] + c[7] * c[7] + c[8] * c[8]);
      zeta = sqrt(sqrt(c2 / (det * det * x2)));
    }
    double a = 0.5 * zeta, b = 0.5 / (zeta * det);
    double dr[3] = {0, 0, 0}, xr[3] = {0, 0, 0};
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) {
        int i = 3 * r + k;
        double xn = a * x[i] + b * c[i];
        double d = xn - x[i];
        dr[r] += d * d;
        xr[r] += xn * xn;
        x[i] = xn;
      }
    double d2 = dr[0] + dr[1] + dr[2];
    x2 = xr[0] + xr[1] + xr[2];
    /* Unscaled Newton near an orthogonal matrix: the error after a step is about half the square
     * of the step (Higham eq. 3.3 with ||X^{-1}|| ~ 1), so a step below 1e-8 leaves ~5e-17. */
    if (zeta == 1.0 && d2 < 1e-16) {
      for (int i = 0; i < 9; ++i) R->m[i] = x[i];
      /* Safety net: accept only an orthonormal result. */
      return orth_defect(R) <= 1e-14;
    }
  }
  return 0;
}

/* ||X^T X - I||_F of the row-major x, with X^T X in c (symmetric: six products of columns). */
static double gram_defect(const double *x, double *c) {
  c[0] = x[0] * x[0] + x[3] * x[3] + x[6] * x[6];
  c[4] = x[1] * x[1] + x[4] * x[4] + x[7] * x[7];
  c[8] = x[2] * x[2] + x[5] * x[5] + x[8] * x[8];
  c[1] = c[3] = x[0] * x[1] + x[3] * x[4] + x[6] * x[7];
  c[2] = c[6] = x[0] * x[2] + x[3] * x[5] + x[6] * x[8];
  c[5] = c[7] = x[1] * x[2] + x[4] * x[5] + x[7] * x[8];
  const double d0 = c[0] - 1.0, d1 = c[4] - 1.0, d2 = c[8] - 1.0;
  return sqrt((d0 * d0 + d1 * d1 + d2 * d2) + 2.0 * (c[1] * c[1] + c[2] * c[2] + c[5] * c[5]));
}

int cl_polar3_near(const cl_mat3 *A, cl_mat3 *R, double *delta) {
  double x[9], c[9];
  memcpy(x, A->m, sizeof x);
  const double d0 = gram_defect(x, c);
  /* NaN fails the first test; det > 0 rules out the improper limit (a reflection) */
  if (!(d0 <= 0.2) || !(cl_mat3_det(A) > 0.0)) return 0;
  double d = d0;
  for (int it = 0; it < 8; ++it) {
    /* X (3 I - C) / 2, with C = X^T X from the last defect */
    double m[9];
    for (int k = 0; k < 9; ++k) m[k] = -0.5 * c[k];
    m[0] += 1.5, m[4] += 1.5, m[8] += 1.5;
    double y[9];
    for (int r = 0; r < 3; ++r) {
      const double a = x[3 * r], b = x[3 * r + 1], e = x[3 * r + 2];
      y[3 * r] = a * m[0] + b * m[3] + e * m[6];
      y[3 * r + 1] = a * m[1] + b * m[4] + e * m[7];
      y[3 * r + 2] = a * m[2] + b * m[5] + e * m[8];
    }
    memcpy(x, y, sizeof x);
    /* a defect d before the step leaves about 0.375 d^2 after it: below rounding for d <= 1e-8 */
    if (d <= 1e-8) {
      memcpy(R->m, x, sizeof x);
      if (delta) *delta = d0;
      return 1;
    }
    d = gram_defect(x, c);
    if (!(d < 0.2)) return 0;
  }
  return 0;
}

cl_status cl_polar3(const cl_mat3 *A, cl_mat3 *R, cl_mat3 *S) {
  if (!A) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_polar3: A is NULL");
  if (!cl_mat3_isfinite(A))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_polar3: matrix has a NaN or Inf entry " CL_MAT3_FMT, CL_MAT3_ARGS(A));
  double amax = cl_mat3_max_abs(A);
  int e = cl_exponent_of(amax);
  if (amax > 0.0 && e > -1000 && e < 1000) {
    cl_mat3 X = cl_mat3_scale(A, cl_pow2i(-e)), Rn;
    if (polar_newton(&X, &Rn)) {
      cl_mat3 t = cl_mat3_mul_tn(&Rn, A); /* R^T A, symmetric up to the iteration's error */
      if (!cl_mat3_isfinite(&t))
        return cl_fail(CL_ERR_NUMERICAL, "cl_polar3: the stretch overflows a double (max |a_ij| = %g)", amax);
      if (S) *S = cl_mat3_sym(&t);
      if (R) *R = Rn;
      return CL_OK;
    }
  }
  cl_mat3 U, V;
  cl_vec3 s;
  cl_status st = cl_svd3_fast(A, &U, &s, &V);
  if (st < 0) return cl_fail_context(st, "cl_polar3: ");
  if (R) *R = cl_mat3_mul_nt(&U, &V);
  if (S) {
    cl_mat3 t = vdw(&V, s, &V);
    /* Computed entry by entry, t_ij and t_ji differ only in the order of roundings; average so S
     * is symmetric to the last bit, as the stress computations assume. */
    *S = cl_mat3_sym(&t);
  }
  return st;
}

cl_status cl_pinv3(const cl_mat3 *A, double threshold, cl_mat3 *Ainv) {
  if (!Ainv) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_pinv3: Ainv is NULL");
  cl_status st = cl_check_range("threshold", threshold, 0.0, 1.0);
  if (st < 0) return cl_fail_context(st, "cl_pinv3: ");
  cl_mat3 U, V;
  cl_vec3 s;
  st = cl_svd3_fast(A, &U, &s, &V);
  if (st < 0) return cl_fail_context(st, "cl_pinv3: ");
  double cut = threshold * fabs(s.x); /* |s.x| is the largest magnitude */
  double sv[3] = {s.x, s.y, s.z}, inv[3];
  int clamped = 0;
  for (int k = 0; k < 3; ++k) {
    if (fabs(sv[k]) <= cut) {
      inv[k] = 0.0;
      ++clamped;
    } else {
      inv[k] = 1.0 / sv[k];
    }
  }
  cl_mat3 r = vdw(&V, cl_vec3_make(inv[0], inv[1], inv[2]), &U);
  if (!cl_mat3_isfinite(&r)) {
    *Ainv = cl_mat3_zero();
    return cl_fail(CL_ERR_NUMERICAL,
                   "cl_pinv3: the pseudo-inverse overflows a double (singular values %g %g %g, threshold %g)", s.x,
                   s.y, s.z, threshold);
  }
  *Ainv = r;
  if (clamped)
    return cl_fail(CL_WARN_CLAMPED,
                   "cl_pinv3: %d of 3 singular values clamped to zero (|sigma| <= threshold %g * max %g; "
                   "singular values %g %g %g)",
                   clamped, threshold, fabs(s.x), s.x, s.y, s.z);
  return st;
}

#define GS_DEGENERATE 1e-8

cl_status cl_rotation_gram_schmidt(const cl_mat3 *F, cl_mat3 *R) {
  if (!F || !R) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_rotation_gram_schmidt: NULL argument");
  if (!cl_mat3_isfinite(F))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_rotation_gram_schmidt: matrix has a NaN or Inf entry " CL_MAT3_FMT,
                   CL_MAT3_ARGS(F));
  double amax = cl_mat3_max_abs(F);
  if (amax == 0.0) {
    *R = cl_mat3_identity();
    return CL_OK;
  }
  /* Only directions matter, so any scaling is harmless; a power of two avoids overflow in the
   * squared norms for huge or tiny F. */
  int e = cl_exponent_of(amax);
  cl_mat3 B;
  if (e > -1000 && e < 1000) {
    B = cl_mat3_scale(F, cl_pow2i(-e));
  } else {
    for (int i = 0; i < 9; ++i) B.m[i] = ldexp(F->m[i], -e);
  }
  double small = GS_DEGENERATE * cl_mat3_frobenius(&B);
  cl_vec3 c0 = cl_mat3_col(&B, 0), c1 = cl_mat3_col(&B, 1);
  double n0 = cl_vec3_norm(c0);
  if (n0 > small) {
    cl_vec3 r0 = cl_vec3_scale(c0, 1.0 / n0);
    cl_vec3 w = cl_vec3_madd(c1, -cl_vec3_dot(r0, c1), r0);
    w = cl_vec3_madd(w, -cl_vec3_dot(r0, w), r0); /* second pass: orthogonal to rounding */
    double n1 = cl_vec3_norm(w);
    if (n1 > small) {
      cl_vec3 r1 = cl_vec3_scale(w, 1.0 / n1);
      *R = cl_mat3_from_cols(r0, r1, cl_vec3_cross(r0, r1));
      return CL_OK;
    }
  }
  /* A collapsed first column or first two columns: their directions are noise, so use the polar
   * rotation, defined for any F (the signed SVD keeps it proper). */
  cl_status st = cl_polar3(&B, R, NULL);
  if (st < 0) return cl_fail_context(st, "cl_rotation_gram_schmidt: ");
  return CL_OK;
}

void cl_rotation_axis_angle(const double a[3], double th, double Q[9]) {
  const double c = cos(th), s = sin(th);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Q[3 * i + j] = (i == j ? c : 0.0) + (1.0 - c) * a[i] * a[j];
  Q[1] -= s * a[2];
  Q[2] += s * a[1];
  Q[3] += s * a[2];
  Q[5] -= s * a[0];
  Q[6] -= s * a[1];
  Q[7] += s * a[0];
}

void cl_rotation_vector(const double phi[3], double Q[9]) {
  const double th = sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
  if (!(th > 0.0) || !isfinite(th)) {
    for (int k = 0; k < 9; ++k) Q[k] = (k % 4 == 0) ? 1.0 : 0.0;
    return;
  }
  const double a[3] = {phi[0] / th, phi[1] / th, phi[2] / th};
  cl_rotation_axis_angle(a, th, Q);
}
