/* The world through its public API, driven by the test double solver: probes (reaction, distance,
 * volume, energies, pieces, phase times), boundary conditions (fixed, driven twist, release, forces),
 * colliders, generational ids, the NaN stop, the criterion plumbing and fracture bookkeeping, and
 * output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "base/error.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "support/cl_asserts.h"
#include "support/double_solver.h"
#include "support/test_worlds.h"
#include "world/world.h"

#define PI 3.14159265358979323846

static const double g_lo[3] = {0.0, 0.0, 0.0};
static const double g_hi[3] = {0.1, 0.1, 0.1};

/* A world with time step dt, gravity (0, gy, 0) and OpenMP's default thread count. */
static cl_world *make_world(double dt, double gy) { return cl_test_world(dt, gy, 0); }

static int setup(void **state) {
  (void)state;
  return cl_double_register() == CL_OK ? 0 : -1;
}

static void rotate(const double *axis, double th, const double *p, double *out) {
  double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  double a[3] = {axis[0] / n, axis[1] / n, axis[2] / n};
  double c = cos(th), s = sin(th), ap = a[0] * p[0] + a[1] * p[1] + a[2] * p[2];
  double axp[3] = {a[1] * p[2] - a[2] * p[1], a[2] * p[0] - a[0] * p[2], a[0] * p[1] - a[1] * p[0]};
  for (int k = 0; k < 3; ++k) out[k] = p[k] * c + axp[k] * s + a[k] * ap * (1.0 - c);
}

/* ---- registry ------------------------------------------------------------------------------- */

static void test_registry(void **state) {
  (void)state;
  int found = 0;
  for (int32_t i = 0; i < cl_registry_count(CL_REGISTRY_SOLVER); ++i)
    found |= strcmp(cl_registry_name(CL_REGISTRY_SOLVER, i), "test_double") == 0;
  assert_true(found);
  found = 0;
  for (int32_t i = 0; i < cl_registry_count(CL_REGISTRY_CRITERION); ++i)
    found |= strcmp(cl_registry_name(CL_REGISTRY_CRITERION, i), "test_recorder") == 0;
  assert_true(found);
  assert_null(cl_registry_name(CL_REGISTRY_SOLVER, 1000));

  const cl_param_info *table;
  int32_t count;
  assert_int_equal(cl_param_table(CL_REGISTRY_SOLVER, "test_double", &table, &count), CL_OK);
  assert_int_equal(count, 1);
  assert_string_equal(table[0].name, "damping");
  assert_string_equal(table[0].unit, "1/s");
  assert_int_equal(cl_param_table(CL_REGISTRY_CRITERION, "test_recorder", &table, &count), CL_OK);
  assert_int_equal(count, 2);
  assert_int_equal(cl_param_table(CL_REGISTRY_SOLVER, "no_such", &table, &count), CL_ERR_NOT_FOUND);
  assert_non_null(strstr(cl_last_error(), "test_double"));
  assert_int_equal(cl_param_table(CL_REGISTRY_CRITERION, "no_such", &table, &count), CL_ERR_NOT_FOUND);
  assert_non_null(strstr(cl_last_error(), "test_recorder"));

  /* registering the same table again is fine; another table under the name is not */
  assert_int_equal(cl_solver_register(cl_double_solver_ops()), CL_OK);
  cl_solver_ops copy = *cl_double_solver_ops();
  assert_int_equal(cl_solver_register(&copy), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "taken"));
  copy.name = "incomplete";
  copy.step = NULL;
  assert_int_equal(cl_solver_register(&copy), CL_ERR_INVALID_ARGUMENT);
  cl_criterion_ops ccopy = *cl_double_recorder_ops();
  assert_int_equal(cl_criterion_register(&ccopy), CL_ERR_INVALID_ARGUMENT);
}

/* ---- info, surface, unit fields -------------------------------------------------------------- */

static void test_body_info_and_fields(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  cl_id b;
  assert_int_equal(cl_double_add_box(w, "test_double", "cube", 1, 1, 1, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &b), CL_OK);
  cl_body_info info;
  assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
  assert_int_equal(info.nodes, 8);
  assert_int_equal(info.units, 6);
  assert_int_equal(info.surface_triangles, 12); /* two per face of the cube */
  assert_int_equal(info.pieces, 1);
  assert_near(info.mass, 1000.0 * 1e-3, 1e-15);

  int32_t tris[36];
  assert_int_equal(cl_body_copy_surface(w, b, tris, 36), CL_OK);
  for (int k = 0; k < 36; ++k) assert_true(tris[k] >= 0 && tris[k] < 8);
  assert_int_equal(cl_body_copy_surface(w, b, tris, 35), CL_ERR_INVALID_ARGUMENT);

  double F[54], S[54], C[18], rest[24], x[24];
  assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_DEFORMATION_GRADIENT, F, 54), CL_OK);
  assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_STRESS, S, 54), CL_OK);
  assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_CENTER, C, 18), CL_OK);
  for (int t = 0; t < 6; ++t)
    for (int k = 0; k < 9; ++k) {
      assert_near(F[9 * t + k], k % 4 == 0 ? 1.0 : 0.0, 1e-14);
      assert_near(S[9 * t + k], 0.0, 1e-9);
    }
  for (int k = 0; k < 18; ++k) assert_true(C[k] > 0.0 && C[k] < 0.1);
  assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_CENTER, C, 17), CL_ERR_INVALID_ARGUMENT);

  /* a uniform stretch written into the state shows up as F = diag(1.1, 1, 1) in every tet */
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < st->n; ++i) st->x[3 * i] = 1.1 * st->X[3 * i];
  assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_DEFORMATION_GRADIENT, F, 54), CL_OK);
  for (int t = 0; t < 6; ++t) assert_near(F[9 * t], 1.1, 1e-13);
  assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_STRESS, S, 54), CL_OK);
  assert_true(S[0] > 0.0); /* tension along x */

  assert_int_equal(cl_body_copy_rest_positions(w, b, rest, 24), CL_OK);
  assert_int_equal(cl_body_copy_positions(w, b, x, 24), CL_OK);
  assert_near(x[3], 1.1 * rest[3], 1e-15);
  assert_int_equal(cl_body_copy_positions(w, b, x, 23), CL_ERR_INVALID_ARGUMENT);
  cl_world_destroy(w);
}

/* ---- probes --------------------------------------------------------------------------------- */

