/* The corotational FEM solver ("corotational"): linear tetrahedra with stiffness warping (Mueller &
 * Gross, "Interactive virtual materials", GI 2004), implicit backward Euler in velocity form (O'Malley,
 * "Real-time, plasticity-based fracture using the FEM and rigid body proxies", DigiPen 2015 -- "the
 * thesis" below -- eqs 3.8-3.10), lumped mass, Rayleigh damping (eq 3.11), plasticity (sec 3.2.3),
 * fracture by node replication along element faces (sec 5.4), aesthetic joint pruning (sec 5.4.1)
 * and islands solved as independent systems (sec 5.1.2). docs/solvers/corotational.md has the
 * equations and every choice the thesis leaves open.
 *
 * File map (this folder):
 *   solver.c      the cl_solver_ops table, parameters, create/destroy/bind, measure, energy
 *   element.c     rest-state precomputation (Dm^-1, volumes, lumped masses) and the per-element
 *                 update (F, rotation, strain, plasticity, stress, nodal forces, rotated gradients),
 *                 on the shared linear-tet code of fem/tet.h
 *   rotation.c    rotation extraction: signed polar decomposition (default) or Gram-Schmidt
 *   plasticity.c  the plastic flow rule (yield, creep, max, hardening)
 *   islands.c     node-element incidence, connected components, per-island systems and their cache
 *   assembly.c    row-wise gather of A = M(1 + dt alpha) + (dt^2 + dt beta) K and b into an island's BSR
 *   linsolve.c    the island's solve through linalg's linear-solver table (warm start, tolerance
 *                 reference, the warped preconditioner around a reused CHOLMOD factor, the Galerkin
 *                 multigrid's rest positions per island)
 *   step.c        the time step: constraints, supports, contact active set, solve, positions, reactions
 *   static.c      static equilibrium: Newton iterations through step.c's static mode, line search
 *   fracture.c    node replication, joint pruning, topology_changed
 *
 * Nothing here includes world/ or api/ headers (solvers/solver.h layering rule). */
#ifndef CL_SOLVERS_COROTATIONAL_COROT_H
#define CL_SOLVERS_COROTATIONAL_COROT_H

#include <stdint.h>

#include "base/mat3.h"
#include "fem/system.h"
#include "linalg/bsr.h"
#include "linalg/linear_solver.h"
#include "solvers/solver.h"

/* The solver table, registered in solvers/registry.c. */
extern const cl_solver_ops cl_corotational_solver_ops;

/* Indices into the parameter table (solver.c); values arrive in this order. */
typedef enum cl_corot_param {
  CL_COROT_ALPHA = 0,            /* "damping": Rayleigh mass damping alpha, 1/s */
  CL_COROT_BETA,                 /* "stiffness_damping": Rayleigh stiffness damping beta, s */
  CL_COROT_LINEAR_SOLVER,        /* index of linalg's linear-solver table: 0 "pcg", 1 "cholmod", 2 "galerkin_mg" */
  CL_COROT_TOLERANCE,            /* CG relative residual */
  CL_COROT_MAX_ITERATIONS,       /* CG iteration cap */
  CL_COROT_REFACTOR_ITERATIONS,  /* refactor when preconditioned CG needed more than this */
  CL_COROT_ROTATION,             /* 0 polar, 1 Gram-Schmidt */
  CL_COROT_JOINT_PRUNING,        /* 1 on, 0 off */
  CL_COROT_PLASTIC_RELIEF,       /* fraction of plastic strain removed around a fractured node */
  CL_COROT_MIN_ISLAND,           /* fracture skipped on islands of at most this many elements */
  CL_COROT_CONSERVE_MOMENTUM,    /* remove the net force of the linear-solve residual */
  CL_COROT_WARP_PRECONDITIONER,  /* turn a reused CHOLMOD factor by the nodes' rotations since */
  CL_COROT_TOLERANCE_REFERENCE,  /* 0: relative to ||b|| of eq 3.8, 1: to ||b - A v|| */
  CL_COROT_WARM_START,           /* 0: previous step's dv, 1: linear extrapolation of the last two */
  CL_COROT_FACTOR_SOLVE,         /* cl_cholmod_solve_mode of the factor in CG */
  CL_COROT_GRID,                 /* galerkin_mg: the grid spec (a text); this and the five after it are
                                    fem/mg_params.h's, in its order (CL_COROT_GRID + CL_FEM_MG_*) */
  CL_COROT_MG_MODE,
  CL_COROT_MG_CYCLES,
  CL_COROT_MG_SMOOTHER,
  CL_COROT_MG_SWEEPS,
  CL_COROT_MG_COARSE,
  CL_COROT_CONTINUE_CRACKS,      /* 1: a node split continues the cracks at the node (fracture.c) */
  CL_COROT_MIN_FRAGMENT,         /* an event that cuts off a piece of at most this many elements (or mean
                                    element volumes) is undone */
  CL_COROT_SKIP_STALE,           /* 1: skip an event next to a node split earlier in the same step */
  CL_COROT_CONTACT_SEED,         /* 1: a step starts from the last step's contacts (fem/system.h) */
  CL_COROT_PARAM_COUNT
} cl_corot_param;

