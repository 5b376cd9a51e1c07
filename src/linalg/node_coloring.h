/* A multicolour block ordering of a BSR matrix's nodes for parallel Gauss-Seidel (Saad, "Iterative
 * Methods for Sparse Linear Systems", 2nd ed., sec 12.4): the nodes are cut into blocks of
 * consecutive numbers, and the blocks are coloured so that no two blocks of one colour share a stored
 * matrix block. A sweep then takes the colours in order and the blocks of one colour in parallel,
 * each block in node order, so the updates of one colour read none of each other's unknowns. On
 * meshes numbered along a space-filling curve (ours: Morton) a block is a compact patch, the block
 * graph needs few colours, and within a block the sweep keeps the natural order's locality and most of
 * its couplings (a node-by-node colouring made the single-thread sweep 75 % slower: every colour
 * scattered over the whole mesh). The ordering depends only on the pattern and the block size, never
 * on the thread count. */
#ifndef CL_LINALG_NODE_COLORING_H
#define CL_LINALG_NODE_COLORING_H

#include <stdint.h>

#include "cleave/status.h"
#include "linalg/bsr.h"

typedef struct cl_node_coloring {
  int32_t colors;  /* number of colours */
  int32_t blocks;  /* number of node blocks */
  int32_t *ptr;    /* colors + 1: the blocks of colour k are block[ptr[k] .. ptr[k+1]-1] */
  int32_t *block;  /* blocks sorted by colour, ascending within a colour */
  int32_t size;    /* nodes per block: block b holds nodes [b size, min((b + 1) size, n)) */
  int32_t n;       /* nodes */
} cl_node_coloring;

/* Blocks of `size` consecutive nodes (>= 1), coloured greedily in block order (each block takes the
 * smallest colour none of its neighbours in A's pattern has). */
cl_status cl_node_coloring_make(const cl_bsr *A, int32_t size, cl_node_coloring *c);
void cl_node_coloring_free(cl_node_coloring *c);

#endif
