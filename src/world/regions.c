/* Regions: which nodes of a body a boundary condition takes, chosen by rest position (or, for the
 * tools that take nodes when they start acting, by current position: tools.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"
#include "world/world.h"

cl_status cl_region_check(const cl_region_def *r) {
  switch (r->kind) {
    case CL_REGION_ALL: return CL_OK;
    case CL_REGION_SLAB:
      if (r->axis < 0 || r->axis > 2)
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "slab region: axis = %d must be 0 (x), 1 (y) or 2 (z)", r->axis);
      if (isnan(r->lo[0]) || isnan(r->hi[0]))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "slab region: bounds lo[0] = %g, hi[0] = %g must not be NaN",
                       r->lo[0], r->hi[0]);
      if (r->lo[0] > r->hi[0])
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "slab region: lo[0] = %g > hi[0] = %g (need lo <= hi)", r->lo[0],
                       r->hi[0]);
      return CL_OK;
    case CL_REGION_BOX:
      for (int k = 0; k < 3; ++k) {
        if (isnan(r->lo[k]) || isnan(r->hi[k]))
          return cl_fail(CL_ERR_INVALID_ARGUMENT, "box region: corner coordinate %d is NaN", k);
        if (r->lo[k] > r->hi[k])
          return cl_fail(CL_ERR_INVALID_ARGUMENT, "box region: lo[%d] = %g > hi[%d] = %g (need lo <= hi)", k,
                         r->lo[k], k, r->hi[k]);
      }
      return CL_OK;
    case CL_REGION_SPHERE:
      for (int k = 0; k < 3; ++k)
        if (!isfinite(r->center[k]))
          return cl_fail(CL_ERR_INVALID_ARGUMENT, "sphere region: center[%d] = %g must be finite", k, r->center[k]);
      if (!(r->radius > 0.0) || isinf(r->radius))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "sphere region: radius = %g m must be positive and finite",
                       r->radius);
      return CL_OK;
    case CL_REGION_INDICES:
      if (r->count < 1)
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "index region: count = %d selects no nodes (need >= 1)", r->count);
      if (!r->indices) return cl_fail(CL_ERR_INVALID_ARGUMENT, "index region: indices is NULL with count %d", r->count);
      return CL_OK;
  }
  return cl_fail(CL_ERR_INVALID_ARGUMENT,
                 "region kind %d is not one of all (0), slab (1), box (2), sphere (3), indices (4)", (int)r->kind);
}

void cl_region_describe(const cl_region_def *r, char *buf, size_t size) {
  static const char axes[] = "xyz";
  switch (r->kind) {
    case CL_REGION_ALL: snprintf(buf, size, "all nodes"); break;
    case CL_REGION_SLAB: snprintf(buf, size, "slab %g <= %c <= %g", r->lo[0], axes[r->axis], r->hi[0]); break;
    case CL_REGION_BOX:
      snprintf(buf, size, "box [%g, %g] x [%g, %g] x [%g, %g]", r->lo[0], r->hi[0], r->lo[1], r->hi[1], r->lo[2],
               r->hi[2]);
      break;
    case CL_REGION_SPHERE:
      snprintf(buf, size, "sphere of radius %g at (%g, %g, %g)", r->radius, r->center[0], r->center[1],
               r->center[2]);
      break;
    case CL_REGION_INDICES: snprintf(buf, size, "%d explicit indices", r->count); break;
  }
}

void cl_node_bounds(const double *P, int32_t n, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; ++k) lo[k] = hi[k] = 0.0;
  for (int32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      const double x = P[3 * (size_t)i + k];
      if (i == 0 || x < lo[k]) lo[k] = x;
      if (i == 0 || x > hi[k]) hi[k] = x;
    }
}

cl_status cl_region_pick(const cl_region_def *r, const cl_body *body, const double *P, int32_t **nodes_out,
                         int32_t *count_out) {
  *nodes_out = NULL;
  *count_out = 0;
  const int32_t n = body->state.n;
  double lo[3], hi[3];
  cl_node_bounds(P, n, lo, hi);
  double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                     (hi[2] - lo[2]) * (hi[2] - lo[2]));
  double tol = 1e-9 * diag;

  int32_t cap = r->kind == CL_REGION_INDICES ? r->count : n;
  int32_t *nodes = cl_malloc(sizeof(int32_t) * (size_t)(cap > 0 ? cap : 1), "region nodes");
  if (!nodes) return CL_ERR_OUT_OF_MEMORY;
  int32_t count = 0;
  if (r->kind == CL_REGION_INDICES) {
    /* duplicates are dropped; a mark array keeps it linear */
    unsigned char *seen = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!seen) {
      free(nodes);
      return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory selecting a region");
    }
    for (int32_t j = 0; j < r->count; ++j) {
      int32_t i = r->indices[j];
      if (i < 0 || i >= n) {
        free(seen);
        free(nodes);
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "index region: indices[%d] = %d is outside the nodes [0, %d) of %s",
                       j, i, n, body->label);
      }
      if (!seen[i]) {
        seen[i] = 1;
        nodes[count++] = i;
      }
    }
    free(seen);
  } else {
    for (int32_t i = 0; i < n; ++i) {
      const double *X = P + 3 * (size_t)i;
      int in = 0;
      switch (r->kind) {
        case CL_REGION_ALL: in = 1; break;
        case CL_REGION_SLAB: in = X[r->axis] >= r->lo[0] - tol && X[r->axis] <= r->hi[0] + tol; break;
        case CL_REGION_BOX:
          in = 1;
          for (int k = 0; k < 3; ++k) in = in && X[k] >= r->lo[k] - tol && X[k] <= r->hi[k] + tol;
          break;
        case CL_REGION_SPHERE: {
          double d2 = 0.0;
          for (int k = 0; k < 3; ++k) d2 += (X[k] - r->center[k]) * (X[k] - r->center[k]);
          in = sqrt(d2) <= r->radius + tol;
          break;
        }
        case CL_REGION_INDICES: break;
      }
      if (in) nodes[count++] = i;
    }
  }
  if (count == 0) {
    free(nodes);
    return CL_OK;
  }
  *nodes_out = nodes;
  *count_out = count;
  return CL_OK;
}

cl_status cl_region_select(const cl_region_def *r, const cl_body *body, int32_t **nodes_out, int32_t *count_out) {
  CL_TRY(cl_region_pick(r, body, body->state.X, nodes_out, count_out));
  if (*count_out > 0) return CL_OK;
  char what[160];
  double lo[3], hi[3];
  cl_region_describe(r, what, sizeof what);
  cl_node_bounds(body->state.X, body->state.n, lo, hi);
  return cl_fail(CL_ERR_INVALID_ARGUMENT,
                 "region (%s) selects no node of %s, whose rest bounding box is [%g, %g] x [%g, %g] x [%g, %g]", what,
                 body->label, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
}
