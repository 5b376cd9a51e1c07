/* Affine maps of a mesh: x <- A x + t, and fitting a mesh into a box of a given size (scanned
 * meshes come in arbitrary units: the armadillo spans about 130 units). Fields are left unchanged:
 * they are per-point or per-cell values whose meaning the mesh does not know. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/mesh.h"

cl_status cl_mesh_transform(cl_mesh *m, const double *A, const double *t) {
  if (!m || !A || !t) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_transform: NULL argument");
  for (int k = 0; k < 9; ++k)
    if (!isfinite(A[k])) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_transform: A[%d] = %g is not finite", k, A[k]);
  for (int k = 0; k < 3; ++k)
    if (!isfinite(t[k])) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_transform: t[%d] = %g is not finite", k, t[k]);
  double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
               A[2] * (A[3] * A[7] - A[4] * A[6]);
  /* A singular map flattens every cell: tets would get zero volume, so refuse it. Singular means
   * the columns are (nearly) dependent, measured on unit columns: a tiny or badly scaled but
   * invertible map (det underflowing to 0) is not singular. */
  double U[9];
  for (int j = 0; j < 3; ++j) {
    double big = fmax(fabs(A[j]), fmax(fabs(A[3 + j]), fabs(A[6 + j]))), n = 0.0;
    for (int i = 0; i < 3; ++i) n += big > 0.0 ? (A[3 * i + j] / big) * (A[3 * i + j] / big) : 0.0;
    for (int i = 0; i < 3; ++i) U[3 * i + j] = big > 0.0 ? A[3 * i + j] / big / sqrt(n) : 0.0;
  }
  const double rdet = U[0] * (U[4] * U[8] - U[5] * U[7]) - U[1] * (U[3] * U[8] - U[5] * U[6]) +
                      U[2] * (U[3] * U[7] - U[4] * U[6]);
  if (m->kind != CL_MESH_POINTS && !(fabs(rdet) > 1e-12))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_transform: det A = %g; a singular map would flatten the cells", det);
  /* compute into a copy so that an overflow leaves the mesh untouched */
  double *y = cl_malloc(sizeof(double) * 3 * (size_t)m->npoints, "transformed points");
  if (!y) return CL_ERR_OUT_OF_MEMORY;
  for (int32_t i = 0; i < m->npoints; ++i) {
    const double *x = m->x + 3 * (size_t)i;
    for (int r = 0; r < 3; ++r) {
      double v = A[3 * r] * x[0] + A[3 * r + 1] * x[1] + A[3 * r + 2] * x[2] + t[r];
      if (!isfinite(v)) {
        free(y);
        return cl_fail(CL_ERR_NUMERICAL, "cl_mesh_transform: point %d maps to a non-finite coordinate", i);
      }
      y[3 * i + r] = v;
    }
  }
  memcpy(m->x, y, sizeof(double) * 3 * (size_t)m->npoints);
  free(y);
  if (rdet < 0) {
    /* A reflection turns every cell inside out; swapping two corners restores a positive volume
     * (tets) and the outward normals (triangles). */
    int cs = cl_mesh_cell_size(m->kind);
    for (int32_t c = 0; c < m->ncells; ++c) {
      int32_t *v = m->cells + (size_t)cs * c;
      int32_t tmp = v[cs - 1];
      v[cs - 1] = v[cs - 2];
      v[cs - 2] = tmp;
    }
  }
  return CL_OK;
}

cl_status cl_mesh_fit(cl_mesh *m, double size, const double *center) {
  if (!m || !center) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_fit: NULL argument");
  CL_TRY(cl_check_positive("size", size));
  for (int k = 0; k < 3; ++k)
    if (!isfinite(center[k]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_fit: center[%d] = %g is not finite", k, center[k]);
  if (m->npoints == 0) return cl_fail(CL_ERR_MESH, "cl_mesh_fit: the mesh has no points");
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) lo[k] = hi[k] = m->x[k];
  for (int32_t i = 1; i < m->npoints; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], m->x[3 * (size_t)i + k]);
      hi[k] = fmax(hi[k], m->x[3 * (size_t)i + k]);
    }
  double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  if (!(extent > 0.0) || !isfinite(extent))
    return cl_fail(CL_ERR_MESH, "cl_mesh_fit: the mesh's bounding box has extent %g; cannot scale it to %g m", extent, size);
  double s = size / extent;
  double A[9] = {s, 0, 0, 0, s, 0, 0, 0, s};
  double t[3];
  for (int k = 0; k < 3; ++k) t[k] = center[k] - s * 0.5 * (lo[k] + hi[k]);
  return cl_mesh_transform(m, A, t);
}