/* A body hanging from its top face settles; the reaction of the fixed face carries its weight. */
static void test_reaction_of_hanging_body(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  cl_param damping = {"damping", 60.0, NULL};
  cl_id b, fix, probe, ke;
  assert_int_equal(cl_double_add_box(w, "test_double", "hanging", 2, 2, 2, g_lo, g_hi, 1e5, 1000.0, &damping, 1, &b),
                   CL_OK);
  cl_region_def top;
  cl_region_def_default(&top, CL_REGION_SLAB);
  top.axis = 1;
  top.lo[0] = 0.1;
  cl_motion_def held;
  cl_motion_def_default(&held, CL_MOTION_FIXED);
  assert_int_equal(cl_world_constrain(w, b, &top, &held, &fix), CL_OK);
  int32_t count;
  assert_int_equal(cl_condition_node_count(w, fix, &count), CL_OK);
  assert_int_equal(count, 9);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_REACTION);
  pd.condition = fix;
  assert_int_equal(cl_world_add_probe(w, &pd, &probe), CL_OK);
  cl_probe_def_default(&pd, CL_PROBE_KINETIC_ENERGY);
  pd.body = b;
  assert_int_equal(cl_world_add_probe(w, &pd, &ke), CL_OK);
  assert_int_equal(cl_probe_size(w, probe, &count), CL_OK);
  assert_int_equal(count, 3);

  assert_int_equal(cl_world_step(w, 2500), CL_OK);
  double r[3], e;
  assert_int_equal(cl_probe_read(w, probe, r, 3), CL_OK);
  assert_int_equal(cl_probe_read(w, ke, &e, 1), CL_OK);
  double weight = 1.0 * 9.81; /* 0.1^3 m^3 of 1000 kg/m^3 */
  assert_true(fabs(r[1] - weight) <= 1e-6 * weight);
  assert_true(fabs(r[0]) <= 1e-6 * weight && fabs(r[2]) <= 1e-6 * weight);
  assert_true(e < 1e-12);
  assert_int_equal(cl_probe_read(w, probe, r, 2), CL_ERR_INVALID_ARGUMENT);
  cl_world_destroy(w);
}

/* Two material points on the faces of a bar, one face fixed and the other pulled at 0.1 m/s: the
 * distance is L + 0.1 t exactly. Interior points under an affine map A: |A (b - a)|. */
static void test_distance_probe(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  const double hi[3] = {0.2, 0.05, 0.05};
  cl_id b, c1, c2, p, q;
  assert_int_equal(cl_double_add_box(w, "test_double", "bar", 4, 1, 1, g_lo, hi, 1e5, 1000.0, NULL, 0, &b), CL_OK);
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = 0;
  r.hi[0] = 0.0;
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  assert_int_equal(cl_world_constrain(w, b, &r, &m, &c1), CL_OK);
  r.lo[0] = 0.2;
  r.hi[0] = INFINITY;
  cl_motion_def_default(&m, CL_MOTION_TRANSLATE);
  m.velocity[0] = 0.1;
  assert_int_equal(cl_world_constrain(w, b, &r, &m, &c2), CL_OK);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_DISTANCE);
  pd.body = b;
  pd.a[0] = 0.0, pd.a[1] = 0.02, pd.a[2] = 0.03;
  pd.b[0] = 0.2, pd.b[1] = 0.02, pd.b[2] = 0.03;
  assert_int_equal(cl_world_add_probe(w, &pd, &p), CL_OK);
  double d;
  assert_int_equal(cl_probe_read(w, p, &d, 1), CL_OK);
  assert_near(d, 0.2, 1e-14);
  assert_int_equal(cl_world_step(w, 50), CL_OK);
  assert_int_equal(cl_probe_read(w, p, &d, 1), CL_OK);
  assert_near(d, 0.2 + 0.1 * 0.05, 1e-13);

  /* interior points (barycentric in their tets) follow an affine map of the whole body */
  pd.a[0] = 0.033, pd.a[1] = 0.011, pd.a[2] = 0.041;
  pd.b[0] = 0.171, pd.b[1] = 0.037, pd.b[2] = 0.006;
  assert_int_equal(cl_world_add_probe(w, &pd, &q), CL_OK);
  const double A[9] = {1.2, 0.1, 0.0, -0.05, 0.9, 0.2, 0.0, 0.3, 1.1};
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < st->n; ++i)
    for (int k = 0; k < 3; ++k)
      st->x[3 * i + k] = 0.5 + A[3 * k] * st->X[3 * i] + A[3 * k + 1] * st->X[3 * i + 1] + A[3 * k + 2] * st->X[3 * i + 2];
  double e[3] = {pd.b[0] - pd.a[0], pd.b[1] - pd.a[1], pd.b[2] - pd.a[2]}, Ae[3];
  for (int k = 0; k < 3; ++k) Ae[k] = A[3 * k] * e[0] + A[3 * k + 1] * e[1] + A[3 * k + 2] * e[2];
  assert_int_equal(cl_probe_read(w, q, &d, 1), CL_OK);
  assert_near(d, sqrt(Ae[0] * Ae[0] + Ae[1] * Ae[1] + Ae[2] * Ae[2]), 1e-14);
  cl_world_destroy(w);
}

/* A body driven as a whole (every node held: a warning) by a rigid rotation keeps its volume and
 * stores no elastic energy; its nodes are exactly where the rotation puts them. */
static void test_volume_of_rigid_motion(void **state) {
  (void)state;
  cl_world *w = make_world(1.0 / 128, -9.81);
  cl_id b, c, vol, el;
  assert_int_equal(cl_double_add_box(w, "test_double", "spun", 2, 2, 2, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &b), CL_OK);
  cl_region_def all;
  cl_region_def_default(&all, CL_REGION_ALL);
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_ROTATE);
  m.axis[0] = 1.0, m.axis[1] = 1.0, m.axis[2] = 0.0;
  m.center[0] = 0.3;
  m.rate = 2.0;
  assert_int_equal(cl_world_constrain(w, b, &all, &m, &c), CL_WARN_ALL_FIXED);
  assert_non_null(strstr(cl_last_error(), "all 27 nodes"));
  assert_int_not_equal(c, 0);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_VOLUME);
  pd.body = b;
  assert_int_equal(cl_world_add_probe(w, &pd, &vol), CL_OK);
  cl_probe_def_default(&pd, CL_PROBE_ELASTIC_ENERGY);
  pd.body = b;
  assert_int_equal(cl_world_add_probe(w, &pd, &el), CL_OK);
  double v0, v1, e;
  assert_int_equal(cl_probe_read(w, vol, &v0, 1), CL_OK);
  assert_near(v0, 1e-3, 1e-17);
  assert_int_equal(cl_world_step(w, 100), CL_OK);
  assert_int_equal(cl_probe_read(w, vol, &v1, 1), CL_OK);
  assert_int_equal(cl_probe_read(w, el, &e, 1), CL_OK);
  assert_true(fabs(v1 - v0) <= 1e-12 * v0);
  assert_true(e <= 1e-20);
  cl_body_state *st = cl_world_body_state(w, b);
  double t = 100.0 / 128, p[3], r[3];
  for (int32_t i = 0; i < st->n; ++i) {
    for (int k = 0; k < 3; ++k) p[k] = st->X[3 * i + k] - m.center[k];
    rotate(m.axis, m.rate * t, p, r);
    for (int k = 0; k < 3; ++k) assert_near(st->x[3 * i + k], m.center[k] + r[k], 1e-14);
  }
  cl_world_destroy(w);
}

