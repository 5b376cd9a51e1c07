/* The "graph_fem" solver table: parameters, create/destroy/bind, unit measures, energy, the visual
 * surface, pieces and statistics. gfem.h has the file map, docs/solvers/graph_fem.md the equations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/timer.h"
#include "fem/mesh_state.h"
#include "fem/mg_params.h"
#include "fem/tet.h"
#include "geom/mesh.h"
#include "solvers/graph_fem/gfem.h"

static const cl_param_info k_params[GF_PARAM_COUNT] = {
    [GF_MODEL] = {.name = "model", .unit = "1",
                  .help = "hyperelastic model of intact elements: corotated (linear corotational), stvk (St. "
                          "Venant-Kirchhoff) or stable_neohookean (Smith et al. 2018); all match E and nu at small strain",
                  .value = CL_FEM_STABLE_NEOHOOKEAN, .min = 0.0, .max = CL_FEM_MODEL_COUNT - 1,
                  .kind = CL_PARAM_CHOICE, .choices = CL_FEM_MODEL_CHOICES},
    [GF_ALPHA] = {.name = "damping", .unit = "1/s", .help = "Rayleigh mass damping alpha in C = alpha M + beta K",
                  .value = 0.0, .min = 0.0, .max = 1e6},
    [GF_BETA] = {.name = "stiffness_damping", .unit = "s",
                 .help = "Rayleigh stiffness damping beta in C = alpha M + beta K", .value = 0.0, .min = 0.0, .max = 10.0},
    [GF_LINEAR_SOLVER] = {.name = "linear_solver", .unit = "1",
                          .help = "entry of linalg's linear-solver table: pcg = CG with a block-Jacobi preconditioner; "
                                  "cholmod = a CHOLMOD factor as CG preconditioner; galerkin_mg = the Galerkin "
                                  "multigrid of the paper (sec 3.2-3.3; grid, mg_* below)",
                          .value = 0.0, .min = 0.0, .max = 2.0, .kind = CL_PARAM_CHOICE,
                          .choices = "pcg|cholmod|galerkin_mg"},
    [GF_TOLERANCE] = {.name = "tolerance", .unit = "1", .help = "relative residual at which the linear solve stops",
                      .value = 1e-6, .min = 1e-15, .max = 0.5},
    [GF_MAX_ITERATIONS] = {.name = "max_iterations", .unit = "1",
                           .help = "iteration cap of the linear solve per step (a warning when reached)",
                           .value = 1000.0, .min = 1.0, .max = 1e7, .kind = CL_PARAM_INTEGER},
    CL_FEM_MG_PARAM_INFOS(GF_GRID),
    [GF_INITIAL_GUESS] = {.name = "initial_guess", .unit = "1",
                          .help = "the velocity change each step's linear solve starts from: previous = the last "
                                  "step's (a warm start, the default), zero, or auto = zero for galerkin_mg in "
                                  "mg_mode fixed (a few V-cycles from the last step's change feed it back into the "
                                  "next step: the hanging sphere's volume swings 10x more) and previous otherwise",
                          .value = 1.0, .min = 0.0, .max = 2.0, .kind = CL_PARAM_CHOICE,
                          .choices = "auto|previous|zero"},
    [GF_TANGENT] = {.name = "tangent", .unit = "1",
                    .help = "stiffness of a step's linearisation: model = the model's tangent dP/dF, projected "
                            "positive semi-definite; warped = the rotated small-strain stiffness R K0 R^T (stiffness "
                            "warping: the corotated model's tangent without the rotation's derivative), several "
                            "times cheaper; forces, energy and equilibria are the model's either way",
                    .value = 0.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE, .choices = "model|warped"},
    [GF_WARP_LIMIT] = {.name = "warp_limit", .unit = "1",
                       .help = "tangent = warped: an element whose ||F^T F - I||_F exceeds this (about twice its "
                               "strain) takes the model's tangent that step; 0 = every element (the model's "
                               "tangent throughout), inf = none",
                       .value = 0.1, .min = 0.0, .max = INFINITY, .kind = CL_PARAM_NUMBER},
    [GF_TANGENT_EVERY] = {.name = "tangent_every", .unit = "steps",
                          .help = "a fresh matrix M + dt^2 K (and linear-solver set-up) at most every this many "
                                  "steps; the steps between keep the last one's and make only the forces (a "
                                  "lagged-tangent, quasi-Newton backward Euler step; forces, energy and equilibria "
                                  "stay the model's). Damage, a change of the held dofs, of dt or of a parameter, "
                                  "supports and contacts make a fresh one. 1 = every step (the paper's)",
                          .value = 1.0, .min = 1.0, .max = 1e6, .kind = CL_PARAM_INTEGER},
    [GF_TANGENT_DRIFT] = {.name = "tangent_drift", .unit = "1",
                          .help = "tangent_every > 1: a fresh matrix also once some element's deformation gradient "
                                  "has moved this far from the matrix's, max_e ||F_e - F_e,fresh||_F (strain or "
                                  "rotation: a tangent kept across large rotations makes the step unstable); 0 = a "
                                  "fresh one whenever the body moved, inf = no limit",
                          .value = 0.1, .min = 0.0, .max = INFINITY, .kind = CL_PARAM_NUMBER},
    [GF_CONTACT_SEED] = CL_FEM_CONTACT_SEED_PARAM,
    [GF_CONTACT_CYCLES] = {.name = "contact_cycles", .unit = "1",
                           .help = "galerkin_mg in mg_mode fixed: V-cycles of each re-solve of the contact rounds, "
                                   "which continues from the last solve's velocity change after a few contacts "
                                   "changed; 0 = mg_cycles",
                           .value = 1.0, .min = 0.0, .max = 1000.0, .kind = CL_PARAM_INTEGER},
};

static cl_status gfem_create(void **out) {
  cl_gfem *s = cl_calloc(1, sizeof *s, "graph_fem solver");
  if (!s) return CL_ERR_OUT_OF_MEMORY;
  s->threads = 1;
  snprintf(s->body, sizeof s->body, "body");
  for (int i = 0; i < GF_PARAM_COUNT; ++i) s->p[i] = k_params[i].value;
  s->pieces_version = s->surface_version = -1;
  *out = s;
  return CL_OK;
}

static void gfem_destroy(void *p) {
  cl_gfem *s = p;
  if (!s) return;
  free(s->Dminv);
  free(s->vol);
  free(s->fe);
  free(s->Ke);
  free(s->kform);
  free(s->h);
  free(s->hk);
  free(s->psi);
  free(s->Re);
  free(s->edg);
  free(s->dmg);
  free(s->kdirty);
  free(s->Fe);
  free(s->sig);
  free(s->xkey);
  free(s->redo);
  free(s->lag.mask);
  free(s->lag.F);
  free(s->edge);
  free(s->tet_edge);
  free(s->adj_ptr);
  free(s->adj_nb);
  free(s->adj_edge);
  free(s->damage);
  free(s->edamage);
  free(s->edge_tets);
  free(s->edge_local_broken);
  free(s->cut);
  free(s->inc_ptr);
  free(s->inc);
  free(s->slot);
  cl_bsr_destroy(s->sys.A);
  cl_fem_frame_wrap_free(&s->fwrap);
  cl_fem_system_free(&s->sys);
  cl_linear_solver_destroy(s->ls);
  free(s->plabel);
  free(s->tris);
  free(s);
}

static cl_status gfem_bind(void *p, const cl_bind_input *in, cl_body_state *st) {
  cl_gfem *s = p;
  snprintf(s->body, sizeof s->body, "%s", in->body_name ? in->body_name : "body");
  s->threads = in->threads > 0 ? in->threads : 1;
  memcpy(s->p, in->params, sizeof s->p);
  CL_TRY(cl_fem_mg_grid_text("graph_fem", in->texts ? in->texts[GF_GRID] : NULL,
                             (int)s->p[GF_LINEAR_SOLVER] == 2 ? in->mesh->npoints : 0, s->grid, NULL));
  const cl_mesh *m = in->mesh;
  CL_TRY(cl_fem_state_from_mesh(m, "graph_fem", st));
  const cl_material_def *mat = in->material;
  cl_fem_material_init(&s->mat, (cl_fem_model)(int)s->p[GF_MODEL], mat->young, mat->poisson);
  s->lambda0 = mat->young * mat->poisson / ((1.0 + mat->poisson) * (1.0 - 2.0 * mat->poisson));
  s->mu0 = mat->young / (2.0 * (1.0 + mat->poisson));
  s->density = mat->density;
  const int32_t n = m->npoints;
  const size_t ne = (size_t)m->ncells;
  s->ntets = m->ncells;
  s->nnodes = n;
  s->Dminv = cl_malloc(sizeof(double) * 9 * ne, "graph_fem elements");
  s->vol = cl_malloc(sizeof(double) * ne, "graph_fem elements");
  s->fe = cl_calloc(12 * ne, sizeof(double), "graph_fem element forces");
  s->Ke = cl_calloc(CL_TET_UPPER * ne, sizeof(double), "graph_fem element stiffness");
  s->kform = cl_calloc(ne, 1, "graph_fem element stiffness");
  s->h = cl_calloc(12 * ne, sizeof(double), "graph_fem rotated gradients");
  s->hk = cl_calloc(ne, 1, "graph_fem rotated gradients");
  s->psi = cl_calloc(ne, sizeof(double), "graph_fem element energies");
  s->Re = cl_calloc(9 * ne, sizeof(double), "graph_fem element rotations");
  s->edg = cl_calloc(CL_GFEM_EDG * ne, sizeof(double), "graph_fem degraded elements");
  s->dmg = cl_calloc(ne, 1, "graph_fem element damage");
  s->kdirty = cl_calloc(ne, 1, "graph_fem element damage");
  s->Fe = cl_calloc(9 * ne, sizeof(double), "graph_fem element stresses");
  s->sig = cl_calloc(9 * ne, sizeof(double), "graph_fem element stresses");
  s->xkey = cl_calloc(3 * (size_t)n, sizeof(double), "graph_fem element pass");
  s->redo = cl_malloc(sizeof(int32_t) * ne, "graph_fem element pass");
  s->slot = cl_malloc(sizeof(int32_t) * 16 * ne, "graph_fem assembly slots");
  s->lag.mask = cl_calloc(3 * (size_t)n, 1, "graph_fem lagged tangent");
  s->lag.F = cl_calloc(9 * ne, sizeof(double), "graph_fem lagged tangent");
  if (!s->Dminv || !s->vol || !s->fe || !s->Ke || !s->kform || !s->h || !s->hk || !s->psi || !s->Re || !s->edg || !s->dmg || !s->kdirty ||
      !s->Fe || !s->sig || !s->xkey || !s->redo || !s->slot || !s->lag.mask || !s->lag.F)
    return CL_ERR_OUT_OF_MEMORY;
  cl_status r = cl_fem_rest_shapes(st->X, st->cells, s->ntets, s->Dminv, s->vol);
  if (r < 0) return cl_fail_context(r, "solver 'graph_fem': ");
  cl_fem_lump_masses(n, st->cells, s->ntets, s->vol, s->density, st->m);
  CL_TRY(cl_gfem_build_edges(s, st));
  CL_TRY(cl_fem_system_alloc(&s->sys, n, "graph_fem system"));
  CL_TRY(cl_fem_frame_wrap_alloc(&s->fwrap, &s->sys));
  CL_TRY(cl_bsr_from_cells(n, st->cells, s->ntets, 4, &s->sys.A));
  CL_TRY(cl_gfem_build_slots(s, st));
  return cl_gfem_linear_solver(s, st);
}

static int32_t gfem_unit_count(const void *p) { return ((const cl_gfem *)p)->ntets; }

/* F and the Cauchy stress of every tet are the element pass's (element.c), run here only when the
 * positions moved since the last one (the step runs the pass at the positions it leaves, which are
 * those measured next): one stress per element and step, the same the next step's forces come from. */
