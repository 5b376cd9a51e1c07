/* Structured tetrahedral grids of a box: for tests, benchmarks and refinement studies. */
#ifndef CL_GEOM_TET_GRID_H
#define CL_GEOM_TET_GRID_H

#include <stdint.h>

#include "cleave/mesh.h"

/* A box [lo, hi] cut into nx * ny * nz equal cells, each split into 6 positively oriented tets
 * sharing the cell's main diagonal (Kuhn / Freudenthal subdivision). Every cell is cut the same way,
 * so each shared face is split along the same diagonal from both sides: the mesh is conforming.
 * Nodes: (nx+1)(ny+1)(nz+1), numbered i + (nx+1) * (j + (ny+1) * k) (x fastest), node (i,j,k) at
 * lo + (i/nx, j/ny, k/nz) * (hi - lo). Tets: 6 nx ny nz, cell (i,j,k)'s six at 6 (i + nx (j + ny k)).
 * Errors: counts < 1 or too large for int32 indices, lo >= hi or not finite. */
cl_status cl_tet_grid(int32_t nx, int32_t ny, int32_t nz, const double lo[3], const double hi[3],
                      cl_mesh **out);

#endif
