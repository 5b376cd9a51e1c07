/* Swiss cheese: remove the parts of a tet mesh or point set that lie inside spheres. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/mesh.h"

static int in_any_sphere(const double *p, const double *centers, const double *radii, int32_t count) {
  for (int32_t s = 0; s < count; ++s) {
    const double *c = centers + 3 * (size_t)s;
    double d2 = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]);
    if (d2 < radii[s] * radii[s]) return 1;
  }
  return 0;
}

/* Keep the entries i with keep[i] of an array of n tuples of `width` elements of `size` bytes. */
static void compact(void *data, size_t width, size_t size, const unsigned char *keep, int32_t n) {
  char *d = data;
  size_t stride = width * size, k = 0;
  for (int32_t i = 0; i < n; ++i)
    if (keep[i]) {
      if (k != (size_t)i) memmove(d + k * stride, d + (size_t)i * stride, stride);
      ++k;
    }
}

cl_status cl_mesh_carve_spheres(cl_mesh *m, const double *centers, const double *radii, int32_t count) {
  if (!m) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_carve_spheres: mesh is NULL");
  if (count < 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_carve_spheres: count = %d < 0", count);
  if (count == 0) return CL_OK;
  if (!centers || !radii) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_carve_spheres: NULL centers or radii");
  if (m->kind == CL_MESH_TRIANGLES)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_mesh_carve_spheres: carving a triangle surface is not supported; tetrahedralize it first, or "
                   "carve a point set");
  for (int32_t s = 0; s < count; ++s) {
    const double *c = centers + 3 * (size_t)s;
    if (!isfinite(c[0]) || !isfinite(c[1]) || !isfinite(c[2]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "sphere %d centre (%g, %g, %g) is not finite", s, c[0], c[1], c[2]);
    if (!(radii[s] > 0 && isfinite(radii[s])))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "sphere %d radius = %g m: must be finite and > 0", s, radii[s]);
  }
  int32_t np = m->npoints, nc = m->ncells;
  unsigned char *keep_pt = cl_calloc((size_t)(np > 0 ? np : 1), 1, "carve flags");
  unsigned char *keep_cell = cl_calloc((size_t)(nc > 0 ? nc : 1), 1, "carve flags");
  int32_t *map = cl_malloc(sizeof(int32_t) * (size_t)(np > 0 ? np : 1), "carve point map");
  if (!keep_pt || !keep_cell || !map) {
    free(keep_pt);
    free(keep_cell);
    free(map);
    return CL_ERR_OUT_OF_MEMORY;
  }
  int32_t kept_cells = 0, kept_pts = 0;
  if (m->kind == CL_MESH_POINTS) {
    for (int32_t i = 0; i < np; ++i) kept_pts += keep_pt[i] = !in_any_sphere(m->x + 3 * (size_t)i, centers, radii, count);
  } else {
    for (int32_t c = 0; c < nc; ++c) {
      const int32_t *v = m->cells + 4 * (size_t)c;
      double g[3];
      for (int k = 0; k < 3; ++k)
        g[k] = 0.25 * (m->x[3 * v[0] + k] + m->x[3 * v[1] + k] + m->x[3 * v[2] + k] + m->x[3 * v[3] + k]);
      keep_cell[c] = !in_any_sphere(g, centers, radii, count);
      if (keep_cell[c]) {
        ++kept_cells;
        for (int k = 0; k < 4; ++k) keep_pt[v[k]] = 1;
      }
    }
    for (int32_t i = 0; i < np; ++i) kept_pts += keep_pt[i];
  }
  cl_status st = CL_OK;
  if (kept_pts == 0 || (m->kind == CL_MESH_TETS && kept_cells == 0)) {
    st = cl_fail(CL_ERR_MESH, "cl_mesh_carve_spheres: the %d sphere(s) remove the whole mesh (%d %s)", count,
                 m->kind == CL_MESH_TETS ? nc : np, m->kind == CL_MESH_TETS ? "tets" : "points");
    goto done;
  }
  for (int32_t i = 0, k = 0; i < np; ++i) map[i] = keep_pt[i] ? k++ : -1;
  if (m->kind == CL_MESH_TETS) {
    compact(m->cells, 4, sizeof(int32_t), keep_cell, nc);
    for (size_t i = 0; i < 4 * (size_t)kept_cells; ++i) m->cells[i] = map[m->cells[i]];
  }
  compact(m->x, 3, sizeof(double), keep_pt, np);
  for (int32_t f = 0; f < m->nfields; ++f) {
    cl_field *fd = &m->fields[f];
    if (fd->where == CL_FIELD_POINT) compact(fd->values, (size_t)fd->ncomp, sizeof(double), keep_pt, np);
    else if (m->kind == CL_MESH_TETS) compact(fd->values, (size_t)fd->ncomp, sizeof(double), keep_cell, nc);
  }
  m->npoints = kept_pts;
  if (m->kind == CL_MESH_TETS) m->ncells = kept_cells;
done:
  free(keep_pt);
  free(keep_cell);
  free(map);
  return st;
}
