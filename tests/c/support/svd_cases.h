/* Test matrices for the 3x3 SVDs (test_mat3 checks cl_svd3 against the truth, test_svd3_fast
 * checks cl_svd3_fast against cl_svd3): one generator of each hard case, so both tests draw the
 * same matrices from the same seeds.
 *
 * Most are A = P diag(s) Q^T from random rotations P, Q and chosen singular values s, so the true
 * s is known. Every generator draws from the cl_rng it is given, in a fixed order, so a test that
 * runs categories one after another on one generator gets a reproducible sequence. */
#ifndef CL_TEST_SVD_CASES_H
#define CL_TEST_SVD_CASES_H

#include <stdint.h>

#include "base/mat3.h"
#include "base/rng.h"

typedef enum cl_svd_case_kind {
  CL_SVD_CASE_GENERIC,          /* s log-uniform in 1e-2 .. 1e2, det > 0 */
  CL_SVD_CASE_NEAR_SINGULAR,    /* s3 / s1 in 1e-12 .. 1e-6, every fourth also s2 tiny; det of either sign */
  CL_SVD_CASE_RANK_DEFICIENT,   /* by i % 3: rank 2, rank 1, graded (s3 / s1 in 1e-12 .. 1e-6) */
  CL_SVD_CASE_EXACT_INTEGER,    /* small integers, exactly rank 2 (odd i) or rank 1 (even i) */
  CL_SVD_CASE_REPEATED,         /* repeated and nearly repeated (1 + 1e-8, 1 + 1e-15 .. 1e-6) values */
  CL_SVD_CASE_INVERTED,         /* det < 0, the negative entry anywhere on the diagonal */
  CL_SVD_CASE_GAUSSIAN,         /* independent standard normal entries */
  CL_SVD_CASE_SCALED,           /* generic (a third rank 2) times 1e-150, 1e150, 1e-300, 1e300, 1e-305 */
  CL_SVD_CASE_GRADED_ROWS,      /* Gaussian rows scaled 1e150 : 1 : 1e-150 */
  CL_SVD_CASE_TINY_PAIR,        /* s = (1, t (1 + gap), t), t in 1e-82 .. 1e-70: Gram entries underflow */
  CL_SVD_CASE_TINY_PAIR_PLANE,  /* the same with P, Q rotations of the y-z plane only (block diagonal) */
  CL_SVD_CASE_COUNT
} cl_svd_case_kind;

typedef struct cl_svd_case {
  cl_mat3 A;
  /* The true singular values when `known`: descending |.|, the sign of det A on the last (for the
   * scaled category, of the unscaled matrix times the scale). */
  double s[3];
  int known;
  /* The sign of det A when the rounded entries still determine it, else 0. */
  int det_sign;
  /* 1 or 2 when the entries make A exactly of that rank (CL_SVD_CASE_EXACT_INTEGER), else 3. */
  int exact_rank;
} cl_svd_case;

/* The i-th matrix of category `kind` (i picks the sub-case, see the enumeration), drawn from r. */
void cl_svd_case_make(cl_svd_case_kind kind, int32_t i, cl_rng *r, cl_svd_case *out);
/* P diag(s1, s2, s3) Q^T with random rotations P, Q (P drawn first). */
cl_mat3 cl_svd_case_with_svals(cl_rng *r, double s1, double s2, double s3);
/* Three values in [lo, hi], log-uniform, sorted descending. */
void cl_svd_case_log_svals(cl_rng *r, double lo, double hi, double *s);

#endif
