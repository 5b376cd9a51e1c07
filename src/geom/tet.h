/* Geometry of one tetrahedron: its edge matrix and signed volume. The one definition used by mesh
 * validation and measure (mesh.c, mesh_io.c), TetGen's input checks (tetrahedralize.c, as cones from
 * the origin), the body volume (world/body.c) and the FEM element code (fem/tet.h), so that a volume
 * means the same number everywhere.
 *
 * With corners a, b, c, d the edge matrix is D = [b - a, c - a, d - a] (edges as columns) and the
 * volume det(D) / 6, positive for the orientation cl_mesh_kind documents (det[x1 - x0, x2 - x0,
 * x3 - x0] > 0). The determinant is cl_mat3_det's expansion of D, the one the corotational rest
 * volumes V = det(Dm) / 6 have always used, so they keep their bits. */
#ifndef CL_GEOM_TET_H
#define CL_GEOM_TET_H

#include <stdint.h>

#include "base/mat3.h"

/* D = [b - a, c - a, d - a], row-major: D.m[3 k + j] is component k of edge j. */
static inline cl_mat3 cl_tet_edges(const double *a, const double *b, const double *c, const double *d) {
  cl_mat3 D;
  for (int k = 0; k < 3; ++k) {
    D.m[3 * k] = b[k] - a[k];
    D.m[3 * k + 1] = c[k] - a[k];
    D.m[3 * k + 2] = d[k] - a[k];
  }
  return D;
}

/* The edge matrix of the tet whose corners are nodes t[0..3] of the positions x (3 per node). */
static inline cl_mat3 cl_tet_edges_of(const double *x, const int32_t *t) {
  return cl_tet_edges(x + 3 * (int64_t)t[0], x + 3 * (int64_t)t[1], x + 3 * (int64_t)t[2], x + 3 * (int64_t)t[3]);
}

/* Signed volume det(D) / 6 of a tet with edge matrix D, m^3. */
static inline double cl_tet_volume_of_edges(const cl_mat3 *D) { return cl_mat3_det(D) / 6.0; }

/* Signed volume of the tet a, b, c, d (3 doubles each), m^3. */
static inline double cl_tet_volume(const double *a, const double *b, const double *c, const double *d) {
  const cl_mat3 D = cl_tet_edges(a, b, c, d);
  return cl_tet_volume_of_edges(&D);
}

#endif