static cl_status gfem_measure(void *p, const cl_body_state *st, cl_unit_fields *out) {
  cl_gfem *s = p;
  const int32_t ne = out->count < s->ntets ? out->count : s->ntets;
  const cl_status r = cl_gfem_update_elements(s, st);
  if (r < 0) return cl_fail_context(r, "%s: no stress: ", s->body);
#pragma omp parallel for schedule(static) num_threads(s->threads) if (ne > 2048)
  for (int32_t e = 0; e < ne; ++e) {
    memcpy(out->stress + 9 * (size_t)e, s->sig + 9 * (size_t)e, 9 * sizeof(double));
    memcpy(out->F + 9 * (size_t)e, s->Fe + 9 * (size_t)e, 9 * sizeof(double));
    memset(out->plastic + 9 * (size_t)e, 0, 9 * sizeof(double));
    const int32_t *t = st->cells + 4 * (size_t)e;
    for (int k = 0; k < 3; ++k)
      out->center[3 * (size_t)e + k] =
          0.25 * (st->x[3 * (size_t)t[0] + k] + st->x[3 * (size_t)t[1] + k] + st->x[3 * (size_t)t[2] + k] +
                  st->x[3 * (size_t)t[3] + k]);
    out->volume[e] = s->vol[e];
    /* a damaged tet's largest edge damage, kept by the pass when its damage last changed (element.c) */
    out->damage[e] = s->dmg[e] ? s->edg[CL_GFEM_EDG * (size_t)e + 79] : 0.0;
  }
  return CL_OK;
}

