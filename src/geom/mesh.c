/* cl_mesh lifetime, info, copies and validation. Readers and writers live in their own files. */
#include "geom/mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/tet.h"

cl_status cl_mesh_alloc(cl_mesh_kind kind, int32_t npoints, int32_t ncells, cl_mesh **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_alloc: out is NULL");
  *out = NULL;
  if (npoints < 0 || ncells < 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "mesh counts must be >= 0 (points %d, cells %d)", npoints, ncells);
  int cs = cl_mesh_cell_size(kind);
  cl_mesh *m = cl_calloc(1, sizeof *m, "mesh");
  if (!m) return CL_ERR_OUT_OF_MEMORY;
  m->kind = kind;
  m->npoints = npoints;
  m->ncells = cs ? ncells : 0;
  m->x = cl_malloc(sizeof(double) * 3 * (size_t)npoints, "mesh points");
  m->cells = cl_malloc(sizeof(int32_t) * (size_t)cs * (size_t)m->ncells, "mesh cells");
  if (!m->x || !m->cells) {
    cl_mesh_destroy(m);
    return CL_ERR_OUT_OF_MEMORY;
  }
  *out = m;
  return CL_OK;
}

void cl_mesh_destroy(cl_mesh *m) {
  if (!m) return;
  for (int32_t i = 0; i < m->nfields; ++i) {
    free(m->fields[i].name);
    free(m->fields[i].values);
  }
  free(m->fields);
  free(m->x);
  free(m->cells);
  free(m);
}

cl_status cl_mesh_validate(const cl_mesh *m, const char *source) {
  if (!source) source = "mesh";
  for (int32_t i = 0; i < 3 * m->npoints; ++i)
    if (!isfinite(m->x[i]))
      return cl_fail(CL_ERR_MESH, "%s: point %d has a non-finite coordinate (%g)", source, i / 3, m->x[i]);
  int cs = cl_mesh_cell_size(m->kind);
  double scale = 0.0; /* bounding box diagonal, for a relative degeneracy test */
  if (m->kind == CL_MESH_TETS && m->npoints > 0) {
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) lo[k] = hi[k] = m->x[k];
    for (int32_t i = 1; i < m->npoints; ++i)
      for (int k = 0; k < 3; ++k) {
        lo[k] = fmin(lo[k], m->x[3 * i + k]);
        hi[k] = fmax(hi[k], m->x[3 * i + k]);
      }
    scale = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                 (hi[2] - lo[2]) * (hi[2] - lo[2]));
  }
  for (int32_t c = 0; c < m->ncells; ++c) {
    const int32_t *v = m->cells + (size_t)cs * c;
    for (int a = 0; a < cs; ++a) {
      if (v[a] < 0 || v[a] >= m->npoints)
        return cl_fail(CL_ERR_MESH, "%s: cell %d refers to point %d, outside [0, %d)", source, c, v[a], m->npoints);
      for (int b = 0; b < a; ++b)
        if (v[a] == v[b]) return cl_fail(CL_ERR_MESH, "%s: cell %d repeats point %d", source, c, v[a]);
    }
    if (m->kind == CL_MESH_TETS) {
      double vol = cl_tet_volume(m->x + 3 * v[0], m->x + 3 * v[1], m->x + 3 * v[2], m->x + 3 * v[3]);
      /* Flat when the volume is below what the coordinates resolve: their rounding is ~1e-16 of the
       * mesh size, which moves a volume by about that times the square of the tet's longest edge; so
       * 1e-14 scale lmax^2 catches exact and numerically flat tets (1e-14 scale^3 for a tet as large
       * as the mesh) and still takes the small tets of a graded mesh (TetGen size zones), whose
       * volume is far below the mesh size cubed. Written as !(>) so a NaN volume (coordinates whose
       * differences overflow) fails too. */
      double lmax2 = 0.0;
      for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) {
          const double *p = m->x + 3 * v[a], *q = m->x + 3 * v[b];
          lmax2 = fmax(lmax2, (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
        }
      if (!(fabs(vol) > 1e-14 * scale * lmax2))
        return cl_fail(CL_ERR_MESH, "%s: tet %d has zero volume (%g m^3)", source, c, vol);
      if (vol < 0)
        return cl_fail(CL_ERR_MESH, "%s: tet %d is inverted (volume %g m^3 < 0)", source, c, vol);
    }
  }
  return CL_OK;
}

cl_status cl_mesh_from_arrays(cl_mesh_kind kind, const double *xyz, int32_t npoints, const int32_t *cells,
                              int32_t ncells, cl_mesh **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_from_arrays: out is NULL");
  *out = NULL;
  if (kind != CL_MESH_POINTS && kind != CL_MESH_TRIANGLES && kind != CL_MESH_TETS)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "mesh kind %d is not one of points (0), triangles (1), tets (2)", (int)kind);
  if ((!xyz && npoints > 0) || (!cells && ncells > 0 && kind != CL_MESH_POINTS))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_from_arrays: NULL array with a non-zero count");
  cl_mesh *m;
  CL_TRY(cl_mesh_alloc(kind, npoints, ncells, &m));
  memcpy(m->x, xyz, sizeof(double) * 3 * (size_t)npoints);
  if (m->ncells) memcpy(m->cells, cells, sizeof(int32_t) * (size_t)cl_mesh_cell_size(kind) * (size_t)m->ncells);
  cl_status s = cl_mesh_validate(m, "mesh");
  if (s < 0) {
    cl_mesh_destroy(m);
    return s;
  }
  *out = m;
  return CL_OK;
}

