/* Inside tests against a closed surface by the generalised winding number (Jacobson et al. 2013,
 * "Robust inside-outside segmentation using generalized winding numbers", SIGGRAPH): the sum of
 * the triangles' signed solid angles over 4 pi is 1 inside, 0 outside, and degrades gracefully
 * (values between) near small holes or overlaps of scanned meshes; a point is inside when w > 1/2. */
#ifndef CL_GEOM_CONTAINS_H
#define CL_GEOM_CONTAINS_H

#include <stdint.h>

#include "geom/mesh.h"

/* Accuracy parameter of the fast winding number (Barill et al. 2018): a BVH node is replaced by its
 * dipole expansion when the point is farther than this many node radii from its centre. */
#define CL_WINDING_BETA 2.0

/* Exact winding number of a triangle surface at p (sum over all triangles, O(n)). */
double cl_surface_winding_number(const cl_mesh *surface, const double *p);

/* inside[i] = 1 when pts[3i..3i+2] is inside the surface (fast winding number > 1/2), else 0.
 * Builds a BVH once, then O(log n) per point; parallel with OpenMP. Non-finite points are an
 * error (CL_ERR_INVALID_ARGUMENT). */
cl_status cl_surface_contains_many(const cl_mesh *surface, const double *pts, int32_t n, uint8_t *inside);

#endif
