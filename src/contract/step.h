/* What the world hands a solver for one (sub)step, and what the step reports back. Part of the
 * simulation contract (src/contract/). */
#ifndef CL_CONTRACT_STEP_H
#define CL_CONTRACT_STEP_H

#include <stdint.h>

#include "contract/colliders.h"

/* Nodes held by fixed or driven boundary conditions for one (sub)step. The world merges the body's
 * active conditions (a node in several keeps the first). The solver must end the step with
 * x[nodes[j]] == target_x[j] and v[nodes[j]] == target_v[j] exactly (constraints, not springs), and
 * write into reaction[3j..3j+2] the force (N) it had to apply to node nodes[j] to do so, averaged
 * over the step (impulse / dt): the world's reaction probes sum these. */
typedef struct cl_constraint_set {
  int32_t count;
  const int32_t *nodes;    /* count node indices, distinct */
  const double *target_x;  /* 3 count positions at the end of the step, m */
  const double *target_v;  /* 3 count velocities at the end of the step, m/s */
  double *reaction;        /* 3 count, output: constraint force on each node, N */
} cl_constraint_set;

/* Everything one solver step sees besides the body state. */
typedef struct cl_step_input {
  double dt;                        /* s, this (sub)step, > 0 */
  double time;                      /* s, world time at the start of this (sub)step */
  const double *gravity;            /* 3, m/s^2, acts on every node */
  const double *f_ext;              /* 3n external forces on nodes, N (force conditions), or NULL */
  cl_constraint_set constraints;    /* fixed and driven nodes, with their reaction output */
  const cl_collider_view *colliders;/* never NULL; count may be 0 */
  int32_t threads;                  /* OpenMP threads the world allows, >= 1 */
} cl_step_input;

/* What a step reports back for statistics (zero for solvers without iterative solves). */
typedef struct cl_step_report {
  int32_t iterations;  /* linear solver iterations */
  double residual;     /* relative residual of the last solve */
} cl_step_report;

#endif