/* A mesh of two disjoint boxes is two pieces. */
static void test_pieces_of_two_boxes(void **state) {
  (void)state;
  cl_mesh *a, *c;
  const double lo2[3] = {0.3, 0.0, 0.0}, hi2[3] = {0.4, 0.1, 0.1};
  assert_int_equal(cl_tet_grid(2, 1, 1, g_lo, g_hi, &a), CL_OK);
  assert_int_equal(cl_tet_grid(1, 1, 2, lo2, hi2, &c), CL_OK);
  int32_t np = a->npoints + c->npoints, nc = a->ncells + c->ncells;
  double *xyz = malloc(sizeof(double) * 3 * (size_t)np);
  int32_t *cells = malloc(sizeof(int32_t) * 4 * (size_t)nc);
  memcpy(xyz, a->x, sizeof(double) * 3 * (size_t)a->npoints);
  memcpy(xyz + 3 * a->npoints, c->x, sizeof(double) * 3 * (size_t)c->npoints);
  memcpy(cells, a->cells, sizeof(int32_t) * 4 * (size_t)a->ncells);
  for (int32_t j = 0; j < 4 * c->ncells; ++j) cells[4 * a->ncells + j] = c->cells[j] + a->npoints;
  cl_mesh *both;
  assert_int_equal(cl_mesh_from_arrays(CL_MESH_TETS, xyz, np, cells, nc, &both), CL_OK);
  free(xyz);
  free(cells);

  cl_world *w = make_world(1e-3, -9.81);
  cl_body_def def;
  cl_body_def_default(&def);
  def.solver = "test_double";
  cl_id b, p;
  assert_int_equal(cl_world_add_body(w, &def, both, &b), CL_OK);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_PIECES);
  pd.body = b;
  assert_int_equal(cl_world_add_probe(w, &pd, &p), CL_OK);
  double pieces;
  assert_int_equal(cl_world_step(w, 3), CL_OK);
  assert_int_equal(cl_probe_read(w, p, &pieces, 1), CL_OK);
  assert_near(pieces, 2.0, 0.0);
  cl_body_info info;
  assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
  assert_int_equal(info.pieces, 2);
  assert_int_equal(info.surface_triangles, 2 * 10 + 2 * 10); /* 2x1x1 and 1x1x2 boxes: 10 squares each */
  cl_world_destroy(w);
  cl_mesh_destroy(a);
  cl_mesh_destroy(c);
  cl_mesh_destroy(both);
}

static void test_phase_times_and_stats(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  cl_id b, p;
  assert_int_equal(cl_double_add_box(w, "test_double", NULL, 2, 2, 2, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &b), CL_OK);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_PHASE_TIME);
  assert_int_equal(cl_world_add_probe(w, &pd, &p), CL_OK);
  int32_t n;
  assert_int_equal(cl_probe_size(w, p, &n), CL_OK);
  assert_int_equal(n, CL_PHASE_COUNT);
  assert_int_equal(cl_world_step(w, 10), CL_OK);
  double ms[CL_PHASE_COUNT];
  assert_int_equal(cl_probe_read(w, p, ms, CL_PHASE_COUNT), CL_OK);
  for (int k = 0; k < CL_PHASE_COUNT; ++k) assert_true(ms[k] >= 0.0);
  assert_true(ms[CL_PHASE_SOLVE] > 0.0);
  cl_world_stats stats;
  assert_int_equal(cl_world_get_stats(w, &stats), CL_OK);
  assert_int_equal(stats.steps, 10);
  assert_near(stats.time, 10e-3, 1e-15);
  assert_true(stats.step_ms >= ms[CL_PHASE_SOLVE]);
  assert_int_equal(stats.fracture_events, 0);
  cl_world_destroy(w);
}

/* ---- conditions ----------------------------------------------------------------------------- */

/* Twisting one end of a bar about its axis: the region has turned by exactly rate * t. */
static void test_twist_is_exact(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  const double hi[3] = {0.3, 0.05, 0.05};
  cl_id b, fix, drive;
  assert_int_equal(cl_double_add_box(w, "test_double", "bar", 6, 1, 1, g_lo, hi, 1e5, 1000.0, NULL, 0, &b), CL_OK);
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = 0;
  r.hi[0] = 0.0;
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  assert_int_equal(cl_world_constrain(w, b, &r, &m, &fix), CL_OK);
  cl_region_def_default(&r, CL_REGION_BOX);
  r.lo[0] = 0.25;
  cl_motion_def_default(&m, CL_MOTION_TWIST);
  m.rate = PI;
  m.start = 0.01;
  assert_int_equal(cl_world_constrain(w, b, &r, &m, &drive), CL_OK);
  int32_t count;
  assert_int_equal(cl_condition_node_count(w, drive, &count), CL_OK);
  assert_int_equal(count, 8); /* the last two node layers of a 6 x 1 x 1 grid */
  assert_int_equal(cl_world_step(w, 60), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  const double centroid[3] = {0.275, 0.025, 0.025}, axis[3] = {1, 0, 0};
  double t = 0.06 - 0.01;
  int checked = 0;
  for (int32_t i = 0; i < st->n; ++i) {
    if (st->X[3 * i] < 0.25 - 1e-12) continue;
    double p[3], q[3];
    for (int k = 0; k < 3; ++k) p[k] = st->X[3 * i + k] - centroid[k];
    rotate(axis, PI * t, p, q);
    for (int k = 0; k < 3; ++k) assert_near(st->x[3 * i + k], centroid[k] + q[k], 1e-14);
    /* velocity of the rigid rotation omega x r */
    assert_near(st->v[3 * i + 1], -PI * q[2], 1e-12);
    ++checked;
  }
  assert_int_equal(checked, 8);
  cl_world_destroy(w);
}

/* A held region lets go at `release`: still in place after that many steps, falling one step later. */
static void test_release(void **state) {
  (void)state;
  const double dt = 1.0 / 256;
  cl_world *w = make_world(dt, -9.81);
  cl_id b, c;
  assert_int_equal(cl_double_add_box(w, "test_double", "dropped", 1, 1, 1, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &b), CL_OK);
  cl_region_def all;
  cl_region_def_default(&all, CL_REGION_ALL);
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  m.release = 5 * dt;
  assert_int_equal(cl_world_constrain(w, b, &all, &m, &c), CL_WARN_ALL_FIXED);
  assert_int_equal(cl_world_step(w, 5), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < 3 * st->n; ++i) assert_near(st->x[i], st->X[i], 0.0);
  assert_int_equal(cl_world_step(w, 1), CL_OK);
  st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < st->n; ++i) {
    /* one free step of symplectic Euler under gravity: y drops by g dt^2 */
    assert_near(st->x[3 * i + 1], st->X[3 * i + 1] - 9.81 * dt * dt, 1e-15);
  }
  cl_world_destroy(w);
}

