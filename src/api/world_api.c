/* The public functions of cleave/world.h: argument checks and error text at the boundary, then a
 * call into world/ (which trusts its input). Every check names the argument, its value and what is
 * allowed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/checks.h"
#include "base/error.h"
#include "fracture/criterion.h"
#include "geom/components.h"
#include "geom/mesh.h"
#include "solvers/solver.h"
#include "world/world.h"

/* ---- registry ------------------------------------------------------------------------------- */

int32_t cl_registry_count(cl_registry which) {
  if (which == CL_REGISTRY_SOLVER) return cl_solver_count();
  if (which == CL_REGISTRY_CRITERION) return cl_criterion_count();
  return 0;
}

const char *cl_registry_name(cl_registry which, int32_t i) {
  if (which == CL_REGISTRY_SOLVER) {
    const cl_solver_ops *s = cl_solver_at(i);
    return s ? s->name : NULL;
  }
  if (which == CL_REGISTRY_CRITERION) {
    const cl_criterion_ops *c = cl_criterion_at(i);
    return c ? c->name : NULL;
  }
  return NULL;
}

cl_status cl_solver_get_info(const char *name, cl_solver_info *info) {
  CHECK_NULL(info, "cl_solver_get_info");
  memset(info, 0, sizeof *info);
  const cl_solver_ops *s;
  CL_TRY(cl_solver_find(name, &s));
  info->uses_moduli = !s->caps.moduli_readouts_only;
  info->static_solve = s->equilibrium != NULL;
  return CL_OK;
}

cl_status cl_param_table(cl_registry which, const char *name, const cl_param_info **table, int32_t *count) {
  CHECK_NULL(table, "cl_param_table");
  CHECK_NULL(count, "cl_param_table");
  *table = NULL;
  *count = 0;
  if (which == CL_REGISTRY_SOLVER) {
    const cl_solver_ops *s;
    CL_TRY(cl_solver_find(name, &s));
    *table = s->params;
    *count = s->param_count;
    return CL_OK;
  }
  if (which == CL_REGISTRY_CRITERION) {
    const cl_criterion_ops *c;
    CL_TRY(cl_criterion_find(name, &c));
    *table = c->params;
    *count = c->param_count;
    return CL_OK;
  }
  return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_param_table: registry %d is not solver (0) or criterion (1)", (int)which);
}

/* ---- world ---------------------------------------------------------------------------------- */

void cl_world_def_default(cl_world_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->dt = 1.0 / 600.0;
  def->gravity[1] = -9.81;
  def->substeps = 1;
  def->threads = 0;
  def->seed = 1;
  def->internal = CL_DEF_MARKER;
}

cl_status cl_world_create(const cl_world_def *def, cl_world **out) {
  CHECK_NULL(out, "cl_world_create");
  *out = NULL;
  CHECK_NULL(def, "cl_world_create");
  if (def->internal != CL_DEF_MARKER)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_world_def not initialised: call cl_world_def_default");
  if (!(def->dt > 0.0) || isinf(def->dt))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "world: dt = %g s must be positive and finite", def->dt);
  CL_TRY(cl_check_vec3_limit("world: gravity", def->gravity, CL_LIMIT_GRAVITY, "m/s^2"));
  if (def->substeps < 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "world: substeps = %d must be >= 1", def->substeps);
  if (def->threads < 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "world: threads = %d must be >= 0 (0 = all cores)", def->threads);
  return cl_world_new(def, out);
}

void cl_world_destroy(cl_world *world) { cl_world_free(world); }

cl_status cl_world_set_gravity(cl_world *world, const double *g) {
  CHECK_NULL(world, "cl_world_set_gravity");
  CHECK_NULL(g, "cl_world_set_gravity");
  CL_TRY(cl_check_vec3_limit("world: gravity", g, CL_LIMIT_GRAVITY, "m/s^2"));
  for (int k = 0; k < 3; ++k) world->gravity[k] = g[k];
  return CL_OK;
}

/* ---- bodies --------------------------------------------------------------------------------- */

