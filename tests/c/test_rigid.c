/* Dynamic (two-way) rigid colliders (world/rigid.c, docs/RIGID_BODIES.md): ballistic flight, torque-free
 * spin, momentum exchange with deformable bodies of three solvers, the hinged pendulum (hinge distance,
 * small-angle period, energy lost to a bar it hits), and bad input. */
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
#include "support/double_solver.h"
#include "support/test_worlds.h"
#include "world/world.h"

#define PI 3.14159265358979323846

#define assert_near(a, b, tol) near_((a), (b), (tol), #a, __FILE__, __LINE__)
static void near_(double a, double b, double tol, const char *what, const char *file, int line) {
  if (!(fabs(a - b) <= tol)) {
    print_error("%s = %.17g, expected %.17g within %g\n", what, a, b, tol);
    _fail(file, line);
  }
}

static int setup(void **state) {
  (void)state;
  return cl_double_register() == CL_OK ? 0 : -1;
}

static cl_world *make_world(double dt, double gy) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = dt;
  def.gravity[0] = def.gravity[2] = 0.0;
  def.gravity[1] = gy;
  cl_world *w = NULL;
  assert_int_equal(cl_world_create(&def, &w), CL_OK);
  return w;
}

static cl_id add_sphere(cl_world *w, const double *c, const double *v, double r, double mass) {
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  d.dynamic = 1;
  d.mass = mass;
  d.radius = r;
  for (int k = 0; k < 3; ++k) {
    d.center[k] = c[k];
    d.velocity[k] = v[k];
  }
  cl_id id = 0;
  assert_int_equal(cl_world_add_collider(w, &d, &id), CL_OK);
  return id;
}

/* A free sphere under gravity follows x0 + v0 t + g t^2 / 2 to rounding (the flight update is exact
 * for constant g), and its velocity is v0 + g t. */
static void test_free_fall(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  double c0[3] = {0.0, 2.0, 0.0}, v0[3] = {0.5, 1.0, 0.0};
  cl_id s = add_sphere(w, c0, v0, 0.1, 2.0);
  assert_int_equal(cl_world_step(w, 1000), CL_OK);
  double c[3], v[3], t = 1.0;
  assert_int_equal(cl_collider_get_center(w, s, c), CL_OK);
  assert_int_equal(cl_collider_get_velocity(w, s, v), CL_OK);
  assert_near(c[0], 0.5 * t, 1e-12);
  assert_near(c[1], 2.0 + 1.0 * t - 0.5 * 9.81 * t * t, 1e-12);
  assert_near(v[1], 1.0 - 9.81 * t, 1e-12);
  cl_world_destroy(w);
}

/* A box spinning about a non-principal axis without torque keeps its angular momentum
 * L = R I R^T w (world frame) and an orthonormal orientation. */
static void test_torque_free_spin(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_BOX);
  d.dynamic = 1;
  d.mass = 3.0;
  d.half_extents[0] = 0.3;
  d.half_extents[1] = 0.1;
  d.half_extents[2] = 0.05;
  d.angular_velocity[0] = 1.0;
  d.angular_velocity[1] = 2.0;
  d.angular_velocity[2] = 0.5;
  cl_id id;
  assert_int_equal(cl_world_add_collider(w, &d, &id), CL_OK);
  const double I[3] = {3.0 / 3 * (0.01 + 0.0025), 3.0 / 3 * (0.09 + 0.0025), 3.0 / 3 * (0.09 + 0.01)};
  double L0[3] = {I[0] * 1.0, I[1] * 2.0, I[2] * 0.5};
  assert_int_equal(cl_world_step(w, 2000), CL_OK);
  double R[9], om[3], L[3];
  assert_int_equal(cl_collider_get_rotation(w, id, R), CL_OK);
  assert_int_equal(cl_collider_get_angular_velocity(w, id, om), CL_OK);
  double q[3];
  for (int k = 0; k < 3; ++k) q[k] = I[k] * (R[k] * om[0] + R[3 + k] * om[1] + R[6 + k] * om[2]);
  for (int i = 0; i < 3; ++i) L[i] = R[3 * i] * q[0] + R[3 * i + 1] * q[1] + R[3 * i + 2] * q[2];
  for (int k = 0; k < 3; ++k) assert_near(L[k], L0[k], 1e-12);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      assert_near(R[a] * R[b] + R[3 + a] * R[3 + b] + R[6 + a] * R[6 + b], a == b ? 1.0 : 0.0, 1e-12);
  /* it did turn (not a frozen orientation) */
  assert_true(fabs(R[0] - 1.0) > 1e-3);
  cl_world_destroy(w);
}

static void total_momentum(cl_world *w, cl_id body, cl_id sphere, double mass, double *P) {
  double pb[3], lb[3], v[3];
  cl_double_momentum(cl_world_body_state(w, body), pb, lb);
  assert_int_equal(cl_collider_get_velocity(w, sphere, v), CL_OK);
  for (int k = 0; k < 3; ++k) P[k] = pb[k] + mass * v[k];
}