/* A total force spread over the region by mass: the momentum of a free body grows by F t. */
static void test_apply_force(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  cl_id b, c;
  assert_int_equal(cl_double_add_box(w, "test_double", "pushed", 2, 2, 2, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &b), CL_OK);
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SPHERE);
  r.center[0] = 0.0;
  r.radius = 0.06; /* the nodes at x = 0 within 0.06 of the origin */
  const double f[3] = {2.0, 0.0, -1.0};
  assert_int_equal(cl_world_apply_force(w, b, &r, f, &c), CL_OK);
  int32_t count;
  assert_int_equal(cl_condition_node_count(w, c, &count), CL_OK);
  assert_int_equal(count, 4);
  assert_int_equal(cl_world_step(w, 100), CL_OK);
  double p[3], l[3];
  cl_double_momentum(cl_world_body_state(w, b), p, l);
  assert_near(p[0], 2.0 * 0.1, 1e-12);
  assert_near(p[1], 0.0, 1e-12);
  assert_near(p[2], -1.0 * 0.1, 1e-12);
  /* removing the condition stops the push */
  assert_int_equal(cl_world_remove_condition(w, c), CL_OK);
  assert_int_equal(cl_world_step(w, 10), CL_OK);
  double p2[3];
  cl_double_momentum(cl_world_body_state(w, b), p2, l);
  assert_near(p2[0], p[0], 1e-12);
  assert_int_equal(cl_condition_node_count(w, c, &count), CL_ERR_STALE_ID);
  cl_world_destroy(w);
}

/* ---- colliders ------------------------------------------------------------------------------ */

static void test_colliders(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  const double lo[3] = {0.0, 0.02, 0.0}, hi[3] = {0.1, 0.12, 0.1};
  cl_param damping = {"damping", 5.0, NULL};
  cl_id b, ground, ball;
  assert_int_equal(cl_double_add_box(w, "test_double", "dropped", 2, 2, 2, lo, hi, 1e5, 1000.0, &damping, 1, &b), CL_OK);
  cl_collider_def cd;
  cl_collider_def_default(&cd, CL_COLLIDER_PLANE);
  cd.normal[1] = 2.0; /* normalised internally */
  assert_int_equal(cl_world_add_collider(w, &cd, &ground), CL_OK);
  cl_collider_def_default(&cd, CL_COLLIDER_SPHERE);
  cd.center[0] = 5.0;
  cd.velocity[2] = 1.5;
  cd.radius = 0.1;
  assert_int_equal(cl_world_add_collider(w, &cd, &ball), CL_OK);
  assert_int_equal(cl_world_step(w, 400), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  double ymin = INFINITY;
  for (int32_t i = 0; i < st->n; ++i) ymin = fmin(ymin, st->x[3 * i + 1]);
  assert_true(ymin >= -1e-12);  /* resting on the ground, not through it */
  assert_true(ymin <= 1e-3);    /* and it did fall onto it */
  double c[3];
  assert_int_equal(cl_collider_get_center(w, ball, c), CL_OK);
  assert_near(c[0], 5.0, 1e-15);
  assert_near(c[2], 1.5 * 0.4, 1e-12);
  assert_int_equal(cl_world_remove_collider(w, ground), CL_OK);
  assert_int_equal(cl_collider_get_center(w, ground, c), CL_ERR_STALE_ID);
  assert_int_equal(cl_world_step(w, 100), CL_OK);
  st = cl_world_body_state(w, b);
  assert_true(st->x[1] < -1e-3); /* the ground is gone: it falls */
  cl_world_destroy(w);
}

/* The projection itself: restitution, friction, a moving box. */
static void test_collider_projection(void **state) {
  (void)state;
  cl_collider_shape s;
  memset(&s, 0, sizeof s);
  s.kind = CL_COLLIDER_PLANE;
  s.normal[1] = 1.0;
  s.restitution = 0.5;
  s.friction = 0.0;
  cl_collider_view view = {1, &s};
  double x[3] = {0.3, -0.01, 0.0}, v[3] = {1.0, -2.0, 0.0};
  assert_int_equal(cl_collider_project(&view, x, v), 1);
  assert_near(x[1], 0.0, 0.0);
  assert_near(v[1], 1.0, 1e-15); /* -e * vn */
  assert_near(v[0], 1.0, 1e-15); /* frictionless */
  s.restitution = 0.0;
  s.friction = 0.25;
  x[1] = -0.01, v[0] = 1.0, v[1] = -2.0;
  cl_collider_project(&view, x, v);
  assert_near(v[0], 1.0 - 0.25 * 2.0, 1e-15); /* Coulomb: loses mu * dvn */
  assert_near(v[1], 0.0, 1e-15);
  s.friction = 10.0;
  x[1] = -0.01, v[0] = 1.0, v[1] = -2.0;
  cl_collider_project(&view, x, v);
  assert_near(v[0], 0.0, 0.0); /* sticks */

  /* a box turned 90 degrees about z, moving up at 1 m/s: a point inside leaves through the
   * nearest face and takes the box's velocity in the normal direction */
  memset(&s, 0, sizeof s);
  s.kind = CL_COLLIDER_BOX;
  s.half[0] = 1.0, s.half[1] = 0.2, s.half[2] = 1.0;
  const double R[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}; /* local x -> world y */
  memcpy(s.R, R, sizeof R);
  s.velocity[1] = 1.0;
  double y[3] = {0.15, 0.5, 0.0}, u[3] = {0.0, 0.0, 0.0};
  assert_int_equal(cl_collider_project(&view, y, u), 1);
  assert_near(y[0], 0.2, 1e-15); /* world x is the box's short local y axis */
  assert_near(y[1], 0.5, 1e-15);
  double outside[3] = {0.25, 0.0, 0.0}, u2[3] = {0, 0, 0};
  assert_int_equal(cl_collider_project(&view, outside, u2), 0);
  s.kind = CL_COLLIDER_SPHERE;
  s.radius = 1.0;
  double z[3] = {0.0, 0.0, 0.5}, vz[3] = {0.0, 0.0, -1.0};
  assert_int_equal(cl_collider_project(&view, z, vz), 1);
  assert_near(z[2], 1.0, 1e-15);
}

/* The momentum kick (cl_collider_def.momentum_scale, the authors' projectiles of Jones et al. 2016):
 * a touched point goes to the surface and gains scale x the collider's velocity, whichever way it
 * moves and every time it touches; a point outside is left alone; the definition is checked. */
static void test_collider_momentum_kick(void **state) {
  (void)state;
  cl_collider_shape s;
  memset(&s, 0, sizeof s);
  s.kind = CL_COLLIDER_SPHERE;
  s.radius = 0.1;
  s.velocity[2] = 0.3;
  s.momentum_scale = 10.0;
  s.restitution = 1.0, s.friction = 5.0; /* ignored by the kick */
  cl_collider_view view = {1, &s};
  double x[3] = {0.0, 0.0, 0.05}, v[3] = {0.5, 0.0, 4.0}; /* separating fast: still kicked */
  assert_int_equal(cl_collider_project(&view, x, v), 1);
  assert_near(x[2], 0.1, 1e-15);
  assert_near(v[0], 0.5, 0.0);
  assert_near(v[2], 4.0 + 3.0, 1e-15);
  x[2] = 0.09;
  assert_int_equal(cl_collider_project(&view, x, v), 1); /* again: another kick */
  assert_near(v[2], 10.0, 1e-14);
  double out[3] = {0.0, 0.2, 0.0}, vo[3] = {0.0, 0.0, 0.0};
  assert_int_equal(cl_collider_project(&view, out, vo), 0);
  assert_near(vo[2], 0.0, 0.0);

  /* in a world: a free particle of a resting body hit by the sphere flies at 10 x its speed */
  cl_world *w = make_world(1.0 / 60.0, 0.0);
  const double lo[3] = {-0.05, -0.05, -0.05}, hi[3] = {0.05, 0.05, 0.05};
  cl_param damping = {"damping", 0.0, NULL};
  cl_id b, ball;
  assert_int_equal(cl_double_add_box(w, "test_double", "hit", 1, 1, 1, lo, hi, 1e5, 1000.0, &damping, 1, &b), CL_OK);
  cl_collider_def cd;
  cl_collider_def_default(&cd, CL_COLLIDER_SPHERE);
  cd.radius = 0.5;
  cd.center[2] = -0.5;
  cd.velocity[2] = 0.3;
  cd.momentum_scale = -1.0;
  assert_int_equal(cl_world_add_collider(w, &cd, &ball), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "momentum_scale = -1"));
  cd.momentum_scale = 2.0;
  cd.dynamic = 1, cd.mass = 1.0;
  assert_int_equal(cl_world_add_collider(w, &cd, &ball), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "kinematic"));
  cd.dynamic = 0, cd.mass = 0.0;
  cd.momentum_scale = 10.0;
  assert_int_equal(cl_world_add_collider(w, &cd, &ball), CL_OK);
  assert_int_equal(cl_world_step(w, 1), CL_OK);
  const cl_body_state *st = cl_world_body_state(w, b);
  double vmax = 0.0;
  for (int32_t i = 0; i < st->n; ++i) vmax = fmax(vmax, st->v[3 * i + 2]);
  assert_true(vmax >= 3.0 - 1e-9); /* at least one kick of 10 x 0.3 m/s */
  cl_world_destroy(w);
}

