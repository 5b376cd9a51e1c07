/* Bad input to the world API: every case returns the documented status with a message that names
 * the argument and what is allowed, and nothing crashes or leaks (ASan in CI). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "support/double_solver.h"

static const double g_lo[3] = {0.0, 0.0, 0.0};
static const double g_hi[3] = {0.1, 0.1, 0.1};

/* status == expected and the message contains `needle`. */
#define expect(call, status, needle) expect_((call), (status), (needle), #call, __FILE__, __LINE__)
static void expect_(cl_status got, cl_status want, const char *needle, const char *what, const char *file, int line) {
  const char *msg = cl_last_error();
  if (got != want || (needle && !strstr(msg, needle))) {
    print_error("%s returned %s (want %s), message \"%s\" (want it to contain \"%s\")\n", what, cl_status_name(got),
                cl_status_name(want), msg, needle ? needle : "");
    _fail(file, line);
  }
}

typedef struct fixture {
  cl_world *w;
  cl_mesh *mesh;
  cl_id body;
} fixture;

static int setup(void **state) {
  static fixture f;
  if (cl_double_register() != CL_OK) return -1;
  cl_world_def def;
  cl_world_def_default(&def);
  if (cl_world_create(&def, &f.w) != CL_OK) return -1;
  if (cl_tet_grid(2, 2, 2, g_lo, g_hi, &f.mesh) != CL_OK) return -1;
  if (cl_double_add_box(f.w, "test_double", "target", 2, 2, 2, g_lo, g_hi, 1e5, 1000, NULL, 0, &f.body) != CL_OK)
    return -1;
  *state = &f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  cl_world_destroy(f->w);
  cl_mesh_destroy(f->mesh);
  return 0;
}

static void test_world_def(void **state) {
  (void)state;
  cl_world *w = (cl_world *)0x1;
  cl_world_def def;
  memset(&def, 0, sizeof def);
  def.dt = 1e-3;
  def.substeps = 1;
  expect(cl_world_create(&def, &w), CL_ERR_INVALID_ARGUMENT, "cl_world_def not initialised: call cl_world_def_default");
  assert_null(w);
  expect(cl_world_create(NULL, &w), CL_ERR_INVALID_ARGUMENT, "def is NULL");
  cl_world_def_default(&def);
  expect(cl_world_create(&def, NULL), CL_ERR_INVALID_ARGUMENT, "out is NULL");
  def.dt = 0.0;
  expect(cl_world_create(&def, &w), CL_ERR_INVALID_ARGUMENT, "dt = 0");
  def.dt = NAN;
  expect(cl_world_create(&def, &w), CL_ERR_INVALID_ARGUMENT, "dt = nan");
  def.dt = INFINITY;
  expect(cl_world_create(&def, &w), CL_ERR_INVALID_ARGUMENT, "positive and finite");
  def.dt = -1e-3;
  expect(cl_world_create(&def, &w), CL_ERR_INVALID_ARGUMENT, "dt = -0.001");
  cl_world_def_default(&def);
  def.substeps = 0;
  expect(cl_world_create(&def, &w), CL_ERR_INVALID_ARGUMENT, "substeps = 0 must be >= 1");
  cl_world_def_default(&def);
  def.threads = -1;
  expect(cl_world_create(&def, &w), CL_ERR_INVALID_ARGUMENT, "threads = -1");
  cl_world_def_default(&def);
  def.gravity[2] = NAN;
  expect(cl_world_create(&def, &w), CL_ERR_INVALID_ARGUMENT, "gravity[2]");
  assert_null(w);
  cl_world_destroy(NULL); /* allowed, does nothing */
}

static void test_world_calls(void **state) {
  fixture *f = *state;
  const double bad_g[3] = {0.0, INFINITY, 0.0};
  expect(cl_world_set_gravity(f->w, bad_g), CL_ERR_INVALID_ARGUMENT, "gravity[1]");
  expect(cl_world_set_gravity(NULL, bad_g), CL_ERR_INVALID_ARGUMENT, "world is NULL");
  expect(cl_world_set_gravity(f->w, NULL), CL_ERR_INVALID_ARGUMENT, "g is NULL");
  expect(cl_world_step(f->w, -1), CL_ERR_INVALID_ARGUMENT, "steps = -1");
  expect(cl_world_step(NULL, 1), CL_ERR_INVALID_ARGUMENT, "world is NULL");
  expect(cl_world_step(f->w, 0), CL_OK, NULL);
  cl_world_stats stats;
  expect(cl_world_get_stats(f->w, NULL), CL_ERR_INVALID_ARGUMENT, "stats is NULL");
  expect(cl_world_get_stats(NULL, &stats), CL_ERR_INVALID_ARGUMENT, "world is NULL");
}

