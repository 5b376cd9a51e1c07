/* Triangular solves with a supernodal Cholesky factor made by CHOLMOD, for the preconditioner path
 * of cholmod_solver.c: x = P^T L^-T L^-1 P b for one right-hand side.
 *
 * Why not cholmod_l_solve2: for one right-hand side CHOLMOD's supernodal solve calls BLAS-2 (dtrsv,
 * dgemv) once per supernode; most supernodes of a 3D FEM factor are a few columns wide, where the
 * per-call overhead of the BLAS dominates, and the whole solve ran at 1.8 GFlop/s on the benchmark
 * machine (9 ms for the 4.1M-entry factor of the 28k-tet Charpy bar, docs/BENCHMARKS.md). Here each
 * supernode is one pass over a dense scratch vector (its own entries, then the rows below it:
 * gather / scatter once per supernode) with the columns in groups of eight, and the factor can be
 * kept in single precision, with the products in float: as a CG preconditioner it only has to be
 * close to A^-1 (the outer CG, in double, sets the accuracy). 2.6 ms with one thread and 1.5 ms with
 * two for that factor (supernodal_solve.c says why the grouping matters more than the bytes).
 * CHOLMOD still does the ordering, the symbolic analysis and the numeric factorisation.
 *
 * The solve reads CHOLMOD's supernodal layout (cholmod_core.h, "supernodal factor"): supernode s
 * holds columns super[s] .. super[s+1]-1, its row indices are s[pi[s] .. pi[s+1]-1] (the first ones
 * are the supernode's own columns) and its values a column-major block at x + px[s] with leading
 * dimension pi[s+1] - pi[s]. */
#ifndef CL_LINALG_SUPERNODAL_SOLVE_H
#define CL_LINALG_SUPERNODAL_SOLVE_H

#include <cholmod.h>
#include <stdint.h>

#include "cleave/status.h"

typedef struct cl_supernodal cl_supernodal;

/* Precision of the copied factor values. */
typedef enum cl_supernodal_precision { CL_SUPERNODAL_DOUBLE = 0, CL_SUPERNODAL_SINGLE = 1 } cl_supernodal_precision;

/* Build (or refresh after a new numeric factorisation, same analysis) the solve structure from a
 * supernodal LL' factor L. *s may be NULL (allocated) or a structure from an earlier call with the
 * same symbolic analysis (after a new analysis, destroy it and pass NULL: the tree cut is kept). The
 * elimination tree is split into two sets of independent subtrees and a serial top, so that two
 * threads can share the sweeps. Returns CL_ERR_INVALID_ARGUMENT if L is not a numeric supernodal
 * LL' factor. */
cl_status cl_supernodal_update(cl_supernodal **s, const cholmod_factor *L, cl_supernodal_precision precision);
/* The permutation the solve applies, row k of P A P^T being row perm[k] of A (n entries, kept, not
 * copied; NULL = none). By default the factor's L->Perm; the CHOLMOD wrapper factorises P A P^T in
 * natural order and gives its P here (cholmod_solver.c). Until the next cl_supernodal_update. */
void cl_supernodal_set_perm(cl_supernodal *s, const SuiteSparse_long *perm);
void cl_supernodal_destroy(cl_supernodal *s);
/* x = A^-1 b with the factor of A = P^T L L^T P; b and x may alias. n entries each. `threads` (1 or
 * more) only changes the speed: the result is bitwise the same for any count. */
void cl_supernodal_solve(cl_supernodal *s, const double *b, double *x, int threads);

#endif
