/* The linear system of an implicit FEM step and what holds some of its dofs, shared by the FEM
 * solvers (corotational, graph_fem): constraints (all three dofs of a node), supports (some
 * directions), and contact with colliders, resolved as an active set within the step.
 *
 * The system is A dv = r0 over n nodes (3 dofs each; eq 3.8 of O'Malley's thesis and eq 3 of Mandal
 * et al. 2025 in velocity-change form), solved through a solver's own solve function. A node held in
 * some directions only gets an orthonormal basis Q_i whose first rows are those directions; its rows
 * and columns are turned into it (A_ij <- Q_i A_ij Q_j^T, its parts of b, r0, v, dv likewise), so a
 * held direction is one dof that the linear-solver table's constraint mask holds exactly, whatever
 * its direction. Contact (Baraff & Witkin 1998; the active set of implicit FEM contact):
 *   1. solve with the constraints and supports;
 *   2. every free node whose end position x + dt v' lies inside a collider becomes a contact, held
 *      along the collider's outward normal n at the surface point p, and, when the collider has
 *      friction mu, first also tangentially at the surface's motion (sticking);
 *   3. solve again; the reaction R of each contact (its rows' residual, an impulse) decides: R . n < 0
 *      lets it go; a sticking contact whose tangential reaction exceeds mu R . n slides with the
 *      kinetic friction mu (R . n) against its slip as a load on its tangent rows (a fixed point with
 *      R . n); a sliding one whose slip turned against the friction sticks;
 *   4. repeat 2-3 until nothing changes (CL_FEM_CONTACT_ROUNDS solves at most).
 * A contact leaves the step with the collider's normal velocity, reflected by the restitution when
 * the node approached; its impulse goes to the collider's contact record and, for a dynamic collider,
 * to the collider (docs/RIGID_BODIES.md). In a static solve (statics = 1: dt = 1, v = 0, dv is a
 * displacement) colliders are held still and nothing is recorded.
 *
 * A solver fills A, b, r0 and v (its assembly), then calls, per step:
 *   cl_fem_system_begin, cl_fem_hold_constraint / cl_fem_hold_support for its held nodes,
 *   cl_fem_system_prepare (after the assembly), its solve, cl_fem_contact_rounds (solving again
 *   through a callback), cl_fem_system_finish, cl_fem_system_update. */
#ifndef CL_FEM_SYSTEM_H
#define CL_FEM_SYSTEM_H

#include <stdint.h>

#include "cleave/status.h"
#include "contract/colliders.h"
#include "contract/state.h"
#include "linalg/bsr.h"

/* What a node of a system is this step. */
enum { CL_FEM_FREE = 0, CL_FEM_HELD = 1, CL_FEM_SUPPORTED = 2, CL_FEM_CONTACT = 3 };
/* Solves of the contact active set per step (the first, contact-free one included). */
enum { CL_FEM_CONTACT_ROUNDS = 12 };

typedef struct cl_fem_system {
  int32_t n;                 /* nodes of the system */
  const int32_t *nodes;      /* n: the body-state node of local node l; NULL = l itself */
  cl_bsr *A;                 /* 3n square, the solver's */
  double *b;                 /* 3n, the right-hand side the solver assembled */
  double *r0;                /* 3n, b - A v: the right-hand side of A dv = r0 */
  double *v;                 /* 3n, the step-start velocity (gathered) */
  double *dv;                /* 3n, the solution; kept between steps as the warm start */
  double *dv_prev;           /* 3n, the dv of the step before */
  uint8_t *fixed;            /* 3n, this step's mask: 1 = the dof is held at its dv */
  /* per node, this step */
  uint8_t *role;             /* CL_FEM_FREE, _HELD, _SUPPORTED, _CONTACT */
  uint8_t *contact;          /* a contact's mode: none (let go), sliding, sticking */
  uint8_t *frame;            /* 1 while its rows are turned into its basis */
  uint8_t *turn;             /* to be turned at the next cl_fem_frames_in */
  double *basis;             /* 9n: rows = held directions first, then the rest (orthonormal) */
  double *hold;              /* 3n: the dv of a supported node's held rows (in its frame) */
  int32_t *ccol;             /* a contact's collider */
  double *cx, *cv;           /* 3n: contact point on the collider, the surface's velocity there */
  double *capproach;         /* n: normal speed toward the collider before the contact (<= 0) */
  double *cfric;             /* 2n: kinetic friction impulse on the tangent rows, N s */
  double *cimp;              /* 3n: the impulse the constraint, support or contact gave (x, y, z) */
  int32_t ncons;             /* nodes with a held dof (constraints, supports, contacts) */
  int32_t nfull;             /* nodes held in all three dofs by a constraint */
  int statics;               /* a static solve (see the top of the file) */
} cl_fem_system;