void cl_body_def_default(cl_body_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->material.density = 1000.0;
  def->material.young = 1e6;
  def->material.poisson = 0.3;
  def->material.plastic_yield = -1.0; /* no plasticity */
  def->material.plastic_flow = 0.0;
  def->material.plastic_hardening = 0.0;
  def->material.plastic_max = 0.0;
  def->internal = CL_DEF_MARKER;
}

static cl_status check_material(const cl_material_def *m) {
  /* upper limits (world.h) so that energies and stresses cannot overflow */
  if (!(m->density > 0.0 && m->density <= CL_LIMIT_DENSITY))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "material: density = %g kg/m^3 is outside the allowed range (0, %g] kg/m^3",
                   m->density, CL_LIMIT_DENSITY);
  if (!(m->young > 0.0 && m->young <= CL_LIMIT_YOUNG))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "material: young = %g Pa is outside the allowed range (0, %g] Pa", m->young,
                   CL_LIMIT_YOUNG);
  if (!(m->poisson >= 0.0 && m->poisson < 0.5))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "material: poisson = %g is outside [0, 0.5)", m->poisson);
  if (!isfinite(m->plastic_yield))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "material: plastic_yield = %g must be finite (< 0 disables plasticity)",
                   m->plastic_yield);
  if (!(m->plastic_flow >= 0.0) || isinf(m->plastic_flow))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "material: plastic_flow = %g must be finite and >= 0", m->plastic_flow);
  if (!isfinite(m->plastic_hardening))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "material: plastic_hardening = %g must be finite", m->plastic_hardening);
  if (!isfinite(m->plastic_max))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "material: plastic_max = %g must be finite (<= 0 for no cap)",
                   m->plastic_max);
  return CL_OK;
}

cl_status cl_world_add_body(cl_world *world, const cl_body_def *def, const cl_mesh *mesh, cl_id *body) {
  CHECK_NULL(body, "cl_world_add_body");
  *body = 0;
  CHECK_NULL(world, "cl_world_add_body");
  CHECK_NULL(def, "cl_world_add_body");
  CHECK_NULL(mesh, "cl_world_add_body");
  if (def->internal != CL_DEF_MARKER)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_body_def not initialised: call cl_body_def_default");
  const char *label = def->name && def->name[0] ? def->name : "(unnamed)";
  cl_status s = check_material(&def->material);
  if (s < 0) return cl_fail_context(s, "body '%s': ", label);
  if (def->param_count < 0 || (def->param_count > 0 && !def->params))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "body '%s': param_count = %d with params %s", label, def->param_count,
                   def->params ? "set" : "NULL");
  if (def->criterion_param_count < 0 || (def->criterion_param_count > 0 && !def->criterion_params))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "body '%s': criterion_param_count = %d with criterion_params %s", label,
                   def->criterion_param_count, def->criterion_params ? "set" : "NULL");
  if (mesh->npoints < 1) return cl_fail(CL_ERR_MESH, "body '%s': the mesh has no points", label);
  for (int32_t i = 0; i < mesh->npoints; ++i) {
    s = cl_check_vec3_limit("position", mesh->x + 3 * (size_t)i, CL_LIMIT_COORD, "m");
    if (s < 0) return cl_fail_context(s, "body '%s': mesh point %d: ", label, i);
  }
  cl_body *b;
  const cl_status warn = cl_body_new(world, def, mesh, &b); /* > 0: a warning of the binding, kept */
  if (warn < 0) return warn;
  const cl_status s2 = cl_world_insert_body(world, b, body);
  return s2 < 0 ? s2 : warn > s2 ? warn : s2;
}

cl_status cl_world_remove_body(cl_world *world, cl_id body) {
  CHECK_NULL(world, "cl_world_remove_body");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  cl_world_delete_body(world, body);
  return CL_OK;
}

cl_status cl_body_get_info(const cl_world *world, cl_id body, cl_body_info *info) {
  CHECK_NULL(world, "cl_body_get_info");
  CHECK_NULL(info, "cl_body_get_info");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  return cl_body_fill_info(b, info);
}

