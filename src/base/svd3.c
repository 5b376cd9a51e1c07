/* Signed 3x3 SVD, A = U diag(sigma) V^T with det U = det V = +1.
 *
 * Method: one-sided (Hestenes) Jacobi. Plane rotations applied from the right orthogonalise the
 * columns of B = A V; V is the product of the rotations, and U, sigma come from a Gram-Schmidt of
 * the converged columns, U's third column being the cross product of the first two.
 *
 * Why not the eigen-decomposition of A^T A followed by a QR of A V (McAdams et al. 2011)? Forming
 * A^T A rounds at eps * sigma_1^2, which turns the eigenvectors of two close singular values
 * sigma_i = sigma_j (1 + d) by about eps / d; the QR then leaves an off-diagonal of that size that
 * the diagonal sigma drops. For d = 1e-8 the reconstruction error is ~1e-8, above the 1e-10 the
 * solvers need. The one-sided method never squares A: each rotation is backward stable on the
 * columns themselves (Demmel and Veselic 1992), so the error stays at a few eps, for repeated,
 * nearly repeated and zero singular values alike. It converges quadratically: a typical 3x3 takes
 * 3-5 sweeps of 3 rotations. No trigonometry: the rotation comes from Rutishauser's tangent
 * formula (one sqrt, one division per rotation).
 *
 * Robustness:
 * - A is first scaled by an exact power of two so its largest entry lies in [0.5, 1): squares and
 *   products of column norms can then neither overflow nor lose precision to underflow, whatever
 *   the input's scale (1e-300 .. 1e300), and the scaling itself adds no rounding.
 * - After scaling sigma_1 >= 0.5 / sqrt(3) for any non-zero A, so u1 = b1 / |b1| is always defined.
 * - u2 comes from re-orthogonalised Gram-Schmidt ("twice is enough"), so it is orthogonal to u1 to
 *   rounding even when b2 is tiny or pure noise (rank 1); an exactly vanishing b2 gets any unit
 *   vector orthogonal to u1. u3 = u1 x u2 makes U proper by construction, and sigma_3 = u3 . b3
 *   then carries the sign of det A (Irving, Teran, Fedkiw 2004, sec. 5), and is ~0 for rank 2. */
#include <float.h>
#include <math.h>

#include "base/error.h"
#include "base/mat3.h"

/* Columns p, q count as orthogonal when |b_p . b_q| <= tol |b_p| |b_q|. Any value near eps works
 * for the accuracy (the dropped parts are this small relative to |b_q|); 1e-15 sits just above the
 * rounding noise of a 3-term dot product (~3.3e-16), so the loop cannot chase noise. */
#define SVD_TOL 1e-15
#define SVD_MAX_SWEEPS 24
/* In scaled units (largest entry in [0.5, 1)): a Gram-Schmidt residual below this is treated as an
 * exact zero; dropping it changes A by less than 1e-150 relative. */
#define SVD_TINY 1e-150

/* Column-major work arrays: c[j][k] is entry k of column j. */
typedef double col3[3];

static inline double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline void swap_cols(col3 *a, int p, int q) {
  for (int k = 0; k < 3; ++k) {
    double t = a[p][k];
    a[p][k] = a[q][k];
    a[q][k] = t;
  }
}

static inline void neg_col(col3 *a, int p) {
  for (int k = 0; k < 3; ++k) a[p][k] = -a[p][k];
}

/* Swap singular triplets i and j. Swapping a column pair in both U and V flips both determinants;
 * negating one same-index column of both U and V restores them and leaves sigma_k u_k v_k^T as it
 * was. */
static void swap_triplet(col3 *u, col3 *v, double *s, int i, int j) {
  swap_cols(u, i, j);
  swap_cols(v, i, j);
  double t = s[i];
  s[i] = s[j];
  s[j] = t;
  neg_col(u, 2);
  neg_col(v, 2);
}

/* Enforce |s0| >= |s1| >= |s2| and s0, s1 >= 0, keeping det U = det V = +1. Near-equal values can
 * come out of the Gram-Schmidt one ulp out of order; exact ties stay as they are. */
