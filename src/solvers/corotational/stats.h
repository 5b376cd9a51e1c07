/* The corotational solver's statistics op (cl_solver_ops.stats), in stats.c. */
#ifndef CL_SOLVERS_COROTATIONAL_STATS_H
#define CL_SOLVERS_COROTATIONAL_STATS_H

#include "solvers/solver.h"

/* Tets, nodes, islands and the last linear solve as cl_body_stat pairs (solver.h, op `stats`). */
cl_status cl_corot_stats_op(const void *solver, const cl_body_state *state, cl_body_stat *out, int32_t capacity,
                            int32_t *count);

#endif
