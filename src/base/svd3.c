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

/* Rutishauser's rotation for a pair with Gram entries alpha = |b_p|^2, beta = |b_q|^2,
 * gamma = b_p . b_q: returns 0 (c = 1, s = 0) when they already count as orthogonal
 * (gamma^2 <= tol^2 alpha beta, which also covers zero columns: all three are 0), else 1.
 * Rotation b_p' = c b_p - s b_q, b_q' = s b_p + c b_q makes b_p' . b_q' = 0 when
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
static inline int jacobi_cs(double alpha, double beta, double gamma, double *c, double *s) {
  *c = 1.0, *s = 0.0;
  if (!(gamma * gamma > SVD_TOL * SVD_TOL * alpha * beta)) return 0;
  double delta = 0.5 * (beta - alpha);
  double h2 = delta * delta + gamma * gamma;
  if (h2 < 1e-280) {
    double m = fmax(fabs(delta), fabs(gamma));
    delta /= m;
    gamma /= m;
    h2 = delta * delta + gamma * gamma;
  }
  double h = sqrt(h2);
  double D = fabs(delta) + h;
  double k = 1.0 / sqrt(2.0 * h * D);
  *c = D * k, *s = copysign(1.0, delta) * gamma * k;
  return 1;
}

/* One-sided sweeps on b (B = A V) and v over the pairs (0,1), (0,2), (1,2) until a whole sweep
 * finds every pair orthogonal; returns 1 when converged within SVD_MAX_SWEEPS. */
static int onesided_sweeps(col3 *b, col3 *v) {
  static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int sweep = 0; sweep < SVD_MAX_SWEEPS; ++sweep) {
    int converged = 1;
    for (int pk = 0; pk < 3; ++pk) {
      int p = pairs[pk][0], q = pairs[pk][1];
      double c, s;
      if (!jacobi_cs(dot3(b[p], b[p]), dot3(b[q], b[q]), dot3(b[p], b[q]), &c, &s)) continue;
      converged = 0;
      for (int i = 0; i < 3; ++i) {
        double x = b[p][i], y = b[q][i];
        b[p][i] = c * x - s * y;
        b[q][i] = s * x + c * y;
        x = v[p][i], y = v[q][i];
        v[p][i] = c * x - s * y;
        v[q][i] = s * x + c * y;
      }
    }
    if (converged) return 1;
  }
  return 0;
}

/* Order the columns of B = A V by length, longest first (n: their squared lengths, sorted too). A
 * permutation of odd parity would make det V = -1: negate the last column of V and of B (B = A V
 * stays true). */
static void sort_columns(col3 *b, col3 *v, double *n) {
  for (int j = 0; j < 3; ++j) n[j] = dot3(b[j], b[j]);
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
}

/* u1 = b1 / s0 and u2, s1 by re-orthogonalised Gram-Schmidt ("twice is enough"); s[0] is set. */
static void gram_schmidt_u(col3 *b, col3 *u, double *s) {
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
}

/* The common end: u3 = u1 x u2 (so det U = +1) and sigma_3 = u3 . b3 (carrying the sign of det A),
 * the canonical order, the scaling by 2^e undone, the outputs, and the errors of `who`. */
static cl_status svd_finish(const char *who, col3 *b, col3 *u, col3 *v, double *s, int e, int fast_scale, double amax,
                            int converged, cl_mat3 *U, cl_vec3 *sigma, cl_mat3 *V) {
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
    return cl_fail(CL_ERR_NUMERICAL, "%s: the largest singular value overflows a double (max |a_ij| = %g)", who, amax);
  if (!converged)
    return cl_fail(CL_WARN_NOT_CONVERGED, "%s: Jacobi iteration stopped after %d sweeps", who, SVD_MAX_SWEEPS);
  return CL_OK;
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
  int converged = onesided_sweeps(b, v);

  double n[3];
  sort_columns(b, v, n);

  /* U and sigma from the (now orthogonal) columns. */
  col3 u[3];
  double s[3];
  s[0] = sqrt(n[0]); /* >= 0.5 / sqrt(3): the scaled matrix has an entry >= 0.5 */
  gram_schmidt_u(b, u, s);
  return svd_finish("cl_svd3", b, u, v, s, e, fast_scale, amax, converged, U, sigma, V);
}