/* The step (step.c), then the next step's element pass at the positions it leaves (element.c), timed
 * with the element pass. A pass that fails is left to the next step, which reports it. */
static cl_status gfem_step(void *p, cl_body_state *st, const cl_step_input *in, cl_step_report *rep) {
  cl_gfem *s = p;
  const cl_status r = cl_gfem_step(s, st, in, rep);
  if (r < 0) return r;
  const double t = cl_time_ms();
  if (cl_gfem_prefetch_elements(s, st) < 0) s->key_valid = 0;
  s->element_ms += cl_time_ms() - t;
  return r;
}

static cl_status gfem_energy(void *p, const cl_body_state *st, double *e) {
  cl_gfem *s = p;
  CL_TRY(cl_gfem_update_elements(s, st));
  double sum = 0.0;
  for (int32_t i = 0; i < s->ntets; ++i) sum += s->psi[i];
  /* the stable Neo-Hookean energy is not zero at rest (its log term): measure from the rest state */
  if (s->mat.model == CL_FEM_STABLE_NEOHOOKEAN) {
    const double s1[3] = {1.0, 1.0, 1.0};
    const double psi0 = cl_fem_psi_sigma(&s->mat, s1, NULL, NULL);
    for (int32_t i = 0; i < s->ntets; ++i)
      if (!s->dmg[i]) sum -= psi0 * s->vol[i];
  }
  *e = sum;
  return CL_OK;
}

