/* The test double solver and the recording criterion (see double_solver.h).
 *
 * Elasticity: St. Venant-Kirchhoff, per linear tet with rest edge matrix Dm = [X1-X0, X2-X0, X3-X0]
 * and rest volume V = det(Dm)/6 (Sifakis & Barbic, "FEM simulation of 3D deformable solids", SIGGRAPH
 * 2012 course, sec. 4):
 *   F = Ds Dm^-1,  E = (F^T F - I)/2,  S = 2 mu E + lambda tr(E) I,  P = F S,
 *   [f1 f2 f3] = -V P Dm^-T,  f0 = -(f1 + f2 + f3),  energy V (mu E:E + lambda/2 tr(E)^2).
 * P F^T = F S F^T is symmetric, so the forces have zero net force and zero net torque, and
 * symplectic Euler  v' = v + h M^-1 f(x), x' = x + h v'  then conserves linear and angular momentum
 * exactly (L' - L = h sum x cross f(x) = 0) up to rounding.
 * Damping: v' = (v + h a) / (1 + h c), mass-proportional with coefficient c (1/s), implicit in the
 * damping term so it is stable for any c.
 * Constraints: a held node gets x' = target_x and v' = target_v; the force that needed is
 *   r = m (v' - v)/h + m c v' - (f_int + f_ext + m g).                                          */
#include "double_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"

typedef struct dbl {
  double mu, lambda, density, damping;
  int32_t ntets;  /* units: the tets (detaching one keeps the count) */
  double *Dminv;  /* 9 per tet, row-major */
  double *vol;    /* rest volume per tet */
  int32_t nodes_capacity;
  double *f;      /* 3 per node, internal forces */
  unsigned char *held;
} dbl;

static const cl_param_info k_params[] = {
    {.name = "damping", .unit = "1/s", .help = "mass-proportional damping coefficient", .value = 0.0, .min = 0.0,
     .max = 1e6},
};

static cl_status dbl_create(void **out) {
  dbl *d = calloc(1, sizeof *d);
  if (!d) return cl_fail(CL_ERR_OUT_OF_MEMORY, "test_double: out of memory");
  *out = d;
  return CL_OK;
}

static void dbl_destroy(void *p) {
  dbl *d = p;
  if (!d) return;
  free(d->Dminv);
  free(d->vol);
  free(d->f);
  free(d->held);
  free(d);
}

static cl_status grow_nodes(dbl *d, int32_t n) {
  if (n <= d->nodes_capacity) return CL_OK;
  double *f = realloc(d->f, sizeof(double) * 3 * (size_t)n);
  if (!f) return cl_fail(CL_ERR_OUT_OF_MEMORY, "test_double: out of memory");
  d->f = f;
  unsigned char *h = realloc(d->held, (size_t)n);
  if (!h) return cl_fail(CL_ERR_OUT_OF_MEMORY, "test_double: out of memory");
  d->held = h;
  memset(d->held, 0, (size_t)n);
  d->nodes_capacity = n;
  return CL_OK;
}

static double det3(const double *a) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
}

static void inv3(const double *a, double *r) {
  double det = det3(a);
  r[0] = (a[4] * a[8] - a[5] * a[7]) / det;
  r[1] = (a[2] * a[7] - a[1] * a[8]) / det;
  r[2] = (a[1] * a[5] - a[2] * a[4]) / det;
  r[3] = (a[5] * a[6] - a[3] * a[8]) / det;
  r[4] = (a[0] * a[8] - a[2] * a[6]) / det;
  r[5] = (a[2] * a[3] - a[0] * a[5]) / det;
  r[6] = (a[3] * a[7] - a[4] * a[6]) / det;
  r[7] = (a[1] * a[6] - a[0] * a[7]) / det;
  r[8] = (a[0] * a[4] - a[1] * a[3]) / det;
}

static void mul3(const double *a, const double *b, double *c) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

/* Edge matrix of tet t at positions x: columns x_a - x_0. */
static void edges(const double *x, const int32_t *v, double *D) {
  for (int k = 0; k < 3; ++k)
    for (int a = 0; a < 3; ++a) D[3 * k + a] = x[3 * v[a + 1] + k] - x[3 * v[0] + k];
}