/* ---- ids ------------------------------------------------------------------------------------ */

static void test_stale_ids(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81), *other = make_world(1e-3, -9.81);
  cl_id a, b, c, p, foreign;
  assert_int_equal(cl_double_add_box(w, "test_double", "a", 1, 1, 1, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &a), CL_OK);
  assert_int_equal(cl_double_add_box(other, "test_double", "f", 1, 1, 1, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &foreign),
                   CL_OK);
  cl_body_info info;
  /* an id of another world */
  assert_int_equal(cl_body_get_info(w, foreign, &info), CL_ERR_STALE_ID);
  assert_non_null(strstr(cl_last_error(), "another world"));
  /* a condition id where a body id belongs */
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_ALL);
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  assert_int_equal(cl_world_constrain(w, a, &r, &m, &c), CL_WARN_ALL_FIXED);
  assert_int_equal(cl_body_get_info(w, c, &info), CL_ERR_STALE_ID);
  assert_non_null(strstr(cl_last_error(), "not a body id"));
  /* 0 means none */
  assert_int_equal(cl_body_get_info(w, 0, &info), CL_ERR_INVALID_ARGUMENT);
  /* removing a body makes its id, its conditions and its probes stale; the slot's reuse gets a new
   * generation, so the old id stays stale */
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_VOLUME);
  pd.body = a;
  assert_int_equal(cl_world_add_probe(w, &pd, &p), CL_OK);
  assert_int_equal(cl_world_remove_body(w, a), CL_OK);
  assert_int_equal(cl_body_get_info(w, a, &info), CL_ERR_STALE_ID);
  assert_non_null(strstr(cl_last_error(), "stale"));
  assert_int_equal(cl_world_remove_body(w, a), CL_ERR_STALE_ID);
  int32_t n;
  assert_int_equal(cl_condition_node_count(w, c, &n), CL_ERR_STALE_ID);
  double v;
  assert_int_equal(cl_probe_read(w, p, &v, 1), CL_ERR_STALE_ID);
  assert_int_equal(cl_double_add_box(w, "test_double", "b", 1, 1, 1, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &b), CL_OK);
  assert_int_not_equal(a, b);
  /* removing a condition makes the reaction probes on it stale */
  cl_id held, reaction;
  assert_int_equal(cl_world_constrain(w, b, &r, &m, &held), CL_WARN_ALL_FIXED);
  cl_probe_def_default(&pd, CL_PROBE_REACTION);
  pd.condition = held;
  assert_int_equal(cl_world_add_probe(w, &pd, &reaction), CL_OK);
  assert_int_equal(cl_world_remove_condition(w, held), CL_OK);
  assert_int_equal(cl_probe_read(w, reaction, &v, 1), CL_ERR_STALE_ID);
  assert_int_equal(cl_world_remove_condition(w, held), CL_ERR_STALE_ID);
  assert_int_equal(cl_body_get_info(w, a, &info), CL_ERR_STALE_ID);
  assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
  assert_int_equal(cl_world_step(w, 2), CL_OK);
  cl_world_destroy(w);
  cl_world_destroy(other);
}

/* ---- NaN stop ------------------------------------------------------------------------------- */

