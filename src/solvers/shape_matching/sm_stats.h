/* The shape-matching solver's statistics op (cl_solver_ops.stats), in sm_stats.c. */
#ifndef CL_SOLVERS_SHAPE_MATCHING_SM_STATS_H
#define CL_SOLVERS_SHAPE_MATCHING_SM_STATS_H

#include "solvers/solver.h"

/* Names and values of cl_shape_matching_stats as cl_body_stat pairs (solver.h, op `stats`). */
cl_status cl_sm_stats_op(const void *solver, const cl_body_state *state, cl_body_stat *out, int32_t capacity,
                         int32_t *count);

#endif