/* F, Green strain E, second Piola S and first Piola P of tet t. */
static void tet_stress(const dbl *d, const cl_body_state *s, int32_t t, double *F, double *E, double *P) {
  double Ds[9], S[9];
  edges(s->x, s->cells + 4 * t, Ds);
  mul3(Ds, d->Dminv + 9 * t, F);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      E[3 * i + j] = 0.5 * (F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j] - (i == j ? 1.0 : 0.0));
  double tr = E[0] + E[4] + E[8];
  for (int k = 0; k < 9; ++k) S[k] = 2.0 * d->mu * E[k] + (k % 4 == 0 ? d->lambda * tr : 0.0);
  mul3(F, S, P);
}

static void forces(const dbl *d, const cl_body_state *s) {
  memset(d->f, 0, sizeof(double) * 3 * (size_t)s->n);
  for (int32_t t = 0; t < s->ncells; ++t) {
    double F[9], E[9], P[9];
    tet_stress(d, s, t, F, E, P);
    const double *Bi = d->Dminv + 9 * t;
    const int32_t *v = s->cells + 4 * t;
    /* H = -V P Dm^-T: H[k][a] = -V sum_j P[k][j] Dminv[a][j] */
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < 3; ++k) {
        double h = -d->vol[t] * (P[3 * k] * Bi[3 * a] + P[3 * k + 1] * Bi[3 * a + 1] + P[3 * k + 2] * Bi[3 * a + 2]);
        d->f[3 * v[a + 1] + k] += h;
        d->f[3 * v[0] + k] -= h;
      }
  }
}

static void lump_masses(const dbl *d, cl_body_state *s) {
  for (int32_t i = 0; i < s->n; ++i) s->m[i] = 0.0;
  for (int32_t t = 0; t < s->ncells; ++t)
    for (int a = 0; a < 4; ++a) s->m[s->cells[4 * t + a]] += d->density * d->vol[t] / 4.0;
}

static cl_status dbl_bind(void *p, const cl_bind_input *in, cl_body_state *s) {
  dbl *d = p;
  const cl_mesh *m = in->mesh;
  if (m->kind != CL_MESH_TETS || m->ncells < 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "solver 'test_double' needs a tet mesh (got kind %d with %d cells)",
                   (int)m->kind, m->ncells);
  double E = in->material->young, nu = in->material->poisson;
  d->mu = E / (2.0 * (1.0 + nu));
  d->lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  d->density = in->material->density;
  d->damping = in->params[0];
  CL_TRY(cl_body_state_resize(s, m->npoints));
  memcpy(s->x, m->x, sizeof(double) * 3 * (size_t)m->npoints);
  memcpy(s->X, m->x, sizeof(double) * 3 * (size_t)m->npoints);
  CL_TRY(cl_body_state_reserve_cells(s, 4, m->ncells));
  memcpy(s->cells, m->cells, sizeof(int32_t) * 4 * (size_t)m->ncells);
  s->ncells = m->ncells;
  d->Dminv = malloc(sizeof(double) * 9 * (size_t)m->ncells);
  d->vol = malloc(sizeof(double) * (size_t)m->ncells);
  if (!d->Dminv || !d->vol) return cl_fail(CL_ERR_OUT_OF_MEMORY, "test_double: out of memory");
  d->ntets = m->ncells;
  for (int32_t t = 0; t < m->ncells; ++t) {
    double Dm[9];
    edges(s->X, s->cells + 4 * t, Dm);
    d->vol[t] = det3(Dm) / 6.0;
    if (!(d->vol[t] > 0.0)) return cl_fail(CL_ERR_MESH, "test_double: tet %d has volume %g", t, d->vol[t]);
    inv3(Dm, d->Dminv + 9 * t);
  }
  lump_masses(d, s);
  return grow_nodes(d, s->n);
}

