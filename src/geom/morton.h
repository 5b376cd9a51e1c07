/* Z-order (Morton) numbering of points: neighbours in space get nearby positions in the order, so
 * loops that walk the points, or things placed at them, in that order touch memory that is already
 * cached. */
#ifndef CL_GEOM_MORTON_H
#define CL_GEOM_MORTON_H

#include <stdint.h>

#include "cleave/status.h"

/* The n points xyz (3 each) along the Z-order curve of their bounding box (21 bits per axis, the
 * box's largest extent on every axis): order[j] is the index of the j-th point, ties in index
 * order. Non-finite coordinates count as the box's low corner. CL_ERR_OUT_OF_MEMORY when the
 * scratch cannot be allocated. */
cl_status cl_morton_order(const double *xyz, int32_t n, int32_t *order);

#endif
