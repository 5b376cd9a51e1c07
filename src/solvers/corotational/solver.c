/* The "corotational" solver table: parameters, create/destroy/bind, unit measures and elastic
 * energy. See corot.h for the file map and docs/solvers/corotational.md for the equations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "fem/mesh_state.h"
#include "fem/mg_params.h"
#include "geom/mesh.h"
#include "solvers/corotational/corot.h"
#include "solvers/corotational/stats.h"

/* Indexed by cl_corot_param, the order in which the values reach the solver. Choices keep the
 * index order of their `choices` names: "pcg", "cholmod" and "galerkin_mg" are CL_COROT_SOLVER_PCG,
 * CL_COROT_SOLVER_CHOLMOD and CL_COROT_SOLVER_GALERKIN_MG, the factor_solve names follow
 * cl_cholmod_solve_mode; the multigrid's parameters are fem/mg_params.h's, shared with graph_fem. */
static const cl_param_info k_params[CL_COROT_PARAM_COUNT] = {
    [CL_COROT_ALPHA] = {.name = "damping", .unit = "1/s",
                        .help = "Rayleigh mass damping alpha in C = alpha M + beta K (thesis eq 3.11)",
                        .value = 0.0, .min = 0.0, .max = 1e6},
    [CL_COROT_BETA] = {.name = "stiffness_damping", .unit = "s",
                       .help = "Rayleigh stiffness damping beta in C = alpha M + beta K (thesis eq 3.11)",
                       .value = 0.0, .min = 0.0, .max = 10.0},
    [CL_COROT_LINEAR_SOLVER] = {.name = "linear_solver", .unit = "1",
                                .help = "pcg = CG with a block-Jacobi preconditioner; cholmod = a CHOLMOD factor "
                                        "reused as the CG preconditioner; galerkin_mg = the Galerkin multigrid "
                                        "(grid, mg_* below), per island",
                                .value = CL_COROT_SOLVER_PCG, .min = 0.0, .max = 2.0,
                                .kind = CL_PARAM_CHOICE, .choices = "pcg|cholmod|galerkin_mg"},
    [CL_COROT_TOLERANCE] = {.name = "tolerance", .unit = "1",
                            .help = "CG stops at this relative residual of the velocity-change system",
                            .value = 1e-6, .min = 1e-15, .max = 0.5},
    [CL_COROT_MAX_ITERATIONS] = {.name = "max_iterations", .unit = "1",
                                 .help = "CG iteration cap per island and step (a warning when reached)",
                                 .value = 1000.0, .min = 1.0, .max = 1e7, .kind = CL_PARAM_INTEGER},
    [CL_COROT_REFACTOR_ITERATIONS] = {.name = "refactor_iterations", .unit = "1",
                                      .help = "cholmod: refactor when CG needed more iterations than this (besides "
                                              "the rent-or-buy rule); 0 = every step (direct)",
                                      .value = 30.0, .min = 0.0, .max = 1e6,
                                      .kind = CL_PARAM_INTEGER},
    [CL_COROT_ROTATION] = {.name = "rotation", .unit = "1",
                           .help = "element rotation: polar = polar decomposition; gram_schmidt = Gram-Schmidt "
                                   "of the deformed edges",
                           .value = CL_COROT_ROTATION_POLAR, .min = 0.0, .max = 1.0,
                           .kind = CL_PARAM_CHOICE, .choices = "polar|gram_schmidt"},
    [CL_COROT_JOINT_PRUNING] = {.name = "joint_pruning", .unit = "1",
                                .help = "break ball and hinge joints left by fracture (thesis sec 5.4.1)",
                                .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [CL_COROT_PLASTIC_RELIEF] = {.name = "plastic_relief", .unit = "1",
                                 .help = "fraction of plastic strain removed from the elements around a fractured "
                                         "node (thesis sec 5.6)",
                                 .value = 0.5, .min = 0.0, .max = 1.0},
    [CL_COROT_MIN_ISLAND] = {.name = "min_island_elements", .unit = "1",
                             .help = "fracture is skipped on islands of at most this many elements (thesis sec 5.4)",
                             .value = 3.0, .min = 0.0, .max = 1e9, .kind = CL_PARAM_INTEGER},
    [CL_COROT_CONSERVE_MOMENTUM] = {.name = "conserve_momentum", .unit = "1",
                                    .help = "remove the net force left by the inexact linear solve (linear momentum "
                                            "exact)",
                                    .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [CL_COROT_WARP_PRECONDITIONER] = {.name = "warp_preconditioner", .unit = "1",
                                      .help = "cholmod: turn a reused factor by each node's rotation since it was "
                                              "made (false: use it as it is)",
                                      .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [CL_COROT_TOLERANCE_REFERENCE] = {.name = "tolerance_reference", .unit = "1",
                                      .help = "what the tolerance is relative to: rhs = ||b|| of the system A v' = b "
                                              "(thesis eq 3.8); imbalance = ||b - A v||, the force imbalance of the "
                                              "step (stricter for moving bodies)",
                                      .value = 0.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE,
                                      .choices = "rhs|imbalance"},
    [CL_COROT_WARM_START] = {.name = "warm_start", .unit = "1",
                             .help = "CG initial guess for the velocity change: previous = the previous step's; "
                                     "extrapolated = linear from the last two steps'",
                             .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE,
                             .choices = "previous|extrapolated"},
    [CL_COROT_FACTOR_SOLVE] = {.name = "factor_solve", .unit = "1",
                               .help = "cholmod: how CG applies the factor: cholmod = CHOLMOD's solve; double = "
                                       "cleave's supernodal sweeps; single = the sweeps with the factor rounded to "
                                       "single precision (half the memory traffic; CG keeps the tolerance)",
                               .value = CL_CHOLMOD_SOLVE_SINGLE, .min = 0.0, .max = 2.0,
                               .kind = CL_PARAM_CHOICE, .choices = "cholmod|double|single"},
    CL_FEM_MG_PARAM_INFOS(CL_COROT_GRID),
    [CL_COROT_CONTINUE_CRACKS] = {.name = "continue_cracks", .unit = "1",
                                  .help = "a node split keeps the elements an existing crack separates at the node "
                                          "on their sides and continues that crack's plane (false: the thesis's "
                                          "plane through the node only)",
                                  .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [CL_COROT_MIN_FRAGMENT] = {.name = "min_fragment_elements", .unit = "1",
                               .help = "a fracture event that would cut off a piece of at most this many elements, or "
                                       "of at most this many times the body's mean element volume (with the joints "
                                       "it prunes), is not applied; 0 = every event applies",
                               .value = 4.0, .min = 0.0, .max = 1e6, .kind = CL_PARAM_INTEGER},
    [CL_COROT_SKIP_STALE] = {.name = "skip_stale_events", .unit = "1",
                             .help = "skip an event whose node shares an element with a node split earlier in the "
                                     "same step (its stress was measured before that split)",
                             .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [CL_COROT_CONTACT_SEED] = CL_FEM_CONTACT_SEED_PARAM,
};

static cl_status corot_create(void **out) {
  cl_corot *s = cl_calloc(1, sizeof *s, "corotational solver");
  if (!s) return CL_ERR_OUT_OF_MEMORY;
  s->threads = 1;
  snprintf(s->body, sizeof s->body, "body");
  for (int i = 0; i < CL_COROT_PARAM_COUNT; ++i) s->p[i] = k_params[i].value;
  *out = s;
  return CL_OK;
}

static void corot_destroy(void *p) {
  cl_corot *s = p;
  if (!s) return;
  free(s->Dminv);
  free(s->vol);
  free(s->eps_p);
  free(s->h);
  free(s->f);
  free(s->Re);
  free(s->inc_ptr);
  free(s->inc);
  free(s->inc_slot);
  cl_corot_free_islands(s);
  free(s->node_island);
  free(s->node_local);
  free(s->elem_island);
  free(s);
}

static cl_status corot_bind(void *p, const cl_bind_input *in, cl_body_state *st) {
  cl_corot *s = p;
  snprintf(s->body, sizeof s->body, "%s", in->body_name ? in->body_name : "body");
  s->threads = in->threads > 0 ? in->threads : 1;
  memcpy(s->p, in->params, sizeof s->p);
  const cl_mesh *m = in->mesh;
  CL_TRY(cl_fem_mg_grid_text("corotational", in->texts ? in->texts[CL_COROT_GRID] : NULL,
                             (int)s->p[CL_COROT_LINEAR_SOLVER] == CL_COROT_SOLVER_GALERKIN_MG ? m->npoints : 0,
                             s->grid, &s->grid_largest));
  CL_TRY(cl_fem_state_from_mesh(m, "corotational", st));
  const cl_material_def *mat = in->material;
  const double E = mat->young, nu = mat->poisson;
  s->mu = E / (2.0 * (1.0 + nu));
  s->lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  s->density = mat->density;
  s->plastic = mat->plastic_yield >= 0.0;
  s->yield = mat->plastic_yield;
  s->flow = mat->plastic_flow;
  s->hardening = mat->plastic_hardening;
  s->plastic_max = mat->plastic_max;

  const size_t ne = (size_t)m->ncells;
  s->ntets = m->ncells;
  s->Dminv = cl_malloc(sizeof(double) * 9 * ne, "element matrices");
  s->vol = cl_malloc(sizeof(double) * ne, "element volumes");
  s->eps_p = cl_calloc(6 * ne, sizeof(double), "plastic strains");
  s->h = cl_calloc(12 * ne, sizeof(double), "rotated gradients");
  s->f = cl_calloc(12 * ne, sizeof(double), "element forces");
  s->elem_island = cl_malloc(sizeof(int32_t) * ne, "element islands");
  s->Re = cl_calloc(9 * ne, sizeof(double), "element rotations");
  if (!s->Dminv || !s->vol || !s->eps_p || !s->h || !s->f || !s->elem_island || !s->Re) return CL_ERR_OUT_OF_MEMORY;
  CL_TRY(cl_corot_elements_init(s, st));
  cl_corot_lump_masses(s, st);
  return cl_corot_build_islands(s, st);
}

static int32_t corot_unit_count(const void *p) { return ((const cl_corot *)p)->ntets; }

static cl_status corot_measure(void *p, const cl_body_state *st, cl_unit_fields *out) {
  cl_corot *s = p;
  const int32_t ne = out->count < s->ntets ? out->count : s->ntets;
  int32_t bad = INT32_MAX;
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(min : bad) if (ne > 1024)
  for (int32_t e = 0; e < ne; ++e) {
    cl_mat3 F, R, ee;
    if (cl_corot_element_strain(s, st, e, &F, &R, &ee) < 0) {
      if (e < bad) bad = e;
      continue;
    }
    /* stress: the corotated stress R sigma_c R^T, the Cauchy stress of the small-strain model in the
     * element's current frame (thesis eq 5.2 rotated to the world) */
    cl_mat3 sig = cl_corot_stress(s, &ee);
    cl_mat3 RS = cl_mat3_mul(&R, &sig);
    cl_mat3 cauchy = cl_mat3_mul_nt(&RS, &R);
    memcpy(out->F + 9 * (size_t)e, F.m, sizeof F.m);
    memcpy(out->stress + 9 * (size_t)e, cauchy.m, sizeof cauchy.m);
    cl_mat3 ep = cl_corot_sym_from6(s->eps_p + 6 * (size_t)e);
    memcpy(out->plastic + 9 * (size_t)e, ep.m, sizeof ep.m);
    const int32_t *t = st->cells + 4 * e;
    for (int k = 0; k < 3; ++k)
      out->center[3 * e + k] =
          0.25 * (st->x[3 * t[0] + k] + st->x[3 * t[1] + k] + st->x[3 * t[2] + k] + st->x[3 * t[3] + k]);
    out->volume[e] = s->vol[e];
  }
  if (bad != INT32_MAX)
    return cl_fail(CL_ERR_NUMERICAL, "element %d has a non-finite deformation gradient", bad);
  return CL_OK;
}

static cl_status corot_energy(void *p, const cl_body_state *st, double *energy) {
  cl_corot *s = p;
  double sum = 0.0;
  for (int32_t e = 0; e < s->ntets; ++e) {
    cl_mat3 F, R, ee;
    CL_TRY(cl_corot_element_strain(s, st, e, &F, &R, &ee));
    double tr = cl_mat3_trace(&ee), dd = 0.0;
    for (int k = 0; k < 9; ++k) dd += ee.m[k] * ee.m[k];
    /* W = V (mu eps:eps + lambda/2 tr(eps)^2), the energy whose gradient is K_e u */
    sum += s->vol[e] * (s->mu * dd + 0.5 * s->lambda * tr * tr);
  }
  *energy = sum;
  return CL_OK;
}

void cl_corot_get_timing(const void *solver, cl_corot_timing *out) { *out = ((const cl_corot *)solver)->timing; }

const cl_solver_ops cl_corotational_solver_ops = {
    .name = "corotational",
    .help = "linear tets with stiffness warping, implicit Euler, plasticity, node-replication fracture (O'Malley "
            "2015; Mueller & Gross 2004; O'Brien & Hodgins 1999)",
    .params = k_params,
    .param_count = CL_COROT_PARAM_COUNT,
    /* node replication along a plane (O'Brien & Hodgins 1999 sec 4); a failed tet without a node is
     * split at its corner nearest the crack plane, or detached (fracture.c). Backward Euler with the
     * stiffness of the step start damps spin a little (thesis eq 3.8): angular momentum is not
     * conserved to rounding. */
    .caps = {.units = CL_UNITS_TETS,
             .applies = CL_EVENT_BIT(CL_EVENT_SPLIT_NODE) | CL_EVENT_BIT(CL_EVENT_SPLIT_UNIT),
             .conserves_angular_momentum = 0},
    .create = corot_create,
    .destroy = corot_destroy,
    .bind = corot_bind,
    .step = cl_corot_step,
    .unit_count = corot_unit_count,
    .measure = corot_measure,
    .elastic_energy = corot_energy,
    .fracture = cl_corot_fracture,
    .topology_changed = cl_corot_topology_changed,
    .stats = cl_corot_stats_op,
    .equilibrium = cl_corot_equilibrium,
};