static cl_status gfem_surface(void *p, const cl_body_state *st, const int32_t **tris, int32_t *ntris) {
  cl_gfem *s = p;
  CL_TRY(cl_gfem_visual_surface(s, st));
  *tris = s->tris;
  *ntris = s->ntris;
  return CL_OK;
}

static cl_status gfem_pieces(void *p, const cl_body_state *st, int32_t *labels, int32_t *count) {
  (void)st;
  cl_gfem *s = p;
  CL_TRY(cl_gfem_pieces(s));
  if (labels) memcpy(labels, s->plabel, sizeof(int32_t) * (size_t)s->nnodes);
  *count = s->npieces;
  return CL_OK;
}

static cl_status gfem_topology_changed(void *p, cl_body_state *st) {
  (void)p;
  (void)st;
  return CL_OK; /* nothing is remeshed: the degraded stiffness is rebuilt lazily (element.c) */
}

enum { ST_EDGES, ST_BROKEN, ST_DAMAGED_TETS, ST_PIECES, ST_ITER, ST_RESID, ST_ELEM_MS, ST_ASM_MS, ST_SOLVE_MS, ST_FRESH,
       ST_COUNT };
static const cl_stat_info k_stats[ST_COUNT] = {
    [ST_EDGES] = {"edges", "", "edges of the tet mesh (the graph)"},
    [ST_BROKEN] = {"broken_edges", "", "edges cut: no element joins their nodes any more"},
    [ST_DAMAGED_TETS] = {"damaged_tets", "", "tets with a damaged edge (degraded elements)"},
    [ST_PIECES] = {"pieces", "", "connected pieces over the unbroken edges"},
    [ST_ITER] = {"iterations", "", "linear solver iterations of the last step"},
    [ST_RESID] = {"residual", "1", "relative residual of the last solve"},
    [ST_ELEM_MS] = {"element_ms", "ms", "element forces and stiffness, last step"},
    [ST_ASM_MS] = {"assembly_ms", "ms", "assembly of eq 3, last step"},
    [ST_SOLVE_MS] = {"solve_ms", "ms", "linear solves and contact rounds, last step"},
    [ST_FRESH] = {"fresh_tangents", "", "steps so far that made their matrix M + dt^2 K (the others kept one: tangent_every)"},
};

