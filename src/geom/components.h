/* Connected components of cells that share a point (union-find). */
#ifndef CL_GEOM_COMPONENTS_H
#define CL_GEOM_COMPONENTS_H

#include "cleave/status.h"

/* Label each point with its component (0..count-1, in order of first appearance); points used by no
 * cell form their own component. label may be NULL when only the count is wanted. */
cl_status cl_components(int32_t npoints, const int32_t *cells, int32_t ncells, int32_t cell_size,
                        int32_t *label, int32_t *count);

#endif
