/* Connected components by union-find (union by size, path halving). */
#include "geom/components.h"

#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/mesh.h"

static int32_t find_root(int32_t *parent, int32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]]; /* path halving: every visited node skips a level */
    i = parent[i];
  }
  return i;
}

cl_status cl_components(int32_t npoints, const int32_t *cells, int32_t ncells, int32_t cell_size, int32_t *label,
                        int32_t *count) {
  if (!count) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_components: count is NULL");
  *count = 0;
  if (npoints < 0 || ncells < 0 || cell_size < 0 || (ncells > 0 && cell_size > 0 && !cells))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_components: bad arguments (points %d, cells %d, cell size %d)",
                   npoints, ncells, cell_size);
  if (npoints == 0) return CL_OK;
  int32_t *parent = cl_malloc(sizeof(int32_t) * 2 * (size_t)npoints, "union-find");
  if (!parent) return CL_ERR_OUT_OF_MEMORY;
  int32_t *size = parent + npoints;
  for (int32_t i = 0; i < npoints; ++i) {
    parent[i] = i;
    size[i] = 1;
  }
  for (int32_t c = 0; c < ncells; ++c) {
    const int32_t *v = cells + (size_t)cell_size * c;
    for (int32_t k = 0; k < cell_size; ++k)
      if (v[k] < 0 || v[k] >= npoints) {
        free(parent);
        return cl_fail(CL_ERR_MESH, "cell %d refers to point %d, outside [0, %d)", c, v[k], npoints);
      }
    int32_t r0 = find_root(parent, v[0]);
    for (int32_t k = 1; k < cell_size; ++k) {
      int32_t r = find_root(parent, v[k]);
      if (r == r0) continue;
      if (size[r] > size[r0]) {
        int32_t t = r;
        r = r0;
        r0 = t;
      }
      parent[r] = r0;
      size[r0] += size[r];
    }
  }
  /* Number the roots in order of first appearance over point indices; size[] is reused as the
   * root -> label map. */
  int32_t n = 0;
  for (int32_t i = 0; i < npoints; ++i) size[i] = -1;
  for (int32_t i = 0; i < npoints; ++i) {
    int32_t r = find_root(parent, i);
    if (size[r] < 0) size[r] = n++;
    if (label) label[i] = size[r];
  }
  free(parent);
  *count = n;
  return CL_OK;
}

cl_status cl_mesh_components(const cl_mesh *mesh, int32_t *count) {
  if (!mesh || !count) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_components: NULL argument");
  return cl_components(mesh->npoints, mesh->cells, mesh->ncells, cl_mesh_cell_size(mesh->kind), NULL, count);
}
