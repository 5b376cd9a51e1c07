/* The internal layout of a cl_mesh (opaque in the public API). Structure of arrays:
 * x holds 3 doubles per point, cells holds `cell_size` indices per cell. */
#ifndef CL_GEOM_MESH_H
#define CL_GEOM_MESH_H

#include "cleave/mesh.h"

typedef struct cl_field {
  char *name;
  cl_field_location where;
  int32_t ncomp;
  double *values; /* ncomp * (points or cells) */
} cl_field;

struct cl_mesh {
  cl_mesh_kind kind;
  int32_t npoints;
  int32_t ncells;
  double *x;       /* 3 * npoints */
  int32_t *cells;  /* cl_mesh_cell_size(kind) * ncells */
  cl_field *fields;
  int32_t nfields;
};

/* 0 for points, 3 for triangles, 4 for tets. */
static inline int cl_mesh_cell_size(cl_mesh_kind k) { return k == CL_MESH_TETS ? 4 : k == CL_MESH_TRIANGLES ? 3 : 0; }

/* Allocate an empty mesh with room for the given counts (contents uninitialised). */
cl_status cl_mesh_alloc(cl_mesh_kind kind, int32_t npoints, int32_t ncells, cl_mesh **out);

/* Validate coordinates (finite), indices (in range, distinct within a cell) and, for tets,
 * orientation and non-zero volume. `source` prefixes messages (a file name, or "mesh"). */
cl_status cl_mesh_validate(const cl_mesh *m, const char *source);

#endif