/* Solver statistics: the solver's optional `stats` op (solver.h) behind a checked boundary. */
cl_status cl_body_copy_stats(const cl_world *world, cl_id body, cl_body_stat *out, int32_t capacity,
                             int32_t *count) {
  CHECK_NULL(world, "cl_body_copy_stats");
  CHECK_NULL(count, "cl_body_copy_stats");
  *count = 0;
  if (capacity < 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_body_copy_stats: capacity = %d must be >= 0", (int)capacity);
  if (capacity > 0 && !out)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_body_copy_stats: out is NULL but capacity = %d", (int)capacity);
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  if (!b->ops->stats) return CL_OK;
  return b->ops->stats(b->solver, &b->state, capacity > 0 ? out : NULL, capacity, count);
}

cl_status cl_body_get_stat(const cl_world *world, cl_id body, const char *name, double *value) {
  CHECK_NULL(world, "cl_body_get_stat");
  CHECK_NULL(name, "cl_body_get_stat");
  CHECK_NULL(value, "cl_body_get_stat");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  /* A solver reports a handful of figures; a fixed buffer keeps this free of allocation. */
  enum { MAX_STATS = 64 };
  cl_body_stat list[MAX_STATS];
  int32_t n = 0;
  if (b->ops->stats) CL_TRY(b->ops->stats(b->solver, &b->state, list, MAX_STATS, &n));
  if (n > MAX_STATS) n = MAX_STATS;
  for (int32_t i = 0; i < n; ++i) {
    if (strcmp(list[i].name, name) == 0) {
      *value = list[i].value;
      return CL_OK;
    }
  }
  char names[1024];
  size_t used = 0;
  names[0] = '\0';
  for (int32_t i = 0; i < n && used < sizeof names; ++i) {
    int w = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", list[i].name);
    if (w < 0) break;
    used += (size_t)w;
  }
  return cl_fail(CL_ERR_NOT_FOUND, "cl_body_get_stat: %s (solver '%s') has no statistic '%s'; it has: %s", b->label,
                 b->ops->name, name, n ? names : "none");
}

/* which: 0 positions, 1 velocities, 2 rest positions */
static cl_status copy_nodes(const char *fn, const cl_world *world, cl_id body, double *out, int64_t capacity,
                            int which) {
  if (!world) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: world is NULL", fn);
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: output buffer is NULL", fn);
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  int64_t need = 3 * (int64_t)b->state.n;
  CL_TRY(check_capacity(fn, capacity, need, "doubles (3 per node)"));
  const double *src = which == 0 ? b->state.x : which == 1 ? b->state.v : b->state.X;
  memcpy(out, src, sizeof(double) * (size_t)need);
  return CL_OK;
}

cl_status cl_body_copy_positions(const cl_world *world, cl_id body, double *xyz, int64_t capacity) {
  return copy_nodes("cl_body_copy_positions", world, body, xyz, capacity, 0);
}
cl_status cl_body_copy_velocities(const cl_world *world, cl_id body, double *v, int64_t capacity) {
  return copy_nodes("cl_body_copy_velocities", world, body, v, capacity, 1);
}
cl_status cl_body_copy_rest_positions(const cl_world *world, cl_id body, double *xyz, int64_t capacity) {
  return copy_nodes("cl_body_copy_rest_positions", world, body, xyz, capacity, 2);
}

cl_status cl_body_copy_piece_labels(const cl_world *world, cl_id body, int32_t *labels, int64_t capacity) {
  static const char fn[] = "cl_body_copy_piece_labels";
  if (!world) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: world is NULL", fn);
  if (!labels) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: output buffer is NULL", fn);
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  const cl_body_state *st = &b->state;
  CL_TRY(check_capacity(fn, capacity, st->n, "int32 labels (1 per node)"));
  int32_t count = 0;
  /* the labels the piece count comes from: the solver's own connectivity first (graph_fem's
   * unbroken edges), else the cells' */
  return cl_body_piece_labels(b, labels, &count);
}

cl_status cl_body_set_velocities(cl_world *world, cl_id body, const double *v, int64_t count) {
  CHECK_NULL(world, "cl_body_set_velocities");
  CHECK_NULL(v, "cl_body_set_velocities");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  const int64_t need = 3 * (int64_t)b->state.n;
  if (count != need)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_body_set_velocities: %s has %d nodes, so %lld values (3 per node) are needed; got %lld",
                   b->label, b->state.n, (long long)need, (long long)count);
  for (int64_t i = 0; i < need / 3; ++i) {
    cl_status s = cl_check_vec3_limit("velocity", v + 3 * i, CL_LIMIT_SPEED, "m/s");
    if (s < 0) return cl_fail_context(s, "%s: node %lld: ", b->label, (long long)i);
  }
  memcpy(b->state.v, v, sizeof(double) * (size_t)need);
  cl_watch_body_added(world, b); /* energy given from outside the step */
  return CL_OK;
}

