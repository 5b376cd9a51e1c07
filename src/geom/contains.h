/* Inside tests against a closed surface by the generalised winding number (Jacobson et al. 2013,
 * "Robust inside-outside segmentation using generalized winding numbers", SIGGRAPH): the sum of
 * the triangles' signed solid angles over 4 pi is 1 inside, 0 outside, and degrades gracefully
 * (values between) near small holes or overlaps of scanned meshes; a point is inside when w > 1/2. */
#ifndef CL_GEOM_CONTAINS_H
#define CL_GEOM_CONTAINS_H

#include <stdint.h>

#include "geom/bvh.h"
#include "geom/mesh.h"

/* Accuracy parameter of the fast winding number (Barill et al. 2018): a BVH node is replaced by its
 * dipole expansion when the point is farther than this many node radii from its centre. */
#define CL_WINDING_BETA 2.0

/* Exact winding number of a triangle surface at p (sum over all triangles, O(n)). */
double cl_surface_winding_number(const cl_mesh *surface, const double *p);

/* inside[i] = 1 when pts[3i..3i+2] is inside the surface (fast winding number > 1/2), else 0.
 * Builds a BVH, then classifies with cl_bvh_classify. Non-finite points are an error
 * (CL_ERR_INVALID_ARGUMENT). */
cl_status cl_surface_contains_many(const cl_mesh *surface, const double *pts, int32_t n, uint8_t *inside);

/* The same over a BVH built with winding data. Points are binned into a grid of cells over the
 * surface's bounding box. A cell that no triangle's box touches lies wholly on one side of the
 * surface, so one winding number decides all its points; for a closed surface (`closed` != 0,
 * cl_mesh_check_closed passes) the winding number is constant on each connected region of such
 * cells, so a flood fill decides them all with one evaluation per region. Only points in cells the
 * surface crosses are evaluated one by one. Points outside the bounding box are outside (they see
 * the surface within a half-space: |w| < 1/2). Parallel with OpenMP. */
cl_status cl_bvh_classify(const cl_bvh *bvh, int closed, const double *pts, int32_t n, uint8_t *inside);

/* An inside test for many scattered queries one at a time (Poisson sampling), on the same cells
 * (edge about `cell` m): flood-filled up front for a closed surface, else filled on first use. */
typedef struct cl_inside_cache {
  const cl_bvh *bvh;  /* borrowed */
  double lo[3], h;    /* grid origin and cell edge, m */
  int32_t n[3];       /* cells per axis */
  uint8_t *state;     /* per cell: 0 unknown, 1 crossed by the surface, 2 inside, 3 outside */
} cl_inside_cache;
cl_status cl_inside_cache_init(cl_inside_cache *c, const cl_bvh *bvh, int closed, double cell);
int cl_inside_cache_test(cl_inside_cache *c, const double *p);
void cl_inside_cache_free(cl_inside_cache *c);

/* 1 if the surface passes cl_mesh_check_closed (no error message is left behind), else 0. */
int cl_surface_is_closed(const cl_mesh *surface);

#endif