static cl_status dbl_step(void *p, cl_body_state *s, const cl_step_input *in, cl_step_report *rep) {
  dbl *d = p;
  const double h = in->dt, c = d->damping, *g = in->gravity;
  forces(d, s);
  const cl_constraint_set *cs = &in->constraints;
  for (int32_t j = 0; j < cs->count; ++j) {
    int32_t i = cs->nodes[j];
    d->held[i] = 1;
    for (int k = 0; k < 3; ++k) {
      double vn = cs->target_v[3 * j + k];
      double fe = in->f_ext ? in->f_ext[3 * i + k] : 0.0;
      cs->reaction[3 * j + k] = s->m[i] * (vn - s->v[3 * i + k]) / h + s->m[i] * c * vn -
                                (d->f[3 * i + k] + fe + s->m[i] * g[k]);
      s->v[3 * i + k] = vn;
      s->x[3 * i + k] = cs->target_x[3 * j + k];
    }
  }
  for (int32_t i = 0; i < s->n; ++i) {
    if (d->held[i]) continue;
    double *x = s->x + 3 * i, *v = s->v + 3 * i;
    for (int k = 0; k < 3; ++k) {
      double fe = in->f_ext ? in->f_ext[3 * i + k] : 0.0;
      double a = g[k] + (d->f[3 * i + k] + fe) / s->m[i];
      v[k] = (v[k] + h * a) / (1.0 + h * c);
      x[k] += h * v[k];
    }
    if (in->colliders->count) cl_collider_project_mass(in->colliders, x, v, s->m[i]);
  }
  for (int32_t j = 0; j < cs->count; ++j) d->held[cs->nodes[j]] = 0;
  rep->iterations = 0;
  rep->residual = 0.0;
  return CL_OK;
}

static int32_t dbl_unit_count(const void *p) { return ((const dbl *)p)->ntets; }

static cl_status dbl_measure(void *p, const cl_body_state *s, cl_unit_fields *out) {
  dbl *d = p;
  for (int32_t t = 0; t < s->ncells && t < out->count; ++t) {
    double F[9], E[9], P[9];
    tet_stress(d, s, t, F, E, P);
    double J = det3(F);
    memcpy(out->F + 9 * t, F, sizeof F);
    /* Cauchy stress sigma = P F^T / J */
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        out->stress[9 * t + 3 * i + j] = (P[3 * i] * F[3 * j] + P[3 * i + 1] * F[3 * j + 1] + P[3 * i + 2] * F[3 * j + 2]) / J;
    memset(out->plastic + 9 * t, 0, sizeof(double) * 9);
    for (int k = 0; k < 3; ++k) {
      double cx = 0.0;
      for (int a = 0; a < 4; ++a) cx += s->x[3 * s->cells[4 * t + a] + k];
      out->center[3 * t + k] = 0.25 * cx;
    }
    out->volume[t] = d->vol[t];
  }
  return CL_OK;
}

static cl_status dbl_energy(void *p, const cl_body_state *s, double *e) {
  dbl *d = p;
  double sum = 0.0;
  for (int32_t t = 0; t < s->ncells; ++t) {
    double F[9], E[9], P[9];
    tet_stress(d, s, t, F, E, P);
    double ee = 0.0, tr = E[0] + E[4] + E[8];
    for (int k = 0; k < 9; ++k) ee += E[k] * E[k];
    sum += d->vol[t] * (d->mu * ee + 0.5 * d->lambda * tr * tr);
  }
  *e = sum;
  return CL_OK;
}

/* Detach each event's tet from its neighbours: every corner it shares with another tet is
 * replicated (same x, v, X; origin = the shared node) and the tet takes the copy. */
