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
 * The merit is the unbalanced force on the free dofs at the start of an iteration, with the force
 * the contacts' friction cones cannot hold there (fem/system.h, "Friction in a static solve"), of a
 * state that meets the constraints: an iteration that had to move held rows (targets not reached yet, nodes
 * found inside a collider: the first one of a problem driven by prescribed displacements or a
 * penetrating collider) started from a state that did not, so its merit neither converges nor serves
 * as a yardstick for the next one. Converged when the merit is at most tolerance times the force
 * scale, the larger of the load ||f_ext + M g|| and the reactions of the first iteration (a body
 * driven only by prescribed displacements or pressed by a collider has no load: its reactions are
 * its forces). A body loaded only by a penetrating collider once took the unstrained body's rounding
 * (1e-12 N) as its reference and undid every step that pressed it in, cycling to max_iterations;
 * measured now: 5-8 iterations on the Lame sphere, the three-point bend and the Hertz indentation of
 * validation/corotational.lua. After the last iteration the solver records its contacts' forces for
 * the world's contact probes (record_contacts). */
#ifndef CL_FEM_STATIC_SOLVE_H
#define CL_FEM_STATIC_SOLVE_H

#include "cleave/status.h"
#include "cleave/world.h"
#include "contract/state.h"
#include "contract/step.h"

/* What one static iteration reports. */
typedef struct cl_fem_static_result {
  double merit;      /* the unbalanced force on the free dofs before the move, N */
  double reactions;  /* ||the forces the constraints, supports and contacts exerted|| (their impulses
                      * with dt = 1), N: the force scale of a problem they drive */
  double imposed2;   /* the squared displacement the iteration gave its held rows (m^2): > 0 when its
                      * start broke a constraint (targets not met, nodes found inside a collider) */
  double k_over_m;   /* when asked: trace K / trace M of the iteration's unshifted matrix, 1/s^2 */
  int32_t reprojected; /* contacts moved to the surface under their node (keep_contacts 2) */
} cl_fem_static_result;

/* A solver's static iteration: at the current x, with mass shift `shift` (1/s^2) and the last
 * iteration's contacts kept or not (keep_contacts 0: found afresh; 1: kept along their normals where
 * the nodes are now; 2: the polish, kept and, on a curved collider, moved to the surface point under
 * the node: cl_fem_system_begin), solve and move x by dx (v left zero) and fill *out (k_over_m only
 * when want_scale). cl_fem_system_reaction2 and the system's imposed2 give the reactions and the
 * imposed displacement of each of its systems. */
typedef cl_status (*cl_fem_static_iteration)(void *solver, cl_body_state *st, const cl_step_input *one, double shift,
                                             int keep_contacts, int want_scale, cl_fem_static_result *out);
/* Record the contact forces of the last iteration (N, at the contact nodes) into the colliders'
 * contact records of view (cl_fem_system_record_contacts for each of its systems). */
typedef void (*cl_fem_static_record)(void *solver, const cl_body_state *st, const cl_collider_view *view);

typedef struct cl_fem_static_ops {
  cl_fem_static_iteration iterate;
  cl_fem_static_record record_contacts; /* NULL: the solver records nothing */
} cl_fem_static_ops;

/* The continuation loop above, iterating through ops->iterate; after a solve that did not fail, the
 * contacts are recorded (ops->record_contacts). Fills report (iterations, the final merit relative
 * to the force scale). CL_WARN_NOT_CONVERGED after opt->max_iterations. */
cl_status cl_fem_static_solve(void *solver, const cl_fem_static_ops *ops, cl_body_state *st, const cl_step_input *in,
                              const cl_static_def *opt, cl_static_report *report);

#endif
