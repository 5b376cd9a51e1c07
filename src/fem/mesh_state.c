/* Checking a tet mesh and copying it into the body state; see mesh_state.h. */
#include "fem/mesh_state.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

cl_status cl_fem_state_from_mesh(const cl_mesh *m, const char *solver, cl_body_state *st) {
  if (m->kind != CL_MESH_TETS || m->ncells < 1)
    return cl_fail(CL_ERR_MESH, "solver '%s' needs a tetrahedral mesh (got a %s with %d cells); tetrahedralize the "
                   "surface first (shape:tetrahedralize{...} in Lua, cl_mesh_tetrahedralize in C)", solver,
                   m->kind == CL_MESH_POINTS ? "point set" : m->kind == CL_MESH_TRIANGLES ? "triangle surface" : "mesh",
                   m->ncells);
  /* every node must belong to a tet: an isolated node has no mass and no stiffness */
  int32_t *uses = cl_calloc((size_t)m->npoints, sizeof(int32_t), "node use counts");
  if (!uses) return CL_ERR_OUT_OF_MEMORY;
  for (int64_t j = 0; j < 4 * (int64_t)m->ncells; ++j) {
    const int32_t v = m->cells[j];
    if (v < 0 || v >= m->npoints) {
      free(uses);
      return cl_fail(CL_ERR_MESH, "tet %lld refers to node %d outside [0, %d)", (long long)(j / 4), v, m->npoints);
    }
    uses[v]++;
  }
  int32_t isolated = 0, first = -1;
  for (int32_t i = 0; i < m->npoints; ++i)
    if (!uses[i]) {
      if (first < 0) first = i;
      ++isolated;
    }
  free(uses);
  if (isolated)
    return cl_fail(CL_ERR_MESH, "%d of %d mesh nodes belong to no tet (first: node %d); the %s solver cannot give "
                   "them mass or stiffness: remove unused points from the mesh", isolated, m->npoints, first, solver);
  const size_t n = (size_t)m->npoints;
  CL_TRY(cl_body_state_resize(st, m->npoints));
  memcpy(st->x, m->x, sizeof(double) * 3 * n);
  memcpy(st->X, m->x, sizeof(double) * 3 * n);
  memset(st->v, 0, sizeof(double) * 3 * n);
  CL_TRY(cl_body_state_reserve_cells(st, 4, m->ncells));
  memcpy(st->cells, m->cells, sizeof(int32_t) * 4 * (size_t)m->ncells);
  st->ncells = m->ncells;
  return CL_OK;
}