/* ---- cl_svd3_fast ----------------------------------------------------------------------------
 *
 * Same contract and the same final accuracy as cl_svd3, with most of its serial chain removed.
 * cl_svd3 needs ~9 rotations (4.3 sweeps) for almost any input, even for a near-rotation
 * R (I + E): its angles are O(1) whatever the size of E, since the eigenvectors of sym(E) are
 * arbitrary. Each rotation waits for three dot products, sqrt -> sqrt -> div and the column update.
 * Here:
 *
 * 1. A starting V in closed form from the Gram matrix G = B^T B (B = A scaled as in cl_svd3).
 *    Its deviatoric part D = G - tr(G)/3 I has G's eigenvectors. The eigenvalue of D of largest
 *    magnitude, lam, is always isolated: d1 + d2 + d3 = 0 with |d2|, |d3| <= |lam| forces the
 *    other two to the opposite sign (or zero), so both are at least |lam| >= ||D||_F / sqrt 3
 *    away. lam comes from the trigonometric solution of the characteristic cubic (Smith 1961,
 *    "Eigenvalues of a symmetric 3x3 matrix", CACM 4(4):168), its eigenvector e0 from the largest
 *    cross product of two rows of D - lam I, accurate to ~eps ||D|| / |lam| thanks to that gap.
 *    The other two eigenvalues then follow from a quadratic; when they are clearly apart, the
 *    second eigenvector is a cross product as well, and the third completes a right-handed
 *    basis. When they are equal or nearly so (their eigenvectors are then ill-determined) the
 *    plane orthogonal to e0 gets one exact Jacobi rotation of G instead.
 * 2. B = A V computed from A (not from G), then cl_svd3's one-sided Jacobi, same tolerance and
 *    sweep limit, on these almost orthogonal columns. G rounds at eps sigma_1^2 (the reason
 *    cl_svd3 rejects it as the final answer), so V is only a start: for well conditioned
 *    matrices with distinct singular values the first check passes at once; nearly repeated,
 *    graded or rank-deficient ones get the one or two one-sided rotations that make the columns
 *    orthogonal to cl_svd3's 1e-15. Whenever step 1 is not clearly valid (G a multiple of I to
 *    rounding, no usable cross product) V = I and step 2 is cl_svd3's iteration from scratch.
 *    The result is always that of the backward-stable one-sided method with the same stopping
 *    test, hence cl_svd3's accuracy; the speed comes from step 1 (about 2x on near-rotations).
 * 3. Ordering, U, canonical signs and scaling back as in cl_svd3, except that converged columns
 *    let U's Gram-Schmidt run its square roots and divisions in parallel (see there). */