/* Values of linear_solver: indices of the entries of linalg's table (cl_linear_solver_name(i)), which
 * keeps its order fixed; tests/c/test_linear_solver.c checks that the names match. */
enum { CL_COROT_SOLVER_PCG = 0, CL_COROT_SOLVER_CHOLMOD = 1, CL_COROT_SOLVER_GALERKIN_MG = 2 };
enum { CL_COROT_ROTATION_POLAR = 0, CL_COROT_ROTATION_GRAM_SCHMIDT = 1 };
/* Islands below this many nodes always use block-Jacobi PCG: a factorisation or a hierarchy costs more
 * there. With galerkin_mg, so do islands with no more nodes than the grid's finest coarse level. */
enum { CL_COROT_CHOLMOD_MIN_NODES = 64 };

/* One connected component of the mesh, solved as its own linear system (thesis sec 5.1.2). Local
 * node l of the island is global node nodes[l]; nodes and elems are ascending. */
typedef struct cl_corot_island {
  int32_t nnodes, nelems;
  int32_t *nodes;
  int32_t *elems;
  /* A dv = r0 (eq 3.8 for the velocity change) with its constraints, supports and contacts:
   * A (3 nnodes square, pattern from the island's elements), b, r0 = b - A v, v (gathered), dv (kept
   * between steps as the warm start), dv_prev (warm_start = 1) and the mask (fem/system.h) */
  cl_fem_system sys;
  cl_linear_solver *ls;      /* linalg's table entry solving A dv = r0; NULL until the first solve */
  int has_prev;              /* solved steps behind dv (capped at 2): extrapolate from 2 */
  double *Rn;                /* 9 nnodes, node rotations this step (warped preconditioner only) */
  double *Rf;                /* 9 nnodes, node rotations when the factor was made */
  double *Fs;                /* 9 nnodes, each node's local frame (basis, or I) when the factor was made */
  double *Q;                 /* 9 nnodes, F Rn Rf^T Fs^T: the preconditioner's per-node turn (fem/system.h) */
  int q_stale;               /* Rn, Rf or the frames when the factor was made changed since Q was made */
  uint32_t q_frames;         /* the system's frames_version when Q was made (a frame turned since: stale) */
  int warp_rot;              /* this solve turns the factor by the node rotations (warp_preconditioner) */
  double *tmp;               /* 3 nnodes, scratch of the preconditioner */
  double tol_scale;          /* this solve: the CG tolerance on r0 is tolerance * tol_scale */
  int reused;                /* 1 if carried over unchanged from before a topology change */
} cl_corot_island;

