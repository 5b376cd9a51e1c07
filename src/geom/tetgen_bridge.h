/* The C side of the TetGen bridge (tetgen_bridge.cpp is the only C++ file in cleave). TetGen is
 * called on a triangle surface and its C++ exceptions are turned into a cl_status with a message. */
#ifndef CL_GEOM_TETGEN_BRIDGE_H
#define CL_GEOM_TETGEN_BRIDGE_H

#include <stdint.h>

#include "cleave/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A size bound for TetGen's refinement: `too_big(ctx, a, b, c, d)` returns 1 when the tet with
 * corners a, b, c, d (3 doubles each) must be split (TetGen inserts its circumcentre), 0 when it may
 * stay. Called from inside TetGen's Delaunay refinement (the -q pass), on the calling thread. */
typedef struct cl_tetgen_sizing {
  int (*too_big)(const void *ctx, const double *a, const double *b, const double *c, const double *d);
  const void *ctx;
} cl_tetgen_sizing;

/* Tetrahedralize the piecewise linear complex given by `ntris` triangles (3 zero-based indices each)
 * over `npoints` points (3 doubles each). `holes` holds 3 doubles per hole point (a point inside a
 * cavity that must stay empty), may be NULL when nholes == 0. `switches` is a TetGen switch string
 * without the leading '-' (e.g. "pq1.5/10a1e-6zQ"); it must contain 'z' (zero-based output).
 * On success *xyz_out (3 per point) and *tets_out (4 per tet, positively oriented:
 * det[x1-x0, x2-x0, x3-x0] > 0) are malloc'd arrays the caller frees with free().
 * Errors: CL_ERR_OUT_OF_MEMORY; CL_ERR_MESH for input TetGen rejects (self-intersection, facets too
 * close, features below its tolerance, bad input); CL_ERR_EXTERNAL for TetGen's internal errors.
 * The message names the TetGen code. `sizing` (NULL for none) refines further wherever it says so;
 * it acts only when the switches ask for quality refinement ('q'). */
cl_status cl_tetgen_run(const double *xyz, int32_t npoints, const int32_t *tris, int32_t ntris,
                        const double *holes, int32_t nholes, const char *switches, const cl_tetgen_sizing *sizing,
                        double **xyz_out, int32_t *npoints_out, int32_t **tets_out, int32_t *ntets_out);

#ifdef __cplusplus
}
#endif

#endif
