/* Symmetric 3x3 eigen-decomposition by cyclic Jacobi.
 *
 * Why Jacobi rather than the closed form (roots of the characteristic cubic by trigonometry)?
 * The cubic loses the small eigenvalues and the eigenvectors of close pairs to cancellation; the
 * fracture criteria read eigenvectors of tensors that are often nearly isotropic (O'Brien and
 * Hodgins 1999: the separation tensor's largest eigenvalue and its eigenvector give the crack
 * plane). Jacobi is backward stable (each rotation is orthogonal), its eigenvectors are orthonormal
 * to rounding by construction, and for 3x3 it converges quadratically in about 4 sweeps.
 * No trigonometry: Rutishauser's tangent formulas, as in Numerical Recipes sec. 11.1. */
#include <math.h>

#include "base/error.h"
#include "base/mat3.h"

/* An off-diagonal entry below this fraction of ||S||_F is set to zero: the residual it leaves,
 * |A v - lambda v| <= |a_pq|, is then below rounding. Explicitly zeroed entries feed only products
 * of other off-diagonals back, so the iteration reaches this without stalling on noise. */
#define EIG_TOL 1e-17
#define EIG_MAX_SWEEPS 32

cl_status cl_eig_sym3(const cl_mat3 *A, cl_vec3 *evals, cl_mat3 *evecs) {
  if (!A || !evals)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_eig_sym3: NULL argument (A %p, evals %p)", (const void *)A,
                   (void *)evals);
  if (!cl_mat3_isfinite(A))
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_eig_sym3: matrix has a NaN or Inf entry ([%g %g %g; %g %g %g; %g %g %g])", A->m[0], A->m[1],
                   A->m[2], A->m[3], A->m[4], A->m[5], A->m[6], A->m[7], A->m[8]);
  /* The symmetric part, halves first so a_ij + a_ji cannot overflow near DBL_MAX (halving is
   * exact except for subnormals). */
  cl_mat3 Ssym;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Ssym.m[3 * i + j] = 0.5 * A->m[3 * i + j] + 0.5 * A->m[3 * j + i];
  double amax = cl_mat3_max_abs(&Ssym);
  if (amax == 0.0) { /* zero or antisymmetric A */
    *evals = cl_vec3_zero();
    if (evecs) *evecs = cl_mat3_identity();
    return CL_OK;
  }
  /* Scale by an exact power of two so the largest entry of the symmetric part is in [0.5, 1):
   * then ||S||_F >= 0.5, every a_pq above the threshold has a square far from underflow, and no
   * square overflows. */
  int e = cl_exponent_of(amax);
  const int fast_scale = e > -1000 && e < 1000;
  double a[3][3];
  if (fast_scale) {
    double sc = cl_pow2i(-e);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) a[i][j] = Ssym.m[3 * i + j] * sc;
  } else {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) a[i][j] = ldexp(Ssym.m[3 * i + j], -e);
  }
  double q[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}; /* q[row][col], eigenvectors in columns */

  double fro = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) fro += a[i][j] * a[i][j];
  fro = sqrt(fro);
  const double thresh = EIG_TOL * fro;

  static const int pairs[3][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}}; /* p, q and the remaining r */
  int converged = 0;
  for (int sweep = 0; sweep < EIG_MAX_SWEEPS && !converged; ++sweep) {
    converged = 1;
    for (int pk = 0; pk < 3; ++pk) {
      int p = pairs[pk][0], qq = pairs[pk][1], r = pairs[pk][2];
      double apq = a[p][qq];
      if (fabs(apq) <= thresh) {
        a[p][qq] = a[qq][p] = 0.0;
        continue;
      }
      converged = 0;
      /* J^T A J with J = [c s; -s c] in the (p, q) plane zeroes a_pq when t = s/c solves
       * t^2 + 2 theta t - 1 = 0, theta = (a_qq - a_pp) / (2 a_pq); the smaller root (NR eq.
       * 11.1.8) is t = sign(delta) a_pq / D with delta = (a_qq - a_pp) / 2,
       * h = sqrt(delta^2 + a_pq^2), D = |delta| + h. As in svd3.c, 1 + t^2 = 2 h D / D^2 gives
       * c = D k, s = sign(delta) a_pq k with k = 1 / sqrt(2 h D), and the diagonal update
       * t a_pq = sign(delta) a_pq^2 / D = sign(delta) a_pq^2 2 h k^2 needs no further division.
       * After the scaling nothing overflows, and |a_pq| > thresh keeps h, D > 0. */
      double delta = 0.5 * (a[qq][qq] - a[p][p]);
      double h = sqrt(delta * delta + apq * apq);
      double D = fabs(delta) + h;
      double k = 1.0 / sqrt(2.0 * h * D);
      double sg = copysign(1.0, delta);
      double c = D * k, s = sg * apq * k, tapq = sg * apq * apq * 2.0 * h * k * k;
      a[p][p] -= tapq;
      a[qq][qq] += tapq;
      a[p][qq] = a[qq][p] = 0.0;
      double g = a[r][p], f = a[r][qq];
      a[r][p] = a[p][r] = c * g - s * f;
      a[r][qq] = a[qq][r] = s * g + c * f;
      for (int i = 0; i < 3; ++i) {
        g = q[i][p], f = q[i][qq];
        q[i][p] = c * g - s * f;
        q[i][qq] = s * g + c * f;
      }
    }
  }

  /* Sort descending (three compare-and-swaps), carrying the columns of q. */
  double l[3] = {a[0][0], a[1][1], a[2][2]};
  int idx[3] = {0, 1, 2};
  for (int pass = 0; pass < 2; ++pass)
    for (int j = 0; j < 2 - pass; ++j)
      if (l[j] < l[j + 1]) {
        double t = l[j];
        l[j] = l[j + 1];
        l[j + 1] = t;
        int ti = idx[j];
        idx[j] = idx[j + 1];
        idx[j + 1] = ti;
      }
  cl_mat3 Q;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) Q.m[3 * i + j] = q[i][idx[j]];
  /* Right-handed: an odd permutation (or nothing else, since q is a product of rotations) can make
   * det Q = -1; flipping the last eigenvector's sign fixes it. */
  if (cl_mat3_det(&Q) < 0.0)
    for (int i = 0; i < 3; ++i) Q.m[3 * i + 2] = -Q.m[3 * i + 2];

  if (fast_scale) {
    double sc = cl_pow2i(e);
    for (int j = 0; j < 3; ++j) l[j] *= sc;
  } else {
    for (int j = 0; j < 3; ++j) l[j] = ldexp(l[j], e);
  }
  evals->x = l[0], evals->y = l[1], evals->z = l[2];
  if (evecs) *evecs = Q;
  if (!isfinite(l[0]) || !isfinite(l[2]))
    return cl_fail(CL_ERR_NUMERICAL, "cl_eig_sym3: an eigenvalue overflows a double (max |a_ij| = %g)", amax);
  if (!converged)
    return cl_fail(CL_WARN_NOT_CONVERGED, "cl_eig_sym3: Jacobi iteration stopped after %d sweeps", EIG_MAX_SWEEPS);
  return CL_OK;
}
