#include "support/test_worlds.h"

#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "world/world.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

cl_world *cl_test_world(double dt, double gy, int32_t threads) {
  cl_world_def def;
  cl_world_def_default(&def);
  return cl_test_world_seeded(dt, gy, threads, def.seed);
}

cl_world *cl_test_world_seeded(double dt, double gy, int32_t threads, uint64_t seed) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = dt;
  def.gravity[0] = def.gravity[2] = 0.0;
  def.gravity[1] = gy;
  def.threads = threads;
  def.seed = seed;
  cl_world *w = NULL;
  cl_status s = cl_world_create(&def, &w);
  if (s != CL_OK) fail_msg("cl_world_create (dt %g, gy %g, %d threads): %s", dt, gy, (int)threads, cl_last_error());
  return w;
}

void *cl_test_body_solver(cl_world *w, cl_id body) {
  cl_body *b = NULL;
  if (cl_world_body(w, body, &b) != CL_OK) fail_msg("cl_world_body: %s", cl_last_error());
  return b->solver;
}

void cl_test_damage_edge(cl_world *w, cl_id body, int32_t a, int32_t b, double d) {
  cl_body *bd = NULL;
  if (cl_world_body(w, body, &bd) != CL_OK) fail_msg("cl_world_body: %s", cl_last_error());
  cl_fracture_event e = cl_event_damage_edge(a, b, 0, d, 1.0, 1.0);
  int32_t applied = 0;
  if (bd->ops->fracture(bd->solver, &bd->state, &e, 1, &applied) != CL_OK) fail_msg("damage_edge: %s", cl_last_error());
  bd->state.topology_version += applied > 0;
}

double *cl_test_positions(cl_world *w, cl_id body, int32_t *n) {
  cl_body_state *st = cl_world_body_state(w, body);
  if (!st) fail_msg("cl_world_body_state: %s", cl_last_error());
  double *x = malloc(sizeof(double) * 3 * (size_t)(st->n > 0 ? st->n : 1));
  if (!x) fail_msg("out of memory copying %d positions", st->n);
  memcpy(x, st->x, sizeof(double) * 3 * (size_t)st->n);
  *n = st->n;
  return x;
}

cl_id cl_test_add_body(cl_world *w, const char *solver, const cl_mesh *m, const cl_param *params, int32_t nparams,
                       const char *criterion, const cl_param *cparams, int32_t ncparams) {
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = solver;
  bd.params = params;
  bd.param_count = nparams;
  if (criterion) {
    bd.criterion = criterion;
    bd.criterion_params = cparams;
    bd.criterion_param_count = ncparams;
  }
  cl_id b = 0;
  cl_status s = cl_world_add_body(w, &bd, m, &b);
  if (s != CL_OK) fail_msg("cl_world_add_body (%s): %s", solver, cl_last_error());
  return b;
}

cl_id cl_test_x_slab(cl_world *w, cl_id body, double lo, double hi, double vx) {
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = 0;
  r.lo[0] = lo;
  r.hi[0] = hi;
  cl_motion_def mo;
  cl_motion_def_default(&mo, vx == 0.0 ? CL_MOTION_FIXED : CL_MOTION_TRANSLATE);
  mo.velocity[0] = vx;
  cl_id c;
  if (cl_world_constrain(w, body, &r, &mo, &c) != CL_OK) fail_msg("cl_world_constrain: %s", cl_last_error());
  return c;
}

cl_id cl_test_sphere_along_z(cl_world *w, double radius, double z, double vz, double mass) {
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  d.radius = radius;
  d.center[2] = z;
  d.velocity[2] = vz;
  if (mass > 0.0) {
    d.dynamic = 1;
    d.mass = mass;
  }
  cl_id c;
  if (cl_world_add_collider(w, &d, &c) != CL_OK) fail_msg("cl_world_add_collider: %s", cl_last_error());
  return c;
}

cl_body *cl_test_block_on_floor(cl_world **w, const char *solver, double gap, double mu, const cl_param *params,
                                int32_t nparams) {
  const double lo[3] = {-0.05, gap, -0.05}, hi[3] = {0.05, gap + 0.1, 0.05};
  cl_mesh *m = NULL;
  if (cl_tet_grid(4, 4, 4, lo, hi, &m) != CL_OK) fail_msg("cl_tet_grid: %s", cl_last_error());
  *w = cl_test_world(1.0 / 200.0, -9.81, 1);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = solver;
  bd.material.young = 1e6;
  bd.material.poisson = 0.3;
  bd.material.density = 1000.0;
  bd.params = params;
  bd.param_count = nparams;
  cl_id id = 0;
  if (cl_world_add_body(*w, &bd, m, &id) < 0) fail_msg("%s body: %s", solver, cl_last_error());
  cl_mesh_destroy(m);
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_PLANE);
  d.friction = mu;
  cl_id floor_id;
  if (cl_world_add_collider(*w, &d, &floor_id) != CL_OK) fail_msg("cl_world_add_collider: %s", cl_last_error());
  cl_body *b = NULL;
  if (cl_world_body(*w, id, &b) != CL_OK) fail_msg("cl_world_body: %s", cl_last_error());
  return b;
}

cl_world *cl_test_held_cube(const char *solver, cl_id *body, cl_id *held) {
  const double lo[3] = {0, 0, 0}, hi[3] = {0.1, 0.1, 0.1};
  cl_mesh *m = NULL;
  if (cl_tet_grid(8, 8, 8, lo, hi, &m) != CL_OK) fail_msg("cl_tet_grid: %s", cl_last_error());
  cl_world *w = cl_test_world(1e-2, 0.0, 1);
  const cl_param conv[] = {{"linear_solver", 0, NULL}, {"tolerance", 1e-12, NULL}, {"max_iterations", 20000, NULL}};
  *body = cl_test_add_body(w, solver, m, conv, 3, NULL, NULL, 0);
  cl_mesh_destroy(m);
  *held = cl_test_x_slab(w, *body, -1.0, 1e-9, 0.0);
  return w;
}
