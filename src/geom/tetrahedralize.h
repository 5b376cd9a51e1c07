/* Internal checks run on a surface before TetGen sees it (tetrahedralize.c): closedness is the
 * public cl_mesh_check_closed; self-intersection and segment-triangle tests are internal. */
#ifndef CL_GEOM_TETRAHEDRALIZE_H
#define CL_GEOM_TETRAHEDRALIZE_H

#include "geom/mesh.h"

/* CL_ERR_MESH naming the first pair of triangles that intersect other than along their shared
 * vertices or edge (or the first degenerate triangle); CL_OK when there is none. Triangles that
 * share one vertex are tested too (one folding through the other); triangles that share an edge
 * are not. Uses a triangle BVH: O(n log n) for well-shaped surfaces. */
cl_status cl_surface_check_self_intersections(const cl_mesh *surface);

/* 1 if segment [e0, e1] meets the closed triangle (a, b, c), else 0. `tol` is the distance below
 * which a point counts as on the triangle's plane (m). Coplanar segments are tested in 2D. */
int cl_segment_triangle_intersect(const double *e0, const double *e1, const double *a, const double *b,
                                  const double *c, double tol);

#endif
