/* The graph-based FEM solver ("graph_fem"): Mandal, Chaudhuri and Chaudhuri, "Galerkin Enhanced
 * Graph-Based FEM for Interactive Fracture and Sculpting Applications", GRAPP 2025 ("the paper").
 * Linear tetrahedra with a hyperelastic model chosen by name (fem/material.h), lumped mass, backward
 * Euler in velocity form (eq 3: (M + dt^2 K) dv = dt (f_ext - f_int - dt K v), with optional
 * Rayleigh damping), fracture by damaging the mesh's edges (Algorithm 1) without ever remeshing,
 * solved through linalg's linear-solver table by name (the Galerkin multigrid of sec 3.2-3.3 is an
 * entry there). docs/solvers/graph_fem.md has the equations and the choices the paper leaves open.
 *
 * File map (this folder):
 *   solver.c    the table, parameters, create/destroy/bind, the step (step.c's, then the next
 *               step's element pass), measure (the pass's F and stress), energy, stats
 *   edges.c     the edge graph: edges of the tets, lookup by node pair, damage, pieces over the
 *               undamaged edges, the visual surface that splits along damaged edges
 *   element.c   per element: the model's force and projected stiffness (undamaged), or the
 *               edge-degraded corotational element (damaged; eq 2's degraded energy), and its
 *               stress; the pass kept while the positions, parameters and damage hold
 *   warped.c    tangent = warped: an intact element's model forces in closed form and the rotated
 *               small-strain stiffness (its rotated gradients h; the assembly makes the blocks)
 *   assembly.c  A = M (1 + dt alpha) + (dt^2 + dt beta) K and b, a row-wise gather
 *   step.c      the time step (fem/system.h: constraints, supports, contact) and the solve
 *   lagged.c    tangent_every: whether a step keeps the last fresh step's A (and the solver's set-up)
 *               and only makes the forces (the lagged-tangent step)
 *   static.c    static equilibrium: Newton on the projected tangent (fem/static_solve.h)
 *   fracture.c  the topology operation: damage_edge, cut_surface and split_unit events
 *
 * Nothing here includes world/ or another solver's folder. */
#ifndef CL_SOLVERS_GRAPH_FEM_H
#define CL_SOLVERS_GRAPH_FEM_H

#include <stdint.h>

#include "fem/material.h"
#include "fem/system.h"
#include "linalg/linear_solver.h"
#include "solvers/solver.h"

extern const cl_solver_ops cl_graph_fem_solver_ops;

typedef enum cl_gfem_param {
  GF_MODEL = 0,          /* fem/material.h model, a choice */
  GF_ALPHA,              /* Rayleigh mass damping, 1/s */
  GF_BETA,               /* Rayleigh stiffness damping, s */
  GF_LINEAR_SOLVER,      /* an entry of linalg's table, a choice */
  GF_TOLERANCE,          /* relative residual of the solve */
  GF_MAX_ITERATIONS,     /* iteration cap of iterative entries */
  GF_GRID,               /* galerkin_mg: the grid spec (a text), e.g. "50/all"; this and the five below are
                            fem/mg_params.h's, in its order (GF_GRID + CL_FEM_MG_*) */
  GF_MG_MODE,            /* galerkin_mg: pcg (converge) or fixed (mg_cycles V-cycles, the paper's) */
  GF_MG_CYCLES,          /* galerkin_mg, mode fixed: V-cycles per solve */
  GF_MG_SMOOTHER,        /* galerkin_mg: jacobi | gauss_seidel | symmetric_gauss_seidel | colored_gauss_seidel */
  GF_MG_SWEEPS,          /* galerkin_mg: smoothing sweeps before and after the coarse correction */
  GF_MG_COARSE,          /* galerkin_mg: the coarsest level's solve, cg | cholmod | dense */
  GF_INITIAL_GUESS,      /* the solve's starting dv: auto | previous | zero (step.c) */
  GF_TANGENT,            /* model (the model's projected dP/dF) | warped (warped.c) */
  GF_WARP_LIMIT,         /* tangent = warped: ||F^T F - I||_F beyond which an element takes the model's */
  GF_TANGENT_EVERY,      /* a fresh A = M + dt^2 K every this many steps at most (lagged.c) */
  GF_TANGENT_DRIFT,      /* and whenever some element's ||F - F_fresh||_F exceeds this (lagged.c) */
  GF_CONTACT_SEED,       /* a step's contact active set starts from the last step's (fem/system.h) */
  GF_CONTACT_CYCLES,     /* galerkin_mg, mode fixed: V-cycles of a contact round's re-solve (0 = mg_cycles) */
  GF_PARAM_COUNT
} cl_gfem_param;

