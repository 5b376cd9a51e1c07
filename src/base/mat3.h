/* 3x3 matrices of doubles, ROW-MAJOR: m[3*r + c] is row r, column c.
 *
 * Inline basics take `const cl_mat3 *` and return the result by value, so `c = cl_mat3_mul(&a, &b)`
 * is safe even when c is a or b. The decompositions (SVD, polar, symmetric eigen, pseudo-inverse,
 * Gram-Schmidt rotation) live in mat3.c, svd3.c and eig3.c; they allocate nothing, check their input
 * for NaN/Inf and write their outputs only at the end, so outputs may alias the input. */
#ifndef CL_BASE_MAT3_H
#define CL_BASE_MAT3_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/vec3.h"
#include "cleave/status.h"

typedef struct cl_mat3 {
  double m[9];
} cl_mat3;

static inline cl_mat3 cl_mat3_zero(void) {
  cl_mat3 r = {{0, 0, 0, 0, 0, 0, 0, 0, 0}};
  return r;
}

static inline cl_mat3 cl_mat3_identity(void) {
  cl_mat3 r = {{1, 0, 0, 0, 1, 0, 0, 0, 1}};
  return r;
}

static inline cl_mat3 cl_mat3_diag(cl_vec3 d) {
  cl_mat3 r = {{d.x, 0, 0, 0, d.y, 0, 0, 0, d.z}};
  return r;
}

/* Matrix whose columns are c0, c1, c2. */
static inline cl_mat3 cl_mat3_from_cols(cl_vec3 c0, cl_vec3 c1, cl_vec3 c2) {
  cl_mat3 r = {{c0.x, c1.x, c2.x, c0.y, c1.y, c2.y, c0.z, c1.z, c2.z}};
  return r;
}

/* Matrix whose rows are r0, r1, r2. */
static inline cl_mat3 cl_mat3_from_rows(cl_vec3 r0, cl_vec3 r1, cl_vec3 r2) {
  cl_mat3 r = {{r0.x, r0.y, r0.z, r1.x, r1.y, r1.z, r2.x, r2.y, r2.z}};
  return r;
}

static inline cl_vec3 cl_mat3_col(const cl_mat3 *a, int c) {
  return cl_vec3_make(a->m[c], a->m[3 + c], a->m[6 + c]);
}

static inline cl_vec3 cl_mat3_row(const cl_mat3 *a, int r) {
  return cl_vec3_make(a->m[3 * r], a->m[3 * r + 1], a->m[3 * r + 2]);
}

static inline void cl_mat3_set_col(cl_mat3 *a, int c, cl_vec3 v) {
  a->m[c] = v.x;
  a->m[3 + c] = v.y;
  a->m[6 + c] = v.z;
}

static inline cl_mat3 cl_mat3_add(const cl_mat3 *a, const cl_mat3 *b) {
  cl_mat3 r;
  for (int i = 0; i < 9; ++i) r.m[i] = a->m[i] + b->m[i];
  return r;
}

static inline cl_mat3 cl_mat3_sub(const cl_mat3 *a, const cl_mat3 *b) {
  cl_mat3 r;
  for (int i = 0; i < 9; ++i) r.m[i] = a->m[i] - b->m[i];
  return r;
}

static inline cl_mat3 cl_mat3_scale(const cl_mat3 *a, double s) {
  cl_mat3 r;
  for (int i = 0; i < 9; ++i) r.m[i] = a->m[i] * s;
  return r;
}

/* a * b */
static inline cl_mat3 cl_mat3_mul(const cl_mat3 *a, const cl_mat3 *b) {
  cl_mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[3 * i + j] = a->m[3 * i] * b->m[j] + a->m[3 * i + 1] * b->m[3 + j] + a->m[3 * i + 2] * b->m[6 + j];
  return r;
}

/* a^T * b (e.g. R^T F without forming R^T). */
static inline cl_mat3 cl_mat3_mul_tn(const cl_mat3 *a, const cl_mat3 *b) {
  cl_mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[3 * i + j] = a->m[i] * b->m[j] + a->m[3 + i] * b->m[3 + j] + a->m[6 + i] * b->m[6 + j];
  return r;
}

/* a * b^T (e.g. U V^T). */
static inline cl_mat3 cl_mat3_mul_nt(const cl_mat3 *a, const cl_mat3 *b) {
  cl_mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[3 * i + j] =
          a->m[3 * i] * b->m[3 * j] + a->m[3 * i + 1] * b->m[3 * j + 1] + a->m[3 * i + 2] * b->m[3 * j + 2];
  return r;
}

static inline cl_vec3 cl_mat3_mul_vec(const cl_mat3 *a, cl_vec3 v) {
  return cl_vec3_make(a->m[0] * v.x + a->m[1] * v.y + a->m[2] * v.z, a->m[3] * v.x + a->m[4] * v.y + a->m[5] * v.z,
                      a->m[6] * v.x + a->m[7] * v.y + a->m[8] * v.z);
}