cl_status cl_mesh_copy(const cl_mesh *src, cl_mesh **out) {
  if (!src || !out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_copy: NULL argument");
  cl_mesh *m;
  CL_TRY(cl_mesh_alloc(src->kind, src->npoints, src->ncells, &m));
  memcpy(m->x, src->x, sizeof(double) * 3 * (size_t)src->npoints);
  memcpy(m->cells, src->cells, sizeof(int32_t) * (size_t)cl_mesh_cell_size(src->kind) * (size_t)src->ncells);
  for (int32_t i = 0; i < src->nfields; ++i) {
    const cl_field *f = &src->fields[i];
    int64_t count = f->where == CL_FIELD_POINT ? src->npoints : src->ncells;
    cl_status s = cl_mesh_set_field(m, f->name, f->where, f->ncomp, f->values, count);
    if (s < 0) {
      cl_mesh_destroy(m);
      return s;
    }
  }
  *out = m;
  return CL_OK;
}

cl_status cl_mesh_get_info(const cl_mesh *m, cl_mesh_info *info) {
  if (!m || !info) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_get_info: NULL argument");
  memset(info, 0, sizeof *info);
  info->kind = m->kind;
  info->points = m->npoints;
  info->cells = m->ncells;
  info->fields = m->nfields;
  for (int k = 0; k < 3; ++k) {
    info->lo[k] = m->npoints ? m->x[k] : 0.0;
    info->hi[k] = info->lo[k];
  }
  for (int32_t i = 1; i < m->npoints; ++i)
    for (int k = 0; k < 3; ++k) {
      info->lo[k] = fmin(info->lo[k], m->x[3 * i + k]);
      info->hi[k] = fmax(info->hi[k], m->x[3 * i + k]);
    }
  double vol = 0.0;
  for (int32_t c = 0; c < m->ncells; ++c) {
    const int32_t *v = m->cells + (size_t)cl_mesh_cell_size(m->kind) * c;
    static const double origin[3] = {0, 0, 0};
    if (m->kind == CL_MESH_TETS)
      vol += cl_tet_volume(m->x + 3 * v[0], m->x + 3 * v[1], m->x + 3 * v[2], m->x + 3 * v[3]);
    else if (m->kind == CL_MESH_TRIANGLES) /* divergence theorem: sum of signed cone volumes */
      vol += cl_tet_volume(origin, m->x + 3 * v[0], m->x + 3 * v[1], m->x + 3 * v[2]);
  }
  info->measure = vol;
  return CL_OK;
}

cl_status cl_mesh_copy_points(const cl_mesh *m, double *xyz, int64_t capacity) {
  if (!m || !xyz) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_copy_points: NULL argument");
  if (capacity < 3 * (int64_t)m->npoints)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_copy_points: capacity %lld < %lld needed",
                   (long long)capacity, 3 * (long long)m->npoints);
  memcpy(xyz, m->x, sizeof(double) * 3 * (size_t)m->npoints);
  return CL_OK;
}

cl_status cl_mesh_copy_cells(const cl_mesh *m, int32_t *cells, int64_t capacity) {
  if (!m || !cells) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_copy_cells: NULL argument");
  int64_t need = (int64_t)cl_mesh_cell_size(m->kind) * m->ncells;
  if (capacity < need)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_copy_cells: capacity %lld < %lld needed",
                   (long long)capacity, (long long)need);
  memcpy(cells, m->cells, sizeof(int32_t) * (size_t)need);
  return CL_OK;
}

cl_status cl_mesh_set_field(cl_mesh *m, const char *name, cl_field_location where, int32_t ncomp,
                            const double *values, int64_t count) {
  if (!m || !name || !values) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_set_field: NULL argument");
  if (where != CL_FIELD_POINT && where != CL_FIELD_CELL)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "field '%s': location must be point (0) or cell (1)", name);
  if (ncomp < 1 || ncomp > 9)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "field '%s': components = %d outside [1, 9]", name, ncomp);
  int64_t expect = where == CL_FIELD_POINT ? m->npoints : m->ncells;
  if (count != expect)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "field '%s': %lld tuples given, the mesh has %lld %s", name,
                   (long long)count, (long long)expect, where == CL_FIELD_POINT ? "points" : "cells");
  size_t n = (size_t)ncomp * (size_t)count;
  /* a NaN or Inf would be written into the .vtu as data (ParaView shows it as a number) */
  for (size_t j = 0; j < n; ++j)
    if (!isfinite(values[j]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "field '%s': value %g of %s %lld (component %d) is not finite", name,
                     values[j], where == CL_FIELD_POINT ? "point" : "cell", (long long)(j / (size_t)ncomp) + 1,
                     (int)(j % (size_t)ncomp) + 1);
  double *copy = cl_malloc(sizeof(double) * n, "mesh field");
  char *nm = cl_malloc(strlen(name) + 1, "field name");
  if (!copy || !nm) {
    free(copy);
    free(nm);
    return CL_ERR_OUT_OF_MEMORY;
  }
  memcpy(copy, values, sizeof(double) * n);
  strcpy(nm, name);
  for (int32_t i = 0; i < m->nfields; ++i)
    if (strcmp(m->fields[i].name, name) == 0) {
      free(m->fields[i].name);
      free(m->fields[i].values);
      m->fields[i] = (cl_field){nm, where, ncomp, copy};
      return CL_OK;
    }
  cl_field *f = realloc(m->fields, sizeof(cl_field) * (size_t)(m->nfields + 1));
  if (!f) {
    free(copy);
    free(nm);
    return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory adding field '%s'", name);
  }
  m->fields = f;
  m->fields[m->nfields++] = (cl_field){nm, where, ncomp, copy};
  return CL_OK;
}