cl_status cl_body_set_rigid_velocity(cl_world *world, cl_id body, const double *linear, const double *angular) {
  CHECK_NULL(world, "cl_body_set_rigid_velocity");
  CHECK_NULL(linear, "cl_body_set_rigid_velocity");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  cl_status s = cl_check_vec3_limit("velocity", linear, CL_LIMIT_SPEED, "m/s");
  if (s >= 0 && angular) s = cl_check_vec3_limit("angular_velocity", angular, CL_LIMIT_SPIN, "rad/s");
  if (s < 0) return cl_fail_context(s, "%s: ", b->label);
  const cl_body_state *st = &b->state;
  double c[3] = {0.0, 0.0, 0.0}, mass = 0.0;
  for (int32_t i = 0; i < st->n; ++i) {
    mass += st->m[i];
    for (int k = 0; k < 3; ++k) c[k] += st->m[i] * st->x[3 * (size_t)i + k];
  }
  if (mass > 0.0)
    for (int k = 0; k < 3; ++k) c[k] /= mass;
  const double w[3] = {angular ? angular[0] : 0.0, angular ? angular[1] : 0.0, angular ? angular[2] : 0.0};
  for (int32_t i = 0; i < st->n; ++i) {
    const double *x = st->x + 3 * (size_t)i;
    const double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double *v = st->v + 3 * (size_t)i;
    v[0] = linear[0] + w[1] * r[2] - w[2] * r[1];
    v[1] = linear[1] + w[2] * r[0] - w[0] * r[2];
    v[2] = linear[2] + w[0] * r[1] - w[1] * r[0];
  }
  cl_watch_body_added(world, b); /* energy given from outside the step */
  return CL_OK;
}

cl_status cl_body_copy_surface(const cl_world *world, cl_id body, int32_t *tris, int64_t capacity) {
  CHECK_NULL(world, "cl_body_copy_surface");
  CHECK_NULL(tris, "cl_body_copy_surface");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  CL_TRY(cl_body_surface(b));
  int64_t need = 3 * (int64_t)b->ntris;
  CL_TRY(check_capacity("cl_body_copy_surface", capacity, need, "ints (3 per triangle)"));
  if (need) memcpy(tris, b->tris, sizeof(int32_t) * (size_t)need);
  return CL_OK;
}