enum { CL_GFEM_EDG = 80 }; /* doubles per tet of cl_gfem.edg (element.c) */

typedef struct cl_gfem {
  double p[GF_PARAM_COUNT];
  char grid[CL_MG_GRID_CHARS]; /* the grid spec (GF_GRID's text) */
  char body[96];
  int32_t threads;
  cl_fem_material mat;       /* the body's model */
  double lambda0, mu0;       /* small-strain Lame constants (E, nu): the damaged elements' */
  double density;

  /* elements (unit i = cell i = tet i; the cells never change: no remeshing) */
  int32_t ntets, nnodes;
  double *Dminv;             /* 9 per tet */
  double *vol;               /* rest volume per tet, m^3 */
  double *fe;                /* 12 per tet: elastic forces of this step, N */
  double *Ke;                /* CL_TET_UPPER (54) per tet: the element's stiffness of this step, its blocks of
                                corners 1-3 (fem/tet.h's upper form; the assembly makes the others) */
  uint8_t *kform;            /* per tet: the CL_TET_* flags of its Ke (0 for the model's element) */
  double *h;                 /* 12 per tet, tangent = warped: rotated gradients R g_a of an intact tet */
  int use_h;                 /* this step's intact elements give h instead of Ke (warped, not static) */
  uint8_t *hk;               /* per tet, use_h: 1 = this step's stiffness is h's (within warp_limit) */
  double *psi;               /* elastic energy per tet of this step, J */
  double *Re;                /* 9 per tet: a damaged element's rotation */
  double *edg;               /* CL_GFEM_EDG per tet: a damaged element's edge basis, G_d (36), rest
                                directions n_k (18), 1 / L_k (6), rotation fit g_k (18), the fit spans (1),
                                the largest damage of its edges (1) */
  uint8_t *dmg;              /* per tet: 0 intact, 1 some edge damaged */
  uint8_t *kdirty;           /* per tet: edg must be rebuilt (its damage changed: fracture.c) */
  double *Fe;                /* 9 per tet: F of the last element pass */
  double *sig;               /* 9 per tet: Cauchy stress of the last element pass, Pa (what measure reports) */

  /* the last element pass's key (element.c): its fe, Ke, h, psi, Fe, sig hold while the positions,
   * the parameters and the tangent mode are these; an element whose damage changed since (kdirty) is
   * redone alone. The step computes the next step's pass at its end (the positions it leaves are
   * those the measure and the next step read), unless such passes kept being wasted. */
  double *xkey;              /* 3 nnodes: positions of the last pass */
  double pkey[GF_PARAM_COUNT];
  int key_valid, key_exact;
  int key_forces;            /* the last pass made forces only (no Ke, no h): it serves no step that assembles A */
  int forces_only;           /* the pass to make now needs no stiffness (a lagged step: lagged.c) */
  int prefetched;            /* the last pass ran ahead at the end of a step and was not used yet */
  int32_t prefetch_misses, prefetch_wait;
  int32_t *redo;             /* scratch, ntets: the elements a pass that holds redoes */

  /* the edge graph (edges.c) */
  int32_t nedges;
  double mean_edge;          /* mean rest length of the edges, m (the contact seeds' skin: step.c) */
  int32_t *edge;             /* 2 per edge: its end nodes, a < b */
  int32_t *tet_edge;         /* 6 per tet: its edges, in the order (0,1) (0,2) (0,3) (1,2) (1,3) (2,3) */
  int32_t *adj_ptr, *adj_nb, *adj_edge; /* per node (CSR): neighbours and the edge to each */
  double *damage;            /* per edge, [0, 1]: its damage in every element that has it (1 = broken) */
  double *edamage;           /* 6 per tet: an edge's damage in this element only (a crack crossing it) */
  int32_t *edge_tets;        /* per edge: tets that have it */
  int32_t *edge_local_broken;/* per edge: tets in which its own damage (edamage) is 1 */
  uint8_t *cut;              /* per edge: 1 = no element joins its nodes any more (the graph's broken edge) */
  int32_t *inc_ptr, *inc;    /* per node (CSR): 4 tet + corner of the tets around it */
  int64_t damage_version;    /* bumped whenever damage changes */

  /* assembly and solve */
  int32_t *slot;             /* 16 per tet: the BSR slot of block (a, b) (32 bits: half the assembly's reads) */
  cl_fem_system sys;         /* A (3 nnodes square), vectors and the held dofs */
  cl_linear_solver *ls;
  cl_linear_solver_def lsdef; /* ls's options (a contact round's re-solve changes its V-cycles: step.c) */
  cl_fem_frame_wrap fwrap;   /* a reused factor follows the frames of supports and contacts (fem/system.h) */
  int analysed;

  /* the lagged tangent (lagged.c): the fresh step whose A (and linear-solver set-up) later steps keep */
  struct {
    int valid;               /* A holds that step's matrix, in x y z (no frame turned since), set up */
    int keep;                /* this step leaves A as it was assembled unless it turns frames */
    int32_t age;             /* steps since it (0: it was the last step) */
    double dt;               /* its dt */
    int64_t damage_version;  /* the damage it was made with */
    double p[GF_PARAM_COUNT];/* its parameters */
    uint8_t *mask;           /* 3 nnodes: its held dofs before the solve (constraints) */
    double *F;               /* 9 per tet: its deformation gradients */
    uint32_t frames;         /* sys.frames_version before its prepare (lagged.c: a turned A is not kept) */
    double drift;            /* the last step's max_e ||F_e - F_e(fresh)||_F (when it was measured) */
    int drift_fresh;         /* the drift made the last step fresh (the next pass makes the stiffness) */
    int64_t fresh, lagged;   /* steps of each kind so far (statistics, tests) */
    int64_t drifted;         /* of the fresh ones, those the drift made (the schedule would have kept A) */
  } lag;

  /* static solves (static.c, fem/static_solve.h): the mass shift of this iteration, whether the
   * last iteration's contacts stay, the unbalanced force squared before the move */
  double static_shift;
  int keep_contacts;
  int exact_tangent;         /* 1: the model's own tangent, unprojected (static Newton iterations) */
  double static_res2;

  /* caches keyed by damage_version */
  int32_t *plabel;           /* per node: piece label over undamaged edges */
  int32_t npieces;
  int64_t pieces_version;
  int32_t *tris, ntris, tris_cap;
  int64_t surface_version;

  /* statistics of the last step */
  double element_ms, assembly_ms, solve_ms, update_ms;
  int32_t iterations;
  double residual;
  int64_t steps, broken_edges; /* broken_edges: edges cut (no element joins their nodes) */
} cl_gfem;

