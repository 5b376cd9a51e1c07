/* Rotation extraction for stiffness warping (thesis sec 3.2.5, appendix C).
 *
 * Polar (default): F = R S with the SIGNED polar decomposition of base/mat3.h (R = U V^T from the
 * rotation-variant SVD of Irving, Teran & Fedkiw 2004). For an inverted element (det F < 0) R stays
 * a proper rotation and S keeps one negative eigenvalue, so the corotated strain S - I along that
 * axis is below -1 and the linear stress pushes the element back through zero volume: this is the
 * inversion handling of the solver (docs/solvers/corotational.md, "Element inversion").
 *
 * Gram-Schmidt (option): R from orthonormalising F's first two columns, third axis r0 x r1, so R is
 * always right-handed; for an inverted element the third column of R^T F comes out negative, which is
 * the flip of the last basis axis of Nesme, Payan & Faure 2005 that the thesis describes. */
#include "solvers/corotational/corot.h"

#include "base/error.h"

cl_status cl_corot_rotation(int method, const cl_mat3 *F, cl_mat3 *R) {
  if (method == CL_COROT_ROTATION_GRAM_SCHMIDT) return cl_rotation_gram_schmidt(F, R);
  cl_status s = cl_polar3(F, R, NULL);
  /* A Jacobi sweep limit still leaves a usable rotation (mat3.h); only errors matter here. */
  return s < 0 ? s : CL_OK;
}