cl_status cl_body_copy_unit_field(const cl_world *world, cl_id body, cl_unit_field field, double *out,
                                  int64_t capacity) {
  CHECK_NULL(world, "cl_body_copy_unit_field");
  CHECK_NULL(out, "cl_body_copy_unit_field");
  if (field < CL_UNIT_DEFORMATION_GRADIENT || field > CL_UNIT_DAMAGE)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_body_copy_unit_field: field %d is not one of deformation gradient (0), stress (1), plastic "
                   "strain (2), center (3), damage (4)", (int)field);
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  int32_t units = b->ops->unit_count(b->solver);
  int ncomp = field == CL_UNIT_CENTER ? 3 : field == CL_UNIT_DAMAGE ? 1 : 9;
  CL_TRY(check_capacity("cl_body_copy_unit_field", capacity, (int64_t)ncomp * units, "doubles"));
  CL_TRY(cl_body_measure(b));
  const double *src = field == CL_UNIT_DEFORMATION_GRADIENT ? b->units.F
                      : field == CL_UNIT_STRESS             ? b->units.stress
                      : field == CL_UNIT_PLASTIC_STRAIN     ? b->units.plastic
                      : field == CL_UNIT_DAMAGE             ? b->units.damage
                                                            : b->units.center;
  if (units) memcpy(out, src, sizeof(double) * (size_t)ncomp * (size_t)units);
  return CL_OK;
}

/* ---- regions and boundary conditions ------------------------------------------------------- */

void cl_region_def_default(cl_region_def *def, cl_region_kind kind) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->kind = kind;
  for (int k = 0; k < 3; ++k) {
    def->lo[k] = -INFINITY; /* unbounded: a slab or box selects everything until narrowed */
    def->hi[k] = INFINITY;
  }
  def->radius = 1.0;
}

void cl_motion_def_default(cl_motion_def *def, cl_motion_kind kind) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->kind = kind;
  def->axis[0] = 1.0;
  def->duration = INFINITY;
  def->release = INFINITY;
}

cl_status cl_world_constrain(cl_world *world, cl_id body, const cl_region_def *region, const cl_motion_def *motion,
                             cl_id *condition) {
  CHECK_NULL(condition, "cl_world_constrain");
  *condition = 0;
  CHECK_NULL(world, "cl_world_constrain");
  CHECK_NULL(region, "cl_world_constrain");
  CHECK_NULL(motion, "cl_world_constrain");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  CL_TRY(cl_region_check(region));
  CL_TRY(cl_motion_check(motion));
  const cl_condition_spec spec = {.kind = CL_CONDITION_CONSTRAIN, .motion = motion};
  return cl_world_insert_condition(world, b, region, &spec, condition);
}

cl_status cl_world_apply_force(cl_world *world, cl_id body, const cl_region_def *region, const double *force,
                               cl_id *condition) {
  CHECK_NULL(condition, "cl_world_apply_force");
  *condition = 0;
  CHECK_NULL(world, "cl_world_apply_force");
  CHECK_NULL(region, "cl_world_apply_force");
  CHECK_NULL(force, "cl_world_apply_force");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  CL_TRY(cl_region_check(region));
  CL_TRY(cl_check_vec3_limit("force", force, CL_LIMIT_FORCE, "N"));
  const cl_condition_spec spec = {.kind = CL_CONDITION_FORCE, .force = force};
  return cl_world_insert_condition(world, b, region, &spec, condition);
}

void cl_support_def_default(cl_support_def *def, cl_support_kind kind) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->kind = kind;
  def->normal[1] = 1.0;
  def->duration = INFINITY;
  def->release = INFINITY;
}

cl_status cl_world_support(cl_world *world, cl_id body, const cl_region_def *region, const cl_support_def *support,
                           cl_id *condition) {
  CHECK_NULL(condition, "cl_world_support");
  *condition = 0;
  CHECK_NULL(world, "cl_world_support");
  CHECK_NULL(region, "cl_world_support");
  CHECK_NULL(support, "cl_world_support");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  CL_TRY(cl_region_check(region));
  CL_TRY(cl_support_check(support));
  const cl_condition_spec spec = {.kind = CL_CONDITION_SUPPORT, .support = support};
  return cl_world_insert_condition(world, b, region, &spec, condition);
}

void cl_surface_load_def_default(cl_surface_load_def *def, cl_surface_load_kind kind) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->kind = kind;
}

