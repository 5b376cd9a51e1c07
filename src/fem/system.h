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
 *   2. every free or supported node whose end position x + dt v' lies inside a collider becomes a
 *      contact, held along the collider's outward normal n at the surface point p, and, when the
 *      collider has friction mu, first also tangentially at the surface's motion (sticking);
 *   3. solve again; the reaction R of each contact (its rows' residual, an impulse) decides: R . n < 0
 *      lets it go; a sticking contact whose tangential reaction exceeds mu R . n slides with the
 *      kinetic friction mu (R . n) against its slip as a load on its tangent rows (a fixed point with
 *      R . n); a sliding one whose slip turned against the friction sticks;
 *   4. repeat 2-3 until nothing changes (CL_FEM_CONTACT_ROUNDS solves at most).
 * Sliding friction, linearised: the kinetic friction f(s) = -mu R_n s / |s| of a sliding contact is
 * taken about the last solve's slip s_k, f(s) ~ -mu R_n u - D s with u = s_k / |s_k| and
 * D = (mu R_n / |s_k|)(I - u u^T) (it changes only the direction; D s_k = 0): D goes into A's diagonal
 * block on the tangent rows and -D (v - v_s) into r0, so the next solve answers a turn of the slip
 * with the turn of the friction (a Newton step on its direction). cl_fem_system_finish turns it into
 * the friction load f - D s at the final slip and takes D off A and r0. Why: the plain fixed point
 * f <- -mu R_n s(f) / |s(f)| swung the friction's direction by 10-45 degrees every round for contacts
 * near rest, and 40 % of the contact steps of the hollow ball (experiments/corotational) ran out of
 * rounds. k = mu R_n / |s_k| is capped at CL_FEM_FRICTION_STIFFNESS_CAP times the node's own
 * tangential diagonal (past it the slip's turn is already held to 1 %; more only worsens the
 * conditioning), and the solve callback tells its linear solver the diagonal changed
 * (cl_linear_solver_diagonal_changed: the multigrid's smoother inverts it again).
 * A contact may change between sticking and sliding CL_FEM_CONTACT_FLIPS times in a step; a further
 * change to sliding locks it sliding along the reaction that could not hold it (mu R_n of each solve)
 * for the rest of the step: contacts at the cone's edge otherwise stuck and slid by turns until the
 * rounds ran out. The last round only lets contacts go or slide, without the linearisation: a
 * contact it stuck or found, no round after it could check (a spinning block's corner found in the
 * last round pushed sideways with 4 times the block's weight while pulling on the floor), and an
 * unconverged slip would leave D s in the friction. Measured in tests/c/test_contact_friction_rounds.c
 * and docs/solvers/corotational.md ("Frictional contact rounds").
 * A supported node (a roller, a symmetry plane: its first nsup rows a_k held) can be in contact too:
 * its contact row is e = n_perp / |n_perp|, the part of the collider's normal across the held
 * directions (n = sum_k (n . a_k) a_k + |n_perp| e), held where the gap n . (x' - p) vanishes given
 * the support's own targets t_k = a_k . x':
 *     e . x' = e . p - sum_k (n . a_k)(t_k - a_k . p) / |n_perp|,
 * and the tangent rows across both (rows nsup+1..2) carry the friction. Its basis is the support's
 * rows, then e, then the rest; a node already turned into its support's frame turns on from there
 * (turn = 2, pbasis). The forces the two exert, sum mu_k a_k + lambda n, are read from the rows'
 * reactions R: lambda = R_e / |n_perp| (>= 0, else the contact lets go), mu_k = R_k - lambda (n . a_k).
 * A normal within the held directions (|n_perp| <= 1e-6) leaves the node to its support. The quarter
 * and octant models of validation/corotational.lua need this: their contact nodes on the symmetry
 * planes are supported.
 * A contact leaves the step with the collider's normal velocity, reflected by the restitution when
 * the node approached; its impulse goes to the collider's contact record and, for a dynamic collider,
 * to the collider (docs/RIGID_BODIES.md). In a static solve (statics = 1: dt = 1, v = 0, dv is a
 * displacement) colliders are held still and the steps record nothing: the static solve records the
 * contact forces of its equilibrium once, after its last iteration (cl_fem_system_record_contacts).
 *
 * Friction in a static solve: a Newton iteration has no slip velocity to oppose, so Coulomb's law is
 * decided as a return map from a trial that sticks. Every kept contact of a frictional collider
 * starts the iteration sticking where its node is (cl_fem_system_begin); in step 3 a sticking one
 * whose reaction leaves the cone slides with mu (R . n) along that reaction, and a sliding one keeps
 * that direction, takes mu (R . n) of the latest solve and does not stick again within the iteration.
 * The iteration's merit adds what the cones cannot hold at its start (cl_fem_system_cone_excess2).
 * Deciding both ways after each solve, as the dynamics do, made contacts at the cone's edge switch
 * back and forth until the rounds ran out, and the static solve stalled (docs/solvers/
 * corotational.md, "Friction in a static solve").
 *
 * A solver fills A, b, r0 and v (its assembly), then calls, per step:
 *   cl_fem_system_begin, cl_fem_hold_constraint / cl_fem_hold_support for its held nodes,
 *   cl_fem_system_prepare (after the assembly), its solve, cl_fem_contact_rounds (solving again
 *   through a callback), cl_fem_system_finish, cl_fem_system_update; the reactions of its supports
 *   from cl_fem_support_impulse, of its constraints from cl_fem_impulse. */
#ifndef CL_FEM_SYSTEM_H
#define CL_FEM_SYSTEM_H

#include <stdint.h>

#include "cleave/status.h"
#include "contract/colliders.h"
#include "contract/state.h"
#include "linalg/bsr.h"
#include "linalg/linear_solver.h"

/* What a node of a system is this step. */
enum { CL_FEM_FREE = 0, CL_FEM_HELD = 1, CL_FEM_SUPPORTED = 2, CL_FEM_CONTACT = 3 };
/* Solves of the contact active set per step (the first, contact-free one included). */
enum { CL_FEM_CONTACT_ROUNDS = 12 };
/* Changes between sticking and sliding a contact may make in a step before it slides along a fixed
 * direction for the rest of it (top of the file). */
enum { CL_FEM_CONTACT_FLIPS = 2 };
/* The linearised sliding friction's stiffness k = mu R_n / |slip| at most this many times the node's
 * own tangential diagonal (top of the file). */
#define CL_FEM_FRICTION_STIFFNESS_CAP 100.0

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
  uint8_t *turn;             /* to be turned at the next frames_in: 1 from x y z, 2 from pbasis */
  double *basis;             /* 9n: rows = held directions first, then the rest (orthonormal) */
  double *pbasis;            /* 9n: the basis a node is in before a change of frame (turn = 2) */
  uint8_t *nsup;             /* rows 0..nsup-1 held by a support (0: none); a contact's rows follow */
  double *hold;              /* 3n: the dv of a supported node's held rows (in its frame) */
  int32_t *ccol;             /* a contact's collider */
  double *cn;                /* 3n: a contact's collider normal (x, y, z, outward of the collider) */
  double *cx, *cv;           /* 3n: contact point on the collider, the surface's velocity there */
  double *canchor;           /* 3n: where the contact's plane touches the collider (cx moves with the
                              * node in a static solve's kept contacts; this does not) */
  double *capproach;         /* n: normal speed toward the collider before the contact (<= 0) */
  double *cfric;             /* 2n: kinetic friction impulse on the tangent rows, N s */
  double *cfseed;            /* 2n: a sliding seed's friction in its new tangent rows, for prepare */
  uint8_t *fseed;            /* n: 1 while a sliding seed's friction waits for cl_fem_system_prepare */
  double *cdamp;             /* 3n: a sliding contact's friction stiffness on its tangent rows this round
                              * (d11, d12, d22, impulse per velocity), added to A's diagonal block */
  double *cdoff;             /* 2n: the load that stiffness puts on r0's tangent rows */
  int32_t rounds;            /* solves of the last step's contact rounds after its first one */
  int diag_changed;          /* A's diagonal blocks changed since the last solve (friction stiffness):
                              * cl_fem_system_tell_solver passes it on */
  uint8_t *cflips;           /* n: a contact's changes between sticking and sliding this step */
  double *cimp;              /* 3n: the impulse the constraint or contact gave (x, y, z) */
  double *simp;              /* 3n: the impulse the support gave (x, y, z; 0 for a node without one) */
  uint8_t *was_contact;      /* n: the mode a contact ended the last step in, 0 none (cl_fem_seed_contacts) */
  int32_t ncons;             /* nodes with a held dof (constraints, supports, contacts) */
  int32_t nfull;             /* nodes held in all three dofs by a constraint */
  uint32_t frames_version;   /* counts changes of the frames (a preconditioner made in other frames
                              * is stale: corotational/linsolve.c) */
  int statics;               /* a static solve (see the top of the file) */
  double imposed2;           /* statics: squared dv of the held rows after the last solve (what the
                              * iteration had to move them by: targets not met, contacts found) */
  int32_t reprojected;       /* statics: contacts cl_fem_system_begin moved to the surface under their
                              * node (a view given) */
} cl_fem_system;

/* Allocate the per-node arrays of an n-node system (A, nodes and the solver's own arrays are not
 * touched); cl_fem_system_free frees them. `what` names the system in an out-of-memory message. */
cl_status cl_fem_system_alloc(cl_fem_system *sys, int32_t n, const char *what);
void cl_fem_system_free(cl_fem_system *sys);

/* Start of a step: no dof held, no roles; with keep_contacts (a static solve's later iterations) the
 * last iteration's live contacts stay, held along the same normal where the node is now, or, where
 * the collider's surface turned under the node's slide (a curved collider of `view`; NULL: never;
 * the static solve's polish, fem/static_solve.h), at the surface point under the node along the
 * normal there (counted in sys->reprojected). */
void cl_fem_system_begin(cl_fem_system *sys, const cl_body_state *st, int keep_contacts,
                         const cl_collider_view *view);
/* Hold local node l at target x_t (a constraint): dv lands it there from x with velocity v. */
void cl_fem_hold_constraint(cl_fem_system *sys, int32_t l, const double *x_t, const double *x, const double *v,
                            double dt);
/* Hold local node l in the first `held` rows of axes (a support) at the held components of p. A
 * contact kept from the last static iteration keeps its basis (its support's rows come first in it). */
void cl_fem_hold_support(cl_fem_system *sys, int32_t l, const double *axes, int held, const double *p,
                         const double *x, const double *v, double dt);
/* The contact seeds' skin (cl_fem_seed_contacts) as a fraction of the mesh's edge length, for the
 * solvers that seed: a node that stays on a collider's surface is predicted on it to rounding and
 * dt^2 a; one that moved off by more is not seeded (a wrong seed costs a contact round either way). */
#define CL_FEM_SEED_SKIN 0.01
/* The parameter that turns the seeds on, the same in both FEM solvers' tables (on by default). */
#define CL_FEM_CONTACT_SEED_PARAM                                                                          \
  {.name = "contact_seed", .unit = "1",                                                                    \
   .help = "contact with colliders: a step starts from the last step's contacts (held where the node is "  \
           "predicted to meet the collider) instead of a contact-free solve; the contact rounds then judge " \
           "them as they judge new ones (let go where they would pull, add nodes that penetrate), so a step " \
           "whose contact set did not change solves once instead of twice, and a contact at rest on a "      \
           "curved collider settles with its node on the surface (docs/solvers/graph_fem.md, \"Contact: the " \
           "seeded active set\")",                                                                          \
   .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN}
/* Seed this step's contact active set with the last step's (a warm start of rounds 2-4 above, for
 * solvers that ask for it): after the holds and before the assembly, each free or supported node
 * that ended the last step as a live contact becomes a contact again, of the same collider, where
 * its predicted end position x + dt v, moved `skin` (m) into the collider along its last normal,
 * lies inside it (the surface point and normal of that point; its approach speed, which the
 * restitution reflects after the step, from its velocity at the step's start). The rounds then judge the seeds
 * exactly as they judge the contacts they find: a seed that would pull (R . n < 0) is let go and the
 * system solved again, a node that penetrates is added; so the active set a step ends with meets
 * the same conditions, and a step whose set did not change solves once instead of twice. Not in a
 * static solve (keep_contacts does that there). Returns how many were seeded. */
int32_t cl_fem_seed_contacts(cl_fem_system *sys, const cl_body_state *st, const cl_collider_view *view, double dt,
                             double skin);
/* After the assembly: turn the supported (and kept contact) nodes into their frames and hold them.
 * Returns the squared unbalanced force on the free dofs (|r0| over them), the merit of a static
 * iteration. */
double cl_fem_system_prepare(cl_fem_system *sys, const cl_body_state *st, double dt);

/* A static iteration's contacts at its start (after cl_fem_system_prepare, frames in place): the sum
 * over its contacts of the squared force the friction cone cannot hold, |R_t| - mu R_n where positive
 * for a sticking contact (R = -r0 on its held rows), all of |R| for one that pulls (R_n < 0). Added to
 * the merit of the iteration (fem/static_solve.h): the free rows' unbalanced force alone says nothing
 * of the held ones, and a state whose contacts would still slide is not an equilibrium. */
double cl_fem_system_cone_excess2(const cl_fem_system *sys, const cl_collider_view *view);
/* Before a re-solve in the contact rounds (the solve callback): when the linearised friction changed
 * A's diagonal blocks since the last solve, tell the linear solver (cl_linear_solver_diagonal_changed)
 * and clear the flag. */
void cl_fem_system_tell_solver(cl_fem_system *sys, cl_linear_solver *ls);

/* A solver's solve of A dv = r0 with the system's mask; `again` = 0 for the step's first solve. */
typedef cl_status (*cl_fem_solve_fn)(void *ctx, cl_fem_system *sys, int again);
/* The contact active set (rounds 2-4 above) after the first solve. Returns the worst status of the
 * solves (warnings included); < 0 stops. */
cl_status cl_fem_contact_rounds(cl_fem_system *sys, const cl_body_state *st, const cl_collider_view *view, double dt,
                                cl_fem_solve_fn solve, void *ctx);
/* After the last solve: with `balance` (momentum kept by the solver and a dynamic collider touched)
 * the free rows' residual sum is removed (two-way contact conserves momentum exactly); the held
 * nodes' impulses go to cimp (constraints, contacts) and simp (supports; a supported node in contact
 * splits its reaction between the two, see the top); in a static solve imposed2 is set; the frames
 * are turned back. */
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

/* The impulse (N s) the constraint or contact of local node l gave this step (cimp), valid after
 * cl_fem_system_finish. */
static inline const double *cl_fem_impulse(const cl_fem_system *sys, int32_t l) { return sys->cimp + 3 * (size_t)l; }
/* The impulse (N s) the support of local node l gave this step (simp): its reaction times dt. */
static inline const double *cl_fem_support_impulse(const cl_fem_system *sys, int32_t l) {
  return sys->simp + 3 * (size_t)l;
}

/* Static solves (fem/static_solve.h), after cl_fem_system_finish of an iteration:
 * the sum of the squared impulses the constraints, supports and contacts gave (with dt = 1: forces,
 * N^2), the force scale of a problem they drive; */
double cl_fem_system_reaction2(const cl_fem_system *sys);
/* record each live contact's force (its impulse with dt = 1, N) at its node into its collider's
 * contact record, for the world's contact probes. */
void cl_fem_system_record_contacts(const cl_fem_system *sys, const cl_body_state *st, const cl_collider_view *view);

/* ---- a preconditioner across changes of frame ------------------------------------------------
 * A preconditioner made (a reused factor, say) while the nodes were in the frames Fs (a node's basis
 * while its frame is in place, I otherwise) fits the matrix A_f = Fs A_xyz Fs^T. Once frames change,
 * above all within a step when the contacts found after its first solve are turned into their frames
 * and the system is solved again with the same set-up, the matrix is F A_xyz F^T = G A_f G^T with
 * G_l = F_l Fs_l^T per node, so the wrap z = G P^-1 G^T r (symmetric positive definite like P) keeps
 * it a good preconditioner: measured on a block resting on the ground with a reused CHOLMOD factor,
 * 5910 CG iterations over 30 steps without it, 1192 with it (corotational; tests/lua/
 * test_supports_loads_contact.lua). A solver that also turns its factor by node rotations Q_l
 * (corotational/linsolve.c) uses G_l = F_l Q_l Fs_l^T. */

/* Fs <- each node's frame now (9n: the basis while its frame is in place, else I). */
void cl_fem_frames_snapshot(const cl_fem_system *sys, double *Fs);
/* G = F_l Q Fs_l^T for local node l: Fs_l its 9 entries of a snapshot, Q NULL for I. */
void cl_fem_frame_turn(const cl_fem_system *sys, int32_t l, const double *Fs_l, const double *Q, double G[9]);
/* z = G inner(G^T r) over n nodes (G: 9n, tmp: 3n scratch). */
cl_status cl_fem_turned_precond(int32_t n, const double *G, double *tmp, cl_precond_fn inner, void *inner_ctx,
                                const double *r, double *z);

/* The wrap of a solver without rotations of its own (graph_fem): set def.wrap = cl_fem_frame_wrap_of. */
typedef struct cl_fem_frame_wrap {
  const cl_fem_system *sys;
  double *Fs;                /* 9n: the frames when the preconditioner was made */
  double *G;                 /* 9n: F Fs^T */
  double *tmp;               /* 3n */
  uint32_t version;          /* sys->frames_version when G was made */
  int stale;                 /* G to be made again (a new preconditioner) */
} cl_fem_frame_wrap;

cl_status cl_fem_frame_wrap_alloc(cl_fem_frame_wrap *w, const cl_fem_system *sys);
void cl_fem_frame_wrap_free(cl_fem_frame_wrap *w);
cl_precond_wrap cl_fem_frame_wrap_of(cl_fem_frame_wrap *w);

#endif