/* Per-step figures for statistics and the benchmark (ms, last step). */
typedef struct cl_corot_timing {
  double element_ms;    /* rotations, strain, plasticity, element forces (thesis "stiffness") */
  double assembly_ms;   /* gather of A and b (thesis "dynamics assembly") */
  double solve_ms;      /* linear solves, factorisations included */
  double update_ms;     /* positions, colliders, reactions */
  int32_t iterations;   /* CG iterations summed over islands */
  double residual;      /* largest relative residual over islands */
  int32_t factorizations; /* numeric set-ups this step: CHOLMOD factorisations, full multigrid set-ups */
  int64_t total_factorizations;
  int64_t total_analyses;
  int64_t steps;
} cl_corot_timing;

typedef struct cl_corot {
  double p[CL_COROT_PARAM_COUNT];
  char grid[CL_MG_GRID_CHARS]; /* galerkin_mg: the grid spec (CL_COROT_GRID's text), checked at bind */
  int32_t grid_largest;      /* its finest coarse level's vertex count */
  const double *X;           /* the state's rest positions, set by every step (the multigrid's analysis) */
  char body[96];             /* body name for messages */
  int32_t threads;

  /* material */
  double lambda, mu, density;
  int plastic;               /* plasticity on (material.plastic_yield >= 0) */
  double yield, flow, hardening, plastic_max;

  /* per element (global element index = unit index = cell index) */
  int32_t ntets;
  double *Dminv;             /* 9 per tet: inverse rest edge matrix, row a-1 = grad of barycentric a */
  double *vol;               /* rest volume, m^3 */
  double *eps_p;             /* 6 per tet: plastic strain in the rest frame (xx yy zz xy yz zx) */
  double *h;                 /* 12 per tet: rotated gradients R g_a (a = 0..3), this step */
  double *f;                 /* 12 per tet: elastic force on each corner, N, this step */
  double *Re;                /* 9 per tet: element rotation, this step */
  double mean_volume;        /* mean rest volume of the tets, m^3 (the fragment rule, the contact seeds' skin) */

  /* node-element incidence (CSR over nodes), rebuilt at topology changes */
  int32_t inc_nodes;         /* nodes the incidence covers */
  int32_t *inc_ptr;          /* inc_nodes + 1 */
  int32_t *inc;              /* 4 ntets entries: 4 * element + corner */
  int64_t *inc_slot;         /* 4 per incidence entry: BSR slot of block (corner, b) in its island */

  /* islands */
  int32_t nislands, islands_cap;
  cl_corot_island *islands;
  int32_t *node_island;      /* per node: island, -1 for a node in no element */
  int32_t *node_local;       /* per node: index inside its island */
  int32_t *elem_island;      /* per element */
  int32_t node_cap;          /* capacity of the per-node arrays above */

  cl_corot_timing timing;
  int64_t step_count;

  /* static equilibrium (static.c): the step machinery runs one Newton iteration when statics = 1:
   * no mass and no damping in A (A = K), b = the unbalanced force, dv = the displacement, no plastic
   * flow; keep_contacts starts the contact active set from the previous iteration's contacts */
  int statics;
  int keep_contacts;
  double static_res2;        /* squared unbalanced force on the free dofs at the iteration's start */
  double static_shift;       /* the mass shift of pseudo-transient continuation (static.c), 1/s^2 */
} cl_corot;

/* ---- element.c ---- */
/* Rest precomputation for every tet of the state (X, cells): Dm^-1 and volume. Degenerate or
 * inverted rest tets are CL_ERR_MESH naming the tet and its volume. */
cl_status cl_corot_elements_init(cl_corot *s, const cl_body_state *st);
/* Lumped masses m_i = sum over the tets of node i of density V / 4 (thesis sec 3.2.4). */
void cl_corot_lump_masses(const cl_corot *s, cl_body_state *st);
/* The per-element update of one step: F = Ds Dm^-1, rotation R, strain, plastic flow (when
 * `advance_plastic`), stress, forces f and rotated gradients h. Parallel over elements.
 * CL_ERR_NUMERICAL naming the element and its nodes if F is not finite. */