/* Allocate the per-node arrays of an n-node system (A, nodes and the solver's own arrays are not
 * touched); cl_fem_system_free frees them. `what` names the system in an out-of-memory message. */
cl_status cl_fem_system_alloc(cl_fem_system *sys, int32_t n, const char *what);
void cl_fem_system_free(cl_fem_system *sys);

/* Start of a step: no dof held, no roles; with keep_contacts (a static solve's later iterations) the
 * last iteration's live contacts stay, held along the same normal where the node is now. */
void cl_fem_system_begin(cl_fem_system *sys, const cl_body_state *st, int keep_contacts);
/* Hold local node l at target x_t (a constraint): dv lands it there from x with velocity v. */
void cl_fem_hold_constraint(cl_fem_system *sys, int32_t l, const double *x_t, const double *x, const double *v,
                            double dt);
/* Hold local node l in the first `held` rows of axes (a support) at the held components of p. */
void cl_fem_hold_support(cl_fem_system *sys, int32_t l, const double *axes, int held, const double *p,
                         const double *x, const double *v, double dt);
/* After the assembly: turn the supported (and kept contact) nodes into their frames and hold them.
 * Returns the squared unbalanced force on the free dofs (|r0| over them), the merit of a static
 * iteration. */
double cl_fem_system_prepare(cl_fem_system *sys, const cl_body_state *st, double dt);

/* A solver's solve of A dv = r0 with the system's mask; `again` = 0 for the step's first solve. */
typedef cl_status (*cl_fem_solve_fn)(void *ctx, cl_fem_system *sys, int again);
/* The contact active set (rounds 2-4 above) after the first solve. Returns the worst status of the
 * solves (warnings included); < 0 stops. */
cl_status cl_fem_contact_rounds(cl_fem_system *sys, const cl_body_state *st, const cl_collider_view *view, double dt,
                                cl_fem_solve_fn solve, void *ctx);
/* After the last solve: with `balance` (momentum kept by the solver and a dynamic collider touched)
 * the free rows' residual sum is removed (two-way contact conserves momentum exactly); the held
 * nodes' impulses go to cimp; the frames are turned back. */
void cl_fem_system_finish(cl_fem_system *sys, const cl_collider_view *view, int balance);
/* Shift dv uniformly so the system's momentum is the exact (P + dt F) / damp of an unconstrained
 * solve (damp = 1 + dt alpha of mass damping): what an iterative solve's residual would leave. */
void cl_fem_conserve_momentum(cl_fem_system *sys, const cl_body_state *st, const double *gravity,
                              const double *f_ext, double dt, double damp);
/* Positions and velocities of the system's nodes from the solve, except held ones (the caller puts
 * constraints and supports exactly on target): x += dt (v + dv); contacts leave with the collider's
 * normal velocity (restitution) and give their impulse to the collider; other free nodes are
 * projected out of colliders. */
void cl_fem_system_update(cl_fem_system *sys, cl_body_state *st, const cl_collider_view *view, double dt);

/* The impulse (N s) held local node l took this step (cimp), valid after cl_fem_system_finish. */
static inline const double *cl_fem_impulse(const cl_fem_system *sys, int32_t l) { return sys->cimp + 3 * (size_t)l; }

#endif