static void canonical_order(col3 *u, col3 *v, double *s) {
  if (fabs(s[0]) < fabs(s[1])) swap_triplet(u, v, s, 0, 1);
  if (fabs(s[1]) < fabs(s[2])) swap_triplet(u, v, s, 1, 2);
  if (fabs(s[0]) < fabs(s[1])) swap_triplet(u, v, s, 0, 1);
  /* Negating u_i and u_2 together keeps det U and moves the sign onto sigma_2. */
  for (int i = 0; i < 2; ++i) {
    if (s[i] < 0.0) {
      s[i] = -s[i];
      s[2] = -s[2];
      neg_col(u, i);
      neg_col(u, 2);
    }
  }
}

/* Any unit vector orthogonal to the unit vector a: cross a with the axis it is least aligned with. */
static void any_orthogonal(const double *a, double *out) {
  double ax = fabs(a[0]), ay = fabs(a[1]), az = fabs(a[2]);
  double r[3];
  if (ax <= ay && ax <= az) { /* a x e_x */
    r[0] = 0.0, r[1] = a[2], r[2] = -a[1];
  } else if (ay <= az) { /* a x e_y */
    r[0] = -a[2], r[1] = 0.0, r[2] = a[0];
  } else { /* a x e_z */
    r[0] = a[1], r[1] = -a[0], r[2] = 0.0;
  }
  double n = sqrt(dot3(r, r));
  for (int k = 0; k < 3; ++k) out[k] = r[k] / n;
}

