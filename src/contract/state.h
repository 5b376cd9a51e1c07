/* The body state: what the world and a body's solver share, and what criteria, probes and output
 * read. Part of the simulation contract (src/contract/): the layer below solvers and criteria that
 * both include, so that neither reaches up into the world or across into another solver.
 *
 * Layering: contract/ depends only on the public headers and base/. */
#ifndef CL_CONTRACT_STATE_H
#define CL_CONTRACT_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "cleave/world.h"

/* Per-node state of one body, structure of arrays (x[3*i + k] is coordinate k of node i). The world
 * owns the struct and frees it; the solver fills it in bind and advances it in step. Solvers may
 * grow it (fracture adds nodes) with cl_body_state_resize, which may move the arrays: never keep a
 * pointer into them across calls.
 *
 * The state is the one truth: a solver reads x and v from it at every step and must not keep its own
 * copy between steps, since the world, tests and scripts may set positions and velocities between
 * steps (initial conditions, teleports). Caches derived from x (factorizations) are fine.
 *
 * Topology rule: a topology operation may only APPEND nodes and may rewrite cells, but existing node
 * indices keep their meaning (a node is never renumbered or removed). New nodes record in origin[]
 * the node they were copied from, so the world can carry constraints and regions over to them. */
typedef struct cl_body_state {
  int32_t n;           /* live nodes (particles) */
  int32_t capacity;    /* allocated nodes */
  double *x;           /* 3n current positions, m */
  double *v;           /* 3n velocities, m/s */
  double *X;           /* 3n rest (material) positions, m */
  double *m;           /* n lumped masses, kg (> 0) */
  int32_t *origin;     /* n: the node this node was copied from by fracture; i itself for bound nodes */
  /* Connectivity the world uses for pieces, volume, surfaces and material-point lookup:
   * cell_size 4 = tetrahedra (positively oriented at rest), 2 = bonds between particles (e.g. shared
   * cluster membership), 0 = none (every node is its own piece). */
  int32_t cell_size;
  int32_t ncells;
  int32_t cells_capacity; /* in cells */
  int32_t *cells;         /* cell_size * ncells node indices */
  int64_t topology_version; /* changes whenever cells change or nodes are appended: the world bumps
                             * it after a fracture op that applied events; a solver changing topology
                             * anywhere else bumps it itself. The world's caches (surface, pieces)
                             * are keyed on it. */
} cl_body_state;

/* Make room for `nodes` nodes (content kept; new entries uninitialised). */
cl_status cl_body_state_reserve(cl_body_state *s, int32_t nodes);
/* Set the node count; nodes added get zero x, v, X, m and origin[i] = i. */
cl_status cl_body_state_resize(cl_body_state *s, int32_t nodes);
/* Make room for `ncells` cells of `cell_size` indices (content kept when cell_size is unchanged;
 * ncells itself is not changed). */
cl_status cl_body_state_reserve_cells(cl_body_state *s, int32_t cell_size, int32_t ncells);
/* Free the arrays and zero the struct. */
void cl_body_state_free(cl_body_state *s);
/* Total mass (kg), and 1 if every x and v is finite else 0 with the first bad node in *bad_node and
 * which array ("position" / "velocity") in *what. */
double cl_body_state_mass(const cl_body_state *s);
int cl_body_state_finite(const cl_body_state *s, int32_t *bad_node, const char **what);

#endif
