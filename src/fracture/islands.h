/* What the node criteria (separation_tensor, plastic_excess) share about a tet body's topology:
 *   - islands (connected pieces): thesis sec 5.4 skips nodes on pieces of at most a few elements,
 *     which would otherwise fracture forever;
 *   - cracks: which nodes lie on a crack face (a face two tets shared in the rest mesh and no longer
 *     share) and which are next to one, for the crack-tip rule of cl_islands_select;
 * recomputed only when the body's topology version (or node count) changes; and the selection of the
 * step's events from the nodes above the threshold (largest_only, the crack-tip rule). */
#ifndef CL_FRACTURE_ISLANDS_H
#define CL_FRACTURE_ISLANDS_H

#include "contract/events.h"
#include "contract/state.h"

/* A node's place with respect to the cracks of its body. */
enum { CL_CRACK_NONE = 0, CL_CRACK_ON = 1, CL_CRACK_NEAR = 2 };

typedef struct cl_islands {
  int32_t *label;     /* per node: island label */
  int32_t *elements;  /* per island: number of elements */
  int32_t node_cap, island_cap;
  int32_t n;          /* node count the labels are for */
  int64_t version;    /* topology version the labels are for, -1 = none yet */
  int32_t *root;      /* per node: the bound node it descends from (origin[] followed to the end) */
  unsigned char *crack; /* per node: CL_CRACK_NONE, _ON (a corner of a crack face) or _NEAR (shares a
                           tet with such a node) */
  int32_t *pair;      /* 4 per cell: the cell face (4 cell + opposite corner) it shared at rest, or -1 */
  int32_t pair_cells; /* cell count the pairing is for, -1 = none */
  int32_t *best;      /* per island: index of its best crack-start candidate (cl_islands_select) */
  int32_t best_cap;
  cl_event_list candidates; /* the criteria's nodes above the threshold, before selection */
} cl_islands;

void cl_islands_init(cl_islands *c);
void cl_islands_free(cl_islands *c);
/* Relabel if the topology changed; `owner` names the criterion in an out-of-memory message. */
cl_status cl_islands_update(cl_islands *c, const cl_body_state *st, const char *owner);
/* Number of elements of the island node i belongs to (after cl_islands_update). */
static inline int32_t cl_islands_elements_of(const cl_islands *c, int32_t node) {
  return c->elements[c->label[node]];
}
/* The events of the step from c->candidates (split_node events of the nodes above the threshold):
 *   crack_tips = 1 (not in the thesis; docs/solvers/corotational.md, "Clean cracks"): a node next to
 *     a crack but not on it is left to the crack's own nodes, and a node away from every crack may
 *     start one only as the highest of its island's such candidates (one new crack per piece per
 *     step); the nodes on cracks (their tips) go on as they are;
 *   largest_only = 1: then only the highest of all (thesis sec 5.4).
 * Appends to `out` and empties c->candidates. */
cl_status cl_islands_select(cl_islands *c, int crack_tips, int largest_only, cl_event_list *out);

/* The options of sec 5.4 that the node criteria share, as entries of their parameter tables. */
#define CL_ISLANDS_PARAM_LARGEST_ONLY                                                                        \
  {.name = "largest_only", .unit = "1",                                                                      \
   .help = "only the largest event per step (thesis sec 5.4); false = all events above the toughness",      \
   .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN}
#define CL_ISLANDS_PARAM_MIN_ELEMENTS                                                                        \
  {.name = "min_island_elements", .unit = "1",                                                               \
   .help = "nodes on pieces of at most this many elements are not checked (thesis sec 5.4)", .value = 3.0, \
   .min = 0.0, .max = 1e9, .kind = CL_PARAM_INTEGER}
#define CL_ISLANDS_PARAM_CRACK_TIPS                                                                          \
  {.name = "crack_tips", .unit = "1",                                                                        \
   .help = "cracks grow from their tips: nodes next to a crack are left to it, and a piece starts at most "  \
           "one new crack per step (false: every node above the threshold, as the thesis)",                 \
   .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN}

#endif