cl_status cl_svd3(const cl_mat3 *A, cl_mat3 *U, cl_vec3 *sigma, cl_mat3 *V) {
  if (!A || !U || !sigma || !V)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_svd3: NULL argument (A %p, U %p, sigma %p, V %p)", (const void *)A,
                   (void *)U, (void *)sigma, (void *)V);
  if (!cl_mat3_isfinite(A))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_svd3: matrix has a NaN or Inf entry ([%g %g %g; %g %g %g; %g %g %g])",
                   A->m[0], A->m[1], A->m[2], A->m[3], A->m[4], A->m[5], A->m[6], A->m[7], A->m[8]);
  double amax = cl_mat3_max_abs(A);
  if (amax == 0.0) { /* rank 0: any rotations will do */
    *U = cl_mat3_identity();
    *V = cl_mat3_identity();
    *sigma = cl_vec3_zero();
    return CL_OK;
  }

  /* Exact power-of-two scaling to a largest entry in [0.5, 1). */
  int e = cl_exponent_of(amax);
  const int fast_scale = e > -1000 && e < 1000;
  col3 b[3], v[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  if (fast_scale) {
    double sc = cl_pow2i(-e);
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) b[j][k] = A->m[3 * k + j] * sc;
  } else { /* 2^-e itself would overflow or underflow */
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) b[j][k] = ldexp(A->m[3 * k + j], -e);
  }

  /* One-sided Jacobi sweeps over the pairs (0,1), (0,2), (1,2). */
  static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  const double tol2 = SVD_TOL * SVD_TOL;
  int converged = 0;
  for (int sweep = 0; sweep < SVD_MAX_SWEEPS && !converged; ++sweep) {
    converged = 1;
    for (int pk = 0; pk < 3; ++pk) {
      int p = pairs[pk][0], q = pairs[pk][1];
      double alpha = dot3(b[p], b[p]), beta = dot3(b[q], b[q]), gamma = dot3(b[p], b[q]);
      /* gamma^2 <= tol^2 alpha beta also covers zero columns (all three are 0). */
      if (!(gamma * gamma > tol2 * alpha * beta)) continue;
      converged = 0;
      /* Rotation b_p' = c b_p - s b_q, b_q' = s b_p + c b_q makes b_p' . b_q' = 0 when
       * t = s/c solves t^2 + 2 zeta t - 1 = 0, zeta = delta / gamma, delta = (beta - alpha) / 2;
       * the root of smaller magnitude, t = sign(delta) gamma / (|delta| + h) with
       * h = sqrt(delta^2 + gamma^2), keeps the rotation below 45 degrees (Rutishauser 1966).
       * With D = |delta| + h, 1 + t^2 = (D^2 + gamma^2) / D^2 = 2 h D / D^2, so
       * c = D / sqrt(2 h D) and s = sign(delta) gamma / sqrt(2 h D): two square roots and one
       * division, the latency chain that bounds the cost of a rotation. No overflow after the
       * scaling. c^2 + s^2 = 1 needs h^2 = delta^2 + gamma^2 to full precision, which fails when
       * the sum is subnormal (columns near 1e-77 of the largest, e.g. a tiny nearly repeated
       * pair beside a big singular value): then delta and gamma are first divided by the larger
       * of the two (t is homogeneous of degree 0 in them). gamma^2 > 0 here, so h >= |gamma| > 0. */
      double delta = 0.5 * (beta - alpha);
      double h2 = delta * delta + gamma * gamma;
      if (h2 < 1e-280) { /* rare: keep the division off the common path */
        double m = fmax(fabs(delta), fabs(gamma));
        delta /= m;
        gamma /= m;
        h2 = delta * delta + gamma * gamma;
      }
      double h = sqrt(h2);
      double D = fabs(delta) + h;
      double k = 1.0 / sqrt(2.0 * h * D);
      double c = D * k, s = copysign(1.0, delta) * gamma * k;
      for (int i = 0; i < 3; ++i) {
        double x = b[p][i], y = b[q][i];
        b[p][i] = c * x - s * y;
        b[q][i] = s * x + c * y;
        x = v[p][i], y = v[q][i];
        v[p][i] = c * x - s * y;
        v[q][i] = s * x + c * y;
      }
    }
  }

  /* Order the columns by length, longest first. A permutation of odd parity would make det V = -1:
   * negate the last column of V and of B (B = A V stays true). */
  double n[3] = {dot3(b[0], b[0]), dot3(b[1], b[1]), dot3(b[2], b[2])};
  int odd = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int j = 0; j < 2 - pass; ++j)
      if (n[j] < n[j + 1]) {
        double t = n[j];
        n[j] = n[j + 1];
        n[j + 1] = t;
        swap_cols(b, j, j + 1);
        swap_cols(v, j, j + 1);
        odd ^= 1;
      }
  if (odd) {
    neg_col(b, 2);
    neg_col(v, 2);
  }

  /* U and sigma from the (now orthogonal) columns. */
  col3 u[3];
  double s[3];
  s[0] = sqrt(n[0]); /* >= 0.5 / sqrt(3): the scaled matrix has an entry >= 0.5 */
  double inv = 1.0 / s[0];
  for (int k = 0; k < 3; ++k) u[0][k] = b[0][k] * inv;
  double r[3], d = dot3(b[1], u[0]);
  for (int k = 0; k < 3; ++k) r[k] = b[1][k] - d * u[0][k];
  d = dot3(r, u[0]);
  for (int k = 0; k < 3; ++k) r[k] -= d * u[0][k];
  double nr = sqrt(dot3(r, r));
  if (nr > SVD_TINY) {
    s[1] = nr;
    inv = 1.0 / nr;
    for (int k = 0; k < 3; ++k) u[1][k] = r[k] * inv;
  } else { /* rank 1: any direction orthogonal to u1 */
    s[1] = 0.0;
    any_orthogonal(u[0], u[1]);
  }
  u[2][0] = u[0][1] * u[1][2] - u[0][2] * u[1][1];
  u[2][1] = u[0][2] * u[1][0] - u[0][0] * u[1][2];
  u[2][2] = u[0][0] * u[1][1] - u[0][1] * u[1][0];
  s[2] = dot3(u[2], b[2]);

  canonical_order(u, v, s);

  if (fast_scale) {
    double sc = cl_pow2i(e);
    for (int j = 0; j < 3; ++j) s[j] *= sc;
  } else {
    for (int j = 0; j < 3; ++j) s[j] = ldexp(s[j], e);
  }
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < 3; ++k) {
      U->m[3 * k + j] = u[j][k];
      V->m[3 * k + j] = v[j][k];
    }
  }
  sigma->x = s[0], sigma->y = s[1], sigma->z = s[2];
  if (!isfinite(s[0]))
    return cl_fail(CL_ERR_NUMERICAL, "cl_svd3: the largest singular value overflows a double (max |a_ij| = %g)", amax);
  if (!converged)
    return cl_fail(CL_WARN_NOT_CONVERGED, "cl_svd3: Jacobi iteration stopped after %d sweeps", SVD_MAX_SWEEPS);
  return CL_OK;
}