static void test_body_def(void **state) {
  fixture *f = *state;
  cl_body_def def;
  cl_id b = 77;
  memset(&def, 0, sizeof def);
  def.solver = "test_double";
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT,
         "cl_body_def not initialised: call cl_body_def_default");
  assert_int_equal(b, 0);
  cl_body_def_default(&def);
  def.name = "bad";
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "no solver name given; registered "
                                                                               "solvers:");
  assert_non_null(strstr(cl_last_error(), "test_double"));
  def.solver = "corotationl";
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_NOT_FOUND, "unknown solver 'corotationl'");
  assert_non_null(strstr(cl_last_error(), "test_double"));
  assert_non_null(strstr(cl_last_error(), "body 'bad'"));
  def.solver = "test_double";
  expect(cl_world_add_body(NULL, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "world is NULL");
  expect(cl_world_add_body(f->w, NULL, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "def is NULL");
  expect(cl_world_add_body(f->w, &def, NULL, &b), CL_ERR_INVALID_ARGUMENT, "mesh is NULL");
  expect(cl_world_add_body(f->w, &def, f->mesh, NULL), CL_ERR_INVALID_ARGUMENT, "body is NULL");

  /* materials */
  def.material.poisson = 0.5;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "poisson = 0.5 is outside [0, 0.5)");
  def.material.poisson = -0.1;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "poisson = -0.1");
  def.material.poisson = NAN;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "poisson = nan");
  cl_body_def_default(&def);
  def.solver = "test_double";
  def.material.density = 0.0;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "density = 0 kg/m^3");
  def.material.density = 1000.0;
  def.material.young = -1.0;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "young = -1 Pa");
  def.material.young = INFINITY;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "young = inf Pa");
  def.material.young = 1e6;
  def.material.plastic_flow = -1.0;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "plastic_flow = -1");
  def.material.plastic_flow = 0.0;
  def.material.plastic_yield = NAN;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "plastic_yield = nan");
  def.material.plastic_yield = -1.0;

  /* solver parameters against the table */
  cl_param p = {"dampnig", 1.0, NULL};
  def.params = &p;
  def.param_count = 1;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_NOT_FOUND,
         "solver 'test_double' has no parameter 'dampnig'; its parameters are: damping (1/s)");
  p.name = "damping";
  p.value = -2.0;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT,
         "parameter 'damping' = -2 is outside its range [0, 1e+06] 1/s");
  p.value = NAN;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "'damping' = nan");
  cl_param twice[2] = {{"damping", 1.0, NULL}, {"damping", 2.0, NULL}};
  def.params = twice;
  def.param_count = 2;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "given twice");
  def.params = NULL;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "param_count = 2 with params NULL");
  def.param_count = 0;
  cl_param noname = {NULL, 1.0, NULL};
  def.params = &noname;
  def.param_count = 1;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "NULL name");
  def.params = NULL;
  def.param_count = 0;

  /* criteria */
  def.criterion = "cluster_strech";
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_NOT_FOUND, "unknown fracture criterion 'cluster_strech'");
  assert_non_null(strstr(cl_last_error(), "test_recorder"));
  def.criterion = "test_recorder";
  cl_param cp = {"raise_unit", 0.5, NULL};
  def.criterion_params = &cp;
  def.criterion_param_count = 1;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "must be an integer");
  cp.name = "toughness";
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_NOT_FOUND,
         "criterion 'test_recorder' has no parameter 'toughness'; its parameters are: raise_unit (1), repeat (1)");
  def.criterion = NULL;
  expect(cl_world_add_body(f->w, &def, f->mesh, &b), CL_ERR_INVALID_ARGUMENT, "without a criterion");
  def.criterion_params = NULL;
  def.criterion_param_count = 0;

  /* the solver rejects a mesh it cannot use */
  cl_mesh *points;
  const double xyz[6] = {0, 0, 0, 1, 0, 0};
  assert_int_equal(cl_mesh_from_arrays(CL_MESH_POINTS, xyz, 2, NULL, 0, &points), CL_OK);
  expect(cl_world_add_body(f->w, &def, points, &b), CL_ERR_INVALID_ARGUMENT, "needs a tet mesh");
  cl_mesh_destroy(points);
  assert_int_equal(b, 0);

  /* everything above left the world as it was: one body */
  cl_body_info info;
  expect(cl_body_get_info(f->w, f->body, &info), CL_OK, NULL);
  expect(cl_body_get_info(f->w, f->body, NULL), CL_ERR_INVALID_ARGUMENT, "info is NULL");
  expect(cl_body_get_info(NULL, f->body, &info), CL_ERR_INVALID_ARGUMENT, "world is NULL");
}