static cl_status dbl_fracture(void *p, cl_body_state *s, const cl_fracture_event *ev, int32_t count, int32_t *applied) {
  dbl *d = p;
  *applied = 0;
  for (int32_t e = 0; e < count; ++e) {
    if (ev[e].kind != CL_EVENT_SPLIT_UNIT) continue;
    int32_t t = ev[e].split_unit.unit;
    if (t < 0 || t >= s->ncells) continue;
    int changed = 0;
    for (int a = 0; a < 4; ++a) {
      int32_t node = s->cells[4 * t + a];
      int32_t uses = 0;
      for (int64_t j = 0; j < 4 * (int64_t)s->ncells; ++j) uses += s->cells[j] == node;
      if (uses < 2) continue;
      int32_t q = s->n;
      CL_TRY(cl_body_state_resize(s, q + 1));
      for (int k = 0; k < 3; ++k) {
        s->x[3 * q + k] = s->x[3 * node + k];
        s->v[3 * q + k] = s->v[3 * node + k];
        s->X[3 * q + k] = s->X[3 * node + k];
      }
      s->origin[q] = node;
      s->cells[4 * t + a] = q;
      changed = 1;
    }
    if (changed) ++*applied;
  }
  if (*applied) lump_masses(d, s);
  return CL_OK;
}

static cl_status dbl_topology_changed(void *p, cl_body_state *s) { return grow_nodes(p, s->n); }

static const cl_solver_ops g_ops = {
    .name = "test_double",
    .help = "test double: explicit St. Venant-Kirchhoff linear tets, lumped mass (tests only)",
    .params = k_params,
    .param_count = 1,
    /* symplectic Euler with exact constraints: angular momentum to rounding in free flight */
    .caps = {.units = CL_UNITS_TETS, .applies = CL_EVENT_BIT(CL_EVENT_SPLIT_UNIT), .conserves_angular_momentum = 1},
    .create = dbl_create,
    .destroy = dbl_destroy,
    .bind = dbl_bind,
    .step = dbl_step,
    .unit_count = dbl_unit_count,
    .measure = dbl_measure,
    .elastic_energy = dbl_energy,
    .fracture = dbl_fracture,
    .topology_changed = dbl_topology_changed,
};

const cl_solver_ops *cl_double_solver_ops(void) { return &g_ops; }

/* ---- the recording criterion ----------------------------------------------------------------- */

