/* Boundary faces of a tet mesh. */
#ifndef CL_GEOM_BOUNDARY_H
#define CL_GEOM_BOUNDARY_H

#include <stdint.h>

#include "cleave/status.h"

/* Faces used by exactly one of the `ntets` tets (4 indices each, positively oriented), as triangles
 * counter-clockwise seen from outside the tet that owns them. *tris_out (3 ints per face, in order
 * of owning tet, then local face 0..3 as listed in boundary.c) is malloc'd; the caller frees it
 * with free(). A face shared by three or more tets is an error (CL_ERR_MESH). O(n): faces are
 * bucketed by their smallest vertex with a counting sort, then matched inside each bucket. */
cl_status cl_boundary_faces(int32_t ntets, const int32_t *tets, int32_t **tris_out, int32_t *ntris_out);

/* The area vector of triangle (a, b, c): (b - a) x (c - a) / 2, m^2 along the normal of the
 * counter-clockwise side (outward for the faces above). */
static inline void cl_triangle_area_vector(const double *a, const double *b, const double *c, double *out) {
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  out[0] = 0.5 * (u[1] * v[2] - u[2] * v[1]);
  out[1] = 0.5 * (u[2] * v[0] - u[0] * v[2]);
  out[2] = 0.5 * (u[0] * v[1] - u[1] * v[0]);
}

#endif