static void test_body_buffers(void **state) {
  fixture *f = *state;
  double buf[81];
  expect(cl_body_copy_positions(f->w, f->body, buf, 80), CL_ERR_INVALID_ARGUMENT, "capacity 80 is too small, 81");
  expect(cl_body_copy_velocities(f->w, f->body, NULL, 81), CL_ERR_INVALID_ARGUMENT, "output buffer is NULL");
  expect(cl_body_copy_rest_positions(NULL, f->body, buf, 81), CL_ERR_INVALID_ARGUMENT, "world is NULL");
  expect(cl_body_copy_positions(f->w, 12345, buf, 81), CL_ERR_STALE_ID, NULL);
  expect(cl_body_copy_unit_field(f->w, f->body, (cl_unit_field)7, buf, 81), CL_ERR_INVALID_ARGUMENT, "field 7");
  expect(cl_body_copy_unit_field(f->w, f->body, CL_UNIT_STRESS, buf, 81), CL_ERR_INVALID_ARGUMENT,
         "432 doubles needed");
  int32_t tris[3];
  expect(cl_body_copy_surface(f->w, f->body, tris, 3), CL_ERR_INVALID_ARGUMENT, "too small");
  expect(cl_body_write(f->w, f->body, NULL), CL_ERR_INVALID_ARGUMENT, "path is NULL");
  assert_true(cl_body_write(f->w, f->body, CLEAVE_BINARY_DIR "/x.unknownformat") < 0);
  assert_non_null(strstr(cl_last_error(), "body 'target'"));
}

static void test_regions(void **state) {
  fixture *f = *state;
  cl_region_def r;
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  cl_id c = 5;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = 3;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "axis = 3 must be 0 (x), 1 (y) or 2 (z)");
  assert_int_equal(c, 0);
  r.axis = 0;
  r.lo[0] = 0.5;
  r.hi[0] = 0.4;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "lo[0] = 0.5 > hi[0] = 0.4");
  r.lo[0] = NAN;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "NaN");
  r.lo[0] = 0.5;
  r.hi[0] = 0.6;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT,
         "region (slab 0.5 <= x <= 0.6) selects no node of body 'target'");
  assert_non_null(strstr(cl_last_error(), "rest bounding box is [0, 0.1]"));
  cl_region_def_default(&r, CL_REGION_BOX);
  r.lo[1] = 1.0;
  r.hi[1] = 0.0;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "lo[1] = 1 > hi[1] = 0");
  cl_region_def_default(&r, CL_REGION_SPHERE);
  r.radius = 0.0;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "radius = 0 m must be positive");
  r.radius = 0.01;
  r.center[0] = 5.0;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "selects no node");
  r.center[0] = INFINITY;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "center[0] = inf");
  cl_region_def_default(&r, CL_REGION_INDICES);
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "count = 0 selects no nodes");
  const int32_t idx[3] = {0, 27, 1};
  r.indices = idx;
  r.count = 3;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "indices[1] = 27 is outside the nodes [0, 27)");
  r.indices = NULL;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "indices is NULL");
  r.kind = (cl_region_kind)9;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "region kind 9");
  expect(cl_world_constrain(f->w, f->body, NULL, &m, &c), CL_ERR_INVALID_ARGUMENT, "region is NULL");
  int32_t n;
  expect(cl_condition_node_count(f->w, 0, &n), CL_ERR_INVALID_ARGUMENT, "condition id is 0");
  expect(cl_condition_node_count(f->w, f->body, &n), CL_ERR_STALE_ID, "not a condition id");
  expect(cl_world_remove_condition(f->w, f->body), CL_ERR_STALE_ID, NULL);
}