/* ---- edges.c ---- */
/* The edge graph and node incidence of the state's tets (bind). */
cl_status cl_gfem_build_edges(cl_gfem *s, const cl_body_state *st);
/* Edge between nodes a and b, or -1. */
int32_t cl_gfem_edge(const cl_gfem *s, int32_t a, int32_t b);
/* Pieces: connected components of the nodes over the edges not cut (cached). */
cl_status cl_gfem_pieces(cl_gfem *s);
/* The visual surface (the paper's M_v, Fig. 1c): the boundary faces of the tets no crack runs through
 * (those whose corners stay connected over their unbroken edges), so the surface splits where cracks
 * run, and its crack faces are the faces of the tets beside the crack (a crack costs the picture one
 * layer of tets); less the groups of such tets that touch the rest along an edge only, so every edge
 * is in exactly two triangles: closed and edge-manifold (cached; owned by s). */
cl_status cl_gfem_visual_surface(cl_gfem *s, const cl_body_state *st);

/* ---- element.c ---- */
/* Forces, stiffness, energy, F and stress of every element at the state's positions (parallel);
 * only the elements whose damage changed when the last pass was at these positions (its key). */
cl_status cl_gfem_update_elements(cl_gfem *s, const cl_body_state *st);
/* The end of a step: the next step's element pass now, at the positions the step leaves, unless the
 * last such passes were wasted (positions moved before use: body contacts, tools, scripts). */
