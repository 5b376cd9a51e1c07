/* The edges of a tet mesh: the graph of graph-based FEM (its nodes and edges are the mesh's), also
 * what the edge-stress criterion projects stresses on and the multigrid's geodesics run along. */
#ifndef CL_GEOM_TET_EDGES_H
#define CL_GEOM_TET_EDGES_H

#include <stdint.h>

#include "cleave/status.h"

/* Corner pairs of a tet's six edges, in the order of tet_edge below: (0,1) (0,2) (0,3) (1,2) (1,3)
 * (2,3). */
extern const int cl_tet_edge_corners[6][2];

/* The distinct edges of `ntets` tets over n nodes: *edges_out (2 per edge, a < b, sorted by (a, b);
 * malloc'd, the caller frees it) and their count; tet_edge (6 per tet, caller's array, may be NULL)
 * gets the index of each tet's edges in the order above. O(E log E). */
cl_status cl_tet_edge_list(int32_t n, int32_t ntets, const int32_t *tets, int32_t **edges_out, int32_t *nedges_out,
                       int32_t *tet_edge);

#endif