/* A sphere shot at a free block in zero gravity: the sphere slows, the block takes the momentum, and
 * the total linear momentum stays what it was. With the explicit test double (which conserves
 * momentum exactly) to 1e-9 relative; shape matching and corotational report their drift. */
static void run_impact(const char *solver, double young, int steps, double tol, double *sphere_v, double *drift) {
  cl_world *w = make_world(1e-4, 0.0);
  const double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {0.1, 0.1, 0.1};
  cl_id body;
  assert_int_equal(cl_double_add_box(w, solver, "block", 4, 4, 4, lo, hi, young, 1000.0, NULL, 0, &body), CL_OK);
  const double c0[3] = {-0.06, 0.05, 0.05}, v0[3] = {2.0, 0.0, 0.0};
  const double M = 0.5;
  cl_id s = add_sphere(w, c0, v0, 0.05, M);
  double P0[3], P[3];
  total_momentum(w, body, s, M, P0);
  assert_near(P0[0], 1.0, 1e-12);
  assert_int_equal(cl_world_step(w, steps), CL_OK);
  total_momentum(w, body, s, M, P);
  double v[3], pb[3], lb[3];
  assert_int_equal(cl_collider_get_velocity(w, s, v), CL_OK);
  cl_double_momentum(cl_world_body_state(w, body), pb, lb);
  *sphere_v = v[0];
  *drift = 0.0;
  for (int k = 0; k < 3; ++k) *drift = fmax(*drift, fabs(P[k] - P0[k]) / P0[0]);
  print_message("%s: sphere v_x 2 -> %.6f m/s, block p_x %.6f N s, momentum drift %.3g (relative)\n", solver,
                v[0], pb[0], *drift);
  assert_true(v[0] < 1.9);   /* slowed by the block */
  assert_true(pb[0] > 0.05); /* the block was pushed */
  assert_true(*drift <= tol);
  cl_world_destroy(w);
}

static void test_impact_double(void **state) {
  (void)state;
  double v, drift;
  run_impact("test_double", 2e5, 600, 1e-9, &v, &drift);
}

static void test_impact_shape_matching(void **state) {
  (void)state;
  double v, drift;
  run_impact("shape_matching", 2e5, 600, 1e-6, &v, &drift);
}

static void test_impact_corotational(void **state) {
  (void)state;
  double v, drift;
  /* the contact impulse is the held rows' reaction after the re-solve (corotational/step.c) */
  run_impact("corotational", 2e5, 600, 1e-10, &v, &drift);
}

static cl_id add_pendulum(cl_world *w, const double *pivot, double L, double theta0, double r, double mass) {
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  d.dynamic = 1;
  d.mass = mass;
  d.radius = r;
  d.hinged = 1;
  for (int k = 0; k < 3; ++k) d.hinge_point[k] = pivot[k];
  d.hinge_axis[2] = 2.0; /* not unit on purpose */
  d.center[0] = pivot[0] - L * sin(theta0);
  d.center[1] = pivot[1] - L * cos(theta0);
  d.center[2] = pivot[2];
  cl_id id;
  assert_int_equal(cl_world_add_collider(w, &d, &id), CL_OK);
  return id;
}

/* Small swings: the hinge distance stays L and the period is 2 pi sqrt(I_p / (M g L)) with
 * I_p = 2/5 M r^2 + M L^2 (compound pendulum), within 1%. */
static void test_pendulum_period(void **state) {
  (void)state;
  const double g = 9.81, L = 0.5, r = 0.05, M = 1.0, dt = 1e-3;
  cl_world *w = make_world(dt, -g);
  const double pivot[3] = {0.0, 1.0, 0.0};
  cl_id id = add_pendulum(w, pivot, L, 0.05, r, M);
  double T = 2.0 * PI * sqrt((0.4 * M * r * r + M * L * L) / (M * g * L));
  /* times of upward zero crossings of x (linear interpolation), and the worst hinge distance error */
  double prev_x = -1.0, crossings[8];
  int nc = 0;
  double worst = 0.0;
  for (int i = 1; i <= 4000 && nc < 8; ++i) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    double c[3];
    assert_int_equal(cl_collider_get_center(w, id, c), CL_OK);
    double dist = sqrt((c[0] - pivot[0]) * (c[0] - pivot[0]) + (c[1] - pivot[1]) * (c[1] - pivot[1]) +
                       (c[2] - pivot[2]) * (c[2] - pivot[2]));
    worst = fmax(worst, fabs(dist - L));
    if (prev_x < 0.0 && c[0] >= 0.0 && i > 1) crossings[nc++] = dt * (i - 1 + (-prev_x) / (c[0] - prev_x));
    prev_x = c[0];
  }
  assert_true(nc >= 3);
  double Tm = (crossings[nc - 1] - crossings[0]) / (nc - 1);
  print_message("pendulum: period %.6f s measured, %.6f s small-angle, hinge distance error %.3g m\n", Tm, T, worst);
  assert_near(Tm / T, 1.0, 0.01);
  assert_true(worst < 1e-12);
  cl_world_destroy(w);
}

