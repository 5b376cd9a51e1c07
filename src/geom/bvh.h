/* A bounding volume hierarchy over the triangles of a surface (median split on the longest axis,
 * leaves of up to 4 triangles). It serves three queries: pairs of triangles whose boxes overlap
 * (self-intersection check), the first hit of a ray, and the fast generalised winding number of
 * Barill et al. 2018 ("Fast winding numbers for soups and clouds", SIGGRAPH), which replaces far
 * clusters of triangles by a second-order dipole expansion. */
#ifndef CL_GEOM_BVH_H
#define CL_GEOM_BVH_H

#include <stdint.h>

#include "cleave/status.h"

typedef struct cl_bvh_node {
  double lo[3], hi[3]; /* bounding box of the node's triangles, m */
  int32_t first;       /* leaf: first slot in order[]; inner: index of the left child (right = +1) */
  int32_t count;       /* leaf: number of triangles (> 0); inner: 0 */
} cl_bvh_node;

typedef struct cl_bvh {
  const double *x;     /* borrowed: 3 doubles per point; must outlive the tree */
  const int32_t *tris; /* borrowed: 3 indices per triangle */
  int32_t ntris;
  int32_t nnodes;
  cl_bvh_node *nodes;  /* nodes[0] is the root */
  int32_t *order;      /* triangle indices, leaves own contiguous ranges */
  /* Far-field data of the fast winding number (filled by cl_bvh_build with winding = 1):
   * per node the area-weighted centroid c (3), the summed area vectors N = sum a_t n_t (3), the
   * first moment M = sum (x_t - c) (x) a_t n_t (9, row-major) and the radius r of a ball around c
   * holding all the node's vertices. */
  double *wn_c, *wn_n, *wn_m, *wn_r;
} cl_bvh;

/* Build over `ntris` triangles of the points x (both borrowed). winding != 0 also computes the
 * far-field moments for cl_bvh_winding_number. Free with cl_bvh_free. */
cl_status cl_bvh_build(const double *x, const int32_t *tris, int32_t ntris, int winding, cl_bvh *bvh);
void cl_bvh_free(cl_bvh *bvh);

/* Generalised winding number of the surface at p (1 inside a closed outward surface, 0 outside):
 * exact solid angles for nodes closer than beta times their radius, the dipole expansion beyond.
 * The expansion keeps the first two terms, so the error falls about as beta^-3: on the bunny and
 * armadillo, beta = 2 gives a mean error of 3e-3 and a maximum of 3e-2, beta = 4 a maximum of 2e-3
 * (tests/c/test_sampling.c); classification (w > 1/2) of a closed surface is unaffected. */
double cl_bvh_winding_number(const cl_bvh *bvh, const double *p, double beta);

/* Call fn(a, b, ctx) for every pair of distinct triangles a < b whose bounding boxes overlap
 * (boxes inflated by `pad` m). Stops early and returns the callback's value when it is non-zero. */
int cl_bvh_overlapping_pairs(const cl_bvh *bvh, double pad, int (*fn)(int32_t a, int32_t b, void *ctx), void *ctx);

/* First triangle hit by the ray o + t d, t > tmin (Moller-Trumbore); skips triangle `skip`
 * (-1 for none). Returns the triangle index and sets *t_hit, or -1 when nothing is hit. */
int32_t cl_bvh_ray_first_hit(const cl_bvh *bvh, const double *o, const double *d, double tmin, int32_t skip,
                             double *t_hit);

/* Exact solid angle of triangle (a, b, c) seen from p, in steradians, signed positive when the
 * triangle is counter-clockwise seen from the side p is not on (Van Oosterom & Strackee 1983,
 * IEEE Trans. Biomed. Eng. 30(2)). */
double cl_triangle_solid_angle(const double *a, const double *b, const double *c, const double *p);

#endif