static void test_motions_and_forces(void **state) {
  fixture *f = *state;
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_ALL);
  cl_motion_def m;
  cl_id c;
  cl_motion_def_default(&m, CL_MOTION_TWIST);
  m.axis[0] = 0.0;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "the twist axis (0, 0, 0) must be non-zero");
  cl_motion_def_default(&m, CL_MOTION_ROTATE);
  m.axis[0] = 0.0;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "rotate axis");
  cl_motion_def_default(&m, CL_MOTION_TRANSLATE);
  m.velocity[1] = NAN;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "velocity[1] = nan m/s");
  cl_motion_def_default(&m, CL_MOTION_ROTATE);
  m.rate = INFINITY;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "rate = inf rad/s");
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  m.start = -1.0;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "start = -1 s");
  m.start = 0.0;
  m.duration = NAN;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "duration = nan");
  m.duration = INFINITY;
  m.release = -0.5;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "release = -0.5");
  m.kind = (cl_motion_kind)4;
  expect(cl_world_constrain(f->w, f->body, &r, &m, &c), CL_ERR_INVALID_ARGUMENT, "motion kind 4");
  expect(cl_world_constrain(f->w, f->body, &r, NULL, &c), CL_ERR_INVALID_ARGUMENT, "motion is NULL");
  expect(cl_world_constrain(f->w, f->body, &r, &m, NULL), CL_ERR_INVALID_ARGUMENT, "condition is NULL");

  const double force[3] = {1.0, NAN, 0.0};
  expect(cl_world_apply_force(f->w, f->body, &r, force, &c), CL_ERR_INVALID_ARGUMENT, "force[1] = nan");
  expect(cl_world_apply_force(f->w, f->body, &r, NULL, &c), CL_ERR_INVALID_ARGUMENT, "force is NULL");
  expect(cl_world_apply_force(f->w, 0, &r, force, &c), CL_ERR_INVALID_ARGUMENT, "body id is 0");
}

static void test_colliders(void **state) {
  fixture *f = *state;
  cl_collider_def d;
  cl_id c = 3;
  cl_collider_def_default(&d, CL_COLLIDER_PLANE);
  d.normal[1] = 0.0;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "the normal (0, 0, 0) must be non-zero");
  assert_int_equal(c, 0);
  cl_collider_def_default(&d, CL_COLLIDER_PLANE);
  d.friction = -0.1;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "plane collider: friction = -0.1");
  d.friction = NAN;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "plane collider: friction = nan must be finite");
  d.friction = INFINITY;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "friction = inf");
  d.friction = 0.1;
  d.restitution = 1.5;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "restitution = 1.5 is outside [0, 1]");
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  d.radius = -1.0;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "radius = -1 m");
  cl_collider_def_default(&d, CL_COLLIDER_BOX);
  d.half_extents[2] = 0.0;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "half_extents[2] = 0 m");
  cl_collider_def_default(&d, CL_COLLIDER_BOX);
  d.rotation[0] = 2.0;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "not orthonormal");
  d.rotation[0] = -1.0;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "reflection");
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  d.angular_velocity[0] = NAN;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "angular_velocity[0] = nan rad/s");
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  d.kind = (cl_collider_kind)3;
  expect(cl_world_add_collider(f->w, &d, &c), CL_ERR_INVALID_ARGUMENT, "collider kind 3");
  expect(cl_world_add_collider(NULL, &d, &c), CL_ERR_INVALID_ARGUMENT, "world is NULL");
  double center[3];
  expect(cl_collider_get_center(f->w, f->body, center), CL_ERR_STALE_ID, "not a collider id");
  expect(cl_world_remove_collider(f->w, 0), CL_ERR_INVALID_ARGUMENT, "collider id is 0");
}