/* A solver that free-falls its points and writes NaN into one velocity at a chosen step. */
typedef struct nan_solver {
  int32_t steps, nan_step, warn_step;
} nan_solver;

static const cl_param_info k_nan_params[] = {
    {.name = "nan_step", .unit = "1", .help = "step that produces NaN", .value = 3, .min = 1, .max = 1e9,
     .kind = CL_PARAM_INTEGER},
    {.name = "warn_step", .unit = "1", .help = "step that warns (not converged)", .value = 0, .min = 0, .max = 1e9,
     .kind = CL_PARAM_INTEGER}};

static cl_status nan_create(void **out) {
  *out = calloc(1, sizeof(nan_solver));
  return *out ? CL_OK : CL_ERR_OUT_OF_MEMORY;
}
/* cl_collider_view_box: no point outside the box penetrates a collider (sampled: points just
 * outside each face of a turned box and of a sphere are not projected, points just inside are), the
 * box is tight (within 1e-8 of the shapes' extents), and a plane makes the view unbounded. */
static void test_collider_view_box(void **state) {
  (void)state;
  cl_collider_shape sh[2];
  memset(sh, 0, sizeof sh);
  sh[0].kind = CL_COLLIDER_SPHERE;
  sh[0].radius = 0.5;
  sh[0].center[0] = 2.0, sh[0].center[1] = -1.0, sh[0].center[2] = 0.25;
  sh[1].kind = CL_COLLIDER_BOX;
  const double c = cos(0.3), sn = sin(0.3); /* turned 0.3 rad about z */
  const double R[9] = {c, -sn, 0.0, sn, c, 0.0, 0.0, 0.0, 1.0};
  memcpy(sh[1].R, R, sizeof R);
  sh[1].half[0] = 0.4, sh[1].half[1] = 0.1, sh[1].half[2] = 0.2;
  cl_collider_view view = {2, sh};
  double lo[3], hi[3];
  assert_int_equal(cl_collider_view_box(&view, lo, hi), 1);
  const double ex = c * 0.4 + sn * 0.1, ey = sn * 0.4 + c * 0.1; /* the turned box's half widths */
  assert_near(lo[0], -ex, 1e-8);
  assert_near(hi[0], 2.5, 1e-8);
  assert_near(lo[1], -1.5, 1e-8);
  assert_near(hi[1], ey, 1e-8);
  assert_near(lo[2], -0.25, 1e-8);
  assert_near(hi[2], 0.75, 1e-8);
  /* the box's corner that reaches furthest along +y is inside the shape and the view box */
  double corner[3] = {0.4 * c - 0.1 * sn, 0.4 * sn + 0.1 * c, 0.0}, v[3] = {0, 0, 0};
  double inside[3] = {corner[0] * 0.999, corner[1] * 0.999, 0.0};
  assert_true(inside[1] <= hi[1]);
  assert_int_equal(cl_collider_project(&view, inside, v), 1);
  /* points outside the view box on each side: no collider takes them */
  for (int k = 0; k < 3; ++k)
    for (int side = 0; side < 2; ++side) {
      double p[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
      p[k] = side ? hi[k] + 1e-6 : lo[k] - 1e-6;
      double u[3] = {0, 0, 0};
      assert_int_equal(cl_collider_project(&view, p, u), 0);
    }
  sh[1].kind = CL_COLLIDER_PLANE; /* unbounded */
  sh[1].normal[1] = 1.0;
  assert_int_equal(cl_collider_view_box(&view, lo, hi), 0);
  cl_collider_view none = {0, sh};
  assert_int_equal(cl_collider_view_box(&none, lo, hi), 0);
}

/* cl_body_state_finite: every position and velocity finite, or the first bad node and which value,
 * whichever lane of its sums and wherever in the arrays (also in the tail after the pairs). */
static void test_state_finite(void **state) {
  (void)state;
  for (int32_t n = 1; n <= 7; ++n) {
    for (int32_t at = 0; at < 3 * n; ++at) {
      for (int which = 0; which < 4; ++which) {
        cl_body_state st;
        memset(&st, 0, sizeof st);
        assert_int_equal(cl_body_state_resize(&st, n), CL_OK);
        for (int32_t k = 0; k < 3 * n; ++k) st.x[k] = 0.5 * k - 1.0, st.v[k] = -0.25 * k;
        int32_t bad = -1;
        const char *what = NULL;
        assert_true(cl_body_state_finite(&st, &bad, &what));
        const double poison = which % 2 ? INFINITY : NAN;
        if (which < 2) st.x[at] = poison;
        else st.v[at] = which == 3 ? -INFINITY : poison;
        assert_false(cl_body_state_finite(&st, &bad, &what));
        assert_int_equal(bad, at / 3);
        assert_string_equal(what, which < 2 ? "position" : "velocity");
        cl_body_state_free(&st);
      }
    }
  }
}

static void nan_destroy(void *p) { free(p); }
static cl_status nan_bind(void *p, const cl_bind_input *in, cl_body_state *s) {
  ((nan_solver *)p)->nan_step = (int32_t)in->params[0];
  ((nan_solver *)p)->warn_step = (int32_t)in->params[1];
  CL_TRY(cl_body_state_resize(s, in->mesh->npoints));
  memcpy(s->x, in->mesh->x, sizeof(double) * 3 * (size_t)s->n);
  memcpy(s->X, in->mesh->x, sizeof(double) * 3 * (size_t)s->n);
  for (int32_t i = 0; i < s->n; ++i) s->m[i] = 1.0;
  return CL_OK;
}
static cl_status nan_step(void *p, cl_body_state *s, const cl_step_input *in, cl_step_report *rep) {
  nan_solver *ns = p;
  (void)rep;
  for (int32_t i = 0; i < s->n; ++i)
    for (int k = 0; k < 3; ++k) {
      s->v[3 * i + k] += in->dt * in->gravity[k];
      s->x[3 * i + k] += in->dt * s->v[3 * i + k];
    }
  if (++ns->steps == ns->nan_step) s->v[3 * 2 + 1] = NAN;
  if (ns->steps == ns->warn_step) return cl_fail(CL_WARN_NOT_CONVERGED, "made-up iteration limit reached");
  return CL_OK;
}
static int32_t nan_units(const void *p) {
  (void)p;
  return 0;
}
static cl_status nan_measure(void *p, const cl_body_state *s, cl_unit_fields *out) {
  (void)p, (void)s, (void)out;
  return CL_OK;
}
static cl_status nan_energy(void *p, const cl_body_state *s, double *e) {
  (void)p, (void)s;
  *e = 0.0;
  return CL_OK;
}
static const cl_solver_ops k_nan_ops = {.name = "test_nan",
                                        .help = "produces NaN on request",
                                        .params = k_nan_params,
                                        .param_count = 2,
                                        .caps = {.units = CL_UNITS_TETS},
                                        .create = nan_create,
                                        .destroy = nan_destroy,
                                        .bind = nan_bind,
                                        .step = nan_step,
                                        .unit_count = nan_units,
                                        .measure = nan_measure,
                                        .elastic_energy = nan_energy};

static void test_nan_stops_the_world(void **state) {
  (void)state;
  assert_int_equal(cl_solver_register(&k_nan_ops), CL_OK);
  cl_world *w = make_world(1e-3, -9.81);
  cl_mesh *mesh;
  assert_int_equal(cl_tet_grid(1, 1, 1, g_lo, g_hi, &mesh), CL_OK);
  cl_body_def def;
  cl_body_def_default(&def);
  def.name = "blob";
  def.solver = "test_nan";
  cl_param p = {"nan_step", 4, NULL};
  def.params = &p;
  def.param_count = 1;
  cl_id b, other;
  assert_int_equal(cl_world_add_body(w, &def, mesh, &b), CL_OK);
  /* the other body is healthy and comes first */
  assert_int_equal(cl_double_add_box(w, "test_double", "fine", 1, 1, 1, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &other),
                   CL_OK);
  cl_mesh_destroy(mesh);
  assert_int_equal(cl_world_step(w, 10), CL_ERR_NUMERICAL);
  const char *msg = cl_last_error();
  assert_non_null(strstr(msg, "body 'blob'"));
  assert_non_null(strstr(msg, "step 4"));
  assert_non_null(strstr(msg, "velocity of node 2"));
  cl_world_stats stats;
  assert_int_equal(cl_world_get_stats(w, &stats), CL_OK);
  assert_int_equal(stats.steps, 3);
  assert_int_equal(cl_world_step(w, 1), CL_ERR_STATE);
  assert_non_null(strstr(cl_last_error(), "body 'blob'"));
  /* reading still works on a stopped world */
  cl_body_info info;
  assert_int_equal(cl_body_get_info(w, other, &info), CL_OK);
  cl_world_destroy(w);
}

/* A warning from a solver step is returned, names body and step, and the world goes on. */
static void test_warning_passes_through(void **state) {
  (void)state;
  assert_int_equal(cl_solver_register(&k_nan_ops), CL_OK);
  cl_world *w = make_world(1e-3, -9.81);
  cl_mesh *mesh;
  assert_int_equal(cl_tet_grid(1, 1, 1, g_lo, g_hi, &mesh), CL_OK);
  cl_body_def def;
  cl_body_def_default(&def);
  def.name = "slow";
  def.solver = "test_nan";
  cl_param p[2] = {{"nan_step", 1e9, NULL}, {"warn_step", 2, NULL}};
  def.params = p;
  def.param_count = 2;
  cl_id b;
  assert_int_equal(cl_world_add_body(w, &def, mesh, &b), CL_OK);
  cl_mesh_destroy(mesh);
  assert_int_equal(cl_world_step(w, 5), CL_WARN_NOT_CONVERGED);
  assert_non_null(strstr(cl_last_error(), "body 'slow'"));
  assert_non_null(strstr(cl_last_error(), "step 2"));
  assert_non_null(strstr(cl_last_error(), "made-up iteration limit"));
  cl_world_stats stats;
  assert_int_equal(cl_world_get_stats(w, &stats), CL_OK);
  assert_int_equal(stats.steps, 5);
  assert_int_equal(cl_world_step(w, 1), CL_OK);
  cl_world_destroy(w);
}

/* Substeps: the solver runs `substeps` times per step with dt / substeps; constraint targets and
 * reactions (averaged over the substeps) stay right. */
static void test_substeps(void **state) {
  (void)state;
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = 4e-3;
  def.substeps = 4;
  cl_world *w;
  assert_int_equal(cl_world_create(&def, &w), CL_OK);
  cl_param damping = {"damping", 60.0, NULL};
  cl_id b, fix, drive, probe;
  const double hi[3] = {0.1, 0.1, 0.2};
  assert_int_equal(cl_double_add_box(w, "test_double", "sub", 2, 2, 4, g_lo, hi, 1e5, 1000.0, &damping, 1, &b), CL_OK);
  cl_region_def top; /* half of the top face */
  cl_region_def_default(&top, CL_REGION_BOX);
  top.lo[1] = 0.1;
  top.hi[2] = 0.1;
  cl_motion_def held;
  cl_motion_def_default(&held, CL_MOTION_FIXED);
  assert_int_equal(cl_world_constrain(w, b, &top, &held, &fix), CL_OK);
  cl_region_def end;
  cl_region_def_default(&end, CL_REGION_SLAB);
  end.axis = 2;
  end.lo[0] = 0.2;
  cl_motion_def twist;
  cl_motion_def_default(&twist, CL_MOTION_TWIST);
  twist.axis[0] = 0.0, twist.axis[2] = 1.0;
  twist.rate = 0.5;
  twist.duration = 0.2;
  assert_int_equal(cl_world_constrain(w, b, &end, &twist, &drive), CL_OK);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_REACTION);
  pd.condition = fix;
  assert_int_equal(cl_world_add_probe(w, &pd, &probe), CL_OK);
  assert_int_equal(cl_world_step(w, 750), CL_OK);
  cl_world_stats stats;
  assert_int_equal(cl_world_get_stats(w, &stats), CL_OK);
  assert_near(stats.time, 3.0, 1e-12);
  /* the twisted end stopped after 0.2 s, at 0.1 rad */
  cl_body_state *st = cl_world_body_state(w, b);
  const double axis[3] = {0, 0, 1}, centroid[3] = {0.05, 0.05, 0.2};
  for (int32_t i = 0; i < st->n; ++i) {
    if (st->X[3 * i + 2] < 0.2 - 1e-12) continue;
    double p[3], q[3];
    for (int k = 0; k < 3; ++k) p[k] = st->X[3 * i + k] - centroid[k];
    rotate(axis, 0.1, p, q);
    for (int k = 0; k < 3; ++k) assert_near(st->x[3 * i + k], centroid[k] + q[k], 1e-14);
    for (int k = 0; k < 3; ++k) assert_near(st->v[3 * i + k], 0.0, 0.0);
  }
  /* the two held regions share the weight; vertically they carry all of it */
  double r1[3], r2[3];
  assert_int_equal(cl_probe_read(w, probe, r1, 3), CL_OK);
  pd.condition = drive;
  assert_int_equal(cl_world_add_probe(w, &pd, &probe), CL_OK);
  assert_int_equal(cl_probe_read(w, probe, r2, 3), CL_OK);
  double weight = 2.0 * 9.81;
  assert_true(fabs(r1[1] + r2[1] - weight) <= 1e-6 * weight);
  assert_true(r1[1] > 0.1 * weight && r2[1] > 0.1 * weight);
  cl_world_destroy(w);
}

