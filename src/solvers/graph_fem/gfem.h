/* The graph-based FEM solver ("graph_fem"): Mandal, Chaudhuri and Chaudhuri, "Galerkin Enhanced
 * Graph-Based FEM for Interactive Fracture and Sculpting Applications", GRAPP 2025 ("the paper").
 * Linear tetrahedra with a hyperelastic model chosen by name (fem/material.h), lumped mass, backward
 * Euler in velocity form (eq 3: (M + dt^2 K) dv = dt (f_ext - f_int - dt K v), with optional
 * Rayleigh damping), fracture by damaging the mesh's edges (Algorithm 1) without ever remeshing,
 * solved through linalg's linear-solver table by name (the Galerkin multigrid of sec 3.2-3.3 is an
 * entry there). docs/solvers/graph_fem.md has the equations and the choices the paper leaves open.
 *
 * File map (this folder):
 *   solver.c    the table, parameters, create/destroy/bind, measure, energy, stats
 *   edges.c     the edge graph: edges of the tets, lookup by node pair, damage, pieces over the
 *               undamaged edges, the visual surface that splits along damaged edges
 *   element.c   per element: the model's force and projected stiffness (undamaged), or the
 *               edge-degraded corotational element (damaged; eq 2's degraded energy)
 *   assembly.c  A = M (1 + dt alpha) + (dt^2 + dt beta) K and b, a row-wise gather
 *   step.c      the time step (fem/system.h: constraints, supports, contact) and the solve
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
  GF_MG_SMOOTHER,        /* galerkin_mg: jacobi | gauss_seidel | symmetric_gauss_seidel */
  GF_MG_SWEEPS,          /* galerkin_mg: smoothing sweeps before and after the coarse correction */
  GF_MG_COARSE,          /* galerkin_mg: the coarsest level's solve, cg | cholmod | dense */
  GF_PARAM_COUNT
} cl_gfem_param;

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
  double *Ke;                /* 144 per tet: the element's stiffness of this step */
  double *psi;               /* elastic energy per tet of this step, J */
  double *Re;                /* 9 per tet: a damaged element's rotation */
  double *K0d;               /* 144 per tet: a damaged element's degraded rest stiffness */
  uint8_t *dmg;              /* per tet: 0 intact, 1 some edge damaged */
  uint8_t *kdirty;           /* per tet: K0d must be rebuilt */

  /* the edge graph (edges.c) */
  int32_t nedges;
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
  int64_t *slot;             /* 16 per tet: the BSR slot of block (a, b) */
  cl_fem_system sys;         /* A (3 nnodes square), vectors and the held dofs */
  cl_linear_solver *ls;
  cl_fem_frame_wrap fwrap;   /* a reused factor follows the frames of supports and contacts (fem/system.h) */
  int analysed;

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
/* Forces, stiffness and energy of every element at the state's positions (parallel). */
cl_status cl_gfem_update_elements(cl_gfem *s, const cl_body_state *st);
/* The damage of element e's six edges: max of the edge's damage everywhere and in e alone. */
void cl_gfem_element_damage(const cl_gfem *s, int32_t e, double *d);
/* Cauchy stress (9) of element e at the state's positions. */
cl_status cl_gfem_element_stress(const cl_gfem *s, const cl_body_state *st, int32_t e, double *sigma, double *F);

/* ---- assembly.c ---- */
cl_status cl_gfem_build_slots(cl_gfem *s, const cl_body_state *st);
void cl_gfem_assemble(cl_gfem *s, const cl_body_state *st, const cl_step_input *in);

/* ---- step.c ---- */
/* The linear-solver entry named by the parameters, created and analysed once (bind: a grid spec
 * that does not fit the mesh is refused when the body is added). */
cl_status cl_gfem_linear_solver(cl_gfem *s, const cl_body_state *st);
cl_status cl_gfem_step(void *solver, cl_body_state *st, const cl_step_input *in, cl_step_report *rep);

/* ---- static.c ---- */
cl_status cl_gfem_equilibrium(void *solver, cl_body_state *st, const cl_step_input *in, const cl_static_def *opt,
                              cl_static_report *report);

/* ---- fracture.c ---- */
cl_status cl_gfem_fracture(void *solver, cl_body_state *st, const cl_fracture_event *events, int32_t count,
                           int32_t *applied);

#endif
