/* Islands (connected pieces) of a tet body for the fracture criteria: thesis sec 5.4 skips nodes
 * on pieces of at most a few elements, which would otherwise fracture forever. The labels are
 * recomputed only when the body's topology version (or node count) changes. */
#ifndef CL_FRACTURE_ISLANDS_H
#define CL_FRACTURE_ISLANDS_H

#include "contract/state.h"

typedef struct cl_islands {
  int32_t *label;     /* per node: island label */
  int32_t *elements;  /* per island: number of elements */
  int32_t node_cap, island_cap;
  int32_t n;          /* node count the labels are for */
  int64_t version;    /* topology version the labels are for, -1 = none yet */
} cl_islands;

void cl_islands_init(cl_islands *c);
void cl_islands_free(cl_islands *c);
/* Relabel if the topology changed; `owner` names the criterion in an out-of-memory message. */
cl_status cl_islands_update(cl_islands *c, const cl_body_state *st, const char *owner);
/* Number of elements of the island node i belongs to (after cl_islands_update). */
static inline int32_t cl_islands_elements_of(const cl_islands *c, int32_t node) {
  return c->elements[c->label[node]];
}

/* The two options of sec 5.4 that the node criteria (separation_tensor, plastic_excess) share, as
 * entries of their parameter tables. */
#define CL_ISLANDS_PARAM_LARGEST_ONLY                                                                        \
  {.name = "largest_only", .unit = "1",                                                                      \
   .help = "only the largest event per step (thesis sec 5.4); false = all events above the toughness",      \
   .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN}
#define CL_ISLANDS_PARAM_MIN_ELEMENTS                                                                        \
  {.name = "min_island_elements", .unit = "1",                                                               \
   .help = "nodes on pieces of at most this many elements are not checked (thesis sec 5.4)", .value = 3.0, \
   .min = 0.0, .max = 1e9, .kind = CL_PARAM_INTEGER}

#endif