/* ---- criteria and fracture ------------------------------------------------------------------ */

static void test_criterion_plumbing(void **state) {
  (void)state;
  cl_double_recorder_reset();
  cl_world *w = make_world(1e-3, 0.0);
  cl_mesh *mesh;
  assert_int_equal(cl_tet_grid(2, 2, 2, g_lo, g_hi, &mesh), CL_OK);
  cl_body_def def;
  cl_body_def_default(&def);
  def.name = "watched";
  def.solver = "test_double";
  def.criterion = "test_recorder";
  cl_id b;
  assert_int_equal(cl_world_add_body(w, &def, mesh, &b), CL_OK);
  cl_double_record *rec = cl_double_recorder_log();
  assert_int_equal(rec->binds, 1);
  assert_string_equal(rec->solver, "test_double");
  assert_near(rec->raise_unit, -1.0, 0.0);
  assert_int_equal(cl_world_step(w, 3), CL_OK);
  assert_int_equal(rec->calls, 3);
  assert_int_equal(rec->units, 48);
  assert_int_equal(rec->nodes, 27);
  assert_near(rec->dt, 1e-3, 0.0);
  for (int k = 0; k < 9; ++k) assert_near(rec->F0[k], k % 4 == 0 ? 1.0 : 0.0, 1e-14);

  /* raising an event on tet 0 detaches it (the double replicates its shared corners): more nodes,
   * two pieces, the fixed region follows its replicated nodes, stepping goes on */
  cl_param raise = {"raise_unit", 0, NULL};
  def.criterion_params = &raise;
  def.criterion_param_count = 1;
  def.name = "broken";
  cl_id c, fix, pieces;
  assert_int_equal(cl_world_add_body(w, &def, mesh, &c), CL_OK);
  assert_near(rec->raise_unit, 0.0, 0.0);
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_INDICES);
  cl_body_state *st = cl_world_body_state(w, c);
  r.indices = st->cells; /* the corners of tet 0 */
  r.count = 4;
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  assert_int_equal(cl_world_constrain(w, c, &r, &m, &fix), CL_OK);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_PIECES);
  pd.body = c;
  assert_int_equal(cl_world_add_probe(w, &pd, &pieces), CL_OK);
  double n;
  assert_int_equal(cl_probe_read(w, pieces, &n, 1), CL_OK);
  assert_near(n, 1.0, 0.0);
  int32_t held0;
  assert_int_equal(cl_condition_node_count(w, fix, &held0), CL_OK);
  assert_int_equal(cl_world_step(w, 1), CL_OK);
  cl_world_stats stats;
  assert_int_equal(cl_world_get_stats(w, &stats), CL_OK);
  assert_int_equal(stats.fracture_events, 1);
  cl_body_info info;
  assert_int_equal(cl_body_get_info(w, c, &info), CL_OK);
  assert_true(info.nodes > 27);
  assert_int_equal(info.pieces, 2);
  /* tet 0 has one face on the cube's surface; its three inner faces are now surface twice, on the
   * free tet and on the hole it left */
  assert_int_equal(info.surface_triangles, 48 + 2 * 3);
  assert_near(info.mass, 1.0, 1e-12);           /* mass is redistributed, not lost */
  assert_int_equal(cl_probe_read(w, pieces, &n, 1), CL_OK);
  assert_near(n, 2.0, 0.0);
  int32_t held1;
  assert_int_equal(cl_condition_node_count(w, fix, &held1), CL_OK);
  assert_int_equal(held1, held0 + (info.nodes - 27));
  assert_int_equal(cl_world_step(w, 20), CL_OK);
  st = cl_world_body_state(w, c);
  for (int32_t i = 0; i < 3 * st->n; ++i) assert_true(isfinite(st->x[i]));
  /* the held nodes and their copies have not moved */
  for (int32_t i = 27; i < st->n; ++i)
    for (int k = 0; k < 3; ++k) assert_near(st->x[3 * i + k], st->X[3 * i + k], 0.0);
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