static const cl_param_info k_recorder_params[] = {
    {.name = "raise_unit", .unit = "1", .help = "unit to raise one fracture event on, -1 for none", .value = -1.0,
     .min = -1.0, .max = 1e9, .kind = CL_PARAM_INTEGER},
    {.name = "repeat", .unit = "1", .help = "raise the event at every evaluation (false: only once)", .value = 0.0,
     .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
};

typedef struct recorder {
  int32_t raise_unit;
  int32_t repeat;
  int32_t raised;
} recorder;

static cl_double_record g_record;

cl_double_record *cl_double_recorder_log(void) { return &g_record; }
void cl_double_recorder_reset(void) { memset(&g_record, 0, sizeof g_record); }

static cl_status rec_create(void **out) {
  recorder *r = calloc(1, sizeof *r);
  if (!r) return cl_fail(CL_ERR_OUT_OF_MEMORY, "test_recorder: out of memory");
  *out = r;
  return CL_OK;
}

static void rec_destroy(void *p) { free(p); }

static cl_status rec_bind(void *p, const cl_criterion_bind_input *in) {
  recorder *r = p;
  r->raise_unit = (int32_t)in->params[0];
  r->repeat = (int32_t)in->params[1];
  g_record.binds++;
  g_record.raise_unit = in->params[0];
  snprintf(g_record.solver, sizeof g_record.solver, "%s", in->solver);
  return CL_OK;
}

static cl_status rec_evaluate(void *p, const cl_unit_fields *u, const cl_body_state *s, double dt, cl_event_list *out) {
  recorder *r = p;
  g_record.calls++;
  g_record.units = u->count;
  g_record.nodes = s->n;
  g_record.dt = dt;
  if (u->count > 0) {
    memcpy(g_record.F0, u->F, sizeof g_record.F0);
    memcpy(g_record.stress0, u->stress, sizeof g_record.stress0);
  }
  if (r->raise_unit >= 0 && (r->repeat || !r->raised)) {
    cl_fracture_event e = cl_event_split_unit(r->raise_unit, NULL, 1.0, 1.0);
    CL_TRY(cl_event_push(out, &e));
    r->raised++;
    g_record.raised++;
  }
  return CL_OK;
}

static const cl_criterion_ops g_recorder = {
    .name = "test_recorder",
    .help = "records what it is asked; raises one event on request (tests only)",
    .params = k_recorder_params,
    .param_count = 2,
    .caps = {.reads = CL_UNIT_BIT(CL_UNITS_TETS) | CL_UNIT_BIT(CL_UNITS_CLUSTERS) | CL_UNIT_BIT(CL_UNITS_PARTICLES),
             .emits = CL_EVENT_BIT(CL_EVENT_SPLIT_UNIT)},
    .create = rec_create,
    .destroy = rec_destroy,
    .bind = rec_bind,
    .evaluate = rec_evaluate,
};

const cl_criterion_ops *cl_double_recorder_ops(void) { return &g_recorder; }

/* The same for solvers that damage edges (graph_fem): on request, every edge at the first node of
 * the raised unit (tets only) gets damage 1, so that node comes loose as a piece of its own. */
static cl_status edge_rec_evaluate(void *p, const cl_unit_fields *u, const cl_body_state *s, double dt,
                                   cl_event_list *out) {
  recorder *r = p;
  g_record.calls++;
  g_record.units = u->count;
  g_record.nodes = s->n;
  g_record.dt = dt;
  if (r->raise_unit < 0 || r->raise_unit >= s->ncells || s->cell_size != 4 || (!r->repeat && r->raised))
    return CL_OK;
  const int32_t node = s->cells[4 * r->raise_unit];
  for (int32_t c = 0; c < s->ncells; ++c) {
    const int32_t *t = s->cells + 4 * c;
    if (t[0] != node && t[1] != node && t[2] != node && t[3] != node) continue;
    for (int k = 0; k < 4; ++k) {
      if (t[k] == node) continue;
      cl_fracture_event e = cl_event_damage_edge(node, t[k], c, 1.0, 1.0, 1.0);
      CL_TRY(cl_event_push(out, &e));
    }
  }
  r->raised++;
  g_record.raised++;
  return CL_OK;
}

static const cl_criterion_ops g_edge_recorder = {
    .name = "test_edge_recorder",
    .help = "records what it is asked; on request cuts one node loose by damaging its edges (tests only)",
    .params = k_recorder_params,
    .param_count = 2,
    .caps = {.reads = CL_UNIT_BIT(CL_UNITS_TETS), .emits = CL_EVENT_BIT(CL_EVENT_DAMAGE_EDGE)},
    .create = rec_create,
    .destroy = rec_destroy,
    .bind = rec_bind,
    .evaluate = edge_rec_evaluate,
};

cl_status cl_double_register(void) {
  CL_TRY(cl_solver_register(&g_ops));
  CL_TRY(cl_criterion_register(&g_recorder));
  return cl_criterion_register(&g_edge_recorder);
}

void cl_double_momentum(const cl_body_state *s, double *p, double *l) {
  for (int k = 0; k < 3; ++k) p[k] = l[k] = 0.0;
  for (int32_t i = 0; i < s->n; ++i) {
    const double *x = s->x + 3 * i, *v = s->v + 3 * i;
    double m = s->m[i];
    for (int k = 0; k < 3; ++k) p[k] += m * v[k];
    l[0] += m * (x[1] * v[2] - x[2] * v[1]);
    l[1] += m * (x[2] * v[0] - x[0] * v[2]);
    l[2] += m * (x[0] * v[1] - x[1] * v[0]);
  }
}

cl_status cl_double_add_box(cl_world *world, const char *solver, const char *name, int32_t nx, int32_t ny,
                            int32_t nz, const double *lo, const double *hi, double young, double density,
                            const cl_param *params, int32_t nparams, cl_id *body) {
  cl_mesh *mesh;
  CL_TRY(cl_tet_grid(nx, ny, nz, lo, hi, &mesh));
  cl_body_def def;
  cl_body_def_default(&def);
  def.name = name;
  def.solver = solver;
  def.material.young = young;
  def.material.density = density;
  def.params = params;
  def.param_count = nparams;
  cl_status s = cl_world_add_body(world, &def, mesh, body);
  cl_mesh_destroy(mesh);
  return s;
}
