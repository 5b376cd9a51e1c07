/* Boundary faces of a tet mesh. */
#ifndef CL_GEOM_BOUNDARY_H
#define CL_GEOM_BOUNDARY_H

#include <stdint.h>

#include "cleave/status.h"

/* Faces used by exactly one of the `ntets` tets (4 indices each, positively oriented), as triangles
 * counter-clockwise seen from outside the tet that owns them. *tris_out (3 ints per face, in order
 * of owning tet, then local face 0..3 as listed in boundary.c) is malloc'd; the caller frees it
 * with free(). A face shared by three or more tets is an error (CL_ERR_MESH). O(n): faces are
 * bucketed by their smallest vertex with a counting sort, then matched inside each bucket. */
cl_status cl_boundary_faces(int32_t ntets, const int32_t *tets, int32_t **tris_out, int32_t *ntris_out);

#endif