static inline void cross3(const double *a, const double *b, double *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* cos(acos(x) / 3) for x in [0, 1], i.e. the largest root f of 4 f^3 - 3 f = x (the triple-angle
 * formula), which is analytic on [0, 1] (its branch point is at x = -1). A degree-7 Chebyshev
 * interpolant in t = 2x - 1 (error 1.3e-8) and one Newton step on the cubic (derivative
 * 12 f^2 - 3 >= 6, error constant ~2) give full precision for a fraction of acos + cos. */
static inline double cos_acos_third(double x) {
  double t = 2.0 * x - 1.0, t2 = t * t, t4 = t2 * t2;
  double f = (0.9396926298395528 + 0.0658218047384313 * t) + t2 * (-0.00643170298177928 + 0.001106735835395889 * t) +
             t4 * ((-0.00023221975488318947 + 5.451564816139065e-05 * t) +
                   t2 * (-1.5995367312893194e-05 + 4.239122747495827e-06 * t));
  return f - (4.0 * f * f * f - 3.0 * f - x) / (12.0 * f * f - 3.0);
}

/* Step 1: a starting V (columns v[j]) from the Gram matrix of the scaled columns a. Leaves V = I
 * when the closed form is not clearly valid. */
static void gram_start(col3 *a, col3 *v) {
  double g00 = dot3(a[0], a[0]), g11 = dot3(a[1], a[1]), g22 = dot3(a[2], a[2]);
  double g01 = dot3(a[0], a[1]), g02 = dot3(a[0], a[2]), g12 = dot3(a[1], a[2]);
  double mean = (g00 + g11 + g22) * (1.0 / 3.0);
  double d00 = g00 - mean, d11 = g11 - mean, d22 = g22 - mean;
  /* p = ||D||_F^2 / 6; D has eigenvalues 2 sqrt(p) cos(phi + 2 pi k / 3). */
  double p = (d00 * d00 + d11 * d11 + d22 * d22 + 2.0 * (g01 * g01 + g02 * g02 + g12 * g12)) * (1.0 / 6.0);
  /* G a multiple of I to rounding (all singular values equal, tr G >= 0.25 after the scaling):
   * the columns are already orthogonal, or the polish finds the rotation. */
  if (!(p > 1e-28 * mean * mean)) return;
  double m = sqrt(p);
  double det = d00 * (d11 * d22 - g12 * g12) - g01 * (g01 * d22 - g12 * g02) + g02 * (g01 * g12 - d11 * g02);
  double r = det / (2.0 * m * m * m); /* cos(3 phi), in [-1, 1] up to rounding */
  double ar = fmin(fabs(r), 1.0);
  /* The eigenvalue of largest magnitude has the sign of det D: 2 m cos(acos(|r|) / 3). */
  double lam = copysign(2.0 * m * cos_acos_third(ar), r);
  double r0[3] = {d00 - lam, g01, g02}, r1[3] = {g01, d11 - lam, g12}, r2[3] = {g02, g12, d22 - lam};
  double c0[3], c1[3], c2[3];
  cross3(r0, r1, c0);
  cross3(r0, r2, c1);
  cross3(r1, r2, c2);
  double n0 = dot3(c0, c0), n1 = dot3(c1, c1), n2 = dot3(c2, c2);
  const double *cb = c0, *ra = r0; /* ra: a factor of cb, a row orthogonal to e0 */
  double nb = n0;
  if (n1 > nb) cb = c1, nb = n1;
  if (n2 > nb) cb = c2, nb = n2, ra = r1;
  /* rows of D - lam I of length ~||D||, the gap >= ||D|| / sqrt 3: |c|^2 ~ p^2. Anything far
   * below means the closed form broke down: fall back. */
  if (!(nb > 1e-20 * p * p)) return;
  double inv = 1.0 / sqrt(nb);
  double e0[3] = {cb[0] * inv, cb[1] * inv, cb[2] * inv}, e1[3], e2[3];
  /* The common case: the other two eigenvalues are mu and -lam - mu, mu = -lam/2 - sign(lam)
   * sqrt(3p - 3 lam^2 / 4) (from d1 + d2 + d3 = 0, d1^2 + d2^2 + d3^2 = 6p), split by
   * 2 sqrt(3p - 3 lam^2 / 4). When that split is clear, mu's eigenvector is the largest cross
   * product k of two rows of D - mu I, in parallel with e0's normalisation; e2 = e0 x k / |.| and
   * e1 = e2 x e0 then make an exactly orthonormal, right-handed V. Its error, eps ||D|| / split
   * in angle, leaves the columns of A V orthogonal to ~eps ||G||, which the polish then
   * checks. A small split (nearly repeated values) goes to the 2x2 Jacobi below instead. */
  double disc = fmax(3.0 * p - 0.75 * lam * lam, 0.0);
  double mu = -0.5 * lam - copysign(sqrt(disc), lam);
  double q0[3] = {d00 - mu, g01, g02}, q1[3] = {g01, d11 - mu, g12}, q2[3] = {g02, g12, d22 - mu};
  cross3(q0, q1, c0);
  cross3(q0, q2, c1);
  cross3(q1, q2, c2);
  n0 = dot3(c0, c0), n1 = dot3(c1, c1), n2 = dot3(c2, c2);
  cb = c0, nb = n0;
  if (n1 > nb) cb = c1, nb = n1;
  if (n2 > nb) cb = c2, nb = n2;
  /* |k| ~ |lam - mu| split, |lam - mu| >= |lam| >= sqrt(p): nb > 1e-12 p^2 means split > ~1e-6
   * ||D||. k must also be clearly off e0 (it is orthogonal in exact arithmetic). */
  if (nb > 1e-12 * p * p) {
    cross3(e0, cb, e2);
    double nw = dot3(e2, e2);
    if (nw > 0.25 * nb) {
      double iw = 1.0 / sqrt(nw);
      for (int k = 0; k < 3; ++k) e2[k] *= iw;
      cross3(e2, e0, e1);
      /* Store V already in descending order of the eigenvalues, so the final sort by column
       * length rarely swaps (its branches are then predictable): lam > 0 is the largest, mu
       * the smallest, the third in between: [e0, e2, -e1] (odd permutation, hence the sign);
       * lam < 0 the other way round: [e1, e2, e0] (cyclic, even). Selected by arithmetic with
       * w in {0, 1}, exact, to avoid a data-dependent branch. */
      double w = lam > 0.0 ? 1.0 : 0.0, w1 = 1.0 - w;
      for (int k = 0; k < 3; ++k) {
        v[0][k] = w * e0[k] + w1 * e1[k];
        v[1][k] = e2[k];
        v[2][k] = w1 * e0[k] - w * e1[k];
      }
      return;
    }
  }
  /* A basis of the plane orthogonal to e0 from the row ra (orthogonal to e0 to rounding: e0 is
   * its cross product with another row), made exactly orthonormal and right-handed as above;
   * no data-dependent branches, unlike any_orthogonal, which is kept for a breakdown. */
  cross3(e0, ra, e2);
  double nw = dot3(e2, e2);
  if (nw > 0.25 * dot3(ra, ra)) {
    double iw = 1.0 / sqrt(nw);
    for (int k = 0; k < 3; ++k) e2[k] *= iw;
    cross3(e2, e0, e1);
  } else {
    any_orthogonal(e0, e1);
    cross3(e0, e1, e2); /* right-handed: det [e0 e1 e2] = +1 */
  }
  /* G restricted to span(e1, e2), then the Jacobi rotation that diagonalises it. */
  double ge1[3] = {g00 * e1[0] + g01 * e1[1] + g02 * e1[2], g01 * e1[0] + g11 * e1[1] + g12 * e1[2],
                   g02 * e1[0] + g12 * e1[1] + g22 * e1[2]};
  double ge2[3] = {g00 * e2[0] + g01 * e2[1] + g02 * e2[2], g01 * e2[0] + g11 * e2[1] + g12 * e2[2],
                   g02 * e2[0] + g12 * e2[1] + g22 * e2[2]};
  double c, s;
  jacobi_cs(dot3(e1, ge1), dot3(e2, ge2), dot3(e1, ge2), &c, &s);
  for (int k = 0; k < 3; ++k) {
    v[0][k] = e0[k];
    v[1][k] = c * e1[k] - s * e2[k];
    v[2][k] = s * e1[k] + c * e2[k];
  }
}

/* max |a_ij|, the same value as cl_mat3_max_abs (the maximum is exact in any order) from a tree
 * of comparisons: depth 4 instead of a chain of 9 on the path to the scaling. */
static inline double max_abs_tree(const cl_mat3 *A) {
  double x[9];
  for (int i = 0; i < 9; ++i) x[i] = fabs(A->m[i]);
  double a = x[0] > x[1] ? x[0] : x[1], b = x[2] > x[3] ? x[2] : x[3];
  double c = x[4] > x[5] ? x[4] : x[5], d = x[6] > x[7] ? x[6] : x[7];
  a = a > b ? a : b;
  c = c > d ? c : d;
  a = a > c ? a : c;
  return a > x[8] ? a : x[8];
}

cl_status cl_svd3_fast(const cl_mat3 *A, cl_mat3 *U, cl_vec3 *sigma, cl_mat3 *V) {
  if (!A || !U || !sigma || !V)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_svd3_fast: NULL argument (A %p, U %p, sigma %p, V %p)",
                   (const void *)A, (void *)U, (void *)sigma, (void *)V);
  if (!cl_mat3_isfinite(A))
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_svd3_fast: matrix has a NaN or Inf entry ([%g %g %g; %g %g %g; %g %g %g])", A->m[0], A->m[1],
                   A->m[2], A->m[3], A->m[4], A->m[5], A->m[6], A->m[7], A->m[8]);
  double amax = max_abs_tree(A);
  if (amax == 0.0) {
    *U = cl_mat3_identity();
    *V = cl_mat3_identity();
    *sigma = cl_vec3_zero();
    return CL_OK;
  }
  int e = cl_exponent_of(amax);
  const int fast_scale = e > -1000 && e < 1000;
  col3 a[3], b[3], v[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  if (fast_scale) {
    double sc = cl_pow2i(-e);
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) a[j][k] = A->m[3 * k + j] * sc;
  } else {
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) a[j][k] = ldexp(A->m[3 * k + j], -e);
  }

  gram_start(a, v);
  /* B = A V from A itself (not from G), then the one-sided polish. */
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) b[j][k] = a[0][k] * v[j][0] + a[1][k] * v[j][1] + a[2][k] * v[j][2];
  int converged = onesided_sweeps(b, v);

  /* Step 3, as cl_svd3: order the columns by length, longest first, keeping det V = +1. */
  double n[3];
  sort_columns(b, v, n);
  col3 u[3];
  double s[3];
  s[0] = sqrt(n[0]);
  double g01 = dot3(b[0], b[1]);
  if (converged && n[1] > SVD_TINY * SVD_TINY) {
    /* Converged columns satisfy g01^2 <= 1e-30 n0 n1, so a single projection leaves r = b1 -
     * (g01 / n0) b0 orthogonal to b0 to rounding, and |r|^2 = n1 - g01^2 / n0 equals n1 to
     * 1e-30 relative: sigma_2 = sqrt(n1) and both square roots and divisions run in parallel
     * instead of cl_svd3's chain (normalise, project twice, normalise). */
    s[1] = sqrt(n[1]);
    double mu = g01 / n[0], inv0 = 1.0 / s[0], inv1 = 1.0 / s[1];
    for (int k = 0; k < 3; ++k) {
      u[0][k] = b[0][k] * inv0;
      u[1][k] = (b[1][k] - mu * b[0][k]) * inv1;
    }
  } else { /* cl_svd3's re-orthogonalised Gram-Schmidt */
    gram_schmidt_u(b, u, s);
  }
  return svd_finish("cl_svd3_fast", b, u, v, s, e, fast_scale, amax, converged, U, sigma, V);
}