/* a^T v */
static inline cl_vec3 cl_mat3_tmul_vec(const cl_mat3 *a, cl_vec3 v) {
  return cl_vec3_make(a->m[0] * v.x + a->m[3] * v.y + a->m[6] * v.z, a->m[1] * v.x + a->m[4] * v.y + a->m[7] * v.z,
                      a->m[2] * v.x + a->m[5] * v.y + a->m[8] * v.z);
}

static inline cl_mat3 cl_mat3_transpose(const cl_mat3 *a) {
  cl_mat3 r = {{a->m[0], a->m[3], a->m[6], a->m[1], a->m[4], a->m[7], a->m[2], a->m[5], a->m[8]}};
  return r;
}

/* The symmetric part (a + a^T) / 2. */
static inline cl_mat3 cl_mat3_sym(const cl_mat3 *a) {
  cl_mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[3 * i + j] = 0.5 * (a->m[3 * i + j] + a->m[3 * j + i]);
  return r;
}

/* u v^T */
static inline cl_mat3 cl_mat3_outer(cl_vec3 u, cl_vec3 v) {
  cl_mat3 r = {{u.x * v.x, u.x * v.y, u.x * v.z, u.y * v.x, u.y * v.y, u.y * v.z, u.z * v.x, u.z * v.y, u.z * v.z}};
  return r;
}

/* a += s * u v^T (accumulating A_pq = sum m p q^T in shape matching, Mueller et al. 2005 eq. 7). */
static inline void cl_mat3_add_outer(cl_mat3 *a, double s, cl_vec3 u, cl_vec3 v) {
  double su[3] = {s * u.x, s * u.y, s * u.z};
  for (int i = 0; i < 3; ++i) {
    a->m[3 * i] += su[i] * v.x;
    a->m[3 * i + 1] += su[i] * v.y;
    a->m[3 * i + 2] += su[i] * v.z;
  }
}

