/* .obj and .off writers for triangle surfaces (and point sets: vertices only). Tet meshes are
 * refused with a pointer to what to do instead, since these formats hold surfaces. Coordinates are
 * printed with 17 significant digits so reading them back gives the same doubles. */
#include <stdio.h>

#include "geom/mesh_io.h"

static cl_status surface_only(const cl_mesh *m, const char *path) {
  if (m->kind != CL_MESH_TETS) return CL_OK;
  return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: .obj and .off hold surfaces, this mesh has tets: write .vtu, .node "
                 "or .mesh, or take its surface with cl_mesh_boundary first", path);
}

cl_status cl_write_obj(const cl_mesh *m, const char *path) {
  CL_TRY(surface_only(m, path));
  cl_out o;
  CL_TRY(cl_out_open(&o, path));
  cl_out_printf(&o, "# written by cleave: %d vertices, %d triangles\n", m->npoints,
                m->kind == CL_MESH_TRIANGLES ? m->ncells : 0);
  for (int32_t i = 0; i < m->npoints; ++i)
    cl_out_printf(&o, "v %.17g %.17g %.17g\n", m->x[3 * i], m->x[3 * i + 1], m->x[3 * i + 2]);
  if (m->kind == CL_MESH_TRIANGLES)
    for (int32_t c = 0; c < m->ncells; ++c) {
      const int32_t *v = m->cells + 3 * (size_t)c;
      cl_out_printf(&o, "f %d %d %d\n", v[0] + 1, v[1] + 1, v[2] + 1); /* OBJ counts from 1 */
    }
  return cl_out_close(&o);
}

cl_status cl_write_off(const cl_mesh *m, const char *path) {
  CL_TRY(surface_only(m, path));
  int32_t nf = m->kind == CL_MESH_TRIANGLES ? m->ncells : 0;
  cl_out o;
  CL_TRY(cl_out_open(&o, path));
  cl_out_printf(&o, "OFF\n# written by cleave\n%d %d 0\n", m->npoints, nf);
  for (int32_t i = 0; i < m->npoints; ++i)
    cl_out_printf(&o, "%.17g %.17g %.17g\n", m->x[3 * i], m->x[3 * i + 1], m->x[3 * i + 2]);
  for (int32_t c = 0; c < nf; ++c) {
    const int32_t *v = m->cells + 3 * (size_t)c;
    cl_out_printf(&o, "3 %d %d %d\n", v[0], v[1], v[2]);
  }
  return cl_out_close(&o);
}