static void test_probes(void **state) {
  fixture *f = *state;
  cl_probe_def d;
  cl_id p = 9;
  cl_probe_def_default(&d, (cl_probe_kind)11);
  expect(cl_world_add_probe(f->w, &d, &p), CL_ERR_INVALID_ARGUMENT, "probe kind 11");
  assert_int_equal(p, 0);
  cl_probe_def_default(&d, CL_PROBE_VOLUME);
  expect(cl_world_add_probe(f->w, &d, &p), CL_ERR_INVALID_ARGUMENT, "body id is 0");
  cl_probe_def_default(&d, CL_PROBE_REACTION);
  d.body = f->body;
  expect(cl_world_add_probe(f->w, &d, &p), CL_ERR_INVALID_ARGUMENT, "condition id is 0");
  /* a reaction probe needs a fixed or driven condition of the same body */
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = 2;
  r.hi[0] = 0.0;
  const double force[3] = {0, 0, 1};
  cl_id push, held, other;
  expect(cl_world_apply_force(f->w, f->body, &r, force, &push), CL_OK, NULL);
  d.condition = push;
  expect(cl_world_add_probe(f->w, &d, &p), CL_ERR_INVALID_ARGUMENT, "applies a load");
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  expect(cl_world_constrain(f->w, f->body, &r, &m, &held), CL_OK, NULL);
  expect(cl_double_add_box(f->w, "test_double", "other", 1, 1, 1, g_lo, g_hi, 1e5, 1000, NULL, 0, &other), CL_OK, NULL);
  d.condition = held;
  d.body = other;
  expect(cl_world_add_probe(f->w, &d, &p), CL_ERR_INVALID_ARGUMENT, "belongs to body");
  cl_probe_def_default(&d, CL_PROBE_DISTANCE);
  d.body = f->body;
  d.b[1] = NAN;
  expect(cl_world_add_probe(f->w, &d, &p), CL_ERR_INVALID_ARGUMENT, "must be finite");
  cl_probe_def_default(&d, CL_PROBE_PIECES);
  d.body = f->body;
  expect(cl_world_add_probe(f->w, &d, &p), CL_OK, NULL);
  double v;
  int32_t n;
  expect(cl_probe_read(f->w, p, &v, 0), CL_ERR_INVALID_ARGUMENT, "capacity 0 is too small, 1 doubles needed");
  expect(cl_probe_read(f->w, p, NULL, 1), CL_ERR_INVALID_ARGUMENT, "out is NULL");
  expect(cl_probe_size(f->w, p, NULL), CL_ERR_INVALID_ARGUMENT, "count is NULL");
  expect(cl_probe_size(f->w, f->body, &n), CL_ERR_STALE_ID, "not a probe id");
  expect(cl_world_add_probe(f->w, NULL, &p), CL_ERR_INVALID_ARGUMENT, "def is NULL");
  expect(cl_world_remove_body(f->w, other), CL_OK, NULL);
  expect(cl_world_remove_condition(f->w, push), CL_OK, NULL);
  expect(cl_world_remove_condition(f->w, held), CL_OK, NULL);
}

static void test_registry_and_params(void **state) {
  (void)state;
  const cl_param_info *table;
  int32_t count;
  expect(cl_param_table((cl_registry)5, "test_double", &table, &count), CL_ERR_INVALID_ARGUMENT, "registry 5");
  expect(cl_param_table(CL_REGISTRY_SOLVER, NULL, &table, &count), CL_ERR_INVALID_ARGUMENT, "no solver name");
  expect(cl_param_table(CL_REGISTRY_SOLVER, "test_double", NULL, &count), CL_ERR_INVALID_ARGUMENT, "table is NULL");
  assert_int_equal(cl_registry_count((cl_registry)5), 0);
  assert_null(cl_registry_name((cl_registry)5, 0));
  assert_null(cl_registry_name(CL_REGISTRY_SOLVER, -1));
  expect(cl_solver_register(NULL), CL_ERR_INVALID_ARGUMENT, "NULL table");
  expect(cl_criterion_register(NULL), CL_ERR_INVALID_ARGUMENT, "NULL table");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_world_def),
      cmocka_unit_test(test_world_calls),
      cmocka_unit_test(test_body_def),
      cmocka_unit_test(test_body_buffers),
      cmocka_unit_test(test_regions),
      cmocka_unit_test(test_motions_and_forces),
      cmocka_unit_test(test_colliders),
      cmocka_unit_test(test_probes),
      cmocka_unit_test(test_registry_and_params),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