/* ---- output --------------------------------------------------------------------------------- */

static void test_body_write(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  cl_id b;
  assert_int_equal(cl_double_add_box(w, "test_double", "out", 1, 1, 1, g_lo, g_hi, 1e5, 1000.0, NULL, 0, &b), CL_OK);
  assert_int_equal(cl_world_step(w, 5), CL_OK);
  const char *vtu = CLEAVE_BINARY_DIR "/test_world_body.vtu";
  const char *obj = CLEAVE_BINARY_DIR "/test_world_body.obj";
  assert_int_equal(cl_body_write(w, b, vtu), CL_OK);
  assert_int_equal(cl_body_write(w, b, obj), CL_OK);
  char buf[1 << 16];
  FILE *f = fopen(vtu, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  assert_non_null(strstr(buf, "displacement"));
  assert_non_null(strstr(buf, "velocity"));
  assert_non_null(strstr(buf, "stress"));
  cl_mesh *back;
  assert_int_equal(cl_mesh_read(obj, &back), CL_OK);
  cl_mesh_info info;
  assert_int_equal(cl_mesh_get_info(back, &info), CL_OK);
  assert_int_equal(info.cells, 12);
  cl_mesh_destroy(back);
  remove(vtu);
  remove(obj);
  assert_true(cl_body_write(w, b, CLEAVE_BINARY_DIR "/no/such/dir/x.vtu") < 0);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_registry),
      cmocka_unit_test(test_body_info_and_fields),
      cmocka_unit_test(test_reaction_of_hanging_body),
      cmocka_unit_test(test_distance_probe),
      cmocka_unit_test(test_volume_of_rigid_motion),
      cmocka_unit_test(test_pieces_of_two_boxes),
      cmocka_unit_test(test_phase_times_and_stats),
      cmocka_unit_test(test_twist_is_exact),
      cmocka_unit_test(test_release),
      cmocka_unit_test(test_apply_force),
      cmocka_unit_test(test_colliders),
      cmocka_unit_test(test_collider_projection),
      cmocka_unit_test(test_collider_momentum_kick),
      cmocka_unit_test(test_stale_ids),
      cmocka_unit_test(test_nan_stops_the_world),
      cmocka_unit_test(test_warning_passes_through),
      cmocka_unit_test(test_substeps),
      cmocka_unit_test(test_criterion_plumbing),
      cmocka_unit_test(test_body_write),
      cmocka_unit_test(test_state_finite),
      cmocka_unit_test(test_collider_view_box),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
