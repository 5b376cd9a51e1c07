/* Geodesic distances on the edge graph of a mesh and farthest point sampling, for the vertex sets of
 * the Galerkin multigrid's levels (Mandal et al. 2025, sec 3.3, eq 15; farthest point sampling after
 * Brandt et al. 2018, a special case of k-means++ seeding).
 *
 * The graph is the block graph of a square BSR pattern: nodes i and j are joined when block (i, j)
 * is stored (i != j), which for a FEM matrix means they share an element, so the tet edges and the
 * face and cell diagonals of the element (for tets: exactly the edges). Edge lengths are Euclidean
 * distances between the nodes' rest positions, so the distance along the graph (Dijkstra) is an
 * upper bound of the geodesic distance inside the body that converges to it as the mesh is refined.
 * A mesh's pattern keeps every element's blocks after damage (the caller zeroes values, not blocks),
 * so the distances are those of the undamaged body; a piece cut off by damage keeps its handles. */
#ifndef CL_LINALG_MULTIGRID_SAMPLING_H
#define CL_LINALG_MULTIGRID_SAMPLING_H

#include <stdint.h>

#include "cleave/status.h"
#include "linalg/bsr.h"

/* len[s] = |x_i - x_col[s]| for every slot s of row i (0 on the diagonal). x: 3 A->n rest positions,
 * len: A->nnzb doubles. */
void cl_mg_edge_lengths(const cl_bsr *A, const double *x, double *len);

/* Multi-source Dijkstra: dist[i] = the graph distance from node i to the nearest of the sources, and
 * label[i] the index (into sources) of that source; INFINITY and -1 for nodes no source reaches.
 * Ties between sources at the same distance go to the one whose front reached the node first, nodes
 * popped in (distance, node index) order: deterministic. */
cl_status cl_mg_geodesic_voronoi(const cl_bsr *A, const double *len, const int32_t *sources, int32_t nsources,
                                 double *dist, int32_t *label);

/* Nodes with a block besides their diagonal one: those the sampling may pick. */
int32_t cl_mg_connected_nodes(const cl_bsr *A);

/* Farthest point sampling of k nodes (1 <= k <= cl_mg_connected_nodes(A)): nodes without a neighbour
 * in the graph are never picked (a coarse space gains nothing from them: block relaxation solves
 * their own equations exactly, and a handle spent on each would starve the body when a matrix
 * carries many unused nodes); they keep no handle. picked[0] is the node farthest from node 0
 * (deterministic, and a point on the boundary), then each next pick is the node farthest from those
 * already picked (ties: the smallest index). Every prefix picked[0..m) is itself a farthest point
 * sample, so the coarse levels of a hierarchy are the prefixes of one run and nested (eq 15). Nodes
 * in parts of the graph that no pick reaches yet are at distance infinity and so picked first: each
 * connected component gets a pick once k reaches the number of components. The distance of each pick
 * to the earlier ones (INFINITY for picked[0]) goes to radius[] if not NULL (k doubles): it never
 * increases, and radius[m] is the covering radius of the first m picks. */
cl_status cl_mg_farthest_points(const cl_bsr *A, const double *len, int32_t k, int32_t *picked, double *radius);

#endif
