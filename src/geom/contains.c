/* Inside tests: exact and BVH-accelerated generalised winding numbers. */
#include "geom/contains.h"

#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "geom/bvh.h"

static const double FOUR_PI = 12.566370614359172953850573533118;

static cl_status check_surface(const cl_mesh *s, const char *fn) {
  if (!s) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: surface is NULL", fn);
  if (s->kind != CL_MESH_TRIANGLES)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: the mesh holds %s, a triangle surface is needed", fn,
                   s->kind == CL_MESH_TETS ? "tets" : "points");
  if (s->ncells < 1) return cl_fail(CL_ERR_MESH, "%s: the surface has no triangles", fn);
  return CL_OK;
}

double cl_surface_winding_number(const cl_mesh *s, const double *p) {
  double omega = 0.0;
  for (int32_t t = 0; t < s->ncells; ++t) {
    const int32_t *v = s->cells + 3 * (size_t)t;
    omega += cl_triangle_solid_angle(s->x + 3 * (size_t)v[0], s->x + 3 * (size_t)v[1], s->x + 3 * (size_t)v[2], p);
  }
  return omega / FOUR_PI;
}

cl_status cl_mesh_contains(const cl_mesh *surface, const double *p, int32_t *inside) {
  if (!p || !inside) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_contains: NULL argument");
  *inside = 0;
  CL_TRY(check_surface(surface, "cl_mesh_contains"));
  if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_contains: point (%g, %g, %g) is not finite", p[0], p[1], p[2]);
  *inside = cl_surface_winding_number(surface, p) > 0.5;
  return CL_OK;
}

cl_status cl_surface_contains_many(const cl_mesh *surface, const double *pts, int32_t n, uint8_t *inside) {
  CL_TRY(check_surface(surface, "cl_surface_contains_many"));
  if (n < 0 || (n > 0 && (!pts || !inside)))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_surface_contains_many: NULL array or negative count %d", n);
  for (int32_t i = 0; i < n; ++i) {
    const double *p = pts + 3 * (size_t)i;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_surface_contains_many: point %d (%g, %g, %g) is not finite", i, p[0],
                     p[1], p[2]);
  }
  if (n == 0) return CL_OK;
  cl_bvh bvh;
  CL_TRY(cl_bvh_build(surface->x, surface->cells, surface->ncells, 1, &bvh));
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 256)
#endif
  for (int32_t i = 0; i < n; ++i)
    inside[i] = cl_bvh_winding_number(&bvh, pts + 3 * (size_t)i, CL_WINDING_BETA) > 0.5;
  cl_bvh_free(&bvh);
  return CL_OK;
}
