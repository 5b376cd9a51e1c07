/* Static equilibrium for the implicit FEM solvers (the solver table's `equilibrium`), shared by the
 * corotational and graph-based FEM solvers: Newton iterations on each solver's tangent, each one its
 * step machinery in static mode, globalised by pseudo-transient continuation.
 *
 * In static mode one "step" with dt = 1 and v = 0 solves
 *     (K(x) + mu M) dx = f_el(x) + f_ext + M g
 * under the constraints, supports and the contact active set (colliders held still, the contacts of
 * the last iteration kept) and moves x by dx: with mu = 0 a Newton iteration. When the tangent is
 * poor far from equilibrium (the corotational solver's warped stiffness leaves out the derivative of
 * the rotations: a bending cantilever's first linear step leaves an unbalanced force ~100 times the
 * load, and plain Newton cycles) the mass shift mu of pseudo-transient continuation (Kelley & Keyes,
 * SIAM J. Numer. Anal. 35, 1998) keeps it going: started after the first iteration at 1e-6 of
 * trace(K) / trace(M), set by switched evolution relaxation mu_k+1 = mu_k |r_k+1| / |r_k|, so it grows
 * where the unbalanced force grew and shrinks to 0 (Newton) as it falls; an iteration that made it a
 * hundred times worse is undone with ten times the shift.
 *
 * The merit is the unbalanced force on the free dofs at the start of an iteration. Converged when it
 * is at most tolerance times the load ||f_ext + M g||, or times the first one when the load is zero
 * (displacements prescribed only). */
#ifndef CL_FEM_STATIC_SOLVE_H
#define CL_FEM_STATIC_SOLVE_H

#include "cleave/status.h"
#include "cleave/world.h"
#include "contract/state.h"
#include "contract/step.h"

/* A solver's static iteration: at the current x, with mass shift `shift` (1/s^2) and the last
 * iteration's contacts kept or not, solve and move x by dx (v left zero); *merit = the unbalanced
 * force on the free dofs before the move (N); when k_over_m is not NULL, *k_over_m = trace K /
 * trace M of the iteration's unshifted matrix (1/s^2). */
typedef cl_status (*cl_fem_static_iteration)(void *solver, cl_body_state *st, const cl_step_input *one, double shift,
                                             int keep_contacts, double *merit, double *k_over_m);

/* The continuation loop above, iterating through `iterate`; fills report (iterations, the final
 * merit relative to the load). CL_WARN_NOT_CONVERGED after opt->max_iterations. */
cl_status cl_fem_static_solve(void *solver, cl_fem_static_iteration iterate, cl_body_state *st, const cl_step_input *in,
                              const cl_static_def *opt, cl_static_report *report);

#endif