static inline double cl_mat3_det(const cl_mat3 *a) {
  const double *m = a->m;
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

static inline double cl_mat3_trace(const cl_mat3 *a) { return a->m[0] + a->m[4] + a->m[8]; }

/* Frobenius norm sqrt(sum a_ij^2). (Overflows for entries above ~1e153; the decompositions below
 * scale by a power of two first and do not use it on raw input.) */
static inline double cl_mat3_frobenius(const cl_mat3 *a) {
  double s = 0.0;
  for (int i = 0; i < 9; ++i) s += a->m[i] * a->m[i];
  return sqrt(s);
}

/* max |a_ij|: a scale that cannot overflow. */
static inline double cl_mat3_max_abs(const cl_mat3 *a) {
  double s = 0.0;
  for (int i = 0; i < 9; ++i) {
    double v = fabs(a->m[i]);
    if (v > s) s = v;
  }
  return s;
}

/* e such that x = f 2^e with |f| in [0.5, 1), as frexp gives, read from the bits for normal
 * numbers (frexp is a library call, and the decompositions below scale by it every time). */
static inline int cl_exponent_of(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int be = (int)((bits >> 52) & 0x7ff);
  if (be == 0 || be == 0x7ff) { /* zero, subnormal, Inf, NaN: rare, let the library handle them */
    int e = 0;
    (void)frexp(x, &e);
    return e;
  }
  return be - 1022;
}

/* 2^e exactly, for -1022 <= e <= 1023 (normal range). */
static inline double cl_pow2i(int e) {
  uint64_t bits = (uint64_t)(e + 1023) << 52;
  double r;
  memcpy(&r, &bits, sizeof r);
  return r;
}

/* 1 when every entry is finite (no NaN, no Inf). */
static inline int cl_mat3_isfinite(const cl_mat3 *a) {
  /* x - x is 0 for finite x and NaN for NaN or Inf, so one comparison checks all nine. */
  double s = 0.0;
  for (int i = 0; i < 9; ++i) s += a->m[i] - a->m[i];
  return s == 0.0;
}

/* Inverse by the adjugate (after an exact power-of-two scaling, so any finite scale works).
 * Returns CL_ERR_INVALID_ARGUMENT for NaN/Inf entries and CL_ERR_NUMERICAL when a is numerically
 * singular (condition number ||a||_F ||a^-1||_F >= 1e15) or the inverse overflows; *out is then
 * the zero matrix. */
cl_status cl_mat3_inverse(const cl_mat3 *a, cl_mat3 *out);

/* Singular value decomposition A = U diag(sigma) V^T with U and V proper rotations (det +1) and
 * |sigma.x| >= |sigma.y| >= |sigma.z|; sigma.x, sigma.y >= 0 and sigma.z carries the sign of det A
 * (the "signed" or rotation-variant SVD of Irving, Teran and Fedkiw 2004, sec. 5, which invertible
 * FEM needs so an inverted element is recognised and pushed back). Robust for rank 0..2, repeated
 * singular values, inverted and badly scaled input. Returns CL_ERR_INVALID_ARGUMENT for NaN/Inf
 * entries, CL_ERR_NUMERICAL when a singular value overflows the double range, and
 * CL_WARN_NOT_CONVERGED (the result still usable, with a reconstruction error above 1e-15) if the
 * Jacobi iteration hit its sweep limit, which the tests never see. */
cl_status cl_svd3(const cl_mat3 *A, cl_mat3 *U, cl_vec3 *sigma, cl_mat3 *V);

/* Same contract, outputs and accuracy as cl_svd3 (ordering, signs, error returns, meaning of
 * CL_WARN_NOT_CONVERGED), about 2x faster on near-rotations and general matrices: V starts from a
 * closed-form eigen-decomposition of A^T A and is then polished by cl_svd3's one-sided Jacobi on
 * A V, with the same stopping test, so the final accuracy is the one-sided method's (svd3.c
 * explains). Results may differ from cl_svd3's in the last bits and, for repeated singular values,
 * in the choice of singular vectors. Slower than cl_svd3 (~0.8x) only when two singular values
 * are exactly equal, where cl_svd3 itself converges unusually fast. */
cl_status cl_svd3_fast(const cl_mat3 *A, cl_mat3 *U, cl_vec3 *sigma, cl_mat3 *V);

/* Polar decomposition A = R S with R a proper rotation and S symmetric, as given by the signed
 * SVD: R = U V^T, S = V diag(sigma) V^T. For det A < 0, S has one negative eigenvalue (R stays a
 * rotation, as corotational FEM with inversion handling wants). Well-conditioned A with det A > 0
 * (the usual element) take a scaled Newton fast path with the same result (the polar factor is
 * then unique), about 2.5x cheaper than the SVD; inverted, nearly singular or rank-deficient A
 * go through cl_svd3. Either output may be NULL. */
cl_status cl_polar3(const cl_mat3 *A, cl_mat3 *R, cl_mat3 *S);

/* Polar factor of a nearly orthogonal A without divisions: the Newton-Schulz iteration
 * X <- X (3 I - X^T X) / 2 (Bjorck and Bowie 1971; Higham, "Functions of Matrices", 2008, eq. 8.20)
 * from X = A. Every iterate keeps A's singular vectors and maps each singular value 1 + e to
 * about 1 - 1.5 e^2, so the limit is the U V^T of the SVD. Taken only when
 * delta = ||A^T A - I||_F <= 0.2 (singular values within [0.89, 1.1]) and det A > 0; then it
 * returns 1 with R, orthogonal to rounding once a step leaves ||X^T X - I||_F <= 1e-8 (a rigid
 * motion: one step; a strain of 1e-3: three), and *delta (may be NULL) bounds the singular values:
 * sqrt(1 - delta) <= sigma_i <= sqrt(1 + delta). Returns 0 (R untouched: the caller takes the SVD)
 * otherwise, also for NaN or Inf entries. */
int cl_polar3_near(const cl_mat3 *A, cl_mat3 *R, double *delta);

/* Eigen-decomposition of the symmetric part of A: (A + A^T)/2 = Q diag(evals) Q^T with evals
 * descending (evals.x >= evals.y >= evals.z) and the eigenvectors as the COLUMNS of Q, orthonormal
 * and right-handed (det Q = +1). Cyclic Jacobi, so the residual is at rounding level relative to
 * ||A||. evecs may be NULL. */
cl_status cl_eig_sym3(const cl_mat3 *A, cl_vec3 *evals, cl_mat3 *evecs);

/* Pseudo-inverse through the signed SVD, A+ = V diag(1/sigma_i) U^T, where every singular value
 * with |sigma_i| <= threshold * max|sigma| is treated as zero (its 1/sigma_i replaced by 0).
 * threshold must be finite and in [0, 1]. Returns CL_OK when nothing was clamped, CL_WARN_CLAMPED
 * (message: how many of the three were clamped) when at least one was, so callers such as the
 * shape-matching solver can fall back (F^p = I when A_rr is degenerate). The zero matrix gives the
 * zero matrix and a warning that all three were clamped. */
cl_status cl_pinv3(const cl_mat3 *A, double threshold, cl_mat3 *Ainv);

/* Rotation from Gram-Schmidt orthonormalisation of F's columns: r0 = f0/|f0|,
 * r1 = normalised part of f1 orthogonal to r0, r2 = r0 x r1 (so R is always proper, even for an
 * inverted F). Cheaper than the polar rotation but biased towards the first column; this is the
 * thesis's alternative for stiffness warping. When f0, or f1's part orthogonal to r0, is shorter
 * than 1e-8 of ||F||_F (a collapsed element), it falls back to the polar rotation, which is defined
 * for every F; the zero matrix gives the identity. */
cl_status cl_rotation_gram_schmidt(const cl_mat3 *F, cl_mat3 *R);

/* The rotation by the angle th about the unit axis a (Rodrigues):
 * Q = cos th I + sin th [a]x + (1 - cos th) a a^T, row-major in Q[9]. */
void cl_rotation_axis_angle(const double a[3], double th, double Q[9]);

/* The rotation exp([phi]x) by |phi| about phi (the identity for phi = 0 or not finite). */
void cl_rotation_vector(const double phi[3], double Q[9]);

#endif