cl_status cl_gfem_prefetch_elements(cl_gfem *s, const cl_body_state *st);
/* tangent = warped: forces, energy, stress and rotated gradients of intact element e at its F (warped.c): 1 done, -1
 * its strain is beyond warp_limit (the caller makes the model's element), 0 when F has no rotation
 * (non-finite). */
int cl_gfem_warped_element(cl_gfem *s, const cl_mat3 *F, int32_t e);
/* The model's first Piola stress P (and energy density, rotation R of F; either may be NULL) in
 * closed form from the polar rotation, no SVD (warped.c; the rotation is made only for the corotated
 * model or when R is asked for): 0 when F has no rotation or P is not finite (the caller then takes
 * cl_fem_piola's answer and its error). */
int cl_gfem_closed_form_piola(const cl_fem_material *m, const cl_mat3 *F, cl_mat3 *R, cl_mat3 *P, double *psi);
/* The whole 12x12 stiffness (row-major, dof 3 a + r) element e's last pass gave, whichever form it
 * was kept in (Ke's upper form or the warped h): what the assembly adds, times dt^2 (for tests). */
void cl_gfem_element_matrix(const cl_gfem *s, int32_t e, double *K);
/* Intact element e's F and its Cauchy stress P F^T / J into s->Fe, s->sig (0 for a flat element). */
void cl_gfem_store_stress(cl_gfem *s, int32_t e, const cl_mat3 *F, const cl_mat3 *P);
/* The damage of element e's six edges: max of the edge's damage everywhere and in e alone. */
void cl_gfem_element_damage(const cl_gfem *s, int32_t e, double *d);

/* ---- assembly.c ---- */
cl_status cl_gfem_build_slots(cl_gfem *s, const cl_body_state *st);
/* A and b, r0 (matrix = 1), or b and r0 = b - A v with the A already there (matrix = 0: a lagged step). */
void cl_gfem_assemble(cl_gfem *s, const cl_body_state *st, const cl_step_input *in, int matrix);

/* ---- step.c ---- */
/* The linear-solver entry named by the parameters, created and analysed once (bind: a grid spec
 * that does not fit the mesh is refused when the body is added). */
cl_status cl_gfem_linear_solver(cl_gfem *s, const cl_body_state *st);
cl_status cl_gfem_step(void *solver, cl_body_state *st, const cl_step_input *in, cl_step_report *rep);

/* ---- lagged.c ---- */
/* Before the element pass of a step, after its holds: 1 when the step may keep the last fresh step's
 * A and set-up (tangent_every > 1, and nothing that A depends on changed: parameters, dt, damage, the
 * held dofs, no frame turned in A), 0 when it makes a fresh A; sets s->forces_only to match. */
int cl_gfem_lag_decide(cl_gfem *s, const cl_step_input *in);
/* After a kept step's element pass (forces only): 1 when no element's F moved more than tangent_drift
 * from the kept tangent's; else 0, and s->forces_only = 0 (the step must make a fresh A, and its
 * element pass the stiffness too). */
int cl_gfem_lag_within_drift(cl_gfem *s);
/* After the assembly, before cl_fem_system_prepare: note what a fresh step's A was made with. */
void cl_gfem_lag_note(cl_gfem *s, const cl_step_input *in, int lagged);
/* After cl_fem_system_finish: whether A stays usable (no frame turned in it), and the kind of
 * element pass the next step most likely needs (s->forces_only, for the pass made ahead). */
void cl_gfem_lag_end(cl_gfem *s);

/* ---- static.c ---- */
cl_status cl_gfem_equilibrium(void *solver, cl_body_state *st, const cl_step_input *in, const cl_static_def *opt,
                              cl_static_report *report);

/* ---- fracture.c ---- */
cl_status cl_gfem_fracture(void *solver, cl_body_state *st, const cl_fracture_event *events, int32_t count,
                           int32_t *applied);

#endif