cl_status cl_world_apply_surface_load(cl_world *world, cl_id body, const cl_region_def *region,
                                      const cl_surface_load_def *load, cl_id *condition) {
  CHECK_NULL(condition, "cl_world_apply_surface_load");
  *condition = 0;
  CHECK_NULL(world, "cl_world_apply_surface_load");
  CHECK_NULL(region, "cl_world_apply_surface_load");
  CHECK_NULL(load, "cl_world_apply_surface_load");
  cl_body *b;
  CL_TRY(cl_world_body(world, body, &b));
  CL_TRY(cl_region_check(region));
  CL_TRY(cl_surface_load_check(load));
  const cl_condition_spec spec = {.kind = CL_CONDITION_SURFACE_LOAD, .load = load};
  return cl_world_insert_condition(world, b, region, &spec, condition);
}

cl_status cl_condition_total_force(cl_world *world, cl_id condition, double *force) {
  CHECK_NULL(world, "cl_condition_total_force");
  CHECK_NULL(force, "cl_condition_total_force");
  cl_condition *c;
  CL_TRY(cl_world_condition(world, condition, &c));
  force[0] = force[1] = force[2] = 0.0;
  if (c->kind == CL_CONDITION_KNIFE)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "the condition is a knife, it applies no load");
  if (c->kind != CL_CONDITION_FORCE && c->kind != CL_CONDITION_SURFACE_LOAD)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "the condition holds nodes, it applies no load (read its reaction with a "
                   "reaction probe)");
  cl_body *b;
  CL_TRY(cl_world_body(world, c->body, &b));
  double *f = calloc((size_t)b->state.n * 3, sizeof *f);
  if (!f) return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory summing a load");
  cl_condition_add_forces(c, &b->state, world->time, 1.0, f);
  for (int32_t i = 0; i < b->state.n; ++i)
    for (int k = 0; k < 3; ++k) force[k] += f[3 * i + k];
  free(f);
  return CL_OK;
}

cl_status cl_world_remove_condition(cl_world *world, cl_id condition) {
  CHECK_NULL(world, "cl_world_remove_condition");
  cl_condition *c;
  CL_TRY(cl_world_condition(world, condition, &c));
  cl_world_delete_condition(world, condition);
  return CL_OK;
}

cl_status cl_condition_node_count(const cl_world *world, cl_id condition, int32_t *count) {
  CHECK_NULL(world, "cl_condition_node_count");
  CHECK_NULL(count, "cl_condition_node_count");
  cl_condition *c;
  CL_TRY(cl_world_condition(world, condition, &c));
  *count = c->count;
  return CL_OK;
}

/* ---- colliders ------------------------------------------------------------------------------ */

void cl_collider_def_default(cl_collider_def *def, cl_collider_kind kind) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->kind = kind;
  def->normal[1] = 1.0;
  def->radius = 0.5;
  for (int k = 0; k < 3; ++k) def->half_extents[k] = 0.5;
  def->rotation[0] = def->rotation[4] = def->rotation[8] = 1.0;
  def->friction = 0.0; /* frictionless, as the Lua API's default (lua/cleave/colliders.lua) */
  def->restitution = 0.0;
  def->duration = INFINITY;
}

cl_status cl_world_add_collider(cl_world *world, const cl_collider_def *def, cl_id *collider) {
  CHECK_NULL(collider, "cl_world_add_collider");
  *collider = 0;
  CHECK_NULL(world, "cl_world_add_collider");
  CHECK_NULL(def, "cl_world_add_collider");
  CL_TRY(cl_collider_check(def));
  return cl_world_insert_collider(world, def, collider);
}

cl_status cl_world_remove_collider(cl_world *world, cl_id collider) {
  CHECK_NULL(world, "cl_world_remove_collider");
  cl_collider *c;
  CL_TRY(cl_world_collider(world, collider, &c));
  cl_world_delete_collider(world, collider);
  return CL_OK;
}

cl_status cl_collider_get_center(const cl_world *world, cl_id collider, double *center) {
  CHECK_NULL(world, "cl_collider_get_center");
  CHECK_NULL(center, "cl_collider_get_center");
  cl_collider *c;
  CL_TRY(cl_world_collider(world, collider, &c));
  cl_collider_shape s;
  cl_collider_pose(c, world->time, &s);
  for (int k = 0; k < 3; ++k) center[k] = s.center[k];
  return CL_OK;
}