static cl_status gfem_stats(const void *p, const cl_body_state *st, cl_body_stat *out, int32_t capacity,
                            int32_t *count) {
  (void)st;
  cl_gfem *s = (cl_gfem *)p;
  double v[ST_COUNT];
  int32_t damaged = 0;
  for (int32_t e = 0; e < s->ntets; ++e) damaged += s->dmg[e];
  cl_status r = cl_gfem_pieces(s);
  v[ST_EDGES] = s->nedges;
  v[ST_BROKEN] = (double)s->broken_edges;
  v[ST_DAMAGED_TETS] = damaged;
  v[ST_PIECES] = r < 0 ? -1.0 : s->npieces;
  v[ST_ITER] = s->iterations;
  v[ST_RESID] = s->residual;
  v[ST_ELEM_MS] = s->element_ms;
  v[ST_ASM_MS] = s->assembly_ms;
  v[ST_SOLVE_MS] = s->solve_ms;
  v[ST_FRESH] = (double)s->lag.fresh;
  return cl_solver_stats_copy("graph_fem", k_stats, v, ST_COUNT, out, capacity, count);
}

const cl_solver_ops cl_graph_fem_solver_ops = {
    .name = "graph_fem",
    .help = "graph-based FEM: hyperelastic tets, backward Euler, fracture by damaged mesh edges without remeshing "
            "(Mandal, Chaudhuri and Chaudhuri, GRAPP 2025)",
    .params = k_params,
    .param_count = GF_PARAM_COUNT,
    /* edges are damaged, never split; knives cut along surfaces. Backward Euler damps spin a little,
     * like the corotational solver. */
    .caps = {.units = CL_UNITS_TETS,
             .applies = CL_EVENT_BIT(CL_EVENT_DAMAGE_EDGE) | CL_EVENT_BIT(CL_EVENT_CUT_SURFACE) |
                        CL_EVENT_BIT(CL_EVENT_SPLIT_UNIT),
             .conserves_angular_momentum = 0,
             .reports_damage = 1},
    .create = gfem_create,
    .destroy = gfem_destroy,
    .bind = gfem_bind,
    .step = gfem_step,
    .unit_count = gfem_unit_count,
    .measure = gfem_measure,
    .elastic_energy = gfem_energy,
    .surface = gfem_surface,
    .fracture = cl_gfem_fracture,
    .topology_changed = gfem_topology_changed,
    .stats = gfem_stats,
    .pieces = gfem_pieces,
    .equilibrium = cl_gfem_equilibrium,
};