/* Highest centre height of a pendulum released horizontally, from 0.5 s (past the bottom) to 1.2 s,
 * on either side, with or without a cantilever bar (corotational, far end held) standing in its path
 * at the bottom of the swing. */
static double pendulum_peak(int with_bar, double *bar_p) {
  const double g = 9.81, L = 0.5, r = 0.05, M = 1.0, dt = 1e-3;
  cl_world *w = make_world(dt, -g);
  const double pivot[3] = {0.0, 0.6, 0.0};
  cl_id id = add_pendulum(w, pivot, L, PI / 2, r, M);
  cl_id bar = 0;
  if (with_bar) {
    const double lo[3] = {0.02, 0.0, -0.05}, hi[3] = {0.32, 0.09, 0.05};
    assert_int_equal(cl_double_add_box(w, "corotational", "bar", 8, 2, 3, lo, hi, 1e6, 300.0, NULL, 0, &bar), CL_OK);
    cl_test_x_slab(w, bar, 0.29, 1.0, 0.0);
  }
  double peak = -1e9;
  for (int i = 1; i <= 1200; ++i) {
    cl_status st = cl_world_step(w, 1);
    if (st != CL_OK) print_error("step %d: %s\n", i, cl_last_error());
    assert_int_equal(st, CL_OK);
    double c[3];
    assert_int_equal(cl_collider_get_center(w, id, c), CL_OK);
    if (i * dt > 0.5) peak = fmax(peak, c[1]);
  }
  if (bar_p) {
    cl_body_info info;
    assert_int_equal(cl_body_get_info(w, bar, &info), CL_OK);
    *bar_p = info.mass;
  }
  cl_world_destroy(w);
  return peak;
}

static void test_pendulum_hits_bar(void **state) {
  (void)state;
  double free_peak = pendulum_peak(0, NULL), bar_mass = 0.0;
  double hit_peak = pendulum_peak(1, &bar_mass);
  print_message("pendulum from 0.6 m: peak %.4f m free, %.4f m after hitting a %.3f kg bar\n", free_peak, hit_peak,
                bar_mass);
  assert_near(free_peak, 0.6, 0.01); /* no bar: it comes back up (energy kept by the integrator) */
  assert_true(hit_peak < free_peak - 0.03); /* it lost energy to the bar (vibration, implicit damping) */
  /* the contact only pushes and lets go: the bent elastic bar throws the hammer back, well above the
   * bottom of its swing (0.1 m), instead of holding it glued to its end (which kept it at 0.101 m) */
  assert_true(hit_peak > 0.3);
}

static void expect_bad(const cl_collider_def *d, const char *needle) {
  cl_world *w = make_world(1e-3, -9.81);
  cl_id id = 123;
  assert_int_equal(cl_world_add_collider(w, d, &id), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(id, 0);
  if (!strstr(cl_last_error(), needle)) {
    print_error("message '%s' does not mention '%s'\n", cl_last_error(), needle);
    fail();
  }
  cl_world_destroy(w);
}

static void test_bad_input(void **state) {
  (void)state;
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  d.dynamic = 1;
  d.mass = 0.0;
  expect_bad(&d, "mass = 0");
  d.mass = -1.0;
  expect_bad(&d, "mass = -1");
  d.mass = NAN;
  expect_bad(&d, "mass = nan");
  d.mass = 1.0;
  d.inertia[0] = 1.0;
  expect_bad(&d, "inertia");
  d.inertia[0] = NAN;
  expect_bad(&d, "inertia[0]");
  d.inertia[0] = 0.0;
  d.hinged = 1;
  expect_bad(&d, "hinge_axis (0, 0, 0) must be non-zero");
  d.hinge_axis[1] = 1.0;
  d.hinge_point[2] = INFINITY;
  expect_bad(&d, "hinge_point[2]");
  d.hinge_point[2] = 0.0;
  d.dynamic = 2;
  expect_bad(&d, "dynamic = 2");
  cl_collider_def_default(&d, CL_COLLIDER_PLANE);
  d.dynamic = 1;
  d.mass = 1.0;
  expect_bad(&d, "plane");

  /* getters: NULL and stale ids */
  cl_world *w = make_world(1e-3, 0.0);
  double c[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  cl_id s = add_sphere(w, c, v, 0.1, 1.0);
  assert_int_equal(cl_collider_get_velocity(w, s, NULL), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_collider_get_angular_velocity(NULL, s, v), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_world_remove_collider(w, s), CL_OK);
  assert_int_equal(cl_collider_get_rotation(w, s, v), CL_ERR_STALE_ID);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_free_fall),         cmocka_unit_test(test_torque_free_spin),
      cmocka_unit_test(test_impact_double),     cmocka_unit_test(test_impact_shape_matching),
      cmocka_unit_test(test_impact_corotational), cmocka_unit_test(test_pendulum_period),
      cmocka_unit_test(test_pendulum_hits_bar), cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
