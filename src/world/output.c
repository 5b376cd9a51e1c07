/* cl_body_write: a body's current state as a mesh file, through cl_mesh_write. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/mesh.h"
#include "world/world.h"

static int has_extension(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  if (n < e) return 0;
  for (size_t i = 0; i < e; ++i)
    if (tolower((unsigned char)path[n - e + i]) != ext[i]) return 0;
  return 1;
}

/* Tets (or points) at current positions with point fields displacement (x - X, m) and velocity
 * (m/s), and per-cell Cauchy stress (Pa, 9 components) when the units are the tets. */
static cl_status volume_mesh(cl_body *b, cl_mesh **out) {
  const cl_body_state *s = &b->state;
  int tets = s->cell_size == 4;
  cl_mesh *m;
  CL_TRY(cl_mesh_alloc(tets ? CL_MESH_TETS : CL_MESH_POINTS, s->n, tets ? s->ncells : 0, &m));
  memcpy(m->x, s->x, sizeof(double) * 3 * (size_t)s->n);
  if (tets) memcpy(m->cells, s->cells, sizeof(int32_t) * 4 * (size_t)s->ncells);
  double *d = cl_malloc(sizeof(double) * 3 * (size_t)s->n, "displacement field");
  cl_status st = d ? CL_OK : CL_ERR_OUT_OF_MEMORY;
  if (st == CL_OK) {
    for (int64_t j = 0; j < 3 * (int64_t)s->n; ++j) d[j] = s->x[j] - s->X[j];
    st = cl_mesh_set_field(m, "displacement", CL_FIELD_POINT, 3, d, s->n);
  }
  free(d);
  if (st >= 0) st = cl_mesh_set_field(m, "velocity", CL_FIELD_POINT, 3, s->v, s->n);
  if (st >= 0 && tets && b->ops->unit_count(b->solver) == s->ncells) {
    st = cl_body_measure(b);
    if (st >= 0) st = cl_mesh_set_field(m, "stress", CL_FIELD_CELL, 9, b->units.stress, s->ncells);
    /* damage only from solvers that have it (graph_fem): a crack shows in ParaView by thresholding it */
    if (st >= 0 && b->ops->caps.reports_damage) st = cl_mesh_set_field(m, "damage", CL_FIELD_CELL, 1, b->units.damage, s->ncells);
  }
  if (st < 0) {
    cl_mesh_destroy(m);
    return st;
  }
  *out = m;
  return CL_OK;
}

/* The surface triangles at current positions, with the vertices they use only (numbered in node
 * order), so a surface file holds a surface and no interior nodes. */
static cl_status surface_mesh(cl_body *b, cl_mesh **out) {
  CL_TRY(cl_body_surface(b));
  if (b->ntris == 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s has no surface triangles (solver '%s'); write a .vtu instead",
                   b->label, b->ops->name);
  const int32_t n = b->state.n;
  int32_t *index = cl_malloc(sizeof(int32_t) * (size_t)n, "surface vertices");
  if (!index) return CL_ERR_OUT_OF_MEMORY;
  for (int32_t i = 0; i < n; ++i) index[i] = -1;
  for (int64_t j = 0; j < 3 * (int64_t)b->ntris; ++j) index[b->tris[j]] = 0;
  int32_t used = 0;
  for (int32_t i = 0; i < n; ++i)
    if (index[i] == 0) index[i] = used++;
  cl_mesh *m;
  cl_status st = cl_mesh_alloc(CL_MESH_TRIANGLES, used, b->ntris, &m);
  if (st < 0) {
    free(index);
    return st;
  }
  for (int32_t i = 0; i < n; ++i)
    if (index[i] >= 0) memcpy(m->x + 3 * (size_t)index[i], b->state.x + 3 * (size_t)i, 3 * sizeof(double));
  for (int64_t j = 0; j < 3 * (int64_t)b->ntris; ++j) m->cells[j] = index[b->tris[j]];
  free(index);
  *out = m;
  return CL_OK;
}

cl_status cl_body_write(const cl_world *world, cl_id body, const char *path) {
  if (!world || !path)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_body_write: %s is NULL", world ? "path" : "world");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  cl_mesh *m = NULL;
  cl_status s = has_extension(path, ".vtu") ? volume_mesh(b, &m) : surface_mesh(b, &m);
  if (s < 0) return s;
  s = cl_mesh_write(m, path);
  cl_mesh_destroy(m);
  if (s < 0) return cl_fail_context(s, "%s: ", b->label);
  return s;
}