/* ---- probes --------------------------------------------------------------------------------- */

void cl_probe_def_default(cl_probe_def *def, cl_probe_kind kind) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->kind = kind;
}

cl_status cl_world_add_probe(cl_world *world, const cl_probe_def *def, cl_id *probe) {
  CHECK_NULL(probe, "cl_world_add_probe");
  *probe = 0;
  CHECK_NULL(world, "cl_world_add_probe");
  CHECK_NULL(def, "cl_world_add_probe");
  return cl_world_insert_probe(world, def, probe);
}

cl_status cl_probe_size(const cl_world *world, cl_id probe, int32_t *count) {
  CHECK_NULL(world, "cl_probe_size");
  CHECK_NULL(count, "cl_probe_size");
  cl_probe *p;
  CL_TRY(cl_world_probe(world, probe, &p));
  *count = cl_probe_value_count(p);
  return CL_OK;
}

cl_status cl_probe_read(const cl_world *world, cl_id probe, double *out, int64_t capacity) {
  CHECK_NULL(world, "cl_probe_read");
  CHECK_NULL(out, "cl_probe_read");
  cl_probe *p;
  CL_TRY(cl_world_probe(world, probe, &p));
  CL_TRY(check_capacity("cl_probe_read", capacity, cl_probe_value_count(p), "doubles"));
  /* probes cache derived data (pieces, surfaces) in the world: reading is logically const */
  cl_status s = cl_probe_eval((cl_world *)world, p, out);
  if (s < 0) return s;
  /* a non-finite value is a blow-up: it stops the world rather than reach a probes.csv */
  for (int32_t k = 0; k < cl_probe_value_count(p); ++k)
    if (!isfinite(out[k])) {
      cl_body *b = NULL;
      if (p->def.kind != CL_PROBE_PHASE_TIME) (void)cl_world_body(world, p->def.body, &b);
      return cl_world_stop((cl_world *)world,
                           cl_fail(CL_ERR_NUMERICAL, "%s%s%s probe: value %g after step %lld (t = %g s) is not "
                                   "finite: the simulation blew up; the world is stopped. Try a smaller dt or more "
                                   "substeps, or inputs within their ranges", b ? b->label : "", b ? ": " : "",
                                   cl_probe_kind_name(p), out[k], (long long)world->steps, world->time));
    }
  return s;
}

/* ---- stepping ------------------------------------------------------------------------------- */

cl_status cl_world_step(cl_world *world, int32_t steps) {
  CHECK_NULL(world, "cl_world_step");
  if (steps < 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_world_step: steps = %d must be >= 0", steps);
  return cl_world_advance(world, steps);
}

cl_status cl_world_get_stats(const cl_world *world, cl_world_stats *stats) {
  CHECK_NULL(world, "cl_world_get_stats");
  CHECK_NULL(stats, "cl_world_get_stats");
  *stats = world->stats;
  stats->steps = world->steps;
  stats->time = world->time;
  return CL_OK;
}

cl_status cl_world_solve_static(cl_world *world, const cl_static_def *def, cl_static_report *report) {
  CHECK_NULL(world, "cl_world_solve_static");
  CHECK_NULL(def, "cl_world_solve_static");
  if (world->stopped)
    return cl_fail(CL_ERR_STATE, "the world stopped on an error and cannot be solved; the error was: %s",
                   world->stop_message);
  if (def->load_steps < 1 || def->load_steps > 100000)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "static solve: load_steps = %d must be in [1, 100000]", (int)def->load_steps);
  if (def->max_iterations < 1 || def->max_iterations > 100000)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "static solve: max_iterations = %d must be in [1, 100000]",
                   (int)def->max_iterations);
  if (!(def->tolerance > 0.0 && def->tolerance < 1.0))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "static solve: tolerance = %g must be in (0, 1)", def->tolerance);
  return cl_world_static(world, def, report);
}