cl_status cl_corot_update_elements(cl_corot *s, const cl_body_state *st, double dt, int advance_plastic);
/* F, rotation R and elastic strain (rest frame, symmetric) of one element, without touching state. */
cl_status cl_corot_element_strain(const cl_corot *s, const cl_body_state *st, int32_t e, cl_mat3 *F, cl_mat3 *R,
                                  cl_mat3 *eps_elastic);
/* sigma_c = lambda tr(eps) I + 2 mu eps */
cl_mat3 cl_corot_stress(const cl_corot *s, const cl_mat3 *eps);

/* ---- rotation.c ---- */
/* Rotation of F by the method chosen (polar by default). Always a proper rotation. */
cl_status cl_corot_rotation(int method, const cl_mat3 *F, cl_mat3 *R);

/* ---- plasticity.c ---- */
/* Advance the plastic strain eps_p (6, rest frame) of one element given its total strain
 * (symmetric, rest frame) over dt. Returns 1 if the cap plastic_max clipped it. */
int cl_corot_plastic_flow(const cl_corot *s, const cl_mat3 *eps_total, double dt, double *eps_p);
cl_mat3 cl_corot_sym_from6(const double *e6);
void cl_corot_sym_to6(const cl_mat3 *m, double *e6);

/* ---- islands.c ---- */
/* Grow per-node arrays to the state's node count. */
cl_status cl_corot_reserve_nodes(cl_corot *s, int32_t n);
/* Rebuild incidence and islands from the state's cells; islands whose node and element sets did
 * not change keep their matrices, workspaces and CHOLMOD analysis. */
cl_status cl_corot_build_islands(cl_corot *s, const cl_body_state *st);
void cl_corot_free_islands(cl_corot *s);
/* Node-element incidence only (used inside the fracture operation between events). */
cl_status cl_corot_build_incidence(cl_corot *s, const cl_body_state *st);

/* ---- assembly.c ---- */
/* A = M (1 + dt alpha) + (dt^2 + dt beta) K and b = M v + dt (f_el + f_ext + M g) for one island
 * (eq 3.8 with f_u and K x gathered into f_el, see docs). Gathers v too. */
void cl_corot_assemble_island(const cl_corot *s, const cl_body_state *st, const cl_step_input *in,
                              cl_corot_island *isl);

/* ---- linsolve.c ---- */
/* Solve A dv = r0 on the island (constraints in isl->fixed / isl->dv already set). `resolve` = 1
 * for the second solve of a step (contacts added): the CHOLMOD factor is not renewed. Adds
 * iterations and residual to the report. CL_WARN_NOT_CONVERGED is passed on. */
cl_status cl_corot_solve_island(cl_corot *s, cl_corot_island *isl, int32_t index, int resolve, cl_step_report *rep);

/* ---- step.c ---- */
cl_status cl_corot_step(void *solver, cl_body_state *st, const cl_step_input *in, cl_step_report *rep);

/* ---- static.c ---- */
cl_status cl_corot_equilibrium(void *solver, cl_body_state *st, const cl_step_input *in, const cl_static_def *opt,
                               cl_static_report *report);

/* ---- fracture.c ---- */
cl_status cl_corot_fracture(void *solver, cl_body_state *st, const cl_fracture_event *events, int32_t count,
                            int32_t *applied);
cl_status cl_corot_topology_changed(void *solver, cl_body_state *st);
/* Aesthetic joint pruning (thesis sec 5.4.1) at the given nodes and, transitively, at the nodes of
 * the elements it touches: a node whose elements fall into several face-connected groups (joined
 * only through the node or an edge through it: a ball or hinge joint) is replicated once per extra
 * group. Returns the number of nodes added in *added. */
cl_status cl_corot_prune_joints(cl_corot *s, cl_body_state *st, const int32_t *seeds, int32_t nseeds,
                                int32_t *added);

/* Timing of the last step (for the benchmark and tests); `solver` is the private data of a body
 * whose solver is "corotational". */
void cl_corot_get_timing(const void *solver, cl_corot_timing *out);

#endif
