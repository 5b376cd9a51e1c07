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

/* Nodes held in some directions only: supports (rollers, sliding and symmetry planes, a node held in
 * one axis or kept on a line). For node nodes[j] the first held[j] rows of axes[9j .. 9j+8] are
 * orthonormal directions a_1.. (held[j] is 1 or 2; a node held in all three directions is in the
 * cl_constraint_set instead, never in both). The solver must end the step with
 *     a_k . x = a_k . target_x[j]   and   a_k . v = a_k . target_v[j]     for k = 1 .. held[j]
 * exactly, leave the other directions free (a roller slides), and write into reaction[3j..3j+2] the
 * force (N, averaged over the step) it applied to do so, which lies along the held directions. */
typedef struct cl_support_set {
  int32_t count;
  const int32_t *nodes;    /* count node indices, distinct, none of them in the cl_constraint_set */
  const int8_t *held;      /* count: held directions of each node, 1 or 2 */
  const double *axes;      /* 9 count: rows are the held directions (unit, orthogonal), the rest zero */
  const double *target_x;  /* 3 count, m: a point whose held components are the targets */
  const double *target_v;  /* 3 count, m/s: likewise for the velocity */
  double *reaction;        /* 3 count, output, N */
} cl_support_set;

/* x <- x + sum_k a_k (a_k . (p - x)) over the held rows of axes: puts the held components of x at
 * those of p and leaves the others (3 doubles each; held in 0..3). The one projection solvers share. */
static inline void cl_support_project(const double *axes, int held, const double *p, double *x) {
  for (int k = 0; k < held; ++k) {
    const double *a = axes + 3 * k;
    const double d = a[0] * (p[0] - x[0]) + a[1] * (p[1] - x[1]) + a[2] * (p[2] - x[2]);
    x[0] += d * a[0];
    x[1] += d * a[1];
    x[2] += d * a[2];
  }
}

/* Everything one solver step sees besides the body state. */
typedef struct cl_step_input {
  double dt;                        /* s, this (sub)step, > 0 */
  double time;                      /* s, world time at the start of this (sub)step */
  const double *gravity;            /* 3, m/s^2, acts on every node */
  const double *f_ext;              /* 3n external forces on nodes, N (force conditions), or NULL */
  cl_constraint_set constraints;    /* fixed and driven nodes, with their reaction output */
  cl_support_set supports;          /* nodes held in some directions only, with their reactions */
  const cl_collider_view *colliders;/* never NULL; count may be 0 */
  int32_t threads;                  /* OpenMP threads the world allows, >= 1 */
} cl_step_input;

/* What a step reports back for statistics (zero for solvers without iterative solves). */
typedef struct cl_step_report {
  int32_t iterations;  /* linear solver iterations */
  double residual;     /* relative residual of the last solve */
} cl_step_report;

#endif
